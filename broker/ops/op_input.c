/* focus, click, key, type: input through the platform backend, always aimed
 * at a window the broker resolved itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_ops.h"

#define TARGET_ARGS {"window", PG_ARG_STRING, false}, {"id", PG_ARG_INT, false}, {"first", PG_ARG_BOOL, false}

const pg_arg_spec pg_op_target_args[3] = {TARGET_ARGS};
const pg_arg_spec pg_op_click_args[11] = {
    TARGET_ARGS, {"x", PG_ARG_INT, false}, {"y", PG_ARG_INT, false}, {"button", PG_ARG_STRING, false},
    {"double", PG_ARG_BOOL, false}, {"text", PG_ARG_STRING, false}, {"template", PG_ARG_OBJECT, false},
    {"offset_x", PG_ARG_INT, false}, {"offset_y", PG_ARG_INT, false}};
const pg_arg_spec pg_op_key_args[4] = {TARGET_ARGS, {"chord", PG_ARG_STRING, true}};
const pg_arg_spec pg_op_type_args[4] = {TARGET_ARGS, {"text", PG_ARG_STRING, true}};

/* Runs the input action under the platform lock against the resolved window,
 * and answers {"window": {...}} plus whatever the action adds. */
typedef pg_err (*input_fn)(pg_call *c, const pg_window *w, cJSON *result, pg_error *e);

static pg_err with_target(pg_call *c, input_fn fn, pg_error *e) {
    pg_window w;
    pg_err rc = pg_broker_plat_lock(c->b, e);
    if (rc) return rc;
    rc = pg_resolve_window(c, &w, e);
    cJSON *r = NULL;
    c->audit.kind = "input";
    if (!rc) {
        pg_audit_window_set(c, &w);
        /* Ownership from the server side (X-Resource pid -> /proc uid), never
         * from anything the client or the window says about itself. */
        bool same_owner = false;
        rc = pg_broker_input_target(w.pid, c->peer, &same_owner, e);
        if (!rc) rc = pg_policy_check_input(c->view, w.title, w.class_name, w.instance, same_owner, e);
    }
    if (!rc) {
        r = cJSON_CreateObject();
        rc = fn(c, &w, r, e);
    }
    pg_broker_plat_unlock(c->b);
    if (rc) {
        cJSON_Delete(r);
        return rc;
    }
    cJSON_AddItemToObject(r, "window", pg_window_json(&w));
    c->result = r;
    return PG_OK;
}

static pg_err do_focus(pg_call *c, const pg_window *w, cJSON *r, pg_error *e) {
    pg_err rc = c->b->plat_ops->focus(c->b->plat, w->id, e);
    if (!rc) cJSON_AddBoolToObject(r, "focused", 1);
    return rc;
}

static pg_err parse_button(const char *name, pg_button *b, pg_error *e) {
    if (!strcmp(name, "left")) *b = PG_BTN_LEFT;
    else if (!strcmp(name, "middle")) *b = PG_BTN_MIDDLE;
    else if (!strcmp(name, "right")) *b = PG_BTN_RIGHT;
    else return pg_error_set(e, PG_E_USAGE, "use --button left, middle or right", "unknown button \"%s\"", name);
    return PG_OK;
}

/* Finds the text or template in a fresh capture of w (platform lock held);
 * the click goes to the centre of what was found, plus the offset. */
static pg_err locate(pg_call *c, const pg_window *w, cJSON *r, int64_t *x, int64_t *y, pg_error *e) {
    pg_img *img = NULL;
    pg_err rc = pg_capture_img_locked(c, w, NULL, &img, NULL, e);
    if (rc) return rc;
    const char *text = pg_args_str(c->req->args, "text", NULL);
    cJSON *found = NULL;
    pg_img_rect box = {0};
    bool ok = false;
    if (text) {
        rc = pg_find_text(c, img, NULL, text, false, &box, &found, e);
        ok = !rc && cJSON_IsTrue(cJSON_GetObjectItem(found, "found"));
    } else {
        pg_tmpl_result res;
        rc = pg_template_find(c, img, NULL, &res, &found, e);
        ok = !rc && res.found;
        box = res.best.box;
    }
    pg_img_free(img);
    if (rc) return rc;
    if (!ok) {
        c->details = found;
        return pg_error_set(e, PG_E_NOTFOUND, "check the text or template, or wait-for it first",
                            "%s not found in the window", text ? "text" : "template");
    }
    cJSON_AddItemToObject(r, "found", found);
    *x = box.x + box.w / 2 + pg_args_int(c->req->args, "offset_x", 0);
    *y = box.y + box.h / 2 + pg_args_int(c->req->args, "offset_y", 0);
    return PG_OK;
}

