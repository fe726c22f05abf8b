/* SPDX-License-Identifier: MIT */
/* PNG decode/encode with libpng. libpng reports errors by longjmp, so every
 * object that must survive one lives in a heap/stack struct reached through a
 * pointer that is not modified after setjmp, or in a volatile local. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pg_img_codec.h"
#include "pg_img_codec_private.h"

/* Ancillary chunks (iCCP, zTXt, ...) may not balloon past this when inflated. */
#define PNG_CHUNK_MALLOC_MAX ((png_alloc_size_t)8 << 20)
#define PNG_CHUNK_CACHE_MAX 1000

typedef struct {
    const uint8_t *buf;
    size_t n, pos;
    char msg[256]; /* libpng's error text */
} png_src;

static void png_read_mem(png_structp png, png_bytep out, size_t len) {
    png_src *s = png_get_io_ptr(png);
    if (len > s->n - s->pos) png_error(png, "truncated PNG data");
    memcpy(out, s->buf + s->pos, len);
    s->pos += len;
}

static void png_on_error(png_structp png, png_const_charp msg) {
    char *dst = png_get_error_ptr(png);
    snprintf(dst, 256, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg) { /* benign: ignored */ }

/* Ask libpng for 8-bit RGBA whatever the stored colour type. */
static void png_want_rgba(png_structp png, png_infop info) {
    int ct = png_get_color_type(png, info);
    png_set_expand(png); /* palette -> RGB, grey < 8 bit -> 8 bit, tRNS -> alpha */
    png_set_strip_16(png);
    if (ct == PNG_COLOR_TYPE_GRAY || ct == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(ct & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

static png_structp png_reader_new(png_src *src, png_infop *info) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, src->msg, png_on_error, png_on_warning);
    *info = png ? png_create_info_struct(png) : NULL;
    if (png && !*info) png_destroy_read_struct(&png, NULL, NULL);
    if (!png) return NULL;
    png_set_read_fn(png, src, png_read_mem);
    png_set_user_limits(png, PG_IMG_MAX_SIDE, PG_IMG_MAX_SIDE);
    png_set_chunk_malloc_max(png, PNG_CHUNK_MALLOC_MAX);
    png_set_chunk_cache_max(png, PNG_CHUNK_CACHE_MAX);
#ifdef PNG_IGNORE_ADLER32
    /* zlib's Adler-32 over the inflated rows is 5-10 % of a screenshot's
     * decode (perf, bench/h2h's diff row); every chunk's CRC-32, which
     * covers the compressed bytes, is still checked, so a damaged file is
     * still refused (unit.test_engine_img: a flipped IDAT byte). */
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* Fuzz builds only: let mutated data past the CRCs into the decoder. */
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#endif
    return png;
}

pg_err pg_img_decode_png(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_PNG, e);
    if (rc) return rc;
#ifdef PG_HAVE_LIBDEFLATE
    if (pg_img_png_fast(buf, n, lim, out) == PG_OK) return PG_OK;
#endif
    return pg_img_decode_png_libpng(buf, n, lim, out, e);
}

pg_err pg_img_decode_png_libpng(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_PNG, e);
    if (rc) return rc;
    /* On the heap: its fields change under libpng and must survive longjmp. */
    png_src *src = calloc(1, sizeof *src);
    png_infop info = NULL;
    png_structp png = src ? png_reader_new(src, &info) : NULL;
    if (!png) {
        free(src);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "libpng could not start");
    }
    *src = (png_src){buf, n, 0, {0}};
    pg_img *volatile img = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        pg_img_free(img);
        free(rows);
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "corrupt PNG: %s", src->msg);
        free(src);
        return rc;
    }
    png_read_info(png, info);
    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    rc = pg_img_limits_check(lim, w, h, e);
    if (!rc) {
        png_want_rgba(png, info);
        if (png_get_rowbytes(png, info) != (size_t)w * 4)
            rc = pg_error_set(e, PG_E_BADINPUT, NULL, "PNG layout not convertible to RGBA8");
    }
    pg_img *tmp = NULL;
    if (!rc) rc = pg_img_new(&tmp, w, h, e);
    img = tmp;
    if (!rc && !(rows = malloc(sizeof *rows * h))) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (!rc) {
        for (uint32_t y = 0; y < h; y++) rows[y] = pg_img_row(img, y);
        png_read_image(png, rows);
        png_read_end(png, NULL); /* a file cut before IEND is incomplete */
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    free(src);
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    *out = img;
    return PG_OK;
}

/* ---- encoder ---- */

