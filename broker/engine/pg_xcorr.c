/* SPDX-License-Identifier: MIT */
/* Cross-correlation by 2-D real FFT. Layout of one product:
 *   (a) columns: for each strip of LY columns, the FFT along y of the real
 *       rows, packed two rows per complex value (even rows real, odd rows
 *       imaginary), unpacked to ky = 0..M (M = Hf/2) into S[ky][x];
 *   (b) rows: for each strip of LX ky-rows of S, a transpose, the FFT along x,
 *       the product with the template's conjugate spectrum, the inverse FFT
 *       along x and the transpose back (only the x < ow columns survive);
 *   (c) columns again: inverse of (a), writing only valid positions.
 * The template's spectrum is made by (a)+(b) once, stored in (b)'s layout. */
#include "pg_xcorr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pg_fft.h"

#define LY 32 /* lanes of the column passes */
#define LX 8 /* lanes of the row pass */
#define PG_PI 3.14159265358979323846

typedef struct {
    const pg_xcorr_in *in;
    uint32_t Hf, Wf, M, ow, oh, n_strips;
    pg_fft_plan py, px;
    float *wr, *wi;   /* exp(-2 pi i k / Hf), k = 0..M */
    float *sr, *si;   /* image after (a): (M+1) x Wf */
    float *qr, *qi;   /* template after (a): (M+1) x wq, only its wq = w rounded up to LY columns */
    uint32_t wq;
    float *tr, *ti;   /* template spectrum of the current row strip: Wf x LX */
    float *ar, *ai, *br, *bi; /* scratch, max(M*LY, (M+1)*LY, Wf*LX) each */
    float *strip;             /* one output strip for the sink: oh x LY */
} xc;

static void xc_free(xc *c) {
    pg_fft_plan_fini(&c->py);
    pg_fft_plan_fini(&c->px);
}

/* Scratch buffer number i of n floats from the caller's workspace. */
static float *buf(pg_ws *ws, int i, size_t n) { return pg_ws_get(ws, PG_XCORR_WS_FIRST + i, sizeof(float) * n); }

static pg_err xc_init(xc *c, const pg_xcorr_in *in, pg_ws *ws, pg_error *e) {
    memset(c, 0, sizeof *c);
    c->in = in;
    c->Hf = pg_fft_good_size(in->H, 1);
    c->Wf = pg_fft_good_size(in->W, 0);
    c->M = c->Hf / 2;
    c->ow = in->W - in->w + 1;
    c->oh = in->H - in->h + 1;
    c->n_strips = (c->M + 1 + LX - 1) / LX;
    pg_err rc = pg_fft_plan_init(&c->py, c->M, e);
    if (!rc) rc = pg_fft_plan_init(&c->px, c->Wf, e);
    if (rc) return rc;
    c->wq = (in->w + LY - 1) / LY * LY;
    if (c->wq > c->Wf) c->wq = c->Wf;
    size_t spec = (size_t)(c->M + 1) * c->Wf, tspec = (size_t)c->Wf * LX, qspec = (size_t)(c->M + 1) * c->wq;
    size_t scratch = (size_t)(c->M + 1) * LY > (size_t)c->Wf * LX ? (size_t)(c->M + 1) * LY : (size_t)c->Wf * LX;
    c->wr = buf(ws, 0, c->M + 1);
    c->wi = buf(ws, 1, c->M + 1);
    c->sr = buf(ws, 2, spec);
    c->si = buf(ws, 3, spec);
    c->qr = buf(ws, 4, qspec);
    c->qi = buf(ws, 5, qspec);
    c->tr = buf(ws, 6, tspec);
    c->ti = buf(ws, 7, tspec);
    c->ar = buf(ws, 8, scratch);
    c->ai = buf(ws, 9, scratch);
    c->br = buf(ws, 10, scratch);
    c->bi = buf(ws, 11, scratch);
    c->strip = buf(ws, 12, (size_t)c->oh * LY);
    if (!c->strip || !c->wr || !c->wi || !c->sr || !c->si || !c->qr || !c->qi || !c->tr || !c->ti || !c->ar || !c->ai || !c->br || !c->bi)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for template matching");
    for (uint32_t k = 0; k <= c->M; k++) {
        double a = -2.0 * PG_PI * k / c->Hf;
        c->wr[k] = (float)cos(a);
        c->wi[k] = (float)sin(a);
    }
    return PG_OK;
}

