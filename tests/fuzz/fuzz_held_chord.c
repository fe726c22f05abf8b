/* SPDX-License-Identifier: MIT */
/* Fuzz the chord arithmetic of held keys (broker/core/pg_held.h): a client's
 * chord, split into parts, joined with the keys held, or stripped of them.
 * The input is "held keys, one per line" then a NUL then the chord. Any
 * bytes give parts that fit their room, and the joined chord ends in the
 * chord itself: the keyguard always sees the whole of what is sent. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_held.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_split(const char *chord) {
    char parts[5][64];
    memset(parts, 0x5a, sizeof parts);
    size_t n = pg_held_split(chord, parts, 4);
    if (n > 4) abort();
    for (size_t i = 0; i < n; i++)
        if (!memchr(parts[i], 0, sizeof parts[i])) abort();
    for (size_t i = 0; i < sizeof parts[4]; i++) /* nothing written past the room given */
        if ((unsigned char)parts[4][i] != 0x5a) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nul = memchr(data, 0, size);
    if (!nul) return 0;
    char chord[300];
    size_t len = size - (size_t)(nul + 1 - data);
    if (len >= sizeof chord || memchr(nul + 1, 0, len)) return 0;
    memcpy(chord, nul + 1, len);
    chord[len] = 0;
    pg_held h = {0};
    pg_held_claim(&h, NULL, 1, "fuzz", 1, 1, 0, 0, 0);
    for (const uint8_t *p = data; p < nul && h.n_keys < PG_HELD_MAX;) {
        const uint8_t *end = memchr(p, '\n', (size_t)(nul - p));
        if (!end) end = nul;
        char key[64];
        size_t k = (size_t)(end - p) < sizeof key - 1 ? (size_t)(end - p) : sizeof key - 1;
        memcpy(key, p, k);
        key[k] = 0;
        if (k) pg_held_add_key(&h, key);
        p = end + 1;
    }
    check_split(chord);
    char whole[384], stripped[256];
    if (pg_held_chord(&h, chord, whole, sizeof whole)) {
        size_t wl = strlen(whole), cl = strlen(chord);
        if (wl < cl || strcmp(whole + wl - cl, chord) != 0) abort(); /* the chord as sent is the tail */
    }
    pg_held_strip(&h, chord, stripped, sizeof stripped);
    if (!memchr(stripped, 0, sizeof stripped)) abort();
    char what[64];
    pg_held_describe(&h, what, sizeof what);
    if (!memchr(what, 0, sizeof what)) abort();
    char names[PG_HELD_NAMES_MAX][64];
    if (pg_held_names(&h, names, PG_HELD_NAMES_MAX) != h.n_keys) abort(); /* keys only, one name each */
    size_t had = h.n_keys;
    for (size_t i = h.n_keys; i-- > 0;) pg_held_remove_key(&h, h.keys[i]);
    if (pg_held_any(&h) || (had && h.uid)) abort(); /* all let go: nothing held, nobody holds */
    return 0;
}
