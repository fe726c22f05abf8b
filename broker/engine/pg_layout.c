/* SPDX-License-Identifier: MIT */
/* pg_layout.c - see pg_layout.h. Flat regions, their shapes, then classes. */
#include "pg_layout.h"
#include "pg_morph.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[PG_CTL_KINDS] = {"entry", "textarea", "button", "check",
                                                     "radio", "list",     "slider", "scrollbar"};

const char *pg_ctl_kind_name(pg_ctl_kind k) { return (unsigned)k < PG_CTL_KINDS ? kind_names[k] : "?"; }

int pg_ctl_kind_parse(const char *name) {
    for (int i = 0; i < PG_CTL_KINDS; i++)
        if (name && !strcmp(name, kind_names[i])) return i;
    return -1;
}

/* ------------------------------------------------------------- regions */

typedef struct {
    uint32_t x0, y0, x1, y1; /* inclusive */
    uint32_t count;
    uint8_t seed[3];
    uint64_t sum[3];
} flat_region;

typedef struct {
    const pg_img *img;
    uint32_t w, h;
    uint32_t *lab; /* region id + 1 per pixel */
    flat_region *r;
    size_t n, cap;
    uint32_t *stack;
    uint8_t bg[3];
} seg;

static inline const uint8_t *px(const seg *s, uint32_t x, uint32_t y) { return pg_img_row(s->img, y) + 4 * (size_t)x; }

static inline int absd(int a, int b) { return a > b ? a - b : b - a; }

static inline bool near3(const uint8_t *a, const uint8_t *b, int tol) {
    return absd(a[0], b[0]) <= tol && absd(a[1], b[1]) <= tol && absd(a[2], b[2]) <= tol;
}

static inline int luma(const uint8_t *c) { return (77 * c[0] + 150 * c[1] + 29 * c[2] + 128) >> 8; }

static inline int chroma(const uint8_t *c) {
    int mx = c[0] > c[1] ? c[0] : c[1], mn = c[0] < c[1] ? c[0] : c[1];
    mx = c[2] > mx ? c[2] : mx, mn = c[2] < mn ? c[2] : mn;
    return mx - mn;
}

/* Flood from (x, y) over pixels within PG_LAYOUT_STEP of a neighbour and
 * PG_LAYOUT_SPREAD of the seed. */
static bool flood(seg *s, uint32_t x, uint32_t y) {
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        flat_region *nr = realloc(s->r, nc * sizeof *nr);
        if (!nr) return false;
        s->r = nr, s->cap = nc;
    }
    uint32_t id = (uint32_t)s->n + 1;
    flat_region *g = &s->r[s->n++];
    memset(g, 0, sizeof *g);
    const uint8_t *sd = px(s, x, y);
    memcpy(g->seed, sd, 3);
    g->x0 = g->x1 = x, g->y0 = g->y1 = y;
    size_t sp = 0;
    s->stack[sp++] = y * s->w + x;
    s->lab[y * s->w + x] = id;
    while (sp) {
        uint32_t p = s->stack[--sp], cx = p % s->w, cy = p / s->w;
        const uint8_t *c = px(s, cx, cy);
        g->count++;
        g->sum[0] += c[0], g->sum[1] += c[1], g->sum[2] += c[2];
        if (cx < g->x0) g->x0 = cx;
        if (cx > g->x1) g->x1 = cx;
        if (cy < g->y0) g->y0 = cy;
        if (cy > g->y1) g->y1 = cy;
        uint32_t nb[4];
        int k = 0;
        if (cx > 0) nb[k++] = p - 1;
        if (cx + 1 < s->w) nb[k++] = p + 1;
        if (cy > 0) nb[k++] = p - s->w;
        if (cy + 1 < s->h) nb[k++] = p + s->w;
        for (int j = 0; j < k; j++) {
            uint32_t q = nb[j];
            if (s->lab[q]) continue;
            const uint8_t *d = px(s, q % s->w, q / s->w);
            if (!near3(c, d, PG_LAYOUT_STEP) || !near3(sd, d, PG_LAYOUT_SPREAD)) continue;
            s->lab[q] = id;
            s->stack[sp++] = q;
        }
    }
    return true;
}

static void fill_of(const flat_region *g, uint8_t out[3]) {
    for (int i = 0; i < 3; i++) out[i] = (uint8_t)((g->sum[i] + g->count / 2) / g->count);
}

static void find_bg(seg *s) {
    uint32_t *hist = calloc(32768, sizeof *hist);
    if (!hist) {
        s->bg[0] = s->bg[1] = s->bg[2] = 255;
        return;
    }
    for (uint32_t y = 0; y < s->h; y++)
        for (uint32_t x = 0; x < s->w; x++) {
            const uint8_t *c = px(s, x, y);
            hist[((c[0] >> 3) << 10) | ((c[1] >> 3) << 5) | (c[2] >> 3)]++;
        }
    uint32_t best = 0;
    for (uint32_t i = 1; i < 32768; i++)
        if (hist[i] > hist[best]) best = i;
    free(hist);
    s->bg[0] = (uint8_t)(((best >> 10) & 31) << 3 | 4);
    s->bg[1] = (uint8_t)(((best >> 5) & 31) << 3 | 4);
    s->bg[2] = (uint8_t)((best & 31) << 3 | 4);
}

/* ------------------------------------------------------------- shapes */

