/* SPDX-License-Identifier: MIT */
/* Design comparison, stage 3: translation registration of the candidate on
 * the reference (screen mode). Zero-mean normalised correlation of the grey
 * planes over their overlap, from exact integer sums: an exhaustive search
 * on a coarse pyramid level (up to 10 % of each side), then +-2 px at each
 * finer level. Integer shifts only: no resampling, so layout compares the
 * candidate's own pixels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pg_design_int.h"
#include "pg_simd.h"

#define LEVELS 5

typedef struct {
    uint8_t *a, *b;
    uint32_t w, h;
} level;

typedef struct {
    int dx, dy;
    double cc;
    int flat;
} shift;

typedef struct {
    uint64_t sa, sb, saa, sbb, sab;
} sums;

PG_CLONES static void row_sums(const uint8_t *restrict a, const uint8_t *restrict b, size_t n, sums *s) {
    uint32_t sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0; /* n <= 768: no overflow */
    for (size_t x = 0; x < n; x++) {
        uint32_t va = a[x], vb = b[x];
        sa += va, sb += vb, saa += va * va, sbb += vb * vb, sab += va * vb;
    }
    s->sa += sa, s->sb += sb, s->saa += saa, s->sbb += sbb, s->sab += sab;
}

/* Correlation of a(x, y) with b(x + dx, y + dy) over the overlap. */
static shift ncc(const level *l, int dx, int dy) {
    shift r = {dx, dy, -2.0, 0};
    int64_t w = l->w, h = l->h;
    int64_t x0 = dx < 0 ? -dx : 0, x1 = dx > 0 ? w - dx : w, y0 = dy < 0 ? -dy : 0, y1 = dy > 0 ? h - dy : h;
    if (x1 - x0 < 8 || y1 - y0 < 8) return r;
    sums s = {0, 0, 0, 0, 0};
    for (int64_t y = y0; y < y1; y++)
        row_sums(l->a + y * w + x0, l->b + (y + dy) * w + x0 + dx, (size_t)(x1 - x0), &s);
    int64_t n = (x1 - x0) * (y1 - y0);
    int64_t num = n * (int64_t)s.sab - (int64_t)s.sa * (int64_t)s.sb;
    int64_t va = n * (int64_t)s.saa - (int64_t)s.sa * (int64_t)s.sa;
    int64_t vb = n * (int64_t)s.sbb - (int64_t)s.sb * (int64_t)s.sb;
    if (va <= 0 || vb <= 0) {
        r.cc = 0, r.flat = 1;
        return r;
    }
    r.cc = (double)num / sqrt((double)va * (double)vb);
    return r;
}

/* Higher correlation wins; a tie goes to the smaller shift, then the first. */
static int better(const shift *a, const shift *b) {
    if (a->cc != b->cc) return a->cc > b->cc;
    return abs(a->dx) + abs(a->dy) < abs(b->dx) + abs(b->dy);
}

static shift search(const level *l, int cx, int cy, int rx, int ry, int lim_x, int lim_y) {
    shift best = {0, 0, -3.0, 0};
    for (int dy = cy - ry; dy <= cy + ry; dy++)
        for (int dx = cx - rx; dx <= cx + rx; dx++) {
            if (abs(dx) > lim_x || abs(dy) > lim_y) continue;
            shift s = ncc(l, dx, dy);
            if (better(&s, &best)) best = s;
        }
    return best;
}

static int limit(uint32_t n) { return (int)((n + 9) / 10); } /* ceil(10 %) */

static void halve(const uint8_t *in, uint32_t w, uint8_t *out, uint32_t ow, uint32_t oh) {
    for (uint32_t y = 0; y < oh; y++)
        for (uint32_t x = 0; x < ow; x++) {
            const uint8_t *p = in + (size_t)2 * y * w + 2 * x;
            out[(size_t)y * ow + x] = (uint8_t)((p[0] + p[1] + p[w] + p[w + 1] + 2) / 4);
        }
}

/* Pyramid: level 0 is the canvas, each next one half as large, down to a
 * width near 96 px. */
