/* SPDX-License-Identifier: MIT */
/* pg_ocr.h - text and word boxes from an image, with the Tesseract 5 C API.
 *
 * Does: turn an RGBA8 pg_img (or a region of it) into words with boxes in the
 * INPUT image's coordinates, a visual row number and a confidence, plus the
 * whole text; find a phrase among those words (pg_ocr_find).
 * Preprocessing (docs/ocr.md has the measurements behind each step):
 *  1. alpha over white -> 8-bit BT.601 luma; the whole region is inverted when
 *     its mean is dark (< 128: dark themes, terminals);
 *  2. layout clean-up at input scale: widget frames, box drawing and long
 *     rules are painted with the background so they cannot merge with text;
 *  3. region split: coloured buttons and dark bars (light text cut out of a
 *     dark fill) are read inverted, grey panels (a tint of the background, or
 *     a mid-tone fill under dark text) are read on their own, recursively -
 *     one global threshold cannot serve a white page and a blue button;
 *  4. contrast: ink is deepened and the background lifted to white, so dim
 *     text (#999 on white, grey on a dark theme) survives Tesseract's one
 *     global threshold;
 *  5. each page is upscaled by an integer factor (bilinear; rule below),
 *     padded with its border colour and read with PSM_SPARSE_TEXT (measured
 *     best on GUI captures: it keeps a label and its field apart), LSTM only;
 *  6. words are ordered by visual rows (top to bottom, then left to right);
 *     words Tesseract gives confidence < 15 are dropped (widget marks).
 * Tesseract never prints: its debug output goes to /dev/null.
 * Never: reads image files, touches the platform, writes stdout/stderr, keeps
 * pixels after a call returns. pg_ocr_find is pure.
 * Threads: a pg_ocr is ONE Tesseract engine and is NOT thread-safe: use one per
 * thread (the broker keeps a small pool, or one behind a mutex). Results are
 * plain data. Tesseract uses OpenMP, which reads OMP_THREAD_LIMIT once, when
 * libgomp is loaded (before main): setenv() in main is too late. The process
 * must be STARTED with OMP_THREAD_LIMIT=1 (the systemd unit sets it) or call
 * pg_ocr_ensure_single_thread(argv) first thing in main. Without it Tesseract
 * runs 4 spinning threads per call: 6.7x slower on a loaded 2-core machine.
 * Cost: pg_ocr_new ~0.1-0.2 s and ~15-20 MB (eng); a call is tens to hundreds of
 * ms (docs/ocr.md). Create engines once, reuse them.
 * Ownership: pg_ocr_new/pg_ocr_free; a pg_ocr_result owns its text and words
 * (every char* inside) and is released with pg_ocr_result_fini.
 * Builds: PG_HAVE_TESSERACT (a PUBLIC compile definition of pg_ocr, 0 or 1)
 * says whether Tesseract >= 5.0 was found by pkg-config. Linux requires it
 * (configuring fails without it). The Windows (mingw-w64) build has no
 * Tesseract package: there PG_HAVE_TESSERACT is 0 and pg_ocr_new, pg_ocr_run,
 * pg_ocr_run_opts and pg_ocr_find return PG_E_UNSUPPORTED with the message
 * PG_OCR_UNAVAILABLE_MESSAGE (pg_ocr_unavailable.c); pg_ocr_thread_limit
 * is 0, pg_ocr_ensure_single_thread is PG_OK, and pg_ocr_tesseract_version
 * says "none (built without Tesseract)". Nothing pretends to have read text.
 */
#ifndef PG_OCR_H
#define PG_OCR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

typedef struct pg_ocr pg_ocr;

#ifndef PG_HAVE_TESSERACT
#define PG_HAVE_TESSERACT 0
#endif
/* The error message of every reading call in a build without Tesseract. */
#define PG_OCR_UNAVAILABLE_MESSAGE                                                                  \
    "OCR is not available in this build: pixelgate was built without Tesseract (docs/windows.md says " \
    "how to build with it)"

/* Read limits. The region (or whole image) must have at most max_pixels
 * pixels, else PG_E_BADINPUT before any work; Tesseract's own coordinates are
 * 16-bit, so a side (after upscaling and padding) above PG_OCR_MAX_SIDE is
 * refused too. */
#define PG_OCR_DEFAULT_MAX_PIXELS ((uint64_t)16777216) /* 4096x4096; a 4K screen fits */
#define PG_OCR_MAX_SIDE 32000u                         /* upscaled and padded side */
#define PG_OCR_MAX_SCALE 4
#define PG_OCR_MAX_SCALED_PIXELS ((uint64_t)33554432) /* a forced scale > 1 may not make more */

