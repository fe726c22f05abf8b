/* SPDX-License-Identifier: MIT */
/* test_platform_decl: every backend's pg_platform_ops table, and the fake's
 * caps(), agree with broker/platform/pg_platform.def (pg_platform_decl.h);
 * and the check says no when they do not (a table with a primitive taken
 * out, one with a primitive the declaration does not give it, caps that
 * promise a missing one). The x11 and win32 backends' caps() are checked on
 * a live display by test_x11 and test_win32. */
#include "pg_fake.h"
#include "pg_platform_decl.h"
#include "pg_test.h"

#ifdef _WIN32
#include "pg_win_helper.h"
#define PG_NATIVE_BK PG_BK_WIN32
#else
#include "pg_wlr.h"
#define PG_NATIVE_BK PG_BK_X11
#endif

static size_t conform(const pg_platform_ops *ops, unsigned bk, const pg_caps *caps) {
    char why[2048];
    size_t n = pg_platform_conform(ops, bk, caps, why, sizeof why);
    if (n) printf("     %zu disagreement(s):\n%s", n, why);
    return n;
}

PG_TEST(declaration_names_each_primitive_once_with_a_doc_line) {
    CHECK(PG_PRIM_COUNT >= 23);
    for (size_t i = 0; i < PG_PRIM_COUNT; i++) {
        const pg_prim_decl *d = &pg_prim_decls[i];
        CHECK(d->doc && d->doc[0] && !strchr(d->doc, '\n'));
        CHECK(d->backends != 0);
        for (size_t k = 0; k < i; k++) CHECK(strcmp(d->name, pg_prim_decls[k].name) != 0);
    }
}

PG_TEST(native_backend_table_agrees) { CHECK_EQ_INT(conform(pg_platform_default(), PG_NATIVE_BK, NULL), 0); }

#ifdef _WIN32
PG_TEST(helper_proxy_table_agrees) { CHECK_EQ_INT(conform(pg_win_helper_ops(), PG_BK_HELPER, NULL), 0); }
#else
PG_TEST(wlroots_table_agrees) { CHECK_EQ_INT(conform(pg_platform_wlroots(), PG_BK_WLR, NULL), 0); }
#endif

PG_TEST(fake_table_and_caps_agree) {
    pg_platform *p = NULL;
    pg_caps caps;
    REQUIRE(pg_fake_ops.open(&p, NULL, NULL) == PG_OK);
    REQUIRE(pg_fake_ops.caps(p, &caps, NULL) == PG_OK);
    CHECK_EQ_INT(conform(&pg_fake_ops, PG_BK_FAKE, &caps), 0);
    pg_fake_ops.close(p);
}

PG_TEST(a_declared_primitive_left_null_is_caught) {
    pg_platform_ops broken = pg_fake_ops;
    broken.key = NULL;
    CHECK_EQ_INT(conform(&broken, PG_BK_FAKE, NULL), 1);
}

PG_TEST(a_primitive_the_declaration_does_not_give_is_caught) {
    /* the fake has describe_window, lost, unconfirmed, guard_begin and
     * guard_end, which win32 does not */
    CHECK_EQ_INT(conform(&pg_fake_ops, PG_BK_WIN32, NULL), 5);
}

PG_TEST(caps_promising_a_missing_primitive_is_caught) {
    pg_platform_ops broken = pg_fake_ops;
    broken.settle = NULL;
    pg_caps caps = {.settle = true};
    /* two: settle is declared for the fake (NULL) and caps promises it */
    CHECK_EQ_INT(conform(&broken, PG_BK_FAKE, &caps), 2);
    caps.settle = false;
    CHECK_EQ_INT(conform(&broken, PG_BK_FAKE, &caps), 1);
}

PG_TEST(fake_window_frame_is_the_frame_it_was_given) {
    pg_platform *p = NULL;
    uint32_t l, r, t, b;
    REQUIRE(pg_fake_ops.open(&p, NULL, NULL) == PG_OK);
    uint64_t id = pg_fake_add_window(p, "w", "c", 1, 100, 50, 40, 30, 0xffffffffu);
    CHECK_EQ_INT(pg_fake_ops.window_frame(p, id, &l, &r, &t, &b, NULL), PG_OK);
    CHECK(l == 0 && r == 0 && t == 0 && b == 0);
    pg_fake_set_frame(p, id, 2, 24, 3, 4);
    CHECK_EQ_INT(pg_fake_ops.window_frame(p, id, &l, &r, &t, &b, NULL), PG_OK);
    CHECK(l == 2 && r == 3 && t == 24 && b == 4);
    CHECK_EQ_INT(pg_fake_ops.window_frame(p, 9, &l, &r, &t, &b, NULL), PG_E_NOTFOUND);
    pg_fake_ops.close(p);
}
