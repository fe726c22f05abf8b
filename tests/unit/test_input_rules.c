/* SPDX-License-Identifier: MIT */
/* The input rules every backend shares: which chords are never sent
 * (pg_keyguard.h: every refused keysym and chord is listed here), and the
 * checked chunk loop and its decision (pg_inject.h), which Wine cannot show
 * (no UIPI, one integrity level). */
#include <stdio.h>
#include <string.h>

#include "pg_inject.h"
#include "pg_keyguard.h"
#include "pg_test.h"

enum { SHIFT = PG_KEYMOD_SHIFT, CTRL = PG_KEYMOD_CTRL, ALT = PG_KEYMOD_ALT, SUPER = PG_KEYMOD_SUPER };

typedef struct {
    const char *name;
    unsigned mods;
    uint32_t key, yields;
} chord;

static bool refused(const chord *c, bool allow_hotkeys) {
    return pg_keyguard_refusal(c->mods, c->key, c->yields, allow_hotkeys) != NULL;
}

/* Refused whatever the policy says. */
static const chord SERVER[] = {
    {"XF86Switch_VT_1", 0, 0x1008fe01, 0},   {"XF86Switch_VT_12", 0, 0x1008fe0c, 0},
    {"XF86Ungrab", 0, 0x1008fe20, 0},        {"XF86ClearGrab", 0, 0x1008fe21, 0},
    {"XF86Next_VMode", 0, 0x1008fe22, 0},    {"XF86Prev_VMode", 0, 0x1008fe23, 0},
    {"XF86LogWindowTree", 0, 0x1008fe24, 0}, {"XF86LogGrabInfo", 0, 0x1008fe25, 0},
    {"Terminate_Server", 0, 0xfed5, 0},      {"Sys_Req", 0, 0xff15, 0},
    {"alt+Sys_Req", ALT, 0xff15, 0},         {"XF86PowerOff", 0, 0x1008ff2a, 0},
    {"XF86PowerDown", 0, 0x1008ff21, 0},     {"XF86WakeUp", 0, 0x1008ff2b, 0},
    {"XF86Sleep", 0, 0x1008ff2f, 0},         {"XF86Suspend", 0, 0x1008ffa7, 0},
    {"XF86Hibernate", 0, 0x1008ffa8, 0},     {"XF86LogOff", 0, 0x1008ff61, 0},
    {"XF86Standby", 0, 0x1008ff10, 0},       {"XF86ScreenSaver", 0, 0x1008ff2d, 0},
    {"ctrl+alt+F1", CTRL | ALT, 0xffbe, 0},  {"ctrl+alt+F7", CTRL | ALT, 0xffc4, 0},
    {"ctrl+alt+F12", CTRL | ALT, 0xffc9, 0}, {"ctrl+alt+shift+F2", CTRL | ALT | SHIFT, 0xffbf, 0},
    {"ctrl+alt+BackSpace", CTRL | ALT, 0xff08, 0}, {"ctrl+alt+Delete", CTRL | ALT, 0xffff, 0},
    {"ctrl+alt+KP_Delete", CTRL | ALT, 0xff9f, 0},
    /* built from several keys: the keymap makes F1 with ctrl+alt the VT switch */
    {"ctrl+alt+F1 (yields XF86Switch_VT_1)", CTRL | ALT, 0xffbe, 0x1008fe01},
    {"a key the keymap turns into Terminate_Server", 0, 'a', 0xfed5},
    {"F13 yielding XF86Switch_VT_13", CTRL | ALT, 0xffca, 0x1008fe0d},
};

