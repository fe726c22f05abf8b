/* SPDX-License-Identifier: MIT */
/* test_win_person.c - the person's controls of the Win32 backend
 * (broker/platform/win32/win_person.c) under Wine on Xvfb, and on real
 * Windows alike.
 *
 * Proves: watch_person installs low-level hooks that see SendInput's keys and
 * mouse moves flagged injected and count none of them (a SendInput Pause is
 * no stop press, no activity); if the system does not flag injected input
 * (an old Wine), the test says so and checks the rules on the flags it did
 * deliver instead, and a hook that sees nothing at all is a failure; an
 * unknown stop key is BADINPUT; a second handle watching is BUSY; close
 * unhooks (pg_person says not watching) and destroys the indicator. The
 * indicator around win32_testapp has WS_EX_LAYERED, WS_EX_TRANSPARENT and
 * WS_EX_TOPMOST (and TOOLWINDOW, NOACTIVATE), rings the window's frame,
 * never takes the foreground, is in neither window list, and is no cover:
 * the ringed window still captures and clicks; the banner lies along the
 * top of the primary monitor; window 0 hides it.
 * Whose input: with the session user's token set (WTSQueryUserToken of the
 * console session; a process that may not ask, the test's own token, said
 * so), a click and typed text are sent from a thread impersonating it: the
 * thread token's user is the token's (GetTokenInformation TokenUser) at an
 * impersonation level; unset, the process's own token again. Wine has one
 * SID for everyone, so there the level is what tells the two apart.
 */
#include <windows.h>

#include <wtsapi32.h>

#include <stdio.h>
#include <string.h>

#include "pg_person.h"
#include "pg_platform.h"
#include "pg_test.h"
#include "pg_time.h"
#include "pg_win32.h"
#include "pg_win_sid.h"
#include "win_person_rules.h"
#include "win_testapp.h"

#define WAIT_MS 3000

static pg_testapp_fixture env;

static pg_err open_backend(const pg_platform_ops **ops, pg_platform **p, pg_error *e) {
    *ops = pg_platform_default();
    return (*ops)->open(p, NULL, e);
}

#define SETUP() PG_TESTAPP_SETUP(&env, L"person", open_backend)

/* A handle of its own that watches for Pause (the fixture's handle shows the indicator). */
typedef struct {
    const pg_platform_ops *ops;
    pg_platform *p;
    pg_person *person;
} watcher;

static pg_err watch(watcher *w, const char *key, pg_error *e) {
    w->ops = pg_platform_default();
    w->person = pg_person_new(NULL, NULL);
    pg_err rc = w->ops->open(&w->p, NULL, e);
    return rc ? rc : w->ops->watch_person(w->p, w->person, key, e);
}

static void unwatch(watcher *w) {
    if (w->p) w->ops->close(w->p);
    pg_person_free(w->person);
}

static void send_key(WORD vk, bool up) {
    INPUT in = {.type = INPUT_KEYBOARD};
    in.ki.wVk = vk;
    in.ki.wScan = (WORD)MapVirtualKeyW(vk, MAPVK_VK_TO_VSC);
    in.ki.dwFlags = up ? KEYEVENTF_KEYUP : 0;
    SendInput(1, &in, sizeof in);
}

/* Until the hooks have seen `keys` keyboard and `mice` mouse events, bounded. */
static bool wait_seen(pg_platform *p, uint64_t keys, uint64_t mice, pg_win_person_counts *c) {
    for (pg_deadline end = pg_deadline_in_ms(WAIT_MS);; pg_sleep_ms(10)) {
        pg_win_person_read_counts(p, c);
        if (c->keys_injected + c->keys_physical >= keys && c->mouse_injected + c->mouse_physical >= mice) return true;
        if (pg_deadline_passed(end)) return false;
    }
}

