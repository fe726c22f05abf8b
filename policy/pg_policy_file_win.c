/* SPDX-License-Identifier: MIT */
/* pg_policy_file_win.c - the policy file on Windows: a local drive path
 * without reparse points whose ACL only administrators can change
 * (common/pg_win_acl.h), then a read of the handle that was checked (see
 * pg_policy_file.c for the rule on both platforms). */
#include <windows.h>

#include <aclapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_policy_private.h"
#include "pg_utf8.h"
#include "pg_win_acl.h"

#define WIN_INSTALL_TIP "the installer writes it; reinstall pixelgate, or create it as administrator"

/* Wine keeps no ACLs and enforces none: every file reads as owned by the Wine
 * user with a DACL made from its Unix mode, and SetSecurityInfo stores
 * nothing. There the ACL rule cannot tell a safe file from an unsafe one, so
 * it is not applied: file_checked stays false and the broker logs "file
 * permissions NOT checked" (the Unix permissions are what protect the file).
 * A real Windows ntdll (a KnownDLL from System32) never has this export. */
static bool under_wine(void) {
    HMODULE nt = GetModuleHandleW(L"ntdll.dll");
    return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}

/* The absolute form of path ("X:\dir\file", separators '\', no "." or "..")
 * in *wout and *uout (both malloc'd). Only local drive paths: a UNC share's
 * ACL is another machine's business, and device paths (\\?\, \\.\) and
 * alternate data streams (file:stream) name something other than a file. */
static pg_err full_path(const char *path, wchar_t **wout, char **uout, pg_error *e) {
    *wout = NULL;
    *uout = NULL;
    if (!path || !path[0]) return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: empty path");
    wchar_t *w = pg_utf8_to_wide(path, 0, NULL);
    if (!w) return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: path is not valid UTF-8");
    DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
    wchar_t *full = n ? malloc((size_t)n * sizeof *full) : NULL;
    DWORD got = full ? GetFullPathNameW(w, n, full, NULL) : 0;
    free(w);
    if (!got || got >= n) {
        free(full);
        return pg_error_set(e, PG_E_BADINPUT, "give an absolute --policy path", "policy file: cannot resolve %s",
                            path);
    }
    bool drive = ((full[0] >= L'A' && full[0] <= L'Z') || (full[0] >= L'a' && full[0] <= L'z')) &&
                 full[1] == L':' && full[2] == L'\\';
    if (!drive || wcschr(full + 2, L':')) {
        free(full);
        return pg_error_set(e, PG_E_BADINPUT, "keep the policy on a local drive, e.g. C:\\ProgramData\\pixelgate",
                            "policy file: %s is not a plain path on a local drive (no UNC share, device path or "
                            "stream)",
                            path);
    }
    if (full[got - 1] == L'\\') {
        free(full);
        return pg_error_set(e, PG_E_BADINPUT, "point --policy at the policy file itself",
                            "policy file: %s names a directory", path);
    }
    *uout = pg_wide_to_utf8(full);
    if (!*uout) {
        free(full);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
    }
    *wout = full;
    return PG_OK;
}

/* One component (a directory on the way, or the file): it exists, is what it
 * should be, and is no reparse point: a symbolic link or junction can be
 * re-pointed by whoever may write the directory holding it. */
static pg_err check_component(const wchar_t *w, const char *u, bool is_file, pg_error *e) {
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        DWORD err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
            return pg_error_set(e, PG_E_NOTFOUND, WIN_INSTALL_TIP, "policy file: %s does not exist", u);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot examine %s: Windows error %lu", u,
                            (unsigned long)err);
    }
    if (a & FILE_ATTRIBUTE_REPARSE_POINT) {
        char tip[PG_ERR_TIP_MAX];
        snprintf(tip, sizeof tip, "name the real location instead (see: dir /AL \"%.180s\")", u);
        return pg_error_set(e, PG_E_BADINPUT, tip,
                            "%s is a symbolic link, junction or other reparse point: the policy path may not go "
                            "through one, which whoever may write its directory could re-point",
                            u);
    }
    if (is_file && (a & FILE_ATTRIBUTE_DIRECTORY))
        return pg_error_set(e, PG_E_BADINPUT, "point --policy at the policy file itself",
                            "%s is not a regular file", u);
    if (!is_file && !(a & FILE_ATTRIBUTE_DIRECTORY))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%s is not a directory", u);
    return PG_OK;
}