/* (a) input: rows 2m and 2m+1 of columns x0.. as one complex vector each. */
static void load_grey_strip(const xc *c, uint32_t x0, float mean) {
    const pg_xcorr_in *in = c->in;
    uint32_t nv = x0 >= in->W ? 0 : in->W - x0 < LY ? in->W - x0 : LY;
    for (uint32_t y = 0; y < c->Hf; y++) {
        float *dst = (y % 2 ? c->ai : c->ar) + (size_t)(y / 2) * LY;
        uint32_t v = 0;
        if (y < in->H)
            for (const uint8_t *src = in->g + (size_t)y * in->W + x0; v < nv; v++) dst[v] = (float)src[v] - mean;
        for (; v < LY; v++) dst[v] = 0;
    }
}

static void load_tmpl_strip(const xc *c, uint32_t x0) {
    const pg_xcorr_in *in = c->in;
    uint32_t nv = x0 >= in->w ? 0 : in->w - x0 < LY ? in->w - x0 : LY;
    for (uint32_t y = 0; y < c->Hf; y++) {
        float *dst = (y % 2 ? c->ai : c->ar) + (size_t)(y / 2) * LY;
        uint32_t v = 0;
        if (y < in->h)
            for (; v < nv; v++) dst[v] = in->t[(size_t)y * in->w + x0 + v];
        for (; v < LY; v++) dst[v] = 0;
    }
}

/* (a) FFT along y of the loaded strip and the real-input unpacking into the
 * spectrum (dr, di) with row length stride, columns x0... */
static void forward_y(xc *c, uint32_t x0, float *dr, float *di, uint32_t stride) {
    pg_fft_vec(&c->py, c->ar, c->ai, c->br, c->bi, LY);
    uint32_t M = c->M, nv = stride - x0 < LY ? stride - x0 : LY;
    for (uint32_t k = 0; k <= M; k++) {
        const float *za = c->ar + (size_t)(k % M) * LY, *zai = c->ai + (size_t)(k % M) * LY;
        const float *zb = c->ar + (size_t)((M - k) % M) * LY, *zbi = c->ai + (size_t)((M - k) % M) * LY;
        float *xr = dr + (size_t)k * stride + x0, *xi = di + (size_t)k * stride + x0;
        float wr = c->wr[k], wi = c->wi[k];
        for (uint32_t v = 0; v < nv; v++) {
            float fer = 0.5f * (za[v] + zb[v]), fei = 0.5f * (zai[v] - zbi[v]);
            float FOr = 0.5f * (zai[v] + zbi[v]), FOi = -0.5f * (za[v] - zb[v]);
            xr[v] = fer + wr * FOr - wi * FOi;
            xi[v] = fei + wr * FOi + wi * FOr;
        }
    }
}

/* (b) transpose LX rows (from k0) of a spectrum with `cols` columns into the
 * row-pass layout [x][lane] of Wf x LX, zero beyond. */
static void gather_rows(xc *c, const float *sr, const float *si, uint32_t cols, uint32_t k0) {
    uint32_t nl = c->M + 1 - k0 < LX ? c->M + 1 - k0 : LX;
    if (cols < c->Wf || nl < LX) {
        memset(c->ar, 0, sizeof(float) * c->Wf * LX);
        memset(c->ai, 0, sizeof(float) * c->Wf * LX);
    }
    for (uint32_t x0 = 0; x0 < cols; x0 += 64) { /* 64-column tiles keep both sides in cache */
        uint32_t x1 = cols - x0 < 64 ? cols : x0 + 64;
        for (uint32_t l = 0; l < nl; l++) {
            const float *r = sr + (size_t)(k0 + l) * cols, *i = si + (size_t)(k0 + l) * cols;
            for (uint32_t x = x0; x < x1; x++) {
                c->ar[(size_t)x * LX + l] = r[x];
                c->ai[(size_t)x * LX + l] = i[x];
            }
        }
    }
}

