/* SPDX-License-Identifier: MIT */
/* test_x11.c - the X11 backend against the real Tk demo app on a private
 * Xvfb: first with no window manager, then again under openbox.
 *
 * Proves: list_windows finds "pixelgate demo" with the wish process's pid
 * (X-Resource) and its content geometry; captures are the right size, in
 * RGBA order, pixel-identical to the screen where uncovered and still the
 * window's own pixels when covered (Composite); regions clip; clicks,
 * double clicks, UTF-8 typing (including characters not on the keymap) and
 * chords arrive in the app (it writes its state to a JSON file); a click on a
 * covered point is refused naming the cover; bad chords are BADINPUT naming
 * the bad part; vanished, frame and root ids are NOT_FOUND; settle sees the
 * entry's blinking cursor.
 * Starts its own Xvfb (first free display from :91), wish and openbox, and
 * kills them at exit (and, through PR_SET_PDEATHSIG, if this process dies).
 * Missing Xvfb, wish or openbox is a FAILURE, never a skip.
 */
#include <fcntl.h>
#include <poll.h>
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

#include "pg_platform.h"
#include "pg_platform_decl.h"
#include "pg_test.h"
#include "pg_time.h"

#ifndef PG_SOURCE_DIR
#error "PG_SOURCE_DIR must name the source tree (tests/apps/pg_demo.tcl)"
#endif

enum { MODE_NONE, MODE_NOWM, MODE_OPENBOX, MODE_NOCOMPOSITE };

static struct {
    bool broken;
    char why[1200];
    int mode;
    int display;
    char dpy[16];
    char dir[64];
    char state[128];
    pid_t xvfb, wish, openbox, owner;
    bool composite;               /* the running Xvfb has Composite */
    xcb_connection_t *c;
    xcb_window_t root;
    const pg_platform_ops *ops;
    pg_platform *p;
    uint64_t demo;                /* the demo's client window */
    int32_t button_x, button_y;   /* centre of "Press me", window-relative */
    int32_t entry_x, entry_y;     /* a point inside the entry */
} env;

/* ------------------------------------------------------------ helpers */

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