static pg_err do_click(pg_call *c, const pg_window *w, cJSON *r, pg_error *e) {
    const char *bname = pg_args_str(c->req->args, "button", "left");
    pg_button b = PG_BTN_LEFT;
    pg_err rc = parse_button(bname, &b, e);
    if (rc) return rc;
    bool by_point = cJSON_GetObjectItemCaseSensitive(c->req->args, "x") && cJSON_GetObjectItemCaseSensitive(c->req->args, "y");
    bool by_find = pg_args_str(c->req->args, "text", NULL) || cJSON_GetObjectItemCaseSensitive(c->req->args, "template");
    if (by_point == by_find)
        return pg_error_set(e, PG_E_USAGE, NULL, "click needs either x and y, or text or template");
    int64_t x = pg_args_int(c->req->args, "x", 0), y = pg_args_int(c->req->args, "y", 0);
    if (by_find && (rc = locate(c, w, r, &x, &y, e))) return rc;
    if (x < 0 || y < 0 || x >= w->width || y >= w->height)
        return pg_error_set(e, PG_E_BADINPUT, "--at is relative to the window's top-left; see its width and height",
                            "point %lld,%lld is outside the %ux%u window", (long long)x, (long long)y, w->width,
                            w->height);
    int count = pg_args_bool(c->req->args, "double", false) ? 2 : 1;
    snprintf(c->audit.detail, sizeof c->audit.detail, "click %lld,%lld %s x%d", (long long)x, (long long)y, bname,
             count);
    rc = c->b->plat_ops->click(c->b->plat, w->id, (int32_t)x, (int32_t)y, b, count, e);
    if (rc) return rc;
    cJSON *k = cJSON_AddObjectToObject(r, "clicked");
    cJSON_AddNumberToObject(k, "x", (double)x);
    cJSON_AddNumberToObject(k, "y", (double)y);
    cJSON_AddStringToObject(k, "button", bname);
    cJSON_AddNumberToObject(k, "count", count);
    return PG_OK;
}

static pg_err do_key(pg_call *c, const pg_window *w, cJSON *r, pg_error *e) {
    const char *chord = pg_args_str(c->req->args, "chord", "");
    snprintf(c->audit.detail, sizeof c->audit.detail, "key %.200s", chord);
    pg_err rc = c->b->plat_ops->key(c->b->plat, w->id, chord, e);
    if (!rc) cJSON_AddStringToObject(r, "key", chord);
    return rc;
}

static pg_err do_type(pg_call *c, const pg_window *w, cJSON *r, pg_error *e) {
    const char *text = pg_args_str(c->req->args, "text", "");
    /* The text itself may be a secret (a password): record only its size. */
    snprintf(c->audit.detail, sizeof c->audit.detail, "type %zu bytes", strlen(text));
    pg_err rc = c->b->plat_ops->type_text(c->b->plat, w->id, text, e);
    if (rc) return rc;
    size_t chars = 0; /* code points: count bytes that do not continue a UTF-8 sequence */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) chars += (*p & 0xC0) != 0x80;
    cJSON_AddNumberToObject(r, "typed_chars", (double)chars);
    return PG_OK;
}

pg_err pg_op_focus(pg_call *c, pg_error *e) { return with_target(c, do_focus, e); }
pg_err pg_op_click(pg_call *c, pg_error *e) { return with_target(c, do_click, e); }
pg_err pg_op_key(pg_call *c, pg_error *e) { return with_target(c, do_key, e); }
pg_err pg_op_type(pg_call *c, pg_error *e) { return with_target(c, do_type, e); }
