/* SPDX-License-Identifier: MIT */
/* test_win_helper.c - the service's session helper, driven through its
 * proxy (broker/os/win/pg_win_helper.h), under Wine on Xvfb in the mingw build
 * (and on real Windows alike).
 *
 * This binary is also the helper: started as "test_win_helper.exe helper
 * --pipe NAME" it runs pg_win_helper_main, as pixelgated.exe will. Two more
 * roles exist for the launch tests: "impostor" starts a grandchild helper
 * (so the pipe's client is not the process the proxy started) and "quit"
 * exits at once.
 *
 * Proves, through the proxy, against tests/apps/win32_testapp.exe: caps say
 * backend win32 and how the helper was launched; list finds the app with its
 * pid and client area; a window capture has the right size, is not black and
 * names its method (and the fallback reason); a click reaches the button and
 * Unicode text (with a surrogate pair) arrives exactly in the EDIT control,
 * as the app's own state file says; an unknown window is NOT_FOUND with the
 * backend's own message, bad input keeps its code and message; a killed
 * helper is replaced on the next call, as after relaunch and mark_stale; a
 * pipe client other than the started child is refused (POLICY); a child
 * that exits before connecting is UNREACHABLE, saying so. Against a fake
 * helper (a thread speaking the protocol on a pipe): a capture whose
 * attachment is not stride*height, oversized captures, wrong ids, unknown
 * fields, unknown error codes and overlong strings are INTERNAL and end the
 * helper (next call UNREACHABLE); an error reply's code and message arrive
 * exactly; a hang-up is UNREACHABLE and silence is TIMEOUT, in time.
 * The person's controls through the helper: watch_person makes the helper's
 * hooks watch (the broker's pg_person says so, an unknown key is the
 * helper's BADINPUT); indicate shows the helper's own layered, transparent,
 * topmost window around the app, listed by neither list, and hides it.
 * Not shown here (Wine): session 0 isolation, the pipe DACL, and whether
 * CreateProcessAsUser really lands in another session; the launch path the
 * run took is printed.
 */
#include <windows.h>

#include <shellapi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_person.h"
#include "pg_proto.h"
#include "pg_test.h"
#include "pg_time.h"
#include "win_testapp.h"
#include "pg_win_helper.h"

#define APP_W 420
#define APP_H 240

/* ------------------------------------------------------ the child roles */

static char *to_utf8(const wchar_t *w) {
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (s) WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

/* Starts this exe as "helper --pipe NAME" and waits for it: its pid is not
 * the one the proxy started. */
static int run_impostor(const wchar_t *pipe) {
    wchar_t exe[MAX_PATH], cmd[2 * MAX_PATH];
    GetModuleFileNameW(NULL, exe, MAX_PATH);
    swprintf(cmd, 2 * MAX_PATH, L"\"%ls\" helper --pipe %ls", exe, pipe);
    STARTUPINFOW si = {.cb = sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(exe, cmd, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi)) return 4;
    WaitForSingleObject(pi.hProcess, 20000);
    CloseHandle(pi.hProcess), CloseHandle(pi.hThread);
    return 0;
}

/* Runs before the test runner's main: the roles never reach it. */
__attribute__((constructor)) static void child_roles(void) {
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    bool token = argc == 6 && !wcscmp(argv[4], L"--input-token");
    if (!argv || (argc != 4 && !token) || wcscmp(argv[2], L"--pipe") != 0) {
        if (argv) LocalFree(argv);
        return;
    }
    if (!wcscmp(argv[1], L"helper")) {
        char *name = to_utf8(argv[3]), *tok = token ? to_utf8(argv[5]) : NULL;
        exit(name && (!token || tok) ? pg_win_helper_main(name, tok) : 9);
    }
    if (!wcscmp(argv[1], L"impostor")) exit(run_impostor(argv[3]));
    if (!wcscmp(argv[1], L"quit")) exit(3);
    LocalFree(argv);
}

/* ----------------------------------------------------------- the app */

static pg_testapp_fixture env;

typedef pg_testapp_state app_state;

static bool read_state(app_state *s) { return pg_testapp_read(&env.ta, s); }

static bool wait_state(int clicks, const char *edit, app_state *s) {
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 3000; Sleep(20))
        if (read_state(s) && (clicks < 0 || s->clicks == clicks) && (!edit || !strcmp(s->edit, edit))) return true;
    fprintf(stderr, "app state clicks=%d edit=\"%s\", expected %d \"%s\"\n", s->clicks, s->edit, clicks,
            edit ? edit : "(any)");
    return false;
}

/* The helper is this exe in its "helper" role. */
static pg_err open_proxy(const pg_platform_ops **ops, pg_platform **p, pg_error *e) {
    pg_win_helper_launch how = {.args = "helper"};
    *ops = pg_win_helper_ops();
    return pg_win_helper_proxy_open(p, &how, e);
}

#define SETUP() PG_TESTAPP_SETUP(&env, L"helper", open_proxy)