/* fork/exec with DISPLAY set; stdout to *out_fd when asked, else /dev/null. */
static pid_t spawn(char *const argv[], int *out_fd) {
    int pfd[2] = {-1, -1};
    if (out_fd && pipe(pfd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setenv("DISPLAY", env.dpy, 1);
        int null = open("/dev/null", O_RDWR);
        dup2(out_fd ? pfd[1] : null, 1);
        dup2(null, 2);
        if (out_fd) close(pfd[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (out_fd) {
        close(pfd[1]);
        *out_fd = pfd[0];
    }
    return pid;
}

static void stop(pid_t *pid) {
    if (*pid <= 0) return;
    kill(*pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(*pid, NULL, WNOHANG) == *pid) {
            *pid = 0;
            return;
        }
        pg_sleep_ms(20);
    }
    kill(*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

static bool exited(pid_t pid) { return waitpid(pid, NULL, WNOHANG) == pid; }

static void cleanup(void) {
    if (env.p) env.ops->close(env.p);
    env.p = NULL;
    if (env.c) xcb_disconnect(env.c);
    env.c = NULL;
    stop(&env.wish);
    stop(&env.owner);
    stop(&env.openbox);
    stop(&env.xvfb);
    if (env.dir[0]) {
        char f[200];
        snprintf(f, sizeof f, "%s/state.json", env.dir);
        unlink(f);
        snprintf(f, sizeof f, "%s/state.json.tmp", env.dir);
        unlink(f);
        rmdir(env.dir);
    }
}

static bool fail_setup(const char *fmt, const char *arg) {
    snprintf(env.why, sizeof env.why, fmt, arg);
    env.broken = true;
    return false;
}

/* ------------------------------------------------------------ X server */

static bool start_xvfb(bool composite) {
    for (int d = 91; d < 140; d++) {
        char lock[64], sock[64], num[16];
        snprintf(lock, sizeof lock, "/tmp/.X%d-lock", d);
        snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", d);
        if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0) continue;
        snprintf(num, sizeof num, ":%d", d);
        snprintf(env.dpy, sizeof env.dpy, ":%d", d);
        char *argv[] = {"Xvfb", num, "-screen", "0", "1920x1080x24", "-nolisten", "tcp",
                        "-noreset", composite ? NULL : "-extension", "Composite", NULL};
        env.xvfb = spawn(argv, NULL);
        for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 5000; pg_sleep_ms(20)) {
            if (exited(env.xvfb)) break; /* lost a race for this number */
            if (access(sock, F_OK) != 0) continue;
            env.c = xcb_connect(env.dpy, NULL);
            if (!xcb_connection_has_error(env.c)) {
                env.display = d;
                env.root = xcb_setup_roots_iterator(xcb_get_setup(env.c)).data->root;
                return true;
            }
            xcb_disconnect(env.c);
            env.c = NULL;
        }
        stop(&env.xvfb);
    }
    return fail_setup("could not start Xvfb on any display :91..:139%s", "");
}

static xcb_atom_t atom(const char *name) {
    xcb_intern_atom_reply_t *r =
        xcb_intern_atom_reply(env.c, xcb_intern_atom(env.c, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t a = r ? r->atom : XCB_NONE;
    free(r);
    return a;
}

static xcb_window_t window_prop(xcb_window_t w, xcb_atom_t a) {
    xcb_get_property_reply_t *r = xcb_get_property_reply(
        env.c, xcb_get_property(env.c, 0, w, a, XCB_ATOM_WINDOW, 0, 1), NULL);
    xcb_window_t v = 0;
    if (r && xcb_get_property_value_length(r) == 4) memcpy(&v, xcb_get_property_value(r), 4);
    free(r);
    return v;
}

static bool wm_ready(void) {
    xcb_atom_t a = atom("_NET_SUPPORTING_WM_CHECK");
    xcb_window_t w = window_prop(env.root, a);
    return w && window_prop(w, a) == w;
}

static xcb_window_t parent_of(xcb_window_t w) {
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(env.c, xcb_query_tree(env.c, w), NULL);
    xcb_window_t p = t ? t->parent : 0;
    free(t);
    return p;
}

/* ------------------------------------------------------------ the app */

static bool start_wish(void) {
    char script[512];
    snprintf(script, sizeof script, "%s/tests/apps/pg_demo.tcl", PG_SOURCE_DIR);
    unlink(env.state);
    char *argv[] = {"wish", script, env.state, NULL};
    int out = -1;
    env.wish = spawn(argv, &out);
    char buf[256] = "";
    size_t n = 0;
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 10000 && !strstr(buf, "READY");) {
        struct pollfd pfd = {out, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0) continue;
        ssize_t r = read(out, buf + n, sizeof buf - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        buf[n] = 0;
    }
    close(out);
    if (!strstr(buf, "READY")) return fail_setup("wish %s did not print READY within 10 s", script);
    return true;
}

static const pg_window *find_demo(pg_window *w, size_t n) {
    const pg_window *any = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(w[i].title, "pixelgate demo") == 0) {
            if (w[i].pid == env.wish) return &w[i];
            any = &w[i];
        }
    return any;
}

/* Stop a helper app and wait until the server has dropped its windows
 * (it does so when it sees the connection close, after the kill). */
static void stop_app(pid_t *pid) {
    if (*pid <= 0) return;
    int64_t was = *pid;
    stop(pid);
    for (double t0 = pg_mono_ms(); env.p && pg_mono_ms() - t0 < 3000; pg_sleep_ms(20)) {
        pg_window *w;
        size_t n;
        bool complete, left = false;
        pg_error e;
        if (env.ops->list_all(env.p, &w, &n, &complete, &e) != PG_OK) return;
        for (size_t i = 0; i < n; i++) left |= w[i].pid == was;
        free(w);
        if (!left) return;
    }
}

static bool rgb_is(const pg_capture *c, uint32_t x, uint32_t y, uint8_t r, uint8_t g, uint8_t b) {
    const uint8_t *px = c->rgba + (size_t)y * c->stride + (size_t)x * 4;
    return px[0] == r && px[1] == g && px[2] == b && px[3] == 255;
}

/* The button is the #2e7d32 area; the entry is the white area below it. */
static bool locate_widgets(void) {
    pg_capture c;
    pg_error e;
    if (env.ops->capture_window(env.p, env.demo, NULL, &c, &e) != PG_OK)
        return fail_setup("capture for widget positions failed: %s", e.message);
    uint32_t x0 = c.width, y0 = c.height, x1 = 0, y1 = 0;
    for (uint32_t y = 0; y < c.height; y++)
        for (uint32_t x = 0; x < c.width; x++)
            if (rgb_is(&c, x, y, 0x2e, 0x7d, 0x32)) {
                x0 = x < x0 ? x : x0, y0 = y < y0 ? y : y0;
                x1 = x > x1 ? x : x1, y1 = y > y1 ? y : y1;
            }
    bool ok = x1 > x0 && y1 > y0;
    env.button_x = (int32_t)(x0 + x1) / 2;
    env.button_y = (int32_t)(y0 + y1) / 2;
    env.entry_y = -1;
    for (uint32_t y = y1 + 1; ok && y < c.height && env.entry_y < 0; y++)
        if (rgb_is(&c, (uint32_t)env.button_x, y, 255, 255, 255)) env.entry_y = (int32_t)y + 4;
    env.entry_x = env.button_x;
    free(c.rgba);
    if (!ok || env.entry_y < 0) return fail_setup("could not find the button/entry%s", "");
    return true;
}

static bool open_backend(void) {
    pg_error e;
    env.ops = pg_platform_default();
    if (env.ops->open(&env.p, env.dpy, &e) != PG_OK) return fail_setup("open: %s", e.message);
    /* Under a WM the demo appears once it is managed: poll for it. */
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 5000; pg_sleep_ms(20)) {
        pg_window *w;
        size_t n;
        if (env.ops->list_windows(env.p, &w, &n, &e) != PG_OK) return fail_setup("list: %s", e.message);
        const pg_window *d = find_demo(w, n);
        /* the demo of this wish: an app stopped just before may still have its window */
        bool ready = d && d->visible && d->pid == env.wish;
        env.demo = d ? d->id : 0;
        free(w);
        if (ready) return locate_widgets();
    }
    return fail_setup("the demo window never appeared in list_windows%s", "");
}

/* Bring up Xvfb once, then the wanted WM mode with a fresh demo app. */
static bool setup(int mode) {
    if (env.broken) return false;
    if (env.mode == mode) return true;
    bool composite = mode != MODE_NOCOMPOSITE;
    if (env.xvfb && composite != env.composite) { /* another server: the extension is chosen at start */
        if (env.p) env.ops->close(env.p);
        env.p = NULL;
        stop(&env.wish);
        stop(&env.openbox);
        if (env.c) xcb_disconnect(env.c);
        env.c = NULL;
        stop(&env.xvfb);
    }
    if (!env.xvfb && env.dir[0]) {
        if (!start_xvfb(composite)) return false;
        env.composite = composite;
    }
    if (!env.xvfb) {
        const char *need[] = {"Xvfb", "wish", "openbox"};
        for (int i = 0; i < 3; i++)
            if (!on_path(need[i])) return fail_setup("%s not found on PATH: install it (this test never skips)", need[i]);
        snprintf(env.dir, sizeof env.dir, "/tmp/pg-test-x11-XXXXXX");
        if (!mkdtemp(env.dir)) return fail_setup("mkdtemp failed%s", "");
        snprintf(env.state, sizeof env.state, "%s/state.json", env.dir);
        atexit(cleanup);
        if (!start_xvfb(composite)) return false;
        env.composite = composite;
    }
    if (env.p) env.ops->close(env.p);
    env.p = NULL;
    stop(&env.wish);
    stop(&env.openbox);
    env.mode = MODE_NONE;
    if (mode == MODE_OPENBOX) {
        char *argv[] = {"openbox", "--sm-disable", NULL};
        env.openbox = spawn(argv, NULL);
        double t0 = pg_mono_ms();
        while (!wm_ready() && pg_mono_ms() - t0 < 5000) pg_sleep_ms(20);
        if (!wm_ready()) return fail_setup("openbox did not set _NET_SUPPORTING_WM_CHECK%s", "");
    } else {
        /* A WM that quit may leave its check property behind; we need none. */
        xcb_delete_property(env.c, env.root, atom("_NET_SUPPORTING_WM_CHECK"));
        xcb_flush(env.c);
    }
    /* The pointer must not hover the button: its colour changes (activebackground). */
    xcb_warp_pointer(env.c, XCB_NONE, env.root, 0, 0, 0, 0, 1900, 1060);
    xcb_flush(env.c);
    if (!start_wish() || !open_backend()) return false;
    env.mode = mode;
    return true;
}

#define SETUP(mode)                                                                     \
    do {                                                                                \
        if (!setup(mode)) {                                                             \
            fprintf(stderr, "%s:%d: setup failed: %s\n", __FILE__, __LINE__, env.why);  \
            *pg_failed_ = 1;                                                            \
            return;                                                                     \
        }                                                                               \
    } while (0)

/* ------------------------------------------------------------ app state */

typedef struct {
    int clicks;
    char entry[256];
} app_state;


/* Parse {"clicks": N, "entry": "..."} as pg_demo.tcl writes it. */
static bool read_state(app_state *s) {
    char buf[2048];
    FILE *f = fopen(env.state, "r");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *c = strstr(buf, "\"clicks\":"), *en = strstr(buf, "\"entry\": \"");
    if (!c || !en) return false;
    s->clicks = atoi(c + 9);
    size_t o = 0;
    for (const char *p = en + 10; *p && *p != '"' && o + 4 < sizeof s->entry; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            if (*p == 'u' && strlen(p) >= 5) {
                s->entry[o++] = (char)strtol((char[]){p[3], p[4], 0}, NULL, 16);
                p += 4;
            } else {
                s->entry[o++] = *p;
            }
        } else {
            s->entry[o++] = *p;
        }
    }
    s->entry[o] = 0;
    return true;
}

/* Say so when the app died: nothing typed can arrive then. */
static void report_app(void) {
    if (env.wish > 0 && waitpid(env.wish, NULL, WNOHANG) == env.wish) {
        fprintf(stderr, "wish (pid %d) has exited - killed from outside?\n", (int)env.wish);
        env.wish = 0;
    }
}

static bool wait_clicks(int want, app_state *s) {
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 3000; pg_sleep_ms(20))
        if (read_state(s) && s->clicks == want) return true;
    fprintf(stderr, "clicks is %d, expected %d\n", s->clicks, want);
    report_app();
    return false;
}

static bool wait_entry(const char *want, app_state *s) {
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 3000; pg_sleep_ms(20))
        if (read_state(s) && strcmp(s->entry, want) == 0) return true;
    fprintf(stderr, "entry is \"%s\", expected \"%s\"\n", s->entry, want);
    report_app();
    return false;
}

/* ------------------------------------------------------------ test bodies */

static void t_caps(int *pg_failed_, int mode) {
    pg_caps caps;
    pg_error e;
    REQUIRE(env.ops->caps(env.p, &caps, &e) == PG_OK);
    printf("     caps: %s\n", caps.detail);
    CHECK_STR(caps.backend, "x11");
    CHECK(caps.capture_covered && caps.input_keys && caps.input_text_unicode && caps.settle);
    CHECK_EQ_INT(caps.window_manager, mode == MODE_OPENBOX);
    CHECK(strstr(caps.detail, "1920x1080") != NULL);
    if (mode == MODE_OPENBOX) CHECK(strstr(caps.detail, "Openbox") != NULL);
    char why[1024];
    CHECK_EQ_INT(pg_platform_conform(env.ops, PG_BK_X11, &caps, why, sizeof why), 0); /* pg_platform.def */
    if (why[0]) printf("     %s", why);
}

static void t_list(int *pg_failed_, int mode) {
    pg_window *w;
    size_t n;
    pg_error e;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ_INT(d->pid, env.wish);
        CHECK_EQ_INT(d->width, 480);
        CHECK_EQ_INT(d->height, 260);
        CHECK(d->visible);
        CHECK(d->class_name[0] && d->instance[0]);
        if (mode == MODE_NOWM) CHECK(d->x == 40 && d->y == 40);
        else CHECK(d->x >= 40 && d->y > 40); /* inside openbox's frame */
        printf("     demo: 0x%llx class %s instance %s pid %lld at %d,%d\n",
               (unsigned long long)d->id, d->class_name, d->instance, (long long)d->pid, d->x, d->y);
    }
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += w[i].id == env.demo;
    CHECK_EQ_INT(same, 1);
    pg_window one; /* described alone (the look after a capture's pixels): what the listing says */
    CHECK(env.ops->describe_window(env.p, env.demo, &one, &e) == PG_OK);
    if (d) {
        CHECK(one.id == d->id && one.pid == d->pid && !strcmp(one.title, d->title) &&
              !strcmp(one.class_name, d->class_name) && !strcmp(one.instance, d->instance));
        CHECK(one.x == d->x && one.y == d->y && one.width == d->width && one.height == d->height);
        CHECK(one.frame.x == d->frame.x && one.frame.y == d->frame.y && one.frame.w == d->frame.w &&
              one.frame.h == d->frame.h); /* with openbox: the frame's, asked the second time */
        CHECK(one.kind == d->kind && one.visible == d->visible && one.focused == d->focused && one.parent == 0);
    }
    free(w);
}

