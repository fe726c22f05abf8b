/* SPDX-License-Identifier: MIT */
/* drop: a user frees its own tokens before they expire. Nothing about
 * anyone else's tokens can be learnt: an unknown, an expired and another
 * user's token are all just "not found", and only counts come back. */
#include <stdio.h>

#include "pg_call.h"

pg_err pg_op_drop(pg_call *c, const pg_args_drop *a, pg_error *e) {
    (void)e;
    uint32_t uid = (uint32_t)c->peer->uid;
    uint64_t freed = 0;
    unsigned dropped = 0, missing = 0;
    if (a->all) {
        dropped = pg_tok_drop_all(c->b->tokens, uid, &freed);
    } else {
        for (size_t i = 0; i < a->tokens.n; i++) {
            if (pg_tok_drop_mine(c->b->tokens, a->tokens.v[i], uid, &freed)) dropped++;
            else missing++;
        }
    }
    uint64_t held = 0;
    unsigned count = 0;
    pg_tok_uid_usage(c->b->tokens, uid, &held, &count);
    c->audit.kind = "drop";
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s: %u dropped, %u not found, %llu bytes freed",
             a->all ? "all" : "named", dropped, missing, (unsigned long long)freed);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "dropped", dropped);
    cJSON_AddNumberToObject(r, "not_found", missing);
    cJSON_AddNumberToObject(r, "freed_bytes", (double)freed);
    cJSON *h = cJSON_AddObjectToObject(r, "held");
    cJSON_AddNumberToObject(h, "tokens", count);
    cJSON_AddNumberToObject(h, "bytes", (double)held);
    c->result = r;
    return PG_OK;
}
