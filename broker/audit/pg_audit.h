/* SPDX-License-Identifier: MIT */
/* pg_audit.h - the tamper-evident audit log (docs/audit.md).
 *
 * Append-only JSON Lines, one record per capture, analysis, OCR, judgement,
 * release, approval, refusal and input injection. Every record carries, in
 * this fixed key order:
 *   seq           1, 2, 3 ... continuous for the life of the log, across rotations
 *   time          ISO 8601 UTC with milliseconds, "2025-06-01T12:34:56.789Z"
 *   principal     {uid, user, pid, exe} (or "comm" in place of "exe")
 *   op            the operation ("snapshot", "analyze", ...; "audit.*" is ours)
 *   window        {id, title, class} or null
 *   image_sha256  64 hex or null
 *   disposition   {kind, then whichever of token (first 8 chars only),
 *                 endpoint, mode, request_id, reason, detail were given}
 *   outcome       "OK" or the pg_err name ("POLICY_REFUSED", ...); "INTENT" for a
 *                 record of intent written before an effect (its outcome
 *                 follows in a later record whose disposition.intent names it)
 *   prev          SHA-256 hex of the previous record's exact bytes (its line
 *                 without the newline); the first record of a fresh log chains
 *                 from PG_AUDIT_GENESIS (64 zeros).
 *
 * Files: PATH is the live log; rotated files are PATH.1 (newest) .. PATH.10
 * (oldest, PG_AUDIT_KEEP); the oldest is deleted on rotation. A new live file
 * starts with an "audit.rotate" header record whose prev is the hash of the
 * last record of PATH.1, so the chain runs unbroken across files. A torn last
 * line found at open (crash mid-write) is saved to PATH.torn.SEQ, cut off, and
 * an "audit.repair" record (size and SHA-256 of the torn bytes) is appended.
 *
 * Contract: pg_audit_append returns only after the record is written with one
 * write(2) and fdatasync'd; on any failure it returns an error (PG_E_INTERNAL,
 * e.g. disk full), the file is cut back to its last whole record, and the
 * broker must refuse the operation. With group commit (pg_audit_set_flush)
 * a record that is not a record of intent returns once written (in the
 * file, safe from a crash of the broker) and is fdatasync'd by a flusher
 * thread within the interval, together with every record written since;
 * records of intent, audit.* records and rotation still sync before they
 * return, and so make every earlier record durable too. A failed deferred
 * fdatasync refuses every later append until one succeeds. Thread-safe (one mutex per log; appends
 * are serialised, fsync included). One process per log (flock).
 * Files are created 0600 and never through a symlink (O_NOFOLLOW, openat on
 * the directory); the directory must be owned by the broker and not writable
 * by group or others (the broker's 0700 state dir).
 * Windows (pg_audit_fs_win.c; pg_audit_fs.h has the details): the same
 * records, chain, rotation, repair and verify. A record is one WriteFile at
 * end of file followed by FlushFileBuffers (in place of write + fdatasync);
 * the one-process lock is LockFileEx on the byte at PG_AUDIT_LOCK_OFFSET (in
 * place of flock), and the live file denies write sharing to anyone else;
 * rotation renames with MoveFileExW(REPLACE_EXISTING|WRITE_THROUGH); links
 * (reparse points) are opened as themselves and refused, never followed.
 * There is no uid or mode on Windows: file and directory access is the DACL
 * of the broker's state directory, which the broker sets (broker/os/win); this
 * module does not check it. The log's own records carry uid 0 and the
 * broker's SID ("sid"); the broker passes each client's principal in.
 * Never: records a whole token, follows a symlink, rewrites a record, or
 * reports success for a record that is not in the file (not on disk, unless
 * group commit was asked for, and never for a record of intent).
 */
#ifndef PG_AUDIT_H
#define PG_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pg_error.h"

#define PG_AUDIT_KEEP 10           /* rotated files kept: PATH.1 .. PATH.10 */
#define PG_AUDIT_TOKEN_PREFIX 8    /* chars of a token that are recorded */
#define PG_AUDIT_LINE_MAX (1u << 20) /* verify refuses longer lines */
#define PG_AUDIT_ANCHOR_MAX 96     /* "SEQ:HASH" + NUL */
#define PG_AUDIT_GENESIS "0000000000000000000000000000000000000000000000000000000000000000"
/* Windows: the byte LockFileEx locks, far past any record, because Windows
 * locks are mandatory and would stop readers of locked bytes. */
