/* SPDX-License-Identifier: MIT */
/* pg_audit_fs.h - the audit log's file operations, one implementation per
 * platform (internal to pg_audit; pg_audit.c is the only caller).
 *
 * Errors are errno values (0: success) on both platforms, so pg_audit.c has
 * one error path; the Windows side maps GetLastError() (pg_audit_fs_errno).
 *
 * pg_audit_fs_posix.c: a directory fd (O_DIRECTORY, O_NOFOLLOW when asked),
 *   openat/renameat/unlinkat relative to it, O_NOFOLLOW everywhere, files
 *   0600, flock(LOCK_EX|LOCK_NB), one write(2) at O_APPEND, fdatasync, fsync
 *   of the directory after renames.
 * pg_audit_fs_win.c: a handle pins the directory (no FILE_SHARE_DELETE: it
 *   cannot be renamed away while the log is open); files are "DIR\NAME" by
 *   CreateFileW with FILE_FLAG_OPEN_REPARSE_POINT, and a handle that turns out
 *   to be a link is refused (ELOOP), never followed. The live file is shared
 *   FILE_SHARE_READ|FILE_SHARE_DELETE only: readers (verify) may read while the
 *   broker writes and rotation may rename it, nobody else may write it. Each
 *   record is one WriteFile at end of file (offset 0xFFFFFFFF:FFFFFFFF, the
 *   documented FILE_APPEND_DATA equivalent), then FlushFileBuffers. The lock
 *   is LockFileEx(EXCLUSIVE|FAIL_IMMEDIATELY) on one byte at
 *   PG_AUDIT_LOCK_OFFSET, far past any data: Windows locks are mandatory, so
 *   locking real bytes would stop verify from reading them. Renames are
 *   MoveFileExW(REPLACE_EXISTING|WRITE_THROUGH), so the directory needs no
 *   separate flush. Owner and ACL are not checked here (no uid/mode on
 *   Windows): the broker creates its state directory with a protected DACL
 *   (broker/os/win) and files inherit it.
 */
#ifndef PG_AUDIT_FS_H
#define PG_AUDIT_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#define PG_AUDIT_FS_SEP '\\'
#else
#define PG_AUDIT_FS_SEP '/'
#endif

typedef struct pg_audit_fs_dir pg_audit_fs_dir;
typedef struct {
    intptr_t h; /* fd, or HANDLE; -1 when closed (INVALID_HANDLE_VALUE is -1 too) */
} pg_audit_fs_file;
#define PG_AUDIT_FS_CLOSED ((pg_audit_fs_file){-1})

typedef enum {
    PG_AUDIT_FS_READ,     /* read-only; must be a regular file (EINVAL) */
    PG_AUDIT_FS_LIVE,     /* read/write, append, created 0600 if missing */
    PG_AUDIT_FS_LIVE_NEW, /* as LIVE, but must not exist yet (EEXIST) */
    PG_AUDIT_FS_NEW,      /* write-only, must not exist yet, 0600 */
} pg_audit_fs_mode;

/* nofollow: a link in place of the directory's last component is refused. */
int pg_audit_fs_dir_open(const char *path, bool nofollow, pg_audit_fs_dir **out);
void pg_audit_fs_dir_close(pg_audit_fs_dir *d); /* NULL is fine */
/* NULL when only the broker's user can write the directory, else why not
 * (written into buf). Windows: always NULL (see the contract above). */
const char *pg_audit_fs_dir_unsafe(pg_audit_fs_dir *d, char *buf, size_t n);
void pg_audit_fs_dir_sync(pg_audit_fs_dir *d);
bool pg_audit_fs_exists(pg_audit_fs_dir *d, const char *name); /* a link counts; not followed */
int pg_audit_fs_unlink(pg_audit_fs_dir *d, const char *name);
int pg_audit_fs_rename(pg_audit_fs_dir *d, const char *from, const char *to); /* replaces to */

int pg_audit_fs_open(pg_audit_fs_dir *d, const char *name, pg_audit_fs_mode mode, pg_audit_fs_file *out);
void pg_audit_fs_close(pg_audit_fs_file *f); /* sets it closed; closed is fine */
/* NULL when f is a regular file owned by the broker's user with no group or
 * other access; else why not. */
const char *pg_audit_fs_file_unsafe(pg_audit_fs_file f);
int pg_audit_fs_lock(pg_audit_fs_file f); /* exclusive, non-blocking: EBUSY/EWOULDBLOCK when held */
int pg_audit_fs_size(pg_audit_fs_file f, uint64_t *size);
/* All n bytes, or an error (EIO: short). */
int pg_audit_fs_pread(pg_audit_fs_file f, void *buf, size_t n, uint64_t off);
/* One write of n bytes at the end of the file; *done gets what was written. */
int pg_audit_fs_append(pg_audit_fs_file f, const void *buf, size_t n, size_t *done);
int pg_audit_fs_read(pg_audit_fs_file f, void *buf, size_t n, size_t *got); /* sequential; *got 0 at end */
int pg_audit_fs_sync(pg_audit_fs_file f);                                   /* data on disk */
int pg_audit_fs_truncate(pg_audit_fs_file f, uint64_t size);
/* Reserves the blocks of [size, size + len) past the end of the file without
 * changing its size, so appends into them cannot run out of space.
 * ENOSPC/EFBIG (POSIX also for a file size limit) when they cannot be had;
 * 0 where the filesystem cannot reserve but has the room now. */
int pg_audit_fs_reserve(pg_audit_fs_file f, uint64_t size, uint64_t len);

/* The broker process itself, for the log's own records. */
typedef struct {
    uint32_t uid;    /* POSIX euid; Windows 0 (see sid) */
    int64_t pid;
    char user[64];
    char sid[192];   /* Windows: the process token's user SID; POSIX "" */
    char exe[4096];
} pg_audit_fs_self;
void pg_audit_fs_self_get(pg_audit_fs_self *s);

#endif