PG_TEST(a_sendinput_pause_reaches_the_hook_flagged_injected_and_is_not_counted) {
    watcher w = {0};
    pg_error e;
    pg_err rc = watch(&w, "Pause", &e);
    if (rc) fprintf(stderr, "watch_person: %s\n", e.message);
    REQUIRE(rc == PG_OK);
    pg_person_seen seen;
    pg_person_read(w.person, &seen);
    CHECK(seen.watching);
    CHECK_STR(seen.stop_key, "Pause");
    send_key(VK_PAUSE, false);
    send_key(VK_PAUSE, true);
    INPUT move = {.type = INPUT_MOUSE};
    move.mi.dwFlags = MOUSEEVENTF_MOVE; /* 0,0 relative: nothing moves, the hook still sees it */
    SendInput(1, &move, sizeof move);
    pg_win_person_counts c;
    bool arrived = wait_seen(w.p, 2, 1, &c);
    fprintf(stderr, "hooks saw keys %llu injected / %llu physical (last vk 0x%x flags 0x%x), mouse %llu / %llu\n",
            (unsigned long long)c.keys_injected, (unsigned long long)c.keys_physical, c.last_vk, c.last_flags,
            (unsigned long long)c.mouse_injected, (unsigned long long)c.mouse_physical);
    CHECK(c.watching);
    REQUIRE(arrived); /* a hook that sees nothing proves nothing: fail */
    pg_person_read(w.person, &seen);
    if (c.keys_physical == 0) {
        CHECK_EQ_INT(c.keys_injected, 2);
        CHECK_EQ_INT(c.last_vk, VK_PAUSE);
        CHECK(c.last_flags & LLKHF_INJECTED);
        CHECK_EQ_INT(c.stops, 0);
        CHECK_EQ_INT(seen.stop_presses, 0);
    } else {
        /* The system did not flag SendInput's keys: what the hook would
         * decide on properly flagged ones is then only the rules' word. */
        fprintf(stderr, "NOTE: this system does not set LLKHF_INJECTED on SendInput (flags 0x%x); "
                        "the hook's rules are checked on the flags instead (unit.test_win_person_rules)\n",
                c.last_flags);
        win_person_rules r = {.stop_vk = VK_PAUSE};
        CHECK_EQ_INT(win_person_key(&r, VK_PAUSE, c.last_flags | LLKHF_INJECTED), WIN_PERSON_IGNORE);
        CHECK_EQ_INT(win_person_key(&r, VK_PAUSE, LLKHF_INJECTED), WIN_PERSON_IGNORE);
    }
    if (c.mouse_physical == 0) CHECK_EQ_INT(c.mouse_injected, 1);
    else fprintf(stderr, "NOTE: this system does not set LLMHF_INJECTED on SendInput's mouse moves\n");
    if (c.keys_physical == 0 && c.mouse_physical == 0) {
        CHECK_EQ_INT(seen.human_events, 0);
        CHECK_EQ_INT(seen.last_human_us, 0);
    }
    unwatch(&w);
}

PG_TEST(an_unknown_stop_key_is_badinput_and_a_second_watcher_busy) {
    watcher w = {0}, again = {0}, bad = {0};
    pg_error e;
    CHECK_EQ_INT(watch(&bad, "Escape", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "Escape") != NULL);
    unwatch(&bad);
    REQUIRE(watch(&w, "F12", &e) == PG_OK);
    pg_person_seen seen;
    pg_person_read(w.person, &seen);
    CHECK_STR(seen.stop_key, "F12");
    CHECK_EQ_INT(watch(&again, "Pause", &e), PG_E_BUSY);
    unwatch(&again);
    CHECK_EQ_INT(w.ops->watch_person(w.p, w.person, "Scroll_Lock", &e), PG_OK); /* the same handle may change key */
    pg_person_read(w.person, &seen);
    CHECK_STR(seen.stop_key, "Scroll_Lock");
    pg_person *person = w.person;
    w.ops->close(w.p);
    w.p = NULL;
    pg_person_read(person, &seen);
    CHECK(!seen.watching); /* unhooked at close */
    CHECK(strstr(seen.why_not, "closed") != NULL);
    unwatch(&w);
}

