/* pg_approval.h - one-off pixel releases approved by a human.
 *
 * Under expose_pixels "analyze-only" an agent's release request is refused
 * with a request id; an approver (named in the policy, or root) runs
 * `pixelgate approve ID` as their own OS user, and the agent's next release
 * of that token succeeds once. Identities come from the kernel on both sides,
 * so injected input cannot approve anything: the agent would have to become
 * another user. The requesting uid can never approve its own request.
 * Requests expire after PG_APPROVAL_TTL_S; an approval is consumed by one release.
 * Thread-safe. Never: lets an approval outlive its token or serve another uid.
 */
#ifndef PG_APPROVAL_H
#define PG_APPROVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_APPROVAL_TTL_S 900
#define PG_APPROVAL_ID_LEN 15 /* "rel:" + 11 */

typedef struct pg_approvals pg_approvals;

pg_err pg_approval_new(pg_approvals **out, pg_error *e);
void pg_approval_free(pg_approvals *a);

/* For a release of token by uid: if an approved request exists, consumes it
 * and sets *approved. Otherwise returns the id of the (new or pending)
 * request in id_out. */
pg_err pg_approval_check(pg_approvals *a, const char *token, uint32_t uid, const char *user,
                         char id_out[PG_APPROVAL_ID_LEN + 1], bool *approved, pg_error *e);

/* Who asked for request id (PG_E_NOTFOUND when unknown or expired). */
pg_err pg_approval_requester(pg_approvals *a, const char *id, uint32_t *uid, char user[64], pg_error *e);

/* Approves request id as approver_uid. PG_E_NOTFOUND for an unknown or
 * expired id; PG_E_POLICY when the approver is the requester. Fills the
 * requester's user name and a redacted token for the approver's reply. */
pg_err pg_approval_approve(pg_approvals *a, const char *id, uint32_t approver_uid, char requester[64],
                           char token_redacted[16], pg_error *e);

#endif
