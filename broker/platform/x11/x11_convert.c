/* SPDX-License-Identifier: MIT */
/* x11_convert.c - server pixel formats to RGBA8.
 *
 * Contract: turns ZPixmap data of a TrueColor/DirectColor drawable into RGBA8
 * (alpha always 255: an ARGB window's alpha is not part of what the user
 * sees) using the VISUAL's channel masks - GetImage on a pixmap reports zero
 * masks, so they are never taken from the reply. Handles 8/16/24/32 bits per
 * pixel in either image byte order; the common case (32 bpp, x8r8g8b8, LSB
 * first) has a plain loop the compiler vectorizes. The SHA-256 of the
 * RGBA rows comes out with them (pg_capture.sha256): the token store would
 * otherwise read the whole frame again to hash it. A frame of 4 MB or more
 * (a screen) is converted on a second thread while this one hashes behind.
 * Never: allocates more than width*height*4 bytes, or reads past src.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"
#include "pg_framebuf.h"
#include "x11_private.h"

static xcb_visualtype_t *find_visual(pg_platform *p, xcb_visualid_t id) {
    xcb_screen_iterator_t s = xcb_setup_roots_iterator(xcb_get_setup(p->c));
    for (; s.rem; xcb_screen_next(&s)) {
        xcb_depth_iterator_t d = xcb_screen_allowed_depths_iterator(s.data);
        for (; d.rem; xcb_depth_next(&d)) {
            xcb_visualtype_iterator_t v = xcb_depth_visuals_iterator(d.data);
            for (; v.rem; xcb_visualtype_next(&v))
                if (v.data->visual_id == id) return v.data;
        }
    }
    return NULL;
}

pg_err x11_pixfmt_for(pg_platform *p, xcb_visualid_t visual, uint8_t depth, x11_pixfmt *f,
                      pg_error *e) {
    memset(f, 0, sizeof *f);
    const xcb_setup_t *setup = xcb_get_setup(p->c);
    xcb_visualtype_t *v = find_visual(p, visual);
    if (!v || (v->_class != XCB_VISUAL_CLASS_TRUE_COLOR && v->_class != XCB_VISUAL_CLASS_DIRECT_COLOR))
        return pg_error_set(e, PG_E_UNSUPPORTED, "run the X server in TrueColor (depth 24)",
                            "visual 0x%x is not TrueColor; palette visuals are not supported",
                            (unsigned)visual);
    f->red_mask = v->red_mask;
    f->green_mask = v->green_mask;
    f->blue_mask = v->blue_mask;
    f->msb_first = setup->image_byte_order == XCB_IMAGE_ORDER_MSB_FIRST;
    xcb_format_iterator_t it = xcb_setup_pixmap_formats_iterator(setup);
    for (; it.rem; xcb_format_next(&it))
        if (it.data->depth == depth) {
            f->bpp = it.data->bits_per_pixel;
            f->pad = it.data->scanline_pad;
        }
    if (f->bpp != 8 && f->bpp != 16 && f->bpp != 24 && f->bpp != 32)
        return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "no supported pixmap format for depth %u",
                            (unsigned)depth);
    return PG_OK;
}

size_t x11_src_stride(const x11_pixfmt *f, uint32_t w) {
    size_t bits = (size_t)w * f->bpp;
    size_t pad = f->pad ? f->pad : 8;
    return (bits + pad - 1) / pad * pad / 8;
}

typedef struct {
    uint32_t mask;
    unsigned shift, max;
} channel;

static channel channel_of(uint32_t mask) {
    channel c = {mask, 0, 0};
    if (!mask) return c;
    while (!((mask >> c.shift) & 1u)) c.shift++;
    c.max = mask >> c.shift;
    return c;
}

static uint8_t scale(const channel *c, uint32_t pix) {
    if (!c->max) return 0;
    uint32_t v = (pix & c->mask) >> c->shift;
    return c->max == 255 ? (uint8_t)v : (uint8_t)((v * 255u + c->max / 2) / c->max);
}

static uint32_t read_pixel(const uint8_t *s, unsigned bytes, bool msb) {
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++) v |= (uint32_t)s[msb ? bytes - 1 - i : i] << (8 * i);
    return v;
}

/* x8r8g8b8 little-endian: bytes are B, G, R, X. On a little-endian host a
 * 32-bit swizzle is ~4x faster than moving bytes (and vectorizes). */
static void row_bgrx(const uint8_t *restrict s, uint8_t *restrict d, uint32_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (uint32_t x = 0; x < w; x++) {
        uint32_t v;
        memcpy(&v, s + 4 * (size_t)x, 4);
        v = 0xff000000u | (v & 0xff00u) | ((v >> 16) & 0xffu) | ((v & 0xffu) << 16);
        memcpy(d + 4 * (size_t)x, &v, 4);
    }
#else
    for (uint32_t x = 0; x < w; x++) {
        d[4 * x + 0] = s[4 * x + 2];
        d[4 * x + 1] = s[4 * x + 1];
        d[4 * x + 2] = s[4 * x + 0];
        d[4 * x + 3] = 255;
    }
#endif
}

