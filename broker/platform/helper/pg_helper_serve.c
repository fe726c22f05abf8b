/* SPDX-License-Identifier: MIT */
/* pg_helper_serve.c - the session helper's side of its protocol: one
 * request read, checked, answered from the backend it was given, and the
 * reply written (see pg_helper.h for the contract), on every OS. The OS's
 * part (how the helper meets the broker, Windows' desktop following) is
 * in its shell: broker/os/win/pg_win_helper_main.c,
 * broker/os/posix/pg_posix_session_helper.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_helper.h"
#include "pg_monitor_json.h"
#include "pg_path_json.h"
#include "pg_proto.h"
#include "pg_window_json.h"

#define WRITE_MS 30000u
#define MAX_ID 9007199254740991.0

typedef pg_helper_server helper;

/* ------------------------------------------------------------ arguments */

static bool arg_in(const cJSON *args, const char *name, double lo, double hi, int64_t *v) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, name);
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= lo && j->valuedouble <= hi)) return false;
    *v = (int64_t)j->valuedouble;
    return true;
}

static pg_err out_of_range(const char *name, pg_error *e) {
    return pg_error_set(e, PG_E_USAGE, NULL, "argument \"%s\" out of range", name);
}

/* Checks the request's arguments and reads "id". */
static pg_err id_args(const cJSON *args, const pg_arg_spec *spec, size_t n, uint64_t *id, pg_error *e) {
    pg_err rc = pg_args_check(args, spec, n, e);
    int64_t v = 0;
    if (!rc && !arg_in(args, "id", 0, MAX_ID, &v)) rc = out_of_range("id", e);
    if (!rc) *id = (uint64_t)v;
    return rc;
}

/* "region": {x, y, w, h}, all required, each in its C type's range. */
static pg_err region_arg(const cJSON *args, pg_rect *r, const pg_rect **out, pg_error *e) {
    static const pg_arg_spec spec[] = {
        {"x", PG_ARG_INT, true}, {"y", PG_ARG_INT, true}, {"w", PG_ARG_INT, true}, {"h", PG_ARG_INT, true}};
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(args, "region");
    *out = NULL;
    if (!o) return PG_OK;
    int64_t x = 0, y = 0, w = 0, h = 0;
    pg_err rc = pg_args_check(o, spec, 4, e);
    if (rc) return rc;
    if (!arg_in(o, "x", INT32_MIN, INT32_MAX, &x) || !arg_in(o, "y", INT32_MIN, INT32_MAX, &y) ||
        !arg_in(o, "w", 0, UINT32_MAX, &w) || !arg_in(o, "h", 0, UINT32_MAX, &h))
        return out_of_range("region", e);
    *r = (pg_rect){(int32_t)x, (int32_t)y, (uint32_t)w, (uint32_t)h};
    *out = r;
    return PG_OK;
}

/* ------------------------------------------------------------- handlers */

/* A handler answers one op: *result (NULL = empty) and at most one
 * attachment. */
typedef pg_err (*handler_fn)(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e);

static pg_err h_caps(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    (void)att;
    pg_caps c;
    pg_err rc = pg_args_check(args, NULL, 0, e);
    if (!rc) rc = h->ops->caps(h->p, &c, e);
    if (rc) return rc;
    cJSON *r = *result = cJSON_CreateObject();
    if (!r) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    cJSON_AddBoolToObject(r, "list_windows", c.list_windows);
    cJSON_AddBoolToObject(r, "capture_window", c.capture_window);
    cJSON_AddBoolToObject(r, "capture_covered", c.capture_covered);
    cJSON_AddBoolToObject(r, "capture_screen", c.capture_screen);
    cJSON_AddBoolToObject(r, "input_pointer", c.input_pointer);
    cJSON_AddBoolToObject(r, "input_keys", c.input_keys);
    cJSON_AddBoolToObject(r, "input_text_unicode", c.input_text_unicode);
    cJSON_AddBoolToObject(r, "settle", c.settle);
    cJSON_AddBoolToObject(r, "window_manager", c.window_manager);
    cJSON_AddStringToObject(r, "backend", c.backend);
    cJSON_AddStringToObject(r, "detail", c.detail);
    char where[128] = "";
    if (h->where) h->where(h->ctx, where, sizeof where);
    cJSON_AddStringToObject(r, "desktop", where);
    return PG_OK;
}