static int32_t mid_x(RECT r) { return (r.left + r.right) / 2; }
static int32_t mid_y(RECT r) { return (r.top + r.bottom) / 2; }

static bool kill_pid(uint32_t pid) {
    HANDLE h = OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE, FALSE, pid);
    bool ok = h && TerminateProcess(h, 7) && WaitForSingleObject(h, 5000) == WAIT_OBJECT_0;
    if (h) CloseHandle(h);
    return ok;
}

/* ------------------------------------------------- through the helper */

PG_TEST(helper_main_refuses_any_pipe_but_a_helper_pipe) {
    CHECK_EQ_INT(pg_win_helper_main("\\\\.\\pipe\\pixelgate", NULL), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_helper_main("\\\\.\\pipe\\pixelgate-helper-0123", NULL), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_helper_main("\\\\.\\pipe\\pixelgate-helper-0123456789abcdef0123456789ABCDEF", NULL), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_helper_main("\\\\host\\pipe\\pixelgate-helper-0123456789abcdef0123456789abcdef", NULL),
                 PG_E_USAGE);
    /* A good name with an input token that is not a token handle: refused before connecting. */
    static const char good[] = "\\\\.\\pipe\\pixelgate-helper-0123456789abcdef0123456789abcdef";
    HANDLE ev = CreateEventW(NULL, TRUE, FALSE, NULL);
    char ev_value[32];
    snprintf(ev_value, sizeof ev_value, "%llu", (unsigned long long)(uintptr_t)ev);
    CHECK_EQ_INT(pg_win_helper_main(good, "0"), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_helper_main(good, "12x"), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_helper_main(good, ev_value), PG_E_USAGE);
    CloseHandle(ev);
    CHECK_EQ_INT(pg_win_helper_main(NULL, NULL), PG_E_USAGE);
}

PG_TEST(caps_through_the_helper_say_win32_and_how_it_was_launched) {
    SETUP();
    pg_caps caps;
    pg_error e;
    char path[160];
    REQUIRE(env.ops->caps(env.p, &caps, &e) == PG_OK);
    pg_win_helper_launch_path(env.p, path, sizeof path);
    printf("     launch path: %s\n     caps: %s\n", path, caps.detail);
    CHECK_STR(caps.backend, "win32");
    CHECK_STR(env.ops->name, "session-helper");
    CHECK(caps.list_windows && caps.capture_window && caps.input_pointer && caps.input_text_unicode);
    CHECK(strncmp(path, "CreateProcessAsUser(session ", 28) == 0 || strncmp(path, "CreateProcess(fallback: ", 24) == 0);
    CHECK(strncmp(caps.detail, "helper ", 7) == 0 && strstr(caps.detail, path) != NULL);
    CHECK(strstr(caps.detail, "desktop") != NULL);
    uint32_t pid = pg_win_helper_pid(env.p);
    CHECK(pid != 0 && pid != GetCurrentProcessId());
    CHECK(strlen(caps.detail) < sizeof caps.detail);
}

PG_TEST(open_through_the_ops_table_refuses_a_display) {
    pg_platform *p = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_win_helper_ops()->open(&p, ":0", &e), PG_E_USAGE);
    CHECK(p == NULL);
}

PG_TEST(list_through_the_helper_finds_the_app_with_pid_and_client_area) {
    SETUP();
    pg_window *w;
    size_t n;
    pg_error e;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *a = pg_testapp_find(w, n);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ_INT(a->id, env.app);
        CHECK_EQ_INT(a->pid, env.ta.pi.dwProcessId);
        CHECK_STR(a->class_name, "pgwin32test");
        CHECK(a->width == APP_W && a->height == APP_H && a->visible);
    }
    free(w);
}

PG_TEST(window_frame_through_the_helper_is_the_listed_frame_around_the_client_area) {
    SETUP();
    pg_window *w;
    size_t n;
    pg_error e;
    uint32_t l, r, t, b;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *a = pg_testapp_find(w, n);
    REQUIRE(a != NULL);
    CHECK_EQ_INT(env.ops->window_frame(env.p, env.app, &l, &r, &t, &b, &e), PG_OK);
    printf("     frame: left %u right %u top %u bottom %u\n", l, r, t, b);
    CHECK_EQ_INT(l, a->x - a->frame.x);
    CHECK_EQ_INT(t, a->y - a->frame.y);
    CHECK_EQ_INT(r, (a->frame.x + (int64_t)a->frame.w) - (a->x + (int64_t)a->width));
    CHECK_EQ_INT(b, (a->frame.y + (int64_t)a->frame.h) - (a->y + (int64_t)a->height));
    CHECK_EQ_INT(env.ops->window_frame(env.p, 0, &l, &r, &t, &b, &e), PG_E_NOTFOUND);
    free(w);
}

