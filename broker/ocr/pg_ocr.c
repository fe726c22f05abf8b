/* SPDX-License-Identifier: MIT */
/* pg_ocr.c - see pg_ocr.h and docs/ocr.md. */
#include "pg_ocr.h"

#ifndef _WIN32
#include <dlfcn.h>
#include <unistd.h>
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tesseract/capi.h>
#if PG_HAVE_UTF8PROC
#include <utf8proc.h>
#endif

#include "pg_morph.h"
#include "pg_ocr_cache.h"
#include "pg_time.h"

struct pg_ocr {
    TessBaseAPI *api;
    char lang[64];        /* the spec it was made for: part of every cache key */
    pg_ocr_cache *cache;  /* bound for one request (pg_ocr_bind_cache), else NULL */
    uint32_t uid;         /* whose entries the bound cache serves */
};

/* Pad around the (scaled) image: Tesseract reads text that touches the edge
 * of a tight crop badly. In scaled pixels. */
#define PAD 12

/* ------------------------------------------------------------------ engine */

static bool lang_ok(const char *lang) {
    size_t n = strlen(lang);
    if (n == 0 || n > 63 || lang[0] == '+' || lang[n - 1] == '+') return false;
    for (size_t i = 0; i < n; i++) {
        char c = lang[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '+';
        if (!ok || (c == '+' && lang[i + 1] == '+')) return false;
    }
    return true;
}

pg_err pg_ocr_new(pg_ocr **out, const char *lang, const char *datapath, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_new: no output pointer");
    *out = NULL;
    if (!lang) lang = "eng";
    if (!lang_ok(lang))
        return pg_error_set(e, PG_E_BADINPUT, "name installed languages like eng or eng+deu",
                            "OCR language \"%.64s\" is malformed (letters, digits, '_' and '+' only)", lang);
    pg_ocr *o = calloc(1, sizeof *o);
    if (!o) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    o->api = TessBaseAPICreate();
    if (!o->api) {
        free(o);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "Tesseract could not create an engine");
    }
    /* debug_file is a global parameter read by every tprintf: set it before
     * Init so that even Init's own complaints go nowhere. */
    TessBaseAPISetVariable(o->api, "debug_file", "/dev/null");
    if (TessBaseAPIInit2(o->api, datapath, lang, OEM_LSTM_ONLY) != 0) {
        TessBaseAPIDelete(o->api);
        free(o);
        return pg_error_set(e, PG_E_NOTFOUND,
                            "install the language data (Debian: tesseract-ocr-<lang>) or fix the datapath",
                            "Tesseract could not load language \"%s\" from %s", lang,
                            datapath ? datapath : "its default tessdata directory");
    }
    /* Quiet and deterministic: no per-page files, no adaptation between calls
     * (a result must not depend on what the engine read before). */
    TessBaseAPISetVariable(o->api, "debug_file", "/dev/null");
    TessBaseAPISetVariable(o->api, "classify_enable_learning", "0");
    snprintf(o->lang, sizeof o->lang, "%s", lang);
    *out = o;
    return PG_OK;
}

void pg_ocr_free(pg_ocr *o) {
    if (!o) return;
    TessBaseAPIEnd(o->api);
    TessBaseAPIDelete(o->api);
    free(o);
}

#ifdef _WIN32
/* The Windows Tesseract (scripts/mingw-tesseract.sh) is built without
 * OpenMP: recognition is single-threaded and there is nothing to limit. */
int pg_ocr_thread_limit(void) { return 0; }

pg_err pg_ocr_ensure_single_thread(char *const argv[], pg_error *e) {
    (void)argv;
    (void)e;
    return PG_OK;
}
#else
int pg_ocr_thread_limit(void) {
    void *sym = dlsym(RTLD_DEFAULT, "omp_get_thread_limit");
    if (!sym) return 0;
    int (*fn)(void);
    memcpy(&fn, &sym, sizeof fn); /* object pointer -> function pointer, as POSIX allows */
    return fn();
}

pg_err pg_ocr_ensure_single_thread(char *const argv[], pg_error *e) {
    int lim = pg_ocr_thread_limit();
    if (lim <= 1) return PG_OK;
    if (getenv("PG_OCR_REEXECED"))
        return pg_error_set(e, PG_E_INTERNAL, "start the process with OMP_THREAD_LIMIT=1 in its environment",
                            "OpenMP still allows %d threads after a re-exec with OMP_THREAD_LIMIT=1", lim);
    if (!argv || !argv[0]) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_ensure_single_thread needs argv");
    if (setenv("OMP_THREAD_LIMIT", "1", 1) != 0 || setenv("PG_OCR_REEXECED", "1", 1) != 0)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "setenv: %s", strerror(errno));
    execv("/proc/self/exe", argv);
    return pg_error_set(e, PG_E_INTERNAL, "start the process with OMP_THREAD_LIMIT=1 in its environment",
                        "re-exec with OMP_THREAD_LIMIT=1 failed: %s", strerror(errno));
}
#endif

const char *pg_ocr_tesseract_version(void) { return TessVersion(); }

/* --------------------------------------------------------- preprocessing */

/* RGBA (straight alpha) over white -> BT.601 luma, 8 bits. Returns the sum. */
static uint64_t to_gray(const pg_img *v, uint8_t *g) {
    uint64_t sum = 0;
    for (uint32_t y = 0; y < v->height; y++) {
        const uint8_t *p = pg_img_row(v, y);
        uint8_t *q = g + (size_t)y * v->width;
        uint32_t rs = 0;
        for (uint32_t x = 0; x < v->width; x++) {
            uint32_t l = (77u * p[4 * x] + 150u * p[4 * x + 1] + 29u * p[4 * x + 2] + 128u) >> 8;
            uint32_t a = p[4 * x + 3];
            l = (l * a + 255u * (255u - a) + 127u) / 255u;
            q[x] = (uint8_t)l;
            rs += l;
        }
        sum += rs;
    }
    return sum;
}

/* The most common value on the outer ring of a w x h gray window (stride gs):
 * the colour to pad with. */
static uint8_t border_colour(const uint8_t *g, size_t gs, uint32_t w, uint32_t h) {
    uint32_t hist[256] = {0};
    for (uint32_t x = 0; x < w; x++) {
        hist[g[x]]++;
        hist[g[(size_t)(h - 1) * gs + x]]++;
    }
    for (uint32_t y = 0; y < h; y++) {
        hist[g[(size_t)y * gs]]++;
        hist[g[(size_t)y * gs + w - 1]]++;
    }
    int best = 255;
    for (int i = 255; i >= 0; i--)
        if (hist[i] > hist[best]) best = i;
    return (uint8_t)best;
}

/* Source index and weight (1/256) of output sample o for an s-fold bilinear
 * upscale of n samples, centres aligned: source position (o + 0.5)/s - 0.5. */
static void bilinear_tap(uint32_t o, int s, uint32_t n, uint32_t *i0, uint32_t *wt) {
    int64_t num = 2 * (int64_t)o + 1 - s, den = 2 * (int64_t)s;
    int64_t i = num >= 0 ? num / den : -1;
    int64_t frac = num - i * den;
    uint32_t w = (uint32_t)((frac * 256 + den / 2) / den);
    if (i < 0) i = 0, w = 0;
    if (i >= (int64_t)n - 1) i = (int64_t)n - 1, w = 0;
    *i0 = (uint32_t)i;
    *wt = w;
}

/* Bilinear upscale of the w x h gray window g (stride gs) by integer s into
 * dst (stride ds); inv: 255 - value. False when out of memory. */
static bool upscale(const uint8_t *g, size_t gs, uint32_t w, uint32_t h, int s, bool inv, uint8_t *dst, size_t ds) {
    uint8_t x = inv ? 255 : 0;
    if (s == 1) {
        for (uint32_t y = 0; y < h; y++) {
            const uint8_t *p = g + y * gs;
            uint8_t *q = dst + y * ds;
            for (uint32_t i = 0; i < w; i++) q[i] = p[i] ^ x;
        }
        return true;
    }
    uint32_t ow = w * (uint32_t)s, oh = h * (uint32_t)s;
    uint32_t *x0 = malloc(sizeof(uint32_t) * ow * 2);
    if (!x0) return false;
    uint32_t *wx = x0 + ow;
    for (uint32_t i = 0; i < ow; i++) bilinear_tap(i, s, w, &x0[i], &wx[i]);
    for (uint32_t y = 0; y < oh; y++) {
        uint32_t i, wy;
        bilinear_tap(y, s, h, &i, &wy);
        const uint8_t *r0 = g + (size_t)i * gs;
        const uint8_t *r1 = wy ? r0 + gs : r0;
        uint8_t *q = dst + y * ds;
        for (uint32_t o = 0; o < ow; o++) {
            uint32_t a = x0[o], b = a + (wx[o] ? 1 : 0);
            uint32_t top = r0[a] * (256u - wx[o]) + r0[b] * wx[o];
            uint32_t bot = r1[a] * (256u - wx[o]) + r1[b] * wx[o];
            q[o] = (uint8_t)(((top * (256u - wy) + bot * wy + 32768u) >> 16) ^ x);
        }
    }
    free(x0);
    return true;
}

static int auto_scale(uint32_t w, uint32_t h) { return (uint64_t)w * h <= PG_OCR_UPSCALE_MAX_PIXELS ? 2 : 1; }

