/* SPDX-License-Identifier: MIT */
#include "pg_fft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pg_simd.h"

#define PG_PI 3.14159265358979323846

static int smooth(uint32_t n) {
    while (n % 2 == 0) n /= 2;
    while (n % 3 == 0) n /= 3;
    while (n % 5 == 0) n /= 5;
    return n == 1;
}

uint32_t pg_fft_good_size(uint32_t n, int even_only) {
    uint32_t m = n < 2 ? 2 : n;
    while (!smooth(m) || (even_only && m % 2)) m++;
    return m;
}

pg_err pg_fft_plan_init(pg_fft_plan *p, uint32_t n, pg_error *e) {
    memset(p, 0, sizeof *p);
    if (n == 0 || !smooth(n)) return pg_error_set(e, PG_E_USAGE, NULL, "FFT length %u is not 2,3,5-smooth", n);
    p->n = n;
    uint32_t r = n;
    size_t tw = 0, len = n;
    while (r > 1) { /* radix 4 first: fewest operations per point */
        uint8_t q = r % 4 == 0 ? 4 : r % 2 == 0 ? 2 : r % 3 == 0 ? 3 : 5;
        p->tw_off[p->stages] = tw;
        p->radix[p->stages++] = q;
        tw += (size_t)(q - 1) * (len / q);
        len /= q;
        r /= q;
    }
    p->tw_re = malloc(sizeof(float) * (tw ? tw : 1));
    p->tw_im = malloc(sizeof(float) * (tw ? tw : 1));
    if (!p->tw_re || !p->tw_im) {
        pg_fft_plan_fini(p);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for FFT twiddles");
    }
    len = n;
    for (int s = 0; s < p->stages; s++) { /* twiddles in double, stored as float */
        size_t q = p->radix[s], m = len / q;
        for (size_t j = 0; j < m; j++)
            for (size_t u = 1; u < q; u++) {
                double a = -2.0 * PG_PI * (double)(j * u) / (double)len;
                p->tw_re[p->tw_off[s] + j * (q - 1) + u - 1] = (float)cos(a);
                p->tw_im[p->tw_off[s] + j * (q - 1) + u - 1] = (float)sin(a);
            }
        len = m;
    }
    return PG_OK;
}

void pg_fft_plan_fini(pg_fft_plan *p) {
    free(p->tw_re);
    free(p->tw_im);
    p->tw_re = p->tw_im = NULL;
}

/* One radix-q butterfly column: inputs at x + t*in_step, outputs at
 * y + u*out_step, V contiguous lanes, twiddles wr/wi[u-1] for u >= 1. Every
 * stream reaches its kernel as its own restrict parameter: with a shared base
 * pointer the compiler cannot prove the streams apart and will not vectorise. */
typedef struct {
    const float *xr, *xi;
    float *yr, *yi;
    size_t in_step, out_step, V;
    const float *wr, *wi;
} bfly;

#define CMUL_RE(ar, ai, wr, wi) ((ar) * (wr) - (ai) * (wi))
#define CMUL_IM(ar, ai, wr, wi) ((ar) * (wi) + (ai) * (wr))

PG_CLONES static void k2(size_t V, const float *restrict x0r, const float *restrict x0i, const float *restrict x1r,
               const float *restrict x1i, float *restrict y0r, float *restrict y0i, float *restrict y1r,
               float *restrict y1i, float w1r, float w1i) {
    for (size_t v = 0; v < V; v++) {
        float dr = x0r[v] - x1r[v], di = x0i[v] - x1i[v];
        y0r[v] = x0r[v] + x1r[v];
        y0i[v] = x0i[v] + x1i[v];
        y1r[v] = CMUL_RE(dr, di, w1r, w1i);
        y1i[v] = CMUL_IM(dr, di, w1r, w1i);
    }
}

static void radix2(const bfly *b) {
    size_t is = b->in_step, os = b->out_step;
    k2(b->V, b->xr, b->xi, b->xr + is, b->xi + is, b->yr, b->yi, b->yr + os, b->yi + os, b->wr[0], b->wi[0]);
}

