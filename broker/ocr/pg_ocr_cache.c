/* SPDX-License-Identifier: MIT */
/* pg_ocr_cache.c - see pg_ocr_cache.h and docs/ocr.md ("Results kept"). */
#include "pg_ocr_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"

#define ROWD 16   /* bytes of each row's SHA-256 kept: 128 bits, collision-resistant enough for one user's rows */
#define MARGIN 6  /* rows around a change: antialiasing and the ink of a glyph the change did not touch */
#define MAX_BANDS 8
/* Rows read around a band whose words are then dropped (then out to clean
 * cuts). A band read alone is a small page to Tesseract, whose page-wide
 * choices (what is noise, how sure a lone glyph is) then differ from the full
 * read's: without context 22 of the 30 changed forms of test_ocr_cache read
 * like the full read, with 32 rows all 30. */
#define CONTEXT 32

typedef struct {
    uint8_t key[32];   /* language, options, size and row digests */
    uint8_t shape[32]; /* language, options and size: what a partial read may start from */
    uint32_t w, h;
    uint8_t *rows;     /* h x ROWD */
    pg_ocr_result res; /* region-relative: region {0, 0, w, h} */
    uint64_t used;
    size_t bytes;
} entry;

typedef struct {
    bool live;
    uint32_t uid;
    uint64_t used;
    entry *e[PG_OCR_CACHE_ENTRIES];
    size_t n, bytes;
} part;

struct pg_ocr_cache {
    pthread_mutex_t lock;
    part parts[PG_OCR_CACHE_USERS];
    uint64_t tick;
    pg_ocr_cache_stats st;
};

/* ------------------------------------------------------------ results */

static void result_shift(pg_ocr_result *r, int dx, int dy) {
    for (size_t i = 0; i < r->n_words; i++) r->words[i].x += dx, r->words[i].y += dy;
    r->region.x += (uint32_t)dx, r->region.y += (uint32_t)dy;
}

/* A deep copy of src, every box moved by (dx, dy). */
static pg_err result_copy(const pg_ocr_result *src, int dx, int dy, pg_ocr_result *dst, pg_error *e) {
    *dst = *src;
    dst->words = calloc(src->n_words + 1, sizeof *dst->words);
    dst->text = strdup(src->text ? src->text : "");
    bool ok = dst->words && dst->text;
    for (size_t i = 0; ok && i < src->n_words; i++) {
        dst->words[i] = src->words[i];
        ok = (dst->words[i].text = strdup(src->words[i].text)) != NULL;
        if (!ok) dst->n_words = i;
    }
    if (!ok) {
        pg_ocr_result_fini(dst);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory copying an OCR result");
    }
    result_shift(dst, dx, dy);
    return PG_OK;
}

static size_t result_bytes(const pg_ocr_result *r) {
    size_t b = (r->n_words + 1) * sizeof(pg_ocr_word) + strlen(r->text ? r->text : "") + 1;
    for (size_t i = 0; i < r->n_words; i++) b += strlen(r->words[i].text) + 1;
    return b;
}

/* ------------------------------------------------------------- digests */

typedef struct {
    uint8_t key[32], shape[32];
    uint32_t w, h;
    uint8_t *rows;
} digest;

/* Every option that changes a result, in a fixed layout (timeout_ms and
 * max_pixels only decide whether there is one). */
static pg_err shape_of(const char *lang, const pg_ocr_opts *o, uint32_t w, uint32_t h, uint8_t out[32], pg_error *e) {
    int32_t f[7] = {o->scale, o->psm, o->invert, o->min_conf, o->field, (int32_t)w, (int32_t)h};
    char buf[64 + sizeof f];
    size_t n = strnlen(lang, 63);
    memset(buf, 0, sizeof buf);
    memcpy(buf, lang, n);
    memcpy(buf + 64, f, sizeof f);
    return pg_sha256(buf, sizeof buf, out, e);
}