/* Auto scale rule (opts.scale == 0): 2 when the region has at most
 * PG_OCR_UPSCALE_MAX_PIXELS pixels (a 1920x1200 screen or anything smaller),
 * else 1. GUI text (8-10 pt at 96 dpi, 11-13 px) is below the size
 * Tesseract's LSTM model reads reliably; doubling it fixes 8-9 pt text. Above
 * the cap the 4x pixel cost is not paid: OCR a region for small text there. */
#define PG_OCR_UPSCALE_MAX_PIXELS ((uint64_t)2304000) /* 1920x1200 */

/* Page segmentation modes accepted in pg_ocr_opts.psm (Tesseract's numbers). */
#define PG_OCR_PSM_AUTO 3 /* fully automatic page layout */
#define PG_OCR_PSM_SINGLE_BLOCK 6
#define PG_OCR_PSM_SINGLE_LINE 7
#define PG_OCR_PSM_SINGLE_CHAR 10 /* field mode only, for a field holding one glyph */
#define PG_OCR_PSM_SPARSE_TEXT 11 /* the default: text in no particular order */

/* Words Tesseract itself gives less than this confidence (0..100) are
 * dropped by default: they are the marks of check boxes, radio buttons and
 * icons ("(—", conf 0-8), not text. */
#define PG_OCR_DEFAULT_MIN_CONF 15

/* Reading stops with PG_E_TIMEOUT after this by default: Tesseract spends
 * ~47 s on 1920x1080 of random noise (an untrusted upload can be anything).
 * Tesseract checks the deadline between words, so a call overruns it by at
 * most one word's recognition plus its page layout pass. */
#define PG_OCR_DEFAULT_TIMEOUT_MS 20000

typedef struct {
    int scale;           /* 0: auto rule above; 1..PG_OCR_MAX_SCALE: forced */
    int psm;             /* 0: PG_OCR_PSM_SPARSE_TEXT; else one of PG_OCR_PSM_* */
    int invert;          /* 0: auto (mean luma < 128); 1: always; -1: never */
    uint64_t max_pixels; /* 0: PG_OCR_DEFAULT_MAX_PIXELS */
    int timeout_ms;      /* 0: PG_OCR_DEFAULT_TIMEOUT_MS; -1: none; else PG_E_TIMEOUT after this */
    int min_conf;        /* 0: PG_OCR_DEFAULT_MIN_CONF; -1: keep every word; 1..100 */
    bool field;          /* the region is ONE field (an entry, a label, a list row, a button face):
                            see "Field mode" below */
} pg_ocr_opts;

/* Field mode (opts.field): for reading back what was typed into one widget.
 *  - no panel split: the region is one line of text on one background;
 *  - polarity from the region's border (its background), not its mean: white
 *    text on a blue selection band is read inverted;
 *  - the text caret is removed before recognition: an ink bar at most 3 px
 *    wide that is at least 1.2x as tall as every other mark (a text cursor
 *    spans the font's whole line height; glyphs do not), or the only mark;
 *  - small text is upscaled: scale ceil(PG_OCR_FIELD_TARGET_PX / region
 *    height), 2..PG_OCR_MAX_SCALE, unless opts.scale forces one;
 *  - PSM_SINGLE_LINE (opts.psm may override; a field whose marks are one
 *    glyph wide is read as PSM_SINGLE_CHAR), every word kept (min_conf -1
 *    unless given); a field without marks (nothing 20 levels from its
 *    background) reads as empty without asking Tesseract;
 *  - an inverted pass: when the first reading's mean confidence is under
 *    PG_OCR_FIELD_RETRY_CONF (or nothing was read), the opposite polarity is
 *    read too and the more confident reading is kept (r.inverted says which).
 */
#define PG_OCR_FIELD_TARGET_PX 34
#define PG_OCR_FIELD_RETRY_CONF 70

/* One engine for lang ("eng", or "eng+deu": letters, digits, '_' and '+'
 * only), with traineddata from datapath (the tessdata directory; NULL:
 * Tesseract's default, or $TESSDATA_PREFIX). PG_E_BADINPUT for a malformed
 * lang, PG_E_NOTFOUND when the language data cannot be loaded. */
pg_err pg_ocr_new(pg_ocr **out, const char *lang, const char *datapath, pg_error *e);
void pg_ocr_free(pg_ocr *o); /* NULL is fine */

