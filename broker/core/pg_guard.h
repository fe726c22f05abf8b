/* SPDX-License-Identifier: MIT */
/* pg_guard.h - --if-unchanged: an input that checks its target first
 * (docs/threat-model.md "--if-unchanged", docs/privacy.md "Input that
 * checks its target").
 *
 * What it does
 *   An agent looks (a snapshot, a token), then acts (click --in TOKEN --at
 *   X,Y). Between the two the screen may change under the point: a dialog
 *   raised there, a button swapped. With --if-unchanged the input goes out
 *   only if the token's pixels in a box of PG_GUARD_BOX x PG_GUARD_BOX
 *   around the target (clipped to the token) still match the screen there
 *   within PG_GUARD_TOLERANCE (mean absolute difference per colour channel,
 *   of 255) and the token's window is the one on top at the point; else
 *   TARGET_CHANGED and nothing is sent. The backend checks and injects while
 *   it holds the display still (guard_begin / guard_end: X11 grabs the
 *   server), so nothing can change between the check and the input.
 *
 * Contract
 *   pg_guard_prepare runs under the platform lock once the token's window is
 *   resolved: it cuts the token's pixels (not downscaled ones: compared at
 *   full resolution only), maps the box to the screen by where the window is
 *   now, and charges the verdict's bits (pg_guard_bits) to the disclosure
 *   ledger BEFORE anything is asked: the input itself tells whether the
 *   check passed, so the charge cannot wait for the answer and is booked
 *   whether it passes or not, to the token's tiles in the box and the live
 *   tiles there (read just before), as a question of its own: the operation,
 *   the point and the live pixels' digest, so the same input over unchanged
 *   pixels is a free repeat and one over repainted pixels a new question.
 *   pg_guard_begin / pg_guard_end go right around the ONE platform input
 *   call; begin's PG_OK always owes an end, TARGET_CHANGED owes nothing.
 *   The reply's "unchanged" (pg_guard_report) tells region (window
 *   coordinates), difference (rounded to a whole level) and tolerance.
 * Never: sends input after a refusal, tells a refused difference, or charges
 *   after the input went out.
 */
#ifndef PG_GUARD_CHECK_H
#define PG_GUARD_CHECK_H

#include "pg_call.h"

#define PG_GUARD_BOX 32          /* token pixels on a side, centred on the target */
#define PG_GUARD_TOLERANCE 6.0   /* mean absolute difference per channel (of 255) that still passes */
#define PG_GUARD_STEP 1.0        /* the difference is told in whole levels */

typedef struct {
    bool on;
    char label[64];   /* the token, redacted, for messages */
    pg_guard g;       /* what guard_begin checks, in screen coordinates */
    uint8_t *ref;     /* g.ref's pixels (owned) */
    pg_rect box;      /* the region checked, in the window's coordinates */
    pg_point at;      /* the target, in the window's coordinates */
    bool passed;      /* guard_begin answered PG_OK */
    bool held;        /* and the display is held until pg_guard_end */
} pg_guard_check;

/* --if-unchanged names what it compares with: PG_E_USAGE without --in. */
pg_err pg_guard_need_token(bool if_unchanged, const char *token, pg_error *e);

/* Platform lock held, w the token's window as resolved just now, (x,y) the
 * input's target in w's coordinates. Fills k (k->on) or refuses: USAGE for
 * a downscaled token or one of another window, BADINPUT for a point outside
 * the token, UNSUPPORTED where the backend cannot hold the display still,
 * POLICY when the disclosure budget cannot pay for the verdict. */
pg_err pg_guard_prepare(pg_call *c, const char *token, const pg_window *w, int64_t x, int64_t y, pg_guard_check *k,
                        pg_error *e);

/* Right before the one platform input call (nothing when !k->on): PG_OK
 * (the display held: pg_guard_end after the call) or PG_E_TARGET_CHANGED,
 * "the target changed since TOKEN: ...", with nothing held. */
pg_err pg_guard_begin(pg_call *c, pg_guard_check *k, pg_error *e);
void pg_guard_end(pg_call *c, pg_guard_check *k);

/* "unchanged": {region, difference, tolerance} into r, when the check passed. */
void pg_guard_report(const pg_guard_check *k, cJSON *r);
void pg_guard_fini(pg_guard_check *k);

/* The bits a verdict can carry: pass or not, and a passing difference in
 * whole levels from 0 to the tolerance. */
double pg_guard_bits(void);

#endif