static void t_capture(int *pg_failed_, int mode) {
    pg_capture c, s;
    pg_error e;
    REQUIRE(env.ops->capture_window(env.p, env.demo, NULL, &c, &e) == PG_OK);
    printf("     window capture method: %s\n", c.method);
    CHECK_EQ_INT(c.width, 480);
    CHECK_EQ_INT(c.height, 260);
    CHECK(c.stride >= c.width * 4u);
    CHECK(strncmp(c.method, "composite+", 10) == 0);
    size_t dark = 0, green = 0;
    for (uint32_t y = 0; y < c.height; y++)
        for (uint32_t x = 0; x < c.width; x++) {
            const uint8_t *px = c.rgba + y * c.stride + x * 4;
            dark += px[0] < 16 && px[1] < 16 && px[2] < 16;
            green += rgb_is(&c, x, y, 0x2e, 0x7d, 0x32); /* R/B swapped would miss */
        }
    CHECK(dark < (size_t)c.width * c.height / 10);
    CHECK(green > 200);
    CHECK(rgb_is(&c, 2, 2, 0xf4, 0xf4, 0xf4));
    /* Uncovered, the window's pixels are exactly what the screen shows there. */
    pg_window *w;
    size_t n;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    REQUIRE(d != NULL);
    pg_rect r = {d->x, d->y, d->width, d->height};
    free(w);
    REQUIRE(env.ops->capture_screen(env.p, &r, &s, &e) == PG_OK);
    printf("     screen capture method: %s\n", s.method);
    CHECK(s.width == c.width && s.height == c.height);
    for (uint32_t y = 0; y < c.height && s.width == c.width; y++)
        if (memcmp(c.rgba + y * c.stride, s.rgba + y * s.stride, c.width * 4u) != 0) {
            fprintf(stderr, "screen and window capture differ at row %u\n", y);
            CHECK(!"window capture equals the screen where uncovered");
            break;
        }
    free(s.rgba);
    free(c.rgba);
    (void)mode;
}

static void t_region(int *pg_failed_, int mode) {
    pg_capture full, c;
    pg_error e;
    REQUIRE(env.ops->capture_window(env.p, env.demo, NULL, &full, &e) == PG_OK);
    pg_rect r = {10, 20, 100, 50};
    REQUIRE(env.ops->capture_window(env.p, env.demo, &r, &c, &e) == PG_OK);
    CHECK(c.width == 100 && c.height == 50);
    for (uint32_t y = 0; y < c.height; y++)
        CHECK(memcmp(c.rgba + y * c.stride, full.rgba + (y + 20) * full.stride + 40, 400) == 0);
    free(c.rgba);
    r = (pg_rect){470, 250, 100, 100};
    REQUIRE(env.ops->capture_window(env.p, env.demo, &r, &c, &e) == PG_OK);
    CHECK(c.width == 10 && c.height == 10);
    free(c.rgba);
    r = (pg_rect){-5, -5, 10, 10};
    REQUIRE(env.ops->capture_window(env.p, env.demo, &r, &c, &e) == PG_OK);
    CHECK(c.width == 5 && c.height == 5);
    free(c.rgba);
    r = (pg_rect){500, 0, 10, 10};
    CHECK_EQ_INT(env.ops->capture_window(env.p, env.demo, &r, &c, &e), PG_E_BADINPUT);
    r = (pg_rect){1900, 1000, 100, 100};
    REQUIRE(env.ops->capture_screen(env.p, &r, &c, &e) == PG_OK);
    CHECK(c.width == 20 && c.height == 80);
    free(c.rgba);
    r = (pg_rect){2000, 0, 10, 10};
    CHECK_EQ_INT(env.ops->capture_screen(env.p, &r, &c, &e), PG_E_BADINPUT);
    free(full.rgba);
    (void)mode;
}

/* An override-redirect red window over the whole demo (WMs leave it alone). */
static xcb_window_t make_cover(const pg_window *d) {
    xcb_window_t w = xcb_generate_id(env.c);
    uint32_t vals[] = {0xff0000, 1};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, w, env.root, (int16_t)(d->x - 10),
                      (int16_t)(d->y - 30), (uint16_t)(d->width + 20), (uint16_t)(d->height + 40), 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, XCB_COPY_FROM_PARENT,
                      XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT, vals);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 8,
                        "pg cover");
    xcb_map_window(env.c, w);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    pg_sleep_ms(50);
    return w;
}

static void t_covered(int *pg_failed_, int mode) {
    pg_capture before, after, s;
    pg_error e;
    pg_window *w;
    size_t n;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    REQUIRE(d != NULL);
    pg_window demo = *d;
    free(w);
    REQUIRE(env.ops->capture_window(env.p, env.demo, NULL, &before, &e) == PG_OK);
    xcb_window_t cover = make_cover(&demo);
    REQUIRE(env.ops->capture_window(env.p, env.demo, NULL, &after, &e) == PG_OK);
    CHECK(after.width == before.width && after.height == before.height);
    CHECK(memcmp(after.rgba, before.rgba, before.stride * before.height) == 0);
    pg_rect r = {demo.x, demo.y, demo.width, demo.height};
    REQUIRE(env.ops->capture_screen(env.p, &r, &s, &e) == PG_OK);
    CHECK(rgb_is(&s, s.width / 2, s.height / 2, 255, 0, 0)); /* the screen shows the cover */
    CHECK(rgb_is(&s, 0, 0, 255, 0, 0));
    /* The override-redirect cover is no application window. */
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    for (size_t i = 0; i < n; i++) CHECK(w[i].id != cover);
    free(w);
    pg_err rc = env.ops->click(env.p, env.demo, env.button_x, env.button_y, PG_BTN_LEFT, 1, &e);
    CHECK_EQ_INT(rc, PG_E_POLICY);
    char id[32];
    snprintf(id, sizeof id, "window %u ", (unsigned)cover);
    CHECK(strstr(e.message, id) != NULL); /* the decimal id `windows` shows */
    CHECK(strstr(e.message, "0x") == NULL);
    CHECK(strstr(e.message, "pg cover") == NULL); /* the cover's title may be another user's: private */
    snprintf(id, sizeof id, "window %llu", (unsigned long long)env.demo);
    CHECK(strstr(e.message, id) != NULL);
    app_state st = {0};
    CHECK(read_state(&st) && st.clicks == 0);
    xcb_destroy_window(env.c, cover);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    free(before.rgba), free(after.rgba), free(s.rgba);
    (void)mode;
}

/* A second Tk app (its own X client) with an override-redirect popup and a
 * transient dialog: what an application shows besides its main window. */
static pid_t start_owner_app(void) {
    char script[512], state[160];
    snprintf(script, sizeof script, "%s/tests/apps/pg_demo.tcl", PG_SOURCE_DIR);
    snprintf(state, sizeof state, "%s/owner.json", env.dir);
    char *argv[] = {"wish", script, state, "300x200+1200+40", "owner app", "popup=160x90+1250+500",
                    "dialog=220x120+1550+500", NULL};
    int out = -1;
    pid_t pid = spawn(argv, &out);
    char buf[256] = "";
    size_t n = 0;
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 10000 && !strstr(buf, "READY");) {
        struct pollfd pfd = {out, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0) continue;
        ssize_t r = read(out, buf + n, sizeof buf - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        buf[n] = 0;
    }
    close(out);
    unlink(state);
    if (strstr(buf, "READY")) return pid;
    stop(&pid);
    return 0;
}

static const pg_window *find_title(const pg_window *w, size_t n, const char *title, pg_window_kind kind) {
    for (size_t i = 0; i < n; i++)
        if (w[i].kind == kind && strcmp(w[i].title, title) == 0) return &w[i];
    return NULL;
}

static const pg_window *find_at(const pg_window *w, size_t n, int32_t x, int32_t y, pg_window_kind kind) {
    for (size_t i = 0; i < n; i++)
        if (w[i].kind == kind && w[i].x == x && w[i].y == y) return &w[i];
    return NULL;
}