typedef struct {
    uint32_t id; /* region id (1-based) */
    uint32_t x0, y0, x1, y1, bw, bh;
    uint64_t filled;   /* region + enclosed holes */
    uint64_t holes;    /* enclosed non-region pixels (ink, marks, text) */
    uint32_t hx0, hy0, hx1, hy1; /* bbox of the holes (valid when holes > 0) */
    bool corners;      /* the four corners (inset 1) are filled */
    int corners0;      /* how many of the four corner pixels themselves are filled */
    bool mid_edges1;   /* the middle of each side, one pixel in, is filled */
    bool centre;       /* the centre pixel is filled */
    bool mid_edges;    /* the middle of each side (inset 1) is filled */
    uint8_t fill[3];
    uint8_t around[3]; /* what surrounds the box (a few px outside) */
    uint8_t centre_px[3];
    bool relief;       /* a two-tone frame: light on two sides, dark on the others */
    /* A band of rows across the box that the region does not fill (a list's
     * selected row, cut out of the list's fill where it touches the frame):
     * rows gap0..gap1 (absolute), when gap is set. */
    bool gap;
    uint32_t gap0, gap1;
    uint64_t gap_filled; /* filled pixels outside the band */
    double perim;        /* fraction of the box's outline that is the region */
} shape;

/* Fills sh from region id: holes are the non-region pixels of the box that
 * cannot reach the box's edge without crossing the region. scratch holds
 * at least bw*bh bytes, stack bw*bh entries. */
static void measure(const seg *s, uint32_t id, shape *sh, uint8_t *m, uint32_t *st) {
    const flat_region *g = &s->r[id - 1];
    uint32_t bw = g->x1 - g->x0 + 1, bh = g->y1 - g->y0 + 1;
    memset(sh, 0, sizeof *sh);
    sh->id = id, sh->x0 = g->x0, sh->y0 = g->y0, sh->x1 = g->x1, sh->y1 = g->y1, sh->bw = bw, sh->bh = bh;
    fill_of(g, sh->fill);
    /* m: 1 region, 2 reached from outside, 0 enclosed */
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++) m[y * bw + x] = s->lab[(g->y0 + y) * s->w + g->x0 + x] == id;
    pg_morph_fill_from_edge(m, bw, bh, st);
    sh->hx0 = UINT32_MAX, sh->hy0 = UINT32_MAX;
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++) {
            uint8_t v = m[y * bw + x];
            if (v == 2) continue;
            sh->filled++;
            if (v == 0) {
                sh->holes++;
                uint32_t X = g->x0 + x, Y = g->y0 + y;
                if (X < sh->hx0) sh->hx0 = X;
                if (X > sh->hx1) sh->hx1 = X;
                if (Y < sh->hy0) sh->hy0 = Y;
                if (Y > sh->hy1) sh->hy1 = Y;
            }
        }
    if (bw >= 40 && bh >= 30 && sh->filled * 100 < (uint64_t)bw * bh * 93) {
        /* rows the region leaves (mostly) empty: one run of them, 8..48 high */
        int64_t r0 = -1, r1 = -1;
        bool one = true;
        uint64_t outside = 0;
        for (uint32_t y = 0; y < bh; y++) {
            uint32_t f = 0;
            for (uint32_t x = 0; x < bw; x++) f += m[y * bw + x] != 2;
            bool empty = f * 100 < bw * 25;
            if (empty) {
                if (r1 >= 0 && (int64_t)y != r1 + 1) one = false;
                if (r0 < 0) r0 = y;
                r1 = y;
            } else {
                outside += f;
            }
        }
        uint32_t gh = r0 >= 0 ? (uint32_t)(r1 - r0 + 1) : 0;
        if (one && r0 >= 0 && gh >= 8 && gh <= 48 && bh * 10 >= gh * 25) { /* a list: rows of several lines */
            sh->gap = true, sh->gap0 = g->y0 + (uint32_t)r0, sh->gap1 = g->y0 + (uint32_t)r1;
            sh->gap_filled = outside;
        }
    }
    {
        uint64_t on = 0, all = 0;
        for (uint32_t x = 0; x < bw; x++) on += (m[x] == 1) + (m[(bh - 1) * bw + x] == 1), all += 2;
        for (uint32_t y = 1; y + 1 < bh; y++) on += (m[y * bw] == 1) + (m[y * bw + bw - 1] == 1), all += 2;
        sh->perim = all ? (double)on / (double)all : 0;
    }
#define F(X, Y) (m[(Y) * bw + (X)] != 2)
    if (bw >= 3 && bh >= 3) {
        sh->corners = F(1, 1) && F(bw - 2, 1) && F(1, bh - 2) && F(bw - 2, bh - 2);
        sh->corners0 = F(0, 0) + F(bw - 1, 0) + F(0, bh - 1) + F(bw - 1, bh - 1);
        /* the middle of an even side is either of its two middle pixels */
        uint32_t mx0 = (bw - 1) / 2, mx1 = bw / 2, my0 = (bh - 1) / 2, my1 = bh / 2;
        sh->mid_edges = (F(mx0, 0) || F(mx1, 0)) && (F(mx0, bh - 1) || F(mx1, bh - 1)) &&
                        (F(0, my0) || F(0, my1)) && (F(bw - 1, my0) || F(bw - 1, my1));
        sh->mid_edges1 = (F(mx0, 1) || F(mx1, 1)) && (F(mx0, bh - 2) || F(mx1, bh - 2)) &&
                         (F(1, my0) || F(1, my1)) && (F(bw - 2, my0) || F(bw - 2, my1));
    }
    sh->centre = F(bw / 2, bh / 2);
