/* SPDX-License-Identifier: MIT */
/* x11_to_rgba without a server: every pixel of a frame large enough to be
 * converted on a second thread while this one hashes (and of a small one,
 * converted and hashed band by band here) comes out as the visual's masks
 * say, and the digest that comes with it is the SHA-256 of exactly those
 * rows, a last band shorter than the others included. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"
#include "pg_test.h"
#include "x11_private.h"

/* x8r8g8b8 LSB first, the pattern a function of (x, y) */
static uint32_t pattern(uint32_t x, uint32_t y) { return ((x * 7u) & 0xff) << 16 | ((y * 13u) & 0xff) << 8 | ((x ^ y) & 0xff); }

static bool converts(uint32_t w, uint32_t h, const x11_pixfmt *f, bool bgr) {
    size_t ss = x11_src_stride(f, w);
    uint8_t *src = malloc(ss * h);
    if (!src) return false;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v = pattern(x, y);
            memcpy(src + (size_t)y * ss + (size_t)x * 4, &v, 4);
        }
    pg_capture cap = {0};
    pg_error e;
    bool ok = x11_to_rgba(f, src, ss, w, h, &cap, &e) == PG_OK && cap.width == w && cap.height == h;
    for (uint32_t y = 0; ok && y < h; y++)
        for (uint32_t x = 0; ok && x < w; x++) {
            const uint8_t *p = cap.rgba + (size_t)y * cap.stride + (size_t)x * 4;
            uint32_t v = pattern(x, y);
            uint8_t r = bgr ? (v & 0xff) : (v >> 16 & 0xff), b = bgr ? (v >> 16 & 0xff) : (v & 0xff);
            ok = p[0] == r && p[1] == (v >> 8 & 0xff) && p[2] == b && p[3] == 255;
            if (!ok) fprintf(stderr, "pixel %u,%u of %ux%u: %02x%02x%02x%02x\n", x, y, w, h, p[0], p[1], p[2], p[3]);
        }
    uint8_t want[PG_SHA256_LEN];
    if (ok && pg_sha256(cap.rgba, (size_t)w * 4 * h, want, &e) == PG_OK) {
        ok = cap.has_sha256 && memcmp(cap.sha256, want, sizeof want) == 0;
        if (!ok) fprintf(stderr, "the digest of %ux%u is not the SHA-256 of its rows\n", w, h);
    }
    free(cap.rgba);
    free(src);
    return ok;
}

PG_TEST(frames_convert_pixel_for_pixel_with_the_digest_of_their_rows) {
    x11_pixfmt fast = {.bpp = 32, .pad = 32, .red_mask = 0xff0000u, .green_mask = 0xff00u, .blue_mask = 0xffu};
    CHECK(converts(1920, 1080, &fast, false)); /* 8 MB: converted on a thread, hashed behind it */
    CHECK(converts(1921, 1081, &fast, false)); /* 1081 rows: the last band is 25 rows */
    CHECK(converts(400, 220, &fast, false));   /* one thread */
    x11_pixfmt bgr = fast;                     /* x8b8g8r8: the generic loop, threaded too */
    bgr.red_mask = 0xffu, bgr.blue_mask = 0xff0000u;
    CHECK(converts(1280, 1024, &bgr, true));
}
