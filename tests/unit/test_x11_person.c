/* SPDX-License-Identifier: MIT */
/* test_x11_person.c - the X11 backend's watch_person against a person's
 * keyboard and mouse that are not XTEST.
 *
 * Setup: Xvfb on a free display of :210..:219 (the host) and, inside it,
 * `Xephyr -screen 800x600` on another (the nested display the backend
 * opens). The person's input is host-side XTEST aimed at the Xephyr window:
 * it reaches the nested server through "Xephyr virtual keyboard/mouse",
 * which are not XTEST. The agent's input is XTEST on the nested display.
 * Proves: an XTEST Pause does not count; a physical Pause counts once, also
 * while another client holds an active keyboard grab; physical motion is
 * activity, XTEST motion and clicks are not; the stop key follows a keymap
 * change; a key on no keycode is "not watching, why"; "XTEST Device" set on
 * the Xephyr keyboard (while watched, or before), `xinput disable` and
 * `xinput float` of it are tampers naming the device, also when another
 * device's change makes the watcher read the devices after the server has
 * moved on; the re-flagged and the floating keyboard's Pause still counts;
 * a second master's XTEST devices coming and going are no tamper; a bad key
 * name is BADINPUT; a second call keeps or replaces the watcher, never
 * counting twice; close() joins a running watcher; a display that goes
 * away turns watching off with a reason. The ops table agrees with
 * pg_platform.def.
 * Showing that something did NOT count: it is sent first, then a physical
 * event; the server delivers to the watcher in order, so once the physical
 * one is seen the other would have been too. Every wait has a deadline.
 * Missing Xvfb, Xephyr or xinput is a FAILURE, never a skip.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xcb/xcb.h>
#include <xcb/xinput.h>
#include <xcb/xtest.h>

#include "pg_person.h"
#include "pg_platform.h"
#include "pg_platform_decl.h"
#include "pg_test.h"
#include "pg_time.h"

#define KEYSYM_PAUSE 0xff13u
#define KEYSYM_SCROLL_LOCK 0xff14u
#define MAX_PER_KEYCODE 16
#define WAIT_MS 15000 /* a loaded 2-core machine runs two X servers here */

static struct {
    bool tried, broken;
    char why[1200];
    char host_dpy[16], nest_dpy[16];
    pid_t xvfb, xephyr;
    xcb_connection_t *host, *nest; /* the person's side, the agent's side */
    xcb_window_t host_root, nest_root;
    int32_t cx, cy;                /* the centre of the Xephyr window on the host */
    int motion_step;               /* every physical motion goes somewhere new */
    uint8_t host_pause, nest_pause;
    const pg_platform_ops *ops;
    pg_platform *p;
    pg_person *person;
} env;

/* ------------------------------------------------------------ processes */

static bool on_path(const char *prog) {
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", d, prog);
        if (access(full, X_OK) == 0) return true;
    }
    return false;
}

/* fork/exec with DISPLAY=display (none: unset), output to /dev/null; the
 * child dies with us. */
static pid_t spawn(char *const argv[], const char *display) {
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (display) setenv("DISPLAY", display, 1);
        else unsetenv("DISPLAY");
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static void stop(pid_t *pid) {
    if (*pid <= 0) return;
    kill(*pid, SIGTERM);
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 3000; pg_sleep_ms(10))
        if (waitpid(*pid, NULL, WNOHANG) == *pid) {
            *pid = 0;
            return;
        }
    kill(*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

/* Run argv on the nested display to its end (at most WAIT_MS): its exit status, -1 if none. */
static int run_nested(char *const argv[]) {
    pid_t pid = spawn(argv, env.nest_dpy);
    int status = 0;
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < WAIT_MS; pg_sleep_ms(5))
        if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    stop(&pid);
    return -1;
}

static void cleanup(void) {
    if (env.p) env.ops->close(env.p);
    env.p = NULL;
    pg_person_free(env.person);
    env.person = NULL;
    if (env.nest) xcb_disconnect(env.nest);
    if (env.host) xcb_disconnect(env.host);
    env.nest = env.host = NULL;
    stop(&env.xephyr);
    stop(&env.xvfb);
}

static bool fail_setup(const char *fmt, const char *arg) {
    snprintf(env.why, sizeof env.why, fmt, arg);
    env.broken = true;
    return false;
}

/* ------------------------------------------------------------ X servers */

static bool display_free(int d) {
    char lock[64], sock[64];
    snprintf(lock, sizeof lock, "/tmp/.X%d-lock", d);
    snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", d);
    return access(lock, F_OK) != 0 && access(sock, F_OK) != 0;
}

/* Whether display d's lock file names server: another test may have taken
 * the number between our look and our server's start, and its server must
 * not be mistaken for ours. */
static bool lock_is(int d, pid_t server) {
    char lock[64], text[32] = "";
    snprintf(lock, sizeof lock, "/tmp/.X%d-lock", d);
    int fd = open(lock, O_RDONLY);
    if (fd < 0) return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return atol(text) == (long)server;
}

/* Wait until our server holds display d and accepts us, or exits (lost a
 * race for the number). */
static xcb_connection_t *await_server(pid_t server, int d, const char *display) {
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < WAIT_MS; pg_sleep_ms(20)) {
        if (waitpid(server, NULL, WNOHANG) == server) return NULL;
        if (!lock_is(d, server)) continue;
        xcb_connection_t *c = xcb_connect(display, NULL);
        if (!xcb_connection_has_error(c)) return c;
        xcb_disconnect(c);
    }
    return NULL;
}

