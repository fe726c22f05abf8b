/* SPDX-License-Identifier: MIT */
/* win_testapp.h - start, read and stop tests/apps/win32_testapp.exe from a
 * Windows unit test (test_win32, test_win_helper). Windows only.
 *
 * The app is expected beside the test executable (CMake builds it there).
 * pg_testapp_start runs it with a state file in %TEMP% named after tag and
 * this process, and waits (15 s) for its "ready" line, which gives the
 * button's and the edit control's client rectangles. pg_testapp_read parses
 * the last complete "state clicks=N edit=TEXT" line. pg_testapp_stop posts
 * WM_CLOSE to hwnd (if non-zero), terminates the app after 3 s, and deletes
 * the state file.
 *
 * pg_testapp_fixture is what a test that drives the app through a platform
 * backend needs, set up once per process by the first test (SETUP()): the
 * app started, a platform handle opened by the caller's open function, the
 * app's window listed and visible (waited for up to 10 s), the pointer parked
 * at 5,5 so it does not rest on the button. A failed setup is remembered, so
 * every later test reports the same reason. Cleanup runs at exit.
 */
#ifndef WIN_TESTAPP_H
#define WIN_TESTAPP_H

#include <windows.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_platform.h"

#define PG_TESTAPP_TITLE "pixelgate win32 test"

typedef struct {
    PROCESS_INFORMATION pi;
    wchar_t state[MAX_PATH];
    RECT button, edit; /* client coordinates, from the app's ready line */
} pg_testapp;

typedef struct {
    int clicks;
    char edit[1024];
} pg_testapp_state;

/* The last "pointer" line: what the app's own client area got. */
typedef struct {
    int wheel, hwheel, held_moves; /* notches: down and right positive */
    long down_x, down_y, up_x, up_y; /* -1: none yet */
} pg_testapp_pointer;

/* false with the reason in why[0..n) if the app could not start or get ready. */
bool pg_testapp_start(pg_testapp *a, const wchar_t *tag, char *why, size_t n);
bool pg_testapp_read(const pg_testapp *a, pg_testapp_state *s);
/* false until the app has written a complete "pointer" line. */
bool pg_testapp_read_pointer(const pg_testapp *a, pg_testapp_pointer *p);
void pg_testapp_stop(pg_testapp *a, uint64_t hwnd);

/* The app's entry in a window list (by title), or NULL. */
const pg_window *pg_testapp_find(const pg_window *w, size_t n);

typedef struct {
    bool ready, broken;
    bool wine;                    /* running under Wine (ntdll's wine_get_version) */
    char why[600];                /* why setup failed */
    pg_testapp ta;                /* win32_testapp.exe */
    const pg_platform_ops *ops;
    pg_platform *p;
    uint64_t app;                 /* the app's window as the backend lists it */
} pg_testapp_fixture;

/* Opens the backend under test into *ops and *p. */
typedef pg_err (*pg_testapp_open_fn)(const pg_platform_ops **ops, pg_platform **p, pg_error *e);

/* The setup described above, once per process (one fixture per process). */
bool pg_testapp_fixture_setup(pg_testapp_fixture *f, const wchar_t *tag, pg_testapp_open_fn open);

/* In a PG_TEST: set the fixture up or fail the test with the reason. */
#define PG_TESTAPP_SETUP(f, tag, open)                                                      \
    do {                                                                                    \
        if (!pg_testapp_fixture_setup(f, tag, open)) {                                      \
            fprintf(stderr, "%s:%d: setup failed: %s\n", __FILE__, __LINE__, (f)->why);    \
            *pg_failed_ = 1;                                                                \
            return;                                                                         \
        }                                                                                   \
    } while (0)

#endif
