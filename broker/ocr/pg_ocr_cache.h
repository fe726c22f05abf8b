/* SPDX-License-Identifier: MIT */
/* pg_ocr_cache.h - OCR results kept per user by the pixels they were read from.
 *
 * Does: answers a read (pg_ocr_run_opts on an engine the cache is bound to,
 * pg_ocr_bind_cache) from the caller's own entry when the same pixels were
 * read before with the same language and options, and re-reads only the
 * changed horizontal band(s) when the pixels differ from an earlier read of
 * the same size in a few rows (a window after one input):
 *  - key: SHA-256 over the language spec, every option that changes the
 *    result (scale, psm, invert, min_conf, field), the region's width and
 *    height and the SHA-256 of each of its rows (the region's pixels only: a
 *    result is a function of them, pg_ocr.h). The uid is not in the digest:
 *    entries live in the uid's own partition and are looked up only there.
 *  - partial read ("bands"): the rows whose digest changed, widened by a
 *    margin, then to every whole text row of the earlier result they touch
 *    (so no word is cut), then outward to clean cuts (pg_ocr_clean_cuts: no
 *    frame, text, panel or tint crosses the band's edge, so the band's own
 *    layout pass sees whole components);
 *    each band is read full-width with 32 rows of context above and below
 *    (whose words are dropped: Tesseract decides page-wide what is noise)
 *    and the earlier read's scale, polarity and segmentation mode; the
 *    earlier words outside every band are kept, and
 *    all are ordered into rows as a full read orders them. Taken only for
 *    whole-region reads (not field mode) when the bands cover at most
 *    PG_OCR_CACHE_BAND_MAX_PCT of the rows and the polarity is unchanged;
 *    else the whole region is read. tests/unit/test_ocr_cache.c holds partial
 *    and full reads to the same words on the labelled set's forms kept in
 *    tests/data; over the whole set they differ on a few marginal marks
 *    (docs/ocr.md, "Results kept per user").
 * Never: looks up, evicts or counts an entry under another uid than the
 * caller's (a hit another user's read made would be a timing channel:
 * docs/threat-model.md, "The OCR cache"); keeps pixels (only row digests and
 * the words); caches an error.
 * Bounds and eviction: at most PG_OCR_CACHE_ENTRIES entries and
 * PG_OCR_CACHE_USER_BYTES per user, the least recently used of that user's
 * entries dropped first; at most PG_OCR_CACHE_USERS users, a new user taking
 * the partition of the user whose last read is the oldest (emptied whole).
 * An entry larger than a partition is not kept. Worst case
 * PG_OCR_CACHE_USERS x PG_OCR_CACHE_USER_BYTES (32 MiB) plus bookkeeping.
 * Threads: one mutex around the partitions; hashing and reading run outside
 * it. Ownership: pg_ocr_cache_new/pg_ocr_cache_free; results handed out are
 * the caller's copies.
 */
#ifndef PG_OCR_CACHE_H
#define PG_OCR_CACHE_H

#include <stdint.h>

#include "pg_ocr.h"

#define PG_OCR_CACHE_USERS 32
#define PG_OCR_CACHE_ENTRIES 32
#define PG_OCR_CACHE_USER_BYTES ((size_t)1 << 20)
#define PG_OCR_CACHE_BAND_MAX_PCT 40

pg_err pg_ocr_cache_new(pg_ocr_cache **out, pg_error *e);
void pg_ocr_cache_free(pg_ocr_cache *c); /* NULL is fine */

/* The uncached read (pg_ocr.c's), and who is reading with what. */
typedef pg_err (*pg_ocr_read_fn)(pg_ocr *o, const pg_img *img, const pg_img_rect *region, const pg_ocr_opts *opts,
                                 pg_ocr_result *out, pg_error *e);
typedef struct {
    pg_ocr_cache *cache;
    uint32_t uid;
    const char *lang;
    pg_ocr *engine;
    pg_ocr_read_fn read;
} pg_ocr_cache_call;

/* pg_ocr_run_opts through the cache: same contract, same result. */
pg_err pg_ocr_cache_run(const pg_ocr_cache_call *k, const pg_img *img, const pg_img_rect *region,
                        const pg_ocr_opts *opts, pg_ocr_result *out, pg_error *e);

/* What the cache did, for tests and the broker's log (no reply shows it). */
typedef struct {
    uint64_t hits, partial, full, users_evicted;
    uint64_t band_rows, band_region_rows; /* rows re-read by partial reads, of the rows their regions had */
} pg_ocr_cache_stats;
void pg_ocr_cache_stats_get(pg_ocr_cache *c, pg_ocr_cache_stats *out);

#endif
