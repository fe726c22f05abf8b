/* SPDX-License-Identifier: MIT */
/* The disclosure ledger and quantisers of pg_disclose.h. */
#include "pg_disclose.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pg_crypto.h"
#include "pg_time.h"

#define SEEN 4            /* questions remembered per tile content */
#define USER_TILES_MIN 1024 /* a user's table starts this small and doubles */

/* One tile content of one user: what is booked on it (refilling at the
 * cap per hour since t) and the last questions charged about it. */
typedef struct {
    bool used;
    uint8_t next; /* where the next question goes in seen[] */
    pg_disclose_tile key;
    double booked, t;
    uint64_t seen[SEEN];
} tile_slot;

/* One user: the budget (a bucket of bits_per_user_hour that refills at that
 * many bits per hour, continuously) and its own table of tile contents. */
typedef struct {
    bool used;
    uint32_t uid;
    double level, t; /* bits left at t; NAN until first charged (full) */
    double charged;  /* in all, since the broker started */
    tile_slot *tiles;
    size_t cap, n;
} user_slot;

struct pg_disclose {
    pthread_mutex_t lock;
    uint8_t key[32]; /* per broker run: digests do not link across restarts */
    user_slot *users;
    double (*now_s)(void *ctx);
    void *now_ctx;
};

static double mono_s(void *ctx) {
    (void)ctx;
    return pg_mono_ms() / 1000.0;
}