/* The indicator's window, visible, with every style the contract names. */
static HWND shown_indicator(int *pg_failed_) {
    char affinity[160];
    HWND ind = (HWND)(uintptr_t)pg_win_indicator_window(env.p, affinity, sizeof affinity);
    fprintf(stderr, "indicator %p: %s\n", (void *)ind, affinity);
    CHECK(ind && IsWindowVisible(ind));
    LONG_PTR ex = GetWindowLongPtrW(ind, GWL_EXSTYLE);
    CHECK(ex & WS_EX_LAYERED);
    CHECK(ex & WS_EX_TRANSPARENT);
    CHECK(ex & WS_EX_TOPMOST);
    CHECK(ex & WS_EX_TOOLWINDOW);
    CHECK(ex & WS_EX_NOACTIVATE);
    CHECK(GetForegroundWindow() != ind);
    return ind;
}

static bool listed(pg_platform_ops const *ops, pg_platform *p, HWND h, bool all) {
    pg_window *w = NULL;
    size_t n = 0;
    bool complete;
    pg_error e;
    pg_err rc = all ? ops->list_all(p, &w, &n, &complete, &e) : ops->list_windows(p, &w, &n, &e);
    bool found = rc != PG_OK; /* a list that fails proves nothing: count it as listed */
    for (size_t i = 0; i < n; i++) found |= w[i].id == (uint64_t)(uintptr_t)h;
    free(w);
    return found;
}

PG_TEST(the_ring_is_layered_transparent_topmost_unlisted_and_no_cover) {
    SETUP();
    pg_error e;
    pg_indicator how = {.window = env.app, .mode = PG_INDICATOR_RING};
    snprintf(how.user, sizeof how.user, "agent");
    REQUIRE(env.ops->indicate(env.p, &how, &e) == PG_OK);
    HWND ind = shown_indicator(pg_failed_);
    REQUIRE(ind);
    RECT r, app;
    GetWindowRect(ind, &r);
    GetWindowRect((HWND)(uintptr_t)env.app, &app);
    CHECK(r.left < app.left && r.top < app.top && r.right > app.right && r.bottom > app.bottom);
    CHECK(!listed(env.ops, env.p, ind, false));
    CHECK(!listed(env.ops, env.p, ind, true));
    /* Above the app, yet no cover: the capture and a click still go through. */
    pg_capture c = {0};
    pg_err rc = env.ops->capture_window(env.p, env.app, NULL, &c, &e);
    if (rc) fprintf(stderr, "capture_window: %s\n", e.message);
    CHECK_EQ_INT(rc, PG_OK);
    free(c.rgba);
    uint64_t top = 0;
    CHECK_EQ_INT(env.ops->top_at(env.p, (app.left + app.right) / 2, (app.top + app.bottom) / 2, &top, &e), PG_OK);
    CHECK(top == env.app);
    pg_indicator off = {0};
    CHECK_EQ_INT(env.ops->indicate(env.p, &off, &e), PG_OK);
    CHECK(!IsWindowVisible(ind));
}

PG_TEST(the_banner_lies_along_the_top_of_the_primary_monitor) {
    SETUP();
    pg_error e;
    pg_indicator how = {.window = env.app, .mode = PG_INDICATOR_BANNER};
    snprintf(how.user, sizeof how.user, "agent");
    REQUIRE(env.ops->indicate(env.p, &how, &e) == PG_OK);
    HWND ind = shown_indicator(pg_failed_);
    REQUIRE(ind);
    RECT r;
    GetWindowRect(ind, &r);
    CHECK_EQ_INT(r.left, 0);
    CHECK_EQ_INT(r.top, 0);
    CHECK_EQ_INT(r.right, GetSystemMetrics(SM_CXSCREEN));
    CHECK(r.bottom > 0 && r.bottom < 100);
    CHECK(!listed(env.ops, env.p, ind, true));
    pg_indicator off = {0};
    CHECK_EQ_INT(env.ops->indicate(env.p, &off, &e), PG_OK);
    CHECK(!IsWindowVisible(ind));
}

