/* SPDX-License-Identifier: MIT */
/* pg_handlers.h - the handlers of broker/ops/ as one table, for the process
 * shells (and the tests) to hand to the broker (pg_broker_config.handlers).
 *
 * Contract: pg_op_handlers[PG_OPI_<op>] runs pg_op_<op> (pg_call.h) for every
 * operation of common/pg_ops.def; none is NULL. The core dispatches through
 * this table and never names a handler, so nothing below ops/ depends on it.
 */
#ifndef PG_HANDLERS_H
#define PG_HANDLERS_H

#include "pg_broker.h"
#include "pg_opdecl.h"

extern const pg_handler_fn pg_op_handlers[PG_OPI_COUNT];

#endif