static pg_err digest_of(const char *lang, const pg_img *v, const pg_ocr_opts *o, digest *d, pg_error *e) {
    d->w = v->width, d->h = v->height;
    d->rows = malloc((size_t)v->height * ROWD);
    if (!d->rows) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for row digests");
    uint8_t full[32];
    pg_err rc = PG_OK;
    for (uint32_t y = 0; y < v->height && !rc; y++) {
        rc = pg_sha256(pg_img_row(v, y), (size_t)v->width * 4, full, e);
        memcpy(d->rows + (size_t)y * ROWD, full, ROWD);
    }
    if (!rc) rc = shape_of(lang, o, v->width, v->height, d->shape, e);
    uint8_t *both = rc ? NULL : malloc(32 + (size_t)v->height * ROWD);
    if (!rc && !both) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a cache key");
    if (!rc) {
        memcpy(both, d->shape, 32);
        memcpy(both + 32, d->rows, (size_t)v->height * ROWD);
        rc = pg_sha256(both, 32 + (size_t)v->height * ROWD, d->key, e);
    }
    free(both);
    if (rc) free(d->rows), d->rows = NULL;
    return rc;
}

/* ---------------------------------------------------------- partitions */

static void entry_free(entry *x) {
    if (!x) return;
    free(x->rows);
    pg_ocr_result_fini(&x->res);
    free(x);
}

static void part_drop(part *p, size_t i) {
    p->bytes -= p->e[i]->bytes;
    entry_free(p->e[i]);
    p->e[i] = p->e[--p->n];
}

static void part_empty(part *p) {
    while (p->n) part_drop(p, p->n - 1);
    memset(p, 0, sizeof *p);
}

/* The caller's partition, or NULL (make: take a free one, else the one whose
 * user read least recently, emptied). Lock held. */
static part *part_of(pg_ocr_cache *c, uint32_t uid, bool make) {
    part *oldest = NULL;
    for (size_t i = 0; i < PG_OCR_CACHE_USERS; i++) {
        part *p = &c->parts[i];
        if (p->live && p->uid == uid) return p;
        if (!oldest || (oldest->live && (!p->live || p->used < oldest->used))) oldest = p;
    }
    if (!make) return NULL;
    if (oldest->live) c->st.users_evicted++;
    part_empty(oldest);
    oldest->live = true, oldest->uid = uid;
    return oldest;
}

static entry *part_find(part *p, const uint8_t key[32]) {
    for (size_t i = 0; p && i < p->n; i++)
        if (!memcmp(p->e[i]->key, key, 32)) return p->e[i];
    return NULL;
}

static void part_lru_out(part *p, size_t need) {
    while (p->n && (p->n >= PG_OCR_CACHE_ENTRIES || p->bytes + need > PG_OCR_CACHE_USER_BYTES)) {
        size_t lru = 0;
        for (size_t i = 1; i < p->n; i++)
            if (p->e[i]->used < p->e[lru]->used) lru = i;
        part_drop(p, lru);
    }
}

