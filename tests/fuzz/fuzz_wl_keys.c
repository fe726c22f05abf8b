/* SPDX-License-Identifier: MIT */
/* Fuzz the virtual keyboard's input side (broker/platform/wayland/
 * pg_wl_keymap.h): any bytes as a chord and as UTF-8 text. A chord parses to
 * known modifier bits and a keysym or is refused; text gives keysyms whose
 * chunks cover it all, each of at most PG_WL_KEYMAP_MAX_KEYSYMS distinct
 * keysyms; a short text's first chunk builds into a keymap that types it. */
#include <stdlib.h>
#include <string.h>

#include "pg_keyguard.h"
#include "pg_wl_keymap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_chord(const uint8_t *data, size_t size) {
    char chord[200];
    size_t n = size < sizeof chord - 1 ? size : sizeof chord - 1;
    memcpy(chord, data, n);
    chord[n] = 0;
    unsigned mods = 0;
    uint32_t sym = 0;
    pg_error e = {0};
    pg_err rc = pg_wl_chord_parse(chord, &mods, &sym, &e);
    if (rc == PG_OK && (sym == 0 || (mods & ~15u))) abort();
    if (rc != PG_OK && rc != PG_E_BADINPUT) abort();
}

static void check_text(const uint8_t *data, size_t size) {
    uint32_t *syms = NULL;
    size_t n = 0;
    pg_error e = {0};
    pg_err rc = pg_wl_text_keysyms((const char *)data, size, &syms, &n, &e);
    if (rc != PG_OK) {
        if (syms || n || rc != PG_E_BADINPUT) abort();
        return;
    }
    if (n > size) abort();
    for (size_t from = 0; from < n;) {
        size_t end = pg_wl_chunk_end(syms, n, from);
        if (end <= from || end > n) abort();
        if (from == 0 && size <= 64) { /* a keymap compile costs ms: only for short texts */
            pg_wl_keymap k;
            if (pg_wl_keymap_build(syms, end, &k, &e) != PG_OK) abort();
            for (size_t i = 0; i < end; i++)
                if (pg_wl_keymap_keycode(&k, syms[i]) == 0 || pg_wl_keymap_keycode(&k, syms[i]) > 255) abort();
            pg_wl_keymap_free(&k);
        }
        from = end;
    }
    free(syms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_chord(data, size);
    check_text(data, size);
    return 0;
}