pg_err pg_disclose_new(pg_disclose **out, pg_error *e) {
    pg_disclose *d = calloc(1, sizeof *d);
    if (d) d->users = calloc(PG_DISCLOSE_USERS, sizeof *d->users);
    if (!d || !d->users) {
        free(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    pg_err rc = pg_random_bytes(d->key, sizeof d->key, e);
    if (rc) {
        free(d->users);
        free(d);
        return rc;
    }
    d->now_s = mono_s;
    pthread_mutex_init(&d->lock, NULL);
    *out = d;
    return PG_OK;
}

void pg_disclose_free(pg_disclose *d) {
    if (!d) return;
    pthread_mutex_destroy(&d->lock);
    for (size_t i = 0; i < PG_DISCLOSE_USERS; i++) free(d->users[i].tiles);
    free(d->users);
    free(d);
}

void pg_disclose_set_clock(pg_disclose *d, double (*now_s)(void *ctx), void *ctx) {
    pthread_mutex_lock(&d->lock);
    d->now_s = now_s ? now_s : mono_s;
    d->now_ctx = ctx;
    pthread_mutex_unlock(&d->lock);
}

bool pg_disclose_protected(const pg_policy_view *v) { return v->expose_pixels != PG_EXPOSE_ALLOW; }

pg_err pg_disclose_area(const pg_policy_view *v, uint64_t area, const char *what, pg_error *e) {
    if (!pg_disclose_protected(v) || area >= v->min_area) return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "measure a larger area (docs/threat-model.md: disclosure.min_area)",
                        "%s about %llu pixels is refused: answers about pixels you may not have must cover at least "
                        "%u pixels",
                        what, (unsigned long long)area, v->min_area);
}

/* ---- tiles ---- */

/* One cell's digest: SHA-256 of the run's key, the cell's size and its rows. */
static pg_err tile_digest(const pg_disclose *d, const uint8_t *rgba, size_t stride, uint32_t x, uint32_t y,
                          uint32_t cw, uint32_t ch, pg_disclose_tile *out, pg_error *e) {
    uint8_t buf[sizeof d->key + 8 + PG_DISCLOSE_TILE * PG_DISCLOSE_TILE * 4], md[PG_SHA256_LEN];
    size_t n = 0;
    memcpy(buf, d->key, sizeof d->key), n += sizeof d->key;
    memcpy(buf + n, &cw, 4), memcpy(buf + n + 4, &ch, 4), n += 8;
    size_t first = n;
    bool flat = true;
    for (uint32_t r = 0; r < ch; r++, n += (size_t)cw * 4) {
        memcpy(buf + n, rgba + (size_t)(y + r) * stride + (size_t)x * 4, (size_t)cw * 4);
        for (size_t i = 0; flat && i < (size_t)cw * 4; i += 4) flat = !memcmp(buf + n + i, buf + first, 4);
    }
    pg_err rc = pg_sha256(buf, n, md, e);
    if (!rc) memcpy(out->b, md, sizeof out->b), out->flat = flat;
    return rc;
}

static pg_err tiles_grow(pg_disclose_tile **tiles, size_t need, size_t *cap, pg_error *e) {
    if (need <= *cap) return PG_OK;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    pg_disclose_tile *t = realloc(*tiles, nc * sizeof *t);
    if (!t) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    *tiles = t, *cap = nc;
    return PG_OK;
}

/* A cell a crop cut: SHA-256 of the run's key, the source's name and the
 * cell's place in it. */
static pg_err place_digest(const pg_disclose *d, const char *place, int64_t sx, int64_t sy, pg_disclose_tile *out,
                           pg_error *e) {
    uint8_t buf[sizeof d->key + 16 + PG_DISCLOSE_SOURCE_MAX], md[PG_SHA256_LEN];
    size_t len = strnlen(place, PG_DISCLOSE_SOURCE_MAX);
    memcpy(buf, d->key, sizeof d->key);
    memcpy(buf + sizeof d->key, &sx, 8), memcpy(buf + sizeof d->key + 8, &sy, 8);
    memcpy(buf + sizeof d->key + 16, place, len);
    pg_err rc = pg_sha256(buf, sizeof d->key + 16 + len, md, e);
    if (!rc) memcpy(out->b, md, sizeof out->b), out->flat = 0, out->placed = 1;
    return rc;
}

/* The first cell boundary at or left of 0 for a grid at origin o. */
static int64_t grid_start(int32_t origin) {
    int64_t m = ((int64_t)origin % PG_DISCLOSE_TILE + PG_DISCLOSE_TILE) % PG_DISCLOSE_TILE;
    return -m;
}

pg_err pg_disclose_tiles(pg_disclose *d, const uint8_t *rgba, uint32_t w, uint32_t h, size_t stride,
                         const pg_img_rect *r, const pg_disclose_origin *o, pg_disclose_tile **tiles, size_t *n,
                         size_t *cap, pg_error *e) {
    const int64_t T = PG_DISCLOSE_TILE;
    int64_t x1 = w, y1 = h, gx = o ? grid_start(o->x) : 0, gy = o ? grid_start(o->y) : 0;
    int64_t x0 = gx, y0 = gy; /* the cells that meet r */
    if (r) {
        x0 = gx + ((int64_t)r->x - gx) / T * T, y0 = gy + ((int64_t)r->y - gy) / T * T;
        x1 = (int64_t)r->x + r->w < w ? (int64_t)r->x + r->w : w;
        y1 = (int64_t)r->y + r->h < h ? (int64_t)r->y + r->h : h;
    }
    if (x0 >= x1 || y0 >= y1) return PG_OK;
    size_t cells = (size_t)((x1 - x0 + T - 1) / T) * (size_t)((y1 - y0 + T - 1) / T);
    pg_err rc = tiles_grow(tiles, *n + cells, cap, e);
    for (int64_t y = y0; !rc && y < y1; y += T)
        for (int64_t x = x0; !rc && x < x1; x += T) {
            int64_t cx = x < 0 ? 0 : x, cy = y < 0 ? 0 : y;
            int64_t cw = (x + T < (int64_t)w ? x + T : w) - cx, ch = (y + T < (int64_t)h ? y + T : h) - cy;
            pg_disclose_tile *t = &(*tiles)[*n];
            memset(t, 0, sizeof *t);
            if (o && o->place && (cw < T || ch < T))
                rc = place_digest(d, o->place, o->x + x, o->y + y, t, e);
            else
                rc = tile_digest(d, rgba, stride, (uint32_t)cx, (uint32_t)cy, (uint32_t)cw, (uint32_t)ch, t, e);
            if (!rc) (*n)++;
        }
    return rc;
}

/* ---- the ledger ---- */

static double per_s(uint32_t per_hour) { return per_hour / 3600.0; }

static user_slot *find_user(pg_disclose *d, uint32_t uid, bool make) {
    user_slot *free_slot = NULL;
    for (size_t i = 0; i < PG_DISCLOSE_USERS; i++) {
        user_slot *u = &d->users[i];
        if (u->used && u->uid == uid) return u;
        if (!u->used && !free_slot) free_slot = u;
    }
    if (!make || !free_slot) return NULL;
    *free_slot = (user_slot){.used = true, .uid = uid, .level = NAN};
    return free_slot;
}

/* The user's bucket refilled to now (a new user starts full). */
static double user_level(user_slot *u, const pg_policy_view *v, double now) {
    double cap = v->bits_per_user_hour;
    if (isnan(u->level)) u->level = cap, u->t = now;
    double l = u->level + (now - u->t) * per_s(v->bits_per_user_hour);
    u->level = l > cap ? cap : l;
    u->t = now;
    return u->level;
}

static size_t tile_hash(const pg_disclose_tile *t) {
    size_t h;
    memcpy(&h, t->b, sizeof h); /* the digest is uniform already */
    return h;
}

static tile_slot *find_tile(const user_slot *u, const pg_disclose_tile *t) {
    for (size_t k = 0, i = u->cap ? tile_hash(t) & (u->cap - 1) : 0; k < u->cap; k++, i = (i + 1) & (u->cap - 1)) {
        tile_slot *s = &u->tiles[i];
        if (!s->used) return NULL;
        if (!memcmp(s->key.b, t->b, sizeof t->b)) return s;
    }
    return NULL;
}

/* What is booked on s now: refilled at the cap per hour since it was booked. */
static double tile_booked(const tile_slot *s, const pg_policy_view *v, double now) {
    if (!s) return 0;
    double b = s->booked - (now - s->t) * per_s(v->bits_per_tile_hour);
    return b > 0 ? b : 0;
}

/* A flat tile's colour is all it can reveal (PG_DISCLOSE_FLAT_BITS): once
 * that much is booked on it no answer can tell more about it, and its share
 * is free. Under a cap below that, flat tiles are capped like any other. */
static bool tile_exhaustible(const pg_disclose_tile *t, const pg_policy_view *v) {
    return t->flat && v->bits_per_tile_hour > PG_DISCLOSE_FLAT_BITS;
}

static bool tile_seen(const tile_slot *s, uint64_t q) {
    for (int i = 0; s && i < SEEN; i++)
        if (s->seen[i] == q) return true;
    return false;
}

/* Never full: user_room keeps a quarter of the table free. */
static void tile_put(user_slot *u, const tile_slot *src) {
    for (size_t k = 0, i = tile_hash(&src->key) & (u->cap - 1); k < u->cap; k++, i = (i + 1) & (u->cap - 1))
        if (!u->tiles[i].used) {
            u->tiles[i] = *src;
            u->n++;
            return;
        }
}

/* Rebuilds u's table with room for `more` new entries: doubled while under
 * the quota, else without the entries whose booking has fully refilled (a
 * forgotten entry is only charged again: never less than it should).
 * false when the quota is full of live bookings. */
static bool user_room(user_slot *u, size_t more, const pg_policy_view *v, double now) {
    if ((u->n + more) * 4 <= u->cap * 3) return true;
    size_t nc = u->cap ? u->cap : USER_TILES_MIN;
    while ((u->n + more) * 4 > nc * 3 && nc < PG_DISCLOSE_USER_TILES) nc *= 2;
    tile_slot *nt = calloc(nc, sizeof *nt);
    if (!nt) return false;
    bool full = (u->n + more) * 4 > nc * 3;
    tile_slot *old = u->tiles;
    size_t oc = u->cap;
    u->tiles = nt, u->cap = nc, u->n = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i].used && (!full || tile_booked(&old[i], v, now) > 0)) tile_put(u, &old[i]);
    free(old);
    return (u->n + more) * 4 <= u->cap * 3;
}