/* A pixel is ink when it is this much darker than the window's most common
 * value (its background). Catches mid-grey widget frames (153 on 255) that a
 * global Otsu threshold, pulled down by dark panels, would miss. */
#define INK_CONTRAST 40

typedef struct {
    uint32_t x, y, w, h;
} box32;

typedef struct {
    box32 b;
    bool inv; /* opposite polarity: read inverted */
} panel;

/* A region this far from the background but not ink is a tint (a grey
 * panel on a white page). */
#define TINT_CONTRAST 12

/* Is this component (pixels q[0..qn), box x0..x1 x y0..y1) a widget frame?
 * Its box's edge lines are ink along >= 90 % of their length - all four, or
 * two adjacent ones (a sunken or raised relief) when the box is >= 24x12 -
 * and at least half its pixels lie in the outer 2 px band (not a filled
 * panel). */
static bool frame_like(const uint8_t *g, const uint8_t *m, uint32_t w, int t, uint32_t x0, uint32_t y0, uint32_t x1,
                       uint32_t y1, const uint32_t *q, size_t qn) {
    size_t in_band = 0;
    for (size_t i = 0; i < qn; i++) {
        uint32_t x = q[i] % w, y = q[i] / w;
        if (x - x0 < 2 || x1 - x < 2 || y - y0 < 2 || y1 - y < 2) in_band++;
    }
    if (in_band * 2 < qn) return false;
#define INK(x, y) (m[(size_t)(y) * w + (x)] == 2 && g[(size_t)(y) * w + (x)] < t)
    uint32_t top = 0, bot = 0, left = 0, right = 0;
    for (uint32_t x = x0; x <= x1; x++) top += INK(x, y0), bot += INK(x, y1);
    for (uint32_t y = y0; y <= y1; y++) left += INK(x0, y), right += INK(x1, y);
#undef INK
    uint32_t bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    bool ht = top * 10 >= bw * 9, hb = bot * 10 >= bw * 9, vl = left * 10 >= bh * 9, vr = right * 10 >= bh * 9;
    if (ht && hb && vl && vr) return true;
    /* Sunken or raised reliefs draw two or three sides in this colour. */
    return (ht || hb) && (vl || vr) && bw >= 24 && bh >= 12;
}

/* Box-drawing inside a large, sparse component (frames that touch each other
 * or the text they hold): horizontal strokes at most 3 px thick and at least
 * 20 px long, and vertical strokes at most 3 px thick and 8 px long whose
 * both ends meet such a horizontal stroke (a box side; a letter's stem
 * standing on an underline has a free top), and the corner and junction pixels
 * between two such stroke pixels. Those pixels are painted bg.
 * Returns how many, or -1 when out of memory. */
static int64_t remove_box_lines(uint8_t *g, uint32_t w, uint32_t x0, uint32_t y0, uint32_t bw, uint32_t bh,
                                const uint32_t *q, size_t qn, uint8_t bg) {
    size_t n = (size_t)bw * bh;
    uint8_t *b = calloc(n, 1); /* bit 1: component, 2: horizontal line, 4: vertical line */
    if (!b) return -1;
    for (size_t i = 0; i < qn; i++) b[(size_t)(q[i] / w - y0) * bw + (q[i] % w - x0)] = 1;
#define B(x, y) b[(size_t)(y) * bw + (x)]
    for (uint32_t y = 0; y < bh; y++) {
        uint32_t run = 0;
        for (uint32_t x = 0; x <= bw; x++) {
            bool thin = false;
            if (x < bw && (B(x, y) & 1)) {
                uint32_t t = 1;
                for (uint32_t k = y; k > 0 && (B(x, k - 1) & 1) && t <= 3; k--) t++;
                for (uint32_t k = y + 1; k < bh && (B(x, k) & 1) && t <= 3; k++) t++;
                thin = t <= 3;
            }
            if (thin) {
                run++;
                continue;
            }
            if (run >= 20)
                for (uint32_t k = x - run; k < x; k++) B(k, y) |= 2;
            run = 0;
        }
    }
    for (uint32_t x = 0; x < bw; x++) {
        uint32_t run = 0;
        for (uint32_t y = 0; y <= bh; y++) {
            bool thin = false;
            if (y < bh && (B(x, y) & 1) && !(B(x, y) & 2)) {
                uint32_t t = 1;
                for (uint32_t k = x; k > 0 && (B(k - 1, y) & 1) && t <= 3; k--) t++;
                for (uint32_t k = x + 1; k < bw && (B(k, y) & 1) && t <= 3; k++) t++;
                thin = t <= 3;
            }
            if (thin) {
                run++;
                continue;
            }
            if (run >= 8) {
                uint32_t ys = y - run, ye = y - 1;
                bool top = false, bot = false;
                for (int64_t dy = -3; dy <= 3; dy++)
                    for (int64_t dx = -3; dx <= 3; dx++) {
                        int64_t xx = (int64_t)x + dx, yt = (int64_t)ys + dy, yb = (int64_t)ye + dy;
                        if (xx < 0 || xx >= bw) continue;
                        if (yt >= 0 && yt < bh && (B(xx, yt) & 2)) top = true;
                        if (yb >= 0 && yb < bh && (B(xx, yb) & 2)) bot = true;
                    }
                if (top && bot)
                    for (uint32_t k = ys; k <= ye; k++) B(x, k) |= 4;
            }
            run = 0;
        }
    }
    /* Corners and junctions: a pixel between two line pixels goes too. */
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++) {
            if (B(x, y) != 1) continue;
            int k = (x > 0 && (B(x - 1, y) & 6)) + (x + 1 < bw && (B(x + 1, y) & 6)) + (y > 0 && (B(x, y - 1) & 6)) +
                    (y + 1 < bh && (B(x, y + 1) & 6));
            if (k >= 2) B(x, y) |= 8;
        }
    int64_t erased = 0;
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++)
            if (B(x, y) & 14) g[(size_t)(y0 + y) * w + x0 + x] = bg, erased++;
#undef B
    free(b);
    return erased;
}

/* How many pixels inside the box x0,y0 bw x bh that are not in the component
 * (marked 3 in m) cannot reach the box's edge without crossing it: the text
 * cut out of a button, not the gaps of a bold glyph. -1: out of memory. */
static int64_t enclosed(const uint8_t *m, uint32_t w, uint32_t x0, uint32_t y0, uint32_t bw, uint32_t bh) {
    size_t n = (size_t)bw * bh;
    uint8_t *out = calloc(n, 1);
    uint32_t *st = malloc(n * sizeof *st);
    if (!out || !st) {
        free(out);
        free(st);
        return -1;
    }
    /* out: 1 where the component is (a wall), then 2 where the box's edge is reached */
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++) out[(size_t)y * bw + x] = m[(size_t)(y0 + y) * w + x0 + x] == 3;
    pg_morph_fill_from_edge(out, bw, bh, st);
    int64_t cnt = 0;
    for (size_t i = 0; i < n; i++) cnt += !out[i];
    free(out);
    free(st);
    return cnt;
}


/* Layout clean-up on the gray image (light background after the global
 * inversion), at input scale, with one pass of 4-connected components over
 * the pixels darker than Otsu's threshold:
 *  - widget frames (entry, list and check boxes: a component with 3+ dark
 *    corners whose pixels lie in a 2 px band along its box and cover 60 % of
 *    the box's edge) and long thin rules (<= 3 px thick, >= 40 px long
 *    across, >= 60 px down) are painted with the background, so they cannot
 *    merge with the text next to them ("[Ada", "ravel");
 *  - filled dark panels (>= 16x10, >= 50 % filled, with light pixels inside,
 *    smaller than the image: coloured buttons, dark title bars) are listed in
 *    *panels (largest first, at most max_panels) to be re-read inverted.
 * Returns false when out of memory. */
/* Breadth-first 4-connected component from start over pixels marked 1 in m
 * (marked 2 when taken): pixel indices in *q (grown as needed), box out. */
static bool component(uint8_t *m, uint32_t w, uint32_t h, size_t start, uint32_t **q, size_t *qcap, size_t *qn,
                      uint32_t bb[4]) {
    size_t head = 0, n = 0;
    (*q)[n++] = (uint32_t)start;
    m[start] = 2;
    uint32_t x0 = w, y0 = h, x1 = 0, y1 = 0;
    while (head < n) {
        uint32_t p = (*q)[head++];
        uint32_t x = p % w, y = p / w;
        x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
        y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
        uint32_t nb[4];
        int k = 0;
        if (x > 0) nb[k++] = p - 1;
        if (x + 1 < w) nb[k++] = p + 1;
        if (y > 0) nb[k++] = p - w;
        if (y + 1 < h) nb[k++] = p + w;
        for (int j = 0; j < k; j++) {
            if (m[nb[j]] != 1) continue;
            if (n == *qcap) {
                uint32_t *nq = realloc(*q, *qcap * 2 * sizeof *nq);
                if (!nq) return false;
                *q = nq, *qcap *= 2;
            }
            m[nb[j]] = 2;
            (*q)[n++] = nb[j];
        }
    }
    *qn = n;
    bb[0] = x0, bb[1] = y0, bb[2] = x1, bb[3] = y1;
    return true;
}

/* Keep panels sorted by area, largest first, at most max. */
static void add_panel(panel *panels, size_t max, size_t *np, panel pn) {
    uint64_t area = (uint64_t)pn.b.w * pn.b.h;
    size_t k = *np;
    if (k < max) (*np)++;
    else if ((uint64_t)panels[k - 1].b.w * panels[k - 1].b.h >= area) return;
    else k--;
    while (k > 0 && (uint64_t)panels[k - 1].b.w * panels[k - 1].b.h < area) {
        panels[k] = panels[k - 1];
        k--;
    }
    panels[k] = pn;
}