PG_TEST(capture_through_the_helper_is_right_size_not_black_and_names_its_method) {
    SETUP();
    pg_capture c;
    pg_error e;
    char why[96];
    REQUIRE(env.ops->focus(env.p, env.app, &e) == PG_OK);
    Sleep(100);
    REQUIRE(env.ops->capture_window(env.p, env.app, NULL, &c, &e) == PG_OK);
    pg_win_helper_capture_fallback(env.p, why, sizeof why);
    printf("     window capture method: %s (%s)\n", c.method, why[0] ? why : "no fallback");
    CHECK_EQ_INT(c.width, APP_W);
    CHECK_EQ_INT(c.height, APP_H);
    CHECK(c.stride >= c.width * 4u && c.method[0]);
    if (env.wine) CHECK(strcmp(c.method, "bitblt") == 0 && strstr(why, "black") != NULL);
    size_t bg = 0;
    for (uint32_t y = 0; y < c.height; y++)
        for (uint32_t x = 0; x < c.width; x++) {
            const uint8_t *px = c.rgba + y * c.stride + x * 4;
            bg += px[0] == 0xe8 && px[1] == 0xd8 && px[2] == 0xb0 && px[3] == 255;
        }
    CHECK(bg > (size_t)c.width * c.height / 2); /* the app's background, in RGBA order */
    free(c.rgba);
    pg_rect r = {10, 20, 100, 50};
    REQUIRE(env.ops->capture_window(env.p, env.app, &r, &c, &e) == PG_OK);
    CHECK(c.width == 100 && c.height == 50);
    free(c.rgba);
    r = (pg_rect){100, 100, 64, 32};
    REQUIRE(env.ops->capture_screen(env.p, &r, &c, &e) == PG_OK);
    CHECK(c.width == 64 && c.height == 32 && c.method[0]);
    free(c.rgba);
    REQUIRE(env.ops->capture_screen(env.p, NULL, &c, &e) == PG_OK); /* megabytes through the pipe */
    CHECK(c.width == (uint32_t)GetSystemMetrics(SM_CXVIRTUALSCREEN) &&
          c.height == (uint32_t)GetSystemMetrics(SM_CYVIRTUALSCREEN));
    free(c.rgba);
    r = (pg_rect){APP_W, 0, 10, 10};
    CHECK_EQ_INT(env.ops->capture_window(env.p, env.app, &r, &c, &e), PG_E_BADINPUT);
}

