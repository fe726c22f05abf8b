/* SPDX-License-Identifier: MIT */
/* pg_img_png_fast.c - the PNG decoder's fast path: the files screenshot tools
 * and pixelgate itself write (8-bit RGB or RGBA, not interlaced, no tRNS),
 * with the IDAT stream inflated by libdeflate in one call and the rows
 * unfiltered straight into the image. Everything else, and any file this
 * path finds anything wrong with, goes to libpng (pg_img_png.c), so the
 * pixels and the errors a caller sees are libpng's: unit.test_engine_img
 * and fuzz_png hold the two paths to the same pixels.
 *
 * Why: perf over bench/h2h's 1080p diff put zlib's inflate at 37 % of the
 * broker's time and libpng's row filters at 10 %; libdeflate inflates a
 * whole buffer at once two to three times faster than zlib's streaming
 * inflate (docs/performance.md).
 */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "pg_img_codec_private.h"

#define PNG_SIG_LEN 8

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct {
    uint32_t w, h;
    unsigned bpp; /* bytes per pixel: 3 (RGB) or 4 (RGBA) */
    uint8_t *zdata; /* the IDAT chunks' data, concatenated (or pointing into the file) */
    size_t zlen;
    bool zowned;
} png_plan;

/* Is the chunk's CRC right? (Fuzz builds let mutated data through, as libpng's do.) */
static bool crc_ok(const uint8_t *chunk, uint32_t len) {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    (void)chunk, (void)len;
    return true;
#else
    return libdeflate_crc32(0, chunk + 4, (size_t)len + 4) == be32(chunk + 8 + len);
#endif
}

/* A chunk type is four ASCII letters (PNG 5.4); libpng refuses any other
 * byte, even in an ancillary chunk it would skip, so this path must too. */
static bool type_ok(const uint8_t *t) {
    for (int i = 0; i < 4; i++)
        if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z'))) return false;
    return true;
}

/* IHDR: 8-bit RGB or RGBA, deflate, standard filters, not interlaced. */
static bool header_ok(const uint8_t *d, uint32_t len, png_plan *p) {
    if (len != 13) return false;
    p->w = be32(d), p->h = be32(d + 4);
    if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[10] != 0 || d[11] != 0 || d[12] != 0) return false;
    p->bpp = d[9] == 6 ? 4 : 3;
    return p->w > 0 && p->h > 0 && p->w <= PG_IMG_MAX_SIDE && p->h <= PG_IMG_MAX_SIDE; /* libpng's user limits */
}

/* Walks the chunks once: IHDR first, IDATs consecutive, IEND last, nothing
 * else critical (not even a suggested PLTE); any tRNS, bad CRC, short chunk
 * or chunk type that is not four letters: not this path's file. */
static bool plan(const uint8_t *buf, size_t n, png_plan *p) {
    static const uint8_t sig[PNG_SIG_LEN] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < PNG_SIG_LEN || memcmp(buf, sig, PNG_SIG_LEN) != 0) return false;
    size_t at = PNG_SIG_LEN, idat_first = 0, idat_count = 0, idat_bytes = 0;
    bool seen_ihdr = false, idat_done = false;
    for (;;) {
        if (n - at < 12) return false;
        uint32_t len = be32(buf + at);
        const uint8_t *type = buf + at + 4;
        if (len > n - at - 12 || !type_ok(type) || !crc_ok(buf + at, len)) return false;
        bool is_idat = !memcmp(type, "IDAT", 4);
        if (!seen_ihdr) {
            if (memcmp(type, "IHDR", 4) != 0 || !header_ok(buf + at + 8, len, p)) return false;
            seen_ihdr = true;
        } else if (is_idat) {
            if (idat_done) return false; /* IDATs must be consecutive */
            if (!idat_count) idat_first = at;
            idat_count++, idat_bytes += len;
        } else {
            if (idat_count) idat_done = true;
            if (!memcmp(type, "IEND", 4)) break;
            /* tRNS changes the pixels; a critical chunk (a PLTE, a second IHDR) has rules libpng
             * enforces: both are libpng's to read */
            if (!memcmp(type, "tRNS", 4) || !(type[0] & 0x20)) return false;
        }
        at += 12 + (size_t)len;
    }
    if (!idat_count) return false;
    if (idat_count == 1) { /* one IDAT: inflate it where it is */
        p->zdata = (uint8_t *)(uintptr_t)(buf + idat_first + 8);
        p->zlen = idat_bytes;
        return true;
    }
    if (!(p->zdata = malloc(idat_bytes))) return false;
    p->zowned = true;
    p->zlen = 0;
    for (size_t k = 0, a = idat_first; k < idat_count; k++) {
        uint32_t len = be32(buf + a);
        memcpy(p->zdata + p->zlen, buf + a + 8, len);
        p->zlen += len;
        a += 12 + (size_t)len;
    }
    return true;
}

