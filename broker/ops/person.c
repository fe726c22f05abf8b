/* SPDX-License-Identifier: MIT */
/* resume, lease, wait-for --human-idle: the person's controls (being written). */
#include "pg_call.h"

pg_err pg_op_resume(pg_call *c, const pg_args_resume *a, pg_error *e) {
    (void)c, (void)a;
    return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "resume: not built yet");
}
pg_err pg_op_lease(pg_call *c, const pg_args_lease *a, pg_error *e) {
    (void)c, (void)a;
    return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "lease: not built yet");
}
pg_err pg_op_wait_human_idle(pg_call *c, const pg_args_wait_human_idle *a, pg_error *e) {
    (void)c, (void)a;
    return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "wait-for --human-idle: not built yet");
}