/* A server on the first free display of :from..:219, else 0. */
static int start_server(int from, bool nested, pid_t *pid, xcb_connection_t **c, char *dpy, size_t cap) {
    for (int d = from; d <= 219; d++) {
        if (!display_free(d)) continue;
        snprintf(dpy, cap, ":%d", d);
        char *xvfb[] = {"Xvfb", dpy, "-screen", "0", "1024x768x24", "-nolisten", "tcp", "-noreset", NULL};
        char *xephyr[] = {"Xephyr", dpy, "-screen", "800x600", "-nolisten", "tcp", "-noreset", NULL};
        *pid = spawn(nested ? xephyr : xvfb, nested ? env.host_dpy : NULL);
        if ((*c = await_server(*pid, d, dpy)) != NULL) return d;
        stop(pid);
    }
    return 0;
}

static xcb_window_t root_of(xcb_connection_t *c) { return xcb_setup_roots_iterator(xcb_get_setup(c)).data->root; }

static void sync_with(xcb_connection_t *c) { free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL)); }

/* The first keycode whose core keymap row holds sym; 0 if none. */
static uint8_t keycode_of(xcb_connection_t *c, uint32_t sym) {
    const xcb_setup_t *s = xcb_get_setup(c);
    uint8_t n = (uint8_t)(s->max_keycode - s->min_keycode + 1);
    xcb_get_keyboard_mapping_reply_t *r =
        xcb_get_keyboard_mapping_reply(c, xcb_get_keyboard_mapping(c, s->min_keycode, n), NULL);
    uint8_t code = 0;
    if (r && r->keysyms_per_keycode) {
        const xcb_keysym_t *k = xcb_get_keyboard_mapping_keysyms(r);
        for (int i = 0; !code && i < xcb_get_keyboard_mapping_keysyms_length(r); i++)
            if (k[i] == sym) code = (uint8_t)(s->min_keycode + i / r->keysyms_per_keycode);
    }
    free(r);
    return code;
}

/* The Xephyr window on the host: the child of root that is 800x600. */
static bool find_xephyr_window(void) {
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < WAIT_MS; pg_sleep_ms(20)) {
        xcb_query_tree_reply_t *t = xcb_query_tree_reply(env.host, xcb_query_tree(env.host, env.host_root), NULL);
        xcb_window_t *kids = t ? xcb_query_tree_children(t) : NULL;
        for (int i = 0; t && i < xcb_query_tree_children_length(t); i++) {
            xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(env.host, xcb_get_geometry(env.host, kids[i]), NULL);
            bool it = g && g->width == 800 && g->height == 600;
            if (it) {
                env.cx = g->x + 400;
                env.cy = g->y + 300;
            }
            free(g);
            if (it) {
                /* The person types into it: keys on the host go where Xephyr listens. */
                xcb_set_input_focus(env.host, XCB_INPUT_FOCUS_POINTER_ROOT, kids[i], XCB_CURRENT_TIME);
                free(t);
                return true;
            }
        }
        free(t);
    }
    return fail_setup("the Xephyr window never appeared on %s", env.host_dpy);
}

/* ------------------------------------------------------------ input */

