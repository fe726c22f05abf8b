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
 */
#ifndef WIN_TESTAPP_H
#define WIN_TESTAPP_H

#include <windows.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* false with the reason in why[0..n) if the app could not start or get ready. */
bool pg_testapp_start(pg_testapp *a, const wchar_t *tag, char *why, size_t n);
bool pg_testapp_read(const pg_testapp *a, pg_testapp_state *s);
void pg_testapp_stop(pg_testapp *a, uint64_t hwnd);

#endif