/* Keeps res (region-relative) under d's key for uid; takes d->rows. */
static void remember(pg_ocr_cache *c, uint32_t uid, digest *d, const pg_ocr_result *res) {
    entry *x = calloc(1, sizeof *x);
    pg_error ignored;
    if (!x || result_copy(res, 0, 0, &x->res, &ignored)) {
        free(x);
        return;
    }
    memcpy(x->key, d->key, 32), memcpy(x->shape, d->shape, 32);
    x->w = d->w, x->h = d->h, x->rows = d->rows, d->rows = NULL;
    x->bytes = sizeof *x + (size_t)x->h * ROWD + result_bytes(&x->res);
    if (x->bytes > PG_OCR_CACHE_USER_BYTES) {
        entry_free(x);
        return;
    }
    pthread_mutex_lock(&c->lock);
    part *p = part_of(c, uid, true);
    if (part_find(p, x->key)) {
        entry_free(x); /* another request of this user read the same pixels meanwhile */
    } else {
        part_lru_out(p, x->bytes);
        x->used = p->used = ++c->tick;
        p->e[p->n++] = x;
        p->bytes += x->bytes;
    }
    pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------ partial reads */

typedef struct {
    pg_ocr_result res; /* the earlier read, region-relative */
    bool *changed;     /* per row */
    size_t n_changed;
} base;

static size_t rows_changed(const entry *x, const digest *d, bool *changed) {
    size_t n = 0;
    for (uint32_t y = 0; y < d->h; y++) {
        changed[y] = memcmp(x->rows + (size_t)y * ROWD, d->rows + (size_t)y * ROWD, ROWD) != 0;
        n += changed[y];
    }
    return n;
}

/* The caller's earlier read of this shape with the fewest changed rows, copied
 * (the entry may be evicted once the lock is let go). Lock held. */
static bool find_base(pg_ocr_cache *c, uint32_t uid, const digest *d, base *b) {
    part *p = part_of(c, uid, false);
    bool *tmp = malloc(d->h);
    entry *best = NULL;
    for (size_t i = 0; p && tmp && i < p->n; i++) {
        entry *x = p->e[i];
        if (memcmp(x->shape, d->shape, 32)) continue;
        size_t n = rows_changed(x, d, tmp);
        if (!best || n < b->n_changed) best = x, b->n_changed = n;
    }
    free(tmp);
    if (!best) return false;
    pg_error ignored;
    b->changed = malloc(d->h);
    if (!b->changed || result_copy(&best->res, 0, 0, &b->res, &ignored)) {
        free(b->changed), b->changed = NULL;
        return false;
    }
    rows_changed(best, d, b->changed);
    best->used = p->used = ++c->tick;
    return true;
}

typedef struct {
    int y0, y1; /* rows [y0, y1) */
} band;

static bool overlaps(int a0, int a1, int b0, int b1) { return a0 < b1 && b0 < a1; }

/* Widens [*y0, *y1) to every whole row (line) of the earlier words it touches,
 * with the margin, until nothing more is touched. */
static void widen_to_lines(const pg_ocr_result *r, int h, int *y0, int *y1) {
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < r->n_words; i++) {
            const pg_ocr_word *w = &r->words[i];
            if (!overlaps(w->y, w->y + w->h, *y0, *y1)) continue;
            for (size_t j = 0; j < r->n_words; j++) {
                const pg_ocr_word *u = &r->words[j];
                if (u->line != w->line) continue;
                int a = u->y - MARGIN < 0 ? 0 : u->y - MARGIN, z = u->y + u->h + MARGIN > h ? h : u->y + u->h + MARGIN;
                if (a < *y0) *y0 = a, grew = true;
                if (z > *y1) *y1 = z, grew = true;
            }
        }
    }
}

/* Band edges move outward to clean cuts (pg_ocr_clean_cuts): a cut through
 * a frame or a panel would make the band's layout pass see a different page
 * (a frame side read as "|", a panel not cut out). */
static void snap_out(const bool *clean, int h, int *y0, int *y1) {
    while (*y0 > 0 && !clean[*y0]) (*y0)--;
    while (*y1 < h && !clean[*y1]) (*y1)++;
}

/* The changed rows as bands, widened and merged; 0 when they are too many or
 * cover too much of the region (a full read then). */
static size_t make_bands(const pg_img *v, const base *b, const bool *clean, band *out) {
    int h = (int)v->height;
    size_t n = 0;
    for (int y = 0; y < h; y++) {
        if (!b->changed[y] || (y > 0 && b->changed[y - 1])) continue;
        int z = y;
        while (z < h && b->changed[z]) z++;
        band nb = {y - MARGIN < 0 ? 0 : y - MARGIN, z + MARGIN > h ? h : z + MARGIN};
        for (band was = {-1, -1}; was.y0 != nb.y0 || was.y1 != nb.y1;) {
            was = nb;
            widen_to_lines(&b->res, h, &nb.y0, &nb.y1);
            snap_out(clean, h, &nb.y0, &nb.y1);
        }
        if (n && nb.y0 <= out[n - 1].y1) {
            out[n - 1].y1 = nb.y1 > out[n - 1].y1 ? nb.y1 : out[n - 1].y1;
            continue;
        }
        if (n == MAX_BANDS) return 0;
        out[n++] = nb;
    }
    int rows = 0;
    for (size_t i = 0; i < n; i++) rows += out[i].y1 - out[i].y0;
    return (size_t)rows * 100 <= (size_t)h * PG_OCR_CACHE_BAND_MAX_PCT ? n : 0;
}

static bool in_bands(const pg_ocr_word *w, const band *bs, size_t nb) {
    for (size_t i = 0; i < nb; i++)
        if (overlaps(w->y, w->y + w->h, bs[i].y0, bs[i].y1)) return true;
    return false;
}

