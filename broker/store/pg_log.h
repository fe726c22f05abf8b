/* SPDX-License-Identifier: MIT */
/* pg_log.h - broker logging to stderr (journald picks it up under systemd).
 * One line per event: "pixelgated[LEVEL] message". Thread-safe (one fprintf
 * per line). Never logs pixels, spool paths given to clients, or tokens in
 * full (see pg_tok_redact). */
#ifndef PG_LOG_H
#define PG_LOG_H

#include <stdio.h>

typedef enum { PG_LOG_DEBUG, PG_LOG_INFO, PG_LOG_WARN, PG_LOG_ERROR } pg_log_level;

void pg_log_set_level(pg_log_level min);
/* Where lines go: stderr (NULL) unless set, e.g. the Windows service's log
 * file (a service has no console). Set once, before any thread logs. */
void pg_log_set_file(FILE *f);
void pg_log(pg_log_level lvl, const char *fmt, ...)
#if defined(__MINGW32__)
    __attribute__((format(gnu_printf, 2, 3))) /* built with __USE_MINGW_ANSI_STDIO=1 */
#elif defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
