/* ping and caps: liveness, who the broker thinks you are, what it can do. */
#include "pg_ops.h"

pg_err pg_op_ping(pg_call *c, pg_error *e) {
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

static void add_caps(cJSON *o, const pg_caps *k) {
    cJSON_AddBoolToObject(o, "list_windows", k->list_windows);
    cJSON_AddBoolToObject(o, "capture_window", k->capture_window);
    cJSON_AddBoolToObject(o, "capture_covered", k->capture_covered);
    cJSON_AddBoolToObject(o, "capture_screen", k->capture_screen);
    cJSON_AddBoolToObject(o, "input_pointer", k->input_pointer);
    cJSON_AddBoolToObject(o, "input_keys", k->input_keys);
    cJSON_AddBoolToObject(o, "input_text_unicode", k->input_text_unicode);
    cJSON_AddBoolToObject(o, "settle", k->settle);
    cJSON_AddBoolToObject(o, "window_manager", k->window_manager);
}

pg_err pg_op_caps(pg_call *c, pg_error *e) {
    pg_caps k = {0};
    pg_err rc = pg_broker_plat_lock(c->b, e);
    if (rc) return rc;
    rc = c->b->plat_ops->caps(c->b->plat, &k, e);
    pg_broker_plat_unlock(c->b);
    if (rc) return rc;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "backend", k.backend);
    cJSON_AddStringToObject(r, "display", c->b->display);
    add_caps(cJSON_AddObjectToObject(r, "capabilities"), &k);
    cJSON_AddStringToObject(r, "detail", k.detail);
    cJSON *ops = cJSON_AddArrayToObject(r, "operations");
    size_t n;
    const pg_op *table = pg_ops_list(&n);
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(ops, cJSON_CreateString(table[i].name));
    /* What this user's policy lets out of the broker, without URLs or patterns. */
    cJSON_AddItemToObject(r, "policy", pg_policy_view_to_json(c->view));
    c->result = r;
    return PG_OK;
}