static int build(pg_dz *z, level *lv) {
    lv[0] = (level){z->ref.grey, z->cand.grey, z->W, z->H};
    int n = 1;
    while (n < LEVELS && lv[n - 1].w / 2 >= 96 && lv[n - 1].h / 2 >= 16) {
        uint32_t ow = lv[n - 1].w / 2, oh = lv[n - 1].h / 2;
        uint8_t *a = malloc((size_t)ow * oh), *b = malloc((size_t)ow * oh);
        if (!a || !b) {
            free(a), free(b);
            return -n;
        }
        halve(lv[n - 1].a, lv[n - 1].w, a, ow, oh);
        halve(lv[n - 1].b, lv[n - 1].w, b, ow, oh);
        lv[n++] = (level){a, b, ow, oh};
    }
    return n;
}

static shift register_translation(const level *lv, int n) {
    const level *top = &lv[n - 1];
    shift s = search(top, 0, 0, limit(top->w), limit(top->h), limit(top->w), limit(top->h));
    for (int k = n - 2; k >= 0; k--) s = search(&lv[k], 2 * s.dx, 2 * s.dy, 2, 2, limit(lv[k].w), limit(lv[k].h));
    return s;
}

static void decide(pg_dz *z, shift best, shift id) {
    pg_design_result *r = z->r;
    r->align.cc = best.cc, r->align.cc_identity = id.cc;
    if (id.cc < -1.0) {
        r->align.fallback = true;
        r->align.cc = r->align.cc_identity = 0;
        snprintf(r->align.note, sizeof r->align.note, "the canvas is too small to register: identity kept");
    } else if (id.flat) {
        r->align.fallback = true;
        snprintf(r->align.note, sizeof r->align.note, "a flat image has nothing to register: identity kept");
    } else if (best.dx == 0 && best.dy == 0) {
        r->align.method = "translation";
        snprintf(r->align.note, sizeof r->align.note, "registered: no offset");
    } else if (best.cc < 0.2 || best.cc <= id.cc + 0.01) {
        r->align.fallback = true;
        r->align.cc = id.cc;
        snprintf(r->align.note, sizeof r->align.note,
                 "offset (%d,%d) would move correlation only from %.3f to %.3f: identity kept", best.dx, best.dy,
                 id.cc, best.cc);
    } else {
        r->align.method = "translation";
        r->align.dx = best.dx, r->align.dy = best.dy;
        snprintf(r->align.note, sizeof r->align.note, "registered: offset (%d,%d)", best.dx, best.dy);
    }
}

static void align_findings(pg_dz *z) {
    pg_design_result *r = z->r;
    if (r->align.fallback) {
        pg_design_finding *f = pg_dz_finding(z, "layout", "alignment_fallback", PG_DESIGN_LOW, 0);
        snprintf(f->observed, sizeof f->observed, "registration fell back to identity (%s)", r->align.note);
        snprintf(f->suggested_fix, sizeof f->suggested_fix,
                 "layout compares the images as they lie; crop both to the same area or use widget mode");
    } else if (r->align.dx || r->align.dy) {
        pg_design_finding *f = pg_dz_finding(z, "layout", "alignment_shift", PG_DESIGN_LOW,
                                             abs(r->align.dx) + abs(r->align.dy));
        snprintf(f->observed, sizeof f->observed,
                 "the candidate's content sits %d,%d px (canonical) away from the reference's; layout registered it out",
                 r->align.dx, r->align.dy);
        snprintf(f->suggested_fix, sizeof f->suggested_fix,
                 "if unintended, move the content by %ld,%ld px in the candidate", pg_dz_to_cand_px(z, -r->align.dx),
                 pg_dz_to_cand_px(z, -r->align.dy));
    }
}

pg_err pg_dz_align(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    r->align.method = "identity";
    if (z->o->mode == PG_DESIGN_WIDGET) {
        snprintf(r->align.note, sizeof r->align.note, "widget mode: the images are taken as aligned");
        return PG_OK;
    }
    level lv[LEVELS];
    int n = build(z, lv);
    pg_err rc = PG_OK;
    if (n < 0) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for registration");
        n = -n;
    } else {
        decide(z, register_translation(lv, n), ncc(&lv[0], 0, 0));
        align_findings(z);
    }
    for (int k = 1; k < n; k++) free(lv[k].a), free(lv[k].b);
    return rc;
}
