/* SPDX-License-Identifier: MIT */
/* person_physical.c - the Win32 backend's stop hook against input that is
 * not injected: tests/windows/person_physical.sh runs this under Wine and
 * types and moves through the X server (xdotool, XTEST), which Wine takes
 * as the person's own keyboard and mouse, as it takes any X input.
 *
 * Contract: watches for Pause (watch_person), shows a window titled
 * "pixelgate person physical" for the script to focus and point at,
 * prints "ready", then pumps messages until the hooks have seen one
 * physical stop press and physical mouse motion (exit 0) or 15 s passed
 * (exit 1), and prints what it saw either way: "stops=N keys_physical=N
 * keys_injected=N mouse_physical=N person_presses=N person_events=N".
 * Before "ready" it also sends an injected Pause of its own, which must
 * not count (exit 2 if it did).
 * Never: waits without a deadline.
 */
#include <windows.h>

#include <stdio.h>

#include "pg_person.h"
#include "pg_platform.h"
#include "pg_time.h"
#include "pg_win32.h"

#define WAIT_MS 15000

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM w, LPARAM l) { return DefWindowProcW(h, m, w, l); }

static HWND target_window(void) {
    WNDCLASSW c = {.lpfnWndProc = proc, .hInstance = GetModuleHandleW(NULL), .lpszClassName = L"pg_person_physical",
                   .hbrBackground = (HBRUSH)GetStockObject(WHITE_BRUSH)};
    RegisterClassW(&c);
    HWND h = CreateWindowExW(0, c.lpszClassName, L"pixelgate person physical", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 60, 60,
                             300, 200, NULL, NULL, c.hInstance, NULL);
    if (h) SetForegroundWindow(h);
    return h;
}

static void pump(void) {
    MSG m;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) {
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
}

static void print(pg_platform *p, pg_person *person) {
    pg_win_person_counts c;
    pg_person_seen s;
    pg_win_person_read_counts(p, &c);
    pg_person_read(person, &s);
    printf("stops=%llu keys_physical=%llu keys_injected=%llu mouse_physical=%llu person_presses=%llu "
           "person_events=%llu\n",
           (unsigned long long)c.stops, (unsigned long long)c.keys_physical, (unsigned long long)c.keys_injected,
           (unsigned long long)c.mouse_physical, (unsigned long long)s.stop_presses,
           (unsigned long long)s.human_events);
    fflush(stdout);
}

/* An injected Pause, seen by the hook (waited for), counted as nothing. */
static bool injected_pause_ignored(pg_platform *p) {
    INPUT in[2] = {{.type = INPUT_KEYBOARD}, {.type = INPUT_KEYBOARD}};
    in[0].ki.wVk = in[1].ki.wVk = VK_PAUSE;
    in[1].ki.dwFlags = KEYEVENTF_KEYUP;
    SendInput(2, in, sizeof *in);
    pg_win_person_counts c;
    for (pg_deadline end = pg_deadline_in_ms(3000); !pg_deadline_passed(end); pg_sleep_ms(10)) {
        pump();
        pg_win_person_read_counts(p, &c);
        if (c.keys_injected >= 2) return c.stops == 0 && c.keys_physical == 0;
    }
    return false;
}

int main(void) {
    const pg_platform_ops *ops = pg_platform_default();
    pg_platform *p = NULL;
    pg_person *person = pg_person_new(NULL, NULL);
    pg_error e;
    if (!person || ops->open(&p, NULL, &e) || ops->watch_person(p, person, "Pause", &e)) {
        printf("setup failed: %s\n", e.message);
        return 3;
    }
    if (!target_window()) {
        printf("no window: error %lu\n", GetLastError());
        return 3;
    }
    if (!injected_pause_ignored(p)) {
        printf("an injected Pause was counted, or never seen: ");
        print(p, person);
        return 2;
    }
    printf("ready\n");
    fflush(stdout);
    pg_win_person_counts c = {0};
    for (pg_deadline end = pg_deadline_in_ms(WAIT_MS); !pg_deadline_passed(end); pg_sleep_ms(10)) {
        pump();
        pg_win_person_read_counts(p, &c);
        if (c.stops >= 1 && c.mouse_physical >= 1) break;
    }
    print(p, person);
    pg_person_seen s;
    pg_person_read(person, &s);
    bool ok = c.stops == 1 && c.mouse_physical >= 1 && s.stop_presses == 1 && s.human_events >= 2;
    ops->close(p);
    pg_person_free(person);
    return ok ? 0 : 1;
}
