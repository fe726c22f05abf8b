/* SPDX-License-Identifier: MIT */
/* Fuzz the MCP server's JSON-RPC envelope parser (client/mcp/pg_jsonrpc.h),
 * and hold it to one property: whatever it accepts as a request, the lines
 * the server would answer with parse again as responses to the same id. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_jsonrpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void answer_round_trips(const pg_rpc_msg *m) {
    char *lines[2] = {pg_rpc_line_result(m->id, cJSON_CreateObject()),
                      pg_rpc_line_error(m->id, PG_RPC_INVALID_PARAMS, "x", cJSON_Duplicate(m->params, 1))};
    for (int i = 0; i < 2; i++) {
        if (!lines[i]) continue;
        pg_rpc_msg r;
        char why[128];
        size_t n = strlen(lines[i]);
        if (pg_rpc_parse(lines[i], n - 1, &r, why, sizeof why) != 0 || r.kind != PG_RPC_RESPONSE ||
            !pg_rpc_id_equal(r.id, m->id))
            abort();
        pg_rpc_msg_fini(&r);
        free(lines[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pg_rpc_msg m;
    char why[160];
    if (pg_rpc_parse((const char *)data, size, &m, why, sizeof why) == 0 && m.kind == PG_RPC_REQUEST)
        answer_round_trips(&m);
    pg_rpc_msg_fini(&m);
    return 0;
}