#undef F
    memcpy(sh->centre_px, px(s, g->x0 + bw / 2, g->y0 + bh / 2), 3);
    if (g->x0 > 0 && g->y0 > 0 && g->x1 + 1 < s->w && g->y1 + 1 < s->h) {
        int lf = luma(sh->fill);
        int t = luma(px(s, g->x0 + bw / 2, g->y0 - 1)) - lf, l = luma(px(s, g->x0 - 1, g->y0 + bh / 2)) - lf;
        int b = luma(px(s, g->x0 + bw / 2, g->y1 + 1)) - lf, r = luma(px(s, g->x1 + 1, g->y0 + bh / 2)) - lf;
        sh->relief = (t >= 20 && l >= 20 && b <= -20 && r <= -20) || (t <= -20 && l <= -20 && b >= 20 && r >= 20);
    }
    /* Around: the most common of 8 samples 4 px outside the box (clipped). */
    int64_t sx[8], sy[8];
    int64_t X0 = (int64_t)g->x0 - 4, Y0 = (int64_t)g->y0 - 4, X1 = (int64_t)g->x1 + 4, Y1 = (int64_t)g->y1 + 4;
    int64_t XM = ((int64_t)g->x0 + g->x1) / 2, YM = ((int64_t)g->y0 + g->y1) / 2;
    int64_t pts[8][2] = {{X0, Y0}, {XM, Y0}, {X1, Y0}, {X0, YM}, {X1, YM}, {X0, Y1}, {XM, Y1}, {X1, Y1}};
    int k = 0;
    for (int i = 0; i < 8; i++) {
        int64_t x = pts[i][0], y = pts[i][1];
        if (x < 0 || y < 0 || x >= s->w || y >= s->h) continue;
        sx[k] = x, sy[k] = y, k++;
    }
    if (!k) {
        memcpy(sh->around, s->bg, 3);
        return;
    }
    int best = 0, bestn = -1;
    for (int i = 0; i < k; i++) {
        int n = 0;
        for (int j = 0; j < k; j++) n += near3(px(s, (uint32_t)sx[i], (uint32_t)sy[i]), px(s, (uint32_t)sx[j], (uint32_t)sy[j]), 6);
        if (n > bestn) bestn = n, best = i;
    }
    memcpy(sh->around, px(s, (uint32_t)sx[best], (uint32_t)sy[best]), 3);
}

/* ------------------------------------------------------------ controls */

typedef struct {
    pg_layout_control *v;
    size_t n, cap;
} ctl_list;

static bool push(ctl_list *l, const pg_layout_control *c) {
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        pg_layout_control *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) return false;
        l->v = nv, l->cap = nc;
    }
    l->v[l->n++] = *c;
    return true;
}

