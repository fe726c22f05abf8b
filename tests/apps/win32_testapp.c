/* SPDX-License-Identifier: MIT */
/* win32_testapp.c - the small Win32 GUI app the Win32 backend's tests drive.
 *
 * Usage: win32_testapp.exe STATE_FILE
 * Shows a window titled "pixelgate win32 test" (class "pgwin32test", client
 * area exactly 420x240 at screen 100,100, background #e8d8b0) holding a
 * button "Press me" and a single-line EDIT control. It appends one line to
 * STATE_FILE (UTF-8, flushed and closed after each line) at start and on
 * every change:
 *   ready pid=P button=X,Y,W,H edit=X,Y,W,H      (client coordinates)
 *   state clicks=N edit=TEXT                      (TEXT: the edit's exact text)
 *   pointer wheel=N hwheel=N down=X,Y up=X,Y held_moves=N
 * so a test can aim at the controls and read back what arrived. The last
 * "state" line is the current state. "pointer" lines say what the window's
 * own client area got: wheel notches (down positive, right positive, in
 * WHEEL_DELTA units), the last left press and release (client coordinates)
 * and the moves with the left button held in between. Exits on WM_CLOSE.
 * Never: reads anything but its command line, writes anything but STATE_FILE.
 */
#include <windows.h>

#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>

#define APP_W 420
#define APP_H 240
#define ID_BUTTON 1
#define ID_EDIT 2

static wchar_t *state_path;
static HWND button, edit;
static int clicks;
static struct {
    int wheel, hwheel, held_moves;
    POINT down, up;
} ptr = {0, 0, 0, {-1, -1}, {-1, -1}};

static void append_line(const char *line) {
    FILE *f = _wfopen(state_path, L"ab");
    if (!f) return;
    fputs(line, f);
    fclose(f);
}

/* A child's rectangle in its parent's client coordinates. */
static RECT child_rect(HWND parent, HWND child) {
    RECT r;
    GetWindowRect(child, &r);
    MapWindowPoints(HWND_DESKTOP, parent, (POINT *)&r, 2);
    return r;
}

static void write_ready(HWND w) {
    RECT b = child_rect(w, button), e = child_rect(w, edit);
    char line[256];
    snprintf(line, sizeof line, "ready pid=%lu button=%ld,%ld,%ld,%ld edit=%ld,%ld,%ld,%ld\n",
             GetCurrentProcessId(), b.left, b.top, b.right - b.left, b.bottom - b.top, e.left,
             e.top, e.right - e.left, e.bottom - e.top);
    append_line(line);
}

static void write_state(void) {
    wchar_t text[1024];
    int n = GetWindowTextW(edit, text, 1024);
    char utf8[4096];
    int m = WideCharToMultiByte(CP_UTF8, 0, text, n, utf8, sizeof utf8 - 1, NULL, NULL);
    utf8[m > 0 ? m : 0] = 0;
    char line[4200];
    snprintf(line, sizeof line, "state clicks=%d edit=%s\n", clicks, utf8);
    append_line(line);
}

static void write_pointer(void) {
    char line[200];
    snprintf(line, sizeof line, "pointer wheel=%d hwheel=%d down=%ld,%ld up=%ld,%ld held_moves=%d\n", ptr.wheel,
             ptr.hwheel, ptr.down.x, ptr.down.y, ptr.up.x, ptr.up.y, ptr.held_moves);
    append_line(line);
}

static POINT client_point(LPARAM lp) {
    POINT p = {(short)LOWORD(lp), (short)HIWORD(lp)};
    return p;
}

static void create_controls(HWND w) {
    HINSTANCE inst = GetModuleHandleW(NULL);
    button = CreateWindowExW(0, L"BUTTON", L"Press me", WS_CHILD | WS_VISIBLE | BS_PUSHBUTTON, 20,
                             20, 140, 40, w, (HMENU)(INT_PTR)ID_BUTTON, inst, NULL);
    edit = CreateWindowExW(WS_EX_CLIENTEDGE, L"EDIT", L"", WS_CHILD | WS_VISIBLE | WS_TABSTOP |
                           ES_AUTOHSCROLL, 20, 100, 380, 30, w, (HMENU)(INT_PTR)ID_EDIT, inst, NULL);
}

static LRESULT CALLBACK wndproc(HWND w, UINT msg, WPARAM wp, LPARAM lp) {
    switch (msg) {
    case WM_CREATE:
        create_controls(w);
        return 0;
    case WM_COMMAND:
        if (LOWORD(wp) == ID_BUTTON && HIWORD(wp) == BN_CLICKED) {
            clicks++;
            write_state();
        } else if (LOWORD(wp) == ID_EDIT && HIWORD(wp) == EN_CHANGE) {
            write_state();
        }
        return 0;
    case WM_MOUSEWHEEL: /* the focus window's, passed up by the controls' DefWindowProc */
        ptr.wheel -= GET_WHEEL_DELTA_WPARAM(wp) / WHEEL_DELTA;
        write_pointer();
        return 0;
    case WM_MOUSEHWHEEL:
        ptr.hwheel += GET_WHEEL_DELTA_WPARAM(wp) / WHEEL_DELTA;
        write_pointer();
        return 0;
    case WM_LBUTTONDOWN:
        SetCapture(w);
        ptr.down = client_point(lp);
        ptr.held_moves = 0;
        write_pointer();
        return 0;
    case WM_MOUSEMOVE:
        if (wp & MK_LBUTTON) ptr.held_moves++;
        return 0;
    case WM_LBUTTONUP:
        ReleaseCapture();
        ptr.up = client_point(lp);
        write_pointer();
        return 0;
    case WM_DESTROY:
        PostQuitMessage(0);
        return 0;
    default:
        return DefWindowProcW(w, msg, wp, lp);
    }
}

static HWND create_main(HINSTANCE inst) {
    WNDCLASSEXW wc = {0};
    wc.cbSize = sizeof wc;
    wc.lpfnWndProc = wndproc;
    wc.hInstance = inst;
    wc.hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW);
    wc.hbrBackground = CreateSolidBrush(RGB(0xe8, 0xd8, 0xb0));
    wc.lpszClassName = L"pgwin32test";
    if (!RegisterClassExW(&wc)) return NULL;
    DWORD style = WS_OVERLAPPEDWINDOW & ~(WS_THICKFRAME | WS_MAXIMIZEBOX);
    RECT r = {0, 0, APP_W, APP_H};
    AdjustWindowRectEx(&r, style, FALSE, 0); /* the frame goes outside the 420x240 client */
    HWND w = CreateWindowExW(0, L"pgwin32test", L"pixelgate win32 test", style, 100 + r.left,
                             100 + r.top, r.right - r.left, r.bottom - r.top, NULL, NULL, inst, NULL);
    return w;
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show) {
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (!argv || argc < 2) return 2;
    state_path = argv[1];
    HWND w = create_main(inst);
    if (!w) return 3;
    ShowWindow(w, SW_SHOWNORMAL);
    UpdateWindow(w);
    write_ready(w);
    write_state();
    MSG m;
    while (GetMessageW(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
    (void)prev, (void)cmd, (void)show;
    return 0;
}
