/* SPDX-License-Identifier: MIT */
/* pg_winpath.exe add|remove DIR - adds DIR to the system Path (HKLM\SYSTEM\
 * CurrentControlSet\Control\Session Manager\Environment, value Path), or
 * removes every entry that is DIR, then tells running programs the
 * environment changed (WM_SETTINGCHANGE "Environment"), so a new cmd.exe
 * finds pixelgate.exe. Run by pixelgate-setup.exe and uninstall.exe from
 * their plugins directory; not installed.
 *
 * Why not NSIS itself: its strings hold 1024 characters (NSIS_MAX_STRLEN of
 * Debian's makensis) and a real system Path is often longer: a truncated
 * Path written back would break the machine. Here the value is read whole,
 * its type (REG_EXPAND_SZ, usually) kept, and %VARIABLES% left unexpanded.
 * Exit: 0 done (or nothing to do), 2 usage, 9 the registry failed. One line
 * on stdout says what it did (the installer logs it). */
#include <windows.h>

#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>

#include "pg_pathlist.h"

#define ENV_KEY L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"

static int fail(const char *what, LONG rc) {
    printf("pg_winpath: %s failed (error %ld)\n", what, (long)rc);
    return 9;
}

int main(void) {
    int argc = 0;
    wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (!argv || argc != 3 || (wcscmp(argv[1], L"add") != 0 && wcscmp(argv[1], L"remove") != 0) || !argv[2][0]) {
        printf("usage: pg_winpath add|remove DIR\n");
        return 2;
    }
    bool add = wcscmp(argv[1], L"add") == 0;
    const wchar_t *dir = argv[2];
    HKEY key;
    LONG rc = RegOpenKeyExW(HKEY_LOCAL_MACHINE, ENV_KEY, 0, KEY_QUERY_VALUE | KEY_SET_VALUE | KEY_WOW64_64KEY, &key);
    if (rc != ERROR_SUCCESS) return fail("opening the Environment key", rc);
    DWORD type = REG_EXPAND_SZ, size = 0;
    rc = RegQueryValueExW(key, L"Path", NULL, &type, NULL, &size);
    if (rc == ERROR_FILE_NOT_FOUND) {
        type = REG_EXPAND_SZ;
        size = 0;
    } else if (rc != ERROR_SUCCESS) {
        RegCloseKey(key);
        return fail("reading Path", rc);
    } else if (type != REG_SZ && type != REG_EXPAND_SZ) {
        RegCloseKey(key);
        printf("pg_winpath: Path is not a string (type %lu); left alone\n", (unsigned long)type);
        return 9;
    }
    size_t n = size / sizeof(wchar_t);
    wchar_t *list = calloc(n + 1, sizeof *list);
    size_t cap = n + wcslen(dir) + 3;
    wchar_t *out = calloc(cap, sizeof *out);
    if (!list || !out) {
        RegCloseKey(key);
        return fail("allocating", ERROR_NOT_ENOUGH_MEMORY);
    }
    if (size) {
        DWORD got = size;
        rc = RegQueryValueExW(key, L"Path", NULL, &type, (BYTE *)list, &got);
        if (rc != ERROR_SUCCESS) {
            RegCloseKey(key);
            return fail("reading Path", rc);
        }
        list[got / sizeof(wchar_t) < n ? got / sizeof(wchar_t) : n] = L'\0'; /* terminated even if stored without */
    }
    bool changed = false;
    bool ok = add ? pg_pathlist_add(list, dir, out, cap, &changed) : pg_pathlist_remove(list, dir, out, cap, &changed);
    if (!ok) {
        RegCloseKey(key);
        return fail("editing Path", ERROR_INSUFFICIENT_BUFFER);
    }
    if (changed) {
        rc = RegSetValueExW(key, L"Path", 0, type, (const BYTE *)out, (DWORD)((wcslen(out) + 1) * sizeof(wchar_t)));
        if (rc != ERROR_SUCCESS) {
            RegCloseKey(key);
            return fail("writing Path", rc);
        }
        DWORD_PTR res;
        SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, 0, (LPARAM)L"Environment", SMTO_ABORTIFHUNG, 5000, &res);
    }
    RegCloseKey(key);
    printf("pg_winpath: %ls %s the system Path\n", dir,
           add ? (changed ? "added to" : "already in") : (changed ? "removed from" : "was not in"));
    free(list);
    free(out);
    LocalFree(argv);
    return 0;
}
