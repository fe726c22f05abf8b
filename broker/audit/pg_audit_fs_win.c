/* SPDX-License-Identifier: MIT */
/* The audit log's file operations on Windows; see pg_audit_fs.h. */
#include "pg_audit_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>
#include <sddl.h>

#include "pg_audit.h" /* PG_AUDIT_LOCK_OFFSET */
#include "pg_utf8.h"

struct pg_audit_fs_dir {
    HANDLE h;      /* the directory, held without FILE_SHARE_DELETE */
    wchar_t *path; /* "DIR\" */
    size_t len;
};

/* GetLastError() as an errno value, so pg_audit.c has one error path. */
static int pg_audit_fs_errno(DWORD err) {
    switch (err) {
    case ERROR_SUCCESS: return 0;
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME: return ENOENT;
    case ERROR_ACCESS_DENIED: return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION: return EBUSY;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_WRITE_PROTECT: return EROFS;
    case ERROR_DIRECTORY: return ENOTDIR;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: return ENOMEM;
    default: return EIO;
    }
}

static int last_errno(void) { return pg_audit_fs_errno(GetLastError()); }


static void narrow(const wchar_t *w, char *out, size_t n) {
    if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)n, NULL, NULL) && n) out[0] = 0;
}

/* "DIR\NAME", malloc'd; names are the log's own (base name + suffix). */
static wchar_t *join(const pg_audit_fs_dir *d, const char *name) {
    size_t n;
    wchar_t *wn = pg_utf8_to_wide(name, 0, &n);
    wchar_t *w = wn ? malloc((d->len + n + 1) * sizeof *w) : NULL;
    if (w) {
        wmemcpy(w, d->path, d->len);
        wmemcpy(w + d->len, wn, n + 1);
    }
    free(wn);
    return w;
}

/* A handle opened with FILE_FLAG_OPEN_REPARSE_POINT is the link itself when
 * the name is a link: 0 for a plain file (or directory, want_dir), else ELOOP
 * for a link, EINVAL for the wrong kind. */
