/* pg_disclose.h - what numeric answers may reveal about pixels the caller
 * may not have, and the ledger that bounds it (docs/threat-model.md is the
 * contract).
 *
 * Every answer computed from pixels is a release channel. Pixels are
 * *protected* for a caller whose policy does not release them
 * (expose_pixels analyze-only or never). For protected pixels:
 *   - an answer must be about at least min_area pixels (a 1x1 region and a
 *     threshold is a per-pixel comparator), or it is refused;
 *   - numbers are reported at a bounded resolution (counts in 1/256 of the
 *     measured area, boxes on an 8-pixel grid, scores to 0.01), and each
 *     answer costs the bits its quantised fields can carry (log2 of the
 *     values they can take), an upper bound of what it reveals;
 *   - the cost is charged, before the answer is sent, to the caller's
 *     ledger for every source the pixels came from (a window, or the
 *     screen; a fresh snapshot of the same window is the same source) and
 *     to the caller's total; an answer that would pass bits_per_source_hour
 *     or bits_per_user_hour in the current hour (60 one-minute bins) is
 *     refused instead, charging nothing;
 *   - a capture's digest is keyed: HMAC-SHA256 of its SHA-256 under a key
 *     per broker run and user, so digests compare captures with each other
 *     but cannot be inverted or matched against images made elsewhere.
 * Exact answers (files the caller sent, tokens under expose_pixels allow)
 * pass through untouched and uncharged. OCR text and an endpoint's answer
 * are releases of their own (analysis.ocr, analysis.endpoints): not charged.
 *
 * Never: persists the ledger (a broker restart, which only the administrator
 * can cause, empties it), or charges a refused answer.
 * Threads: one mutex around the ledger; everything else is pure.
 */
#ifndef PG_DISCLOSE_H
#define PG_DISCLOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"
#include "pg_policy.h"

#define PG_DISCLOSE_SOURCE_MAX 48 /* "window:18446744073709551615" fits */
#define PG_DISCLOSE_GRID 8        /* boxes of protected pixels snap to this grid */
#define PG_DISCLOSE_LEVELS 256    /* counts are reported in 1/256 of the measured area */
#define PG_DISCLOSE_MAX_BOXES 4   /* regions (or matches) listed about protected pixels */

typedef struct pg_disclose pg_disclose;

pg_err pg_disclose_new(pg_disclose **out, pg_error *e);
void pg_disclose_free(pg_disclose *d);

/* May the caller not have these pixels (the policy does not release them)? */
bool pg_disclose_protected(const pg_policy_view *v);

/* PG_E_POLICY when an answer about protected pixels would measure fewer than
 * v->min_area of them; what names the answer for the message. */
pg_err pg_disclose_area(const pg_policy_view *v, uint64_t area, const char *what, pg_error *e);

/* Charges bits to each of the sources (distinct source keys) and once to the
 * caller's total, or refuses (PG_E_POLICY, saying what is left and when it
 * frees) charging nothing. */
pg_err pg_disclose_charge(pg_disclose *d, const pg_policy_view *v, uint32_t uid, const char *const *sources,
                          size_t n_sources, double bits, pg_error *e);
/* Bits charged to (uid, source) in the current hour (source NULL: the total). */
double pg_disclose_used(pg_disclose *d, uint32_t uid, const char *source);

/* The digest a caller sees of protected pixels whose SHA-256 is real_hex. */
void pg_disclose_digest(pg_disclose *d, uint32_t uid, const char *real_hex, char out_hex[65]);

/* ---- quantisers: each adds the bits its result can carry to *bits ---- */

/* n of total, rounded up to steps of total/256 (exact when total <= 256). */
uint64_t pg_disclose_count(uint64_t n, uint64_t total, double *bits);
/* A box inside a w x h image, grown outward to the grid. */
pg_img_rect pg_disclose_box(pg_img_rect r, uint32_t w, uint32_t h, double *bits);
/* A point, rounded to the grid. */
void pg_disclose_point(uint32_t *x, uint32_t *y, uint32_t w, uint32_t h, double *bits);
/* A score in [lo, hi], rounded to 0.01. */
double pg_disclose_score(double s, double lo, double hi, double *bits);
/* A yes/no. */
void pg_disclose_flag(double *bits);
/* v clamped to [lo, hi] and rounded to a multiple of step above lo:
 * log2((hi - lo) / step + 1) bits. */
double pg_disclose_step(double v, double lo, double hi, double step, double *bits);
/* An integer known to lie in 0..max, told exactly (clamped): log2(max + 1) bits. */
uint64_t pg_disclose_int(uint64_t v, uint64_t max, double *bits);
/* A signed offset within +-max, rounded to the grid. */
int32_t pg_disclose_offset(int32_t v, uint32_t max, double *bits);
/* An sRGB colour with each channel rounded to 4 bits (00, 11, .. ff) as
 * "#rrggbb": 12 bits. */
void pg_disclose_hex(const uint8_t rgb[3], char out[8], double *bits);
/* A value in [0, 1] on a logarithmic scale: 0 below 1e-4, else the nearest
 * of 1e-4 * 2^(k/8) (k = 0..107, within 4.4 %): log2(109) bits. For
 * quantities whose interesting values span decades (motion signatures). */
#define PG_DISCLOSE_LOG_FLOOR 1e-4
double pg_disclose_log(double v, double *bits);

#endif
