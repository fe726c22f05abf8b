/* SPDX-License-Identifier: MIT */
#include "pg_regions.h"

#include <stdlib.h>
#include <string.h>

void pg_regions_init(pg_regions *g) { memset(g, 0, sizeof *g); }

void pg_regions_fini(pg_regions *g) {
    free(g->runs);
    memset(g, 0, sizeof *g);
}

void pg_regions_begin_row(pg_regions *g, uint32_t y) {
    g->cur_lo = g->len;
    g->cur_y = y;
}

void pg_regions_add_run(pg_regions *g, uint32_t x0, uint32_t x1) {
    if (g->oom) return;
    if (g->len == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 1024;
        pg_run *n = cap > g->cap ? realloc(g->runs, sizeof *n * cap) : NULL;
        if (!n) {
            g->oom = 1; /* reported by pg_regions_finish */
            return;
        }
        g->runs = n;
        g->cap = cap;
    }
    g->runs[g->len] = (pg_run){x0, x1, g->cur_y, g->len};
    g->len++;
}

static uint32_t find_root(pg_run *r, uint32_t i) {
    while (r[i].parent != i) {
        r[i].parent = r[r[i].parent].parent; /* path halving */
        i = r[i].parent;
    }
    return i;
}

/* The lower index stays root: the outcome never depends on visiting order. */
static void unite(pg_run *r, uint32_t a, uint32_t b) {
    a = find_root(r, a);
    b = find_root(r, b);
    if (a < b) r[b].parent = a;
    else if (b < a) r[a].parent = b;
}

void pg_regions_end_row(pg_regions *g) {
    if (g->oom) return;
    uint32_t i = g->prev_lo, j = g->cur_lo;
    int adjacent = g->prev_hi > g->prev_lo && g->runs[g->prev_lo].y + 1 == g->cur_y;
    while (adjacent && i < g->prev_hi && j < g->len) {
        pg_run *p = &g->runs[i], *c = &g->runs[j];
        /* 8-connectivity: runs touch if they overlap after widening by one. */
        if ((uint64_t)p->x1 + 1 < c->x0) i++;
        else if ((uint64_t)c->x1 + 1 < p->x0) j++;
        else {
            unite(g->runs, i, j);
            if (p->x1 < c->x1) i++;
            else j++;
        }
    }
    g->prev_lo = g->cur_lo;
    g->prev_hi = g->len;
}

/* Add (sign 1) or remove (-1) the runs [*i, ...) of row y to the column counts. */
static uint64_t band_update(const pg_regions *g, uint32_t *i, uint64_t y, uint32_t *col, int sign) {
    uint64_t moved = 0;
    for (; *i < g->len && g->runs[*i].y == y; (*i)++) {
        const pg_run *r = &g->runs[*i];
        for (uint32_t x = r->x0; x <= r->x1; x++) col[x] += (uint32_t)sign;
        moved += (uint64_t)r->x1 - r->x0 + 1;
    }
    return moved;
}

/* Column counts over the last n rows, slid down the rows that can hold run
 * pixels; each full band is scanned with a running sum of n columns unless
 * its total cannot beat the best window so far. */
pg_err pg_regions_max_window(const pg_regions *g, uint32_t w, uint32_t h, uint32_t n, uint64_t *out, pg_error *e) {
    *out = 0;
    if (g->oom) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while labelling regions");
    if (g->len == 0) return PG_OK;
    uint32_t *col = calloc(w, sizeof *col);
    if (!col) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while counting windows");
    uint64_t last = (uint64_t)g->runs[g->len - 1].y + n - 1, band = 0, best = 0;
    if (last > h - 1) last = h - 1;
    uint32_t enter = 0, leave = 0;
    for (uint64_t y = g->runs[0].y; y <= last; y++) {
        band += band_update(g, &enter, y, col, 1);
        if (y >= n) band -= band_update(g, &leave, y - n, col, -1);
        if (y + 1 < n || band <= best) continue;
        uint64_t sum = 0;
        for (uint32_t x = 0; x + 1 < n; x++) sum += col[x];
        for (uint32_t x = n - 1; x < w; x++) {
            sum += col[x];
            if (sum > best) best = sum;
            sum -= col[x + 1 - n];
        }
    }
    free(col);
    *out = best;
    return PG_OK;
}