PG_TEST(indicate_refuses_a_window_it_does_not_list_and_close_destroys_the_sign) {
    SETUP();
    pg_error e;
    pg_platform *p = NULL;
    REQUIRE(env.ops->open(&p, NULL, &e) == PG_OK);
    pg_indicator how = {.window = 12345678, .mode = PG_INDICATOR_RING};
    CHECK_EQ_INT(env.ops->indicate(p, &how, &e), PG_E_NOTFOUND);
    how.window = env.app;
    CHECK_EQ_INT(env.ops->indicate(p, &how, &e), PG_OK);
    HWND ind = (HWND)(uintptr_t)pg_win_indicator_window(p, NULL, 0);
    CHECK(ind && IsWindow(ind));
    env.ops->close(p);
    CHECK(!IsWindow(ind));
}

static bool token_user(HANDLE tok, char sid[PG_WIN_SID_STR_MAX]) {
    union {
        TOKEN_USER tu;
        BYTE raw[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
    } u;
    DWORD n;
    pg_error e;
    return GetTokenInformation(tok, TokenUser, &u, sizeof u, &n) && pg_win_sid_format(u.tu.User.Sid, sid, &e) == PG_OK;
}

/* The console session's user's token, as the service gets it; where this
 * process may not ask (not SYSTEM on Windows), our own token, said so. */
static HANDLE session_user_token(void) {
    HANDLE tok = NULL;
    DWORD session = WTSGetActiveConsoleSessionId();
    if (WTSQueryUserToken(session, &tok)) {
        fprintf(stderr, "WTSQueryUserToken(session %lu): a token\n", session);
        return tok;
    }
    fprintf(stderr, "NOTE: WTSQueryUserToken(session %lu) failed (error %lu): this process's own token stands in\n",
            session, GetLastError());
    return OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_QUERY, &tok) ? tok : NULL;
}

PG_TEST(input_is_sent_from_a_thread_impersonating_the_session_user) {
    SETUP();
    pg_error e;
    HANDLE user = session_user_token();
    char want[PG_WIN_SID_STR_MAX] = "", self[PG_WIN_SID_STR_MAX] = "", got[PG_WIN_SID_STR_MAX];
    HANDLE me = NULL;
    REQUIRE(user && token_user(user, want));
    REQUIRE(OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &me) && token_user(me, self));
    CloseHandle(me);
    REQUIRE(pg_win_set_input_token(user, &e) == PG_OK);
    CloseHandle(user); /* the backend keeps its own copy */
    int level = -9;
    RECT b = env.ta.button, ed = env.ta.edit;
    CHECK_EQ_INT(env.ops->click(env.p, env.app, (b.left + b.right) / 2, (b.top + b.bottom) / 2, PG_BTN_LEFT, 1, &e),
                 PG_OK);
    pg_win_input_identity(got, sizeof got, &level);
    fprintf(stderr, "click sent as %s, impersonation level %d (session user %s, process %s)\n", got, level, want, self);
    CHECK_STR(got, want);
    CHECK(level == SecurityIdentification || level == SecurityImpersonation);
    CHECK_EQ_INT(env.ops->click(env.p, env.app, (ed.left + ed.right) / 2, (ed.top + ed.bottom) / 2, PG_BTN_LEFT, 1, &e),
                 PG_OK);
    level = -9;
    CHECK_EQ_INT(env.ops->type_text(env.p, env.app, "u", &e), PG_OK); /* the checked chunks' path */
    pg_win_input_identity(got, sizeof got, &level);
    CHECK_STR(got, want);
    CHECK(level == SecurityIdentification || level == SecurityImpersonation);
    HANDLE left = NULL;
    CHECK(!OpenThreadToken(GetCurrentThread(), TOKEN_QUERY, TRUE, &left) && GetLastError() == ERROR_NO_TOKEN);
    REQUIRE(pg_win_set_input_token(NULL, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->type_text(env.p, env.app, "v", &e), PG_OK);
    pg_win_input_identity(got, sizeof got, &level);
    CHECK_STR(got, self);
    CHECK_EQ_INT(level, -1);
}
