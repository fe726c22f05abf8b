/* SPDX-License-Identifier: MIT */
/* pg_approval.h - one-off pixel releases approved by a human.
 *
 * Under expose_pixels "analyze-only" an agent's release request is refused
 * with a request id; an approver (named in the policy, or root) runs
 * `pixelgate approve ID` as their own OS user, and the agent's next release
 * of that token succeeds once. Identities come from the kernel on both sides:
 * the requesting uid can never approve its own request, and to approve it the
 * agent would have to act as another user. Its one way to do that, injected
 * input into an approver's terminal, is refused by the broker (input into a
 * window whose process runs as an approver or root, broker/ops/input.c);
 * input into another user's terminal in which an approver switched user is
 * not caught (docs/policy.md, input.other_users).
 * Requests expire after PG_APPROVAL_TTL_S; an approval is consumed by one release.
 * The approver is shown what they approve (pg_approval_get/approve: the
 * capture's title, source, size, time and digest), and one user may have at
 * most PG_APPROVAL_MAX_PER_UID requests pending.
 * Thread-safe. Never: lets an approval outlive its token or serve another uid.
 */
#ifndef PG_APPROVAL_H
#define PG_APPROVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_token.h"

#define PG_APPROVAL_TTL_S 900
#define PG_APPROVAL_ID_LEN 15      /* "rel:" + 11 */
#define PG_APPROVAL_MAX_PER_UID 8  /* pending requests one user may have at once */
#define PG_APPROVAL_MAX 4096       /* all users together: a memory bound only */

typedef struct pg_approvals pg_approvals;

/* One request as an approver is shown it: who asked, and a copy of the
 * token's metadata taken when the request was made (window title, source,
 * size, capture time, full digest). */
typedef struct {
    char id[PG_APPROVAL_ID_LEN + 1];
    uint32_t uid;
    char user[64];
    pg_tok_meta subject;
    int64_t requested_ms; /* unix epoch ms */
    bool approved;
} pg_approval_info;

pg_err pg_approval_new(pg_approvals **out, pg_error *e);
void pg_approval_free(pg_approvals *a);

/* For a release of token m->token by uid: if an approved request exists,
 * consumes it and sets *approved. Otherwise returns the id of the (new or
 * pending) request in id_out; a new request keeps a copy of *m for the
 * approver. PG_E_POLICY when uid already has PG_APPROVAL_MAX_PER_UID pending
 * requests (or the table is full): one agent cannot block everyone else's. */
pg_err pg_approval_check(pg_approvals *a, const pg_tok_meta *m, uint32_t uid, const char *user,
                         char id_out[PG_APPROVAL_ID_LEN + 1], bool *approved, pg_error *e);

/* The request id, as an approver is shown it (PG_E_NOTFOUND when unknown
 * or expired). Changes nothing. */
pg_err pg_approval_get(pg_approvals *a, const char *id, pg_approval_info *out, pg_error *e);

/* Approves request id as approver_uid. PG_E_NOTFOUND for an unknown or
 * expired id; PG_E_POLICY when the approver is the requester. Fills *out
 * with the request as approved. */
pg_err pg_approval_approve(pg_approvals *a, const char *id, uint32_t approver_uid, pg_approval_info *out,
                           pg_error *e);

#endif
