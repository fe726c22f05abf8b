/* The operation table: one line per op, the handler and its argument schema.
 * Handlers live in broker/ops/op_*.c. */
#include <stdio.h>
#include <string.h>

#include "ops/pg_ops.h"
#include "pg_broker.h"

#define OP(name, fn, spec) {name, fn, spec, sizeof(spec) / sizeof(spec[0])}
#define OP_NOARGS(name, fn) {name, fn, NULL, 0}

static const pg_op ops_table[] = {
    OP_NOARGS("ping", pg_op_ping),
    OP_NOARGS("caps", pg_op_caps),
    OP("windows", pg_op_windows, pg_op_windows_args),
    OP("snapshot", pg_op_snapshot, pg_op_snapshot_args),
    OP("info", pg_op_info, pg_op_info_args),
    OP("focus", pg_op_focus, pg_op_target_args),
    OP("click", pg_op_click, pg_op_click_args),
    OP("key", pg_op_key, pg_op_key_args),
    OP("type", pg_op_type, pg_op_type_args),
};

const pg_op *pg_ops_find(const char *name) {
    for (size_t i = 0; i < sizeof ops_table / sizeof ops_table[0]; i++)
        if (!strcmp(ops_table[i].name, name)) return &ops_table[i];
    return NULL;
}

pg_err pg_dispatch(pg_call *c, pg_error *e) {
    const pg_op *op = pg_ops_find(c->req->op);
    if (!op)
        return pg_error_set(e, PG_E_USAGE, "upgrade the broker or check the client version", "unknown operation \"%s\"",
                            c->req->op);
    pg_err rc = pg_args_check(c->req->args, op->args, op->n_args, e);
    if (rc) return rc;
    return op->fn(c, e);
}

#include "pg_log.h"

void pg_broker_open_platform(pg_broker *b) {
    pg_error e;
    pg_error_clear(&e);
    if (b->plat_ops->open(&b->plat, b->display[0] ? b->display : NULL, &e) != PG_OK) {
        b->plat = NULL;
        memcpy(b->plat_error, e.message, sizeof b->plat_error);
        pg_log(PG_LOG_WARN, "display \"%s\" not usable: %s", b->display, e.message);
    } else {
        pg_log(PG_LOG_INFO, "display \"%s\" opened", b->display);
    }
}

pg_err pg_broker_plat_lock(pg_broker *b, pg_error *e) {
    pthread_mutex_lock(&b->plat_lock);
    /* The display may come up after the broker (systemd ordering): retry. */
    if (!b->plat) pg_broker_open_platform(b);
    if (!b->plat) {
        pthread_mutex_unlock(&b->plat_lock);
        return pg_error_set(e, PG_E_UNREACHABLE,
                            "check that the X server runs and admits the broker (xhost +SI:localuser:pixelgate)",
                            "the broker has no display: %s", b->plat_error);
    }
    return PG_OK;
}

void pg_broker_plat_unlock(pg_broker *b) { pthread_mutex_unlock(&b->plat_lock); }
