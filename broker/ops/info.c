/* SPDX-License-Identifier: MIT */
/* info: a token's metadata - never its pixels or where they are kept. */
#include "pg_call.h"

pg_err pg_op_info(pg_call *c, const pg_args_info *a, pg_error *e) {
    pg_tok_meta m;
    pg_err rc = pg_tok_get(c->b->tokens, a->token, c->peer->uid, &m, e);
    if (rc) return rc;
    c->result = pg_call_token_json(c, &m);
    return PG_OK;
}