PG_TEST(click_and_unicode_text_through_the_helper_reach_the_app) {
    SETUP();
    pg_error e;
    app_state st = {0};
    REQUIRE(read_state(&st));
    int c0 = st.clicks;
    REQUIRE(env.ops->click(env.p, env.app, mid_x(env.ta.button), mid_y(env.ta.button), PG_BTN_LEFT, 1, &e) == PG_OK);
    CHECK(wait_state(c0 + 1, NULL, &st));
    /* Select the edit's text so the typing replaces it. */
    REQUIRE(env.ops->click(env.p, env.app, mid_x(env.ta.edit), mid_y(env.ta.edit), PG_BTN_LEFT, 1, &e) == PG_OK);
    REQUIRE(env.ops->key(env.p, env.app, "End", &e) == PG_OK);
    REQUIRE(env.ops->key(env.p, env.app, "shift+Home", &e) == PG_OK);
    const char *text = "Gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80"; /* Grüße € U+1F600 */
    REQUIRE(env.ops->type_text(env.p, env.app, text, &e) == PG_OK);
    CHECK(wait_state(-1, text, &st));
    REQUIRE(env.ops->type_text(env.p, env.app, "!", &e) == PG_OK);
    REQUIRE(env.ops->key(env.p, env.app, "BackSpace", &e) == PG_OK);
    CHECK(wait_state(-1, text, &st)); /* "!" typed and erased again */
    REQUIRE(env.ops->pointer_move(env.p, env.app, 5, 7, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->settle(env.p, env.app, 50, 2000, &e), PG_OK);
}

static bool dragged_to(const pg_testapp_pointer *p, long x, long y) { return p->up_x == x && p->up_y == y; }

/* scroll and drag cross the helper protocol (the path as [[x,y],...]) and
 * arrive as the in-process backend sends them. */
PG_TEST(wheel_and_drag_through_the_helper_reach_the_app) {
    SETUP();
    pg_error e;
    pg_testapp_pointer p0 = {0}, p = {0};
    pg_testapp_read_pointer(&env.ta, &p0); /* none yet, or what an earlier test left */
    REQUIRE(env.ops->scroll(env.p, env.app, 300, 180, 0, 2, &e) == PG_OK);
    pg_point path[4] = {{260, 170}, {300, 190}, {340, 200}, {380, 210}};
    REQUIRE(env.ops->drag(env.p, env.app, path, 4, PG_BTN_LEFT, 10, 10, &e) == PG_OK);
    bool ok = false;
    for (double t0 = pg_mono_ms(); !ok && pg_mono_ms() - t0 < 3000; Sleep(20))
        ok = pg_testapp_read_pointer(&env.ta, &p) && dragged_to(&p, 380, 210) && p.wheel == p0.wheel + 2;
    CHECK(ok);
    CHECK(p.down_x == 260 && p.down_y == 170);
    pg_point one[1] = {{260, 170}};
    CHECK_EQ_INT(env.ops->drag(env.p, env.app, one, 1, PG_BTN_LEFT, 0, 0, &e), PG_E_BADINPUT);
    uint64_t top = 0; /* the app (client area at 100,100 on screen) is what a click at its middle reaches */
    REQUIRE(env.ops->top_at(env.p, 100 + 300, 100 + 180, &top, &e) == PG_OK);
    CHECK(top == env.app);
    pg_monitor *m = NULL; /* the monitors cross the helper protocol */
    size_t n = 0;
    REQUIRE(env.ops->monitors(env.p, &m, &n, &e) == PG_OK);
    CHECK(n >= 1 && m[0].r.w > 0 && m[0].name[0]);
    free(m);
}

/* Held input crosses the helper protocol: a press, a release where the
 * pointer is (id 0), a held key, the keyguard's answer and the pointer. */
PG_TEST(held_input_and_the_pointer_through_the_helper) {
    SETUP();
    pg_error e;
    pg_testapp_pointer p = {0};
    pg_hold down = {.id = env.app, .down = true, .button = PG_BTN_LEFT, .at = true, .x = 270, .y = 180};
    REQUIRE(env.ops->hold(env.p, &down, &e) == PG_OK);
    REQUIRE(env.ops->pointer_move(env.p, env.app, 350, 200, &e) == PG_OK);
    pg_hold up = {.button = PG_BTN_LEFT};
    REQUIRE(env.ops->hold(env.p, &up, &e) == PG_OK);
    bool ok = false;
    for (double t0 = pg_mono_ms(); !ok && pg_mono_ms() - t0 < 3000; Sleep(20))
        ok = pg_testapp_read_pointer(&env.ta, &p) && p.down_x == 270 && p.down_y == 180 && dragged_to(&p, 350, 200);
    CHECK(ok);
    int32_t sx = 0, sy = 0;
    REQUIRE(env.ops->pointer_at(env.p, &sx, &sy, &e) == PG_OK);
    CHECK(sx == 100 + 350 && sy == 100 + 200);
    pg_hold shift = {.id = env.app, .down = true, .is_key = true, .key = "shift"};
    REQUIRE(env.ops->hold(env.p, &shift, &e) == PG_OK);
    shift.down = false, shift.id = 0;
    REQUIRE(env.ops->hold(env.p, &shift, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->key_check(env.p, "ctrl+alt+Delete", &e), PG_E_POLICY);
    CHECK_EQ_INT(env.ops->key_check(env.p, "ctrl+s", &e), PG_OK);
    pg_hold nowhere = {.down = true, .button = PG_BTN_LEFT};
    CHECK_EQ_INT(env.ops->hold(env.p, &nowhere, &e), PG_E_BADINPUT);
}

PG_TEST(unknown_window_is_notfound_with_the_backends_own_message) {
    SETUP();
    pg_error via, direct;
    pg_capture c;
    HWND gone = CreateWindowExW(0, L"STATIC", L"pg gone", WS_OVERLAPPEDWINDOW, 0, 0, 50, 50, NULL, NULL, NULL, NULL);
    uint64_t id = (uint64_t)(uintptr_t)gone;
    DestroyWindow(gone);
    CHECK_EQ_INT(env.ops->capture_window(env.p, id, NULL, &c, &via), PG_E_NOTFOUND);
    pg_platform *local = NULL;
    REQUIRE(pg_platform_default()->open(&local, NULL, &direct) == PG_OK);
    CHECK_EQ_INT(pg_platform_default()->capture_window(local, id, NULL, &c, &direct), PG_E_NOTFOUND);
    printf("     via helper: %s\n", via.message);
    CHECK_STR(via.message, direct.message);
    CHECK_STR(via.recovery_tip, direct.recovery_tip);
    CHECK_EQ_INT(env.ops->click(env.p, id, 1, 1, PG_BTN_LEFT, 1, &via), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->key(env.p, env.app, "ctrl+nosuchkey", &via), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_platform_default()->key(local, env.app, "ctrl+nosuchkey", &direct), PG_E_BADINPUT);
    CHECK_STR(via.message, direct.message);
    CHECK_EQ_INT(env.ops->type_text(env.p, env.app, "ab\xff", &via), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->focus(env.p, (uint64_t)1 << 60, &via), PG_E_NOTFOUND); /* not sendable: local */
    char *big = malloc(PG_HELPER_MAX_TEXT + 2);
    REQUIRE(big != NULL);
    memset(big, 'a', PG_HELPER_MAX_TEXT + 1);
    big[PG_HELPER_MAX_TEXT + 1] = 0;
    CHECK_EQ_INT(env.ops->type_text(env.p, env.app, big, &via), PG_E_BADINPUT); /* refused before sending */
    free(big);
    pg_platform_default()->close(local);
}

typedef struct {
    DWORD pid;
    HWND found;
} indicator_search;

static BOOL CALLBACK find_indicator(HWND h, LPARAM lp) {
    indicator_search *s = (indicator_search *)lp;
    wchar_t cls[64] = L"";
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    GetClassNameW(h, cls, 64);
    if (pid == s->pid && !wcscmp(cls, L"pixelgate-indicator")) s->found = h;
    return !s->found;
}

static bool lists(pg_platform *p, HWND h, bool all) {
    pg_window *w = NULL;
    size_t n = 0;
    bool complete, found;
    pg_error e;
    pg_err rc = all ? env.ops->list_all(p, &w, &n, &complete, &e) : env.ops->list_windows(p, &w, &n, &e);
    found = rc != PG_OK; /* a list that failed proves nothing */
    for (size_t i = 0; i < n; i++) found |= w[i].id == (uint64_t)(uintptr_t)h;
    free(w);
    return found;
}

PG_TEST(the_persons_controls_through_the_helper) {
    SETUP();
    pg_error e;
    pg_person *person = pg_person_new(NULL, NULL);
    REQUIRE(person);
    pg_err rc = env.ops->watch_person(env.p, person, "Pause", &e);
    if (rc) fprintf(stderr, "watch_person: %s\n", e.message);
    CHECK_EQ_INT(rc, PG_OK);
    pg_person_seen s;
    pg_person_read(person, &s);
    CHECK(s.watching);
    CHECK_STR(s.stop_key, "Pause");
    /* Input as the session's user: the launch took the console user's token
     * and the helper's last SendInput ran impersonating it. */
    RECT b = env.ta.button;
    CHECK_EQ_INT(env.ops->click(env.p, env.app, mid_x(b), mid_y(b), PG_BTN_LEFT, 1, &e), PG_OK);
    pg_caps caps;
    REQUIRE(env.ops->caps(env.p, &caps, &e) == PG_OK);
    fprintf(stderr, "helper caps: %s\n", caps.detail);
    CHECK(strstr(caps.detail, "; input as the session user") != NULL);
    CHECK(strstr(caps.detail, "last input sent as S-1-") != NULL);
    CHECK(strstr(caps.detail, "impersonating, level 2") || strstr(caps.detail, "impersonating, level 1"));
    pg_indicator how = {.window = env.app, .mode = PG_INDICATOR_RING};
    snprintf(how.user, sizeof how.user, "agent");
    REQUIRE(env.ops->indicate(env.p, &how, &e) == PG_OK);
    indicator_search find = {pg_win_helper_pid(env.p), NULL};
    EnumWindows(find_indicator, (LPARAM)&find);
    REQUIRE(find.found);
    LONG_PTR ex = GetWindowLongPtrW(find.found, GWL_EXSTYLE);
    CHECK((ex & (WS_EX_LAYERED | WS_EX_TRANSPARENT | WS_EX_TOPMOST)) == (WS_EX_LAYERED | WS_EX_TRANSPARENT | WS_EX_TOPMOST));
    CHECK(IsWindowVisible(find.found));
    CHECK(!lists(env.p, find.found, false));
    CHECK(!lists(env.p, find.found, true));
    how.window = 0;
    CHECK_EQ_INT(env.ops->indicate(env.p, &how, &e), PG_OK);
    CHECK(!IsWindowVisible(find.found));
    CHECK_EQ_INT(env.ops->watch_person(env.p, person, "Escape", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "Escape") != NULL);
    /* Back to Pause: the poller runs again until the fixture closes the proxy. */
    CHECK_EQ_INT(env.ops->watch_person(env.p, person, "Pause", &e), PG_OK);
}

PG_TEST(killed_helper_is_replaced_on_the_next_call) {
    SETUP();
    pg_error e;
    pg_window *w;
    size_t n;
    uint32_t before = pg_win_helper_pid(env.p);
    REQUIRE(before != 0);
    REQUIRE(kill_pid(before));
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    CHECK(pg_testapp_find(w, n) != NULL);
    free(w);
    uint32_t after = pg_win_helper_pid(env.p);
    printf("     helper pid %u killed, replaced by %u\n", before, after);
    CHECK(after != 0 && after != before);
}

PG_TEST(relaunch_and_mark_stale_start_a_new_helper) {
    SETUP();
    pg_error e;
    pg_caps caps;
    uint32_t p0 = pg_win_helper_pid(env.p);
    REQUIRE(pg_win_helper_relaunch(env.p, &e) == PG_OK);
    uint32_t p1 = pg_win_helper_pid(env.p);
    CHECK(p1 != 0 && p1 != p0);
    HANDLE old = OpenProcess(SYNCHRONIZE, FALSE, p0); /* gone, or going */
    CHECK(!old || WaitForSingleObject(old, 5000) == WAIT_OBJECT_0);
    if (old) CloseHandle(old);
    pg_win_helper_mark_stale(env.p);
    CHECK_EQ_INT(pg_win_helper_pid(env.p), p1); /* nothing happens until the next call */
    REQUIRE(env.ops->caps(env.p, &caps, &e) == PG_OK);
    uint32_t p2 = pg_win_helper_pid(env.p);
    CHECK(p2 != 0 && p2 != p1);
}

PG_TEST(own_session_launch_says_so_and_close_stops_the_helper) {
    SETUP(); /* the app must exist for the list */
    pg_platform *p = NULL;
    pg_error e;
    pg_win_helper_launch how = {.args = "helper", .own_session = true};
    REQUIRE(pg_win_helper_proxy_open(&p, &how, &e) == PG_OK);
    char path[160];
    pg_win_helper_launch_path(p, path, sizeof path);
    CHECK_STR(path, "CreateProcess(own session, as asked)");
    pg_window *w;
    size_t n;
    CHECK(pg_win_helper_ops()->list_windows(p, &w, &n, &e) == PG_OK && pg_testapp_find(w, n) != NULL);
    free(w);
    HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, pg_win_helper_pid(p));
    REQUIRE(h != NULL);
    pg_win_helper_ops()->close(p);
    CHECK(WaitForSingleObject(h, 0) == WAIT_OBJECT_0); /* close waited for it to end */
    CloseHandle(h);
}

PG_TEST(a_pipe_client_other_than_the_started_child_is_refused) {
    pg_platform *p = NULL;
    pg_error e;
    pg_win_helper_launch how = {.args = "impostor", .connect_timeout_ms = 15000};
    CHECK_EQ_INT(pg_win_helper_proxy_open(&p, &how, &e), PG_E_POLICY);
    printf("     refused: %s\n", e.message);
    CHECK(strstr(e.message, "not the helper we started") != NULL);
    CHECK(p == NULL);
}

PG_TEST(a_child_that_exits_before_connecting_is_unreachable) {
    pg_platform *p = NULL;
    pg_error e;
    pg_win_helper_launch how = {.args = "quit", .connect_timeout_ms = 10000};
    double t0 = pg_mono_ms();
    CHECK_EQ_INT(pg_win_helper_proxy_open(&p, &how, &e), PG_E_UNREACHABLE);
    CHECK(strstr(e.message, "exited with code 3 before connecting") != NULL);
    CHECK(pg_mono_ms() - t0 < 9000); /* the exit ended the wait, not the timeout */
    how = (pg_win_helper_launch){.exe = "C:\\no\\such\\helper.exe"};
    CHECK_EQ_INT(pg_win_helper_proxy_open(&p, &how, &e), PG_E_UNREACHABLE);
    CHECK(p == NULL);
}

/* --------------------------------------------------- the fake helper */

/* One scripted answer: a reply header (its "id" is the request's unless
 * the template has one) with an attachment of att bytes; or hang up; or
 * say nothing. */
typedef struct {
    const char *json;
    long att; /* < 0: no attachment */
    enum { SAY, HANG_UP, SILENT } act;
} fake_step;

typedef struct {
    char name[128];
    const fake_step *steps;
    size_t n;
    char last_op[32];
} fake;

static void fake_reply(pg_conn *c, const fake_step *s, const pg_msg *req) {
    cJSON *h = cJSON_Parse(s->json);
    if (!cJSON_GetObjectItemCaseSensitive(h, "id"))
        cJSON_AddItemToObject(h, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req->header, "id"), 1));
    pg_blob b = {s->att >= 0 ? calloc(1, (size_t)s->att + 1) : NULL, s->att >= 0 ? (size_t)s->att : 0};
    pg_proto_write(c, h, &b, s->att >= 0 ? 1 : 0, NULL);
    free(b.data);
    cJSON_Delete(h);
}