typedef struct {
    char *text;     /* UTF-8, non-empty, no whitespace */
    int x, y, w, h; /* box in the INPUT image's coordinates (region offset added), w,h >= 1 */
    float conf;     /* Tesseract's word confidence, 0..100 */
    int line;       /* 0-based visual row, top to bottom */
} pg_ocr_word;

typedef struct {
    char *text;         /* the words: one space between words of a row, '\n' between
                           rows, no trailing newline; "" when nothing was read */
    pg_ocr_word *words; /* n_words, rows top to bottom, left to right in a row */
    size_t n_words;
    size_t n_lines;     /* rows */
    double mean_conf;   /* mean of the words' conf; 0 when no words */
    int scale;          /* the upscale factor that ran */
    bool inverted;      /* the region's luma was inverted (dark background) */
    int psm;            /* the page segmentation mode that ran */
    unsigned panels;    /* panels (buttons, bars, grey areas) read on their own that gave words */
    pg_img_rect region; /* what was read, in input coordinates */
} pg_ocr_result;

/* Read img (region NULL: all of it). A region outside the image or of zero
 * area is PG_E_USAGE; an image without pixels, with a bad stride or zero
 * area, or over the limits is PG_E_BADINPUT; opts out of range PG_E_USAGE. A
 * region with no text is PG_OK with n_words == 0 and text "". Deterministic:
 * the same pixels and opts give the same result on any engine of the same
 * language. On error *out is empty (safe to fini). */
pg_err pg_ocr_run(pg_ocr *o, const pg_img *img, const pg_img_rect *region, pg_ocr_result *out, pg_error *e);
pg_err pg_ocr_run_opts(pg_ocr *o, const pg_img *img, const pg_img_rect *region, const pg_ocr_opts *opts,
                       pg_ocr_result *out, pg_error *e);
void pg_ocr_result_fini(pg_ocr_result *r); /* zeroes r; a zeroed result is fine */

/* pg_ocr_find: where is a phrase?
 *
 * Normalisation (applied to the phrase and to the words alike):
 *  - whitespace runs (space, tab, CR, LF, VT, FF, NBSP) become one space;
 *    leading and trailing whitespace is dropped; the words of the result are
 *    joined with one space, across rows (a phrase may wrap onto the next row);
 *  - typographic look-alikes that OCR emits are folded to ASCII: U+2018 U+2019
 *    U+201A U+2032 -> ', U+201C U+201D U+201E U+2033 -> ", U+2010..U+2015
 *    U+2212 -> -, U+2026 -> ...;
 *  - without PG_OCR_FIND_CASE, letters are compared case-insensitively: ASCII
 *    and Latin-1 (U+00C0..U+00DE except U+00D7), code point by code point.
 * Modes:
 *  - default (substring): the phrase occurs anywhere in the joined text, and
 *    may start or end inside a word ("Status" finds "Status:");
 *  - PG_OCR_FIND_WORDS: the phrase equals a run of whole consecutive words
 *    ("Status:" finds "Status:", "Status" does not);
 *  - PG_OCR_FIND_EXACT: the phrase equals the whole joined text of the
 *    result (every word, in order) - `assert text --exact` over a region;
 *  - PG_OCR_FIND_CASE: case-sensitive; `--exact` is EXACT|CASE.
 * The match is the first one that starts in word start_word or later (EXACT
 * needs start_word 0). m gets the union box of the words the match touches
 * (input coordinates), their first index and count; to list every match,
 * call again with start_word = first_word + 1. Returns PG_OK, PG_E_NOTFOUND
 * (m zeroed; the message quotes up to 200 bytes of what was read), or
 * PG_E_USAGE for an empty or all-whitespace phrase, one that is not valid
 * UTF-8, or unknown flags. */
#define PG_OCR_FIND_CASE 1u
#define PG_OCR_FIND_WORDS 2u
#define PG_OCR_FIND_EXACT 4u
/* Unicode NFKC and full case folding (utf8proc's NFKC_Casefold) before the
 * other rules: "FIle" finds "file", "STRASSE" finds "straße", "Å" (U+212B)
 * finds "å". Needs a build with utf8proc (PG_HAVE_UTF8PROC), else
 * PG_E_UNSUPPORTED. */
#define PG_OCR_FIND_NORMALIZE 8u

typedef struct {
    pg_img_rect box;
    size_t first_word, n_words;
} pg_ocr_match;

pg_err pg_ocr_find(const pg_ocr_result *r, const char *phrase, unsigned flags, size_t start_word, pg_ocr_match *m,
                   pg_error *e);

