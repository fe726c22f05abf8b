/* SPDX-License-Identifier: MIT */
/* pg_person.h - what the person's own keyboard and mouse did, as a backend saw it.
 *
 * What it does
 *   One pg_person lives for the broker's life. A backend that can tell a
 *   person's input from injected input (X11: XInput2 raw events and the
 *   server's own XTEST devices; Windows: a low-level hook and
 *   LLKHF_INJECTED) reports into it from its own thread: a physical press of
 *   the stop key, tampering with the person's keyboard (removed, disabled,
 *   re-flagged as XTEST), and any physical input at all. The broker's core
 *   (broker/core/pg_control.h) reads it, turns presses into the stop latch
 *   and activity into take-over; nothing here decides anything.
 *   Everything is counted, never overwritten: two presses between two reads
 *   are two presses (the latch toggles twice), a tamper seen once stays seen.
 *
 * Threads: every function is safe from any thread (one mutex, held briefly).
 *   A backend may call the report functions from its event thread while the
 *   core reads; the notify callback runs on the reporting thread, outside the
 *   lock, and must only wake someone (the broker wakes its watch thread so a
 *   hold is released at once, not on the next tick).
 * Never: blocks, allocates after pg_person_new, or reads pixels.
 */
#ifndef PG_PERSON_H
#define PG_PERSON_H

#include <stdbool.h>
#include <stdint.h>

typedef struct pg_person pg_person;

#define PG_PERSON_WHY_MAX 160

/* One consistent reading. */
typedef struct {
    bool watching;                     /* a backend watches physical input now */
    char why_not[PG_PERSON_WHY_MAX];   /* when not: why (no XInput2, a helper display, ...) */
    char stop_key[64];                 /* the key the backend watches for, as it resolved it */
    uint64_t stop_presses;             /* physical presses of the stop key, since the broker started */
    uint64_t tampers;                  /* keyboard removed, disabled or re-flagged, since start */
    char tamper_why[PG_PERSON_WHY_MAX];/* the last one, e.g. "keyboard 6 (Xephyr virtual keyboard) disabled" */
    uint64_t human_events;             /* physical input events of any kind, since start */
    int64_t last_human_us;             /* pg_mono_us of the last one; 0: none yet */
} pg_person_seen;

typedef void (*pg_person_notify_fn)(void *ctx);

pg_person *pg_person_new(pg_person_notify_fn notify, void *ctx);
void pg_person_free(pg_person *p);

/* The backend's state: watching (stop_key: the key name it watches for) or
 * not, and why not. A backend that stops watching (its display went away)
 * says so; the latch keeps what it saw. */
void pg_person_set_watching(pg_person *p, bool on, const char *stop_key, const char *why_not);
/* A physical press of the stop key (also counts as human input). */
void pg_person_stop_key(pg_person *p, int64_t now_us);
/* The person's keyboard was removed, disabled or re-flagged: a stop. */
void pg_person_tamper(pg_person *p, const char *why);
/* Any physical input: a key, a button, motion. */
void pg_person_activity(pg_person *p, int64_t now_us);

void pg_person_read(pg_person *p, pg_person_seen *out);

#endif