/* The windows as the one JSON form; with complete (list_all) whether the
 * backend, and this reply's limit, left none out. */
static pg_err list_reply(pg_window *w, size_t n, const bool *complete, cJSON **result, pg_error *e) {
    cJSON *r = *result = cJSON_CreateObject();
    cJSON *arr = r ? cJSON_AddArrayToObject(r, "windows") : NULL;
    for (size_t i = 0; arr && i < n && i < PG_HELPER_MAX_WINDOWS; i++)
        cJSON_AddItemToArray(arr, pg_window_json(&w[i]));
    if (r && complete) cJSON_AddBoolToObject(r, "complete", *complete && n <= PG_HELPER_MAX_WINDOWS);
    free(w);
    return arr ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
}

static pg_err h_list_windows(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    (void)att;
    pg_window *w = NULL;
    size_t n = 0;
    pg_err rc = pg_args_check(args, NULL, 0, e);
    if (!rc) rc = h->ops->list_windows(h->p, &w, &n, e);
    return rc ? rc : list_reply(w, n, NULL, result, e);
}

static pg_err h_list_all(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    (void)att;
    pg_window *w = NULL;
    size_t n = 0;
    bool complete = false;
    pg_err rc = pg_args_check(args, NULL, 0, e);
    if (!rc) rc = h->ops->list_all(h->p, &w, &n, &complete, e);
    return rc ? rc : list_reply(w, n, &complete, result, e);
}

static const char *fallback(helper *h, bool screen) { return h->fallback ? h->fallback(h->ctx, screen) : ""; }

/* The capture as a reply: tight rows (stride = width*4) in one attachment. */
static pg_err capture_reply(helper *h, pg_capture *c, const char *fallback, cJSON **result, pg_blob *att,
                            pg_error *e) {
    size_t row = (size_t)c->width * 4;
    if (c->width > PG_HELPER_MAX_DIM || c->height > PG_HELPER_MAX_DIM ||
        (uint64_t)row * c->height > PG_HELPER_MAX_CAPTURE) {
        free(c->rgba);
        return pg_error_set(e, PG_E_BADINPUT, "capture a region instead",
                            "a %ux%u capture is over the session helper's limit (%u per side, %llu bytes)", c->width,
                            c->height, PG_HELPER_MAX_DIM, (unsigned long long)PG_HELPER_MAX_CAPTURE);
    }
    for (uint32_t y = 1; y < c->height && c->stride != row; y++) /* in place: rows only move down */
        memmove(c->rgba + y * row, c->rgba + y * c->stride, row);
    att->data = c->rgba;
    att->len = row * c->height;
    cJSON *r = *result = cJSON_CreateObject();
    if (!r) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    cJSON_AddNumberToObject(r, "width", c->width);
    cJSON_AddNumberToObject(r, "height", c->height);
    cJSON_AddNumberToObject(r, "stride", (double)row);
    cJSON_AddNumberToObject(r, "origin_x", c->origin_x);
    cJSON_AddNumberToObject(r, "origin_y", c->origin_y);
    cJSON_AddStringToObject(r, "method", c->method);
    cJSON_AddStringToObject(r, "fallback", fallback);
    (void)h;
    return PG_OK;
}

static pg_err h_capture_window(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    static const pg_arg_spec spec[] = {{"id", PG_ARG_INT, true}, {"region", PG_ARG_OBJECT, false}};
    uint64_t id;
    pg_rect r;
    const pg_rect *region;
    pg_capture c;
    pg_err rc = id_args(args, spec, 2, &id, e);
    if (!rc) rc = region_arg(args, &r, &region, e);
    if (!rc) rc = h->ops->capture_window(h->p, id, region, &c, e);
    return rc ? rc : capture_reply(h, &c, fallback(h, false), result, att, e);
}

static pg_err h_capture_screen(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    static const pg_arg_spec spec[] = {{"region", PG_ARG_OBJECT, false}};
    pg_rect r;
    const pg_rect *region;
    pg_capture c;
    pg_err rc = pg_args_check(args, spec, 1, e);
    if (!rc) rc = region_arg(args, &r, &region, e);
    if (!rc) rc = h->ops->capture_screen(h->p, region, &c, e);
    return rc ? rc : capture_reply(h, &c, fallback(h, true), result, att, e);
}