static void t_owned(int *pg_failed_, int mode) {
    env.owner = start_owner_app();
    REQUIRE(env.owner > 0);
    pg_window *w = NULL, *all = NULL;
    size_t n = 0, na = 0;
    bool complete = false;
    pg_error e;
    const pg_window *main_w = NULL, *dialog = NULL, *popup = NULL;
    /* Under a WM the windows appear once they are managed: poll. */
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 5000; pg_sleep_ms(20)) {
        free(w), free(all);
        REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
        REQUIRE(env.ops->list_all(env.p, &all, &na, &complete, &e) == PG_OK);
        main_w = find_title(all, na, "owner app", PG_WINDOW_NORMAL);
        dialog = find_title(all, na, "owner app dialog", PG_WINDOW_DIALOG);
        popup = find_at(all, na, 1250, 500, PG_WINDOW_POPUP);
        if (main_w && main_w->visible && dialog && dialog->visible && popup) break;
    }
    REQUIRE(main_w && dialog && popup);
    CHECK(complete);
    CHECK_EQ_INT(main_w->parent, 0);
    CHECK_EQ_INT(dialog->parent, main_w->id);          /* WM_TRANSIENT_FOR */
    CHECK_EQ_INT(popup->parent, main_w->id);           /* the only normal window of the same X client */
    CHECK_EQ_INT(popup->pid, env.owner);
    CHECK(popup->width == 160 && popup->height == 90);
    CHECK(popup->frame.x == 1250 && popup->frame.w == 160); /* no border, no WM frame */
    /* list_windows: the targets, without the popup; the dialog with its parent. */
    CHECK(find_title(w, n, "owner app", PG_WINDOW_NORMAL) != NULL);
    const pg_window *d2 = find_title(w, n, "owner app dialog", PG_WINDOW_DIALOG);
    CHECK(d2 && d2->parent == main_w->id);
    CHECK(find_at(w, n, 1250, 500, PG_WINDOW_POPUP) == NULL);
    for (size_t i = 0; i < n; i++) CHECK(w[i].kind != PG_WINDOW_POPUP);
    /* The frame: under openbox the WM's decorations around the content. */
    const pg_window *demo = find_demo(all, na);
    REQUIRE(demo != NULL);
    if (mode == MODE_OPENBOX)
        CHECK(demo->frame.y < demo->y && demo->frame.h > demo->height && demo->frame.x <= demo->x &&
              demo->frame.x + (int64_t)demo->frame.w >= demo->x + (int64_t)demo->width);
    else
        CHECK(demo->frame.x == demo->x && demo->frame.y == demo->y && demo->frame.w == demo->width &&
              demo->frame.h == demo->height);
    printf("     owner 0x%llx, dialog 0x%llx, popup 0x%llx; demo frame %d,%d %ux%u around %d,%d %ux%u\n",
           (unsigned long long)main_w->id, (unsigned long long)dialog->id, (unsigned long long)popup->id,
           demo->frame.x, demo->frame.y, demo->frame.w, demo->frame.h, demo->x, demo->y, demo->width, demo->height);
    free(w), free(all);
    stop_app(&env.owner);
}

static void t_unattributed_popup(int *pg_failed_, int mode) {
    pg_window *all;
    size_t na;
    bool complete;
    pg_error e;
    REQUIRE(env.ops->list_all(env.p, &all, &na, &complete, &e) == PG_OK);
    const pg_window *d = find_demo(all, na);
    REQUIRE(d != NULL);
    pg_window demo = *d;
    free(all);
    xcb_window_t cover = make_cover(&demo); /* made by this test's connection, which has no window */
    REQUIRE(env.ops->list_all(env.p, &all, &na, &complete, &e) == PG_OK);
    const pg_window *c = NULL;
    for (size_t i = 0; i < na; i++)
        if (all[i].id == cover) c = &all[i];
    CHECK(c && c->kind == PG_WINDOW_POPUP && c->parent == 0 && c->visible);
    if (c) CHECK_STR(c->title, "pg cover");
    free(all);
    xcb_destroy_window(env.c, cover);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    (void)mode;
}

/* A mapped, named top-level window of this test's connection (a client
 * without a WM; managed under one) titled by _NET_WM_NAME or, latin1 set,
 * by a STRING WM_NAME. */
static xcb_window_t make_titled(const char *title, bool latin1, int16_t x) {
    xcb_window_t w = xcb_generate_id(env.c);
    uint32_t vals[] = {0x808080};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, w, env.root, x, 700, 120, 60, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      XCB_COPY_FROM_PARENT, XCB_CW_BACK_PIXEL, vals);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, w, latin1 ? XCB_ATOM_WM_NAME : atom("_NET_WM_NAME"),
                        latin1 ? XCB_ATOM_STRING : atom("UTF8_STRING"), 8, (uint32_t)strlen(title), title);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8, 12, "pgtitle\0Pgt\0");
    xcb_map_window(env.c, w);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    return w;
}

/* The listed window id, polled for (a WM manages it first; on a loaded CI
 * machine openbox once took more than 3 s). */
static bool listed_title(xcb_window_t id, pg_window *out) {
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 10000; pg_sleep_ms(20)) {
        pg_window *w;
        size_t n;
        pg_error e;
        if (env.ops->list_windows(env.p, &w, &n, &e) != PG_OK) return false;
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            if (w[i].id == id) *out = w[i], found = true;
        free(w);
        if (found) return true;
    }
    return false;
}

static void t_long_titles(int *pg_failed_, int mode) {
    char title[2100];
    static const char suffix[] = " - Private Browsing";
    struct {
        size_t len;
        bool latin1, cut;
    } cases[] = {
        {600, false, true},  /* fits the 1 KiB first read, not pg_window.title: cut */
        {2000, false, true}, /* longer than the first read */
        {511, false, false}, /* exactly what pg_window.title holds */
        {300, true, true},   /* 300 Latin-1 bytes are 600 bytes of UTF-8 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = cases[i].len;
        memset(title, cases[i].latin1 ? 0xe9 : 'a', n);
        memcpy(title + n - (sizeof suffix - 1), suffix, sizeof suffix - 1);
        title[n] = 0;
        xcb_window_t w = make_titled(title, cases[i].latin1, (int16_t)(20 + 130 * i));
        pg_window got;
        CHECK(listed_title(w, &got));
        if (got.title_cut != cases[i].cut)
            fprintf(stderr, "  case %zu (%zu bytes): title_cut %d, %zu bytes listed\n", i, n, got.title_cut,
                    strlen(got.title));
        CHECK_EQ_INT(got.title_cut, cases[i].cut);
        if (!cases[i].cut) CHECK_STR(got.title, title);
        CHECK(strlen(got.title) < sizeof got.title);
        xcb_destroy_window(env.c, w);
    }
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    (void)mode;
}

static void t_pointer_and_click(int *pg_failed_, int mode) {
    pg_error e;
    app_state st = {0};
    REQUIRE(env.ops->pointer_move(env.p, env.demo, 5, 7, &e) == PG_OK);
    pg_window *w;
    size_t n;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    REQUIRE(d != NULL);
    xcb_query_pointer_reply_t *q =
        xcb_query_pointer_reply(env.c, xcb_query_pointer(env.c, env.root), NULL);
    REQUIRE(q != NULL);
    CHECK(q->root_x == d->x + 5 && q->root_y == d->y + 7);
    free(q);
    free(w);
    REQUIRE(env.ops->click(env.p, env.demo, env.button_x, env.button_y, PG_BTN_LEFT, 1, &e) == PG_OK);
    CHECK(wait_clicks(1, &st));
    REQUIRE(env.ops->click(env.p, env.demo, env.button_x, env.button_y, PG_BTN_LEFT, 2, &e) == PG_OK);
    CHECK(wait_clicks(3, &st));
    CHECK_EQ_INT(env.ops->click(env.p, env.demo, 480, 10, PG_BTN_LEFT, 1, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->click(env.p, env.demo, -1, 10, PG_BTN_LEFT, 1, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->pointer_move(env.p, env.demo, 10, 260, &e), PG_E_BADINPUT);
    (void)mode;
}

/* A bare window that asks for its own button and motion events: what the
 * server delivered is read from env.c's event queue, nothing guessed. */
static xcb_window_t make_pad(void) {
    xcb_window_t w = xcb_generate_id(env.c);
    uint32_t vals[] = {0x406080, XCB_EVENT_MASK_BUTTON_PRESS | XCB_EVENT_MASK_BUTTON_RELEASE |
                                     XCB_EVENT_MASK_POINTER_MOTION};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, w, env.root, 1000, 500, 200, 100, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      XCB_COPY_FROM_PARENT, XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, vals);
    const char *title = "pixelgate pad";
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                        (uint32_t)strlen(title), title);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8, 8, "pgpad\0P\0");
    xcb_map_window(env.c, w);
    uint32_t above = XCB_STACK_MODE_ABOVE;
    xcb_configure_window(env.c, w, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    return w;
}