static void scatter_rows(xc *c, uint32_t k0) {
    uint32_t nl = c->M + 1 - k0 < LX ? c->M + 1 - k0 : LX;
    for (uint32_t l = 0; l < nl; l++) {
        float *sr = c->sr + (size_t)(k0 + l) * c->Wf, *si = c->si + (size_t)(k0 + l) * c->Wf;
        for (uint32_t x = 0; x < c->ow; x++) {
            sr[x] = c->ar[(size_t)x * LX + l];
            si[x] = c->ai[(size_t)x * LX + l];
        }
    }
}

/* (b) per strip of LX ky-rows: the template's spectrum along x, then the
 * image's, their product with the template conjugated, inverse along x. */
static void image_rows(xc *c) {
    size_t n = (size_t)c->Wf * LX;
    for (uint32_t s = 0; s < c->n_strips; s++) {
        gather_rows(c, c->qr, c->qi, c->wq, s * LX);
        pg_fft_vec(&c->px, c->ar, c->ai, c->br, c->bi, LX);
        memcpy(c->tr, c->ar, sizeof(float) * n);
        memcpy(c->ti, c->ai, sizeof(float) * n);
        gather_rows(c, c->sr, c->si, c->Wf, s * LX);
        pg_fft_vec(&c->px, c->ar, c->ai, c->br, c->bi, LX);
        const float *restrict tr = c->tr, *restrict ti = c->ti;
        float *restrict ar = c->ar, *restrict ai = c->ai;
        for (size_t i = 0; i < n; i++) {
            float r = tr[i] * ar[i] + ti[i] * ai[i], im = tr[i] * ai[i] - ti[i] * ar[i];
            ar[i] = r;
            ai[i] = im;
        }
        pg_fft_vec(&c->px, c->ai, c->ar, c->br, c->bi, LX); /* inverse: swapped */
        scatter_rows(c, s * LX);
    }
}

/* (c) inverse of (a) for columns x0..; the valid positions go to the sink. */
static void inverse_y(xc *c, uint32_t x0, float scale, pg_xcorr_sink sink, void *user, double err) {
    uint32_t M = c->M, nv = c->ow - x0 < LY ? c->ow - x0 : LY;
    for (uint32_t k = 0; k < M; k++) {
        const float *xa = c->sr + (size_t)k * c->Wf + x0, *xai = c->si + (size_t)k * c->Wf + x0;
        const float *xb = c->sr + (size_t)(M - k) * c->Wf + x0, *xbi = c->si + (size_t)(M - k) * c->Wf + x0;
        float *zr = c->ar + (size_t)k * LY, *zi = c->ai + (size_t)k * LY;
        float wr = c->wr[k], wi = c->wi[k];
        uint32_t v = 0;
        for (; v < nv; v++) {
            float fer = 0.5f * (xa[v] + xb[v]), fei = 0.5f * (xai[v] - xbi[v]);
            float dr = xa[v] - xb[v], di = xai[v] + xbi[v];
            float FOr = 0.5f * (dr * wr + di * wi), FOi = 0.5f * (di * wr - dr * wi);
            zr[v] = fer - FOi;
            zi[v] = fei + FOr;
        }
        for (; v < LY; v++) zr[v] = zi[v] = 0;
    }
    pg_fft_vec(&c->py, c->ai, c->ar, c->br, c->bi, LY); /* inverse: swapped */
    for (uint32_t y = 0; y < c->oh; y++) {
        const float *src = (y % 2 ? c->ai : c->ar) + (size_t)(y / 2) * LY;
        float *dst = c->strip + (size_t)y * LY;
        for (uint32_t v = 0; v < LY; v++) dst[v] = src[v] * scale;
    }
    sink(user, x0, nv, c->strip, LY, err);
}

/* Error bound: normwise FFT round-off (safety factor 8) plus the float
 * rounding of the template and the residual of its mean. */
