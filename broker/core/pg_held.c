/* SPDX-License-Identifier: MIT */
/* pg_held.c - the held keys and buttons and the chords they make (pg_held.h). */
#include "pg_held.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ASCII case-insensitive equality of the first n bytes (n 0: all). */
static bool ieq(const char *a, const char *b, size_t n) {
    for (size_t i = 0; n == 0 || i < n; i++) {
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
        if (!a[i]) return true;
    }
    return true;
}

static const char *const modifiers[] = {"ctrl", "control", "shift", "alt", "super", "meta"};

bool pg_held_is_modifier(const char *name) {
    for (size_t i = 0; i < sizeof modifiers / sizeof *modifiers; i++)
        if (ieq(name, modifiers[i], 0)) return true;
    return false;
}

/* ctrl and control, super and meta are one key each. */
static bool same_key(const char *a, const char *b) {
    if (!pg_held_is_modifier(a) || !pg_held_is_modifier(b)) return strcmp(a, b) == 0;
    bool ca = ieq(a, "c", 1), cb = ieq(b, "c", 1);
    bool sa = ieq(a, "super", 0) || ieq(a, "meta", 0);
    bool sb = ieq(b, "super", 0) || ieq(b, "meta", 0);
    if (ca || cb) return ca && cb;
    if (sa || sb) return sa && sb;
    return ieq(a, b, 0);
}

bool pg_held_has_key(const pg_held *h, const char *name) {
    for (size_t i = 0; i < h->n_keys; i++)
        if (same_key(h->keys[i], name)) return true;
    return false;
}

bool pg_held_by_other(const pg_held *h, const void *conn) { return pg_held_any(h) && h->holder != conn; }

static bool append(char *out, size_t cap, size_t *len, const char *part) {
    int n = snprintf(out + *len, cap - *len, "%s%s", *len ? "+" : "", part);
    if (n < 0 || (size_t)n >= cap - *len) return false;
    *len += (size_t)n;
    return true;
}

/* Is name one of chord's parts? */
static bool in_chord(const char *chord, const char *name) {
    char parts[9][64];
    size_t n = pg_held_split(chord, parts, 9);
    for (size_t i = 0; i < n; i++)
        if (same_key(parts[i], name)) return true;
    return false;
}

bool pg_held_chord(const pg_held *h, const char *chord, char *out, size_t cap) {
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; i < h->n_keys; i++)
        if (pg_held_is_modifier(h->keys[i]) && !in_chord(chord, h->keys[i]) && !append(out, cap, &len, h->keys[i]))
            return false;
    return append(out, cap, &len, chord);
}

size_t pg_held_split(const char *chord, char parts[][64], size_t max) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", chord);
    size_t n = strlen(buf), k = 0;
    /* every part before the last '+' is a modifier ("ctrl++" ends in the plus key, "+" is it) */
    char *last = (n >= 2 && buf[n - 1] == '+' && buf[n - 2] == '+') ? &buf[n - 2] : strrchr(buf, '+');
    if (n == 1) last = NULL;
    char *key = buf;
    if (last) {
        *last = 0;
        key = last + 1;
        for (char *m = buf, *next; m && k + 1 < max; m = next) {
            next = strchr(m, '+');
            if (next) *next++ = 0;
            if (*m) snprintf(parts[k++], 64, "%.63s", m);
        }
    }
    if (k < max) snprintf(parts[k++], 64, "%.63s", key);
    return k;
}

void pg_held_strip(const pg_held *h, const char *chord, char *out, size_t cap) {
    char parts[9][64];
    size_t n = pg_held_split(chord, parts, 9), len = 0;
    out[0] = 0;
    for (size_t i = 0; i < n; i++)
        if ((i + 1 == n || !pg_held_has_key(h, parts[i])) && !append(out, cap, &len, parts[i])) return;
}

void pg_held_claim(pg_held *h, const void *conn, uint32_t uid, const char *user, int64_t pid, uint64_t window,
                   int64_t now_us, uint32_t idle_ms, uint32_t max_ms) {
    if (pg_held_any(h)) return;
    h->holder = conn, h->uid = uid, h->pid = pid, h->window = window;
    snprintf(h->user, sizeof h->user, "%s", user ? user : "");
    h->since_us = h->last_us = now_us;
    h->idle_ms = idle_ms, h->max_ms = max_ms;
}

void pg_held_touch(pg_held *h, int64_t now_us) {
    if (pg_held_any(h)) h->last_us = now_us;
}

bool pg_held_expired(const pg_held *h, int64_t now_us, char *why, size_t n) {
    if (!pg_held_any(h)) return false;
    if (h->max_ms && now_us - h->since_us >= (int64_t)h->max_ms * 1000) {
        snprintf(why, n, "held for %u s, the limit from the first press (input.hold_max_s)", h->max_ms / 1000);
        return true;
    }
    if (h->idle_ms && now_us - h->last_us >= (int64_t)h->idle_ms * 1000) {
        snprintf(why, n, "no input from the holder for %u s (input.hold_idle_s)", h->idle_ms / 1000);
        return true;
    }
    return false;
}

bool pg_held_add_key(pg_held *h, const char *name) {
    if (pg_held_has_key(h, name)) return true;
    if (h->n_keys == PG_HELD_MAX) return false;
    snprintf(h->keys[h->n_keys++], sizeof h->keys[0], "%s", name);
    return true;
}

/* Nothing held any more: nobody holds (the owner's fields cleared). */
static void settle_on(pg_held *h) {
    if (!pg_held_any(h)) *h = (pg_held){0};
}

void pg_held_remove_key(pg_held *h, const char *name) {
    for (size_t i = 0; i < h->n_keys; i++)
        if (same_key(h->keys[i], name)) {
            memmove(h->keys[i], h->keys[i + 1], (h->n_keys - i - 1) * sizeof h->keys[0]);
            h->n_keys--;
            break;
        }
    settle_on(h);
}

void pg_held_add_button(pg_held *h, unsigned button) {
    h->buttons |= 1u << button;
}

void pg_held_remove_button(pg_held *h, unsigned button) {
    h->buttons &= ~(1u << button);
    settle_on(h);
}

size_t pg_held_names(const pg_held *h, char names[][64], size_t max) {
    static const char *const buttons[] = {"?", "left button", "middle button", "right button"};
    size_t n = 0;
    for (size_t i = 0; i < h->n_keys && n < max; i++) snprintf(names[n++], 64, "%s", h->keys[i]);
    for (unsigned b = 1; b <= 3 && n < max; b++)
        if (h->buttons & (1u << b)) snprintf(names[n++], 64, "%s", buttons[b]);
    return n;
}

void pg_held_describe(const pg_held *h, char *out, size_t cap) {
    char names[PG_HELD_NAMES_MAX][64];
    size_t n = pg_held_names(h, names, PG_HELD_NAMES_MAX), len = 0;
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", names[i]);
        if (k < 0 || (size_t)k >= cap - len) return;
        len += (size_t)k;
    }
}
