/* x11_convert.c - server pixel formats to RGBA8.
 *
 * Contract: turns ZPixmap data of a TrueColor/DirectColor drawable into RGBA8
 * (alpha always 255: an ARGB window's alpha is not part of what the user
 * sees) using the VISUAL's channel masks - GetImage on a pixmap reports zero
 * masks, so they are never taken from the reply. Handles 8/16/24/32 bits per
 * pixel in either image byte order; the common case (32 bpp, x8r8g8b8, LSB
 * first) has a plain loop the compiler vectorizes. A frame of 4 MB or more
 * (a screen) is converted in two halves on two threads.
 * Never: allocates more than width*height*4 bytes, or reads past src.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* Rows [y0, y1) of one conversion. */
typedef struct {
    const x11_pixfmt *f;
    const channel *ch;
    bool fast;
    const uint8_t *src;
    size_t src_stride;
    uint8_t *dst;
    size_t stride;
    uint32_t w, y0, y1;
} band;

static void *convert_band(void *arg) {
    const band *b = arg;
    for (uint32_t y = b->y0; y < b->y1; y++) {
        const uint8_t *s = b->src + (size_t)y * b->src_stride;
        uint8_t *d = b->dst + (size_t)y * b->stride;
        if (b->fast) row_bgrx(s, d, b->w);
        else row_generic(b->f, b->ch, s, d, b->w);
    }
    return NULL;
}

/* A frame this large (a 1080p screen: 8 MB, ~3 ms) is converted in two
 * halves on two cores; a window's few hundred KB is not worth a thread. */
#define X11_CONVERT_SPLIT_BYTES ((size_t)4 << 20)

pg_err x11_to_rgba(const x11_pixfmt *f, const uint8_t *src, size_t src_stride, uint32_t w,
                   uint32_t h, pg_capture *out, pg_error *e) {
    size_t stride = (size_t)w * 4;
    uint8_t *dst = (w && h) ? pg_framebuf_alloc(stride * h) : NULL; /* pages already in (pg_framebuf.h) */
    if (!dst) return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot allocate %ux%u capture", w, h);
    bool fast = f->bpp == 32 && !f->msb_first && f->red_mask == 0xff0000u &&
                f->green_mask == 0xff00u && f->blue_mask == 0xffu;
    channel ch[3] = {channel_of(f->red_mask), channel_of(f->green_mask), channel_of(f->blue_mask)};
    band top = {f, ch, fast, src, src_stride, dst, stride, w, 0, h};
    band bottom = top;
    pthread_t t;
    bool split = stride * h >= X11_CONVERT_SPLIT_BYTES && h >= 2;
    if (split) {
        top.y1 = bottom.y0 = h / 2;
        split = pthread_create(&t, NULL, convert_band, &bottom) == 0;
        if (!split) top.y1 = h; /* no thread: all of it here */
    }
    convert_band(&top);
    if (split) pthread_join(t, NULL);
    out->rgba = dst;
    out->width = w;
    out->height = h;
    out->stride = stride;
    return PG_OK;
}