PG_CLONES static void k3(size_t V, const float *restrict x0r, const float *restrict x0i, const float *restrict x1r,
               const float *restrict x1i, const float *restrict x2r, const float *restrict x2i, float *restrict y0r,
               float *restrict y0i, float *restrict y1r, float *restrict y1i, float *restrict y2r,
               float *restrict y2i, const float *w) {
    const float h = 0.86602540378443864676f; /* sin(2 pi / 3) */
    const float w1r = w[0], w1i = w[1], w2r = w[2], w2i = w[3];
    for (size_t v = 0; v < V; v++) {
        float sr = x1r[v] + x2r[v], si = x1i[v] + x2i[v];
        float dr = x1r[v] - x2r[v], di = x1i[v] - x2i[v];
        float tr = x0r[v] - 0.5f * sr, ti = x0i[v] - 0.5f * si;
        float ar = tr + h * di, ai = ti - h * dr; /* t - i*h*d */
        float br = tr - h * di, bi = ti + h * dr; /* t + i*h*d */
        y0r[v] = x0r[v] + sr;
        y0i[v] = x0i[v] + si;
        y1r[v] = CMUL_RE(ar, ai, w1r, w1i);
        y1i[v] = CMUL_IM(ar, ai, w1r, w1i);
        y2r[v] = CMUL_RE(br, bi, w2r, w2i);
        y2i[v] = CMUL_IM(br, bi, w2r, w2i);
    }
}

static void radix3(const bfly *b) {
    size_t is = b->in_step, os = b->out_step;
    const float w[4] = {b->wr[0], b->wi[0], b->wr[1], b->wi[1]};
    k3(b->V, b->xr, b->xi, b->xr + is, b->xi + is, b->xr + 2 * is, b->xi + 2 * is, b->yr, b->yi, b->yr + os,
       b->yi + os, b->yr + 2 * os, b->yi + 2 * os, w);
}

PG_CLONES static void k4(size_t V, const float *restrict x0r, const float *restrict x0i, const float *restrict x1r,
               const float *restrict x1i, const float *restrict x2r, const float *restrict x2i,
               const float *restrict x3r, const float *restrict x3i, float *restrict y0r, float *restrict y0i,
               float *restrict y1r, float *restrict y1i, float *restrict y2r, float *restrict y2i,
               float *restrict y3r, float *restrict y3i, const float *w) {
    const float w1r = w[0], w1i = w[1], w2r = w[2], w2i = w[3], w3r = w[4], w3i = w[5];
    for (size_t v = 0; v < V; v++) {
        float b0r = x0r[v] + x2r[v], b0i = x0i[v] + x2i[v];
        float b1r = x0r[v] - x2r[v], b1i = x0i[v] - x2i[v];
        float b2r = x1r[v] + x3r[v], b2i = x1i[v] + x3i[v];
        float b3r = x1i[v] - x3i[v], b3i = x3r[v] - x1r[v]; /* -i (x1 - x3) */
        float c1r = b1r + b3r, c1i = b1i + b3i, c2r = b0r - b2r, c2i = b0i - b2i;
        float c3r = b1r - b3r, c3i = b1i - b3i;
        y0r[v] = b0r + b2r;
        y0i[v] = b0i + b2i;
        y1r[v] = CMUL_RE(c1r, c1i, w1r, w1i);
        y1i[v] = CMUL_IM(c1r, c1i, w1r, w1i);
        y2r[v] = CMUL_RE(c2r, c2i, w2r, w2i);
        y2i[v] = CMUL_IM(c2r, c2i, w2r, w2i);
        y3r[v] = CMUL_RE(c3r, c3i, w3r, w3i);
        y3i[v] = CMUL_IM(c3r, c3i, w3r, w3i);
    }
}

static void radix4(const bfly *b) {
    size_t is = b->in_step, os = b->out_step;
    const float w[6] = {b->wr[0], b->wi[0], b->wr[1], b->wi[1], b->wr[2], b->wi[2]};
    k4(b->V, b->xr, b->xi, b->xr + is, b->xi + is, b->xr + 2 * is, b->xi + 2 * is, b->xr + 3 * is, b->xi + 3 * is,
       b->yr, b->yi, b->yr + os, b->yi + os, b->yr + 2 * os, b->yi + 2 * os, b->yr + 3 * os, b->yi + 3 * os, w);
}

