/* SPDX-License-Identifier: MIT */
/* Format sniffing, header probing and dispatch; the codecs live in
 * pg_img_png.c, pg_img_jpeg.c and pg_img_webp.c. */
#include "pg_img_codec.h"

#include <string.h>

#include "pg_img_codec_private.h"

pg_img_format pg_img_sniff(const uint8_t *buf, size_t n) {
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (!buf) return PG_IMG_FMT_UNKNOWN;
    if (n >= 8 && memcmp(buf, png_sig, 8) == 0) return PG_IMG_FMT_PNG;
    if (n >= 3 && buf[0] == 0xff && buf[1] == 0xd8 && buf[2] == 0xff) return PG_IMG_FMT_JPEG;
    if (n >= 12 && memcmp(buf, "RIFF", 4) == 0 && memcmp(buf + 8, "WEBP", 4) == 0) return PG_IMG_FMT_WEBP;
    return PG_IMG_FMT_UNKNOWN;
}

const char *pg_img_format_name(pg_img_format f) {
    switch (f) {
    case PG_IMG_FMT_PNG: return "png";
    case PG_IMG_FMT_JPEG: return "jpeg";
    case PG_IMG_FMT_WEBP: return "webp";
    default: return "unknown";
    }
}

bool pg_img_codec_has(pg_img_format f) {
    switch (f) {
    case PG_IMG_FMT_PNG: return true;
    case PG_IMG_FMT_JPEG: return pg_img_jpeg_available();
    case PG_IMG_FMT_WEBP: return pg_img_webp_available();
    default: return false;
    }
}

pg_err pg_img_check_input(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img_format want, pg_error *e) {
    pg_img_limits d = pg_img_limits_default();
    if (!lim) lim = &d;
    if (!buf || n == 0) return pg_error_set(e, PG_E_BADINPUT, NULL, "empty image data");
    if (n > lim->max_input_bytes)
        return pg_error_set(e, PG_E_BADINPUT, "send a smaller image or ask the administrator to raise the input limit",
                            "image data of %llu bytes exceeds the limit of %llu bytes", (unsigned long long)n,
                            (unsigned long long)lim->max_input_bytes);
    if (want != PG_IMG_FMT_UNKNOWN && pg_img_sniff(buf, n) != want)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "data is not a %s image", pg_img_format_name(want));
    return PG_OK;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static pg_err probe_png(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e) {
    /* signature(8) + length(4) + "IHDR"(4) + width(4) + height(4) */
    if (n < 24 || memcmp(buf + 12, "IHDR", 4) != 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "PNG without a complete IHDR chunk");
    *w = be32(buf + 16);
    *h = be32(buf + 20);
    return PG_OK;
}

pg_err pg_img_probe(const uint8_t *buf, size_t n, pg_img_format *fmt, uint32_t *w, uint32_t *h, pg_error *e) {
    *fmt = PG_IMG_FMT_UNKNOWN;
    *w = *h = 0;
    pg_err rc = pg_img_check_input(buf, n, NULL, PG_IMG_FMT_UNKNOWN, e);
    if (rc) return rc;
    *fmt = pg_img_sniff(buf, n);
    switch (*fmt) {
    case PG_IMG_FMT_PNG: return probe_png(buf, n, w, h, e);
    case PG_IMG_FMT_JPEG: return pg_img_probe_jpeg(buf, n, w, h, e);
    case PG_IMG_FMT_WEBP: return pg_img_probe_webp(buf, n, w, h, e);
    default: return pg_error_set(e, PG_E_BADINPUT, "send a PNG, JPEG or WebP image", "not a PNG, JPEG or WebP image");
    }
}

pg_err pg_img_decode(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_UNKNOWN, e);
    if (rc) return rc;
    switch (pg_img_sniff(buf, n)) {
    case PG_IMG_FMT_PNG: return pg_img_decode_png(buf, n, lim, out, e);
    case PG_IMG_FMT_JPEG: return pg_img_decode_jpeg(buf, n, lim, out, e);
    case PG_IMG_FMT_WEBP: return pg_img_decode_webp(buf, n, lim, out, e);
    default: return pg_error_set(e, PG_E_BADINPUT, "send a PNG, JPEG or WebP image", "not a PNG, JPEG or WebP image");
    }
}