static int tile_cmp(const void *a, const void *b) { return memcmp(a, b, sizeof(pg_disclose_tile)); }

/* The distinct tiles of the list, sorted (a copy: the caller's list stays). */
static pg_disclose_tile *distinct(const pg_disclose_tile *t, size_t n, size_t *out_n) {
    pg_disclose_tile *c = malloc((n ? n : 1) * sizeof *c);
    if (!c) return NULL;
    if (n) memcpy(c, t, n * sizeof *c); /* t may be NULL when there are none */
    qsort(c, n, sizeof *c, tile_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || tile_cmp(&c[k - 1], &c[i])) c[k++] = c[i];
    *out_n = k;
    return c;
}

/* What a refusal or caps shows of a balance and a wait: coarse, because
 * whether a tile was new to a question is a fact about pixels (their
 * equality with content charged before); steps of 1 Kibit and 10 s leave
 * at most about a bit of it per refusal. */
static double coarse_bits(double b) { return floor(b / 1024) * 1024; }
static double coarse_wait(double s) { return ceil(s / 10) * 10; }

static pg_err refuse_tile(const pg_policy_view *v, double bits, double share, double booked, pg_disclose_receipt *r,
                          pg_error *e) {
    double rate = per_s(v->bits_per_tile_hour);
    r->retry_s =
        share > v->bits_per_tile_hour || rate <= 0 ? -1 : coarse_wait((booked + share - v->bits_per_tile_hour) / rate);
    if (r->retry_s < 0)
        return pg_error_set(e, PG_E_POLICY, "ask about a larger region, or ask the administrator to release pixels",
                            "this answer (%.0f bits, %.1f per 16x16 tile it is about) would pass the budget of %u "
                            "bits per hour per tile content: it can never be answered about so few pixels",
                            bits, share, v->bits_per_tile_hour);
    return pg_error_set(e, PG_E_POLICY, "wait, or ask the administrator to release pixels",
                        "this answer (%.0f bits, %.1f per 16x16 tile it is about) would pass the budget of %u bits "
                        "per hour per tile content: enough is back in %.0f s",
                        bits, share, v->bits_per_tile_hour, r->retry_s);
}

