/* SPDX-License-Identifier: MIT */
/* pg_img_codec.h - decode PNG/JPEG/WebP from memory, encode PNG to memory.
 *
 * Does: sniff the format by magic bytes; read the header dimensions and check
 * pg_img_limits (input bytes first, then pixels) BEFORE allocating pixels;
 * decode to RGBA8 (grey/palette/16-bit/RGB are expanded, 16-bit keeps the high
 * byte, no gamma or colour-profile transform, JPEG EXIF orientation is not
 * applied: pixels come out as stored). Corrupt, truncated, oversized or
 * animated input is PG_E_BADINPUT with a message, never a crash.
 * JPEG and WebP support is optional at build time: without it their decoders
 * return PG_E_UNSUPPORTED (pg_img_codec_has() tells which are in).
 * Never: reads or writes files, keeps state between calls, prints.
 * Ownership: decoders return a new pg_img (pg_img_free); the encoder returns a
 * malloc'd buffer the caller frees with free().
 */
#ifndef PG_IMG_CODEC_H
#define PG_IMG_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

typedef enum { PG_IMG_FMT_UNKNOWN = 0, PG_IMG_FMT_PNG, PG_IMG_FMT_JPEG, PG_IMG_FMT_WEBP } pg_img_format;

/* By magic bytes only: PNG "\x89PNG\r\n\x1a\n", JPEG "\xff\xd8\xff",
 * WebP "RIFF....WEBP". */
pg_img_format pg_img_sniff(const uint8_t *buf, size_t n);
const char *pg_img_format_name(pg_img_format f); /* "png", "jpeg", "webp", "unknown" */
bool pg_img_codec_has(pg_img_format f);          /* decoder compiled in? */

/* Header only: format and dimensions, no pixel decoding, no limits check
 * beyond the input size. Unknown format: PG_E_BADINPUT. */
pg_err pg_img_probe(const uint8_t *buf, size_t n, pg_img_format *fmt, uint32_t *w, uint32_t *h, pg_error *e);

/* Sniff and decode. lim NULL: pg_img_limits_default(). */
pg_err pg_img_decode(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e);
pg_err pg_img_decode_png(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e);
pg_err pg_img_decode_jpeg(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e);
pg_err pg_img_decode_webp(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e);

/* PNG encoder settings. level: zlib 0-9; filter: one of the PG_PNG_FILTER_*. */
typedef enum { PG_PNG_FILTER_NONE = 0, PG_PNG_FILTER_SUB, PG_PNG_FILTER_UP, PG_PNG_FILTER_ALL } pg_png_filter;
typedef struct {
    int level;            /* default 1 */
    pg_png_filter filter; /* default SUB */
    bool rle;             /* zlib Z_RLE strategy; default true */
    bool keep_alpha;      /* false (default): an all-opaque image is written as RGB */
} pg_png_opts;

/* The fast defaults (level 1, SUB, RLE): ~4x faster than libpng's defaults
 * on screen content for ~15-30% larger files (docs/performance.md). */
pg_png_opts pg_png_opts_default(void);

/* For PNGs that leave the broker (release): zlib's default strategy, filter
 * SUB, level PG_PNG_RELEASE_LEVEL, chosen on a 1080p text screen for size
 * against time (docs/performance.md, "Released PNGs"). */
#define PG_PNG_RELEASE_LEVEL 3
pg_png_opts pg_png_opts_release(void);

/* Encode img as PNG (8-bit RGBA, or RGB when opaque and !keep_alpha).
 * opts NULL: defaults. *out is malloc'd, *out_len bytes. */
pg_err pg_img_encode_png(const pg_img *img, const pg_png_opts *opts, uint8_t **out, size_t *out_len, pg_error *e);

#endif
