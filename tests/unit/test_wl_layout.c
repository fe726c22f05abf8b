/* SPDX-License-Identifier: MIT */
/* The layout a virtual keyboard holds (broker/platform/wayland/pg_wl_layout.h):
 * with XKB_DEFAULT_LAYOUT=us, keys sit on the evdev keycodes every client
 * bound its shortcuts to, capitals take Shift, and what the layout lacks is
 * said to be missing (it is typed on a keymap of its own). */
#include <stdlib.h>
#include <string.h>

#include <xkbcommon/xkbcommon.h>

#include "pg_keyguard.h"
#include "pg_test.h"
#include "pg_wl_layout.h"

static pg_wl_layout *us(void) {
    setenv("XKB_DEFAULT_RULES", "evdev", 1);
    setenv("XKB_DEFAULT_LAYOUT", "us", 1);
    unsetenv("XKB_DEFAULT_VARIANT");
    unsetenv("XKB_DEFAULT_OPTIONS");
    pg_wl_layout *l = NULL;
    pg_error e = {0};
    if (pg_wl_layout_new(&l, &e) != PG_OK) printf("     %s\n", e.message);
    return l;
}

PG_TEST(keys_are_on_the_evdev_keycodes_of_the_layout) {
    pg_wl_layout *l = us();
    REQUIRE(l != NULL);
    uint32_t kc = 0;
    bool shift = true;
    /* XKB keycode = evdev code + 8: KEY_BACKSPACE 14, KEY_A 30, KEY_LEFT 105, KEY_ENTER 28 */
    CHECK(pg_wl_layout_key(l, XKB_KEY_BackSpace, &kc, &shift) && kc == 22 && !shift);
    CHECK(pg_wl_layout_key(l, XKB_KEY_a, &kc, &shift) && kc == 38 && !shift);
    CHECK(pg_wl_layout_key(l, XKB_KEY_A, &kc, &shift) && kc == 38 && shift);
    CHECK(pg_wl_layout_key(l, XKB_KEY_Left, &kc, &shift) && kc == 113 && !shift);
    CHECK(pg_wl_layout_key(l, XKB_KEY_Return, &kc, &shift) && kc == 36 && !shift);
    CHECK(pg_wl_layout_key(l, XKB_KEY_exclam, &kc, &shift) && kc == 10 && shift);
    pg_wl_layout_free(l);
}

PG_TEST(what_the_layout_lacks_is_missing) {
    pg_wl_layout *l = us();
    REQUIRE(l != NULL);
    uint32_t kc;
    bool shift;
    CHECK(!pg_wl_layout_key(l, XKB_KEY_eacute, &kc, &shift));
    CHECK(!pg_wl_layout_key(l, XKB_KEY_EuroSign, &kc, &shift));
    CHECK(!pg_wl_layout_key(l, 0x0101F600, &kc, &shift)); /* an emoji */
    pg_wl_layout_free(l);
}

PG_TEST(modifiers_have_their_keys_and_masks_on_the_layout) {
    pg_wl_layout *l = us();
    REQUIRE(l != NULL);
    size_t size = 0;
    const char *text = pg_wl_layout_text(l, &size);
    REQUIRE(text && size == strlen(text) + 1);
    struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_keymap *km = xkb_keymap_new_from_string(ctx, text, XKB_KEYMAP_FORMAT_TEXT_V1, 0);
    REQUIRE(km != NULL);
    static const struct {
        unsigned bit;
        const char *name;
        uint32_t key;
    } mods[] = {{PG_KEYMOD_SHIFT, XKB_MOD_NAME_SHIFT, 50},
                {PG_KEYMOD_CTRL, XKB_MOD_NAME_CTRL, 37},
                {PG_KEYMOD_ALT, XKB_MOD_NAME_ALT, 64},
                {PG_KEYMOD_SUPER, XKB_MOD_NAME_LOGO, 133}};
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ_INT(pg_wl_layout_mod_key(l, mods[i].bit), mods[i].key);
        CHECK_EQ_INT(pg_wl_layout_mods_mask(l, mods[i].bit), 1u << xkb_keymap_mod_get_index(km, mods[i].name));
    }
    CHECK_EQ_INT(pg_wl_layout_mods_mask(l, PG_KEYMOD_CTRL | PG_KEYMOD_SHIFT),
                 pg_wl_layout_mods_mask(l, PG_KEYMOD_CTRL) | pg_wl_layout_mods_mask(l, PG_KEYMOD_SHIFT));
    xkb_keymap_unref(km);
    xkb_context_unref(ctx);
    pg_wl_layout_free(l);
}