/* The person: the host's pointer moves inside the Xephyr window. */
static void person_moves(void) {
    env.motion_step = (env.motion_step + 1) % 50;
    xcb_test_fake_input(env.host, XCB_MOTION_NOTIFY, 0, XCB_CURRENT_TIME, env.host_root,
                        (int16_t)(env.cx - 100 + 4 * env.motion_step), (int16_t)env.cy, 0);
    sync_with(env.host);
}

static void person_presses(uint8_t host_code, bool press) {
    xcb_test_fake_input(env.host, press ? XCB_KEY_PRESS : XCB_KEY_RELEASE, host_code, XCB_CURRENT_TIME, XCB_NONE,
                        0, 0, 0);
    sync_with(env.host);
}

static void person_key(bool press) { person_presses(env.host_pause, press); }

/* The nested keymap's row of keysyms for one keycode: read, and written. */
static int keymap_row(uint8_t code, xcb_keysym_t *row) {
    xcb_get_keyboard_mapping_reply_t *r =
        xcb_get_keyboard_mapping_reply(env.nest, xcb_get_keyboard_mapping(env.nest, code, 1), NULL);
    int per = r ? r->keysyms_per_keycode : 0;
    if (per > MAX_PER_KEYCODE) per = 0;
    if (per) memcpy(row, xcb_get_keyboard_mapping_keysyms(r), (size_t)per * sizeof *row);
    free(r);
    return per;
}

static void set_keymap_row(uint8_t code, int per, const xcb_keysym_t *row) {
    xcb_change_keyboard_mapping(env.nest, 1, code, (uint8_t)per, row);
    sync_with(env.nest);
}

