/* SPDX-License-Identifier: MIT */
/* pg_audit_journal.h - a copy of each audit record for the systemd journal
 * (internal to pg_audit; pg_audit.c is the only caller; docs/audit.md).
 *
 * What it does
 *   pg_journal_encode turns one record, as written to the chained file (its
 *   cJSON, already stamped and cleaned), plus its SHA-256, into one datagram
 *   of journald's native protocol: "KEY=value\n" per field, or for a value
 *   holding a newline "KEY\n" + its length (64-bit little-endian) + the bytes
 *   + "\n". Fields: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, MESSAGE_ID and
 *   PIXELGATE_AUDIT_SEQ / _HASH / _PREV / _TIME, PIXELGATE_UID / _USER / _PID
 *   / _EXE / _COMM / _SID, PIXELGATE_OP, PIXELGATE_WINDOW_ID / _CLASS,
 *   PIXELGATE_IMAGE_SHA256, PIXELGATE_DISPOSITION (the kind) and
 *   PIXELGATE_TOKEN_PREFIX / _ENDPOINT / _MODE / _REQUEST_ID, PIXELGATE_OUTCOME;
 *   the log's own records' disposition keys as PIXELGATE_D_<KEY>.
 *   PIXELGATE_WINDOW_TITLE and the free-text PIXELGATE_REASON / _DETAIL
 *   (which may quote a title) only when titles is set.
 *   pg_journal_send (per platform) sends one datagram without blocking.
 *
 * What it never does
 *   Blocks (a busy or absent journald is a failed send the caller counts),
 *   or sends anything the record does not hold.
 */
#ifndef PG_AUDIT_JOURNAL_H
#define PG_AUDIT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#include "pg_error.h"

#define PG_JOURNAL_SOCKET "/run/systemd/journal/socket"
/* journalctl MESSAGE_ID=... finds every pixelgate audit record */
#define PG_JOURNAL_MESSAGE_ID "e0f7413aef8f404b824716333fbbc0b1"

/* The datagram (malloc'd, *len bytes) for a record and its hash (64 hex). */
pg_err pg_journal_encode(const cJSON *record, const char *hash_hex, bool titles, char **out, size_t *len,
                         pg_error *e);

typedef struct pg_journal pg_journal;
/* A sender to socket_path (an AF_UNIX datagram socket). Windows:
 * PG_E_UNSUPPORTED (there is no journal). */
pg_err pg_journal_new(pg_journal **out, const char *socket_path, pg_error *e);
/* One datagram, never blocking: 0, or the errno of the failure. */
int pg_journal_send(pg_journal *j, const char *data, size_t len);
void pg_journal_free(pg_journal *j);

#endif