/* Dotted lines (a focus ring drawn around a label or a button's caption:
 * one pixel on, one off) are painted bg: six or more single ink pixels - no
 * ink above, below, left or right of them - two pixels apart along a row or
 * a column. Tesseract reads them as quotes and loses the letters inside
 * ("Priority" in a ring read "riori"); no glyph is made of lone pixels. */
static void remove_dotted(uint8_t *g, uint32_t w, uint32_t h, int t, uint8_t bg) {
#define INKP(x, y) (g[(size_t)(y) * w + (x)] < t)
#define LONE(x, y)                                                                                   \
    (INKP(x, y) && !((x) > 0 && INKP((x) - 1, y)) && !((x) + 1 < w && INKP((x) + 1, y)) &&          \
     !((y) > 0 && INKP(x, (y) - 1)) && !((y) + 1 < h && INKP(x, (y) + 1)))
    enum { MIN_DOTS = 6 };
    for (int pass = 0; pass < 2; pass++) {
        uint32_t lines = pass ? w : h, len = pass ? h : w;
        for (uint32_t l = 0; l < lines; l++)
            for (uint32_t start = 0; start < 2; start++) {
                uint32_t run = 0;
                for (uint32_t p = start; p < len + 2; p += 2) {
                    uint32_t x = pass ? l : p, y = pass ? p : l;
                    bool dot = p < len && LONE(x, y);
                    if (dot) {
                        run++;
                        continue;
                    }
                    if (run >= MIN_DOTS)
                        for (uint32_t k = 1; k <= run; k++) {
                            uint32_t q = p - 2 * k;
                            g[pass ? (size_t)q * w + l : (size_t)l * w + q] = bg;
                        }
                    run = 0;
                }
            }
    }
#undef LONE
#undef INKP
}

/* Layout clean-up and region split of a gray window (light background after
 * the global inversion), at input scale. bg is the most common value; ink is
 * anything INK_CONTRAST darker. One pass over the 4-connected ink
 * components:
 *  - long thin rules (<= 3 px thick, >= 40 px across or >= 60 px down),
 *    widget frames (frame_like) and box drawing (remove_box_lines) are
 *    painted bg, so they cannot merge with the text beside them;
 *  - an ink panel - a component >= 24x14, >= 70 % filled, of one fill colour
 *    (<= 3 % of it much darker), whose holes are enclosed (text cut out of a
 *    coloured button, a dark title bar) - is listed to be read inverted;
 *    one with 3-50 % much darker than its fill (dark text on a mid-tone
 *    button) is listed to be read on its own, not inverted.
 * A second pass over "tinted" pixels (not ink, but >= TINT_CONTRAST from bg)
 * lists tint panels - a component >= 32x16 that with its enclosed holes fills
 * >= 90 % of its box and is at least 30 % tint (a light-grey window on a white
 * page, a toolbar) - to be read on their own, not inverted: Tesseract's one
 * global threshold would otherwise call the whole grey area ink.
 * Panels inside another listed panel are dropped (the inner read finds them).
 * Returns false when out of memory. */
static bool analyse(uint8_t *g, uint32_t w, uint32_t h, panel *panels, size_t max_panels, size_t *n_panels,
                    uint8_t *bg_out) {
    size_t n = (size_t)w * h;
    *n_panels = 0;
    uint32_t hist[256] = {0};
    for (size_t i = 0; i < n; i++) hist[g[i]]++;
    int bg = 255;
    for (int i = 255; i >= 0; i--)
        if (hist[i] > hist[bg]) bg = i;
    *bg_out = (uint8_t)bg;
    int t = bg - INK_CONTRAST; /* ink: clearly darker than the background */
    if (t < 1) t = 1;
    remove_dotted(g, w, h, t, (uint8_t)bg);
    uint8_t *m = malloc(n);
    size_t qcap = 4096, qn;
    uint32_t *q = malloc(qcap * sizeof *q);
    bool ok = m && q;
    for (size_t i = 0; ok && i < n; i++) m[i] = g[i] < t;
    uint32_t bb[4];
    for (size_t start = 0; ok && start < n; start++) {
        if (m[start] != 1) continue;
        if (!(ok = component(m, w, h, start, &q, &qcap, &qn, bb))) break;
        uint32_t x0 = bb[0], y0 = bb[1], x1 = bb[2], y1 = bb[3];
        uint32_t bw = x1 - x0 + 1, bh = y1 - y0 + 1;
        uint64_t area = (uint64_t)bw * bh;
        if ((bh <= 3 && bw >= 40) || (bw <= 3 && bh >= 60)) { /* a rule */
            for (size_t i = 0; i < qn; i++) g[q[i]] = (uint8_t)bg;
            continue;
        }
        if (bw >= 8 && bh >= 8 && frame_like(g, m, w, t, x0, y0, x1, y1, q, qn)) {
            for (size_t i = 0; i < qn; i++) {
                uint32_t x = q[i] % w, y = q[i] / w;
                if (x - x0 < 2 || x1 - x < 2 || y - y0 < 2 || y1 - y < 2) g[q[i]] = (uint8_t)bg;
            }
            continue;
        }
        if (bw >= 24 && bh >= 8 && qn * 2 < area) {
            int64_t er = remove_box_lines(g, w, x0, y0, bw, bh, q, qn, (uint8_t)bg);
            if (!(ok = er >= 0)) break;
            if (er > 0) continue;
        }
        if (!max_panels || bw < 24 || bh < 14 || qn * 10 < area * 7 || area * 10 > (uint64_t)n * 9) continue;
        /* One fill colour with lighter text cut out: read inverted. Ink
         * much darker than the fill: dark text on a mid-tone panel (a grey
         * button): read on its own, where its fill is the background. */
        uint32_t ph[256] = {0};
        for (size_t i = 0; i < qn; i++) ph[g[q[i]]]++;
        int mode = 0;
        for (int i = 1; i < 256; i++)
            if (ph[i] > ph[mode]) mode = i;
        size_t darker = 0;
        for (int i = 0; i < mode - INK_CONTRAST; i++) darker += ph[i];
        if (darker * 100 > qn * 3) {
            if (darker * 100 < qn * 50) add_panel(panels, max_panels, n_panels, (panel){{x0, y0, bw, bh}, false});
            continue;
        }
        if (area - qn < 16) continue;
        for (size_t i = 0; i < qn; i++) m[q[i]] = 3;
        int64_t holes = enclosed(m, w, x0, y0, bw, bh);
        for (size_t i = 0; i < qn; i++) m[q[i]] = 2;
        if (!(ok = holes >= 0)) break;
        if (holes < 16 || (uint64_t)holes * 2 < area - qn) continue;
        add_panel(panels, max_panels, n_panels, (panel){{x0, y0, bw, bh}, true});
    }
    /* Tint panels. */
    for (size_t i = 0; ok && max_panels && i < n; i++) {
        int d = (int)g[i] - bg;
        m[i] = g[i] >= t && (d >= TINT_CONTRAST || d <= -TINT_CONTRAST);
    }
    for (size_t start = 0; ok && max_panels && start < n; start++) {
        if (m[start] != 1) continue;
        if (!(ok = component(m, w, h, start, &q, &qcap, &qn, bb))) break;
        uint32_t x0 = bb[0], y0 = bb[1], bw = bb[2] - bb[0] + 1, bh = bb[3] - bb[1] + 1;
        uint64_t area = (uint64_t)bw * bh;
        if (bw < 32 || bh < 16 || qn * 10 < area * 3 || area * 10 > (uint64_t)n * 9) continue;
        for (size_t i = 0; i < qn; i++) m[q[i]] = 3;
        int64_t holes = enclosed(m, w, x0, y0, bw, bh);
        for (size_t i = 0; i < qn; i++) m[q[i]] = 2;
        if (!(ok = holes >= 0)) break;
        if ((qn + (uint64_t)holes) * 10 < area * 9) continue;
        add_panel(panels, max_panels, n_panels, (panel){{x0, y0, bw, bh}, false});
    }
    free(m);
    free(q);
    /* Drop panels inside other panels. */
    size_t k = 0;
    for (size_t i = 0; ok && i < *n_panels; i++) {
        const box32 *a = &panels[i].b;
        bool inside = false;
        for (size_t j = 0; j < *n_panels && !inside; j++) {
            const box32 *o = &panels[j].b;
            if (j == i || (uint64_t)o->w * o->h < (uint64_t)a->w * a->h) continue;
            if ((uint64_t)o->w * o->h == (uint64_t)a->w * a->h && j > i) continue;
            inside = a->x >= o->x && a->y >= o->y && a->x + a->w <= o->x + o->w && a->y + a->h <= o->y + o->h;
        }
        if (!inside) panels[k++] = panels[i];
    }
    *n_panels = k;
    return ok;
}

/* ---------------------------------------------------------------- reading */

typedef struct {
    char *text;
    int x0, y0, x1, y1; /* in region coordinates, right/bottom exclusive */
    float conf;
    int group; /* Tesseract line, unique over all passes of a call */
    bool dead;
} rword;

typedef struct {
    rword *v;
    size_t n, cap;
    int groups;
} rwords;