static pg_err h_drag(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    static const pg_arg_spec spec[] = {{"id", PG_ARG_INT, true},      {"path", PG_ARG_ARRAY, true},
                                       {"button", PG_ARG_INT, true},  {"hold_ms", PG_ARG_INT, true},
                                       {"step_ms", PG_ARG_INT, true}};
    (void)result, (void)att;
    uint64_t id;
    int64_t b = 0, hold = 0, step = 0;
    pg_point path[PG_DRAG_MAX_POINTS];
    size_t n = 0;
    pg_err rc = id_args(args, spec, 5, &id, e);
    if (!rc && (!arg_in(args, "button", INT32_MIN, INT32_MAX, &b) || !arg_in(args, "hold_ms", 0, UINT32_MAX, &hold) ||
                !arg_in(args, "step_ms", 0, UINT32_MAX, &step)))
        rc = out_of_range("button/hold_ms/step_ms", e);
    if (!rc) rc = pg_path_json_decode(cJSON_GetObjectItemCaseSensitive(args, "path"), path, PG_DRAG_MAX_POINTS, &n, e);
    return rc ? rc : h->ops->drag(h->p, id, path, n, (pg_button)b, (uint32_t)hold, (uint32_t)step, e);
}

static pg_err h_monitors(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    (void)att;
    pg_monitor *m = NULL;
    size_t n = 0;
    pg_err rc = pg_args_check(args, NULL, 0, e);
    if (!rc) rc = h->ops->monitors(h->p, &m, &n, e);
    if (rc) return rc;
    *result = cJSON_CreateObject();
    cJSON *a = pg_monitor_json(m, n);
    if (*result && a) cJSON_AddItemToObject(*result, "monitors", a);
    else cJSON_Delete(a), a = NULL;
    free(m);
    return a ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
}

static pg_err h_hold(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    static const pg_arg_spec spec[] = {{"id", PG_ARG_INT, true},     {"down", PG_ARG_BOOL, true},
                                       {"key", PG_ARG_STRING, false}, {"button", PG_ARG_INT, false},
                                       {"at", PG_ARG_BOOL, false},    {"x", PG_ARG_INT, false},
                                       {"y", PG_ARG_INT, false}};
    (void)result, (void)att;
    pg_hold hd = {0};
    pg_err rc = id_args(args, spec, 7, &hd.id, e);
    if (rc) return rc;
    hd.down = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "down"));
    const char *key = pg_args_str(args, "key", NULL);
    if (key) { /* a key, or a button: never both */
        hd.is_key = true;
        if (cJSON_GetObjectItemCaseSensitive(args, "button") || strlen(key) >= sizeof hd.key)
            return pg_error_set(e, PG_E_BADINPUT, NULL, "hold: a key of at most %zu bytes, or a button",
                                sizeof hd.key - 1);
        snprintf(hd.key, sizeof hd.key, "%s", key);
        return h->ops->hold(h->p, &hd, e);
    }
    int64_t b = 0, x = 0, y = 0;
    if (!arg_in(args, "button", INT32_MIN, INT32_MAX, &b) || !arg_in(args, "x", INT32_MIN, INT32_MAX, &x) ||
        !arg_in(args, "y", INT32_MIN, INT32_MAX, &y) || !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(args, "at")))
        return out_of_range("button/at/x/y", e);
    hd.button = (pg_button)b, hd.x = (int32_t)x, hd.y = (int32_t)y;
    hd.at = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "at"));
    return h->ops->hold(h->p, &hd, e); /* the backend judges the button */
}

/* {"window","mode","user"}: the sign, shown by the helper's backend (window 0 hides it). */
static pg_err h_indicate(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {
    static const pg_arg_spec spec[] = {
        {"window", PG_ARG_INT, true}, {"mode", PG_ARG_INT, true}, {"user", PG_ARG_STRING, true}};
    (void)result, (void)att;
    pg_indicator how = {0};
    int64_t mode = 0;
    pg_err rc = pg_args_check(args, spec, 3, e);
    if (rc) return rc;
    const char *user = pg_args_str(args, "user", "");
    int64_t w = 0;
    if (!arg_in(args, "window", 0, MAX_ID, &w) || !arg_in(args, "mode", PG_INDICATOR_RING, PG_INDICATOR_BANNER, &mode) ||
        strlen(user) >= sizeof how.user)
        return out_of_range("window/mode/user", e);
    how.window = (uint64_t)w, how.mode = (pg_indicator_mode)mode;
    snprintf(how.user, sizeof how.user, "%s", user);
    if (!h->ops->indicate) return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "session helper: the backend has no indicate");
    return h->ops->indicate(h->p, &how, e);
}

