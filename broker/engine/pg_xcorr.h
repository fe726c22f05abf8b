/* pg_xcorr.h - engine-internal: valid-mode cross-correlation of an 8-bit
 * grey image with a zero-mean float template, for the template matcher.
 *
 * num[y*ow + x] ~= sum over the template of t[j][i] * g[y+j][x+i], for
 * ow = W-w+1, oh = H-h+1. The FFT path (single-precision, sizes padded to
 * 2,3,5-smooth lengths, 2-D real transform by columns then rows) also returns
 * a bound on the absolute error of every entry; the direct path is exact up to
 * float storage. Callers verify any decision that the error could flip.
 * Never: visible outside broker/engine; keeps state.
 */
#ifndef PG_XCORR_H
#define PG_XCORR_H

#include <stdint.h>

#include "pg_error.h"

typedef struct {
    const uint8_t *g; /* grey image, W*H, row-major, tight */
    uint32_t W, H;
    const float *t; /* template minus its mean, w*h, tight */
    uint32_t w, h;
} pg_xcorr_in;

/* num: (W-w+1)*(H-h+1) floats. *err_bound: max |num - exact| guaranteed
 * (with a safety factor) for every entry. */
pg_err pg_xcorr_fft(const pg_xcorr_in *in, float *num, double *err_bound, pg_error *e);
pg_err pg_xcorr_direct(const pg_xcorr_in *in, float *num, double *err_bound, pg_error *e);

/* Multiply-adds the direct path would need (to choose between the two). */
double pg_xcorr_direct_cost(const pg_xcorr_in *in);
double pg_xcorr_fft_cost(const pg_xcorr_in *in);

#endif