static pg_err refuse_user(const pg_policy_view *v, double cost, double level, pg_disclose_receipt *r, pg_error *e) {
    double rate = per_s(v->bits_per_user_hour);
    r->retry_s = cost > v->bits_per_user_hour || rate <= 0 ? -1 : coarse_wait((cost - level) / rate);
    if (r->retry_s < 0)
        return pg_error_set(e, PG_E_POLICY, "ask about less at once, or ask the administrator to release pixels",
                            "this answer (%.0f new bits about pixels you may not have) is more than your whole "
                            "budget of %u bits per hour",
                            cost, v->bits_per_user_hour);
    return pg_error_set(e, PG_E_POLICY, "wait, or ask the administrator to release pixels",
                        "this answer (%.0f new bits about pixels you may not have) would pass your budget of %u bits "
                        "per hour (%.0f left, refilling continuously): enough is back in %.0f s",
                        cost, v->bits_per_user_hour, coarse_bits(level), r->retry_s);
}

/* What tile t takes of a share now: all of it, or for a flat tile what it
 * can still reveal. */
static double tile_take(const tile_slot *s, const pg_disclose_tile *t, const pg_policy_view *v, double share,
                        double now) {
    if (!tile_exhaustible(t, v)) return share;
    double room = PG_DISCLOSE_FLAT_BITS - tile_booked(s, v, now);
    return room <= 0 ? 0 : room < share ? room : share;
}

/* Books what each tile new to question q takes of share (the check passed). */
static void book(user_slot *u, const pg_disclose_tile *t, size_t n, uint64_t q, double share,
                 const pg_policy_view *v, double now) {
    for (size_t i = 0; i < n; i++) {
        tile_slot *s = find_tile(u, &t[i]);
        if (!t[i].placed && tile_seen(s, q)) continue;
        if (!s) {
            tile_put(u, &(tile_slot){.used = true, .key = t[i], .t = now});
            s = find_tile(u, &t[i]);
        }
        double take = tile_take(s, &t[i], v, share, now);
        s->booked = tile_booked(s, v, now) + take;
        s->t = now;
        s->seen[s->next] = q;
        s->next = (uint8_t)((s->next + 1) % SEEN);
    }
}

/* The check, under the lock: what the answer costs (the shares of the tiles
 * new to the question), or why it is refused. */
