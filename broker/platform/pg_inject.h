/* SPDX-License-Identifier: MIT */
/* pg_inject.h - injected input sent in chunks, each one checked first.
 *
 * What it does: typing a long text takes many system calls, and the window
 * that receives keystrokes can change in between (another program takes the
 * foreground, an elevated window is raised on purpose). pg_inject_send cuts
 * a run of input events into chunks and asks before each chunk whether the
 * input would still reach the window the call was checked for; the first
 * "no" stops it, and the error says how many units (characters) went out.
 * pg_inject_may_send is that decision for a backend that knows the
 * foreground window and its integrity level (Win32): the foreground must be
 * the target, and its process may not run at a higher integrity level than
 * the target's did when the call was checked (which the broker already held
 * to the requester's), so input can never climb into an elevated window.
 * Both are pure: the system calls come in through pg_inject_io, so the rule
 * and the loop are unit-tested without a desktop (Wine has no UIPI and one
 * integrity level for everything).
 * Never: splits a unit (a key's down and up, a surrogate pair) across
 * chunks, so a stop leaves no key pressed; sends after a refusal.
 */
#ifndef PG_INJECT_H
#define PG_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

/* The window the input was checked for, as it was when the call began. */
typedef struct {
    uint64_t window;
    uint32_t integrity; /* its process's integrity RID (SECURITY_MANDATORY_*_RID); 0: unknown */
} pg_inject_target;

/* Who would receive input right now. */
typedef struct {
    uint64_t foreground; /* 0: none (a secure desktop, a locked session) */
    uint32_t integrity;  /* the foreground process's integrity RID; 0: unknown */
} pg_inject_now;

/* PG_OK when the next chunk may go; else PG_E_POLICY saying what changed
 * and that done of total characters were typed. An unknown integrity
 * passes only where the target's was unknown too. */
pg_err pg_inject_may_send(const pg_inject_target *t, const pg_inject_now *now, size_t done, size_t total,
                          pg_error *e);

typedef struct {
    /* May the chunk starting at unit `done` go? PG_OK or the refusal. */
    pg_err (*check)(void *ctx, size_t done, size_t total, pg_error *e);
    /* Send events [from, from + n); returns how many the system took. */
    size_t (*send)(void *ctx, size_t from, size_t n);
    void *ctx;
} pg_inject_io;

/* Sends units 0..n_units-1, unit i being events [start[i], start[i+1]) (so
 * start has n_units + 1 entries, start[0] = 0), in chunks of whole units of
 * at most max_events events (a unit longer than that goes alone), checking
 * before each chunk. *done: the units that went out completely. PG_OK when
 * all went; the check's error when it refused; PG_E_POLICY when the system
 * took fewer events than it was given (Windows: UIPI, a locked desktop). */
pg_err pg_inject_send(const pg_inject_io *io, const size_t *start, size_t n_units, size_t max_events, size_t *done,
                      pg_error *e);

/* Absolute pointer positions (Win32 SendInput with MOUSEEVENTF_ABSOLUTE |
 * MOUSEEVENTF_VIRTUALDESK): 0..65535 spans the virtual desktop, whose origin
 * is negative where a monitor lies left of or above the primary. The broker
 * is per-monitor DPI aware, so origin, extent and p are physical pixels on
 * every monitor whatever its scale. pg_abs_norm rounds up so that the
 * system's mapping back (pg_abs_denorm: origin + n * extent / 65536, rounded
 * down) lands on p exactly, for any p in [origin, origin + extent) and any
 * extent up to 65536. */
int32_t pg_abs_norm(int64_t p, int64_t origin, int64_t extent);
int64_t pg_abs_denorm(int32_t n, int64_t origin, int64_t extent);

#endif