static DWORD WINAPI fake_main(LPVOID arg) {
    fake *f = arg;
    pg_conn *c = NULL;
    pg_proto_limits l;
    pg_proto_limits_default(&l);
    if (pg_conn_connect(&c, f->name, 5000, NULL)) return 1;
    pg_conn_set_timeout(c, 10000);
    for (size_t i = 0; i <= f->n; i++) {
        pg_msg m;
        if (pg_proto_read(c, &l, &m, NULL)) break; /* the proxy closed the pipe */
        snprintf(f->last_op, sizeof f->last_op, "%s", pg_args_str(m.header, "op", "?"));
        const fake_step *s = i < f->n ? &f->steps[i] : NULL;
        if (s && s->act == SAY) fake_reply(c, s, &m);
        pg_msg_fini(&m);
        if (!s || s->act == HANG_UP) break;
    }
    pg_conn_close(c);
    return 0;
}

/* A proxy over a pipe whose other end is a fake helper thread. */
static pg_platform *fake_proxy(fake *f, HANDLE *thread, uint32_t call_ms) {
    static LONG counter;
    snprintf(f->name, sizeof f->name, "\\\\.\\pipe\\pixelgate-fakehelper-%lu-%ld", GetCurrentProcessId(),
             InterlockedIncrement(&counter));
    wchar_t wname[128];
    MultiByteToWideChar(CP_UTF8, 0, f->name, -1, wname, 128);
    HANDLE pipe = CreateNamedPipeW(wname, PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED, PIPE_TYPE_BYTE | PIPE_WAIT, 1,
                                   65536, 65536, 0, NULL);
    if (pipe == INVALID_HANDLE_VALUE) return NULL;
    *thread = CreateThread(NULL, 0, fake_main, f, 0, NULL);
    OVERLAPPED ov = {.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL)};
    DWORD n;
    bool ok = ConnectNamedPipe(pipe, &ov) || GetLastError() == ERROR_PIPE_CONNECTED ||
              (GetLastError() == ERROR_IO_PENDING && WaitForSingleObject(ov.hEvent, 5000) == WAIT_OBJECT_0 &&
               GetOverlappedResult(pipe, &ov, &n, FALSE));
    CloseHandle(ov.hEvent);
    pg_conn *c = NULL;
    pg_platform *p = NULL;
    if (!ok || pg_conn_from_handle(&c, pipe, 5000, NULL) || pg_win_helper_proxy_from_conn(&p, c, call_ms, NULL))
        return NULL;
    return p;
}