static pg_err charge_locked(pg_disclose *d, const pg_policy_view *v, user_slot *u, const pg_disclose_tile *t,
                            size_t n, uint64_t q, double bits, pg_disclose_receipt *r, pg_error *e) {
    double now = d->now_s(d->now_ctx);
    /* Room first, for every tile of the answer (an upper bound of what it
     * adds): a rebuild forgets refilled entries, and what is counted below
     * must be what is booked. */
    if (n && !user_room(u, n, v, now))
        return pg_error_set(e, PG_E_POLICY, "wait a few minutes, or ask the administrator to release pixels",
                            "your disclosure ledger is full (%u tile contents with budget booked on them)",
                            PG_DISCLOSE_USER_TILES);
    double level = user_level(u, v, now), share = n ? bits / (double)n : bits, cost = n ? 0 : bits, worst = 0;
    bool over = false;
    for (size_t i = 0; i < n; i++) {
        const tile_slot *s = find_tile(u, &t[i]);
        if (!t[i].placed && tile_seen(s, q)) continue; /* this question about this content: charged already */
        r->n_new++;
        cost += tile_take(s, &t[i], v, share, now);
        double b = tile_booked(s, v, now);
        if (!tile_exhaustible(&t[i], v) && b + share > v->bits_per_tile_hour) over = true, worst = b > worst ? b : worst;
    }
    r->balance = coarse_bits(level);
    if (n && !r->n_new) return PG_OK; /* a question repeated on the same content tells nothing new */
    if (over) return refuse_tile(v, bits, share, worst, r, e);
    if (cost > level) return refuse_user(v, cost, level, r, e);
    book(u, t, n, q, share, v, now);
    u->level = level - cost;
    u->charged += cost;
    r->charged = cost;
    r->balance = coarse_bits(u->level);
    return PG_OK;
}

pg_err pg_disclose_charge(pg_disclose *d, const pg_policy_view *v, uint32_t uid, const pg_disclose_tile *tiles,
                          size_t n, uint64_t question, double bits, pg_disclose_receipt *rc, pg_error *e) {
    pg_disclose_receipt dummy;
    pg_disclose_receipt *r = rc ? rc : &dummy;
    *r = (pg_disclose_receipt){0};
    if (!pg_disclose_protected(v) || bits <= 0) return PG_OK;
    size_t k = 0;
    pg_disclose_tile *t = distinct(tiles, n, &k);
    if (!t) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pthread_mutex_lock(&d->lock);
    user_slot *u = find_user(d, uid, true);
    pg_err err = u ? charge_locked(d, v, u, t, k, question, bits, r, e)
                   : pg_error_set(e, PG_E_POLICY, "retry later",
                                  "the disclosure ledger holds %u users already: retry when one has been idle",
                                  PG_DISCLOSE_USERS);
    pthread_mutex_unlock(&d->lock);
    free(t);
    return err;
}

double pg_disclose_used(pg_disclose *d, uint32_t uid) {
    pthread_mutex_lock(&d->lock);
    const user_slot *u = find_user(d, uid, false);
    double used = u ? u->charged : 0;
    pthread_mutex_unlock(&d->lock);
    return used;
}

double pg_disclose_balance(pg_disclose *d, const pg_policy_view *v, uint32_t uid) {
    pthread_mutex_lock(&d->lock);
    user_slot *u = find_user(d, uid, false);
    double l = u ? user_level(u, v, d->now_s(d->now_ctx)) : v->bits_per_user_hour;
    pthread_mutex_unlock(&d->lock);
    return coarse_bits(l);
}

double pg_disclose_tile_booked(pg_disclose *d, const pg_policy_view *v, uint32_t uid, const pg_disclose_tile *t) {
    pthread_mutex_lock(&d->lock);
    const user_slot *u = find_user(d, uid, false);
    double b = u ? tile_booked(find_tile(u, t), v, d->now_s(d->now_ctx)) : 0;
    pthread_mutex_unlock(&d->lock);
    return b;
}

void pg_disclose_digest(pg_disclose *d, uint32_t uid, const char *real_hex, char out_hex[65]) {
    uint8_t k[PG_SHA256_LEN], mac[PG_SHA256_LEN];
    uint8_t seed[sizeof d->key + 4];
    memcpy(seed, d->key, sizeof d->key);
    memcpy(seed + sizeof d->key, &uid, 4);
    pg_error e;
    if (pg_sha256(seed, sizeof seed, k, &e) || pg_hmac_sha256(k, sizeof k, real_hex, strlen(real_hex), mac, &e)) {
        memset(out_hex, '0', 64); /* fails closed: a digest that reveals nothing */
        out_hex[64] = '\0';
        return;
    }
    pg_hex(mac, sizeof mac, out_hex);
}

/* ---- quantisers ---- */