static pg_img_rect rect_of(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
    return (pg_img_rect){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* Is the small shape an indicator? Fills kind, on and conf. */
static bool indicator(const shape *sh, pg_layout_control *c) {
    uint32_t bw = sh->bw, bh = sh->bh;
    if (bw < 7 || bh < 7 || bw > 26 || bh > 26) return false;
    uint32_t d = bw > bh ? bw - bh : bh - bw;
    if (d > 1 + bw / 8) return false;
    double sol = (double)sh->filled / ((double)bw * bh);
    /* A square's frame may be drawn in two colours (a sunken relief): the
     * inside then takes the light sides with it, leaving one corner out. */
    bool square = sol >= 0.8 && sh->corners && sh->corners0 >= 3;
    /* Rounded corners (GTK's Adwaita): a square without its corner pixels,
     * still far more solid than a disc (pi/4). */
    bool rounded = !square && sh->corners0 < 3 && sh->centre && (sh->mid_edges || sh->mid_edges1) && sol >= 0.86;
    square = square || rounded;
    bool disc = !rounded && sh->corners0 == 0 && sh->centre && sh->mid_edges && sol >= 0.66 && sol < 0.86;
    bool diamond = sh->corners0 == 0 && !sh->corners && sh->centre && sh->mid_edges && sol >= 0.42 && sol < 0.66;
    if (!square && !disc && !diamond) return false;
    /* A glyph's counter (the inside of an O) is the window's own colour; an
     * indicator is filled with its own, or sits in a frame of one. */
    bool own_fill = !near3(sh->fill, sh->around, 10) || sh->relief;
    c->kind = square ? PG_CTL_CHECK : PG_CTL_RADIO;
    /* On: a mark in the centre (holes covering the middle), or a dark or
     * saturated fill. */
    bool mark = false;
    if (sh->holes * 100 >= sh->filled * 6 && sh->holes > 0) {
        uint32_t hcx = (sh->hx0 + sh->hx1) / 2, hcy = (sh->hy0 + sh->hy1) / 2;
        uint32_t cx = (sh->x0 + sh->x1) / 2, cy = (sh->y0 + sh->y1) / 2;
        mark = absd((int)hcx, (int)cx) * 4 <= (int)bw && absd((int)hcy, (int)cy) * 4 <= (int)bh;
    }
    bool strong = luma(sh->fill) < 150 || chroma(sh->fill) >= 60;
    c->on = mark || strong;
    c->box = rect_of(sh->x0, sh->y0, sh->x1, sh->y1);
    c->inner = c->box;
    memcpy(c->fill, sh->fill, 3);
    double shape_fit = square ? (rounded ? sol - 0.05 : sol) : disc ? 1.0 - absd((int)(sol * 100), 78) / 30.0 : 1.0 - absd((int)(sol * 100), 52) / 30.0;
    c->conf = clamp01(0.5 * shape_fit + (own_fill ? 0.45 : 0.2) + (d == 0 ? 0.05 : 0));
    return own_fill || c->on || diamond;
}

/* A solid rectangle: entry, button, list/text area, or a trough segment. */
/* A solid rectangle: entry, button, list/text area, a trough segment, or
 * another fill (a list's selected band). */
typedef enum { R_NONE, R_RECT, R_LIGHT, R_BUTTON, R_TROUGH } rect_class;

static rect_class rect_kind(const shape *sh) {
    uint32_t bw = sh->bw, bh = sh->bh;
    double sol = (double)sh->filled / ((double)bw * bh);
    int lf = luma(sh->fill), lo = luma(sh->around);
    if (sh->gap) { /* a list whose selected band touches its frame */
        uint64_t rest = (uint64_t)bw * (bh - (sh->gap1 - sh->gap0 + 1));
        if (sh->gap_filled * 100 >= rest * 93 && (lf >= lo + 6 || lf >= 235)) return R_LIGHT;
    }
    /* Solid, or outlined: text touching the inside of a frame (a list's last
     * row) is not enclosed, but the fill still runs all round the box. */
    bool rect = (sol >= 0.93 && sh->corners) || (sol >= 0.8 && sh->perim >= 0.9);
    if (!rect || bw < 12 || bh < 2) return R_NONE;
    uint32_t t = bw < bh ? bw : bh, len = bw < bh ? bh : bw;
    bool thin_line = t <= 3 && len >= 60 && !near3(sh->fill, sh->around, 16);
    if ((t >= 4 && t <= 26 && len >= 2 * t && len >= 12 && lf + 6 < lo && sh->holes * 20 < sh->filled) || thin_line)
        return R_TROUGH;
    if (bh < 8) return R_NONE;
    if (lf >= lo + 6 || (lf >= 235 && lf > lo)) return R_LIGHT;
    if (sh->holes && bh >= 14 && bh <= 64 && bw >= bh + bh / 4 && bw <= 480) {
        uint32_t icx = (sh->hx0 + sh->hx1) / 2, cx = (sh->x0 + sh->x1) / 2;
        bool centred = absd((int)icx, (int)cx) * 100 <= (int)bw * 12;
        bool margin = (sh->hx0 - sh->x0) * 100 >= bw * 10 && (sh->x1 - sh->hx1) * 100 >= bw * 10;
        if (centred && margin) return R_BUTTON;
    }
    return bh <= 48 ? R_RECT : R_NONE;
}

typedef struct {
    shape sh;
    rect_class cls;
    bool used;
} rcand;

static int cmp_ctl(const void *a, const void *b) {
    const pg_layout_control *p = a, *q = b;
    int64_t py = (int64_t)p->box.y + p->box.h / 2, qy = (int64_t)q->box.y + q->box.h / 2;
    /* rows: boxes whose middles are within 6 px read left to right */
    if (py + 6 < qy) return -1;
    if (qy + 6 < py) return 1;
    if (p->box.x != q->box.x) return p->box.x < q->box.x ? -1 : 1;
    if (p->box.y != q->box.y) return p->box.y < q->box.y ? -1 : 1;
    return (int)p->kind - (int)q->kind;
}

static bool contains(const pg_img_rect *o, const pg_img_rect *i) {
    return i->x >= o->x && i->y >= o->y && i->x + i->w <= o->x + o->w && i->y + i->h <= o->y + o->h;
}

static uint64_t overlap(const pg_img_rect *a, const pg_img_rect *b) {
    int64_t x0 = a->x > b->x ? a->x : b->x, y0 = a->y > b->y ? a->y : b->y;
    int64_t x1 = (int64_t)a->x + a->w < (int64_t)b->x + b->w ? (int64_t)a->x + a->w : (int64_t)b->x + b->w;
    int64_t y1 = (int64_t)a->y + a->h < (int64_t)b->y + b->h ? (int64_t)a->y + a->h : (int64_t)b->y + b->h;
    return x1 > x0 && y1 > y0 ? (uint64_t)(x1 - x0) * (uint64_t)(y1 - y0) : 0;
}

/* Within 3 px on every side: a frame and what it holds. */
static bool same_place(const pg_img_rect *a, const pg_img_rect *b) {
    return absd((int)a->x, (int)b->x) <= 3 && absd((int)a->y, (int)b->y) <= 3 &&
           absd((int)(a->x + a->w), (int)(b->x + b->w)) <= 3 && absd((int)(a->y + a->h), (int)(b->y + b->h)) <= 3;
}

/* Light rectangles stacked with the same sides (a list split by its
 * selected band) merge into one; the band is the member of another fill. */
static void light_controls(rcand *rc, size_t n, ctl_list *out, bool *oom) {
    size_t first = out->n;
    for (size_t i = 0; i < n && !*oom; i++) {
        if (rc[i].used || (rc[i].cls != R_LIGHT)) continue;
        shape a = rc[i].sh;
        uint32_t x0 = a.x0, x1 = a.x1, y0 = a.y0, y1 = a.y1;
        pg_img_rect band = a.gap ? rect_of(x0, a.gap0, x1, a.gap1) : (pg_img_rect){0};
        rc[i].used = true;
        bool grew = true;
        while (grew) {
            grew = false;
            for (size_t j = 0; j < n; j++) {
                if (rc[j].used) continue;
                const shape *b = &rc[j].sh;
                if (absd((int)b->x0, (int)x0) > 1 || absd((int)b->x1, (int)x1) > 1) continue;
                bool below = b->y0 >= y1 && b->y0 <= y1 + 1, above = b->y1 + 1 >= y0 && b->y1 <= y0;
                if (!below && !above) continue;
                if (!near3(b->fill, a.fill, 12)) {
                    if (band.w || b->bh > 48) continue;
                    band = rect_of(b->x0, b->y0, b->x1, b->y1);
                } else if (rc[j].cls != R_LIGHT) {
                    continue;
                }
                rc[j].used = true;
                y0 = b->y0 < y0 ? b->y0 : y0, y1 = b->y1 > y1 ? b->y1 : y1;
                grew = true;
            }
        }
        uint32_t bw = x1 - x0 + 1, bh = y1 - y0 + 1;
        pg_layout_control c = {0};
        c.selected = -1;
        memcpy(c.fill, a.fill, 3);
        c.inner = rect_of(x0, y0, x1, y1);
        /* The frame: one pixel out on each side where there is room. */
        c.box = rect_of(x0 ? x0 - 1 : 0, y0 ? y0 - 1 : 0, x1 + 1, y1 + 1);
        double lift = clamp01((luma(a.fill) - luma(a.around)) / 30.0);
        if (bh <= 48 && !band.w) {
            if (bw < 40 || bw * 10 < bh * 25) continue;
            c.kind = PG_CTL_ENTRY;
            c.conf = clamp01(0.6 + 0.4 * lift);
        } else {
            if (bw < 40) continue;
            c.kind = band.w ? PG_CTL_LIST : PG_CTL_TEXTAREA;
            c.band = band;
            c.conf = clamp01(0.55 + 0.25 * lift + (band.w ? 0.2 : 0));
        }
        /* A frame drawn as a light ring around a light inside: one control,
         * the outer box and the inner text area. */
        bool merged = false;
        for (size_t k = first; k < out->n && !merged; k++) {
            pg_layout_control *o = &out->v[k];
            if (!same_place(&o->box, &c.box) && !contains(&o->inner, &c.box) && !contains(&c.inner, &o->box)) continue;
            if (!same_place(&o->box, &c.box)) continue;
            bool c_inside = contains(&o->box, &c.inner);
            if (c_inside) o->inner = c.inner, memcpy(o->fill, c.fill, 3);
            else o->box = c.box;
            if (c.band.w) o->band = c.band, o->kind = c.kind;
            o->conf = o->conf > c.conf ? o->conf : c.conf;
            merged = true;
        }
        if (!merged && !push(out, &c)) *oom = true;
    }
}

/* Troughs: segments of one bar (cut by its thumb) lie on one line with the
 * same thickness; the thumb is the widest gap between them or, at an end,
 * the run beyond the last segment that is not the surrounding colour. */
typedef struct {
    bool vert;
    uint32_t c0, c1;  /* cross extent */
    int64_t a0, a1;   /* along extent of the segments */
    uint8_t fill[3], around[3];
    int64_t gap0, gap1; /* widest inner gap, gap1 < gap0 when none */
} trough;

static void trough_scan_ends(const seg *s, const trough *t, int64_t *e0, int64_t *e1) {
    uint32_t th = t->c1 - t->c0 + 1;
    int64_t lim = t->vert ? s->h : s->w, reach = 4 * (int64_t)(th < 6 ? 6 : th);
    /* Along the centre line, and along the bar's frame just outside it: a
     * thumb's face may have the window's colour, its frame does not. */
    uint32_t lines[2] = {(t->c0 + t->c1) / 2, t->c0 > 0 ? t->c0 - 1 : t->c0};
    *e0 = t->a0, *e1 = t->a1;
    for (int k = 0; k < 2; k++) {
        uint32_t cl = lines[k];
#define AT(p) (t->vert ? px(s, cl, (uint32_t)(p)) : px(s, (uint32_t)(p), cl))
        for (int64_t p = t->a0 - 1; p >= 0 && p >= t->a0 - reach && !near3(AT(p), t->around, 6); p--)
            if (p < *e0) *e0 = p;
        for (int64_t p = t->a1 + 1; p < lim && p <= t->a1 + reach && !near3(AT(p), t->around, 6); p++)
            if (p > *e1) *e1 = p;
#undef AT
    }
}

static void trough_control(const seg *s, const trough *t, const pg_layout_control *lists, size_t nl,
                           pg_layout_control *c) {
    memset(c, 0, sizeof *c);
    c->selected = -1;
    c->vertical = t->vert;
    memcpy(c->fill, t->fill, 3);
    uint32_t th = t->c1 - t->c0 + 1;
    int64_t e0, e1;
    trough_scan_ends(s, t, &e0, &e1);
    bool along_list = false;
    for (size_t i = 0; i < nl; i++) {
        const pg_img_rect *b = &lists[i].box;
        if (t->vert) {
            int64_t gap = (int64_t)t->c0 - ((int64_t)b->x + b->w);
            if (gap >= -2 && gap <= 8 && e0 + 8 >= b->y && e1 <= (int64_t)b->y + b->h + 8) along_list = true;
        } else {
            int64_t gap = (int64_t)t->c0 - ((int64_t)b->y + b->h);
            if (gap >= -2 && gap <= 8 && e0 + 8 >= b->x && e1 <= (int64_t)b->x + b->w + 8) along_list = true;
        }
    }
    /* Arrows: both ends carry a run about as long as the bar is thick. */
    int64_t r0 = t->a0 - e0, r1 = e1 - t->a1;
    bool arrows = th >= 8 && r0 >= (int64_t)th * 2 / 3 && r1 >= (int64_t)th * 2 / 3;
    c->kind = along_list || arrows || t->vert ? PG_CTL_SCROLLBAR : PG_CTL_SLIDER;
    int64_t len = e1 - e0 + 1;
    c->box = t->vert ? (pg_img_rect){t->c0, (uint32_t)e0, th, (uint32_t)len}
                     : (pg_img_rect){(uint32_t)e0, t->c0, (uint32_t)len, th};
    c->inner = c->box;
    int64_t arrow = arrows ? (int64_t)th : 0;
    int64_t track0 = e0 + arrow, track1 = e1 - arrow;
    int64_t b0, b1;
    if (t->gap1 >= t->gap0) {
        b0 = t->gap0, b1 = t->gap1;
    } else if (r0 - arrow >= r1 - arrow) {
        b0 = e0 + arrow, b1 = t->a0 - 1;
    } else {
        b0 = t->a1 + 1, b1 = e1 - arrow;
    }
    if (b1 < b0 || b1 - b0 + 1 < 3) { /* no thumb seen */
        c->conf = 0.3;
        return;
    }
    int64_t tl = b1 - b0 + 1;
    c->thumb = t->vert ? (pg_img_rect){t->c0, (uint32_t)b0, th, (uint32_t)tl}
                       : (pg_img_rect){(uint32_t)b0, t->c0, (uint32_t)tl, th};
    double tr = (double)(track1 - track0 + 1);
    if (c->kind == PG_CTL_SLIDER) {
        double span = tr - (double)tl;
        c->first = c->last = span > 0 ? clamp01((double)(b0 - track0) / span) : 0;
        if (t->vert) c->first = c->last = 1.0 - c->first; /* a vertical slider grows upwards */
    } else {
        c->first = tr > 0 ? clamp01((double)(b0 - track0) / tr) : 0;
        c->last = tr > 0 ? clamp01((double)(b1 - track0 + 1) / tr) : 1;
    }
    c->conf = clamp01(0.55 + 0.25 + (along_list || c->kind == PG_CTL_SLIDER ? 0.15 : 0));
}

/* Groups the trough segments among rc into bars. */
static size_t group_troughs(rcand *rc, size_t n, trough *out, size_t max) {
    size_t nt = 0;
    for (size_t i = 0; i < n && nt < max; i++) {
        if (rc[i].cls != R_TROUGH || rc[i].used) continue;
        const shape *a = &rc[i].sh;
        trough t = {.vert = a->bh > a->bw};
        t.c0 = t.vert ? a->x0 : a->y0, t.c1 = t.vert ? a->x1 : a->y1;
        t.a0 = t.vert ? a->y0 : a->x0, t.a1 = t.vert ? a->y1 : a->x1;
        memcpy(t.fill, a->fill, 3), memcpy(t.around, a->around, 3);
        t.gap0 = 1, t.gap1 = 0;
        rc[i].used = true;
        uint32_t th = t.c1 - t.c0 + 1;
        bool grew = true;
        while (grew) {
            grew = false;
            for (size_t j = 0; j < n; j++) {
                if (rc[j].cls != R_TROUGH || rc[j].used) continue;
                const shape *b = &rc[j].sh;
                bool bv = b->bh > b->bw;
                uint32_t c0 = t.vert ? b->x0 : b->y0, c1 = t.vert ? b->x1 : b->y1;
                int64_t a0 = t.vert ? b->y0 : b->x0, a1 = t.vert ? b->y1 : b->x1;
                if (absd((int)c0, (int)t.c0) > 2 || absd((int)c1, (int)t.c1) > 2 || !near3(b->fill, t.fill, 12))
                    continue;
                if (bv != t.vert && (a1 - a0 + 1) < 3 * (int64_t)th) continue;
                int64_t gap = a0 > t.a1 ? a0 - t.a1 - 1 : t.a0 > a1 ? t.a0 - a1 - 1 : -1;
                if (gap < 0 || gap > 8 * (int64_t)(th < 6 ? 6 : th)) continue;
                if (gap > t.gap1 - t.gap0 + 1) {
                    if (a0 > t.a1) t.gap0 = t.a1 + 1, t.gap1 = a0 - 1;
                    else t.gap0 = a1 + 1, t.gap1 = t.a0 - 1;
                }
                t.a0 = a0 < t.a0 ? a0 : t.a0, t.a1 = a1 > t.a1 ? a1 : t.a1;
                rc[j].used = true;
                grew = true;
            }
        }
        if (t.a1 - t.a0 + 1 < 24) continue;
        out[nt++] = t;
    }
    return nt;
}

#define MAX_TROUGHS 64

static pg_err detect(seg *s, pg_layout_result *out, pg_error *e) {
    size_t np = (size_t)s->w * s->h;
    for (uint32_t y = 0; y < s->h; y++)
        for (uint32_t x = 0; x < s->w; x++)
            if (!s->lab[y * s->w + x] && !flood(s, x, y)) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    out->regions = (unsigned)s->n;
    uint8_t *m = malloc(np);
    uint32_t *st = malloc(np * sizeof *st);
    rcand *rc = calloc(s->n + 1, sizeof *rc);
    trough *tr = calloc(MAX_TROUGHS, sizeof *tr);
    ctl_list ind = {0}, all = {0};
    size_t nrc = 0;
    bool oom = !m || !st || !rc || !tr;
    for (size_t i = 0; i < s->n && !oom; i++) {
        const flat_region *g = &s->r[i];
        uint32_t bw = g->x1 - g->x0 + 1, bh = g->y1 - g->y0 + 1;
        if (g->count < 12 || (uint64_t)bw * bh * 2 > np || (bw < 7 && bh < 7)) continue;
        if (bw == s->w || bh == s->h) continue;
        shape sh;
        measure(s, (uint32_t)i + 1, &sh, m, st);
        pg_layout_control c = {0};
        c.selected = -1;
        if (indicator(&sh, &c)) {
            oom = !push(&ind, &c);
            continue;
        }
        rect_class k = rect_kind(&sh);
        if (k != R_NONE) rc[nrc++] = (rcand){sh, k, false};
    }
    /* Nested indicators (a frame ring around its inside): keep one, with the
     * outer box and the inner one's state. */
    for (size_t i = 0; i < ind.n && !oom; i++) {
        pg_layout_control *a = &ind.v[i];
        if (a->conf < 0) continue;
        for (size_t j = 0; j < ind.n; j++) {
            pg_layout_control *b = &ind.v[j];
            if (i == j || b->conf < 0 || !contains(&a->box, &b->box)) continue;
            if (a->box.w == b->box.w && a->box.h == b->box.h && j < i) continue;
            a->on = b->on, a->inner = b->box, memcpy(a->fill, b->fill, 3);
            a->conf = a->conf > b->conf ? a->conf : b->conf;
            b->conf = -1;
        }
    }
    size_t first_light = 0;
    if (!oom) light_controls(rc, nrc, &all, &oom);
    size_t lights = all.n;
    for (size_t i = 0; i < nrc && !oom; i++) {
        if (rc[i].used || rc[i].cls != R_BUTTON) continue;
        const shape *sh = &rc[i].sh;
        pg_layout_control c = {0};
        c.selected = -1;
        c.kind = PG_CTL_BUTTON;
        c.inner = rect_of(sh->x0, sh->y0, sh->x1, sh->y1);
        c.box = rect_of(sh->x0 ? sh->x0 - 1 : 0, sh->y0 ? sh->y0 - 1 : 0, sh->x1 + 1, sh->y1 + 1);
        memcpy(c.fill, sh->fill, 3);
        c.conf = 0.8;
        bool dup = false;
        for (size_t j = lights; j < all.n && !dup; j++) dup = same_place(&all.v[j].box, &c.box);
        if (!dup) oom = !push(&all, &c);
    }
    size_t nt = oom ? 0 : group_troughs(rc, nrc, tr, MAX_TROUGHS);
    size_t bars = all.n;
    for (size_t i = 0; i < nt && !oom; i++) {
        pg_layout_control c;
        trough_control(s, &tr[i], all.v ? all.v + first_light : NULL, lights - first_light, &c);
        oom = !push(&all, &c);
    }
    /* A light "entry" holding an indicator near its left edge is a check
     * box or radio button under the pointer (its hover highlight), not an
     * entry: the entry goes, the indicator stays. */
    size_t kept = 0;
    for (size_t j = 0; j < bars; j++) {
        const pg_layout_control *o = &all.v[j];
        bool hover = false;
        for (size_t i = 0; o->kind == PG_CTL_ENTRY && i < ind.n && !hover; i++) {
            const pg_layout_control *a = &ind.v[i];
            hover = a->conf >= 0 && contains(&o->inner, &a->box) && a->box.x - o->inner.x <= 2 * a->box.w + 4;
        }
        if (!hover) all.v[kept++] = *o;
    }
    size_t dropped = bars - kept;
    if (dropped) memmove(all.v + kept, all.v + bars, (all.n - bars) * sizeof *all.v);
    all.n -= dropped, bars -= dropped;
    /* Indicators inside a light control, a button or a bar are content (a
     * glyph, an icon, an arrow), not controls of their own. */
    for (size_t i = 0; i < ind.n && !oom; i++) {
        pg_layout_control *a = &ind.v[i];
        if (a->conf < 0) continue;
        bool inside = false;
        for (size_t j = 0; j < all.n && !inside; j++) {
            const pg_layout_control *o = &all.v[j];
            inside = j >= bars ? overlap(&o->box, &a->box) > 0 || same_place(&o->box, &a->box)
                               : contains(&o->inner, &a->box);
            if (!inside && (o->kind == PG_CTL_LIST || o->kind == PG_CTL_TEXTAREA)) {
                /* a scrollbar's arrow flush against a list's right side */
                int64_t gap = (int64_t)a->box.x - ((int64_t)o->box.x + o->box.w);
                inside = gap >= -2 && gap <= 6 && a->box.y + 2 >= o->box.y && a->box.y + a->box.h <= o->box.y + o->box.h + 2;
            }
            if (!inside && j >= bars) { /* an arrow just beyond a bar's end */
                pg_img_rect grown = {o->box.x >= 3 ? o->box.x - 3 : 0, o->box.y >= 3 ? o->box.y - 3 : 0,
                                     o->box.w + 6, o->box.h + 6};
                inside = overlap(&grown, &a->box) > 0;
            }
        }
        if (!inside) oom = !push(&all, a);
    }
    free(m);
    free(st);
    free(rc);
    free(tr);
    free(ind.v);
    if (oom) {
        free(all.v);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for layout");
    }
    if (all.n > PG_LAYOUT_MAX_CONTROLS) all.n = PG_LAYOUT_MAX_CONTROLS;
    qsort(all.v, all.n, sizeof *all.v, cmp_ctl);
    out->v = all.v;
    out->n = all.n;
    return PG_OK;
}

pg_err pg_layout_detect(const pg_img *img, const pg_img_rect *region, pg_layout_result *out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_USAGE, NULL, "pg_layout_detect: no result");
    memset(out, 0, sizeof *out);
    if (!img || !img->px || !img->width || !img->height || img->stride < (size_t)img->width * 4)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "not an image");
    pg_img v;
    pg_err rc = pg_img_view(img, region, &v, e);
    if (rc) return rc;
    uint64_t np = (uint64_t)v.width * v.height;
    if (np > PG_LAYOUT_MAX_PIXELS)
        return pg_error_set(e, PG_E_BADINPUT, "run layout on a window or a region",
                            "image %ux%u is over the layout limit of %llu pixels", v.width, v.height,
                            (unsigned long long)PG_LAYOUT_MAX_PIXELS);
    seg s = {.img = &v, .w = v.width, .h = v.height};
    s.lab = calloc((size_t)np, sizeof *s.lab);
    s.stack = malloc((size_t)np * sizeof *s.stack);
    if (!s.lab || !s.stack) {
        free(s.lab);
        free(s.stack);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for layout");
    }
    find_bg(&s);
    memcpy(out->bg, s.bg, 3);
    rc = detect(&s, out, e);
    free(s.lab);
    free(s.stack);
    free(s.r);
    if (rc == PG_OK && region) {
        for (size_t i = 0; i < out->n; i++) {
            pg_layout_control *c = &out->v[i];
            pg_img_rect *rs[4] = {&c->box, &c->inner, &c->band, &c->thumb};
            for (int j = 0; j < 4; j++)
                if (rs[j]->w) rs[j]->x += region->x, rs[j]->y += region->y;
        }
    }
    return rc;
}