/* The agent: XTEST on the nested display itself. */
static void agent_pause(void) {
    xcb_test_fake_input(env.nest, XCB_KEY_PRESS, env.nest_pause, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    xcb_test_fake_input(env.nest, XCB_KEY_RELEASE, env.nest_pause, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    sync_with(env.nest);
}

static void agent_moves_and_clicks(void) {
    for (int i = 0; i < 5; i++)
        xcb_test_fake_input(env.nest, XCB_MOTION_NOTIFY, 0, XCB_CURRENT_TIME, env.nest_root, (int16_t)(100 + 20 * i),
                            (int16_t)(100 + 10 * i), 0);
    xcb_test_fake_input(env.nest, XCB_BUTTON_PRESS, 1, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    xcb_test_fake_input(env.nest, XCB_BUTTON_RELEASE, 1, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    sync_with(env.nest);
}

/* ------------------------------------------------------------ the watcher */

static pg_person_seen seen_now(pg_person *person) {
    pg_person_seen s;
    pg_person_read(person, &s);
    return s;
}

typedef bool (*seen_test)(const pg_person_seen *s, uint64_t than);
static bool more_human(const pg_person_seen *s, uint64_t than) { return s->human_events > than; }
static bool more_stops(const pg_person_seen *s, uint64_t than) { return s->stop_presses > than; }
static bool more_tampers(const pg_person_seen *s, uint64_t than) { return s->tampers > than; }
static bool not_watching(const pg_person_seen *s, uint64_t than) { return !s->watching && than == 0; }

/* Wait (at most WAIT_MS) until test(seen, than) holds; the last reading goes to *out. */
static bool await_seen(pg_person *person, seen_test test, uint64_t than, pg_person_seen *out) {
    for (double t0 = pg_mono_ms();; pg_sleep_ms(2)) {
        *out = seen_now(person);
        if (test(out, than)) return true;
        if (pg_mono_ms() - t0 > WAIT_MS) return false;
    }
}

static bool start_watching(void) {
    pg_error e;
    env.ops = pg_platform_default();
    if (!env.ops->watch_person) return fail_setup("the x11 ops table has no watch_person%s", "");
    if (env.ops->open(&env.p, env.nest_dpy, &e) != PG_OK) return fail_setup("open: %s", e.message);
    env.person = pg_person_new(NULL, NULL);
    if (env.ops->watch_person(env.p, env.person, "Pause", &e) != PG_OK)
        return fail_setup("watch_person: %s", e.message);
    return true;
}

/* Both servers, the Xephyr window found, Pause on both keymaps, the watcher on. */
static bool ready(void) {
    if (env.tried) return !env.broken;
    env.tried = true;
    atexit(cleanup);
    const char *need[] = {"Xvfb", "Xephyr", "xinput"};
    for (int i = 0; i < 3; i++)
        if (!on_path(need[i])) return fail_setup("%s not found on PATH: install it (this test never skips)", need[i]);
    int host = start_server(210, false, &env.xvfb, &env.host, env.host_dpy, sizeof env.host_dpy);
    if (!host) return fail_setup("could not start Xvfb on any display :210..:219%s", "");
    if (!start_server(host + 1, true, &env.xephyr, &env.nest, env.nest_dpy, sizeof env.nest_dpy))
        return fail_setup("could not start Xephyr inside %s on a display up to :219", env.host_dpy);
    env.host_root = root_of(env.host);
    env.nest_root = root_of(env.nest);
    /* The test's own key holds must not repeat on the host. */
    uint32_t off = XCB_AUTO_REPEAT_MODE_OFF;
    xcb_change_keyboard_control(env.host, XCB_KB_AUTO_REPEAT_MODE, &off);
    env.host_pause = keycode_of(env.host, KEYSYM_PAUSE);
    env.nest_pause = keycode_of(env.nest, KEYSYM_PAUSE);
    if (!env.host_pause || !env.nest_pause) return fail_setup("no keycode makes Pause%s", "");
    if (!find_xephyr_window()) return false;
    return start_watching();
}

#define READY()                                                    \
    do {                                                           \
        if (!ready()) fprintf(stderr, "setup: %s\n", env.why);      \
        REQUIRE(!env.broken);                                      \
    } while (0)

/* ------------------------------------------------------------ tests */

PG_TEST(watching_pause) {
    READY();
    pg_person_seen s = seen_now(env.person);
    CHECK(s.watching);
    CHECK_STR(s.stop_key, "Pause");
    CHECK_EQ_INT(s.tampers, 0);
    /* The table and pg_platform.def agree (watch_person is X11's now). */
    pg_caps caps;
    pg_error e;
    char why[512] = "";
    REQUIRE(env.ops->caps(env.p, &caps, &e) == PG_OK);
    CHECK_EQ_INT(pg_platform_conform(env.ops, PG_BK_X11, &caps, why, sizeof why), 0);
    if (why[0]) fprintf(stderr, "  %s\n", why);
}

PG_TEST(agent_pause_does_not_count) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    agent_pause();
    person_moves(); /* arrives after the agent's Pause */
    REQUIRE(await_seen(env.person, more_human, before.human_events, &after));
    CHECK_EQ_INT(after.stop_presses, before.stop_presses);
    CHECK_EQ_INT(after.human_events, before.human_events + 1); /* the motion alone */
}

/* A physical Pause, then motion: once the motion is seen, Pause counted once. */
static void physical_pause_counts_once(int *pg_failed_) {
    pg_person_seen before = seen_now(env.person), after;
    person_key(true);
    person_key(false);
    REQUIRE(await_seen(env.person, more_stops, before.stop_presses, &after));
    person_moves();
    REQUIRE(await_seen(env.person, more_human, after.human_events, &after));
    CHECK_EQ_INT(after.stop_presses, before.stop_presses + 1);
    CHECK_EQ_INT(after.human_events, before.human_events + 2);
    CHECK(after.last_human_us > 0);
}

PG_TEST(person_pause_counts_once) {
    READY();
    physical_pause_counts_once(pg_failed_);
}

PG_TEST(person_pause_counts_during_a_grab) {
    READY();
    xcb_grab_keyboard_reply_t *g = xcb_grab_keyboard_reply(
        env.nest,
        xcb_grab_keyboard(env.nest, 0, env.nest_root, XCB_CURRENT_TIME, XCB_GRAB_MODE_ASYNC, XCB_GRAB_MODE_ASYNC),
        NULL);
    bool grabbed = g && g->status == XCB_GRAB_STATUS_SUCCESS;
    free(g);
    REQUIRE(grabbed);
    physical_pause_counts_once(pg_failed_);
    xcb_ungrab_keyboard(env.nest, XCB_CURRENT_TIME);
    sync_with(env.nest);
}

PG_TEST(agent_motion_and_clicks_are_not_activity) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    agent_moves_and_clicks();
    person_key(true); /* the physical press: one human event */
    bool seen = await_seen(env.person, more_stops, before.stop_presses, &after);
    person_key(false);
    REQUIRE(seen);
    CHECK_EQ_INT(after.human_events, before.human_events + 1);
}

PG_TEST(person_motion_is_activity) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    person_moves();
    CHECK(await_seen(env.person, more_human, before.human_events, &after));
    CHECK(after.last_human_us >= before.last_human_us);
    CHECK_EQ_INT(after.stop_presses, before.stop_presses);
}

/* Pause moved to another key on the nested keymap (swapped with
 * Scroll_Lock): the watcher reads the keymap again, and the person's stop
 * is the key that makes Pause now. Both servers number keys alike (evdev). */
PG_TEST(stop_key_follows_the_keymap) {
    READY();
    uint8_t pause = env.nest_pause, other = keycode_of(env.nest, KEYSYM_SCROLL_LOCK);
    REQUIRE(other && keycode_of(env.host, KEYSYM_SCROLL_LOCK) == other && env.host_pause == pause);
    xcb_keysym_t pause_row[MAX_PER_KEYCODE], other_row[MAX_PER_KEYCODE];
    int per = keymap_row(pause, pause_row);
    REQUIRE(per > 0 && keymap_row(other, other_row) == per);
    set_keymap_row(pause, per, other_row);
    set_keymap_row(other, per, pause_row);
    pg_person_seen before = seen_now(env.person), after;
    person_presses(other, true); /* makes Pause now */
    person_presses(other, false);
    bool stopped = await_seen(env.person, more_stops, before.stop_presses, &after);
    person_presses(pause, true); /* makes Scroll_Lock now */
    person_presses(pause, false);
    person_moves();
    bool moved = await_seen(env.person, more_human, before.human_events + 2, &after);
    set_keymap_row(pause, per, pause_row);
    set_keymap_row(other, per, other_row);
    REQUIRE(stopped && moved);
    CHECK_EQ_INT(after.stop_presses, before.stop_presses + 1);
    CHECK_EQ_INT(after.human_events, before.human_events + 3);
    physical_pause_counts_once(pg_failed_); /* and back */
}

PG_TEST(bad_key_name_is_badinput) {
    READY();
    pg_error e;
    CHECK_EQ_INT(env.ops->watch_person(env.p, env.person, "NoSuchKeyAnywhere", &e), PG_E_BADINPUT);
    CHECK(seen_now(env.person).watching); /* the running watcher stays */
}

/* A key that no keycode makes: the watcher runs (tampering and activity
 * still count) but says it does not watch for the stop key, and why. */
PG_TEST(stop_key_not_on_the_keymap_is_not_watching) {
    READY();
    pg_platform *second = NULL;
    pg_person *other = pg_person_new(NULL, NULL);
    pg_error e;
    REQUIRE(env.ops->open(&second, env.nest_dpy, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->watch_person(second, other, "F35", &e), PG_OK);
    pg_person_seen s = seen_now(other);
    CHECK(!s.watching);
    CHECK_STR(s.why_not, "no key on the keyboard map makes F35");
    person_moves();
    CHECK(await_seen(other, more_human, 0, &s));
    env.ops->close(second);
    pg_person_free(other);
}

/* Another master comes with XTEST slaves of its own ("Second XTEST
 * keyboard", flagged): no tamper when it comes or goes (its XTEST keyboard
 * is removed with it). */
PG_TEST(a_second_master_is_no_tamper) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    char *create[] = {"xinput", "create-master", "Second", NULL};
    char *remove[] = {"xinput", "remove-master", "Second pointer", NULL};
    REQUIRE(run_nested(create) == 0);
    person_moves(); /* seen: the watcher has read the new devices */
    REQUIRE(await_seen(env.person, more_human, before.human_events, &after));
    REQUIRE(run_nested(remove) == 0);
    person_moves();
    REQUIRE(await_seen(env.person, more_human, after.human_events, &after));
    CHECK_EQ_INT(after.tampers, before.tampers);
}

PG_TEST(close_joins_a_running_watcher) {
    READY();
    pg_platform *second = NULL;
    pg_person *other = pg_person_new(NULL, NULL);
    pg_error e;
    REQUIRE(env.ops->open(&second, env.nest_dpy, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->watch_person(second, other, "Pause", &e), PG_OK);
    CHECK_EQ_INT(env.ops->watch_person(second, other, "Pause", &e), PG_OK); /* the same: watching already */
    CHECK_EQ_INT(env.ops->watch_person(second, other, "Scroll_Lock", &e), PG_OK); /* replaces the first */
    pg_person_seen s = seen_now(other);
    CHECK(s.watching);
    CHECK_STR(s.stop_key, "Scroll_Lock");
    person_presses(keycode_of(env.host, KEYSYM_SCROLL_LOCK), true);
    person_presses(keycode_of(env.host, KEYSYM_SCROLL_LOCK), false);
    person_moves();
    CHECK(await_seen(other, more_human, 1, &s)); /* one watcher: each counted once */
    CHECK_EQ_INT(s.stop_presses, 1);
    CHECK_EQ_INT(s.human_events, 2);
    env.ops->close(second); /* the thread is running: close stops and joins it */
    pg_person_free(other);
}

PG_TEST(xtest_flag_on_the_keyboard_is_tamper) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    char *argv[] = {"xinput", "set-prop", "Xephyr virtual keyboard", "--type=int", "--format=8", "XTEST Device",
                    "1", NULL};
    REQUIRE(run_nested(argv) == 0);
    REQUIRE(await_seen(env.person, more_tampers, before.tampers, &after));
    CHECK_EQ_INT(after.tampers, before.tampers + 1);
    CHECK(strstr(after.tamper_why, "keyboard ") == after.tamper_why);
    CHECK(strstr(after.tamper_why, "(Xephyr virtual keyboard)") != NULL);
    CHECK(strstr(after.tamper_why, "XTEST Device") != NULL);
    fprintf(stderr, "  tamper: %s\n", after.tamper_why);
    /* The flag does not make the person's Pause an injected one. */
    physical_pause_counts_once(pg_failed_);
    /* A watcher started now finds the flag already there: a tamper at once,
     * and the keyboard is still the person's. */
    pg_platform *late = NULL;
    pg_person *other = pg_person_new(NULL, NULL);
    pg_error e;
    REQUIRE(env.ops->open(&late, env.nest_dpy, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->watch_person(late, other, "Pause", &e), PG_OK);
    pg_person_seen s = seen_now(other);
    CHECK_EQ_INT(s.tampers, 1);
    CHECK(strstr(s.tamper_why, "(Xephyr virtual keyboard) flagged") != NULL);
    person_key(true);
    person_key(false);
    CHECK(await_seen(other, more_stops, 0, &s));
    env.ops->close(late);
    pg_person_free(other);
}

PG_TEST(disabled_keyboard_is_tamper) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    char *argv[] = {"xinput", "disable", "Xephyr virtual keyboard", NULL};
    REQUIRE(run_nested(argv) == 0);
    REQUIRE(await_seen(env.person, more_tampers, before.tampers, &after));
    CHECK(strstr(after.tamper_why, "keyboard ") == after.tamper_why);
    CHECK(strstr(after.tamper_why, "(Xephyr virtual keyboard) disabled") != NULL);
    fprintf(stderr, "  tamper: %s\n", after.tamper_why);
    /* Enabling it again is no tamper: motion arrives, the count stays. */
    char *enable[] = {"xinput", "enable", "Xephyr virtual keyboard", NULL};
    REQUIRE(run_nested(enable) == 0);
    person_moves();
    REQUIRE(await_seen(env.person, more_human, after.human_events, &after));
    CHECK_EQ_INT(after.tampers, before.tampers + 1);
}

static xcb_atom_t nest_atom(const char *name) {
    xcb_intern_atom_reply_t *r =
        xcb_intern_atom_reply(env.nest, xcb_intern_atom(env.nest, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t a = r ? r->atom : XCB_NONE;
    free(r);
    return a;
}

/* The nested device named name, by XI 2: its id, 0 if none. */
static uint16_t nest_device(const char *name) {
    xcb_input_xi_query_device_reply_t *r = xcb_input_xi_query_device_reply(
        env.nest, xcb_input_xi_query_device(env.nest, XCB_INPUT_DEVICE_ALL), NULL);
    uint16_t id = 0;
    for (xcb_input_xi_device_info_iterator_t it = r ? xcb_input_xi_query_device_infos_iterator(r)
                                                    : (xcb_input_xi_device_info_iterator_t){0};
         r && it.rem; xcb_input_xi_device_info_next(&it))
        if ((size_t)xcb_input_xi_device_info_name_length(it.data) == strlen(name) &&
            memcmp(xcb_input_xi_device_info_name(it.data), name, strlen(name)) == 0)
            id = it.data->deviceid;
    free(r);
    return id;
}

/* "Device Enabled" of devices ids[0..n) set to on, in one burst. */
static void set_enabled(const uint16_t *ids, int n, bool on) {
    xcb_atom_t enabled = nest_atom("Device Enabled");
    uint8_t value[4] = {on ? 1 : 0}; /* xcb sends the item padded to 4 bytes, and reads them */
    for (int i = 0; i < n; i++)
        xcb_input_xi_change_property(env.nest, ids[i], XCB_PROP_MODE_REPLACE, 8, enabled, XCB_ATOM_INTEGER, 1, value);
    sync_with(env.nest);
}

/* The mouse disabled and the keyboard right after: the watcher reads the
 * devices again on the mouse's change, when the server has disabled the
 * keyboard too, and must still see the keyboard's change as a tamper. */
PG_TEST(a_change_just_before_does_not_hide_a_disable) {
    READY();
    uint16_t ids[2] = {nest_device("Xephyr virtual mouse"), nest_device("Xephyr virtual keyboard")};
    REQUIRE(ids[0] && ids[1]);
    pg_person_seen before = seen_now(env.person), after;
    set_enabled(ids, 2, false);
    bool seen = await_seen(env.person, more_tampers, before.tampers, &after);
    set_enabled(ids, 2, true);
    REQUIRE(seen);
    CHECK(strstr(after.tamper_why, "(Xephyr virtual keyboard) disabled") != NULL);
    CHECK_EQ_INT(after.tampers, before.tampers + 1); /* the mouse is no tamper */
    person_moves(); /* both enabled again: the person's motion arrives */
    REQUIRE(await_seen(env.person, more_human, after.human_events, &after));
    CHECK_EQ_INT(after.tampers, before.tampers + 1);
}

/* Floated off its master, the keyboard no longer types into anything. */
PG_TEST(floated_keyboard_is_tamper) {
    READY();
    pg_person_seen before = seen_now(env.person), after;
    char *floating[] = {"xinput", "float", "Xephyr virtual keyboard", NULL};
    REQUIRE(run_nested(floating) == 0);
    REQUIRE(await_seen(env.person, more_tampers, before.tampers, &after));
    CHECK(strstr(after.tamper_why, "(Xephyr virtual keyboard) detached") != NULL);
    fprintf(stderr, "  tamper: %s\n", after.tamper_why);
    /* Floating, its keys still come from it (no reattach: Xephyr 21.1.7
     * dies on `xinput reattach` of its keyboard). */
    physical_pause_counts_once(pg_failed_);
    CHECK_EQ_INT(seen_now(env.person).tampers, before.tampers + 1);
}

/* Last: the nested server goes away under the watcher. */
/* pixelgate-session serves the same counts to the broker (person_poll): a
 * second handle's own watcher counts the person's Pause, not the agent's. */
PG_TEST(person_poll_counts_what_the_watcher_counts) {
    READY();
    REQUIRE(env.ops->person_poll != NULL);
    pg_platform *p2 = NULL;
    pg_error e;
    REQUIRE(env.ops->open(&p2, env.nest_dpy, &e) == PG_OK);
    uint32_t watching = 0, presses = 0, tampers = 0, events = 0, idle = 0;
    REQUIRE(env.ops->person_poll(p2, "Pause", &watching, &presses, &tampers, &events, &idle, &e) == PG_OK);
    CHECK_EQ_INT(watching, 1);
    uint32_t presses0 = presses;
    agent_pause();
    pg_person_seen before = seen_now(env.person), after;
    person_key(true);
    person_key(false);
    REQUIRE(await_seen(env.person, more_stops, before.stop_presses, &after)); /* the first watcher saw it */
    for (double t0 = pg_mono_ms(); presses == presses0 && pg_mono_ms() - t0 < WAIT_MS; pg_sleep_ms(2))
        REQUIRE(env.ops->person_poll(p2, "Pause", &watching, &presses, &tampers, &events, &idle, &e) == PG_OK);
    CHECK_EQ_INT(presses, presses0 + 1); /* the person's, once; the agent's never */
    CHECK(idle < UINT32_MAX);
    env.ops->close(p2);
}

PG_TEST(lost_display_stops_watching) {
    READY();
    pg_person_seen s;
    xcb_disconnect(env.nest);
    env.nest = NULL;
    stop(&env.xephyr);
    CHECK(await_seen(env.person, not_watching, 0, &s));
    CHECK(strstr(s.why_not, "lost") != NULL);
    env.ops->close(env.p); /* its connection broke too: close still joins and frees */
    env.p = NULL;
}