#define PG_AUDIT_LOCK_OFFSET ((uint64_t)0x7FFFFFFF00000000ull)

typedef struct pg_audit pg_audit;

/* Who asked: from the kernel (pg_peer), never from the request. Recorded as
 * {uid, sid (only when given), user, pid, exe or comm}. */
typedef struct {
    uint32_t uid;          /* uid_t on POSIX; on Windows the broker's uid for the SID */
    const char *user;      /* NULL: null */
    int64_t pid;
    const char *exe;       /* executable path; NULL: "comm" is recorded instead */
    const char *comm;      /* /proc/PID/comm */
    const char *sid;       /* Windows: the user's SID string; NULL (POSIX): no "sid" key */
} pg_audit_principal;

typedef struct {
    uint64_t id;
    const char *title;     /* NULL: null */
    const char *cls;       /* recorded as "class"; NULL: null */
} pg_audit_window;

typedef struct {
    const char *kind;      /* required: token analyze ocr judge release refused input approve ... */
    const char *token;     /* only the first PG_AUDIT_TOKEN_PREFIX chars are recorded */
    const char *endpoint;  /* endpoint name (analyze, ocr, judge) */
    const char *mode;      /* release mode ("png", "base64") */
    const char *request_id;/* approval request */
    const char *reason;    /* refusal reason */
    const char *detail;    /* free text: judgement verdict, input action ... */
    const char *intent;    /* an outcome's intent record, "SEQ:HASH" (pg_audit_append_at), recorded as "intent" */
} pg_audit_disposition;

/* Strings are copied; invalid UTF-8 becomes U+FFFD, characters that reorder
 * or hide text for a reader (bidi controls, U+2028/2029, C1 controls, DEL,
 * zero-width and other format characters) become the text "<U+XXXX>", and
 * long strings are cut (title 1024 bytes, others 256, exe 4096). Optional
 * fields NULL. */
typedef struct {
    pg_audit_principal principal;
    const char *op;                 /* required; may not start with "audit." */
    const pg_audit_window *window;  /* NULL: "window":null */
    const char *image_sha256;       /* 64 lower-case hex, or NULL */
    pg_audit_disposition disposition;
    pg_err outcome;                 /* PG_OK: "OK" */
    bool intent;                    /* a record of intent: "outcome":"INTENT" (outcome is ignored) */
} pg_audit_event;

/* Opens or creates PATH (0600, O_APPEND, O_NOFOLLOW) and recovers seq and
 * prev from its tail (from PATH.1 if PATH is missing or empty, writing the
 * rotation header). A torn last line is moved aside and the repair recorded.
 * rotate_bytes: rotate before a record would take the file past it; 0 never.
 * Errors: PG_E_BADINPUT (symlink, not a regular file, wrong owner or mode,
 * unsafe directory, unreadable last record, log in use by another process),
 * PG_E_NOTFOUND (directory missing), PG_E_INTERNAL (I/O). */
pg_err pg_audit_open(pg_audit **out, const char *path, uint64_t rotate_bytes, pg_error *e);

/* Group commit: 0 (the default) syncs every record before append returns;
 * N in 1..PG_AUDIT_FLUSH_MAX_MS lets records other than intent be synced by
 * a flusher thread within N ms (auditd's incremental_async, with the records
 * of effects kept synchronous). May be called again to change it. */
#define PG_AUDIT_FLUSH_MAX_MS 1000u
pg_err pg_audit_set_flush(pg_audit *a, uint32_t group_ms, pg_error *e);
/* fdatasyncs of appended records so far (the cost group commit saves). */
uint64_t pg_audit_sync_count(pg_audit *a);

/* Appends one record; see the contract above. PG_E_USAGE: event misses op or
 * kind, uses an "audit." op, or has a malformed image_sha256 (a caller bug). */
pg_err pg_audit_append(pg_audit *a, const pg_audit_event *ev, pg_error *e);

/* pg_audit_append that also says where the record went: its anchor
 * "SEQ:HASH" into at (NULL: not wanted). An outcome that follows a record of
 * intent names it in disposition.intent. */
pg_err pg_audit_append_at(pg_audit *a, const pg_audit_event *ev, char at[PG_AUDIT_ANCHOR_MAX], pg_error *e);