uint64_t pg_disclose_count(uint64_t n, uint64_t total, double *bits) {
    *bits += log2((double)PG_DISCLOSE_LEVELS + 1);
    if (total <= PG_DISCLOSE_LEVELS) return n;
    uint64_t step = (total + PG_DISCLOSE_LEVELS - 1) / PG_DISCLOSE_LEVELS;
    uint64_t up = (n + step - 1) / step * step; /* up: "some changed" never reads as none */
    return up > total ? total : up;
}

static uint32_t grid_down(uint32_t v) { return v / PG_DISCLOSE_GRID * PG_DISCLOSE_GRID; }
static uint32_t grid_up(uint32_t v, uint32_t lim) {
    uint32_t u = (v + PG_DISCLOSE_GRID - 1) / PG_DISCLOSE_GRID * PG_DISCLOSE_GRID;
    return u > lim ? lim : u;
}
static double grid_bits(uint32_t extent) { return log2((double)extent / PG_DISCLOSE_GRID + 2); }

pg_img_rect pg_disclose_box(pg_img_rect r, uint32_t w, uint32_t h, double *bits) {
    uint32_t x0 = grid_down(r.x), y0 = grid_down(r.y);
    uint32_t x1 = grid_up(r.x + r.w, w), y1 = grid_up(r.y + r.h, h);
    *bits += 2 * grid_bits(w) + 2 * grid_bits(h);
    return (pg_img_rect){x0, y0, x1 - x0, y1 - y0};
}

void pg_disclose_point(uint32_t *x, uint32_t *y, uint32_t w, uint32_t h, double *bits) {
    *x = (*x + PG_DISCLOSE_GRID / 2) / PG_DISCLOSE_GRID * PG_DISCLOSE_GRID;
    *y = (*y + PG_DISCLOSE_GRID / 2) / PG_DISCLOSE_GRID * PG_DISCLOSE_GRID;
    if (*x >= w && w) *x = w - 1;
    if (*y >= h && h) *y = h - 1;
    *bits += grid_bits(w) + grid_bits(h);
}

double pg_disclose_score(double s, double lo, double hi, double *bits) {
    *bits += log2((hi - lo) * 100 + 1);
    return round(s * 100) / 100;
}

void pg_disclose_flag(double *bits) { *bits += 1; }

double pg_disclose_step(double v, double lo, double hi, double step, double *bits) {
    *bits += log2(floor((hi - lo) / step + 0.5) + 1);
    if (!(v > lo)) return lo; /* NaN reads as the floor */
    if (v > hi) v = hi;
    double q = lo + floor((v - lo) / step + 0.5) * step;
    return q > hi ? hi : q;
}

uint64_t pg_disclose_int(uint64_t v, uint64_t max, double *bits) {
    *bits += log2((double)max + 1);
    return v > max ? max : v;
}

int32_t pg_disclose_offset(int32_t v, uint32_t max, double *bits) {
    int32_t g = PG_DISCLOSE_GRID, m = (int32_t)(max / PG_DISCLOSE_GRID);
    *bits += log2(2.0 * m + 1);
    int32_t k = (v >= 0 ? v + g / 2 : v - g / 2) / g;
    if (k > m) k = m;
    if (k < -m) k = -m;
    return k * g;
}

void pg_disclose_hex(const uint8_t rgb[3], char out[8], double *bits) {
    static const char hexd[] = "0123456789abcdef";
    *bits += 12;
    out[0] = '#';
    for (int i = 0; i < 3; i++) {
        unsigned n = (rgb[i] + 8u) / 17u; /* nearest of 0x00, 0x11, .. 0xff */
        out[1 + 2 * i] = out[2 + 2 * i] = hexd[n > 15 ? 15 : n];
    }
    out[7] = '\0';
}

double pg_disclose_log(double v, double *bits) {
    enum { STEPS = 108 };
    *bits += log2(STEPS + 1.0);
    /* Levels and the geometric midpoints between them by repeated products
     * of fixed constants: the same on every build, no libm rounding. */
    const double ratio = 1.0905077326652577;  /* 2^(1/8) */
    const double half = 1.0442737824274138;   /* 2^(1/16) */
    if (!(v >= PG_DISCLOSE_LOG_FLOOR / half)) return 0;
    double level = PG_DISCLOSE_LOG_FLOOR;
    for (int k = 0; k < STEPS - 1; k++, level *= ratio)
        if (v < level * half) return level;
    return level;
}
