/* SPDX-License-Identifier: MIT */
/* pg_refusals.h - refusals of one user are coalesced so they cannot flood
 * the audit log.
 *
 * Every refusal is audited, but at most PG_REFUSALS_PER_WINDOW records per
 * user in each PG_REFUSALS_WINDOW_S seconds; the refusals beyond are counted,
 * and the count rides on that user's next written record ("N refusals
 * coalesced") or, when the broker stops, on one record of its own ("broker.refusals_coalesced"). An
 * outsider looping on the socket therefore writes a few records a minute,
 * not thousands a second, and rotation cannot push history out quickly.
 * Never: drops a count; refuses or delays the request itself.
 * Threads: one mutex.
 */
#ifndef PG_REFUSALS_H
#define PG_REFUSALS_H

#include <stdbool.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_REFUSALS_PER_WINDOW 20
#define PG_REFUSALS_WINDOW_S 60

typedef struct pg_refusals pg_refusals;

pg_err pg_refusals_new(pg_refusals **out, pg_error *e);
void pg_refusals_free(pg_refusals *r);

/* A refusal of uid at unix time now: true when its record is to be written
 * (*coalesced then holds the refusals of uid not written since the last
 * written one, which the record must mention); false when it is only
 * counted. */
bool pg_refusals_admit(pg_refusals *r, uint32_t uid, int64_t now, uint64_t *coalesced);
/* Any record of uid that is written anyway (an OK outcome): takes the
 * pending count into it. */
uint64_t pg_refusals_take(pg_refusals *r, uint32_t uid);
/* Calls fn for every uid with a pending count (at shutdown) and clears it. */
void pg_refusals_drain(pg_refusals *r, void (*fn)(uint32_t uid, uint64_t n, void *ctx), void *ctx);

#endif
