/* SPDX-License-Identifier: MIT */
/* ping: liveness, who the broker thinks you are, and the display's state. */
#include "pg_call.h"

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
    /* A health check's answer: the broker runs, and whether it has its display. */
    cJSON_AddItemToObject(r, "display", pg_broker_display_json(c->b));
    /* and whether a person has stopped the agents, or is using the machine */
    cJSON_AddItemToObject(r, "person", pg_broker_person_json(c->b));
    c->result = r;
    return PG_OK;
}