static void row_generic(const x11_pixfmt *f, const channel ch[3], const uint8_t *s, uint8_t *d,
                        uint32_t w) {
    unsigned bytes = f->bpp / 8u;
    for (uint32_t x = 0; x < w; x++) {
        uint32_t pix = read_pixel(s + (size_t)x * bytes, bytes, f->msb_first);
        d[4 * x + 0] = scale(&ch[0], pix);
        d[4 * x + 1] = scale(&ch[1], pix);
        d[4 * x + 2] = scale(&ch[2], pix);
        d[4 * x + 3] = 255;
    }
}

/* One conversion of h rows, and how far it has got: a converter thread
 * publishes each finished band under lock, so the thread that hashes behind
 * it reads only rows that are done. */
typedef struct {
    const x11_pixfmt *f;
    const channel *ch;
    bool fast;
    const uint8_t *src;
    size_t src_stride;
    uint8_t *dst;
    size_t stride;
    uint32_t w, h;
    pthread_mutex_t lock;
    pthread_cond_t more;
    uint32_t done; /* rows [0, done) are converted */
} band;

static void convert_rows(const band *b, uint32_t y0, uint32_t y1) {
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *s = b->src + (size_t)y * b->src_stride;
        uint8_t *d = b->dst + (size_t)y * b->stride;
        if (b->fast) row_bgrx(s, d, b->w);
        else row_generic(b->f, b->ch, s, d, b->w);
    }
}

/* Rows per band: small enough that the hash starts soon and a band is still
 * in cache when it is hashed, large enough that publishing costs nothing. */
#define X11_BAND_ROWS 32u

/* The end of the band that starts at row y (the last one may be short). */
static uint32_t band_end(const band *b, uint32_t y) { return b->h - y < X11_BAND_ROWS ? b->h : y + X11_BAND_ROWS; }

static void *convert_publishing(void *arg) {
    band *b = arg;
    for (uint32_t y = 0; y < b->h; y += X11_BAND_ROWS) {
        uint32_t end = band_end(b, y);
        convert_rows(b, y, end);
        pthread_mutex_lock(&b->lock);
        b->done = end;
        pthread_cond_signal(&b->more);
        pthread_mutex_unlock(&b->lock);
    }
    return NULL;
}

static void wait_converted(band *b, uint32_t rows) {
    pthread_mutex_lock(&b->lock);
    while (b->done < rows) pthread_cond_wait(&b->more, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

/* A frame this large (a 1080p screen: 8 MB, ~5 ms of SHA-256, ~3 ms to
 * convert on one core) is converted on a second thread while this one hashes
 * the rows already done, so the conversion hides under the hash; a window's
 * few hundred KB is converted and hashed band by band on this thread, each
 * band hashed while it is still in cache. */
#define X11_CONVERT_SPLIT_BYTES ((size_t)4 << 20)

/* Hashes rows [0, h) of b->dst as the conversion (here, or on a thread
 * when threaded) finishes them; false when the hash failed (the store then
 * hashes on its own). The conversion always completes. */
static bool convert_and_hash(band *b, bool threaded, uint8_t digest[PG_SHA256_LEN]) {
    pg_sha256_ctx *ctx = NULL;
    pg_error ignored;
    bool hashing = pg_sha256_new(&ctx, &ignored) == PG_OK;
    size_t row = (size_t)b->w * 4;
    for (uint32_t y = 0; y < b->h; y += X11_BAND_ROWS) {
        uint32_t end = band_end(b, y);
        if (threaded) wait_converted(b, end);
        else convert_rows(b, y, end);
        hashing = hashing && pg_sha256_update(ctx, b->dst + (size_t)y * b->stride, row * (end - y), &ignored) == PG_OK;
    }
    if (hashing) return pg_sha256_final(ctx, digest, &ignored) == PG_OK;
    pg_sha256_free(ctx);
    return false;
}

pg_err x11_to_rgba(const x11_pixfmt *f, const uint8_t *src, size_t src_stride, uint32_t w,
                   uint32_t h, pg_capture *out, pg_error *e) {
    size_t stride = (size_t)w * 4;
    uint8_t *dst = (w && h) ? pg_framebuf_alloc(stride * h) : NULL; /* pages already in (pg_framebuf.h) */
    if (!dst) return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot allocate %ux%u capture", w, h);
    bool fast = f->bpp == 32 && !f->msb_first && f->red_mask == 0xff0000u &&
                f->green_mask == 0xff00u && f->blue_mask == 0xffu;
    channel ch[3] = {channel_of(f->red_mask), channel_of(f->green_mask), channel_of(f->blue_mask)};
    band b = {f, ch, fast, src, src_stride, dst, stride, w, h, .done = 0};
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.more, NULL);
    pthread_t t;
    bool threaded = stride * h >= X11_CONVERT_SPLIT_BYTES &&
                    pthread_create(&t, NULL, convert_publishing, &b) == 0; /* no thread: all of it here */
    out->has_sha256 = convert_and_hash(&b, threaded, out->sha256);
    if (threaded) pthread_join(t, NULL);
    pthread_cond_destroy(&b.more);
    pthread_mutex_destroy(&b.lock);
    out->rgba = dst;
    out->width = w;
    out->height = h;
    out->stride = stride;
    return PG_OK;
}