static void rwords_fini(rwords *r) {
    for (size_t i = 0; i < r->n; i++) free(r->v[i].text);
    free(r->v);
    memset(r, 0, sizeof *r);
}

typedef struct {
    TessBaseAPI *api;
    int s, psm;
    double deadline; /* 0: none, else pg_mono_ms() limit */
    int timeout_ms;
    int panels_left; /* budget of panel reads for the whole call */
    pg_error *e;
} rctx;

static bool trim_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Read words from Tesseract's current page into out; the page was a w x h
 * window (at input scale) placed at (offx, offy) in the region. */
static pg_err collect(rctx *c, uint32_t w, uint32_t h, int offx, int offy, rwords *out) {
    TessResultIterator *it = TessBaseAPIGetIterator(c->api);
    if (!it) return PG_OK;
    const TessPageIterator *pi = TessResultIteratorGetPageIteratorConst(it);
    int s = c->s, sw = (int)w * s, sh = (int)h * s;
    pg_err rc = PG_OK;
    int group = out->groups - 1;
    do {
        if (TessPageIteratorIsAtBeginningOf(pi, RIL_TEXTLINE) || group < out->groups) group++;
        int l, t, r, b;
        if (!TessPageIteratorBoundingBox(pi, RIL_WORD, &l, &t, &r, &b)) continue;
        char *txt = TessResultIteratorGetUTF8Text(it, RIL_WORD);
        if (!txt) continue;
        char *p = txt, *z;
        while (trim_space(*p)) p++;
        z = p + strlen(p);
        while (z > p && trim_space(z[-1])) z--;
        if (z == p) {
            TessDeleteText(txt);
            continue;
        }
        if (out->n == out->cap) {
            size_t nc = out->cap ? out->cap * 2 : 64;
            rword *nv = realloc(out->v, nc * sizeof *nv);
            if (!nv) {
                TessDeleteText(txt);
                rc = pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for OCR words");
                break;
            }
            out->v = nv, out->cap = nc;
        }
        rword *wd = &out->v[out->n];
        memset(wd, 0, sizeof *wd);
        wd->text = malloc((size_t)(z - p) + 1);
        if (!wd->text) {
            TessDeleteText(txt);
            rc = pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for OCR words");
            break;
        }
        memcpy(wd->text, p, (size_t)(z - p));
        wd->text[z - p] = 0;
        TessDeleteText(txt);
        /* Padded, scaled box -> the window's input pixels, then the region's. */
        l -= PAD, r -= PAD, t -= PAD, b -= PAD;
        l = l < 0 ? 0 : l > sw ? sw : l;
        r = r < 0 ? 0 : r > sw ? sw : r;
        t = t < 0 ? 0 : t > sh ? sh : t;
        b = b < 0 ? 0 : b > sh ? sh : b;
        int x0 = l / s, x1 = (r + s - 1) / s, y0 = t / s, y1 = (b + s - 1) / s;
        if (x1 <= x0) x1 = x0 + 1;
        if (y1 <= y0) y1 = y0 + 1;
        if (x1 > (int)w) x1 = (int)w, x0 = x0 < x1 ? x0 : x1 - 1;
        if (y1 > (int)h) y1 = (int)h, y0 = y0 < y1 ? y0 : y1 - 1;
        wd->x0 = offx + x0, wd->x1 = offx + x1, wd->y0 = offy + y0, wd->y1 = offy + y1;
        float cf = TessResultIteratorConfidence(it, RIL_WORD);
        wd->conf = cf < 0 ? 0 : cf > 100 ? 100 : cf;
        wd->group = group;
        out->n++;
    } while (TessResultIteratorNext(it, RIL_WORD));
    TessResultIteratorDelete(it);
    out->groups = group + 1 > out->groups ? group + 1 : out->groups;
    return rc;
}

/* Recognise the w x h gray window g (stride gs; inverted when inv) placed at
 * (offx, offy) in the region; words are appended to out. */
static pg_err recognise(rctx *c, const uint8_t *g, size_t gs, uint32_t w, uint32_t h, bool inv, int offx, int offy,
                        rwords *out) {
    size_t W = (size_t)w * (size_t)c->s + 2 * PAD, H = (size_t)h * (size_t)c->s + 2 * PAD;
    uint8_t *buf = malloc(W * H);
    if (!buf) return pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for a %zux%zu OCR page", W, H);
    uint8_t bc = border_colour(g, gs, w, h);
    memset(buf, inv ? 255 - bc : bc, W * H);
    if (!upscale(g, gs, w, h, c->s, inv, buf + PAD * W + PAD, W)) {
        free(buf);
        return pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for the OCR upscale");
    }
    TessBaseAPISetPageSegMode(c->api, (TessPageSegMode)c->psm);
    TessBaseAPISetImage(c->api, buf, (int)W, (int)H, 1, (int)W);
    TessBaseAPISetSourceResolution(c->api, 96 * c->s);
    ETEXT_DESC *mon = NULL;
    if (c->deadline > 0) {
        double left = c->deadline - pg_mono_ms();
        mon = left >= 1 ? TessMonitorCreate() : NULL;
        if (!mon) {
            TessBaseAPIClear(c->api);
            free(buf);
            return left >= 1 ? pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory")
                             : pg_error_set(c->e, PG_E_TIMEOUT, "OCR a smaller region or allow more time",
                                            "OCR ran out of its %d ms", c->timeout_ms);
        }
        TessMonitorSetDeadlineMSecs(mon, (int)left);
    }
    int trc = TessBaseAPIRecognize(c->api, mon);
    if (mon) TessMonitorDelete(mon);
    pg_err rc = PG_OK;
    if (c->deadline > 0 && pg_mono_ms() >= c->deadline)
        rc = pg_error_set(c->e, PG_E_TIMEOUT, "OCR a smaller region or allow more time", "OCR ran out of its %d ms",
                          c->timeout_ms);
    else if (trc != 0)
        rc = pg_error_set(c->e, PG_E_INTERNAL, NULL, "Tesseract failed to recognise a %ux%u image", w, h);
    else
        rc = collect(c, w, h, offx, offy, out);
    TessBaseAPIClear(c->api);
    free(buf);
    return rc;
}

/* Contrast for one global threshold. Ink (darker than t = bg - INK_CONTRAST)
 * is deepened along v' = t (v/t)^4 - continuous and monotone, so the
 * antialiased edges the LSTM reads keep their gradient - and bg..t is
 * stretched to t..255 (lighter than bg is white). Dim text (#999 on white,
 * grey on a dark theme: 153 on 225 after inversion) then falls on the ink
 * side of Tesseract's Otsu split with the black text; measured in
 * docs/ocr.md. */
static void normalise_ink(uint8_t *g, size_t n, uint8_t bg) {
    uint64_t t = bg > INK_CONTRAST ? (uint64_t)bg - INK_CONTRAST : 0;
    if (t < 1) return;
    uint8_t lut[256];
    for (uint64_t v = 0; v < 256; v++)
        lut[v] = (uint8_t)(v < t ? v * v * v * v / (t * t * t) : v <= bg ? t + (v - t) * (255 - t) / (bg - t) : 255);
    for (size_t i = 0; i < n; i++) g[i] = lut[g[i]];
}

#define MAX_PANELS 32       /* per window */
#define MAX_PANELS_TOTAL 64 /* per call: each is one more Tesseract page */
#define MAX_DEPTH 3 /* a button in a toolbar in a window on the screen */

/* Read the w x h gray window g (tight, owned by the caller, modified here)
 * at (offx, offy) in the region: clean up frames, cut out the opposite-
 * polarity panels (painted with the background), read the rest, then read
 * each panel inverted, recursively. */
static pg_err read_window(rctx *c, uint8_t *g, uint32_t w, uint32_t h, int offx, int offy, int depth, rwords *out,
                          unsigned *n_read) {
    panel panels[MAX_PANELS];
    size_t np = 0;
    uint8_t bg;
    size_t maxp = depth < MAX_DEPTH ? MAX_PANELS : 0;
    if (maxp > (size_t)c->panels_left) maxp = (size_t)c->panels_left;
    if (!analyse(g, w, h, panels, maxp, &np, &bg))
        return pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for the OCR layout pass");
    c->panels_left -= (int)np;
    uint8_t *crop[MAX_PANELS] = {0};
    pg_err rc = PG_OK;
    for (size_t i = 0; i < np; i++) {
        const box32 *b = &panels[i].b;
        uint8_t x = panels[i].inv ? 255 : 0;
        crop[i] = malloc((size_t)b->w * b->h);
        if (!crop[i]) {
            rc = pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for an OCR panel");
            break;
        }
        for (uint32_t y = 0; y < b->h; y++) {
            uint8_t *row = g + (size_t)(b->y + y) * w + b->x, *d = crop[i] + (size_t)y * b->w;
            for (uint32_t k = 0; k < b->w; k++) d[k] = row[k] ^ x;
        }
    }
    if (rc == PG_OK) {
        for (size_t i = 0; i < np; i++)
            for (uint32_t y = 0; y < panels[i].b.h; y++)
                memset(g + (size_t)(panels[i].b.y + y) * w + panels[i].b.x, bg, panels[i].b.w);
        normalise_ink(g, (size_t)w * h, bg);
        rc = recognise(c, g, w, w, h, false, offx, offy, out);
    }
    for (size_t i = 0; i < np && rc == PG_OK; i++) {
        size_t before = out->n;
        rc = read_window(c, crop[i], panels[i].b.w, panels[i].b.h, offx + (int)panels[i].b.x,
                         offy + (int)panels[i].b.y, depth + 1, out, n_read);
        *n_read += out->n > before;
    }
    for (size_t i = 0; i < np; i++) free(crop[i]);
    return rc;
}

