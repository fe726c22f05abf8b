/* SPDX-License-Identifier: MIT */
/* Every operation of common/pg_ops.def bound to its handler (pg_handlers.h). */
#include "pg_call.h"
#include "pg_handlers.h"

/* One adapter per operation gives every handler the same C type. */
#define PG_OP(id, ...) \
    static pg_err run_##id(pg_call *c, const void *a, pg_error *e) { return pg_op_##id(c, a, e); }
#define PG_ARG(op, name, type, ...)
#define PG_END(id)
#include "pg_ops.def"
#undef PG_OP
#define PG_OP(id, ...) [PG_OPI_##id] = run_##id,
const pg_handler_fn pg_op_handlers[PG_OPI_COUNT] = {
#include "pg_ops.def"
};
#undef PG_OP
#undef PG_ARG
#undef PG_END