typedef struct {
    uint64_t pixels;
    uint32_t x0, y0, x1, y1;
    uint32_t root;
} comp;

/* Is a listed before b? Larger first, then top-most, left-most, first found. */
static int comp_before(const comp *a, const comp *b) {
    if (a->pixels != b->pixels) return a->pixels > b->pixels;
    if (a->y0 != b->y0) return a->y0 < b->y0;
    if (a->x0 != b->x0) return a->x0 < b->x0;
    return a->root < b->root;
}

/* Min-heap on "listed before": the root is the weakest kept component. */
static void heap_sift_down(comp *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && comp_before(&h[m], &h[l])) m = l;
        if (r < n && comp_before(&h[m], &h[r])) m = r;
        if (m == i) return;
        comp t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_push(comp *h, size_t *n, size_t cap, const comp *c) {
    if (*n < cap) {
        size_t i = (*n)++;
        h[i] = *c;
        while (i > 0 && comp_before(&h[(i - 1) / 2], &h[i])) {
            comp t = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (cap > 0 && comp_before(c, &h[0])) {
        h[0] = *c;
        heap_sift_down(h, *n, 0);
    }
}

/* Accumulate every run into its root's entry of st (indexed by run). */
static void gather(pg_regions *g, comp *st) {
    for (uint32_t i = 0; i < g->len; i++) {
        pg_run *r = &g->runs[i];
        uint32_t root = find_root(g->runs, i);
        comp *c = &st[root];
        if (root == i) *c = (comp){0, r->x0, r->y, r->x1, r->y, root};
        c->pixels += (uint64_t)r->x1 - r->x0 + 1;
        if (r->x0 < c->x0) c->x0 = r->x0;
        if (r->x1 > c->x1) c->x1 = r->x1;
        if (r->y > c->y1) c->y1 = r->y; /* runs come top-down: y0 is already the minimum */
    }
}

pg_err pg_regions_finish(pg_regions *g, pg_region_info *out, size_t max_out, size_t *n_out, uint64_t *count,
                         pg_img_rect *bounds_out, pg_error *e) {
    *n_out = 0;
    *count = 0;
    if (g->oom) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while labelling regions");
    if (g->len == 0) return PG_OK;
    comp *st = malloc(sizeof *st * g->len);
    comp *heap = malloc(sizeof *heap * (max_out ? max_out : 1));
    if (!st || !heap) {
        free(st);
        free(heap);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while labelling regions");
    }
    gather(g, st);
    size_t hn = 0;
    uint32_t bx0 = UINT32_MAX, by0 = UINT32_MAX, bx1 = 0, by1 = 0;
    for (uint32_t i = 0; i < g->len; i++) {
        if (g->runs[i].parent != i) continue;
        (*count)++;
        heap_push(heap, &hn, max_out, &st[i]);
        if (st[i].x0 < bx0) bx0 = st[i].x0;
        if (st[i].y0 < by0) by0 = st[i].y0;
        if (st[i].x1 > bx1) bx1 = st[i].x1;
        if (st[i].y1 > by1) by1 = st[i].y1;
    }
    *bounds_out = (pg_img_rect){bx0, by0, bx1 - bx0 + 1, by1 - by0 + 1};
    for (size_t k = hn; k > 0; k--) { /* pop weakest last-to-first: out ends largest first */
        comp c = heap[0];
        heap[0] = heap[k - 1];
        heap_sift_down(heap, k - 1, 0);
        out[k - 1] = (pg_region_info){{c.x0, c.y0, c.x1 - c.x0 + 1, c.y1 - c.y0 + 1}, c.pixels};
    }
    *n_out = hn;
    free(st);
    free(heap);
    return PG_OK;
}
