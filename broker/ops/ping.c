/* ping: liveness, and who the broker thinks you are. */
#include "pg_ops.h"

pg_err pg_op_ping(pg_call *c, const pg_args_ping *a, pg_error *e) {
    (void)a;
    (void)e;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "pong", 1);
    cJSON_AddStringToObject(r, "broker_version", PG_VERSION);
    cJSON_AddNumberToObject(r, "protocol", PG_PROTO_VERSION);
    cJSON *p = cJSON_AddObjectToObject(r, "peer");
    cJSON_AddNumberToObject(p, "uid", c->peer->uid);
    cJSON_AddStringToObject(p, "user", c->peer->user);
    cJSON_AddNumberToObject(p, "pid", c->peer->pid);
    c->result = r;
    return PG_OK;
}