/* pg_ocr_nearest: how far is the text from the phrase?
 *
 * The phrase and the words are normalised as for pg_ocr_find (flags CASE,
 * EXACT and NORMALIZE apply; WORDS does not). The answer is the Levenshtein
 * distance in code points (insert, delete, substitute: 1 each) between the
 * phrase and the closest run of the joined text (EXACT: the whole text), so
 * distance 0 is exactly a pg_ocr_find match, and 1 is one character off.
 * n->box and words are those the closest run touches; n->matched quotes it
 * (normalised, up to 255 bytes). The phrase may have at most
 * PG_OCR_NEAR_MAX_PHRASE code points and phrase x text at most
 * PG_OCR_NEAR_MAX_CELLS, else PG_E_USAGE (read a --region). An empty text
 * gives the phrase's length as the distance. */
#define PG_OCR_NEAR_MAX_PHRASE 1024
#define PG_OCR_NEAR_MAX_CELLS ((uint64_t)16000000)

typedef struct {
    size_t distance;     /* edits between the phrase and the closest run */
    size_t phrase_len;   /* the normalised phrase, in code points */
    double similarity;   /* 1 - distance / max(phrase_len, run length), 0..1 */
    pg_img_rect box;     /* the words the run touches (w == 0 when no words) */
    size_t first_word, n_words;
    char matched[256];   /* the run, normalised */
} pg_ocr_near;

pg_err pg_ocr_nearest(const pg_ocr_result *r, const char *phrase, unsigned flags, pg_ocr_near *n, pg_error *e);

/* NFKC + case folding of UTF-8 s into a new string (free it), or NULL with
 * PG_E_UNSUPPORTED (no utf8proc in this build) or PG_E_USAGE (not UTF-8). */
char *pg_ocr_normalize(const char *s, pg_error *e);
/* Does this build normalise (utf8proc)? Without it, callers compare with
 * PG_OCR_FIND_CASE off (ASCII and Latin-1 case folding only). */
bool pg_ocr_can_normalize(void);

/* OpenMP's thread limit as libgomp read it at load time: 1 is what the
 * broker wants; 0 when no OpenMP runtime is loaded (Tesseract built without
 * it: single-threaded too); larger values mean OMP_THREAD_LIMIT=1 was not in
 * the environment when the process started. For start-up checks and `info`. */
int pg_ocr_thread_limit(void);

/* For main(), before any thread starts: when pg_ocr_thread_limit() > 1, set
 * OMP_THREAD_LIMIT=1 and re-exec /proc/self/exe with argv (returns only on
 * failure, or at once with PG_OK when the limit is already 1 or 0). A second
 * re-exec is refused (PG_E_INTERNAL), so it cannot loop. */
pg_err pg_ocr_ensure_single_thread(char *const argv[], pg_error *e);

/* Results cached per user (pg_ocr_cache.h): while a cache is bound, every
 * pg_ocr_run/pg_ocr_run_opts on o (pg_ocr_layout_run's reads included) is
 * answered from uid's entries when the same pixels were read with the same
 * language and options, and a window that changed in a small band is re-read
 * only there. The broker binds the caller's uid when it lends an engine and
 * unbinds (c NULL) when it takes it back. */
typedef struct pg_ocr_cache pg_ocr_cache;
void pg_ocr_bind_cache(pg_ocr *o, pg_ocr_cache *c, uint32_t uid);

/* Would pg_ocr_run_opts with invert 0 invert this region (mean luma < 128)?
 * The cache forces the same polarity on a band it re-reads. */
bool pg_ocr_auto_inverts(const pg_img *img, const pg_img_rect *region);

/* Where a region may be cut into horizontal bands without cutting anything
 * the layout pass sees: clean[y] (0 < y < height) is true when no column has
 * a pixel 12 or more levels from the background (the most common gray, after
 * inversion when inv) in both rows y-1 and y, so no 4-connected component of
 * frames, text, panels or tints crosses between them; clean[0] is true. */
pg_err pg_ocr_clean_cuts(const pg_img *img, bool inv, bool *clean, pg_error *e);

/* Orders n words (region-relative boxes; `line` is read as the Tesseract
 * line group each came from) into rows exactly as pg_ocr_run does, into a
 * new result whose region is *reg (its offset added to every box). Takes
 * the words' text (each words[i].text becomes NULL); the array stays the
 * caller's. */
pg_err pg_ocr_result_order(pg_ocr_word *words, size_t n, const pg_img_rect *reg, pg_ocr_result *out, pg_error *e);

/* Tesseract's version string, e.g. "5.3.0". */
const char *pg_ocr_tesseract_version(void);

#endif
