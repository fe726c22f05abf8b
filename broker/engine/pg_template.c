/* SPDX-License-Identifier: MIT */
#include "pg_template.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pg_simd.h"
#include "pg_ws.h"
#include "pg_xcorr.h"

#define DIRECT_CHUNK 16384
/* Workspace slots of this file (pg_xcorr uses PG_XCORR_WS_FIRST and up). */
enum { WS_GREY, WS_TMPL, WS_TZ, WS_INV };

struct pg_template_ws {
    pg_ws ws;
}; /* pixels per uint32 partial sum: 16384 * 255 * 255 < 2^32 */

void pg_template_opts_init(pg_template_opts *o) {
    memset(o, 0, sizeof *o);
    o->threshold = 0.8;
}

/* One row of OpenCV's RGB2GRAY. On little-endian machines a pixel is one
 * 32-bit load and shifts, which the compiler vectorises; elsewhere bytes. */
PG_CLONES static void grey_row(const uint8_t *restrict p, size_t w, uint8_t *restrict o) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (size_t x = 0; x < w; x++) { /* size_t: the vectoriser needs no wrap-around check */
        uint32_t v;
        memcpy(&v, p + 4 * (size_t)x, 4);
        o[x] = (uint8_t)(((v & 0xff) * 9798u + ((v >> 8) & 0xff) * 19235u + ((v >> 16) & 0xff) * 3735u + 16384u) >> 15);
    }
#else
    for (size_t x = 0; x < w; x++)
        o[x] = (uint8_t)((p[4 * x] * 9798u + p[4 * x + 1] * 19235u + p[4 * x + 2] * 3735u + 16384u) >> 15);
#endif
}

void pg_template_grey(const pg_img *img, uint8_t *out) {
    for (uint32_t y = 0; y < img->height; y++) grey_row(pg_img_row(img, y), img->width, out + (size_t)y * img->width);
}

typedef struct {
    uint8_t *g, *t; /* grey search area and template */
    uint32_t W, H, w, h, ow, oh;
    int64_t n, sum_t, var_t; /* var_t = n*sum(T^2) - sum(T)^2 */
    float *inv;              /* n / sqrt(var_t * var_w), 0 for flat windows */
    bool flat;               /* var_t == 0: nothing to correlate, no search ran */
    uint64_t verified, budget;
    pg_ws *ws;               /* owns g, t, inv */
} tm;

typedef struct {
    float ub, approx; /* upper bound and approximate score */
    uint32_t pos;
} cand;

/* Candidates gathered strip by strip while the correlation is made: every
 * position whose upper bound reaches the best lower bound seen so far (or the
 * threshold), filtered again against the final bound afterwards. */
typedef struct {
    const tm *m;
    double threshold;
    bool all;
    float best_lb;
    cand *c;
    size_t n, cap;
    bool oom;
} collector;


/* Exact score of the window at pos, from integer sums. */
static double exact_score(tm *m, uint32_t pos) {
    uint32_t x = pos % m->ow, y = pos / m->ow;
    uint64_t st = 0, si = 0, sii = 0;
    for (uint32_t j = 0; j < m->h; j++) {
        const uint8_t *t = m->t + (size_t)j * m->w, *g = m->g + (size_t)(y + j) * m->W + x;
        for (uint32_t i0 = 0; i0 < m->w; i0 += DIRECT_CHUNK) {
            uint32_t end = m->w - i0 < DIRECT_CHUNK ? m->w : i0 + DIRECT_CHUNK;
            uint32_t a = 0, b = 0, c = 0;
            for (uint32_t i = i0; i < end; i++) {
                a += (uint32_t)t[i] * g[i];
                b += g[i];
                c += (uint32_t)g[i] * g[i];
            }
            st += a, si += b, sii += c;
        }
    }
    m->verified++;
    int64_t var_w = m->n * (int64_t)sii - (int64_t)si * (int64_t)si;
    if (var_w <= 0) return 0;
    int64_t num = m->n * (int64_t)st - m->sum_t * (int64_t)si;
    return (double)num / sqrt((double)m->var_t * (double)var_w);
}

/* One output row of window variances (n * sum W^2 - (sum W)^2, as float)
 * from prefix sums of the column sums cs/cq: in doubles, which hold every
 * value exactly while n^2 * 255^2 < 2^53 (the caller checks), so a flat
 * window still gives exactly 0; the subtractions then vectorise. */
