/* SPDX-License-Identifier: MIT */
/* pg_utf8.c - SHIM: UTF-8 at the Windows API's edges; see pg_utf8.h. */
#include "pg_utf8.h"

#ifdef _WIN32
#include <windows.h>

#include <shellapi.h>
#include <stdlib.h>

char *pg_wide_to_utf8(const wchar_t *w) {
    /* Strict: an unpaired surrogate is an error, not a silent U+FFFD. */
    int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (s && WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) <= 0) {
        free(s);
        s = NULL;
    }
    return s;
}

int pg_args_utf8(int *argc, char ***argv) {
    int n = 0;
    wchar_t **wv = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!wv) return -1;
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = pg_wide_to_utf8(wv[i]))) {
            LocalFree(wv);
            return -1; /* the partial vector is left to the process's end */
        }
    LocalFree(wv);
    if (!v) return -1;
    *argc = n;
    *argv = v;
    return 0;
}

wchar_t *pg_utf8_to_wide(const char *s, size_t extra, size_t *len) {
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) return NULL;
    wchar_t *w = malloc(((size_t)n + extra) * sizeof *w);
    if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
        free(w);
        return NULL;
    }
    if (w && len) *len = (size_t)n - 1;
    return w;
}

FILE *pg_fopen_utf8(const char *path, const char *mode) {
    wchar_t wp[32768], wm[16];
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wp, 32768) <= 0 ||
        MultiByteToWideChar(CP_UTF8, 0, mode, -1, wm, 16) <= 0)
        return NULL;
    return _wfopen(wp, wm);
}
#else
int pg_args_utf8(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}

FILE *pg_fopen_utf8(const char *path, const char *mode) { return fopen(path, mode); }
#endif