PG_CLONES static void k5(size_t V, const float *restrict x0r, const float *restrict x0i, const float *restrict x1r,
               const float *restrict x1i, const float *restrict x2r, const float *restrict x2i,
               const float *restrict x3r, const float *restrict x3i, const float *restrict x4r,
               const float *restrict x4i, float *restrict y0r, float *restrict y0i, float *restrict y1r,
               float *restrict y1i, float *restrict y2r, float *restrict y2i, float *restrict y3r,
               float *restrict y3i, float *restrict y4r, float *restrict y4i, const float *w) {
    const float c1 = 0.30901699437494742410f, c2 = -0.80901699437494742410f; /* cos 2pi/5, cos 4pi/5 */
    const float s1 = 0.95105651629515357212f, s2 = 0.58778525229247312917f; /* sin 2pi/5, sin 4pi/5 */
    const float w1r = w[0], w1i = w[1], w2r = w[2], w2i = w[3], w3r = w[4], w3i = w[5], w4r = w[6], w4i = w[7];
    for (size_t v = 0; v < V; v++) {
        float a0r = x0r[v], a0i = x0i[v];
        float s1r = x1r[v] + x4r[v], s1i = x1i[v] + x4i[v];
        float d1r = x1r[v] - x4r[v], d1i = x1i[v] - x4i[v];
        float s2r = x2r[v] + x3r[v], s2i = x2i[v] + x3i[v];
        float d2r = x2r[v] - x3r[v], d2i = x2i[v] - x3i[v];
        float t1r = a0r + c1 * s1r + c2 * s2r, t1i = a0i + c1 * s1i + c2 * s2i;
        float t2r = a0r + c2 * s1r + c1 * s2r, t2i = a0i + c2 * s1i + c1 * s2i;
        /* u1 = -i (s1 d1 + s2 d2), u2 = -i (s2 d1 - s1 d2); -i z = (z.im, -z.re) */
        float e1r = s1 * d1r + s2 * d2r, e1i = s1 * d1i + s2 * d2i;
        float e2r = s2 * d1r - s1 * d2r, e2i = s2 * d1i - s1 * d2i;
        float o1r = t1r + e1i, o1i = t1i - e1r, o4r = t1r - e1i, o4i = t1i + e1r;
        float o2r = t2r + e2i, o2i = t2i - e2r, o3r = t2r - e2i, o3i = t2i + e2r;
        y0r[v] = a0r + s1r + s2r;
        y0i[v] = a0i + s1i + s2i;
        y1r[v] = CMUL_RE(o1r, o1i, w1r, w1i);
        y1i[v] = CMUL_IM(o1r, o1i, w1r, w1i);
        y2r[v] = CMUL_RE(o2r, o2i, w2r, w2i);
        y2i[v] = CMUL_IM(o2r, o2i, w2r, w2i);
        y3r[v] = CMUL_RE(o3r, o3i, w3r, w3i);
        y3i[v] = CMUL_IM(o3r, o3i, w3r, w3i);
        y4r[v] = CMUL_RE(o4r, o4i, w4r, w4i);
        y4i[v] = CMUL_IM(o4r, o4i, w4r, w4i);
    }
}

static void radix5(const bfly *b) {
    size_t is = b->in_step, os = b->out_step;
    const float w[8] = {b->wr[0], b->wi[0], b->wr[1], b->wi[1], b->wr[2], b->wi[2], b->wr[3], b->wi[3]};
    k5(b->V, b->xr, b->xi, b->xr + is, b->xi + is, b->xr + 2 * is, b->xi + 2 * is, b->xr + 3 * is, b->xi + 3 * is,
       b->xr + 4 * is, b->xi + 4 * is, b->yr, b->yi, b->yr + os, b->yi + os, b->yr + 2 * os, b->yi + 2 * os,
       b->yr + 3 * os, b->yi + 3 * os, b->yr + 4 * os, b->yi + 4 * os, w);
}

void pg_fft_vec(const pg_fft_plan *p, float *re, float *im, float *sr, float *si, size_t L) {
    float *xr = re, *xi = im, *yr = sr, *yi = si;
    size_t len = p->n, s = 1;
    for (int st = 0; st < p->stages; st++) {
        size_t q = p->radix[st], m = len / q;
        for (size_t j = 0; j < m; j++) {
            size_t tw = p->tw_off[st] + j * (q - 1);
            bfly b = {xr + s * j * L, xi + s * j * L, yr + s * q * j * L, yi + s * q * j * L,
                      s * m * L, s * L, s * L, p->tw_re + tw, p->tw_im + tw};
            switch (q) {
            case 2: radix2(&b); break;
            case 3: radix3(&b); break;
            case 4: radix4(&b); break;
            default: radix5(&b); break;
            }
        }
        float *t = xr;
        xr = yr;
        yr = t;
        t = xi;
        xi = yi;
        yi = t;
        len = m;
        s *= q;
    }
    if (xr != re) { /* odd number of stages: result is in the scratch */
        memcpy(re, xr, sizeof(float) * p->n * L);
        memcpy(im, xi, sizeof(float) * p->n * L);
    }
}
