/* SPDX-License-Identifier: MIT */
/* The virtual keyboard's keymap, text and chords
 * (broker/platform/wayland/pg_wl_keymap.h), each keymap compiled again here
 * with xkbcommon the way a compositor would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xkbcommon/xkbcommon.h>

#include "pg_keyguard.h"
#include "pg_test.h"
#include "pg_wl_keymap.h"

static struct xkb_keymap *compile(struct xkb_context *ctx, const pg_wl_keymap *k) {
    return xkb_keymap_new_from_string(ctx, k->text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
}

PG_TEST(a_mixed_text_gets_one_key_per_keysym_and_working_modifiers) {
    /* ASCII, é, €, an emoji, CJK, a tab and a newline; repeats share keys */
    const char *text = "Hi\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xe4\xb8\xad\xe6\x96\x87\t\nHi";
    uint32_t *syms = NULL;
    size_t n = 0;
    pg_error e = {0};
    REQUIRE(pg_wl_text_keysyms(text, strlen(text), &syms, &n, &e) == PG_OK);
    REQUIRE(n == 11);
    CHECK_EQ_INT(syms[2], 0xe9); /* Latin-1 keysyms are the code point */
    CHECK_EQ_INT(syms[3], XKB_KEY_EuroSign);
    CHECK_EQ_INT(syms[4], 0x0101F600);
    CHECK_EQ_INT(syms[7], XKB_KEY_Tab);
    CHECK_EQ_INT(syms[8], XKB_KEY_Return);
    pg_wl_keymap k;
    REQUIRE(pg_wl_keymap_build(syms, n, &k, &e) == PG_OK);
    CHECK_EQ_INT(k.n, 9);
    CHECK_EQ_INT(k.size, strlen(k.text) + 1);
    struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES);
    struct xkb_keymap *km = ctx ? compile(ctx, &k) : NULL;
    REQUIRE(km != NULL);
    struct xkb_state *st = xkb_state_new(km);
    REQUIRE(st != NULL);
    for (size_t i = 0; i < n; i++) {
        uint32_t code = pg_wl_keymap_keycode(&k, syms[i]);
        CHECK(code >= PG_WL_KEYCODE_FIRST && code <= 255);
        CHECK_EQ_INT(xkb_state_key_get_one_sym(st, code), syms[i]);
    }
    CHECK_EQ_INT(pg_wl_keymap_keycode(&k, 'z'), 0);
    CHECK_EQ_INT(pg_wl_keymap_keycode(&k, XKB_KEY_Control_L), PG_WL_KEYCODE_CTRL);
    const struct {
        uint32_t mask;
        const char *name;
        uint32_t key;
    } mods[] = {{k.mask_shift, XKB_MOD_NAME_SHIFT, PG_WL_KEYCODE_SHIFT},
                {k.mask_ctrl, XKB_MOD_NAME_CTRL, PG_WL_KEYCODE_CTRL},
                {k.mask_alt, XKB_MOD_NAME_ALT, PG_WL_KEYCODE_ALT},
                {k.mask_super, XKB_MOD_NAME_LOGO, PG_WL_KEYCODE_SUPER}};
    for (size_t i = 0; i < 4; i++) {
        CHECK(mods[i].mask != 0);
        xkb_state_update_mask(st, mods[i].mask, 0, 0, 0, 0, 0);
        CHECK(xkb_state_mod_name_is_active(st, mods[i].name, XKB_STATE_MODS_DEPRESSED) == 1);
        for (size_t j = 0; j < 4; j++)
            if (j != i) CHECK(xkb_state_mod_name_is_active(st, mods[j].name, XKB_STATE_MODS_DEPRESSED) == 0);
        xkb_state_update_mask(st, 0, 0, 0, 0, 0, 0);
        /* and pressing the modifier's own key sets the same bit */
        xkb_state_update_key(st, mods[i].key, XKB_KEY_DOWN);
        CHECK_EQ_INT(xkb_state_serialize_mods(st, XKB_STATE_MODS_DEPRESSED), mods[i].mask);
        xkb_state_update_key(st, mods[i].key, XKB_KEY_UP);
    }
    CHECK_EQ_INT(pg_wl_keymap_mods_mask(&k, PG_KEYMOD_CTRL | PG_KEYMOD_SHIFT), k.mask_ctrl | k.mask_shift);
    xkb_state_unref(st);
    xkb_keymap_unref(km);
    xkb_context_unref(ctx);
    pg_wl_keymap_free(&k);
    free(syms);
}

PG_TEST(crlf_is_one_return_and_bad_utf8_or_control_characters_are_refused) {
    uint32_t *syms = NULL;
    size_t n = 0;
    pg_error e = {0};
    REQUIRE(pg_wl_text_keysyms("a\r\nb", 4, &syms, &n, &e) == PG_OK);
    CHECK(n == 3 && syms[1] == XKB_KEY_Return);
    free(syms);
    const char *bad[] = {"\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\x80", "x\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        syms = (uint32_t *)1;
        CHECK_EQ_INT(pg_wl_text_keysyms(bad[i], strlen(bad[i]), &syms, &n, &e), PG_E_BADINPUT);
        CHECK(syms == NULL && n == 0);
    }
    CHECK(strstr(e.message, "U+0001") != NULL);
    REQUIRE(pg_wl_text_keysyms("", 0, &syms, &n, &e) == PG_OK);
    CHECK(syms == NULL && n == 0);
}