/* Every directory below the drive root, then the file: no reparse points. */
static pg_err check_components(wchar_t *w, pg_error *e) {
    pg_err rc = PG_OK;
    for (wchar_t *q = w + 3; rc == PG_OK; q++) {
        if (*q != L'\\' && *q != L'\0') continue;
        wchar_t keep = *q;
        *q = L'\0';
        char *u = pg_wide_to_utf8(w);
        rc = u ? check_component(w, u, keep == L'\0', e) : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        free(u);
        *q = keep;
        if (keep == L'\0') break;
    }
    return rc;
}

/* Windows: the path must be a local drive path; no component may be a reparse
 * point; then the file's and its directory's owner and DACL must let no one
 * but SYSTEM, Administrators and TrustedInstaller change them
 * (common/pg_win_acl.h). Directories further up are not ACL-checked:
 * Windows grants ordinary users "create folders" on C:\ itself, which lets
 * them add entries but not replace the ones the administrator made. */
pg_err pg_policy_check_file(const char *path, pg_error *e) {
    wchar_t *w;
    char *u;
    pg_err rc = full_path(path, &w, &u, e);
    if (rc != PG_OK) return rc;
    rc = check_components(w, e);
    if (rc == PG_OK && !under_wine()) rc = pg_win_acl_check_file(u, e);
    free(w);
    free(u);
    return rc;
}

/* The open file is the checked one: no reparse point, not a directory, the
 * same ACL rule on the handle's own descriptor, and at most the cap. */
static pg_err check_handle(HANDLE h, const char *u, LONGLONG *size, pg_error *e) {
    BY_HANDLE_FILE_INFORMATION fi;
    if (!GetFileInformationByHandle(h, &fi))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot examine %s: Windows error %lu", u,
                            (unsigned long)GetLastError());
    if (fi.dwFileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: %s changed while it was being opened", u);
    *size = ((LONGLONG)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
    if (*size > (LONGLONG)PG_POLICY_MAX_BYTES)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: %s is larger than %u bytes", u,
                            (unsigned)PG_POLICY_MAX_BYTES);
    if (under_wine()) return PG_OK;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD err = GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, NULL,
                                NULL, NULL, NULL, &sd);
    if (err != ERROR_SUCCESS)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "cannot read the ACL of %s: Windows error %lu", u,
                            (unsigned long)err);
    pg_err rc = pg_win_acl_check_sd(sd, u, e);
    LocalFree(sd);
    return rc;
}

/* Reads the file: size bytes as checked on the handle, plus one to notice a
 * file that is longer than it said (no one can write it while we hold it). */
static pg_err read_handle(HANDLE h, const char *u, size_t size, char **out, size_t *len, pg_error *e) {
    size_t cap = size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
    while (n < cap) {
        DWORD got = 0;
        if (!ReadFile(h, buf + n, (DWORD)(cap - n), &got, NULL)) {
            free(buf);
            return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot read %s: Windows error %lu", u,
                                (unsigned long)GetLastError());
        }
        if (got == 0) break;
        n += got;
    }
    if (n > size) {
        free(buf);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: %s changed while it was being read", u);
    }
    *out = buf;
    *len = n;
    return PG_OK;
}

static pg_err open_err(const char *u, pg_error *e) {
    DWORD err = GetLastError();
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
        return pg_error_set(e, PG_E_NOTFOUND, WIN_INSTALL_TIP, "policy file: %s does not exist", u);
    if (err == ERROR_ACCESS_DENIED)
        return pg_error_set(e, PG_E_BADINPUT, "grant the broker's account read access (icacls ... /grant)",
                            "policy file: cannot read %s: access denied", u);
    if (err == ERROR_SHARING_VIOLATION)
        return pg_error_set(e, PG_E_BADINPUT, "close the editor that holds it, then reload",
                            "policy file: %s is open for writing elsewhere", u);
    return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot open %s: Windows error %lu", u,
                        (unsigned long)err);
}

pg_err pg_policy_load(const char *path, pg_policy **out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_load: out is NULL");
    *out = NULL;
    pg_err rc = pg_policy_check_file(path, e);
    if (rc != PG_OK) return rc;
    wchar_t *w;
    char *u;
    if ((rc = full_path(path, &w, &u, e)) != PG_OK) return rc;
    /* No writer may share the file while it is read; a reparse point that
     * appeared since the check is opened as itself, not followed. */
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    free(w);
    char *buf = NULL;
    size_t n = 0;
    LONGLONG size = 0;
    if (h == INVALID_HANDLE_VALUE) rc = open_err(u, e);
    if (rc == PG_OK) rc = check_handle(h, u, &size, e);
    if (rc == PG_OK) rc = read_handle(h, u, (size_t)size, &buf, &n, e);
    if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
    free(u);
    if (rc != PG_OK) return rc;
    return pgp_file_finish_load(path, buf, n, !under_wine(), out, e);
}