/* Field mode: the text caret out. A caret spans the font's whole line
 * height, which no glyph's stroke does: per column, the longest vertical run
 * of ink (darker than bg - INK_CONTRAST); the columns whose run is the
 * longest (at most 3 side by side) are the caret when that run is >= 8 px
 * and >= 1.2x the longest run of every other column (or no other column
 * has ink); those runs are painted bg. Measured per column, not per mark,
 * because a caret usually touches the last glyph. */
static bool remove_caret(uint8_t *g, uint32_t w, uint32_t h, uint8_t bg) {
    int t = (int)bg - INK_CONTRAST;
    if (t < 1 || w < 2) return true;
    uint32_t *run = calloc(w, sizeof *run), *at = calloc(w, sizeof *at);
    if (!run || !at) {
        free(run), free(at);
        return false;
    }
    for (uint32_t x = 0; x < w; x++) {
        uint32_t cur = 0;
        for (uint32_t y = 0; y < h; y++) {
            cur = g[(size_t)y * w + x] < t ? cur + 1 : 0;
            if (cur > run[x]) run[x] = cur, at[x] = y + 1 - cur;
        }
    }
    uint32_t m1 = 0;
    for (uint32_t x = 0; x < w; x++) m1 = run[x] > m1 ? run[x] : m1;
    uint32_t x0 = w, x1 = 0;
    for (uint32_t x = 0; x < w; x++)
        if (m1 && run[x] + 1 >= m1) x0 = x < x0 ? x : x0, x1 = x;
    bool one_group = x0 <= x1 && x1 - x0 < 3;
    /* The other columns' ink: its highest pixel, and the baseline (the most
     * common lowest ink pixel of a column). A caret reaches below the
     * baseline (into the descenders) and above the tallest glyph; a d's or
     * an l's stem stands on the baseline, a p's is short. */
    uint32_t top = h, *bottoms = one_group ? calloc(h, sizeof *bottoms) : NULL;
    bool others = false;
    for (uint32_t x = 0; bottoms && x < w; x++) {
        if (x + 1 >= x0 && x <= x1 + 1) continue;
        uint32_t lo = 0;
        bool any = false;
        for (uint32_t y = 0; y < h; y++)
            if (g[(size_t)y * w + x] < t) {
                if (!any && y < top) top = y;
                any = true, lo = y;
            }
        if (any) bottoms[lo]++, others = true;
    }
    uint32_t base = 0;
    for (uint32_t y = 0; bottoms && y < h; y++)
        if (bottoms[y] > bottoms[base]) base = y;
    free(bottoms);
    uint32_t cb0 = h, cb1 = 0; /* the bar's extent */
    for (uint32_t x = x0; one_group && x <= x1; x++)
        if (run[x] + 1 >= m1) cb0 = at[x] < cb0 ? at[x] : cb0, cb1 = at[x] + run[x] - 1 > cb1 ? at[x] + run[x] - 1 : cb1;
    bool caret = one_group && m1 >= 8 &&
                 (!others || (cb1 >= base + 2 && base >= top && m1 * 100 >= (base - top + 1) * 112));
    if (caret)
        for (uint32_t x = x0; x <= x1; x++)
            if (run[x] + 1 >= m1)
                for (uint32_t y = at[x]; y < at[x] + run[x]; y++) g[(size_t)y * w + x] = bg;
    free(run);
    free(at);
    return true;
}

/* One polarity of a field: caret out, frames out, contrast, one page. */
static pg_err read_field_once(rctx *c, const uint8_t *g0, uint32_t w, uint32_t h, bool inv, rwords *out) {
    size_t n = (size_t)w * h;
    uint8_t *g = malloc(n);
    if (!g) return pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for an OCR field");
    for (size_t i = 0; i < n; i++) g[i] = inv ? (uint8_t)(255 - g0[i]) : g0[i];
    uint8_t bg = border_colour(g, w, w, h);
    panel none[1];
    size_t np = 0;
    uint8_t abg;
    pg_err rc = PG_OK;
    if (!remove_caret(g, w, h, bg) || !analyse(g, w, h, none, 0, &np, &abg))
        rc = pg_error_set(c->e, PG_E_INTERNAL, NULL, "out of memory for an OCR field");
    /* Marks: pixels at least half INK_CONTRAST from the background either
     * way (red on a dark theme is only ~35 levels off). None: an empty field
     * (Tesseract would still "read" something there: "a"). One glyph's
     * worth (no wider than 1.1x its height): read as a single character
     * (PSM 10), as a line it often comes back as punctuation ("4" read "ż."). */
    size_t ink = 0;
    uint32_t x0 = w, x1 = 0, y0 = h, y1 = 0;
    for (uint32_t y = 0; !rc && y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int d = (int)g[(size_t)y * w + x] - bg;
            if (d > -INK_CONTRAST / 2 && d < INK_CONTRAST / 2) continue;
            ink++;
            x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1, y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
        }
    if (!rc && ink >= 4) {
        int psm = c->psm;
        if (psm == PG_OCR_PSM_SINGLE_LINE && (x1 - x0 + 1) * 10 <= (y1 - y0 + 1) * 11) c->psm = PG_OCR_PSM_SINGLE_CHAR;
        normalise_ink(g, n, bg);
        rc = recognise(c, g, w, w, h, false, 0, 0, out);
        c->psm = psm;
    }
    free(g);
    return rc;
}

static double words_conf(const rwords *r) {
    double s = 0;
    for (size_t i = 0; i < r->n; i++) s += r->v[i].conf;
    return r->n ? s / (double)r->n : 0;
}

/* Field mode (pg_ocr.h): the border's polarity first, the other one when
 * that reads poorly; *inv gets the polarity kept. */
static pg_err read_field(rctx *c, const uint8_t *g, uint32_t w, uint32_t h, rwords *out, bool *inv) {
    bool dark = border_colour(g, w, w, h) < 128;
    rwords a = {0}, b = {0};
    pg_err rc = read_field_once(c, g, w, h, dark, &a);
    double ca = words_conf(&a);
    bool second = rc == PG_OK && (a.n == 0 || ca < PG_OCR_FIELD_RETRY_CONF);
    if (second) rc = read_field_once(c, g, w, h, !dark, &b);
    bool take_b = second && rc == PG_OK && b.n > 0 && words_conf(&b) > ca;
    *out = take_b ? b : a;
    rwords_fini(take_b ? &a : &b);
    *inv = take_b ? !dark : dark;
    if (rc) rwords_fini(out);
    return rc;
}

/* Reading order: Tesseract's lines are grouped into visual rows (vertical
 * overlap of at least half the smaller height, in order of their middles);
 * rows go top to bottom, words in a row left to right. */
typedef struct {
    int top, bot, row;
} gbox;

typedef struct {
    int mid2, g;
} gkey;

static int cmp_gkey(const void *a, const void *b) {
    const gkey *p = a, *q = b;
    if (p->mid2 != q->mid2) return p->mid2 < q->mid2 ? -1 : 1;
    return p->g < q->g ? -1 : p->g > q->g;
}

typedef struct {
    int row, x0, y0;
    size_t idx;
} wkey;

static int cmp_wkey(const void *a, const void *b) {
    const wkey *p = a, *q = b;
    if (p->row != q->row) return p->row < q->row ? -1 : 1;
    if (p->x0 != q->x0) return p->x0 < q->x0 ? -1 : 1;
    if (p->y0 != q->y0) return p->y0 < q->y0 ? -1 : 1;
    return p->idx < q->idx ? -1 : p->idx > q->idx;
}