static void row_variances(const tm *m, const uint32_t *cs, const uint32_t *cq, double *ps, double *pq, float *var) {
    ps[0] = pq[0] = 0;
    for (uint32_t x = 0; x < m->W; x++) ps[x + 1] = ps[x] + cs[x], pq[x + 1] = pq[x] + cq[x];
    const double n = (double)m->n;
    const uint32_t w = m->w;
    for (uint32_t x = 0; x < m->ow; x++) {
        double sw = ps[x + w] - ps[x], qw = pq[x + w] - pq[x];
        var[x] = (float)(n * qw - sw * sw);
    }
}

/* Exact integer fallback for templates too large for the double path. */
static void row_variances_int(const tm *m, const uint32_t *cs, const uint32_t *cq, float *var) {
    uint64_t s = 0, q = 0;
    for (uint32_t x = 0; x < m->w; x++) s += cs[x], q += cq[x];
    for (uint32_t x = 0; x < m->ow; x++) {
        var[x] = (float)(m->n * (int64_t)q - (int64_t)s * (int64_t)s);
        if (x + 1 < m->ow) s = s + cs[x + m->w] - cs[x], q = q + cq[x + m->w] - cq[x];
    }
}

/* inv[p] = n / sqrt(var_t * var_w(p)), 0 for flat windows; single precision
 * is enough: inv only scales approximate scores whose bounds carry slack.
 * Column sums of squares are 32-bit, exact for h * 255^2 < 2^32, i.e. for
 * templates up to 66051 pixels tall (taller ones are refused up front). */
static pg_err window_norms(tm *m, pg_error *e) {
    bool fast = (double)m->n * (double)m->n * 65025.0 < 9007199254740992.0 && m->h <= 66051;
    uint32_t *cs = calloc(m->W, sizeof *cs), *cq = calloc(m->W, sizeof *cq);
    double *ps = malloc(sizeof *ps * ((size_t)m->W + 1)), *pq = malloc(sizeof *pq * ((size_t)m->W + 1));
    if (!cs || !cq || !ps || !pq || m->h > 66051) {
        free(cs), free(cq), free(ps), free(pq);
        return pg_error_set(e, m->h > 66051 ? PG_E_USAGE : PG_E_INTERNAL, NULL,
                            m->h > 66051 ? "template taller than 66051 pixels" : "out of memory for template matching");
    }
    for (uint32_t j = 0; j < m->h; j++)
        for (uint32_t x = 0; x < m->W; x++) {
            uint32_t v = m->g[(size_t)j * m->W + x];
            cs[x] += v, cq[x] += v * v;
        }
    const float k = (float)((double)m->n / sqrt((double)m->var_t));
    for (uint32_t y = 0; y < m->oh; y++) {
        float *inv = m->inv + (size_t)y * m->ow;
        if (fast) row_variances(m, cs, cq, ps, pq, inv);
        else row_variances_int(m, cs, cq, inv);
        for (uint32_t x = 0; x < m->ow; x++) { /* arithmetic instead of branches: it vectorises */
            float v = inv[x], pos = (float)(v > 0);
            inv[x] = pos * (k / sqrtf(v + (1.0f - pos)));
        }
        if (y + 1 < m->oh) {
            const uint8_t *ga = m->g + (size_t)y * m->W, *gb = m->g + (size_t)(y + m->h) * m->W;
            for (uint32_t x = 0; x < m->W; x++) {
                uint32_t a = ga[x], b = gb[x];
                cs[x] += b - a, cq[x] += b * b - a * a; /* modular: the sums stay exact */
            }
        }
    }
    free(cs), free(cq), free(ps), free(pq);
    return PG_OK;
}

static void push(collector *k, float ub, float approx, uint32_t pos) {
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 4096;
        cand *c = realloc(k->c, sizeof *c * cap);
        if (!c) {
            k->oom = true;
            return;
        }
        k->c = c, k->cap = cap;
    }
    k->c[k->n++] = (cand){ub + 1e-6f, approx, pos}; /* widened: float rounding of the bound */
}

static float floor_of(const collector *k) {
    float f = k->best_lb;
    if (k->all && (float)k->threshold < f) f = (float)k->threshold;
    return f - 1e-6f;
}

/* Highest lower bound in one strip row; flat windows (inv 0) score exactly 0,
 * which the product gives without a branch. Eight maxima: it vectorises. */
static float row_best_lb(const float *vals, const float *inv, uint32_t nv, float e) {
    float acc[8] = {-1, -1, -1, -1, -1, -1, -1, -1}, best = -1;
    uint32_t v = 0;
    for (; v + 8 <= nv; v += 8)
        for (int q = 0; q < 8; q++) {
            float lb = (vals[v + q] - e) * inv[v + q];
            acc[q] = lb > acc[q] ? lb : acc[q];
        }
    for (; v < nv; v++) {
        float lb = (vals[v] - e) * inv[v];
        best = lb > best ? lb : best;
    }
    for (int q = 0; q < 8; q++) best = acc[q] > best ? acc[q] : best;
    return best;
}