typedef struct {
    int press[8], release[8]; /* by button number */
    int motions, motions_held; /* motion events; those with button 1 down */
    int first_press_x, first_press_y, last_release_x, last_release_y;
} pad_events;

/* Everything the pad got until 300 ms pass with nothing new. */
static void read_pad(xcb_window_t pad, pad_events *ev) {
    memset(ev, 0, sizeof *ev);
    ev->first_press_x = -1;
    double quiet_since = pg_mono_ms();
    while (pg_mono_ms() - quiet_since < 300) {
        xcb_generic_event_t *g = xcb_poll_for_event(env.c);
        if (!g) {
            pg_sleep_ms(5);
            continue;
        }
        quiet_since = pg_mono_ms();
        uint8_t type = g->response_type & 0x7f;
        if (type == XCB_BUTTON_PRESS || type == XCB_BUTTON_RELEASE) {
            xcb_button_press_event_t *b = (xcb_button_press_event_t *)g;
            if (b->event == pad && b->detail < 8) {
                if (type == XCB_BUTTON_PRESS) {
                    ev->press[b->detail]++;
                    if (ev->first_press_x < 0) ev->first_press_x = b->event_x, ev->first_press_y = b->event_y;
                } else {
                    ev->release[b->detail]++;
                    ev->last_release_x = b->event_x, ev->last_release_y = b->event_y;
                }
            }
        } else if (type == XCB_MOTION_NOTIFY) {
            xcb_motion_notify_event_t *m = (xcb_motion_notify_event_t *)g;
            if (m->event == pad) {
                ev->motions++;
                ev->motions_held += (m->state & XCB_BUTTON_MASK_1) != 0;
            }
        }
        free(g);
    }
}

/* Scroll is buttons 4-7, one press and release per notch; a drag presses
 * at its start, moves with the button held, releases at its end; a hover
 * moves without pressing; a triple click is three of each. */
static void t_wheel_and_drag(int *pg_failed_, int mode) {
    pg_error e;
    xcb_window_t pad = make_pad();
    pg_window lw;
    REQUIRE(listed_title(pad, &lw));
    pg_sleep_ms(100); /* a WM maps and raises it */
    pad_events ev;
    read_pad(pad, &ev); /* drop what mapping sent */
    REQUIRE(env.ops->scroll(env.p, pad, 50, 50, 0, 3, &e) == PG_OK);
    REQUIRE(env.ops->scroll(env.p, pad, 50, 50, -2, 0, &e) == PG_OK);
    REQUIRE(env.ops->scroll(env.p, pad, 50, 50, 1, -1, &e) == PG_OK);
    read_pad(pad, &ev);
    CHECK_EQ_INT(ev.press[5], 3);
    CHECK_EQ_INT(ev.release[5], 3);
    CHECK_EQ_INT(ev.press[6], 2);
    CHECK_EQ_INT(ev.press[4], 1);
    CHECK_EQ_INT(ev.press[7], 1);
    CHECK_EQ_INT(ev.press[1], 0);
    pg_point path[6] = {{10, 10}, {30, 16}, {50, 22}, {70, 28}, {90, 34}, {110, 40}};
    REQUIRE(env.ops->drag(env.p, pad, path, 6, PG_BTN_LEFT, 20, 10, &e) == PG_OK);
    read_pad(pad, &ev);
    CHECK_EQ_INT(ev.press[1], 1);
    CHECK_EQ_INT(ev.release[1], 1);
    CHECK_EQ_INT(ev.first_press_x, 10);
    CHECK_EQ_INT(ev.first_press_y, 10);
    CHECK_EQ_INT(ev.last_release_x, 110);
    CHECK_EQ_INT(ev.last_release_y, 40);
    CHECK(ev.motions_held >= 5);
    REQUIRE(env.ops->pointer_move(env.p, pad, 150, 60, &e) == PG_OK);
    REQUIRE(env.ops->click(env.p, pad, 150, 60, PG_BTN_LEFT, 3, &e) == PG_OK);
    read_pad(pad, &ev);
    CHECK(ev.motions >= 1);
    CHECK_EQ_INT(ev.press[1], 3);
    CHECK_EQ_INT(ev.release[1], 3);
    /* refusals: outside, covered (the demo's cover), a bad shape - nothing sent */
    CHECK_EQ_INT(env.ops->scroll(env.p, pad, 200, 5, 0, 1, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->scroll(env.p, pad, 5, 5, 0, PG_SCROLL_MAX + 1, &e), PG_E_BADINPUT);
    pg_point off[2] = {{10, 10}, {10, 100}};
    CHECK_EQ_INT(env.ops->drag(env.p, pad, off, 2, PG_BTN_LEFT, 0, 0, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->drag(env.p, pad, path, 1, PG_BTN_LEFT, 0, 0, &e), PG_E_BADINPUT);
    xcb_window_t cover = xcb_generate_id(env.c);
    uint32_t vals[] = {0xff0000, 1};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, cover, env.root, (int16_t)(lw.x + 60), (int16_t)(lw.y + 20), 20, 20,
                      0, XCB_WINDOW_CLASS_INPUT_OUTPUT, XCB_COPY_FROM_PARENT,
                      XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT, vals);
    xcb_map_window(env.c, cover);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    CHECK_EQ_INT(env.ops->drag(env.p, pad, path, 6, PG_BTN_LEFT, 0, 0, &e), PG_E_POLICY); /* (70,28) is covered */
    CHECK_EQ_INT(env.ops->pointer_move(env.p, pad, 65, 25, &e), PG_E_POLICY);
    read_pad(pad, &ev);
    CHECK_EQ_INT(ev.press[1] + ev.release[1] + ev.motions, 0);
    /* the cover is a popup (override-redirect, mapped): a target by its id */
    pg_capture pc;
    REQUIRE(env.ops->capture_window(env.p, cover, NULL, &pc, &e) == PG_OK);
    CHECK(pc.width == 20 && pc.height == 20 && rgb_is(&pc, 10, 10, 255, 0, 0));
    free(pc.rgba);
    CHECK_EQ_INT(env.ops->click(env.p, cover, 5, 5, PG_BTN_LEFT, 1, &e), PG_OK);
    xcb_destroy_window(env.c, cover);
    xcb_destroy_window(env.c, pad);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    (void)mode;
}

/* Honest delivery: a click whose press a client's synchronous grab froze
 * (as a window manager's click-to-focus grab does on a loaded machine) is
 * sent, not failed: click() succeeds and unconfirmed() counts it; keys
 * after it would overtake it, so they wait for it and, while it is still
 * held, are refused with nothing sent; once the grab lets go they go out.
 * Without a window manager only: openbox's own grab on the frame comes
 * first there, and integration.order_script_openbox covers that case. */
static void t_frozen_click(int *pg_failed_, int mode) {
    if (mode == MODE_OPENBOX) return;
    pg_error e;
    xcb_window_t pad = make_pad();
    pg_window lw;
    REQUIRE(listed_title(pad, &lw));
    xcb_connection_t *grabber = xcb_connect(env.dpy, NULL);
    REQUIRE(!xcb_connection_has_error(grabber));
    xcb_grab_button(grabber, 0, pad, XCB_EVENT_MASK_BUTTON_PRESS | XCB_EVENT_MASK_BUTTON_RELEASE,
                    XCB_GRAB_MODE_SYNC, XCB_GRAB_MODE_ASYNC, XCB_NONE, XCB_NONE, 1, XCB_MOD_MASK_ANY);
    free(xcb_get_input_focus_reply(grabber, xcb_get_input_focus(grabber), NULL));
    uint32_t n = 99;
    REQUIRE(env.ops->unconfirmed(env.p, &n, &e) == PG_OK); /* whatever came before */
    CHECK_EQ_INT(env.ops->click(env.p, pad, 50, 50, PG_BTN_LEFT, 1, &e), PG_OK);
    REQUIRE(env.ops->unconfirmed(env.p, &n, &e) == PG_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(env.ops->key(env.p, pad, "a", &e), PG_E_TIMEOUT);
    CHECK(strstr(e.message, "earlier click") != NULL);
    xcb_allow_events(grabber, XCB_ALLOW_ASYNC_POINTER, XCB_CURRENT_TIME); /* the grab lets the click through */
    free(xcb_get_input_focus_reply(grabber, xcb_get_input_focus(grabber), NULL));
    CHECK_EQ_INT(env.ops->key(env.p, pad, "a", &e), PG_OK);
    REQUIRE(env.ops->unconfirmed(env.p, &n, &e) == PG_OK);
    CHECK_EQ_INT(n, 0);
    xcb_disconnect(grabber);
    xcb_destroy_window(env.c, pad);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
}

/* Monitors from RandR: Xvfb has one for its screen; two defined the way
 * `xrandr --setmonitor` does (what a multi-head desktop reports) are listed
 * with their names and rectangles, and removed again. */
static void t_monitors(int *pg_failed_, int mode) {
    pg_error e;
    pg_monitor *m = NULL;
    size_t n = 0;
    REQUIRE(env.ops->monitors(env.p, &m, &n, &e) == PG_OK);
    REQUIRE(n >= 1);
    CHECK(m[0].r.w == 1920 && m[0].r.h == 1080);
    free(m);
    char cmd[512]; /* what an admin types: xrandr --setmonitor NAME W/MMxH/MM+X+Y none */
    snprintf(cmd, sizeof cmd,
             "DISPLAY=%s xrandr --setmonitor PG-LEFT 960/300x1080/340+0+0 none && "
             "DISPLAY=%s xrandr --setmonitor PG-RIGHT 960/300x1080/340+960+0 none",
             env.dpy, env.dpy);
    REQUIRE(system(cmd) == 0);
    REQUIRE(env.ops->monitors(env.p, &m, &n, &e) == PG_OK);
    bool left = false, right = false;
    for (size_t i = 0; i < n; i++) {
        left |= !strcmp(m[i].name, "PG-LEFT") && m[i].r.x == 0 && m[i].r.w == 960;
        right |= !strcmp(m[i].name, "PG-RIGHT") && m[i].r.x == 960 && m[i].r.w == 960;
    }
    free(m);
    CHECK(left && right);
    snprintf(cmd, sizeof cmd, "DISPLAY=%s xrandr --delmonitor PG-LEFT && DISPLAY=%s xrandr --delmonitor PG-RIGHT",
             env.dpy, env.dpy);
    CHECK(system(cmd) == 0);
    (void)mode;
}

static void t_type(int *pg_failed_, int mode) {
    pg_error e;
    app_state st = {0};
    const char *text = "Hello, World! 123 \xc3\xa9\xe2\x82\xac\xc3\xbc"; /* é€ü */
    REQUIRE(env.ops->click(env.p, env.demo, env.entry_x, env.entry_y, PG_BTN_LEFT, 1, &e) == PG_OK);
    double t0 = pg_mono_ms();
    REQUIRE(env.ops->type_text(env.p, env.demo, text, &e) == PG_OK);
    printf("     typed %zu bytes in %llu ms\n", strlen(text), (unsigned long long)(pg_mono_ms() - t0));
    CHECK(wait_entry(text, &st));
    (void)mode;
}

static void t_chords(int *pg_failed_, int mode) {
    pg_error e;
    app_state st = {0};
    /* Tk 8.6 on X11: ctrl+slash selects all, ctrl+a goes to line start. */
    REQUIRE(env.ops->key(env.p, env.demo, "ctrl+slash", &e) == PG_OK);
    REQUIRE(env.ops->type_text(env.p, env.demo, "Replaced \xf0\x9f\x98\x80", &e) == PG_OK);
    CHECK(wait_entry("Replaced \xf0\x9f\x98\x80", &st));
    REQUIRE(env.ops->key(env.p, env.demo, "ctrl+slash", &e) == PG_OK);
    REQUIRE(env.ops->type_text(env.p, env.demo, "Replaced", &e) == PG_OK);
    CHECK(wait_entry("Replaced", &st));
    REQUIRE(env.ops->key(env.p, env.demo, "ctrl+a", &e) == PG_OK);
    REQUIRE(env.ops->type_text(env.p, env.demo, "X", &e) == PG_OK);
    CHECK(wait_entry("XReplaced", &st));
    REQUIRE(env.ops->key(env.p, env.demo, "End", &e) == PG_OK);
    REQUIRE(env.ops->key(env.p, env.demo, "BackSpace", &e) == PG_OK);
    CHECK(wait_entry("XReplace", &st));
    REQUIRE(env.ops->key(env.p, env.demo, "shift+Home", &e) == PG_OK);
    REQUIRE(env.ops->type_text(env.p, env.demo, "Q", &e) == PG_OK);
    CHECK(wait_entry("Q", &st));
    REQUIRE(env.ops->key(env.p, env.demo, "plus", &e) == PG_OK);
    REQUIRE(env.ops->key(env.p, env.demo, "ctrl++", &e) == PG_OK); /* Tk ignores ctrl+key */
    REQUIRE(env.ops->key(env.p, env.demo, "\xc3\xa9", &e) == PG_OK);  /* é: not on the map */
    REQUIRE(env.ops->key(env.p, env.demo, "shift+a", &e) == PG_OK);
    CHECK(wait_entry("Q+\xc3\xa9" "A", &st));
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "ctrl+shift+z", &e), PG_OK);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "Return", &e), PG_OK);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "shift+Tab", &e), PG_OK);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "Tab", &e), PG_OK);
    (void)mode;
}