static pg_err finish(rwords *all, float min_conf, const pg_img_rect *reg, pg_ocr_result *out, pg_error *e) {
    size_t n = 0;
    for (size_t i = 0; i < all->n; i++)
        if (all->v[i].conf < min_conf) all->v[i].dead = true;
    for (size_t i = 0; i < all->n; i++) n += !all->v[i].dead;
    int ng = all->groups;
    gbox *gb = calloc((size_t)ng + 1, sizeof *gb);
    gkey *gi = calloc((size_t)ng + 1, sizeof *gi);
    wkey *keys = calloc(n + 1, sizeof *keys);
    out->words = calloc(n + 1, sizeof *out->words);
    if (!gb || !gi || !keys || !out->words) {
        free(gb), free(gi), free(keys);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for OCR words");
    }
    for (int g = 0; g < ng; g++) gb[g].top = INT_MAX, gb[g].bot = INT_MIN, gb[g].row = -1;
    for (size_t i = 0; i < all->n; i++) {
        rword *wd = &all->v[i];
        if (wd->dead) continue;
        gbox *b = &gb[wd->group];
        b->top = wd->y0 < b->top ? wd->y0 : b->top;
        b->bot = wd->y1 > b->bot ? wd->y1 : b->bot;
    }
    int nlive = 0;
    for (int g = 0; g < ng; g++)
        if (gb[g].top != INT_MAX) gi[nlive++] = (gkey){gb[g].top + gb[g].bot, g};
    qsort(gi, (size_t)nlive, sizeof *gi, cmp_gkey);
    int rows = 0, rtop = 0, rbot = 0;
    for (int k = 0; k < nlive; k++) {
        gbox *b = &gb[gi[k].g];
        int gh = b->bot - b->top, rh = rbot - rtop;
        int ov = (b->bot < rbot ? b->bot : rbot) - (b->top > rtop ? b->top : rtop);
        if (rows == 0 || 2 * ov < (gh < rh ? gh : rh)) {
            rows++;
            rtop = b->top, rbot = b->bot;
        } else {
            rtop = b->top < rtop ? b->top : rtop;
            rbot = b->bot > rbot ? b->bot : rbot;
        }
        b->row = rows - 1;
    }
    size_t k = 0;
    for (size_t i = 0; i < all->n; i++)
        if (!all->v[i].dead) keys[k++] = (wkey){gb[all->v[i].group].row, all->v[i].x0, all->v[i].y0, i};
    qsort(keys, n, sizeof *keys, cmp_wkey);
    size_t len = 1;
    double csum = 0;
    for (size_t i = 0; i < n; i++) {
        rword *wd = &all->v[keys[i].idx];
        pg_ocr_word *o = &out->words[i];
        o->text = wd->text;
        wd->text = NULL;
        o->x = (int)reg->x + wd->x0;
        o->y = (int)reg->y + wd->y0;
        o->w = wd->x1 - wd->x0;
        o->h = wd->y1 - wd->y0;
        o->conf = wd->conf;
        o->line = keys[i].row;
        len += strlen(o->text) + 1;
        csum += o->conf;
    }
    out->n_words = n;
    free(gb), free(gi), free(keys);
    /* Renumber rows 0.. over the rows that kept words. */
    int line = -1, last = INT_MIN;
    for (size_t i = 0; i < n; i++) {
        if (out->words[i].line != last) line++, last = out->words[i].line;
        out->words[i].line = line;
    }
    out->n_lines = (size_t)(line + 1);
    out->mean_conf = n ? csum / (double)n : 0.0;
    out->text = malloc(len);
    if (!out->text) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for OCR text");
    char *d = out->text;
    for (size_t i = 0; i < n; i++) {
        if (i) *d++ = out->words[i].line != out->words[i - 1].line ? '\n' : ' ';
        size_t kk = strlen(out->words[i].text);
        memcpy(d, out->words[i].text, kk);
        d += kk;
    }
    *d = 0;
    return PG_OK;
}

void pg_ocr_result_fini(pg_ocr_result *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_words; i++) free(r->words[i].text);
    free(r->words);
    free(r->text);
    memset(r, 0, sizeof *r);
}

pg_err pg_ocr_run(pg_ocr *o, const pg_img *img, const pg_img_rect *region, pg_ocr_result *out, pg_error *e) {
    return pg_ocr_run_opts(o, img, region, NULL, out, e);
}

void pg_ocr_bind_cache(pg_ocr *o, pg_ocr_cache *c, uint32_t uid) {
    if (!o) return;
    o->cache = c;
    o->uid = uid;
}

static pg_err read_uncached(pg_ocr *o, const pg_img *img, const pg_img_rect *region, const pg_ocr_opts *opts,
                            pg_ocr_result *out, pg_error *e);

pg_err pg_ocr_run_opts(pg_ocr *o, const pg_img *img, const pg_img_rect *region, const pg_ocr_opts *opts,
                       pg_ocr_result *out, pg_error *e) {
    if (o && o->cache && out) {
        pg_ocr_cache_call k = {o->cache, o->uid, o->lang, o, read_uncached};
        return pg_ocr_cache_run(&k, img, region, opts, out, e);
    }
    return read_uncached(o, img, region, opts, out, e);
}

bool pg_ocr_auto_inverts(const pg_img *img, const pg_img_rect *region) {
    pg_img v;
    pg_error ignored;
    if (!img || pg_img_view(img, region, &v, &ignored) != PG_OK) return false;
    uint64_t npx = (uint64_t)v.width * v.height;
    uint8_t *g = malloc(npx ? npx : 1);
    if (!g) return false;
    uint64_t sum = to_gray(&v, g);
    free(g);
    return sum < (uint64_t)128 * npx; /* the rule pg_ocr_run_opts applies with invert 0 */
}

/* Marks (1) the pixels of row y that the layout pass could count as part of
 * something: TINT_CONTRAST or more from the background (ink is further). */
static void mark_row(const uint8_t *g, uint32_t w, int bg, uint8_t *m) {
    for (uint32_t x = 0; x < w; x++) m[x] = abs((int)g[x] - bg) >= TINT_CONTRAST;
}

static int most_common(const uint8_t *g, size_t n) {
    uint32_t hist[256] = {0};
    for (size_t i = 0; i < n; i++) hist[g[i]]++;
    int bg = 255;
    for (int i = 255; i >= 0; i--)
        if (hist[i] > hist[bg]) bg = i; /* analyse()'s rule, ties to the lighter */
    return bg;
}

pg_err pg_ocr_clean_cuts(const pg_img *img, bool inv, bool *clean, pg_error *e) {
    size_t n = (size_t)img->width * img->height;
    uint8_t *g = malloc(n ? n : 1), *m = malloc(2 * (size_t)img->width + 1);
    if (!g || !m) {
        free(g), free(m);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for OCR cuts");
    }
    to_gray(img, g);
    if (inv)
        for (size_t i = 0; i < n; i++) g[i] = (uint8_t)(255 - g[i]);
    int bg = most_common(g, n);
    uint8_t *prev = m, *cur = m + img->width;
    clean[0] = true;
    mark_row(g, img->width, bg, prev);
    for (uint32_t y = 1; y < img->height; y++) {
        mark_row(g + (size_t)y * img->width, img->width, bg, cur);
        bool ok = true;
        for (uint32_t x = 0; x < img->width && ok; x++) ok = !(prev[x] & cur[x]);
        clean[y] = ok;
        uint8_t *t = prev;
        prev = cur, cur = t;
    }
    free(g), free(m);
    return PG_OK;
}

/* Words whose `line` is a Tesseract line group, region-relative -> a result
 * ordered as pg_ocr_run orders its own (finish). */
pg_err pg_ocr_result_order(pg_ocr_word *words, size_t n, const pg_img_rect *reg, pg_ocr_result *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    rwords all = {calloc(n + 1, sizeof(rword)), n, n + 1, 0};
    if (!all.v) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for OCR words");
    for (size_t i = 0; i < n; i++) {
        pg_ocr_word *w = &words[i];
        all.v[i] = (rword){w->text, w->x, w->y, w->x + w->w, w->y + w->h, w->conf, w->line, false};
        w->text = NULL;
        all.groups = w->line + 1 > all.groups ? w->line + 1 : all.groups;
    }
    pg_err rc = finish(&all, -1.0f, reg, out, e);
    rwords_fini(&all);
    if (rc) pg_ocr_result_fini(out);
    out->region = *reg;
    return rc;
}