static void collect_strip(void *user, uint32_t x0, uint32_t nv, const float *vals, size_t stride, double err) {
    collector *k = user;
    const tm *m = k->m;
    const float e = (float)err;
    for (uint32_t y = 0; y < m->oh; y++) {
        float lb = row_best_lb(vals + y * stride, m->inv + (size_t)y * m->ow + x0, nv, e);
        if (lb > k->best_lb) k->best_lb = lb > 1 ? 1 : lb;
    }
    float f = floor_of(k);
    for (uint32_t y = 0; y < m->oh; y++) {
        const float *val = vals + y * stride, *inv = m->inv + (size_t)y * m->ow + x0;
        for (uint32_t v = 0; v < nv; v++) {
            float ub = (val[v] + e) * inv[v];
            if (ub >= f) push(k, ub, val[v] * inv[v], (uint32_t)((size_t)y * m->ow + x0 + v));
        }
    }
}

static pg_err tm_prepare(tm *m, const pg_img *area, const pg_img *tmpl, pg_template_method method, collector *k,
                         pg_error *e) {
    m->W = area->width, m->H = area->height, m->w = tmpl->width, m->h = tmpl->height;
    m->ow = m->W - m->w + 1, m->oh = m->H - m->h + 1;
    m->n = (int64_t)m->w * m->h;
    size_t np = (size_t)m->ow * m->oh;
    m->g = pg_ws_get(m->ws, WS_GREY, (size_t)m->W * m->H);
    m->t = pg_ws_get(m->ws, WS_TMPL, (size_t)m->n);
    float *tz = pg_ws_get(m->ws, WS_TZ, sizeof *tz * (size_t)m->n);
    m->inv = pg_ws_get(m->ws, WS_INV, sizeof *m->inv * np);
    if (!m->g || !m->t || !tz || !m->inv) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for template matching");
    pg_template_grey(area, m->g);
    pg_template_grey(tmpl, m->t);
    int64_t s = 0, q = 0;
    for (int64_t i = 0; i < m->n; i++) s += m->t[i], q += (int64_t)m->t[i] * m->t[i];
    m->sum_t = s;
    m->var_t = m->n * q - s * s;
    if (m->var_t == 0) { /* an answer, not an error: "is it there?" has a definite no (seed 004) */
        m->flat = true;
        return PG_OK;
    }
    double mean = (double)s / (double)m->n;
    for (int64_t i = 0; i < m->n; i++) tz[i] = (float)(m->t[i] - mean);
    pg_xcorr_in in = {m->g, m->W, m->H, tz, m->w, m->h};
    if (method == PG_TEMPLATE_AUTO) method = pg_xcorr_direct_cost(&in) < pg_xcorr_fft_cost(&in) ? PG_TEMPLATE_DIRECT : PG_TEMPLATE_FFT;
    pg_err rc = window_norms(m, e);
    if (!rc)
        rc = method == PG_TEMPLATE_DIRECT ? pg_xcorr_direct(&in, collect_strip, k, e)
                                      : pg_xcorr_fft(&in, m->ws, collect_strip, k, e);
    if (!rc && k->oom) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for template matching");
    return rc;
}

static int cand_cmp(const void *pa, const void *pb) {
    const cand *a = pa, *b = pb;
    if (a->ub != b->ub) return a->ub > b->ub ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static bool better(double s, uint32_t p, double bs, uint32_t bp) { return s > bs || (s == bs && p < bp); }

static pg_template_hit to_match(const tm *m, const pg_img_rect *off, uint32_t pos, double score) {
    return (pg_template_hit){{pos % m->ow + off->x, pos / m->ow + off->y, m->w, m->h}, score};
}

static int match_cmp(const void *pa, const void *pb) {
    const pg_template_hit *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->box.y != b->box.y) return a->box.y < b->box.y ? -1 : 1;
    return a->box.x < b->box.x ? -1 : a->box.x > b->box.x;
}

static bool overlaps(const pg_img_rect *a, const pg_img_rect *b) {
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

/* Greedy non-maximum suppression over matches sorted best first. */
static size_t suppress(pg_template_hit *all, size_t n, pg_template_hit *out) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < PG_TEMPLATE_MAX_MATCHES; i++) {
        bool free_spot = true;
        for (size_t j = 0; j < k && free_spot; j++) free_spot = !overlaps(&all[i].box, &out[j].box);
        if (free_spot) out[k++] = all[i];
    }
    return k;
}