/* Moves a result's words into all[*n], their line renumbered from *group:
 * those outside every band of bs (the earlier read), or those whose middle is
 * inside *core (a band's read, context dropped). */
static void take_words(pg_ocr_result *r, const band *bs, size_t nb, const band *core, pg_ocr_word *all, size_t *n,
                       int *group) {
    int top = 0;
    for (size_t i = 0; i < r->n_words; i++) {
        const pg_ocr_word *w = &r->words[i];
        int mid = w->y + w->h / 2;
        if (bs && in_bands(w, bs, nb)) continue;
        if (core && (mid < core->y0 || mid >= core->y1)) continue;
        all[*n] = r->words[i];
        all[(*n)++].line += *group;
        r->words[i].text = NULL;
        top = r->words[i].line + 1 > top ? r->words[i].line + 1 : top;
    }
    *group += top;
}

typedef struct {
    const pg_ocr_cache_call *k;
    const pg_img *v;    /* the region, as a view */
    pg_ocr_opts o;      /* the caller's, with the earlier read's scale, polarity and psm */
    const bool *clean;  /* per row: a clean cut above it */
} bandread;

static pg_err read_bands(const bandread *br, base *b, const band *bs, size_t nb, pg_ocr_result *out, pg_error *e) {
    pg_ocr_result got[MAX_BANDS] = {0};
    size_t total = b->res.n_words;
    pg_err rc = PG_OK;
    for (size_t i = 0; i < nb && !rc; i++) {
        int h = (int)br->v->height, y0 = bs[i].y0 - CONTEXT < 0 ? 0 : bs[i].y0 - CONTEXT;
        int y1 = bs[i].y1 + CONTEXT > h ? h : bs[i].y1 + CONTEXT;
        snap_out(br->clean, h, &y0, &y1);
        pg_img_rect r = {0, (uint32_t)y0, br->v->width, (uint32_t)(y1 - y0)};
        rc = br->k->read(br->k->engine, br->v, &r, &br->o, &got[i], e);
        total += got[i].n_words;
    }
    pg_ocr_word *all = rc ? NULL : calloc(total + 1, sizeof *all);
    if (!rc && !all) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory merging OCR bands");
    if (!rc) {
        size_t n = 0;
        int group = 0;
        take_words(&b->res, bs, nb, NULL, all, &n, &group);
        for (size_t i = 0; i < nb; i++) take_words(&got[i], NULL, 0, &bs[i], all, &n, &group);
        rc = pg_ocr_result_order(all, n, &(pg_img_rect){0, 0, br->v->width, br->v->height}, out, e);
        for (size_t i = 0; i < n; i++) free(all[i].text); /* NULL unless ordering failed */
    }
    free(all);
    for (size_t i = 0; i < nb; i++) pg_ocr_result_fini(&got[i]);
    return rc;
}

/* The partial read, when it applies: PG_OK with *done set, else *done false
 * and the caller reads the whole region. */
static pg_err try_partial(const pg_ocr_cache_call *k, const pg_img *v, const pg_ocr_opts *opts, base *b,
                          pg_ocr_result *out, bool *done, pg_error *e) {
    *done = false;
    if (opts->field || b->n_changed == 0) return PG_OK;
    bool inv = opts->invert == 1 || (opts->invert == 0 && pg_ocr_auto_inverts(v, NULL));
    if (inv != b->res.inverted) return PG_OK; /* the earlier words were read under the other polarity */
    band bs[MAX_BANDS];
    bool *clean = malloc(v->height);
    if (!clean) return PG_OK; /* no room to find the cuts: the whole region is read */
    pg_err rc = pg_ocr_clean_cuts(v, inv, clean, e);
    size_t nb = rc ? 0 : make_bands(v, b, clean, bs);
    bandread br = {k, v, *opts, clean};
    br.o.scale = b->res.scale, br.o.invert = inv ? 1 : -1, br.o.psm = b->res.psm;
    if (nb) rc = read_bands(&br, b, bs, nb, out, e);
    free(clean);
    if (rc || !nb) return rc;
    out->scale = b->res.scale, out->inverted = inv, out->psm = b->res.psm, out->panels = b->res.panels;
    pthread_mutex_lock(&k->cache->lock);
    k->cache->st.partial++;
    for (size_t i = 0; i < nb; i++) k->cache->st.band_rows += (uint64_t)(bs[i].y1 - bs[i].y0);
    k->cache->st.band_region_rows += v->height;
    pthread_mutex_unlock(&k->cache->lock);
    *done = true;
    return PG_OK;
}