/* ------------------------------------------ generated (WIRE) handlers */

#define WIRE_MAX_PARAMS 8

/* Reads a WIRE call's args: exactly its inputs, each in its range. */
static pg_err wire_args(const cJSON *args, pg_helper_wire_param *ps, size_t n, pg_error *e) {
    pg_arg_spec spec[WIRE_MAX_PARAMS];
    size_t k = 0;
    double lo, hi;
    for (size_t i = 0; i < n; i++)
        if (ps[i].kind == PG_WK_TEXT || (!pg_helper_wire_is_out(ps[i].kind) && pg_helper_wire_range(ps[i].kind, &lo, &hi)))
            spec[k++] = (pg_arg_spec){ps[i].name, ps[i].kind == PG_WK_TEXT ? PG_ARG_STRING : PG_ARG_INT, true};
    pg_err rc = pg_args_check(args, k ? spec : NULL, k, e);
    for (size_t i = 0; !rc && i < n; i++) {
        pg_helper_wire_param *q = &ps[i];
        int64_t v = 0;
        if (q->kind == PG_WK_TEXT) q->v.text = pg_args_str(args, q->name, "");
        if (q->kind == PG_WK_TEXT || pg_helper_wire_is_out(q->kind) || !pg_helper_wire_range(q->kind, &lo, &hi)) continue;
        if (!arg_in(args, q->name, lo, hi, &v)) return out_of_range(q->name, e);
        if (q->kind == PG_WK_ID) q->v.u64 = (uint64_t)v;
        else if (q->kind == PG_WK_I32 || q->kind == PG_WK_BUTTON || q->kind == PG_WK_COUNT) q->v.i32 = (int32_t)v;
        else q->v.u32 = (uint32_t)v;
    }
    return rc;
}

/* A WIRE call's outputs as its result (none: an empty result). */
static pg_err wire_result(const pg_helper_wire_param *ps, size_t n, cJSON **result, pg_error *e) {
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        const pg_helper_wire_param *q = &ps[i];
        if (!pg_helper_wire_is_out(q->kind)) continue;
        double v = q->kind == PG_WK_OUT_ID ? (double)q->v.u64
                   : q->kind == PG_WK_OUT_I32 ? q->v.i32
                   : q->kind == PG_WK_OUT_U32 ? q->v.u32
                                              : (double)q->v.responding;
        if (!*result) *result = cJSON_CreateObject();
        ok = *result && cJSON_AddNumberToObject(*result, q->name, v);
    }
    return ok ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
}

/* How the handler passes each parameter to the backend, by its kind. */
#define HS_ARG_(kind, pn) , HS_ARG_##kind(ps[pn##_i])
#define HS_ARG_SELF(q) h->p
#define HS_ARG_ERR(q) e
#define HS_ARG_ID(q) q.v.u64
#define HS_ARG_I32(q) q.v.i32
#define HS_ARG_BUTTON(q) (pg_button) q.v.i32
#define HS_ARG_COUNT(q) (int)q.v.i32
#define HS_ARG_U32(q) q.v.u32
#define HS_ARG_WAIT_MS(q) q.v.u32
#define HS_ARG_PING_MS(q) q.v.u32
#define HS_ARG_TEXT(q) q.v.text
#define HS_ARG_OUT_ID(q) &q.v.u64
#define HS_ARG_OUT_I32(q) &q.v.i32
#define HS_ARG_OUT_U32(q) &q.v.u32
#define HS_ARG_RESPONDING(q) &q.v.responding
#define HS_POS_(kind, pn) pn##_i,
#define HS_PARAM_(kind, pn) {#pn, PG_WK_##kind, {0}, NULL},

/* h_<name> for each WIRE primitive of pg_platform.def: args checked and read,
 * the backend called, its outputs answered. */