/* Keep the candidates the final bound still admits, best bound first. */
static void final_candidates(collector *k) {
    float f = floor_of(k);
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++)
        if (k->c[i].ub >= f) k->c[n++] = k->c[i];
    k->n = n;
    qsort(k->c, n, sizeof *k->c, cand_cmp);
}

/* Walk candidates best bound first; verify exactly while the bound could
 * still matter, within the budget (beyond it the approximate score stands). */
static pg_err search(tm *m, collector *k, const pg_img_rect *off, pg_template_result *r, pg_error *e) {
    final_candidates(k);
    pg_template_hit *hits = k->all ? malloc(sizeof *hits * (k->n ? k->n : 1)) : NULL;
    if (k->all && !hits) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for template matching");
    double best = -2;
    uint32_t best_pos = 0;
    size_t nh = 0;
    for (size_t i = 0; i < k->n; i++) {
        const cand *c = &k->c[i];
        bool useful = c->ub >= best || (k->all && c->ub >= k->threshold);
        if (!useful) break;
        double s = m->verified < m->budget ? exact_score(m, c->pos) : c->approx;
        if (better(s, c->pos, best, best_pos)) best = s, best_pos = c->pos;
        if (k->all && s >= k->threshold) hits[nh++] = to_match(m, off, c->pos, s);
    }
    if (best < -1) best = 0, best_pos = 0; /* unreachable: some position always has ub >= its own lb */
    r->best = to_match(m, off, best_pos, best);
    r->found = best >= k->threshold;
    if (k->all) {
        qsort(hits, nh, sizeof *hits, match_cmp);
        r->n_matches = suppress(hits, nh, r->matches);
    }
    r->verified = m->verified;
    free(hits);
    return PG_OK;
}

pg_err pg_template_ws_new(pg_template_ws **out, pg_error *e) {
    *out = calloc(1, sizeof **out);
    return *out ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
}

void pg_template_ws_free(pg_template_ws *ws) {
    if (!ws) return;
    pg_ws_release(&ws->ws);
    free(ws);
}

pg_err pg_template_match(const pg_img *img, const pg_img *tmpl, const pg_template_opts *opts, pg_template_result *r,
                     pg_error *e) {
    pg_template_ws ws;
    memset(&ws, 0, sizeof ws);
    pg_err rc = pg_template_match_ws(&ws, img, tmpl, opts, r, e);
    pg_ws_release(&ws.ws);
    return rc;
}

pg_err pg_template_match_ws(pg_template_ws *ws, const pg_img *img, const pg_img *tmpl, const pg_template_opts *opts,
                        pg_template_result *r, pg_error *e) {
    pg_template_opts d;
    pg_template_opts_init(&d);
    const pg_template_opts *o = opts ? opts : &d;
    memset(r, 0, sizeof *r);
    pg_img area;
    pg_img_rect off = o->region ? *o->region : (pg_img_rect){0, 0, img->width, img->height};
    pg_err rc = pg_img_view(img, o->region, &area, e);
    if (rc) return rc;
    if (!(o->threshold >= -1 && o->threshold <= 1))
        return pg_error_set(e, PG_E_USAGE, NULL, "threshold %g is not within -1..1", o->threshold);
    if (tmpl->width > area.width || tmpl->height > area.height)
        return pg_error_set(e, PG_E_USAGE, "use a smaller template or a larger region",
                            "template %ux%u is larger than the searched %ux%u area", tmpl->width, tmpl->height,
                            area.width, area.height);
    if ((uint64_t)tmpl->width * tmpl->height > PG_TEMPLATE_MAX_TEMPLATE_PIXELS)
        return pg_error_set(e, PG_E_USAGE, NULL, "template %ux%u exceeds %u pixels", tmpl->width, tmpl->height,
                            PG_TEMPLATE_MAX_TEMPLATE_PIXELS);
    tm m;
    memset(&m, 0, sizeof m);
    m.ws = &ws->ws;
    collector k = {&m, o->threshold, o->all, -1, NULL, 0, 0, false};
    rc = tm_prepare(&m, &area, tmpl, o->method, &k, e);
    if (!rc && m.flat) {
        r->flat = true; /* found false; best: the first position, score 0 */
        r->best.box = (pg_img_rect){off.x, off.y, tmpl->width, tmpl->height};
        return PG_OK;
    }
    m.budget = (uint64_t)(4e8 / (double)m.n) + 256; /* exact sums: ~0.4 G multiply-adds at most */
    if (!rc) rc = search(&m, &k, &off, r, e);
    free(k.c);
    return rc;
}
