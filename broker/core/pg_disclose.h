/* SPDX-License-Identifier: MIT */
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
 *   - the cost is charged, before the answer is sent, per user to the
 *     contents of the 16x16 tiles the answer is about (keyed digests of
 *     their pixels: the same pixels under any source name, token or fresh
 *     capture are the same tiles): a question (the operation and its
 *     arguments, not the tokens) asked again about a tile content that
 *     user was already charged for under it charges that tile nothing; the
 *     answer's bits are spread evenly over its tiles, and the shares of the
 *     tiles new to the question are charged, each to its tile's cap
 *     (bits_per_tile_hour) and together to the user's (bits_per_user_hour);
 *     both refill continuously (the cap in an hour); an answer that would
 *     pass either is refused instead, charging nothing, saying in how many
 *     seconds enough is back;
 *   - a capture's digest is keyed: HMAC-SHA256 of its SHA-256 under a key
 *     per broker run and user, so digests compare captures with each other
 *     but cannot be inverted or matched against images made elsewhere.
 * Exact answers (files the caller sent, tokens under expose_pixels allow)
 * pass through untouched and uncharged. OCR text and an endpoint's answer
 * are releases of their own (analysis.ocr, analysis.endpoints): not charged.
 *
 * Never: persists the ledger (a broker restart, which only the administrator
 * can cause, empties it), charges a refused answer, or lets one user's
 * entries take another's place (each user has a table of its own, at most
 * PG_DISCLOSE_USER_TILES tile contents).
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
#define PG_DISCLOSE_TILE 16       /* charges are kept per content of a 16x16 tile */
#define PG_DISCLOSE_USER_TILES (1u << 17) /* tile contents one user's table holds */
#define PG_DISCLOSE_USERS 1024    /* users with a table at once */

typedef struct pg_disclose pg_disclose;

/* The keyed digest of one tile's pixels (128 bits: collisions cannot be
 * aimed, the key is the broker run's), and whether every pixel of it is
 * the same (flat: its colour says all there is, PG_DISCLOSE_FLAT_BITS). */
typedef struct {
    uint8_t b[16];
    uint8_t flat;
    uint8_t placed; /* a cell a crop cut: keyed by its place in the source, always charged */
} pg_disclose_tile;

/* Where an image's first pixel sits in its source (window or screen
 * coordinates) when the image is a crop of it, and the source's name: cells
 * are cut on the source's grid, so every crop of the same pixels yields the
 * same tiles, and a cell the crop cut (part of a cell) is keyed by its place
 * in the source, whatever part of it the crop holds. */
typedef struct {
    int32_t x, y;
    const char *place;
} pg_disclose_origin;
#define PG_DISCLOSE_FLAT_BITS 25 /* one RGBA colour of 24 bits and "it is flat" */

/* What a charge did, or why it was refused. */
typedef struct {
    double charged;  /* bits booked (0 when refused or nothing was new) */
    double balance;  /* the user's bits left after it, rounded down to 1024 */
    double retry_s;  /* refused: seconds until enough is back, rounded up to 10 (-1: never, ask less) */
    size_t n_new;    /* tiles new to the question */
} pg_disclose_receipt;

pg_err pg_disclose_new(pg_disclose **out, pg_error *e);
void pg_disclose_free(pg_disclose *d);
/* The ledger's clock in seconds (default: the monotonic clock); tests
 * replay charges on a clock of their own. */
void pg_disclose_set_clock(pg_disclose *d, double (*now_s)(void *ctx), void *ctx);

/* May the caller not have these pixels (the policy does not release them)? */
bool pg_disclose_protected(const pg_policy_view *v);

/* PG_E_POLICY when an answer about protected pixels would measure fewer than
 * v->min_area of them; what names the answer for the message. */
pg_err pg_disclose_area(const pg_policy_view *v, uint64_t area, const char *what, pg_error *e);

/* Appends to *tiles (growing it, *n and *cap) the digests of the 16x16 cells
 * of the w x h RGBA image (rows stride bytes apart) that meet r (NULL: all).
 * o NULL: the grid is anchored at the image's first pixel and cells cut by
 * its edge are digests of what is there; else as pg_disclose_origin says. */
pg_err pg_disclose_tiles(pg_disclose *d, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                         const pg_img_rect *r, const pg_disclose_origin *o, pg_disclose_tile **tiles, size_t *n,
                         size_t *cap, pg_error *e);

/* Charges an answer of bits about tiles[0..n) (duplicates allowed) asked as
 * question (a digest of the operation and its arguments) to uid's ledger,
 * or refuses (PG_E_POLICY, saying what is left and in how many seconds
 * enough is back) charging nothing. n == 0 (pixels with no tiles of their
 * own): the whole answer goes to the user's budget. rc may be NULL. */
pg_err pg_disclose_charge(pg_disclose *d, const pg_policy_view *v, uint32_t uid, const pg_disclose_tile *tiles,
                          size_t n, uint64_t question, double bits, pg_disclose_receipt *rc, pg_error *e);
/* Bits charged to uid since the broker started (the audit records' sum). */
double pg_disclose_used(pg_disclose *d, uint32_t uid);
/* Bits uid may still be charged now (its budget refilled to this moment),
 * rounded down to 1024: what an agent is shown of its own budget. */
double pg_disclose_balance(pg_disclose *d, const pg_policy_view *v, uint32_t uid);
/* Bits booked now on one tile content of uid (refill applied). */
double pg_disclose_tile_booked(pg_disclose *d, const pg_policy_view *v, uint32_t uid, const pg_disclose_tile *t);

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