PG_TEST(a_thousand_distinct_characters_go_in_chunks_of_at_most_240_keys) {
    char *text = malloc(1000 * 3 + 1), *p = text;
    REQUIRE(text != NULL);
    for (uint32_t cp = 0x4E00; cp < 0x4E00 + 1000; cp++) { /* CJK: 3 bytes each */
        *p++ = (char)(0xE0 | (cp >> 12));
        *p++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *p++ = (char)(0x80 | (cp & 0x3F));
    }
    uint32_t *syms = NULL;
    size_t n = 0, chunks = 0, covered = 0;
    pg_error e = {0};
    REQUIRE(pg_wl_text_keysyms(text, (size_t)(p - text), &syms, &n, &e) == PG_OK);
    REQUIRE(n == 1000);
    for (size_t from = 0; from < n; chunks++) {
        size_t end = pg_wl_chunk_end(syms, n, from);
        REQUIRE(end > from && end - from <= PG_WL_KEYMAP_MAX_KEYSYMS);
        pg_wl_keymap k;
        REQUIRE(pg_wl_keymap_build(syms + from, end - from, &k, &e) == PG_OK);
        for (size_t i = from; i < end; i++) CHECK(pg_wl_keymap_keycode(&k, syms[i]) <= 255);
        covered += end - from;
        pg_wl_keymap_free(&k);
        from = end;
    }
    CHECK_EQ_INT(covered, 1000);
    CHECK_EQ_INT(chunks, 5); /* 240 + 240 + 240 + 240 + 40 */
    pg_wl_keymap k;
    CHECK_EQ_INT(pg_wl_keymap_build(syms, 241, &k, &e), PG_E_BADINPUT);
    CHECK(k.text == NULL);
    uint32_t not_syms[] = {'a', 0x20000000u};
    CHECK_EQ_INT(pg_wl_keymap_build(not_syms, 2, &k, &e), PG_E_BADINPUT);
    not_syms[1] = 0;
    CHECK_EQ_INT(pg_wl_keymap_build(not_syms, 2, &k, &e), PG_E_BADINPUT);
    free(syms);
    free(text);
}

PG_TEST(repeats_do_not_count_towards_the_chunk) {
    uint32_t syms[600];
    for (size_t i = 0; i < 600; i++) syms[i] = 'a' + (uint32_t)(i % 26);
    CHECK_EQ_INT(pg_wl_chunk_end(syms, 600, 0), 600);
    CHECK_EQ_INT(pg_wl_chunk_end(syms, 600, 600), 600);
}

PG_TEST(chords_parse_like_the_x11_backend) {
    const struct {
        const char *chord;
        unsigned mods;
        uint32_t sym;
    } ok[] = {
        {"ctrl+a", PG_KEYMOD_CTRL, XKB_KEY_a},
        {"shift+Tab", PG_KEYMOD_SHIFT, XKB_KEY_Tab},
        {"Return", 0, XKB_KEY_Return},
        {"alt+F4", PG_KEYMOD_ALT, XKB_KEY_F4},
        {"a", 0, XKB_KEY_a},
        {"super+l", PG_KEYMOD_SUPER, XKB_KEY_l},
        {"meta+l", PG_KEYMOD_SUPER, XKB_KEY_l},
        {"Control+Shift+z", PG_KEYMOD_CTRL | PG_KEYMOD_SHIFT, XKB_KEY_z},
        {"ctrl++", PG_KEYMOD_CTRL, XKB_KEY_plus},
        {"+", 0, XKB_KEY_plus},
        {" ctrl + return ", PG_KEYMOD_CTRL, XKB_KEY_Return}, /* trimmed; any case */
        {"\xc3\xa9", 0, XKB_KEY_eacute},
        {"ctrl", 0, XKB_KEY_Control_L},
        {"ctrl+alt+Delete", PG_KEYMOD_CTRL | PG_KEYMOD_ALT, XKB_KEY_Delete},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        unsigned mods = 99;
        uint32_t sym = 0;
        pg_error e = {0};
        pg_err rc = pg_wl_chord_parse(ok[i].chord, &mods, &sym, &e);
        if (rc != PG_OK || mods != ok[i].mods || sym != ok[i].sym)
            fprintf(stderr, "chord \"%s\": rc %d mods %u sym 0x%x (%s)\n", ok[i].chord, rc, mods, sym, e.message);
        CHECK(rc == PG_OK && mods == ok[i].mods && sym == ok[i].sym);
    }
    const struct {
        const char *chord, *names;
    } bad[] = {
        {"", "empty"},
        {"hyper+a", "unknown modifier 'hyper'"},
        {"ctrl+nosuchkey", "unknown key 'nosuchkey'"},
        {"ctrl+", "unknown key ''"},
        {"ctrl+shift+alt+super+ctrl+shift+alt+super+ctrl+a", "unknown modifier 'ctrl'"},
        {"ab", "unknown key 'ab'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned mods;
        uint32_t sym;
        pg_error e = {0};
        CHECK_EQ_INT(pg_wl_chord_parse(bad[i].chord, &mods, &sym, &e), PG_E_BADINPUT);
        if (!strstr(e.message, bad[i].names)) fprintf(stderr, "chord \"%s\": %s\n", bad[i].chord, e.message);
        CHECK(strstr(e.message, bad[i].names) != NULL);
    }
    char longchord[200];
    memset(longchord, 'a', sizeof longchord - 1);
    longchord[sizeof longchord - 1] = 0;
    unsigned mods;
    uint32_t sym;
    CHECK_EQ_INT(pg_wl_chord_parse(longchord, &mods, &sym, NULL), PG_E_BADINPUT);
}