/* A JSON string field of a pg_demo.tcl state file, \uXXXX below 0x100 decoded. */
static bool state_field(const char *path, const char *key, char *out, size_t cap) {
    char buf[8192], pat[64];
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(buf, pat);
    if (!p) return false;
    size_t o = 0;
    for (p += strlen(pat); *p && *p != '"' && o + 2 < cap; p++) {
        if (*p == '\\' && p[1] == 'u' && strlen(p) >= 6) {
            out[o++] = (char)strtol((char[]){p[4], p[5], 0}, NULL, 16);
            p += 5;
        } else {
            if (*p == '\\' && p[1]) p++;
            out[o++] = *p;
        }
    }
    out[o] = 0;
    return true;
}

/* An integer field ("x" of "entry_box", ...) after the given key. */
static int state_int(const char *path, const char *key, const char *sub) {
    char buf[8192], pat[64];
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    snprintf(pat, sizeof pat, "\"%s\": {", key);
    const char *p = strstr(buf, pat);
    snprintf(pat, sizeof pat, "\"%s\": ", sub);
    p = p ? strstr(p, pat) : NULL;
    return p ? atoi(p + strlen(pat)) : -1;
}

static void t_focus_moves_while_typing(int *pg_failed_, int mode) {
    char script[512], state[160];
    snprintf(script, sizeof script, "%s/tests/apps/pg_demo.tcl", PG_SOURCE_DIR);
    snprintf(state, sizeof state, "%s/typing.json", env.dir);
    unlink(state);
    char *argv[] = {"wish", script, state, "400x200+1200+40", "typing target", "thief=260x60+1200+500", NULL};
    int out = -1;
    env.owner = spawn(argv, &out);
    char buf[256] = "";
    size_t got = 0;
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 10000 && !strstr(buf, "READY");) {
        struct pollfd pfd = {out, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0) continue;
        ssize_t r = read(out, buf + got, sizeof buf - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
        buf[got] = 0;
    }
    close(out);
    REQUIRE(strstr(buf, "READY") != NULL);
    pg_window *w = NULL;
    size_t n;
    pg_error e;
    uint64_t target = 0;
    for (double t0 = pg_mono_ms(); !target && pg_mono_ms() - t0 < 5000; pg_sleep_ms(20)) {
        REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
        const pg_window *t = find_title(w, n, "typing target", PG_WINDOW_NORMAL);
        if (t && t->visible) target = t->id;
        free(w);
    }
    REQUIRE(target != 0);
    int ex = state_int(state, "entry_box", "x"), ey = state_int(state, "entry_box", "y");
    REQUIRE(ex >= 0 && ey >= 0);
    REQUIRE(env.ops->click(env.p, target, ex + 10, ey + 5, PG_BTN_LEFT, 1, &e) == PG_OK);
    /* "~" makes the app give the focus to its other window. 33 distinct
     * characters off the keymap after it (three times) fill several batches
     * of spare keycodes, and each next batch waits for the app to have read
     * the keys before: by then the focus has moved. */
    static const char *rest[] = {"\xce\xb1", "\xce\xb2", "\xce\xb3", "\xce\xb4", "\xce\xb5", "\xce\xb6", "\xce\xb7",
                                 "\xce\xb8", "\xce\xb9", "\xce\xba", "\xce\xbb", "\xce\xbc", "\xce\xbd", "\xce\xbe",
                                 "\xce\xbf", "\xcf\x80", "\xcf\x81", "\xcf\x83", "\xcf\x84", "\xcf\x85", "\xcf\x86",
                                 "\xcf\x87", "\xcf\x88", "\xcf\x89", "\xd0\xb1", "\xd0\xb2", "\xd0\xb3", "\xd0\xb4",
                                 "\xd0\xb6", "\xd0\xb7", "\xd0\xb8", "\xd0\xba", "\xd0\xbb", "\xd0\xbc", "\xd0\xbd"};
    char text[1024] = "abc~";
    for (int round = 0; round < 3; round++) /* several batches, each waiting for the app: margin under load */
        for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) strcat(text, rest[i]);
    strcat(text, "secret tail");
    size_t total = 0; /* code points */
    for (const char *p = text; *p; p++) total += ((unsigned char)*p & 0xC0) != 0x80;
    pg_err rc = env.ops->type_text(env.p, target, text, &e);
    CHECK_EQ_INT(rc, PG_E_POLICY);
    printf("     %s\n", e.message);
    unsigned long typed = 0;
    const char *at = strstr(e.message, "after ");
    CHECK(at && sscanf(at, "after %lu of %*u", &typed) == 1);
    CHECK(typed >= 4 && typed < total);
    /* What arrived: the target's entry holds the first characters, the thief
     * at most the one in flight when the focus moved; nothing after it. */
    char entry[1024] = "", thief[1024] = "";
    pg_sleep_ms(300);
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 3000; pg_sleep_ms(50))
        if (state_field(state, "entry", entry, sizeof entry) && state_field(state, "thief", thief, sizeof thief)) break;
    size_t ne = 0, nt = 0;
    for (const char *p = entry; *p; p++) ne += ((unsigned char)*p & 0xC0) != 0x80;
    for (const char *p = thief; *p; p++) nt += ((unsigned char)*p & 0xC0) != 0x80;
    printf("     target got %zu characters, the other window %zu\n", ne, nt);
    CHECK(nt <= 1);
    CHECK(strncmp(entry, text, strlen(entry)) == 0);
    CHECK(strstr(thief, "secret") == NULL && strstr(entry, "secret") == NULL);
    CHECK_EQ_INT(ne + nt, typed);
    stop_app(&env.owner);
    (void)mode;
}

