/* SPDX-License-Identifier: MIT */
/* pg_spool_fs.h - the token spool's file operations, one implementation per
 * platform (internal to pg_store; pg_token.c is the only caller).
 *
 * pg_spool_fs_posix.c: a directory fd opened O_DIRECTORY|O_NOFOLLOW, files by
 *   openat/unlinkat relative to it (O_EXCL|O_NOFOLLOW, mode 0600).
 * pg_spool_fs_win.c: a handle on the directory (FILE_FLAG_BACKUP_SEMANTICS,
 *   no FILE_SHARE_DELETE, so it cannot be renamed or replaced while the store
 *   is open); files by CreateFileW on "DIR\NAME" with CREATE_NEW,
 *   FILE_ATTRIBUTE_TEMPORARY, share mode 0 while writing and
 *   FILE_FLAG_OPEN_REPARSE_POINT (a planted link is opened as itself and
 *   refused, never followed); DeleteFileW; FindFirstFileW for the start-up
 *   cleanup. Readers share FILE_SHARE_DELETE, so a concurrent sweep can delete
 *   a file being read, as unlinkat can on POSIX.
 * Names are the store's random hex names, never client input.
 * Never: follows a link, returns a path to the store's callers.
 */
#ifndef PG_SPOOL_FS_H
#define PG_SPOOL_FS_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

typedef struct pg_spool_dir pg_spool_dir;
typedef struct pg_spool_file pg_spool_file;

/* Opens the (existing) spool directory; a link in its place is refused. */
pg_err pg_spool_dir_open(pg_spool_dir **out, const char *path, pg_error *e);
void pg_spool_dir_close(pg_spool_dir *d);
/* Removes every file in the directory (orphans of an earlier run). */
void pg_spool_dir_clear(pg_spool_dir *d);

/* Creates name (must not exist), writes n bytes, closes it. On failure
 * nothing is left behind. */
pg_err pg_spool_put(pg_spool_dir *d, const char *name, const uint8_t *p, size_t n, pg_error *e);
/* Opens name for reading (not through a link). */
pg_err pg_spool_open(pg_spool_dir *d, const char *name, pg_spool_file **out, pg_error *e);
/* Reads exactly n bytes from the current position. */
pg_err pg_spool_read(pg_spool_file *f, uint8_t *p, size_t n, pg_error *e);
void pg_spool_close(pg_spool_file *f);
/* Removes name; no-op when it is gone. */
void pg_spool_unlink(pg_spool_dir *d, const char *name);

#endif