/* Record, then act: makes sure the next `bytes` of records will fit before
 * anything is done that they describe. Rotates first when they would pass
 * rotate_bytes, then reserves the space past the end of the live file
 * (POSIX: fallocate KEEP_SIZE, and the process's RLIMIT_FSIZE is honoured;
 * Windows: the file's allocation size), so a later append cannot fail for
 * lack of space. PG_E_INTERNAL (disk full, file size limit) when it cannot:
 * the broker then refuses before any effect. */
pg_err pg_audit_reserve(pg_audit *a, uint64_t bytes, pg_error *e);
#define PG_AUDIT_RECORD_MAX (64u << 10) /* the most one record takes, escapes included */

/* The current anchor "SEQ:HASH" (seq and hash of the last record; "0:" +
 * genesis for an empty log). The broker writes it to its journal after every
 * append, so a verifier holding a later anchor can detect whole records cut
 * from the end, which the chain alone cannot. */
void pg_audit_anchor(pg_audit *a, char out[PG_AUDIT_ANCHOR_MAX]);

/* Also send every record, once it is in the log file, to the systemd journal as
 * structured fields (journald's native protocol on socket_path; NULL: the
 * system's /run/systemd/journal/socket), so a fleet's log shipping carries
 * it (docs/audit.md "Copies in the journal"). Fields: seq, the record's hash
 * and prev, time, principal, op, window id and class, image digest,
 * disposition and outcome; the window title and the free-text reason and
 * detail only with with_titles, since journal readers (the adm group) are
 * not the administrator alone. enable false stops it. Best effort: the
 * chained file stays the record of truth; a copy that cannot be sent (no
 * journald, a full socket) never blocks or refuses anything and is counted
 * (pg_audit_journal_failures). Windows: PG_E_UNSUPPORTED. */
pg_err pg_audit_set_journal(pg_audit *a, bool enable, const char *socket_path, bool with_titles, pg_error *e);
/* Copies that could not be sent so far; *last_errno (may be NULL) the last reason. */
uint64_t pg_audit_journal_failures(pg_audit *a, int *last_errno);

void pg_audit_close(pg_audit *a); /* NULL is fine */

typedef struct {
    /* what verified */
    uint64_t records;          /* whole records whose chain checked */
    uint64_t first_seq;        /* 0 when empty */
    uint64_t last_seq;
    char last_hash[65];        /* hash of record last_seq (anchor form: last_seq:last_hash) */
    unsigned files;            /* files walked, oldest first */
    bool from_genesis;         /* first record is seq 1; else older files were rotated out */
    uint64_t repairs;          /* audit.repair records: torn tails cut off at an open */
    uint64_t torn_tail_bytes;  /* unterminated bytes at the end of the live file (crash
                                  since the last open); not counted, not an error */
    bool anchor_given;
    bool anchor_checked;       /* the anchor's record was found and compared */
    /* the first broken or missing record (PG_E_ASSERT) */
    char bad_file[512];
    uint64_t first_bad_line;   /* 1-based line in bad_file; 0: none */
    uint64_t first_bad_seq;    /* the seq expected there */
    char reason[256];
} pg_audit_report;

typedef struct {
    const char *anchor;        /* "SEQ:HASH" from the journal, or NULL */
    bool single_file;          /* check PATH alone, without PATH.1 .. PATH.10 */
} pg_audit_verify_opts;

/* Walks the chain through PATH.10 .. PATH.1 (those present) then PATH.
 * PG_OK: intact (r says how far and any torn tail or repairs);
 * PG_E_ASSERT: broken - r->bad_file/first_bad_line/reason name the first
 * edited, deleted, reordered or (against the anchor) truncated record;
 * PG_E_NOTFOUND: no such log; PG_E_USAGE: malformed anchor;
 * PG_E_BADINPUT: a symlink or non-regular file; PG_E_INTERNAL: read error.
 * r is filled in every case. Opens read-only, never through a symlink. */
pg_err pg_audit_verify(const char *path, const pg_audit_verify_opts *o, pg_audit_report *r, pg_error *e);
/* pg_audit_verify with default options (rotated files, no anchor). */
pg_err pg_audit_verify_file(const char *path, pg_audit_report *r, pg_error *e);

/* One-paragraph human report of r for `pixelgated --verify-audit`. */
void pg_audit_report_format(const pg_audit_report *r, pg_err rc, char *buf, size_t n);

#endif