/* Chords that act on the server or the session, never on the target. */
static void t_refused_chords(int *pg_failed_, int mode) {
    /* Terminate_Server last: sent, it really ends the X server (XKB's
     * Terminate action), and every later test with it. */
    static const char *refused[] = {"ctrl+alt+F1",     "ctrl+alt+F12",    "ctrl+alt+BackSpace", "XF86Switch_VT_1",
                                    "xf86switch_vt_7", "0x1008fe01",      "XF86Ungrab",         "XF86ClearGrab",
                                    "XF86LogGrabInfo", "super+e",         "super",              "Print",
                                    "ctrl+Print",      "alt+Tab",         "ctrl+alt+t",         "meta+d",
                                    "Terminate_Server"};
    pg_error e;
    app_state before = {0}, after = {0};
    REQUIRE(read_state(&before));
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        pg_err rc = env.ops->key(env.p, env.demo, refused[i], &e);
        if (rc != PG_E_POLICY) fprintf(stderr, "  \"%s\": %d %s\n", refused[i], (int)rc, rc ? e.message : "sent");
        CHECK_EQ_INT(rc, PG_E_POLICY);
    }
    pg_sleep_ms(100);
    CHECK(read_state(&after));
    CHECK_STR(after.entry, before.entry);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "alt+F4x", &e), PG_E_BADINPUT); /* still: unknown keys */
    (void)mode;
}