static pg_err read_uncached(pg_ocr *o, const pg_img *img, const pg_img_rect *region, const pg_ocr_opts *opts,
                            pg_ocr_result *out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_run: no result");
    memset(out, 0, sizeof *out);
    if (!o || !img) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_run: no engine or no image");
    if (!img->px || img->width == 0 || img->height == 0 || img->width > PG_IMG_MAX_SIDE ||
        img->height > PG_IMG_MAX_SIDE || img->stride < (size_t)img->width * 4)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "not an image: %ux%u, stride %llu%s", img->width, img->height,
                            (unsigned long long)img->stride, img->px ? "" : ", no pixels");
    pg_ocr_opts d = {0};
    if (!opts) opts = &d;
    int psm = opts->psm ? opts->psm : opts->field ? PG_OCR_PSM_SINGLE_LINE : PG_OCR_PSM_SPARSE_TEXT;
    if (psm != PG_OCR_PSM_AUTO && psm != PG_OCR_PSM_SINGLE_BLOCK && psm != PG_OCR_PSM_SINGLE_LINE &&
        psm != PG_OCR_PSM_SPARSE_TEXT)
        return pg_error_set(e, PG_E_USAGE, "use 3, 6, 7 or 11", "page segmentation mode %d is not offered", psm);
    if (opts->scale < 0 || opts->scale > PG_OCR_MAX_SCALE)
        return pg_error_set(e, PG_E_USAGE, NULL, "scale %d is outside 0..%d", opts->scale, PG_OCR_MAX_SCALE);
    if (opts->invert < -1 || opts->invert > 1 || opts->timeout_ms < -1 || opts->min_conf < -1 || opts->min_conf > 100)
        return pg_error_set(e, PG_E_USAGE, NULL, "invert %d / timeout %d ms / min_conf %d out of range", opts->invert,
                            opts->timeout_ms, opts->min_conf);

    pg_img v;
    pg_err rc = pg_img_view(img, region, &v, e);
    if (rc) return rc;
    pg_img_rect reg = region ? *region : (pg_img_rect){0, 0, img->width, img->height};
    uint64_t maxpx = opts->max_pixels ? opts->max_pixels : PG_OCR_DEFAULT_MAX_PIXELS;
    uint64_t npx = (uint64_t)v.width * v.height;
    if (npx > maxpx)
        return pg_error_set(e, PG_E_BADINPUT, "OCR a region of the image (--region)",
                            "image %ux%u (%llu pixels) exceeds the OCR limit of %llu pixels", v.width, v.height,
                            (unsigned long long)npx, (unsigned long long)maxpx);
    int s = opts->scale ? opts->scale : auto_scale(v.width, v.height);
    if (opts->field && !opts->scale) {
        s = (int)((PG_OCR_FIELD_TARGET_PX + v.height - 1) / v.height);
        s = s < 2 ? 2 : s > PG_OCR_MAX_SCALE ? PG_OCR_MAX_SCALE : s;
        while (s > 1 && (uint64_t)v.width * v.height * (uint64_t)s * (uint64_t)s > PG_OCR_MAX_SCALED_PIXELS) s--;
    }
    if (!opts->scale && !opts->field && s > 1 &&
        ((uint64_t)v.width * 2 + 2 * PAD > PG_OCR_MAX_SIDE || (uint64_t)v.height * 2 + 2 * PAD > PG_OCR_MAX_SIDE))
        s = 1;
    if ((uint64_t)v.width * (unsigned)s + 2 * PAD > PG_OCR_MAX_SIDE ||
        (uint64_t)v.height * (unsigned)s + 2 * PAD > PG_OCR_MAX_SIDE)
        return pg_error_set(e, PG_E_BADINPUT, "OCR a region of the image (--region)",
                            "image %ux%u at scale %d is wider or taller than Tesseract's %u pixels", v.width,
                            v.height, s, PG_OCR_MAX_SIDE);

    uint64_t spx = (uint64_t)v.width * v.height * (uint64_t)s * (uint64_t)s;
    if (s > 1 && spx > PG_OCR_MAX_SCALED_PIXELS)
        return pg_error_set(e, PG_E_BADINPUT, "use a smaller scale or region",
                            "image %ux%u at scale %d would be %llu pixels (limit %llu)", v.width, v.height, s,
                            (unsigned long long)spx, (unsigned long long)PG_OCR_MAX_SCALED_PIXELS);
    int tmo = opts->timeout_ms == 0 ? PG_OCR_DEFAULT_TIMEOUT_MS : opts->timeout_ms < 0 ? 0 : opts->timeout_ms;
    rctx c = {o->api, s, psm, tmo ? pg_mono_ms() + tmo : 0, tmo, MAX_PANELS_TOTAL, e};
    uint8_t *g = malloc(npx);
    if (!g) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a %ux%u OCR page", v.width, v.height);
    uint64_t sum = to_gray(&v, g);
    bool inv = opts->invert == 1 || (opts->invert == 0 && sum < (uint64_t)128 * npx);
    rwords all = {0};
    unsigned used = 0;
    if (opts->field && opts->invert == 0) {
        rc = read_field(&c, g, v.width, v.height, &all, &inv);
    } else if (opts->field) {
        rc = read_field_once(&c, g, v.width, v.height, inv, &all);
    } else {
        if (inv)
            for (uint64_t i = 0; i < npx; i++) g[i] = (uint8_t)(255 - g[i]);
        rc = read_window(&c, g, v.width, v.height, 0, 0, 0, &all, &used);
    }
    free(g);
    if (rc == PG_OK) {
        out->scale = s;
        out->inverted = inv;
        out->psm = psm;
        out->panels = used;
        out->region = reg;
        float mc = opts->min_conf < 0 ? -1.0f : opts->min_conf ? (float)opts->min_conf : PG_OCR_DEFAULT_MIN_CONF;
        if (opts->field && opts->min_conf == 0) mc = -1.0f; /* a lone "3" in a field is text, however unsure */
        rc = finish(&all, mc,
                    &reg, out, e);
    }
    rwords_fini(&all);
    if (rc) pg_ocr_result_fini(out);
    return rc;
}

/* ------------------------------------------------------------------- find */

/* Next code point of a UTF-8 string; *bad set on a malformed sequence (which
 * then counts as U+FFFD, one byte). Returns bytes consumed (0 at the end). */
static size_t utf8_next(const unsigned char *s, uint32_t *cp, bool *bad) {
    unsigned c = s[0];
    if (!c) return 0;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    uint32_t v = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            n = 0;
            break;
        }
        v = (v << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (n == 0 || v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        *bad = true;
        *cp = 0xFFFD;
        return 1;
    }
    *cp = v;
    return (size_t)n;
}

static bool is_space(uint32_t c) { return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0; }

static uint32_t fold_case(uint32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    return c;
}

/* Appends the normalised form of one code point (0-3 code points). */
typedef struct {
    uint32_t *cp;
    size_t *owner; /* word index per code point (haystack only) */
    size_t n, cap;
    bool oom;
} cpbuf;

static void cp_push(cpbuf *b, uint32_t c, size_t owner) {
    if (b->oom) return;
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 128;
        uint32_t *ncp = realloc(b->cp, nc * sizeof *ncp);
        if (!ncp) {
            b->oom = true;
            return;
        }
        b->cp = ncp;
        size_t *no = realloc(b->owner, nc * sizeof *no);
        if (!no) {
            b->oom = true;
            return;
        }
        b->owner = no;
        b->cap = nc;
    }
    b->cp[b->n] = c;
    b->owner[b->n] = owner;
    b->n++;
}

bool pg_ocr_can_normalize(void) { return PG_HAVE_UTF8PROC; }

char *pg_ocr_normalize(const char *s, pg_error *e) {
#if PG_HAVE_UTF8PROC
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)s, 0, &out,
                                      UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
                                          UTF8PROC_CASEFOLD);
    if (n < 0) {
        pg_error_set(e, n == UTF8PROC_ERROR_NOMEM ? PG_E_INTERNAL : PG_E_USAGE, NULL, "cannot normalise the text: %s",
                     utf8proc_errmsg(n));
        return NULL;
    }
    return (char *)out;
#else
    (void)s;
    pg_error_set(e, PG_E_UNSUPPORTED, "compare without --normalize", "%s", "Unicode normalisation is not in this build (no utf8proc)");
    return NULL;
#endif
}

/* Normalise UTF-8 text into b: look-alikes folded, case folded unless cs,
 * whitespace collapsed to one space (a leading space is never emitted; the
 * caller trims the end). nfkc: NFKC + case folding first (the text is then
 * compared as folded). */
static bool push_text_raw(cpbuf *b, const char *text, bool cs, size_t owner);
static bool push_text_nf(cpbuf *b, const char *text, bool cs, bool nfkc, size_t owner) {
    if (!nfkc) return push_text_raw(b, text, cs, owner);
    pg_error ig;
    char *t = pg_ocr_normalize(text, &ig);
    if (!t) return false;
    bool ok = push_text_raw(b, t, true, owner);
    free(t);
    return ok;
}
#define push_text(b, text, cs, owner) push_text_nf(b, text, cs, nfkc, owner)

static bool push_text_raw(cpbuf *b, const char *text, bool cs, size_t owner) {
    const unsigned char *s = (const unsigned char *)text;
    bool bad = false;
    uint32_t c;
    size_t k;
    while ((k = utf8_next(s, &c, &bad)) > 0) {
        s += k;
        if (is_space(c)) {
            if (b->n && b->cp[b->n - 1] != ' ') cp_push(b, ' ', owner);
            continue;
        }
        if (c == 0x2018 || c == 0x2019 || c == 0x201A || c == 0x2032) c = '\'';
        else if (c == 0x201C || c == 0x201D || c == 0x201E || c == 0x2033) c = '"';
        else if ((c >= 0x2010 && c <= 0x2015) || c == 0x2212) c = '-';
        else if (c == 0x2026) {
            cp_push(b, '.', owner);
            cp_push(b, '.', owner);
            c = '.';
        }
        cp_push(b, cs ? c : fold_case(c), owner);
    }
    return !bad;
}

static void trim_end(cpbuf *b) {
    while (b->n && b->cp[b->n - 1] == ' ') b->n--;
}

static void quote_read(const pg_ocr_result *r, char *q, size_t qn) {
    size_t n = 0;
    const char *t = r->text ? r->text : "";
    for (; t[n] && n < qn - 1; n++) q[n] = t[n] == '\n' ? ' ' : t[n];
    while (n > 0 && t[n] && ((unsigned char)t[n] & 0xC0) == 0x80) n--; /* cut at a code point */
    q[n] = 0;
}

