/* SPDX-License-Identifier: MIT */
#include "pg_pathlist.h"

#include <string.h>

static wchar_t lower(wchar_t c) { return c >= L'A' && c <= L'Z' ? (wchar_t)(c - L'A' + L'a') : c; }

/* The significant part of an entry s[0..n): quotes and trailing separators off. */
static void trim(const wchar_t **s, size_t *n) {
    if (*n >= 2 && (*s)[0] == L'"' && (*s)[*n - 1] == L'"') {
        (*s)++;
        *n -= 2;
    }
    while (*n > 1 && ((*s)[*n - 1] == L'\\' || (*s)[*n - 1] == L'/')) (*n)--;
}

static bool same_dir(const wchar_t *a, size_t na, const wchar_t *b, size_t nb) {
    trim(&a, &na);
    trim(&b, &nb);
    if (na != nb || na == 0) return false;
    for (size_t i = 0; i < na; i++)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

bool pg_pathlist_has(const wchar_t *list, const wchar_t *dir) {
    size_t nd = wcslen(dir);
    for (const wchar_t *p = list;;) {
        size_t n = wcscspn(p, L";");
        if (same_dir(p, n, dir, nd)) return true;
        if (!p[n]) return false;
        p += n + 1;
    }
}

bool pg_pathlist_add(const wchar_t *list, const wchar_t *dir, wchar_t *out, size_t cap, bool *changed) {
    size_t nl = wcslen(list), nd = wcslen(dir);
    *changed = false;
    if (nl + nd + 2 > cap) return false;
    wmemcpy(out, list, nl + 1);
    if (pg_pathlist_has(list, dir) || nd == 0) return true;
    size_t at = nl;
    if (at > 0 && out[at - 1] != L';') out[at++] = L';';
    wmemcpy(out + at, dir, nd + 1);
    *changed = true;
    return true;
}

bool pg_pathlist_remove(const wchar_t *list, const wchar_t *dir, wchar_t *out, size_t cap, bool *changed) {
    size_t nd = wcslen(dir), at = 0;
    bool first = true;
    *changed = false;
    if (wcslen(list) + 1 > cap) return false;
    for (const wchar_t *p = list;;) {
        size_t n = wcscspn(p, L";");
        if (same_dir(p, n, dir, nd)) {
            *changed = true;
        } else {
            if (!first) out[at++] = L';';
            wmemcpy(out + at, p, n);
            at += n;
            first = false;
        }
        if (!p[n]) break;
        p += n + 1;
    }
    out[at] = L'\0';
    return true;
}