static void fake_end(pg_platform *p, HANDLE thread) {
    if (p) pg_win_helper_ops()->close(p);
    if (thread) WaitForSingleObject(thread, 10000), CloseHandle(thread);
}

#define CAPTURE_OK                                                                                  \
    "{\"v\":1,\"ok\":true,\"result\":{\"width\":2,\"height\":2,\"stride\":8,\"method\":\"bitblt\","     \
    "\"fallback\":\"\",\"origin_x\":0,\"origin_y\":0}}"

PG_TEST(fake_helper_capture_checks_stride_times_height_and_ends_the_helper) {
    static const fake_step steps[] = {{CAPTURE_OK, 16, SAY}, {CAPTURE_OK, 17, SAY}};
    fake f = {.steps = steps, .n = 2};
    HANDLE th = NULL;
    pg_platform *p = fake_proxy(&f, &th, 5000);
    REQUIRE(p != NULL);
    const pg_platform_ops *ops = pg_win_helper_ops();
    pg_capture c;
    pg_error e;
    REQUIRE(ops->capture_window(p, 42, NULL, &c, &e) == PG_OK); /* 2x2, 16 bytes: fine */
    CHECK(c.width == 2 && c.height == 2 && c.stride == 8 && !strcmp(c.method, "bitblt"));
    free(c.rgba);
    CHECK_EQ_INT(ops->capture_window(p, 42, NULL, &c, &e), PG_E_INTERNAL); /* 17 bytes */
    printf("     rejected: %s\n", e.message);
    CHECK(strstr(e.message, "stride*height") != NULL);
    CHECK(c.rgba == NULL);
    CHECK_EQ_INT(ops->list_windows(p, &(pg_window *){NULL}, &(size_t){0}, &e), PG_E_UNREACHABLE);
    fake_end(p, th);
}