#define HS_WIRE(name)                                                                                          \
    static pg_err h_##name(helper *h, const cJSON *args, cJSON **result, pg_blob *att, pg_error *e) {          \
        enum { PG_ARGS_##name(HS_POS_) n_ };                                                                   \
        pg_helper_wire_param ps[n_] = {PG_ARGS_##name(HS_PARAM_)};                                                \
        _Static_assert(n_ <= WIRE_MAX_PARAMS, "too many parameters");                                          \
        (void)att;                                                                                             \
        pg_err rc = wire_args(args, ps, n_, e);                                                                \
        if (!rc && !h->ops->name)                                                                              \
            rc = pg_error_set(e, PG_E_UNSUPPORTED, NULL, "session helper: the backend has no %s", #name);      \
        if (!rc) rc = h->ops->name(PG_TAIL(PG_ARGS_##name(HS_ARG_)));                                          \
        return rc ? rc : wire_result(ps, n_, result, e);                                                       \
    }
#define HS_GEN_WIRE(name) HS_WIRE(name)
#define HS_GEN_CUSTOM(name)
#define HS_GEN_LOCAL(name)
#define HS_GEN_NONE(name)
#define PG_PRIM(name, ret, bk, cap, helper, ...) HS_GEN_##helper(name)
#include "pg_platform.def"
#undef PG_PRIM

/* The ops the helper answers: every WIRE and CUSTOM primitive, by its name. */
#define HS_ENTRY_WIRE(name) {#name, h_##name},
#define HS_ENTRY_CUSTOM(name) {#name, h_##name},
#define HS_ENTRY_LOCAL(name)
#define HS_ENTRY_NONE(name)
#define PG_PRIM(name, ret, bk, cap, helper, ...) HS_ENTRY_##helper(name)
static const struct {
    const char *op;
    handler_fn fn;
} handlers[] = {
#include "pg_platform.def"
};
#undef PG_PRIM

/* ------------------------------------------------------------- serving */

static bool allowed(const helper *h, const char *op) {
    if (!h->allow) return true;
    for (size_t i = 0; i < h->n_allow; i++)
        if (!strcmp(h->allow[i], op)) return true;
    return false;
}

cJSON *pg_helper_answer(pg_helper_server *h, const cJSON *header, pg_blob *att) {
    pg_request req;
    pg_error e;
    cJSON *result = NULL;
    *att = (pg_blob){0};
    pg_err rc = pg_proto_parse_request(header, &req, &e);
    size_t i = 0;
    while (!rc && i < sizeof handlers / sizeof *handlers && strcmp(handlers[i].op, req.op) != 0) i++;
    if (!rc && i == sizeof handlers / sizeof *handlers)
        rc = pg_error_set(&e, PG_E_POLICY, "the broker and its helper are different versions?",
                          "session helper: unknown op \"%s\"", req.op);
    if (!rc && !allowed(h, req.op))
        rc = pg_error_set(&e, PG_E_POLICY, NULL, "session helper: \"%s\" is not on the allowlist the broker sent",
                          req.op);
    if (!rc && !h->p) e = h->open_err, rc = e.code;
    if (!rc) rc = handlers[i].fn(h, req.args, &result, att, &e);
    if (!rc) return pg_proto_response_ok(req.id, result);
    cJSON_Delete(result);
    free(att->data);
    *att = (pg_blob){0};
    return pg_proto_response_err(req.id, &e, NULL);
}

pg_err pg_helper_serve_one(pg_helper_server *h, pg_conn *conn, uint32_t idle_ms, pg_error *e) {
    pg_proto_limits limits;
    pg_proto_limits_default(&limits);
    limits.max_header = PG_HELPER_MAX_REQUEST;
    limits.max_attachments = 0; /* requests carry none */
    pg_msg m;
    pg_conn_set_timeout(conn, idle_ms);
    pg_err rc = pg_proto_read(conn, &limits, &m, e);
    if (rc) return rc;
    if (h->before) h->before(h->ctx);
    pg_blob att = {0};
    cJSON *reply = pg_helper_answer(h, m.header, &att);
    pg_msg_fini(&m);
    if (!reply) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_conn_set_timeout(conn, WRITE_MS);
    if (!rc) rc = pg_proto_write(conn, reply, &att, att.data ? 1 : 0, e);
    cJSON_Delete(reply);
    free(att.data);
    return rc;
}