/* The Paeth predictor, branch-free: pa = |b-c|, pb = |a-c|, pc = |a+b-2c|. */
static inline uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Undoes one row's filter in place; prev is the row above, unfiltered (NULL:
 * the first row, whose "above" is zeros). BPP is a constant at each call, so
 * the compiler unrolls the per-channel work. */
static inline bool unfilter_bpp(uint8_t type, uint8_t *restrict row, const uint8_t *restrict prev, size_t len,
                                const unsigned BPP) {
    switch (type) {
    case 0: return true;
    case 1:
        for (size_t i = BPP; i < len; i++) row[i] = (uint8_t)(row[i] + row[i - BPP]);
        return true;
    case 2:
        if (prev)
            for (size_t i = 0; i < len; i++) row[i] = (uint8_t)(row[i] + prev[i]);
        return true;
    case 3:
        if (!prev) {
            for (size_t i = BPP; i < len; i++) row[i] = (uint8_t)(row[i] + (row[i - BPP] >> 1));
            return true;
        }
        for (size_t i = 0; i < BPP; i++) row[i] = (uint8_t)(row[i] + (prev[i] >> 1));
        for (size_t i = BPP; i < len; i++) row[i] = (uint8_t)(row[i] + ((row[i - BPP] + prev[i]) >> 1));
        return true;
    case 4:
        if (!prev) { /* up and upper-left are 0: Paeth is the left byte */
            for (size_t i = BPP; i < len; i++) row[i] = (uint8_t)(row[i] + row[i - BPP]);
            return true;
        }
        for (size_t i = 0; i < BPP; i++) row[i] = (uint8_t)(row[i] + prev[i]);
        for (size_t i = BPP; i < len; i += BPP)
            for (unsigned k = 0; k < BPP; k++)
                row[i + k] = (uint8_t)(row[i + k] + paeth(row[i + k - BPP], prev[i + k], prev[i + k - BPP]));
        return true;
    default: return false;
    }
}

/* The inflated rows become the image in the same buffer: each row is
 * unfiltered where it lies (its filter byte first), against the row above
 * already in its final place, then moved down over the filter bytes to
 * stride 4*w (always to a lower address: nothing not yet read is
 * overwritten). RGB rows are widened to RGBA afterwards, bottom up. */
static bool rows_in_place(uint8_t *buf, const png_plan *p) {
    size_t len = (size_t)p->w * p->bpp, stride = (size_t)p->w * p->bpp;
    const uint8_t *prev = NULL;
    for (uint32_t y = 0; y < p->h; y++) {
        uint8_t *row = buf + (size_t)y * (len + 1);
        bool ok = p->bpp == 4 ? unfilter_bpp(row[0], row + 1, prev, len, 4) : unfilter_bpp(row[0], row + 1, prev, len, 3);
        if (!ok) return false;
        uint8_t *dst = buf + (size_t)y * stride;
        memmove(dst, row + 1, len);
        prev = dst;
    }
    if (p->bpp == 4) return true;
    for (uint32_t y = p->h; y-- > 0;) { /* RGB -> RGBA from the last byte back: every write lands at or past its read */
        const uint8_t *src = buf + (size_t)y * len;
        uint8_t *dst = buf + (size_t)y * p->w * 4;
        for (uint32_t x = p->w; x-- > 0;) {
            uint8_t r = src[3 * x], g = src[3 * x + 1], b = src[3 * x + 2];
            dst[4 * x] = r, dst[4 * x + 1] = g, dst[4 * x + 2] = b, dst[4 * x + 3] = 0xff;
        }
    }
    return true;
}

/* PG_OK with *out; any other answer means "let libpng decide" (never an error to report). */
pg_err pg_img_png_fast(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out) {
    png_plan p = {0};
    pg_error e;
    *out = NULL;
    if (!plan(buf, n, &p)) return PG_E_UNSUPPORTED;
    size_t raw_len = (size_t)p.h * ((size_t)p.w * p.bpp + 1), img_len = (size_t)p.h * p.w * 4;
    uint8_t *px = pg_img_limits_check(lim, p.w, p.h, &e) ? NULL : malloc(raw_len > img_len ? raw_len : img_len);
    struct libdeflate_decompressor *d = px ? libdeflate_alloc_decompressor() : NULL;
    size_t in_used = 0, got = 0;
    pg_img *img = NULL;
    bool ok = d && libdeflate_zlib_decompress_ex(d, p.zdata, p.zlen, px, raw_len, &in_used, &got) == LIBDEFLATE_SUCCESS &&
              got == raw_len && rows_in_place(px, &p) && pg_img_wrap(&img, px, p.w, p.h, (size_t)p.w * 4, &e) == PG_OK;
    if (!ok) free(px); /* pg_img_wrap owns it once it succeeded */
    if (d) libdeflate_free_decompressor(d);
    if (p.zowned) free(p.zdata);
    *out = ok ? img : NULL;
    return ok ? PG_OK : PG_E_UNSUPPORTED;
}