/* Each reply here must be refused as INTERNAL. */
static void expect_rejected(int *pg_failed_, const char *json, long att, const char *op) {
    fake_step step = {json, att, SAY};
    fake f = {.steps = &step, .n = 1};
    HANDLE th = NULL;
    pg_platform *p = fake_proxy(&f, &th, 5000);
    REQUIRE(p != NULL);
    const pg_platform_ops *ops = pg_win_helper_ops();
    pg_error e = {0};
    pg_capture c = {0};
    pg_caps caps;
    pg_window *w = NULL;
    size_t n = 0;
    pg_rect r = {0, 0, 1, 1};
    pg_err rc = !strcmp(op, "list")      ? ops->list_windows(p, &w, &n, &e)
                : !strcmp(op, "caps")    ? ops->caps(p, &caps, &e)
                : !strcmp(op, "region")  ? ops->capture_screen(p, &r, &c, &e)
                : !strcmp(op, "focus")   ? ops->focus(p, 7, &e)
                                         : ops->capture_window(p, 7, NULL, &c, &e);
    if (rc != PG_E_INTERNAL) fprintf(stderr, "reply %s accepted (%d: %s)\n", json, rc, e.message);
    CHECK_EQ_INT(rc, PG_E_INTERNAL);
    CHECK(w == NULL && c.rgba == NULL);
    fake_end(p, th);
}