typedef struct {
    uint8_t *buf;
    size_t len, cap;
    uint8_t *rgb_row; /* scratch row when writing RGB, else NULL */
    char msg[256];
} png_sink;

static void png_write_mem(png_structp png, png_bytep data, size_t len) {
    png_sink *s = png_get_io_ptr(png);
    if (len > s->cap - s->len) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap - s->len < len) {
            if (cap > SIZE_MAX / 2) png_error(png, "PNG too large");
            cap *= 2;
        }
        uint8_t *nb = realloc(s->buf, cap);
        if (!nb) png_error(png, "out of memory");
        s->buf = nb;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, len);
    s->len += len;
}

static void png_flush_mem(png_structp png) {}

pg_png_opts pg_png_opts_default(void) { return (pg_png_opts){1, PG_PNG_FILTER_SUB, true, false}; }

pg_png_opts pg_png_opts_release(void) { return (pg_png_opts){PG_PNG_RELEASE_LEVEL, PG_PNG_FILTER_SUB, false, false}; }

static bool img_opaque(const pg_img *img) {
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *r = pg_img_row(img, y);
        unsigned all = 0xff;
        for (uint32_t x = 0; x < img->width; x++) all &= r[4 * x + 3];
        if (all != 0xff) return false;
    }
    return true;
}

static int png_filter_flags(pg_png_filter f) {
    switch (f) {
    case PG_PNG_FILTER_NONE: return PNG_FILTER_NONE;
    case PG_PNG_FILTER_UP: return PNG_FILTER_UP;
    case PG_PNG_FILTER_ALL: return PNG_ALL_FILTERS;
    default: return PNG_FILTER_SUB;
    }
}

static void rgba_to_rgb(const uint8_t *restrict in, uint32_t w, uint8_t *restrict out) {
    for (uint32_t x = 0; x < w; x++) {
        out[3 * x] = in[4 * x];
        out[3 * x + 1] = in[4 * x + 1];
        out[3 * x + 2] = in[4 * x + 2];
    }
}

/* rgb_row: 3*width bytes of scratch, used when the image is written as RGB. */
static void png_write_all(png_structp png, png_infop info, const pg_img *img, const pg_png_opts *o, bool rgb,
                          uint8_t *rgb_row) {
    png_set_IHDR(png, info, img->width, img->height, 8, rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, o->level);
    png_set_compression_strategy(png, o->rle ? Z_RLE : Z_DEFAULT_STRATEGY);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, png_filter_flags(o->filter));
    png_set_compression_buffer_size(png, (size_t)1 << 17);
    png_write_info(png, info);
    if (!rgb) {
        for (uint32_t y = 0; y < img->height; y++) png_write_row(png, pg_img_row(img, y));
    } else { /* our own RGBA -> RGB copy: faster than libpng's filler transform */
        for (uint32_t y = 0; y < img->height; y++) {
            rgba_to_rgb(pg_img_row(img, y), img->width, rgb_row);
            png_write_row(png, rgb_row);
        }
    }
    png_write_end(png, info);
}

pg_err pg_img_encode_png(const pg_img *img, const pg_png_opts *opts, uint8_t **out, size_t *out_len, pg_error *e) {
    *out = NULL;
    *out_len = 0;
    pg_png_opts o = opts ? *opts : pg_png_opts_default();
    if (o.level < 0 || o.level > 9) return pg_error_set(e, PG_E_USAGE, NULL, "PNG level %d not in 0..9", o.level);
    /* On the heap: its fields change under libpng and must survive longjmp. */
    png_sink *sink = calloc(1, sizeof *sink);
    if (sink && !o.keep_alpha && img_opaque(img) && !(sink->rgb_row = malloc((size_t)img->width * 3))) {
        free(sink);
        sink = NULL;
    }
    png_structp png = sink ? png_create_write_struct(PNG_LIBPNG_VER_STRING, sink->msg, png_on_error, png_on_warning)
                           : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        if (sink) free(sink->rgb_row);
        free(sink);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "libpng could not start");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        pg_err rc = pg_error_set(e, PG_E_INTERNAL, NULL, "PNG encoding failed: %s", sink->msg);
        free(sink->buf);
        free(sink->rgb_row);
        free(sink);
        return rc;
    }
    png_set_write_fn(png, sink, png_write_mem, png_flush_mem);
    png_write_all(png, info, img, &o, sink->rgb_row != NULL, sink->rgb_row);
    png_destroy_write_struct(&png, &info);
    *out = sink->buf;
    *out_len = sink->len;
    free(sink->rgb_row);
    free(sink);
    return PG_OK;
}