pg_err pg_ocr_find(const pg_ocr_result *r, const char *phrase, unsigned flags, size_t start_word, pg_ocr_match *m,
                   pg_error *e) {
    if (!r || !phrase || !m) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_find: missing argument");
    memset(m, 0, sizeof *m);
    bool cs = flags & PG_OCR_FIND_CASE, nfkc = flags & PG_OCR_FIND_NORMALIZE;
    if (flags & ~(PG_OCR_FIND_CASE | PG_OCR_FIND_WORDS | PG_OCR_FIND_EXACT | PG_OCR_FIND_NORMALIZE))
        return pg_error_set(e, PG_E_USAGE, NULL, "unknown find flags 0x%x", flags);
    if (nfkc && !PG_HAVE_UTF8PROC)
        return pg_error_set(e, PG_E_UNSUPPORTED, "compare without --normalize",
                            "Unicode normalisation is not in this build (no utf8proc)");
    cpbuf nb = {0}, hb = {0};
    pg_err rc = PG_OK;
    if (!push_text(&nb, phrase, cs, 0)) {
        rc = pg_error_set(e, PG_E_USAGE, NULL, "the text to find is not valid UTF-8");
        goto done;
    }
    trim_end(&nb);
    if (nb.oom) goto oom;
    if (nb.n == 0) {
        rc = pg_error_set(e, PG_E_USAGE, "give the text to look for", "the text to find is empty");
        goto done;
    }
    if ((flags & PG_OCR_FIND_EXACT) && start_word != 0) {
        rc = pg_error_set(e, PG_E_USAGE, NULL, "an exact match covers every word: start_word must be 0");
        goto done;
    }
    /* Haystack: words joined by one space; word i spans [wstart[i], wend[i]). */
    size_t *wstart = malloc((2 * r->n_words + 1) * sizeof *wstart);
    if (!wstart) goto oom;
    size_t *wend = wstart + r->n_words;
    for (size_t i = 0; i < r->n_words; i++) {
        if (hb.n && hb.cp[hb.n - 1] != ' ') cp_push(&hb, ' ', i);
        wstart[i] = hb.n;
        push_text(&hb, r->words[i].text, cs, i);
        trim_end(&hb);
        wend[i] = hb.n;
    }
    if (hb.oom) {
        free(wstart);
        goto oom;
    }
    size_t found = SIZE_MAX;
    if (flags & PG_OCR_FIND_EXACT) {
        if (hb.n == nb.n && memcmp(hb.cp, nb.cp, nb.n * sizeof *nb.cp) == 0) found = 0;
    } else if (start_word < r->n_words && hb.n >= nb.n) {
        for (size_t a = wstart[start_word]; a + nb.n <= hb.n; a++) {
            if (memcmp(hb.cp + a, nb.cp, nb.n * sizeof *nb.cp) != 0) continue;
            if (flags & PG_OCR_FIND_WORDS) {
                if (wstart[hb.owner[a]] != a || wend[hb.owner[a + nb.n - 1]] != a + nb.n) continue;
            }
            found = a;
            break;
        }
    }
    if (found == SIZE_MAX) {
        char q[201];
        quote_read(r, q, sizeof q);
        char want[121];
        snprintf(want, sizeof want, "%s", phrase);
        const char *how = (flags & PG_OCR_FIND_EXACT)   ? " as the whole text"
                          : (flags & PG_OCR_FIND_WORDS) ? " as whole words"
                                                        : "";
        rc = pg_error_set(e, PG_E_NOTFOUND, "check the region, or read the text with `ocr` to see what is there",
                          "text \"%s\" not found%s; read: \"%s\"", want, how, q);
        free(wstart);
        goto done;
    }
    size_t fw = hb.owner[found], lw = hb.owner[found + nb.n - 1];
    if (flags & PG_OCR_FIND_EXACT) fw = 0, lw = r->n_words - 1;
    int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
    for (size_t i = fw; i <= lw; i++) {
        const pg_ocr_word *w = &r->words[i];
        x0 = w->x < x0 ? w->x : x0;
        y0 = w->y < y0 ? w->y : y0;
        x1 = w->x + w->w > x1 ? w->x + w->w : x1;
        y1 = w->y + w->h > y1 ? w->y + w->h : y1;
    }
    m->box = (pg_img_rect){(uint32_t)x0, (uint32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    m->first_word = fw;
    m->n_words = lw - fw + 1;
    free(wstart);
    goto done;
oom:
    rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
done:
    free(nb.cp);
    free(nb.owner);
    free(hb.cp);
    free(hb.owner);
    return rc;
}

/* --------------------------------------------------------------- nearest */

/* The union box of words [fw, lw]. */
static pg_img_rect words_box(const pg_ocr_result *r, size_t fw, size_t lw) {
    int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
    for (size_t i = fw; i <= lw && i < r->n_words; i++) {
        const pg_ocr_word *w = &r->words[i];
        x0 = w->x < x0 ? w->x : x0;
        y0 = w->y < y0 ? w->y : y0;
        x1 = w->x + w->w > x1 ? w->x + w->w : x1;
        y1 = w->y + w->h > y1 ? w->y + w->h : y1;
    }
    if (x0 == INT_MAX) return (pg_img_rect){0, 0, 0, 0};
    return (pg_img_rect){(uint32_t)x0, (uint32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
}

static void utf8_put(uint32_t c, char *out, size_t cap, size_t *len) {
    char b[4];
    size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (k == 1) b[0] = (char)c;
    else if (k == 2) b[0] = (char)(0xC0 | (c >> 6)), b[1] = (char)(0x80 | (c & 0x3F));
    else if (k == 3)
        b[0] = (char)(0xE0 | (c >> 12)), b[1] = (char)(0x80 | ((c >> 6) & 0x3F)), b[2] = (char)(0x80 | (c & 0x3F));
    else
        b[0] = (char)(0xF0 | (c >> 18)), b[1] = (char)(0x80 | ((c >> 12) & 0x3F)), b[2] = (char)(0x80 | ((c >> 6) & 0x3F)),
        b[3] = (char)(0x80 | (c & 0x3F));
    if (*len + k >= cap) return;
    memcpy(out + *len, b, k);
    *len += k;
    out[*len] = 0;
}

/* Sellers' approximate substring match (or plain Levenshtein when whole):
 * the least distance of p[0..m) to any run h[a..b), with the run's start. */
static size_t sellers(const uint32_t *p, size_t m, const uint32_t *h, size_t n, bool whole, size_t *a_out,
                      size_t *b_out, bool *oom) {
    size_t *d = malloc((m + 1) * sizeof *d), *st = malloc((m + 1) * sizeof *st);
    if (!d || !st) {
        free(d), free(st);
        *oom = true;
        return 0;
    }
    for (size_t i = 0; i <= m; i++) d[i] = i, st[i] = 0;
    size_t best = d[m], ba = 0, bb = 0;
    for (size_t j = 1; j <= n; j++) {
        size_t diag = d[0], dstart = st[0];
        d[0] = whole ? j : 0;
        st[0] = whole ? 0 : j;
        for (size_t i = 1; i <= m; i++) {
            size_t up = d[i], ustart = st[i];
            size_t sub = diag + (p[i - 1] != h[j - 1]), del = up + 1, ins = d[i - 1] + 1;
            size_t v = sub, vs = dstart;
            if (del < v) v = del, vs = ustart;
            if (ins < v) v = ins, vs = st[i - 1];
            diag = up, dstart = ustart;
            d[i] = v, st[i] = vs;
        }
        if (!whole && d[m] <= best) best = d[m], ba = st[m], bb = j; /* ties: the longer run */
    }
    if (whole) best = d[m], ba = 0, bb = n;
    free(d), free(st);
    *a_out = ba, *b_out = bb;
    return best;
}

pg_err pg_ocr_nearest(const pg_ocr_result *r, const char *phrase, unsigned flags, pg_ocr_near *out, pg_error *e) {
    if (!r || !phrase || !out) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_nearest: missing argument");
    memset(out, 0, sizeof *out);
    bool cs = flags & PG_OCR_FIND_CASE, nfkc = flags & PG_OCR_FIND_NORMALIZE, whole = flags & PG_OCR_FIND_EXACT;
    if (flags & ~(PG_OCR_FIND_CASE | PG_OCR_FIND_EXACT | PG_OCR_FIND_NORMALIZE | PG_OCR_FIND_WORDS))
        return pg_error_set(e, PG_E_USAGE, NULL, "unknown flags 0x%x", flags);
    if (nfkc && !PG_HAVE_UTF8PROC)
        return pg_error_set(e, PG_E_UNSUPPORTED, "compare without --normalize",
                            "Unicode normalisation is not in this build (no utf8proc)");
    cpbuf nb = {0}, hb = {0};
    pg_err rc = PG_OK;
    if (!push_text(&nb, phrase, cs, 0)) {
        rc = pg_error_set(e, PG_E_USAGE, NULL, "the text to compare is not valid UTF-8");
        goto done;
    }
    trim_end(&nb);
    for (size_t i = 0; i < r->n_words; i++) {
        if (hb.n && hb.cp[hb.n - 1] != ' ') cp_push(&hb, ' ', i);
        push_text(&hb, r->words[i].text, cs, i);
        trim_end(&hb);
    }
    if (nb.oom || hb.oom) goto oom;
    if (nb.n == 0) {
        rc = pg_error_set(e, PG_E_USAGE, "give the text to look for", "the text to compare is empty");
        goto done;
    }
    if (nb.n > PG_OCR_NEAR_MAX_PHRASE || (uint64_t)nb.n * (hb.n + 1) > PG_OCR_NEAR_MAX_CELLS) {
        rc = pg_error_set(e, PG_E_USAGE, "compare over a --region, or a shorter text",
                          "an approximate comparison of %zu by %zu characters is over the limit", nb.n, hb.n);
        goto done;
    }
    size_t a = 0, b = 0;
    bool om = false;
    size_t d = sellers(nb.cp, nb.n, hb.cp, hb.n, whole, &a, &b, &om);
    if (om) goto oom;
    out->distance = d;
    out->phrase_len = nb.n;
    size_t runlen = b - a, mx = runlen > nb.n ? runlen : nb.n;
    out->similarity = mx ? 1.0 - (double)d / (double)mx : 1.0;
    size_t len = 0;
    for (size_t i = a; i < b; i++) utf8_put(hb.cp[i], out->matched, sizeof out->matched, &len);
    if (b > a) {
        out->first_word = hb.owner[a];
        size_t lw = hb.owner[b - 1];
        out->n_words = lw - out->first_word + 1;
        out->box = words_box(r, out->first_word, lw);
    }
    goto done;
oom:
    rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
done:
    free(nb.cp);
    free(nb.owner);
    free(hb.cp);
    free(hb.owner);
    return rc;
}