/* Refused unless the policy allows desktop hotkeys. */
static const chord HOTKEY[] = {
    {"super", 0, 0xffeb, 0},          {"Super_R", 0, 0xffec, 0},       {"Hyper_L", 0, 0xffed, 0},
    {"Hyper_R", 0, 0xffee, 0},        {"Meta_L", 0, 0xffe7, 0},        {"Meta_R", 0, 0xffe8, 0},
    {"super+e", SUPER, 'e', 0},       {"super+Return", SUPER, 0xff0d, 0}, {"win+r", SUPER, 'r', 0},
    {"Print", 0, 0xff61, 0},          {"ctrl+Print", CTRL, 0xff61, 0}, {"shift+Print", SHIFT, 0xff61, 0},
    {"XF86Calculator", 0, 0x1008ff1d, 0}, {"XF86WWW", 0, 0x1008ff2e, 0}, {"XF86Mail", 0, 0x1008ff19, 0},
    {"XF86AudioMute", 0, 0x1008ff12, 0}, {"alt+Tab", ALT, 0xff09, 0},  {"alt+shift+Tab", ALT | SHIFT, 0xff09, 0},
    {"alt+ISO_Left_Tab", ALT, 0xfe20, 0}, {"alt+Escape", ALT, 0xff1b, 0}, {"ctrl+Escape", CTRL, 0xff1b, 0},
    {"ctrl+alt+t", CTRL | ALT, 't', 0}, {"ctrl+alt+l", CTRL | ALT, 'l', 0}, {"ctrl+alt+Left", CTRL | ALT, 0xff51, 0},
    {"a key the keymap turns into Print", 0, 'p', 0xff61},
};

/* Always sent. */
static const chord ALLOWED[] = {
    {"a", 0, 'a', 'a'},                 {"shift+a", SHIFT, 'a', 'A'},      {"ctrl+a", CTRL, 'a', 'a'},
    {"ctrl+shift+z", CTRL | SHIFT, 'z', 'Z'}, {"Return", 0, 0xff0d, 0},   {"Tab", 0, 0xff09, 0},
    {"shift+Tab", SHIFT, 0xff09, 0xfe20}, {"Escape", 0, 0xff1b, 0},       {"BackSpace", 0, 0xff08, 0},
    {"ctrl+BackSpace", CTRL, 0xff08, 0}, {"alt+BackSpace", ALT, 0xff08, 0}, {"Delete", 0, 0xffff, 0},
    {"ctrl+Delete", CTRL, 0xffff, 0},   {"F1", 0, 0xffbe, 0xffbe},        {"ctrl+F1", CTRL, 0xffbe, 0},
    {"alt+F4", ALT, 0xffc1, 0},         {"shift+F12", SHIFT, 0xffc9, 0},  {"alt+f", ALT, 'f', 'f'},
    {"ctrl+plus", CTRL, '+', 0},        {"Home", 0, 0xff50, 0},           {"Menu", 0, 0xff67, 0},
    {"ctrl (alone)", 0, 0xffe3, 0},     {"alt (alone)", 0, 0xffe9, 0},    {"é", 0, 0xe9, 0xe9},
};

PG_TEST(server_and_session_chords_are_refused_even_when_hotkeys_are_allowed) {
    for (size_t i = 0; i < sizeof SERVER / sizeof *SERVER; i++) {
        bool ok = refused(&SERVER[i], false) && refused(&SERVER[i], true);
        if (!ok) fprintf(stderr, "  sent: %s\n", SERVER[i].name);
        CHECK(ok);
    }
}

PG_TEST(desktop_hotkeys_are_refused_unless_the_policy_allows_them) {
    for (size_t i = 0; i < sizeof HOTKEY / sizeof *HOTKEY; i++) {
        bool ok = refused(&HOTKEY[i], false) && !refused(&HOTKEY[i], true);
        if (!ok) fprintf(stderr, "  wrong: %s\n", HOTKEY[i].name);
        CHECK(ok);
    }
}

PG_TEST(ordinary_chords_are_sent) {
    for (size_t i = 0; i < sizeof ALLOWED / sizeof *ALLOWED; i++) {
        bool ok = !refused(&ALLOWED[i], false);
        if (!ok) fprintf(stderr, "  refused: %s: %s\n", ALLOWED[i].name,
                         pg_keyguard_refusal(ALLOWED[i].mods, ALLOWED[i].key, ALLOWED[i].yields, false));
        CHECK(ok);
    }
}

PG_TEST(a_refusal_is_policy_naming_the_chord_and_why) {
    pg_error e;
    CHECK_EQ_INT(pg_keyguard_check("ctrl+alt+F1", CTRL | ALT, 0xffbe, 0, false, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "\"ctrl+alt+F1\"") && strstr(e.message, "virtual terminals"));
    CHECK_EQ_INT(pg_keyguard_check("ctrl+a", CTRL, 'a', 'a', false, &e), PG_OK);
}

