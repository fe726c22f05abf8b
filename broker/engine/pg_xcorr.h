/* SPDX-License-Identifier: MIT */
/* pg_xcorr.h - engine-internal: valid-mode cross-correlation of an 8-bit
 * grey image with a zero-mean float template, for the template matcher.
 *
 * c(x, y) ~= sum over the template of t[j][i] * g[y+j][x+i], for x < ow =
 * W-w+1, y < oh = H-h+1, handed to a sink strip by strip (no full-size map
 * is ever allocated: the matcher consumes each strip as it is made). The FFT
 * path (single precision, sizes padded to 2,3,5-smooth lengths, 2-D real
 * transform by columns then rows) comes with a guaranteed bound on the
 * absolute error of every value; the direct path is exact up to float
 * storage. Callers verify any decision that the error could flip.
 * Never: visible outside broker/engine; keeps state.
 */
#ifndef PG_XCORR_H
#define PG_XCORR_H

#include <stdint.h>

#include "pg_error.h"
#include "pg_ws.h"

typedef struct {
    const uint8_t *g; /* grey image, W*H, row-major, tight */
    uint32_t W, H;
    const float *t; /* template minus its mean, w*h, tight */
    uint32_t w, h;
} pg_xcorr_in;

/* Receives columns x0 .. x0+nv-1 of every row: c(x0+v, y) = vals[y*stride + v].
 * err_bound >= |value - exact| for every value (a safety factor included). */
typedef void (*pg_xcorr_sink)(void *user, uint32_t x0, uint32_t nv, const float *vals, size_t stride,
                              double err_bound);

/* ws: scratch buffers, slots PG_XCORR_WS_FIRST and up (kept by the caller). */
#define PG_XCORR_WS_FIRST 8
pg_err pg_xcorr_fft(const pg_xcorr_in *in, pg_ws *ws, pg_xcorr_sink sink, void *user, pg_error *e);
pg_err pg_xcorr_direct(const pg_xcorr_in *in, pg_xcorr_sink sink, void *user, pg_error *e);

/* Multiply-adds the direct path would need (to choose between the two). */
double pg_xcorr_direct_cost(const pg_xcorr_in *in);
double pg_xcorr_fft_cost(const pg_xcorr_in *in);

#endif
