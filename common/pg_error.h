/* SPDX-License-Identifier: MIT */
/* pg_error.h - the one table of outcomes, shared by broker, client and engine.
 *
 * Contract: every fallible function in pixelgate returns a pg_err and, when it
 * fails, fills a pg_error with a human message and a recovery tip. The numeric
 * value of a pg_err IS the client's process exit code (docs/agents.md), so the
 * values below are a public contract and never change.
 * Never: calls exit(), prints, or allocates.
 */
#ifndef PG_ERROR_H
#define PG_ERROR_H

#include <stddef.h>

typedef enum {
    PG_OK = 0,             /* success */
    PG_E_ASSERT = 1,       /* the check ran and said no */
    PG_E_USAGE = 2,        /* bad command line or request shape */
    PG_E_POLICY = 3,       /* refused by policy */
    PG_E_NOTFOUND = 4,     /* window, token, baseline not found */
    PG_E_UNREACHABLE = 5,  /* broker (or endpoint) unreachable */
    PG_E_TIMEOUT = 6,      /* timed out */
    PG_E_UNSUPPORTED = 7,  /* not supported on this platform/backend */
    PG_E_BADINPUT = 8,     /* corrupt/oversized image, bad config */
    PG_E_INTERNAL = 9,     /* bug or resource failure inside pixelgate */
    PG_E_BLOCKED = 10,     /* a check could not decide: unstable screen, environment or
                              baseline mismatch, a mask that covers all or nothing */
    PG_E_NEEDS_APPROVAL = 11, /* no approved baseline yet: a human must approve a candidate */
    PG_E_BUSY = 12,        /* the broker is at capacity: nothing was done, retry later */
    PG_E_STOPPED = 13,     /* a person pressed the stop key (or the keyboard was tampered with):
                              nothing an agent asks is done until a person re-arms */
    PG_E_HUMAN = 14,       /* a person is using the machine: agent input and captures wait for
                              the quiet period to end */
    PG_E_TARGET_CHANGED = 15 /* --if-unchanged: the target no longer looks as it did in the token,
                                or another window is on top there: nothing was sent */
} pg_err;

#define PG_ERR_LAST PG_E_TARGET_CHANGED /* the highest code of the table */

/* Does the outcome carry a check's measurements (printed on stdout)? */
#define PG_ERR_IS_VERDICT(c) ((c) == PG_E_ASSERT || (c) == PG_E_BLOCKED || (c) == PG_E_NEEDS_APPROVAL)

#define PG_ERR_MSG_MAX 512
#define PG_ERR_TIP_MAX 256

typedef struct {
    pg_err code;
    char message[PG_ERR_MSG_MAX];
    char recovery_tip[PG_ERR_TIP_MAX]; /* empty: use pg_err_default_tip() */
} pg_error;

/* Stable upper-case name used on the wire, e.g. "NOT_FOUND". */
const char *pg_err_name(pg_err code);
/* Inverse of pg_err_name; returns PG_E_INTERNAL for unknown names. */
pg_err pg_err_from_name(const char *name);
/* A generic tip for the code, used when a site gives none. */
const char *pg_err_default_tip(pg_err code);
/* For the documentation (docs/agents.md, pixelgate(1)), in Markdown: what the
 * code means, and what the caller should do about it ("" for OK). */
const char *pg_err_meaning(pg_err code);
const char *pg_err_action(pg_err code);

/* Fill e (may be NULL) and return code. tip may be NULL. printf-style. */
pg_err pg_error_set(pg_error *e, pg_err code, const char *tip, const char *fmt, ...)
#if defined(__MINGW32__)
    __attribute__((format(gnu_printf, 4, 5))) /* built with __USE_MINGW_ANSI_STDIO=1 */
#elif defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void pg_error_clear(pg_error *e);

#endif
