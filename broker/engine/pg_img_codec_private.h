/* SPDX-License-Identifier: MIT */
/* pg_img_codec_private.h - engine-internal glue between pg_img_codec.c and
 * the per-format codec files. Never: included outside broker/engine. */
#ifndef PG_IMG_CODEC_PRIVATE_H
#define PG_IMG_CODEC_PRIVATE_H

#include <stdbool.h>

#include "pg_img_codec.h"

/* Non-empty, within max_input_bytes, and (unless want is UNKNOWN) of format want. */
pg_err pg_img_check_input(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img_format want, pg_error *e);

/* PNG: the libdeflate fast path (pg_img_png_fast.c; PG_OK, or anything
 * else for "libpng decides"), and libpng alone, which pg_img_decode_png
 * falls back to and the tests compare the fast path with. */
pg_err pg_img_png_fast(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out);
pg_err pg_img_decode_png_libpng(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e);

bool pg_img_jpeg_available(void);
bool pg_img_webp_available(void);
pg_err pg_img_probe_jpeg(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e);
pg_err pg_img_probe_webp(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e);

#endif