PG_TEST(fake_helper_replies_out_of_bounds_are_internal) {
    char title[700];
    memset(title, 'a', 600);
    title[600] = 0;
    char list[1200];
    snprintf(list, sizeof list,
             "{\"v\":1,\"ok\":true,\"result\":{\"windows\":[{\"id\":1,\"title\":\"%s\",\"class\":\"c\","
             "\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"visible\":true,"
             "\"focused\":false}]}}",
             title);
    expect_rejected(pg_failed_, list, -1, "list"); /* title over 511 bytes */
    expect_rejected(pg_failed_,
                    "{\"v\":1,\"ok\":true,\"result\":{\"width\":20000,\"height\":1,\"stride\":80000,\"method\":\"m\","
                    "\"fallback\":\"\",\"origin_x\":0,\"origin_y\":0}}", 80000, "capture");
    expect_rejected(pg_failed_,
                    "{\"v\":1,\"ok\":true,\"result\":{\"width\":2,\"height\":2,\"stride\":4,\"method\":\"m\","
                    "\"fallback\":\"\",\"origin_x\":0,\"origin_y\":0}}", 8, "capture"); /* stride < width*4 */
    expect_rejected(pg_failed_,
                    "{\"v\":1,\"ok\":true,\"result\":{\"width\":4,\"height\":4,\"stride\":16,\"method\":\"m\","
                    "\"fallback\":\"\",\"origin_x\":0,\"origin_y\":0}}",
                    64, "region"); /* bigger than the 1x1 region asked */
    expect_rejected(pg_failed_, CAPTURE_OK, -1, "capture");                        /* no attachment */
    expect_rejected(pg_failed_,
                    "{\"v\":1,\"ok\":true,\"result\":{\"width\":2,\"height\":2,\"stride\":8,\"method\":"
                    "\"a method name far longer than thirty-two bytes\",\"fallback\":\"\",\"origin_x\":0,"
                    "\"origin_y\":0}}",
                    16, "capture");
    expect_rejected(pg_failed_, "{\"v\":1,\"id\":999,\"ok\":true,\"result\":{}}", -1, "focus"); /* wrong id */
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":true,\"result\":{\"extra\":1}}", -1, "focus");
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":true,\"result\":{},\"more\":1}", -1, "focus");
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":true,\"result\":{}}", 4, "focus"); /* stray attachment */
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"BOGUS\",\"message\":\"m\"}}", -1, "focus");
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"OK\",\"message\":\"m\"}}", -1, "focus");
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":true,\"error\":{\"code\":\"USAGE\",\"message\":\"m\"}}", -1, "focus");
    expect_rejected(pg_failed_, "{\"v\":1,\"ok\":true,\"result\":{\"backend\":\"win32\"}}", -1, "caps");
}

PG_TEST(fake_helper_error_code_and_message_arrive_exactly) {
    static const fake_step steps[] = {
        {"{\"v\":1,\"ok\":false,\"error\":{\"code\":\"NOT_FOUND\",\"exit\":4,\"message\":\"fake: no window 0x7\","
         "\"recovery_tip\":\"look again\"}}", -1, SAY},
        {"{\"v\":1,\"ok\":true,\"result\":{}}", -1, SAY}};
    fake f = {.steps = steps, .n = 2};
    HANDLE th = NULL;
    pg_platform *p = fake_proxy(&f, &th, 5000);
    REQUIRE(p != NULL);
    pg_error e;
    CHECK_EQ_INT(pg_win_helper_ops()->focus(p, 7, &e), PG_E_NOTFOUND);
    CHECK_STR(e.message, "fake: no window 0x7");
    CHECK_STR(e.recovery_tip, "look again");
    CHECK_STR(f.last_op, "focus");
    CHECK_EQ_INT(pg_win_helper_ops()->focus(p, 7, &e), PG_OK); /* an error reply is no reason to stop it */
    fake_end(p, th);
}

PG_TEST(fake_helper_hang_up_is_unreachable_and_silence_a_timeout) {
    static const fake_step hang[] = {{NULL, -1, HANG_UP}};
    static const fake_step mute[] = {{NULL, -1, SILENT}};
    fake f = {.steps = hang, .n = 1};
    HANDLE th = NULL;
    pg_error e;
    pg_platform *p = fake_proxy(&f, &th, 5000);
    REQUIRE(p != NULL);
    CHECK_EQ_INT(pg_win_helper_ops()->focus(p, 7, &e), PG_E_UNREACHABLE);
    CHECK(strstr(e.message, "gone") != NULL);
    fake_end(p, th);
    f = (fake){.steps = mute, .n = 1};
    p = fake_proxy(&f, &th, 500);
    REQUIRE(p != NULL);
    double t0 = pg_mono_ms();
    CHECK_EQ_INT(pg_win_helper_ops()->settle(p, 7, 10, 300, &e), PG_E_TIMEOUT); /* 500 + 300 ms */
    double took = pg_mono_ms() - t0;
    printf("     silent helper: %s after %.0f ms\n", e.message, took);
    CHECK(took >= 700 && took < 3000);
    CHECK_EQ_INT(pg_win_helper_ops()->focus(p, 7, &e), PG_E_UNREACHABLE); /* stopped: cannot restart it */
    fake_end(p, th);
}