void pg_layout_result_fini(pg_layout_result *r) {
    if (!r) return;
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------- labels */

static int64_t vov(const pg_img_rect *a, const pg_img_rect *b) {
    int64_t t = a->y > b->y ? a->y : b->y;
    int64_t u = (int64_t)a->y + a->h < (int64_t)b->y + b->h ? (int64_t)a->y + a->h : (int64_t)b->y + b->h;
    return u - t;
}

int pg_layout_label(const pg_layout_control *c, const pg_layout_text *t, size_t n, uint32_t img_w) {
    if (c->kind == PG_CTL_BUTTON) return -1;
    const pg_img_rect *b = &c->box;
    int best = -1;
    int64_t bestd = INT64_MAX;
    if (c->kind == PG_CTL_CHECK || c->kind == PG_CTL_RADIO) {
        for (size_t i = 0; i < n; i++) {
            const pg_img_rect *r = &t[i].box;
            int64_t gap = (int64_t)r->x - ((int64_t)b->x + b->w);
            if (gap < -2 || gap > 3 * (int64_t)b->w + 4 || vov(b, r) * 2 < (int64_t)b->h) continue;
            if (gap < bestd) bestd = gap, best = (int)i;
        }
        return best;
    }
    for (size_t i = 0; i < n; i++) { /* left, same row */
        const pg_img_rect *r = &t[i].box;
        if (overlap(r, &c->inner) * 2 > (uint64_t)r->w * r->h) continue;
        int64_t gap = (int64_t)b->x - ((int64_t)r->x + r->w);
        int64_t mid = (int64_t)r->y + r->h / 2;
        bool row = mid >= b->y && mid <= (int64_t)b->y + (b->h > 40 ? 40 : b->h);
        if (gap < -2 || gap * 10 > (int64_t)img_w * 4 || !row) continue;
        if (gap < bestd) bestd = gap, best = (int)i;
    }
    if (best >= 0) return best;
    for (size_t i = 0; i < n; i++) { /* above */
        const pg_img_rect *r = &t[i].box;
        int64_t gap = (int64_t)b->y - ((int64_t)r->y + r->h);
        bool hov = (int64_t)r->x < (int64_t)b->x + b->w && (int64_t)r->x + r->w > b->x;
        if (gap < -1 || gap > 3 * (int64_t)(r->h + 4) || !hov) continue;
        if (absd((int)r->x, (int)b->x) > (int)b->w / 2 + 8) continue;
        if (gap < bestd) bestd = gap, best = (int)i;
    }
    return best;
}
