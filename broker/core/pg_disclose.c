/* The disclosure ledger and quantisers of pg_disclose.h. */
#include "pg_disclose.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_crypto.h"

#define BINS 60              /* one-minute bins: an hour */
#define LEDGER_SLOTS 4096    /* (uid, source) pairs tracked at once */

typedef struct {
    bool used;
    uint32_t uid;
    char source[PG_DISCLOSE_SOURCE_MAX]; /* "" = the uid's total */
    int64_t minute[BINS];                /* which minute each bin holds */
    double bits[BINS];
} slot;

struct pg_disclose {
    pthread_mutex_t lock;
    uint8_t key[32]; /* per broker run: digests do not link across restarts */
    slot *slots;
};

pg_err pg_disclose_new(pg_disclose **out, pg_error *e) {
    pg_disclose *d = calloc(1, sizeof *d);
    if (d) d->slots = calloc(LEDGER_SLOTS, sizeof *d->slots);
    if (!d || !d->slots) {
        free(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    pg_err rc = pg_random_bytes(d->key, sizeof d->key, e);
    if (rc) {
        free(d->slots);
        free(d);
        return rc;
    }
    pthread_mutex_init(&d->lock, NULL);
    *out = d;
    return PG_OK;
}

void pg_disclose_free(pg_disclose *d) {
    if (!d) return;
    pthread_mutex_destroy(&d->lock);
    free(d->slots);
    free(d);
}

bool pg_disclose_protected(const pg_policy_view *v) { return v->expose_pixels != PG_EXPOSE_ALLOW; }

pg_err pg_disclose_area(const pg_policy_view *v, uint64_t area, const char *what, pg_error *e) {
    if (!pg_disclose_protected(v) || area >= v->min_area) return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "measure a larger area (docs/threat-model.md: disclosure.min_area)",
                        "%s about %llu pixels is refused: answers about pixels you may not have must cover at least "
                        "%u pixels",
                        what, (unsigned long long)area, v->min_area);
}

/* ---- the ledger ---- */

static int64_t now_minute(void) { return (int64_t)time(NULL) / 60; }

static uint32_t slot_hash(uint32_t uid, const char *source) {
    uint32_t h = 2166136261u ^ uid;
    for (const char *p = source; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    return h;
}

static double slot_sum(const slot *s, int64_t minute) {
    double sum = 0;
    for (int i = 0; i < BINS; i++)
        if (s->minute[i] > minute - BINS) sum += s->bits[i];
    return sum;
}

/* The slot of (uid, source), made if new; an idle slot (nothing in the last
 * hour) may be reused. NULL when the table is full of live entries. */
static slot *find_slot(pg_disclose *d, uint32_t uid, const char *source, int64_t minute, bool make) {
    uint32_t h = slot_hash(uid, source);
    slot *reuse = NULL;
    for (uint32_t probe = 0; probe < LEDGER_SLOTS; probe++) {
        slot *s = &d->slots[(h + probe) % LEDGER_SLOTS];
        if (s->used && s->uid == uid && !strcmp(s->source, source)) return s;
        if (!s->used || slot_sum(s, minute) == 0) {
            if (!reuse) reuse = s;
            if (!s->used) break;
        }
    }
    if (!make || !reuse) return NULL;
    memset(reuse, 0, sizeof *reuse);
    reuse->used = true;
    reuse->uid = uid;
    snprintf(reuse->source, sizeof reuse->source, "%s", source);
    return reuse;
}

static void slot_add(slot *s, int64_t minute, double bits) {
    int i = (int)(minute % BINS);
    if (s->minute[i] != minute) s->minute[i] = minute, s->bits[i] = 0;
    s->bits[i] += bits;
}

pg_err pg_disclose_charge(pg_disclose *d, const pg_policy_view *v, uint32_t uid, const char *const *sources,
                          size_t n_sources, double bits, pg_error *e) {
    if (!pg_disclose_protected(v) || bits <= 0) return PG_OK;
    int64_t minute = now_minute();
    pthread_mutex_lock(&d->lock);
    slot *total = find_slot(d, uid, "", minute, true);
    slot *src[8];
    size_t n = 0;
    pg_err rc = total ? PG_OK : pg_error_set(e, PG_E_POLICY, "retry later", "the disclosure ledger is full");
    for (size_t i = 0; !rc && i < n_sources && n < 8; i++) {
        src[n] = find_slot(d, uid, sources[i], minute, true);
        if (!src[n]) rc = pg_error_set(e, PG_E_POLICY, "retry later", "the disclosure ledger is full");
        else n++;
    }
    if (!rc && slot_sum(total, minute) + bits > v->bits_per_user_hour)
        rc = pg_error_set(e, PG_E_POLICY, "wait for the hour's budget to free, or ask the administrator to release pixels",
                          "this answer (%.0f bits about pixels you may not have) would pass your budget of %u bits "
                          "per hour (%.0f used)",
                          bits, v->bits_per_user_hour, slot_sum(total, minute));
    for (size_t i = 0; !rc && i < n; i++)
        if (slot_sum(src[i], minute) + bits > v->bits_per_source_hour)
            rc = pg_error_set(e, PG_E_POLICY,
                              "wait for the hour's budget to free, or ask the administrator to release pixels",
                              "this answer (%.0f bits about %s) would pass the budget of %u bits per hour per source "
                              "(%.0f used)",
                              bits, src[i]->source, v->bits_per_source_hour, slot_sum(src[i], minute));
    if (!rc) {
        slot_add(total, minute, bits);
        for (size_t i = 0; i < n; i++) slot_add(src[i], minute, bits);
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}

double pg_disclose_used(pg_disclose *d, uint32_t uid, const char *source) {
    int64_t minute = now_minute();
    pthread_mutex_lock(&d->lock);
    slot *s = find_slot(d, uid, source ? source : "", minute, false);
    double used = s ? slot_sum(s, minute) : 0;
    pthread_mutex_unlock(&d->lock);
    return used;
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