/* ---- the decision ---- */

PG_TEST(a_chunk_goes_only_while_the_target_holds_the_foreground_at_no_higher_integrity) {
    pg_inject_target t = {.window = 100, .integrity = 0x2000}; /* medium */
    pg_error e;
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){100, 0x2000}, 0, 10, &e), PG_OK);
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){100, 0x1000}, 3, 10, &e), PG_OK); /* lower: fine */
    /* another window took the foreground (an elevated console raised by the agent's own process) */
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){200, 0x2000}, 4, 10, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "window 200") && strstr(e.message, "after 4 of 10 characters"));
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){0, 0}, 4, 10, &e), PG_E_POLICY); /* secure desktop */
    /* the same window id now belongs to a process at high integrity */
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){100, 0x3000}, 5, 10, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "0x3000") && strstr(e.message, "after 5 of 10"));
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){100, 0x4000}, 5, 10, &e), PG_E_POLICY); /* system */
    CHECK_EQ_INT(pg_inject_may_send(&t, &(pg_inject_now){100, 0}, 5, 10, &e), PG_E_POLICY);      /* unreadable */
    pg_inject_target unknown = {.window = 100, .integrity = 0};
    CHECK_EQ_INT(pg_inject_may_send(&unknown, &(pg_inject_now){100, 0}, 0, 10, &e), PG_OK);
    CHECK_EQ_INT(pg_inject_may_send(&unknown, &(pg_inject_now){100, 0x2000}, 0, 10, &e), PG_E_POLICY);
}

/* ---- the loop ---- */

typedef struct {
    size_t checks_at[64], n_checks;
    size_t sent_from[64], sent_n[64], n_sends;
    size_t refuse_at;  /* the check at this unit refuses; SIZE_MAX: never */
    size_t take_short; /* the send covering this event takes only the events before it; SIZE_MAX: never */
} fake_io;

static pg_err fake_check(void *ctx, size_t done, size_t total, pg_error *e) {
    fake_io *f = ctx;
    f->checks_at[f->n_checks++] = done;
    if (done == f->refuse_at)
        return pg_error_set(e, PG_E_POLICY, NULL, "typing stopped after %zu of %zu characters", done, total);
    return PG_OK;
}

static size_t fake_send(void *ctx, size_t from, size_t n) {
    fake_io *f = ctx;
    f->sent_from[f->n_sends] = from;
    f->sent_n[f->n_sends++] = n;
    return f->take_short >= from && f->take_short < from + n ? f->take_short - from : n;
}

/* Units of 2 events (a key down and up), the 4th of 4 (a surrogate pair). */
static size_t units(size_t *start, size_t n) {
    start[0] = 0;
    for (size_t i = 0; i < n; i++) start[i + 1] = start[i] + (i == 3 ? 4 : 2);
    return n;
}

PG_TEST(the_loop_checks_before_every_chunk_and_never_splits_a_unit) {
    size_t start[11], done;
    size_t n = units(start, 10); /* 22 events */
    fake_io f = {.refuse_at = SIZE_MAX, .take_short = SIZE_MAX};
    pg_inject_io io = {fake_check, fake_send, &f};
    pg_error e;
    CHECK_EQ_INT(pg_inject_send(&io, start, n, 5, &done, &e), PG_OK);
    CHECK_EQ_INT(done, 10);
    size_t total = 0;
    for (size_t i = 0; i < f.n_sends; i++) {
        CHECK(f.sent_n[i] <= 5);
        bool at_unit = false; /* every chunk starts at a unit */
        for (size_t u = 0; u <= n; u++) at_unit |= start[u] == f.sent_from[i];
        CHECK(at_unit);
        CHECK_EQ_INT(f.sent_from[i], total);
        total += f.sent_n[i];
    }
    CHECK_EQ_INT(total, 22);
    CHECK_EQ_INT(f.n_checks, f.n_sends); /* one check per chunk, before it */
    /* a unit longer than a chunk goes alone, whole */
    fake_io g = {.refuse_at = SIZE_MAX, .take_short = SIZE_MAX};
    io.ctx = &g;
    CHECK_EQ_INT(pg_inject_send(&io, start, n, 3, &done, &e), PG_OK);
    bool pair_whole = false;
    for (size_t i = 0; i < g.n_sends; i++) pair_whole |= g.sent_from[i] == 6 && g.sent_n[i] == 4;
    CHECK(pair_whole);
}