static void t_bad_input(int *pg_failed_, int mode) {
    pg_error e;
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "ctrl+nosuchkey", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "nosuchkey") != NULL);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "hyper+a", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "hyper") != NULL);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "ctrl+", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->key(env.p, env.demo, "", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->type_text(env.p, env.demo, "ab\xff", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(env.ops->click(env.p, env.demo, 5, 5, (pg_button)7, 1, &e), PG_E_BADINPUT);
    (void)mode;
}

static void t_not_found(int *pg_failed_, int mode) {
    pg_error e;
    pg_capture c;
    xcb_window_t gone = xcb_generate_id(env.c);
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, gone, env.root, 0, 0, 10, 10, 0,
                      XCB_WINDOW_CLASS_INPUT_OUTPUT, XCB_COPY_FROM_PARENT, 0, NULL);
    xcb_destroy_window(env.c, gone);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    CHECK_EQ_INT(env.ops->capture_window(env.p, gone, NULL, &c, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->click(env.p, gone, 1, 1, PG_BTN_LEFT, 1, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->focus(env.p, gone, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->type_text(env.p, gone, "x", &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->settle(env.p, gone, 10, 100, &e), PG_E_NOTFOUND);
    pg_window one;
    CHECK_EQ_INT(env.ops->describe_window(env.p, gone, &one, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->describe_window(env.p, 0, &one, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->capture_window(env.p, env.root, NULL, &c, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(env.ops->capture_window(env.p, 0, NULL, &c, &e), PG_E_NOTFOUND);
    if (mode == MODE_OPENBOX) { /* the WM's frame is not an application window */
        xcb_window_t frame = (xcb_window_t)env.demo;
        while (parent_of(frame) != env.root && frame) frame = parent_of(frame);
        CHECK(frame != env.demo);
        CHECK_EQ_INT(env.ops->capture_window(env.p, frame, NULL, &c, &e), PG_E_NOTFOUND);
    }
}

static void t_focus_and_settle(int *pg_failed_, int mode) {
    pg_error e;
    REQUIRE(env.ops->focus(env.p, env.demo, &e) == PG_OK);
    pg_window *w;
    size_t n;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    CHECK(d && d->focused);
    pg_window one; /* the focus chain walked for one window as for the listing */
    CHECK(env.ops->describe_window(env.p, env.demo, &one, &e) == PG_OK && one.focused);
    free(w);
    /* The focused entry's cursor blinks (600 ms on, 300 ms off). */
    CHECK_EQ_INT(env.ops->settle(env.p, env.demo, 100, 3000, &e), PG_OK);
    double t0 = pg_mono_ms();
    CHECK_EQ_INT(env.ops->settle(env.p, env.demo, 1000, 1600, &e), PG_E_TIMEOUT);
    double took = pg_mono_ms() - t0;
    CHECK(took >= 1550 && took < 2500);
    (void)mode;
}

/* The broker keeps watching the windows it settled: a window quiet for the
 * interval is captured at once, one first seen waits the interval, and a
 * repaint or input since resets the wait. (Margins are wide: the watcher
 * stamps a repaint when its thread reads it, a few ms late under load.) */
static double settle_took(xcb_window_t w, uint32_t quiet_ms) {
    pg_error e;
    double t0 = pg_mono_ms();
    pg_err rc = env.ops->settle(env.p, w, quiet_ms, 3000, &e);
    double took = pg_mono_ms() - t0;
    if (rc != PG_OK) fprintf(stderr, "  settle: %s\n", e.message);
    return rc == PG_OK ? took : -1;
}

static void t_settle_remembers(int *pg_failed_, int mode) {
    xcb_window_t w = make_titled("pg quiet", false, 900);
    pg_window got;
    REQUIRE(listed_title(w, &got));
    pg_sleep_ms(150); /* the map's own exposure is over */
    double first = settle_took(w, 100);
    CHECK(first >= 95); /* first seen: no history, so the whole interval */
    pg_sleep_ms(150);
    double again = settle_took(w, 100);
    if (again < 0 || again >= 80) fprintf(stderr, "  quiet window waited %.1f ms\n", again);
    /* watched and quiet for 150 ms: no wait (well under the 100 ms a first
     * look takes, with room for a loaded machine's scheduling) */
    CHECK(again >= 0 && again < 80);
    xcb_clear_area(env.c, 0, w, 0, 0, 0, 0); /* a repaint of its background */
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    pg_sleep_ms(20);
    double repainted = settle_took(w, 100);
    if (repainted < 60) fprintf(stderr, "  after a repaint it waited only %.1f ms\n", repainted);
    CHECK(repainted >= 60); /* 100 ms from the repaint, 20 of them slept already */
    pg_sleep_ms(150);
    pg_error e;
    REQUIRE(env.ops->pointer_move(env.p, w, 10, 10, &e) == PG_OK);
    double after_input = settle_took(w, 100);
    if (after_input < 90) fprintf(stderr, "  after input it waited only %.1f ms\n", after_input);
    CHECK(after_input >= 90); /* input counts: its repaint is still to come */
    xcb_destroy_window(env.c, w);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    CHECK_EQ_INT(env.ops->settle(env.p, w, 10, 100, &e), PG_E_NOTFOUND);
    (void)mode;
}

/* Without Composite a window capture reads the screen: it must never copy
 * another window that covers the target. */
static void t_no_composite(int *pg_failed_, int mode) {
    pg_caps caps;
    pg_error e;
    REQUIRE(env.ops->caps(env.p, &caps, &e) == PG_OK);
    CHECK(!caps.capture_covered);
    pg_capture c;
    REQUIRE(env.ops->capture_window(env.p, env.demo, NULL, &c, &e) == PG_OK); /* uncovered: fine */
    CHECK(strncmp(c.method, "composite", 9) != 0);
    CHECK(c.width == 480 && c.height == 260 && rgb_is(&c, 2, 2, 0xf4, 0xf4, 0xf4));
    free(c.rgba);
    pg_window *w;
    size_t n;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    REQUIRE(d != NULL);
    pg_window demo = *d;
    free(w);
    /* A small window over the demo's bottom-right corner. */
    xcb_window_t cover = xcb_generate_id(env.c);
    uint32_t vals[] = {0xff0000, 1};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, cover, env.root, (int16_t)(demo.x + 400), (int16_t)(demo.y + 200),
                      150, 100, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, XCB_COPY_FROM_PARENT,
                      XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT, vals);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, cover, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 14, "secret cover 1");
    xcb_map_window(env.c, cover);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    pg_err rc = env.ops->capture_window(env.p, env.demo, NULL, &c, &e);
    CHECK_EQ_INT(rc, PG_E_POLICY);
    if (rc == PG_OK) free(c.rgba);
    char id[32];
    snprintf(id, sizeof id, "%u", (unsigned)cover);
    CHECK(strstr(e.message, id) != NULL); /* named by the decimal id `windows` uses */
    CHECK(strstr(e.message, "0x") == NULL);
    CHECK(strstr(e.message, "secret cover") == NULL); /* another window's title is private */
    printf("     %s\n", e.message);
    /* A region the cover does not reach is the demo's own pixels. */
    pg_rect r = {0, 0, 300, 150};
    REQUIRE(env.ops->capture_window(env.p, env.demo, &r, &c, &e) == PG_OK);
    CHECK(c.width == 300 && !rgb_is(&c, 299, 149, 255, 0, 0));
    free(c.rgba);
    r = (pg_rect){390, 190, 20, 20}; /* it does reach this one */
    CHECK_EQ_INT(env.ops->capture_window(env.p, env.demo, &r, &c, &e), PG_E_POLICY);
    /* A window below the demo covers nothing. */
    uint32_t below = XCB_STACK_MODE_BELOW;
    xcb_configure_window(env.c, cover, XCB_CONFIG_WINDOW_STACK_MODE, &below);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    REQUIRE(env.ops->capture_window(env.p, env.demo, NULL, &c, &e) == PG_OK);
    CHECK(!rgb_is(&c, 479, 259, 255, 0, 0));
    free(c.rgba);
    xcb_destroy_window(env.c, cover);
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    (void)mode;
}

/* window_frame: openbox puts a title bar above the demo and says so in
 * _NET_FRAME_EXTENTS, as the frame list_windows reports; without a window
 * manager nothing frames it. */
static void t_window_frame(int *pg_failed_, int mode) {
    pg_window *w;
    size_t n;
    pg_error e;
    uint32_t l, r, t, b;
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    const pg_window *d = find_demo(w, n);
    REQUIRE(d != NULL);
    CHECK_EQ_INT(env.ops->window_frame(env.p, env.demo, &l, &r, &t, &b, &e), PG_OK);
    printf("     frame: left %u right %u top %u bottom %u; listed frame %d,%d %ux%u, content %d,%d\n", l, r, t, b,
           d->frame.x, d->frame.y, d->frame.w, d->frame.h, d->x, d->y);
    if (mode == MODE_OPENBOX) CHECK(t > 0 && (int64_t)t == (int64_t)d->y - d->frame.y);
    else CHECK(l == 0 && r == 0 && t == 0 && b == 0);
    CHECK_EQ_INT(env.ops->window_frame(env.p, 0x1fffff00u, &l, &r, &t, &b, &e), PG_E_NOTFOUND);
    free(w);
}

/* Tests run in source order: all of one mode, then all of the other. */
#define MODE_TESTS(prefix, mode)                                                                    \
    PG_TEST(prefix##_caps_report_extensions_wm_and_screen) { SETUP(mode); t_caps(pg_failed_, mode); } \
    PG_TEST(prefix##_list_finds_demo_with_xres_pid_and_geometry) { SETUP(mode); t_list(pg_failed_, mode); } \
    PG_TEST(prefix##_capture_is_rgba_right_size_and_matches_screen) { SETUP(mode); t_capture(pg_failed_, mode); } \
    PG_TEST(prefix##_regions_clip_and_empty_is_badinput) { SETUP(mode); t_region(pg_failed_, mode); } \
    PG_TEST(prefix##_covered_window_captures_own_pixels_and_click_is_refused) { SETUP(mode); t_covered(pg_failed_, mode); } \
    PG_TEST(prefix##_popups_and_dialogs_are_listed_with_the_window_they_belong_to) { SETUP(mode); t_owned(pg_failed_, mode); } \
    PG_TEST(prefix##_a_popup_of_a_client_without_windows_has_no_parent) { SETUP(mode); t_unattributed_popup(pg_failed_, mode); } \
    PG_TEST(prefix##_a_title_longer_than_the_field_is_marked_cut) { SETUP(mode); t_long_titles(pg_failed_, mode); } \
    PG_TEST(prefix##_pointer_moves_and_clicks_reach_the_button) { SETUP(mode); t_pointer_and_click(pg_failed_, mode); } \
    PG_TEST(prefix##_wheel_drag_hover_and_triple_click_arrive_as_sent) { SETUP(mode); t_wheel_and_drag(pg_failed_, mode); } \
    PG_TEST(prefix##_a_click_a_grab_holds_is_sent_unconfirmed_and_keys_wait_for_it) { SETUP(mode); t_frozen_click(pg_failed_, mode); } \
    PG_TEST(prefix##_monitors_come_from_randr) { SETUP(mode); t_monitors(pg_failed_, mode); } \
    PG_TEST(prefix##_utf8_text_arrives_exactly) { SETUP(mode); t_type(pg_failed_, mode); } \
    PG_TEST(prefix##_chords_select_move_and_edit) { SETUP(mode); t_chords(pg_failed_, mode); } \
    PG_TEST(prefix##_typing_stops_when_the_focus_leaves_the_target) { SETUP(mode); t_focus_moves_while_typing(pg_failed_, mode); } \
    PG_TEST(prefix##_chords_that_switch_terminals_kill_the_server_or_reach_the_desktop_are_refused) { SETUP(mode); t_refused_chords(pg_failed_, mode); } \
    PG_TEST(prefix##_bad_chords_and_text_are_badinput) { SETUP(mode); t_bad_input(pg_failed_, mode); } \
    PG_TEST(prefix##_vanished_root_and_frame_ids_are_notfound) { SETUP(mode); t_not_found(pg_failed_, mode); } \
    PG_TEST(prefix##_focus_and_settle_see_repaints) { SETUP(mode); t_focus_and_settle(pg_failed_, mode); } \
    PG_TEST(prefix##_settle_remembers_quiet_windows_and_waits_after_repaints_and_input) { SETUP(mode); t_settle_remembers(pg_failed_, mode); } \
    PG_TEST(prefix##_window_frame_reads_the_wm_frame_extents) { SETUP(mode); t_window_frame(pg_failed_, mode); }

MODE_TESTS(nowm, MODE_NOWM)
MODE_TESTS(openbox, MODE_OPENBOX)
PG_TEST(nocomposite_a_covered_window_capture_is_refused_naming_the_cover_by_id) {
    SETUP(MODE_NOCOMPOSITE);
    t_no_composite(pg_failed_, MODE_NOCOMPOSITE);
}
