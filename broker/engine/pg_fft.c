#include "pg_fft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* One radix-q butterfly column: inputs at x + t*step_in, outputs at
 * y + u*step_out, V contiguous lanes, twiddles wr/wi[u-1] for u >= 1. */
typedef struct {
    const float *xr, *xi;
    float *yr, *yi;
    size_t in_step, out_step, V;
    const float *wr, *wi;
} bfly;

static inline void twiddle_store(float *restrict yr, float *restrict yi, size_t v, float ar, float ai, float wr,
                                 float wi) {
    yr[v] = ar * wr - ai * wi;
    yi[v] = ar * wi + ai * wr;
}

static void radix2(const bfly *b) {
    const float *restrict x0r = b->xr, *restrict x0i = b->xi;
    const float *restrict x1r = b->xr + b->in_step, *restrict x1i = b->xi + b->in_step;
    float *restrict y0r = b->yr, *restrict y0i = b->yi;
    float *restrict y1r = b->yr + b->out_step, *restrict y1i = b->yi + b->out_step;
    const float w1r = b->wr[0], w1i = b->wi[0];
    for (size_t v = 0; v < b->V; v++) {
        y0r[v] = x0r[v] + x1r[v];
        y0i[v] = x0i[v] + x1i[v];
        twiddle_store(y1r, y1i, v, x0r[v] - x1r[v], x0i[v] - x1i[v], w1r, w1i);
    }
}

static void radix3(const bfly *b) {
    const float h = 0.86602540378443864676f; /* sin(2 pi / 3) */
    const size_t is = b->in_step, os = b->out_step;
    const float *restrict xr = b->xr, *restrict xi = b->xi;
    float *restrict yr = b->yr, *restrict yi = b->yi;
    const float w1r = b->wr[0], w1i = b->wi[0], w2r = b->wr[1], w2i = b->wi[1];
    for (size_t v = 0; v < b->V; v++) {
        float sr = xr[is + v] + xr[2 * is + v], si = xi[is + v] + xi[2 * is + v];
        float dr = xr[is + v] - xr[2 * is + v], di = xi[is + v] - xi[2 * is + v];
        float tr = xr[v] - 0.5f * sr, ti = xi[v] - 0.5f * si;
        yr[v] = xr[v] + sr;
        yi[v] = xi[v] + si;
        /* -i*h*d = h*di - i*h*dr */
        twiddle_store(yr + os, yi + os, v, tr + h * di, ti - h * dr, w1r, w1i);
        twiddle_store(yr + 2 * os, yi + 2 * os, v, tr - h * di, ti + h * dr, w2r, w2i);
    }
}

static void radix4(const bfly *b) {
    const size_t is = b->in_step, os = b->out_step;
    const float *restrict xr = b->xr, *restrict xi = b->xi;
    float *restrict yr = b->yr, *restrict yi = b->yi;
    const float w1r = b->wr[0], w1i = b->wi[0], w2r = b->wr[1], w2i = b->wi[1], w3r = b->wr[2], w3i = b->wi[2];
    for (size_t v = 0; v < b->V; v++) {
        float b0r = xr[v] + xr[2 * is + v], b0i = xi[v] + xi[2 * is + v];
        float b1r = xr[v] - xr[2 * is + v], b1i = xi[v] - xi[2 * is + v];
        float b2r = xr[is + v] + xr[3 * is + v], b2i = xi[is + v] + xi[3 * is + v];
        /* b3 = -i * (x1 - x3) */
        float b3r = xi[is + v] - xi[3 * is + v], b3i = xr[3 * is + v] - xr[is + v];
        yr[v] = b0r + b2r;
        yi[v] = b0i + b2i;
        twiddle_store(yr + os, yi + os, v, b1r + b3r, b1i + b3i, w1r, w1i);
        twiddle_store(yr + 2 * os, yi + 2 * os, v, b0r - b2r, b0i - b2i, w2r, w2i);
        twiddle_store(yr + 3 * os, yi + 3 * os, v, b1r - b3r, b1i - b3i, w3r, w3i);
    }
}

static void radix5(const bfly *b) {
    const float c1 = 0.30901699437494742410f, c2 = -0.80901699437494742410f; /* cos 2pi/5, cos 4pi/5 */
    const float s1 = 0.95105651629515357212f, s2 = 0.58778525229247312917f; /* sin 2pi/5, sin 4pi/5 */
    const size_t is = b->in_step, os = b->out_step;
    const float *restrict xr = b->xr, *restrict xi = b->xi;
    float *restrict yr = b->yr, *restrict yi = b->yi;
    const float *w_r = b->wr, *w_i = b->wi;
    const float w1r = w_r[0], w1i = w_i[0], w2r = w_r[1], w2i = w_i[1];
    const float w3r = w_r[2], w3i = w_i[2], w4r = w_r[3], w4i = w_i[3];
    for (size_t v = 0; v < b->V; v++) {
        float a0r = xr[v], a0i = xi[v];
        float s1r = xr[is + v] + xr[4 * is + v], s1i = xi[is + v] + xi[4 * is + v];
        float d1r = xr[is + v] - xr[4 * is + v], d1i = xi[is + v] - xi[4 * is + v];
        float s2r = xr[2 * is + v] + xr[3 * is + v], s2i = xi[2 * is + v] + xi[3 * is + v];
        float d2r = xr[2 * is + v] - xr[3 * is + v], d2i = xi[2 * is + v] - xi[3 * is + v];
        float t1r = a0r + c1 * s1r + c2 * s2r, t1i = a0i + c1 * s1i + c2 * s2i;
        float t2r = a0r + c2 * s1r + c1 * s2r, t2i = a0i + c2 * s1i + c1 * s2i;
        /* u1 = -i (s1 d1 + s2 d2), u2 = -i (s2 d1 - s1 d2); -i z = (z.im, -z.re) */
        float e1r = s1 * d1r + s2 * d2r, e1i = s1 * d1i + s2 * d2i;
        float e2r = s2 * d1r - s1 * d2r, e2i = s2 * d1i - s1 * d2i;
        yr[v] = a0r + s1r + s2r;
        yi[v] = a0i + s1i + s2i;
        twiddle_store(yr + os, yi + os, v, t1r + e1i, t1i - e1r, w1r, w1i);
        twiddle_store(yr + 4 * os, yi + 4 * os, v, t1r - e1i, t1i + e1r, w4r, w4i);
        twiddle_store(yr + 2 * os, yi + 2 * os, v, t2r + e2i, t2i - e2r, w2r, w2i);
        twiddle_store(yr + 3 * os, yi + 3 * os, v, t2r - e2i, t2i + e2r, w3r, w3i);
    }
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
