/* SPDX-License-Identifier: MIT */
/* Fuzz the frame decoder and the request parser: any bytes must give either a
 * well-formed message or an error - never a crash, leak or over-read. */
#include <stdint.h>
#include <stdlib.h>

#include "pg_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    lim.max_attachment_bytes = 1 << 16; /* keep fuzzing allocations small */
    lim.max_total_bytes = 1 << 17;
    pg_msg m;
    pg_error e;
    if (pg_proto_decode(data, size, &lim, &m, &e) == PG_OK) {
        pg_request r;
        if (pg_proto_parse_request(m.header, &r, &e) == PG_OK) {
            static const pg_arg_spec spec[] = {{"window", PG_ARG_STRING, false}, {"x", PG_ARG_INT, false},
                                               {"region", PG_ARG_OBJECT, false}};
            (void)pg_args_check(r.args, spec, 3, &e);
        }
        const cJSON *res, *det;
        (void)pg_proto_parse_response(m.header, 1, &res, &det, &e);
        pg_msg_fini(&m);
    }
    return 0;
}
