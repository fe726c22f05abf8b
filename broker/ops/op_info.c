/* info: a token's metadata - never its pixels or where they are kept. */
#include "pg_ops.h"

const pg_arg_spec pg_op_info_args[1] = {{"token", PG_ARG_STRING, true}};

cJSON *pg_tok_meta_json(const pg_tok_meta *m) {
    char created[40], expires[40];
    pg_iso_time(m->created_ms, created);
    pg_iso_time(m->expires_ms, expires);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "token", m->token);
    cJSON_AddNumberToObject(r, "width", m->width);
    cJSON_AddNumberToObject(r, "height", m->height);
    cJSON_AddNumberToObject(r, "source_width", m->source_width);
    cJSON_AddNumberToObject(r, "source_height", m->source_height);
    cJSON_AddStringToObject(r, "method", m->method);
    cJSON_AddStringToObject(r, "sha256", m->sha256);
    cJSON_AddStringToObject(r, "created", created);
    cJSON_AddStringToObject(r, "expires", expires);
    if (m->screen) {
        cJSON_AddStringToObject(r, "source", "screen");
    } else {
        cJSON_AddStringToObject(r, "source", "window");
        cJSON *w = cJSON_AddObjectToObject(r, "window");
        cJSON_AddNumberToObject(w, "id", (double)m->window_id);
        cJSON_AddStringToObject(w, "title", m->window_title);
        cJSON_AddStringToObject(w, "class", m->window_class);
    }
    if (m->region_w) {
        cJSON *g = cJSON_AddObjectToObject(r, "region");
        cJSON_AddNumberToObject(g, "x", m->region_x);
        cJSON_AddNumberToObject(g, "y", m->region_y);
        cJSON_AddNumberToObject(g, "w", m->region_w);
        cJSON_AddNumberToObject(g, "h", m->region_h);
    }
    return r;
}

pg_err pg_op_info(pg_call *c, pg_error *e) {
    pg_tok_meta m;
    pg_err rc = pg_tok_get(c->b->tokens, pg_args_str(c->req->args, "token", ""), c->peer->uid, &m, e);
    if (rc) return rc;
    c->result = pg_tok_meta_json(&m);
    return PG_OK;
}
