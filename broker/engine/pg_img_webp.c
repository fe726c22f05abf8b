/* SPDX-License-Identifier: MIT */
/* WebP decode with libwebp (static images only). Without PG_HAVE_WEBP every
 * entry point is UNSUPPORTED. */
#include <stdlib.h>

#include "pg_img_codec.h"
#include "pg_img_codec_private.h"

#ifdef PG_HAVE_WEBP
#include <webp/decode.h>

bool pg_img_webp_available(void) { return true; }

static pg_err webp_features(const uint8_t *buf, size_t n, WebPBitstreamFeatures *f, pg_error *e) {
    VP8StatusCode st = WebPGetFeatures(buf, n, f);
    if (st != VP8_STATUS_OK) return pg_error_set(e, PG_E_BADINPUT, NULL, "corrupt WebP header (status %d)", (int)st);
    return PG_OK;
}

pg_err pg_img_decode_webp(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    WebPBitstreamFeatures f;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_WEBP, e);
    if (!rc) rc = webp_features(buf, n, &f, e);
    if (rc) return rc;
    if (f.has_animation)
        return pg_error_set(e, PG_E_BADINPUT, "send a single frame as PNG", "animated WebP is not supported");
    rc = pg_img_limits_check(lim, (uint64_t)f.width, (uint64_t)f.height, e);
    pg_img *img = NULL;
    if (!rc) rc = pg_img_new(&img, (uint32_t)f.width, (uint32_t)f.height, e);
    if (rc) return rc;
    size_t size = img->stride * img->height;
    if (!WebPDecodeRGBAInto(buf, n, img->px, size, (int)img->stride)) {
        pg_img_free(img);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "corrupt or truncated WebP data");
    }
    *out = img;
    return PG_OK;
}

pg_err pg_img_probe_webp(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e) {
    WebPBitstreamFeatures f;
    pg_err rc = webp_features(buf, n, &f, e);
    if (rc) return rc;
    *w = (uint32_t)f.width;
    *h = (uint32_t)f.height;
    return PG_OK;
}

#else /* !PG_HAVE_WEBP */

bool pg_img_webp_available(void) { return false; }

static pg_err webp_missing(pg_error *e) {
    return pg_error_set(e, PG_E_UNSUPPORTED, "send PNG instead; this build has no WebP decoder",
                        "WebP support was not compiled into this build (libwebp missing)");
}

pg_err pg_img_decode_webp(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_WEBP, e);
    return rc ? rc : webp_missing(e);
}

pg_err pg_img_probe_webp(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e) {
    return webp_missing(e);
}

#endif
