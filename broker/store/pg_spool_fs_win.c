/* SPDX-License-Identifier: MIT */
/* The token spool on Windows: CreateFileW/DeleteFileW on "DIR\NAME" while a
 * handle pins the directory; see pg_spool_fs.h. */
#include "pg_spool_fs.h"

#include <stdlib.h>
#include <wchar.h>
#include <windows.h>

#include "pg_utf8.h"

struct pg_spool_dir {
    HANDLE h;      /* the directory itself, held so it cannot be renamed away */
    wchar_t *path; /* "DIR\" */
    size_t len;    /* wchar_ts in path, without the NUL */
};

struct pg_spool_file {
    HANDLE h;
};


/* "DIR\NAME" (malloc'd) for a store name (ASCII hex, or FindFirstFileW's). */
static wchar_t *join(const pg_spool_dir *d, const wchar_t *name) {
    size_t n = wcslen(name);
    wchar_t *w = malloc((d->len + n + 1) * sizeof *w);
    if (!w) return NULL;
    wmemcpy(w, d->path, d->len);
    wmemcpy(w + d->len, name, n + 1);
    return w;
}

static wchar_t *join_utf8(const pg_spool_dir *d, const char *name) {
    wchar_t *wn = pg_utf8_to_wide(name, 0, NULL);
    wchar_t *w = wn ? join(d, wn) : NULL;
    free(wn);
    return w;
}

/* A handle opened with FILE_FLAG_OPEN_REPARSE_POINT names a link itself when
 * a link was planted: refuse those (and directories where a file is due). */
static BOOL is_plain(HANDLE h, BOOL want_dir) {
    BY_HANDLE_FILE_INFORMATION fi;
    if (!GetFileInformationByHandle(h, &fi)) return FALSE;
    if (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) return FALSE;
    return !!(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == want_dir;
}

pg_err pg_spool_dir_open(pg_spool_dir **out, const char *path, pg_error *e) {
    pg_spool_dir *d = calloc(1, sizeof *d);
    if (d) d->path = pg_utf8_to_wide(path, 2, &d->len);
    if (!d || !d->path) {
        free(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot open spool directory: out of memory or not UTF-8");
    }
    /* No FILE_SHARE_DELETE: the directory cannot be renamed or removed while held. */
    d->h = CreateFileW(d->path, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    DWORD err = d->h == INVALID_HANDLE_VALUE ? GetLastError() : 0;
    if (!err && !is_plain(d->h, TRUE)) err = ERROR_DIRECTORY;
    if (err) {
        if (d->h != INVALID_HANDLE_VALUE) CloseHandle(d->h);
        free(d->path);
        free(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot open spool directory (Windows error %lu%s)",
                            (unsigned long)err, err == ERROR_DIRECTORY ? ": a link or not a directory" : "");
    }
    if (d->len && d->path[d->len - 1] != L'\\' && d->path[d->len - 1] != L'/') d->path[d->len++] = L'\\';
    d->path[d->len] = 0;
    *out = d;
    return PG_OK;
}

void pg_spool_dir_close(pg_spool_dir *d) {
    if (!d) return;
    CloseHandle(d->h);
    free(d->path);
    free(d);
}

void pg_spool_dir_clear(pg_spool_dir *d) {
    wchar_t *pat = join(d, L"*");
    WIN32_FIND_DATAW fd;
    HANDLE fh = pat ? FindFirstFileExW(pat, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL, 0) : INVALID_HANDLE_VALUE;
    free(pat);
    if (fh == INVALID_HANDLE_VALUE) return;
    do {
        /* files only (a link is deleted as itself, never its target) */
        if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) continue;
        wchar_t *p = join(d, fd.cFileName);
        if (p) DeleteFileW(p);
        free(p);
    } while (FindNextFileW(fh, &fd));
    FindClose(fh);
}

static pg_err write_all(HANDLE h, const uint8_t *p, size_t n, pg_error *e) {
    while (n) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, w = 0;
        if (!WriteFile(h, p, chunk, &w, NULL) || w == 0)
            return pg_error_set(e, PG_E_INTERNAL, "free space in the broker's state directory or lower --max-size",
                                "cannot write capture to the spool (Windows error %lu)", (unsigned long)GetLastError());
        p += w;
        n -= w;
    }
    return PG_OK;
}

pg_err pg_spool_put(pg_spool_dir *d, const char *name, const uint8_t *p, size_t n, pg_error *e) {
    wchar_t *path = join_utf8(d, name);
    if (!path) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    /* CREATE_NEW fails on anything already there, a planted link included;
     * share mode 0: nobody else opens it while it is being written. */
    HANDLE h = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_NEW,
                           FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD err = GetLastError();
        free(path);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create spool file (Windows error %lu)", (unsigned long)err);
    }
    pg_err rc = write_all(h, p, n, e);
    if (!CloseHandle(h) && !rc)
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "spool write failed (Windows error %lu)", (unsigned long)GetLastError());
    if (rc) DeleteFileW(path);
    free(path);
    return rc;
}

pg_err pg_spool_open(pg_spool_dir *d, const char *name, pg_spool_file **out, pg_error *e) {
    wchar_t *path = join_utf8(d, name);
    pg_spool_file *f = path ? malloc(sizeof *f) : NULL;
    if (!f) {
        free(path);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    /* FILE_SHARE_DELETE: a concurrent sweep may delete it while we read. */
    f->h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                       FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_SEQUENTIAL_SCAN, NULL);
    free(path);
    DWORD err = f->h == INVALID_HANDLE_VALUE ? GetLastError() : 0;
    if (!err && !is_plain(f->h, FALSE)) err = ERROR_CANT_ACCESS_FILE;
    if (err) {
        if (f->h != INVALID_HANDLE_VALUE) CloseHandle(f->h);
        free(f);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "spool file vanished (Windows error %lu)", (unsigned long)err);
    }
    *out = f;
    return PG_OK;
}

pg_err pg_spool_read(pg_spool_file *f, uint8_t *p, size_t n, pg_error *e) {
    while (n) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, r = 0;
        if (!ReadFile(f->h, p, chunk, &r, NULL) || r == 0)
            return pg_error_set(e, PG_E_INTERNAL, NULL, "spool file is short or unreadable");
        p += r;
        n -= r;
    }
    return PG_OK;
}

void pg_spool_close(pg_spool_file *f) {
    if (!f) return;
    CloseHandle(f->h);
    free(f);
}

void pg_spool_unlink(pg_spool_dir *d, const char *name) {
    wchar_t *path = join_utf8(d, name);
    if (path) DeleteFileW(path);
    free(path);
}