/* ---------------------------------------------------------------- run */

/* A hit: the caller's copy of the entry, moved to the region. */
static bool lookup(const pg_ocr_cache_call *k, const digest *d, const pg_img_rect *reg, pg_ocr_result *out,
                   base *b, bool *have_base) {
    pg_ocr_cache *c = k->cache;
    pg_error ignored;
    pthread_mutex_lock(&c->lock);
    part *p = part_of(c, k->uid, false);
    entry *x = part_find(p, d->key);
    bool hit = x && result_copy(&x->res, (int)reg->x, (int)reg->y, out, &ignored) == PG_OK;
    if (hit) x->used = p->used = ++c->tick, c->st.hits++;
    else *have_base = find_base(c, k->uid, d, b);
    pthread_mutex_unlock(&c->lock);
    return hit;
}

static pg_err read_region(const pg_ocr_cache_call *k, const pg_img *v, const pg_ocr_opts *opts, base *b,
                          bool have_base, pg_ocr_result *res, pg_error *e) {
    bool done = false;
    pg_err rc = have_base ? try_partial(k, v, opts, b, res, &done, e) : PG_OK;
    if (rc || done) return rc;
    rc = k->read(k->engine, v, NULL, opts, res, e);
    if (!rc) {
        pthread_mutex_lock(&k->cache->lock);
        k->cache->st.full++;
        pthread_mutex_unlock(&k->cache->lock);
    }
    return rc;
}

pg_err pg_ocr_cache_run(const pg_ocr_cache_call *k, const pg_img *img, const pg_img_rect *region,
                        const pg_ocr_opts *opts, pg_ocr_result *out, pg_error *e) {
    pg_ocr_opts d0 = {0};
    pg_img v;
    pg_error ignored;
    if (!opts) opts = &d0;
    /* Anything the read would refuse is refused by the read itself, uncached. */
    if (!img || !img->px || img->stride < (size_t)img->width * 4 || pg_img_view(img, region, &v, &ignored) != PG_OK)
        return k->read(k->engine, img, region, opts, out, e);
    uint64_t maxpx = opts->max_pixels ? opts->max_pixels : PG_OCR_DEFAULT_MAX_PIXELS;
    if ((uint64_t)v.width * v.height > maxpx) return k->read(k->engine, img, region, opts, out, e); /* its refusal */
    pg_img_rect reg = region ? *region : (pg_img_rect){0, 0, img->width, img->height};
    digest d = {0};
    if (digest_of(k->lang, &v, opts, &d, &ignored) != PG_OK) return k->read(k->engine, img, region, opts, out, e);
    base b = {0};
    bool have_base = false;
    memset(out, 0, sizeof *out);
    pg_err rc = PG_OK;
    if (!lookup(k, &d, &reg, out, &b, &have_base)) {
        rc = read_region(k, &v, opts, &b, have_base, out, e);
        if (!rc) remember(k->cache, k->uid, &d, out);
        if (!rc) result_shift(out, (int)reg.x, (int)reg.y);
    }
    pg_ocr_result_fini(&b.res);
    free(b.changed);
    free(d.rows);
    return rc;
}

/* --------------------------------------------------------- lifecycle */

pg_err pg_ocr_cache_new(pg_ocr_cache **out, pg_error *e) {
    *out = calloc(1, sizeof **out);
    if (!*out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for the OCR cache");
    pthread_mutex_init(&(*out)->lock, NULL);
    return PG_OK;
}

void pg_ocr_cache_free(pg_ocr_cache *c) {
    if (!c) return;
    for (size_t i = 0; i < PG_OCR_CACHE_USERS; i++) part_empty(&c->parts[i]);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void pg_ocr_cache_stats_get(pg_ocr_cache *c, pg_ocr_cache_stats *out) {
    pthread_mutex_lock(&c->lock);
    *out = c->st;
    pthread_mutex_unlock(&c->lock);
}