static int plain(HANDLE h, bool want_dir) {
    BY_HANDLE_FILE_INFORMATION fi;
    if (!GetFileInformationByHandle(h, &fi)) return last_errno();
    if (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) return ELOOP;
    if (!!(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != want_dir) return want_dir ? ENOTDIR : EINVAL;
    if (!want_dir && GetFileType(h) != FILE_TYPE_DISK) return EINVAL;
    return 0;
}

int pg_audit_fs_dir_open(const char *path, bool nofollow, pg_audit_fs_dir **out) {
    pg_audit_fs_dir *d = calloc(1, sizeof *d);
    if (d) d->path = pg_utf8_to_wide(path, 2, &d->len);
    if (!d || !d->path) {
        free(d);
        return d ? ENOENT : ENOMEM; /* not UTF-8: no such name */
    }
    DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
    d->h = CreateFileW(d->path, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                       OPEN_EXISTING, flags, NULL);
    int err = d->h == INVALID_HANDLE_VALUE ? last_errno() : plain(d->h, true);
    if (err) {
        if (d->h != INVALID_HANDLE_VALUE) CloseHandle(d->h);
        free(d->path);
        free(d);
        return err;
    }
    if (d->len && d->path[d->len - 1] != L'\\' && d->path[d->len - 1] != L'/') d->path[d->len++] = L'\\';
    d->path[d->len] = 0;
    *out = d;
    return 0;
}

void pg_audit_fs_dir_close(pg_audit_fs_dir *d) {
    if (!d) return;
    CloseHandle(d->h);
    free(d->path);
    free(d);
}

const char *pg_audit_fs_dir_unsafe(pg_audit_fs_dir *d, char *buf, size_t n) { return NULL; /* DACLs: broker/os/win */ }

/* MoveFileExW(WRITE_THROUGH) returns after the rename is on disk. */
void pg_audit_fs_dir_sync(pg_audit_fs_dir *d) {}

bool pg_audit_fs_exists(pg_audit_fs_dir *d, const char *name) {
    wchar_t *p = join(d, name);
    bool yes = p && GetFileAttributesW(p) != INVALID_FILE_ATTRIBUTES; /* a link's own attributes */
    free(p);
    return yes;
}

int pg_audit_fs_unlink(pg_audit_fs_dir *d, const char *name) {
    wchar_t *p = join(d, name);
    int err = !p ? ENOMEM : DeleteFileW(p) ? 0 : last_errno();
    free(p);
    return err;
}

int pg_audit_fs_rename(pg_audit_fs_dir *d, const char *from, const char *to) {
    wchar_t *f = join(d, from), *t = join(d, to);
    int err = !f || !t ? ENOMEM : MoveFileExW(f, t, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : last_errno();
    free(f);
    free(t);
    return err;
}

int pg_audit_fs_open(pg_audit_fs_dir *d, const char *name, pg_audit_fs_mode mode, pg_audit_fs_file *out) {
    static const struct {
        DWORD access, share, disposition;
    } m[] = {
        /* readers never stand in the broker's way: it may write and rotate meanwhile */
        [PG_AUDIT_FS_READ] = {GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, OPEN_EXISTING},
        /* the live file: others may read it and rotation may rename it; nobody else writes */
        [PG_AUDIT_FS_LIVE] = {GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, OPEN_ALWAYS},
        [PG_AUDIT_FS_LIVE_NEW] = {GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, CREATE_NEW},
        [PG_AUDIT_FS_NEW] = {GENERIC_WRITE, 0, CREATE_NEW},
    };
    *out = PG_AUDIT_FS_CLOSED;
    wchar_t *p = join(d, name);
    if (!p) return ENOMEM;
    HANDLE h = CreateFileW(p, m[mode].access, m[mode].share, NULL, m[mode].disposition,
                           FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD werr = GetLastError();
        DWORD attrs = GetFileAttributesW(p);
        free(p);
        /* a directory cannot be opened as a file: say "not a regular file" */
        if (werr == ERROR_ACCESS_DENIED && attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY))
            return EINVAL;
        return pg_audit_fs_errno(werr);
    }
    free(p);
    int err = plain(h, false);
    if (err) {
        CloseHandle(h);
        return err;
    }
    out->h = (intptr_t)h;
    return 0;
}

void pg_audit_fs_close(pg_audit_fs_file *f) {
    if (f->h != -1) CloseHandle((HANDLE)f->h);
    f->h = -1;
}

const char *pg_audit_fs_file_unsafe(pg_audit_fs_file f) {
    return NULL; /* plain() checked the kind; DACLs: broker/os/win */
}

int pg_audit_fs_lock(pg_audit_fs_file f) {
    OVERLAPPED ov = {0};
    ov.Offset = (DWORD)(PG_AUDIT_LOCK_OFFSET & 0xFFFFFFFFu);
    ov.OffsetHigh = (DWORD)(PG_AUDIT_LOCK_OFFSET >> 32);
    if (LockFileEx((HANDLE)f.h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov)) return 0;
    return last_errno();
}

int pg_audit_fs_size(pg_audit_fs_file f, uint64_t *size) {
    LARGE_INTEGER li;
    if (!GetFileSizeEx((HANDLE)f.h, &li)) return last_errno();
    *size = (uint64_t)li.QuadPart;
    return 0;
}

int pg_audit_fs_pread(pg_audit_fs_file f, void *buf, size_t n, uint64_t off) {
    uint8_t *p = buf;
    while (n) {
        OVERLAPPED ov = {0};
        ov.Offset = (DWORD)(off & 0xFFFFFFFFu);
        ov.OffsetHigh = (DWORD)(off >> 32);
        DWORD r = 0, chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n;
        if (!ReadFile((HANDLE)f.h, p, chunk, &r, &ov)) return GetLastError() == ERROR_HANDLE_EOF ? EIO : last_errno();
        if (r == 0) return EIO; /* short file */
        p += r;
        n -= r;
        off += r;
    }
    return 0;
}

int pg_audit_fs_append(pg_audit_fs_file f, const void *buf, size_t n, size_t *done) {
    *done = 0;
    if (n > MAXDWORD) return EFBIG;
    OVERLAPPED ov = {0};
    ov.Offset = ov.OffsetHigh = 0xFFFFFFFFu; /* write at end of file (FILE_APPEND_DATA semantics) */
    DWORD w = 0;
    if (!WriteFile((HANDLE)f.h, buf, (DWORD)n, &w, &ov)) {
        *done = w;
        return last_errno();
    }
    *done = w;
    return 0;
}

int pg_audit_fs_read(pg_audit_fs_file f, void *buf, size_t n, size_t *got) {
    DWORD r = 0, chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n;
    *got = 0;
    if (!ReadFile((HANDLE)f.h, buf, chunk, &r, NULL)) return GetLastError() == ERROR_HANDLE_EOF ? 0 : last_errno();
    *got = r;
    return 0;
}

int pg_audit_fs_sync(pg_audit_fs_file f) { return FlushFileBuffers((HANDLE)f.h) ? 0 : last_errno(); }

int pg_audit_fs_truncate(pg_audit_fs_file f, uint64_t size) {
    LARGE_INTEGER li;
    li.QuadPart = (LONGLONG)size;
    if (!SetFilePointerEx((HANDLE)f.h, li, NULL, FILE_BEGIN) || !SetEndOfFile((HANDLE)f.h)) return last_errno();
    return 0;
}

/* The allocation size (clusters held for the file) past its end: appends
 * into it need no new space. NTFS keeps it while the file is open. */
int pg_audit_fs_reserve(pg_audit_fs_file f, uint64_t size, uint64_t len) {
    FILE_ALLOCATION_INFO ai;
    ai.AllocationSize.QuadPart = (LONGLONG)(size + len);
    if (SetFileInformationByHandle((HANDLE)f.h, FileAllocationInfo, &ai, sizeof ai)) return 0;
    DWORD err = GetLastError();
    if (err == ERROR_DISK_FULL || err == ERROR_HANDLE_DISK_FULL) return ENOSPC;
    return 0; /* a filesystem without allocation sizes: nothing to reserve */
}

/* The process token's user SID as a string ("" when it cannot be read). */
static void self_sid(char *out, size_t n) {
    out[0] = 0;
    HANDLE tok;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) return;
    union {
        TOKEN_USER tu;
        uint8_t raw[512];
    } u;
    DWORD len = 0;
    wchar_t *s = NULL;
    if (GetTokenInformation(tok, TokenUser, &u, sizeof u, &len) && ConvertSidToStringSidW(u.tu.User.Sid, &s)) {
        narrow(s, out, n);
        LocalFree(s);
    }
    CloseHandle(tok);
}

void pg_audit_fs_self_get(pg_audit_fs_self *s) {
    s->uid = 0; /* Windows has no uid; the SID says who */
    s->pid = (int64_t)GetCurrentProcessId();
    wchar_t w[MAX_PATH + 1];
    DWORD n = sizeof w / sizeof w[0];
    if (GetUserNameW(w, &n)) narrow(w, s->user, sizeof s->user);
    else snprintf(s->user, sizeof s->user, "unknown");
    self_sid(s->sid, sizeof s->sid);
    wchar_t exe[4096];
    DWORD k = GetModuleFileNameW(NULL, exe, sizeof exe / sizeof exe[0]);
    if (k > 0 && k < sizeof exe / sizeof exe[0]) narrow(exe, s->exe, sizeof s->exe);
    else snprintf(s->exe, sizeof s->exe, "pixelgated.exe");
}