static double fft_bound(const xc *c, double img_norm) {
    const pg_xcorr_in *in = c->in;
    double tn = 0, tabs = 0, tsum = 0, eps = 5.96e-8;
    for (size_t i = 0; i < (size_t)in->w * in->h; i++) {
        tn += (double)in->t[i] * in->t[i];
        tabs += fabs(in->t[i]);
        tsum += in->t[i];
    }
    double lg = log2((double)c->Hf * c->Wf) + 1;
    return 8.0 * eps * lg * sqrt(tn) * img_norm + 2 * eps * 255 * tabs + 255 * fabs(tsum);
}

pg_err pg_xcorr_fft(const pg_xcorr_in *in, pg_ws *ws, pg_xcorr_sink sink, void *user, pg_error *e) {
    xc c;
    pg_err rc = xc_init(&c, in, ws, e);
    if (rc) {
        xc_free(&c);
        return rc;
    }
    size_t np = (size_t)in->W * in->H;
    uint64_t sum = 0, sum2 = 0; /* integer sums: exact, and they vectorise */
    for (size_t i = 0; i < np; i++) sum += in->g[i], sum2 += (uint32_t)in->g[i] * in->g[i];
    float mean = (float)((double)sum / np);
    double sq = (double)sum2 - 2.0 * mean * (double)sum + (double)np * mean * mean;
    if (sq < 0) sq = 0;
    for (uint32_t x0 = 0; x0 < c.wq; x0 += LY) {
        load_tmpl_strip(&c, x0);
        forward_y(&c, x0, c.qr, c.qi, c.wq);
    }
    for (uint32_t x0 = 0; x0 < c.Wf; x0 += LY) { /* columns W..Wf are zero padding */
        load_grey_strip(&c, x0, mean);
        forward_y(&c, x0, c.sr, c.si, c.Wf);
    }
    image_rows(&c);
    float scale = 1.0f / ((float)c.M * (float)c.Wf);
    double err = fft_bound(&c, sqrt(sq));
    for (uint32_t x0 = 0; x0 < c.ow; x0 += LY) inverse_y(&c, x0, scale, sink, user, err);
    xc_free(&c);
    return PG_OK;
}

pg_err pg_xcorr_direct(const pg_xcorr_in *in, pg_xcorr_sink sink, void *user, pg_error *e) {
    uint32_t ow = in->W - in->w + 1, oh = in->H - in->h + 1;
    double *acc = malloc(sizeof *acc * ow), tabs = 0, worst = 0;
    float *num = malloc(sizeof *num * (size_t)ow * oh);
    if (!acc || !num) {
        free(acc), free(num);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for template matching");
    }
    for (size_t i = 0; i < (size_t)in->w * in->h; i++) tabs += fabs(in->t[i]);
    for (uint32_t y = 0; y < oh; y++) {
        memset(acc, 0, sizeof *acc * ow);
        for (uint32_t j = 0; j < in->h; j++)
            for (uint32_t i = 0; i < in->w; i++) {
                double tv = in->t[(size_t)j * in->w + i];
                const uint8_t *row = in->g + (size_t)(y + j) * in->W + i;
                for (uint32_t x = 0; x < ow; x++) acc[x] += tv * row[x];
            }
        for (uint32_t x = 0; x < ow; x++) {
            num[(size_t)y * ow + x] = (float)acc[x];
            if (fabs(acc[x]) > worst) worst = fabs(acc[x]);
        }
    }
    free(acc);
    sink(user, 0, ow, num, ow, worst * 1.2e-7 + 2 * 5.96e-8 * 255 * tabs + 1e-6);
    free(num);
    return PG_OK;
}

double pg_xcorr_direct_cost(const pg_xcorr_in *in) {
    return (double)(in->W - in->w + 1) * (in->H - in->h + 1) * in->w * in->h;
}

double pg_xcorr_fft_cost(const pg_xcorr_in *in) {
    double hf = pg_fft_good_size(in->H, 1), wf = pg_fft_good_size(in->W, 0);
    return 2.5 * 5.0 * hf * wf * log2(hf * wf) / 4.0; /* ~4 flops per vector op retire together */
}