PG_TEST(the_loop_stops_at_the_first_refusal_and_sends_nothing_after_it) {
    size_t start[11], done;
    size_t n = units(start, 10);
    fake_io f = {.refuse_at = 4, .take_short = SIZE_MAX};
    pg_inject_io io = {fake_check, fake_send, &f};
    pg_error e;
    CHECK_EQ_INT(pg_inject_send(&io, start, n, 4, &done, &e), PG_E_POLICY); /* chunks of 2 units */
    CHECK_EQ_INT(done, 4);
    CHECK(strstr(e.message, "after 4 of 10") != NULL);
    size_t sent = 0;
    for (size_t i = 0; i < f.n_sends; i++) sent += f.sent_n[i];
    CHECK_EQ_INT(sent, start[4]); /* nothing past the refused chunk */
    CHECK_EQ_INT(f.checks_at[f.n_checks - 1], 4);
}

PG_TEST(events_the_system_did_not_take_stop_the_loop_and_count_only_whole_units) {
    size_t start[11], done;
    size_t n = units(start, 10);
    fake_io f = {.refuse_at = SIZE_MAX, .take_short = 9}; /* UIPI: the 5th unit's up event was not taken */
    pg_inject_io io = {fake_check, fake_send, &f};
    pg_error e;
    CHECK_EQ_INT(pg_inject_send(&io, start, n, 6, &done, &e), PG_E_POLICY);
    CHECK_EQ_INT(done, 3); /* units 0..2 went whole; the pair (events 6..9) lost its last event */
    CHECK(strstr(e.message, "took 9 of 22") != NULL);
}

/* Absolute pointer arithmetic on the layouts where clicks land wrong when
 * it is off by one: a monitor left of the primary (negative x), one above
 * (negative y), mixed scales side by side (physical pixels: a 3840-wide
 * 200 % monitor beside a 1920-wide 100 % one), and the widest desktop the
 * 16-bit range allows. Every pixel maps back onto itself. */
typedef struct {
    const char *what;
    int64_t origin, extent;
} axis;

static bool every_pixel_round_trips(const axis *a) {
    for (int64_t p = a->origin; p < a->origin + a->extent; p++) {
        int32_t n = pg_abs_norm(p, a->origin, a->extent);
        if (n < 0 || n > 65535 || pg_abs_denorm(n, a->origin, a->extent) != p) {
            fprintf(stderr, "%s: pixel %lld -> %d -> %lld\n", a->what, (long long)p, n,
                    (long long)pg_abs_denorm(n, a->origin, a->extent));
            return false;
        }
    }
    return true;
}

PG_TEST(absolute_pointer_coordinates_land_on_every_pixel_of_every_layout) {
    static const axis axes[] = {
        {"one 1920 monitor", 0, 1920},
        {"a 2560 monitor left of a 1920 primary", -2560, 2560 + 1920},
        {"a 1440 monitor above a 1080 primary", -1440, 1440 + 1080},
        {"a 3840 monitor at 200 % beside a 1920 at 100 % (physical pixels)", 0, 3840 + 1920},
        {"three 4K monitors, the primary in the middle", -3840, 3 * 3840},
        {"an odd width", -7, 1367},
        {"the widest the 16-bit range holds", -30000, 65536},
    };
    for (size_t i = 0; i < sizeof axes / sizeof *axes; i++) CHECK(every_pixel_round_trips(&axes[i]));
    /* outside the desktop it clamps to the edge instead of wrapping */
    CHECK_EQ_INT(pg_abs_norm(-2561, -2560, 4480), 0);
    CHECK_EQ_INT(pg_abs_norm(5000, -2560, 4480), 65535);
    CHECK_EQ_INT(pg_abs_norm(10, 0, 0), 0);
}
