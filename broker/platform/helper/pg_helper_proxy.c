/* SPDX-License-Identifier: MIT */
/* pg_helper_proxy.c - the broker's side of the session helper: a
 * pg_platform_ops whose calls are requests over the helper's connection (see
 * pg_helper.h for the contract), on every OS.
 *
 * Why so strict with replies: the helper runs in the user's session, where
 * other processes of that session can attack it; the service must never let
 * a broken or hostile helper make it allocate, index or print beyond what a
 * genuine reply could need. Any reply that fails a check ends the helper.
 * Why one deadline per call: the reply is read under what is left of the
 * call's time, one deadline over all of pg_proto_read's reads, so a helper
 * trickling bytes cannot stretch a call past its bound.
 * Why watch_person polls: the helper answers requests and never speaks
 * first, so the person's stop presses reach the broker by a person_poll
 * every PG_HELPER_PERSON_POLL_MS from a thread of the proxy's own, which
 * takes the call lock like any call: a press during a long call (a settle,
 * a long text) is seen when that call ends.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_helper.h"
#include "pg_monitor_json.h"
#include "pg_person.h"
#include "pg_path_json.h"
#include "pg_proto.h"
#include "pg_time.h"
#include "pg_window_json.h"

#define MAX_ID 9007199254740991.0 /* 2^53 - 1: every window id is below (docs/protocol.md) */
#define REPLY_MAX_HEADER (8u << 20) /* 4096 windows with long escaped titles */
#define MAX_STRIDE_PAD 64u           /* bytes a row may carry beyond width*4 */

/* What person_poll answered. */
typedef struct {
    uint32_t watching, stops, tampers, events, idle_ms;
} person_counts;

/* watch_person's poller: its own lock, so close can stop it while a call runs. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, quit;
    pg_person *person;       /* the broker's */
    char stop_key[64];
    person_counts seen;      /* the last poll's counts */
} person_poller;

typedef struct {
    pthread_mutex_t lock;
    const pg_helper_link_ops *ops;
    void *link;
    pg_conn *conn;           /* the link's connection for the call in flight */
    uint32_t call_timeout_ms;
    uint64_t next_id;
    char fallback[96];
    person_poller poll;
} proxy;

/* The handle is our struct: callers only ever pass it back to these ops. */
static proxy *px(pg_platform *p) { return (proxy *)(void *)p; }

/* ------------------------------------------------------------ lifecycle */

pg_err pg_helper_proxy_new(pg_platform **out, const pg_helper_link_ops *ops, void *link, uint32_t call_timeout_ms,
                           pg_error *e) {
    *out = NULL;
    proxy *x = calloc(1, sizeof *x);
    if (!x || pthread_mutex_init(&x->lock, NULL) != 0 || pthread_mutex_init(&x->poll.lock, NULL) != 0) {
        free(x);
        ops->stop(link);
        ops->free(link);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    x->ops = ops;
    x->link = link;
    x->call_timeout_ms = call_timeout_ms ? call_timeout_ms : PG_HELPER_CALL_MS;
    pthread_condattr_t ca; /* monotonic where the threads library has it: a clock step never stretches a wait */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&x->poll.wake, &ca);
    pthread_condattr_destroy(&ca);
    *out = (pg_platform *)(void *)x;
    return PG_OK;
}

static pg_err proxy_open(pg_platform **out, const char *display, pg_error *e) {
    return pg_helper_link_open(out, display, e);
}

static void stop_poller(proxy *x);

static void proxy_close(pg_platform *p) {
    if (!p) return;
    proxy *x = px(p);
    stop_poller(x); /* it calls through the link */
    x->ops->stop(x->link);
    x->ops->free(x->link);
    pthread_cond_destroy(&x->poll.wake);
    pthread_mutex_destroy(&x->poll.lock);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

void *pg_helper_proxy_link(pg_platform *p) { return px(p)->link; }

pg_err pg_helper_proxy_locked(pg_platform *p, pg_err (*fn)(void *link, void *arg, pg_error *e), void *arg,
                              pg_error *e) {
    proxy *x = px(p);
    pthread_mutex_lock(&x->lock);
    pg_err rc = fn(x->link, arg, e);
    pthread_mutex_unlock(&x->lock);
    return rc;
}

void pg_helper_proxy_capture_fallback(pg_platform *p, char *out, size_t cap) {
    proxy *x = px(p);
    pthread_mutex_lock(&x->lock);
    snprintf(out, cap, "%s", x->fallback);
    pthread_mutex_unlock(&x->lock);
}

/* ------------------------------------------------------- reply checking */

/* A reply that fails a check: PG_E_INTERNAL with the reason. */
#ifdef _WIN32
static pg_err bad_reply(pg_error *e, const char *fmt, ...) __attribute__((format(gnu_printf, 2, 3)));
#else
static pg_err bad_reply(pg_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static pg_err bad_reply(pg_error *e, const char *fmt, ...) {
    char why[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return pg_error_set(e, PG_E_INTERNAL, NULL, "session helper sent an invalid reply: %s", why);
}

/* Exact fields and types (pg_args_check), reported as a bad reply. */
static pg_err check_fields(const cJSON *o, const pg_arg_spec *spec, size_t n, const char *what, pg_error *e) {
    pg_error why;
    if (!cJSON_IsObject(o)) return bad_reply(e, "%s is not an object", what);
    if (pg_args_check(o, spec, n, &why)) return bad_reply(e, "%s: %s", what, why.message);
    return PG_OK;
}

static bool int_in(const cJSON *o, const char *name, double lo, double hi, int64_t *v) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= lo && j->valuedouble <= hi)) return false;
    *v = (int64_t)j->valuedouble;
    return true;
}

/* Well-formed UTF-8: no stray continuation, overlong form, surrogate or
 * code point above U+10FFFF. */
static bool utf8_valid(const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        unsigned c = *u++, n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                               : c >= 0xf0 && c <= 0xf4 ? 3 : 9;
        if (n == 9) return false;
        uint32_t cp = n ? c & (0x3fu >> n) : c;
        for (unsigned i = 0; i < n; i++, u++) {
            if ((*u & 0xc0) != 0x80) return false;
            cp = cp << 6 | (*u & 0x3fu);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
    }
    return true;
}

/* Copies a checked string field into out[cap]: shorter than cap, UTF-8. */
static bool str_into(const cJSON *o, const char *name, char *out, size_t cap) {
    const char *s = pg_args_str(o, name, NULL);
    if (!s || strlen(s) >= cap || !utf8_valid(s)) return false;
    memcpy(out, s, strlen(s) + 1);
    return true;
}

/* Method names are short ASCII words ("bitblt", "printwindow", "dxgi"). */
static bool method_into(const cJSON *o, char *out, size_t cap) {
    if (!str_into(o, "method", out, cap) || !out[0]) return false;
    for (const char *c = out; *c; c++)
        if (*c < 0x21 || *c > 0x7e) return false;
    return true;
}

/* An error object: a known code other than OK, its exit number if given,
 * message and tip within pg_error's sizes (a genuine one always is). */
static pg_err check_error(const cJSON *eo, pg_error *e) {
    static const pg_arg_spec spec[] = {{"code", PG_ARG_STRING, true},
                                       {"exit", PG_ARG_INT, false},
                                       {"message", PG_ARG_STRING, true},
                                       {"recovery_tip", PG_ARG_STRING, false}};
    pg_err rc = check_fields(eo, spec, sizeof spec / sizeof *spec, "error", e);
    if (rc) return rc;
    const char *name = pg_args_str(eo, "code", "");
    pg_err code = pg_err_from_name(name);
    if (code == PG_OK || strcmp(pg_err_name(code), name) != 0) return bad_reply(e, "unknown error code");
    if (pg_args_int(eo, "exit", code) != code) return bad_reply(e, "error exit does not match its code");
    if (strlen(pg_args_str(eo, "message", "")) >= PG_ERR_MSG_MAX ||
        strlen(pg_args_str(eo, "recovery_tip", "")) >= PG_ERR_TIP_MAX)
        return bad_reply(e, "error message or tip too long");
    return PG_OK;
}

/* The envelope: exact top-level fields and the request's id. PG_OK with
 * *result set for a result, NULL for the helper's own error. */
static pg_err check_envelope(const pg_msg *m, uint64_t id, const cJSON **result, pg_error *e) {
    static const pg_arg_spec spec[] = {{"v", PG_ARG_INT, true},       {"id", PG_ARG_INT, true},
                                       {"ok", PG_ARG_BOOL, true},     {"result", PG_ARG_OBJECT, false},
                                       {"error", PG_ARG_OBJECT, false}};
    pg_err rc = check_fields(m->header, spec, sizeof spec / sizeof *spec, "reply", e);
    if (rc) return rc;
    if (pg_args_int(m->header, "v", 0) != PG_PROTO_VERSION) return bad_reply(e, "version is not %d", PG_PROTO_VERSION);
    int64_t got = 0;
    if (!int_in(m->header, "id", 0, MAX_ID, &got) || (uint64_t)got != id)
        return bad_reply(e, "reply id does not match request %llu", (unsigned long long)id);
    bool ok = pg_args_bool(m->header, "ok", false);
    *result = cJSON_GetObjectItemCaseSensitive(m->header, "result");
    const cJSON *eo = cJSON_GetObjectItemCaseSensitive(m->header, "error");
    if (ok ? (!*result || eo) : (*result || !eo)) return bad_reply(e, "\"ok\" disagrees with result/error");
    if (!ok && m->n_att) return bad_reply(e, "an error with an attachment");
    return ok ? PG_OK : check_error(eo, e);
}

/* The helper's error, handed on as it is: code, message, and the tip (the
 * wire fills in the default tip; a site that gave none gets none here). */
static pg_err helper_error(const pg_msg *m, uint64_t id, pg_error *e) {
    const cJSON *unused;
    pg_err rc = pg_proto_parse_response(m->header, id, &unused, NULL, e);
    if (!strcmp(e->recovery_tip, pg_err_default_tip(rc))) e->recovery_tip[0] = '\0';
    return rc;
}

/* ------------------------------------------------------------ decoders */

/* Turns a checked result (and the message's attachments) into out. */
typedef pg_err (*decode_fn)(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e);

static pg_err dec_none(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e) {
    (void)x, (void)out;
    pg_err rc = check_fields(result, NULL, 0, "result", e);
    if (!rc && m->n_att) return bad_reply(e, "unexpected attachment");
    return rc;
}

/* Keeps whole UTF-8 sequences when cutting s to fit cap bytes. */
static void fit_utf8(char *s, size_t cap) {
    size_t n = strlen(s);
    if (n < cap) return;
    n = cap - 1;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
    s[n] = '\0';
}

static pg_err dec_caps(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e) {
    static const pg_arg_spec spec[] = {
        {"list_windows", PG_ARG_BOOL, true},   {"capture_window", PG_ARG_BOOL, true},
        {"capture_covered", PG_ARG_BOOL, true}, {"capture_screen", PG_ARG_BOOL, true},
        {"input_pointer", PG_ARG_BOOL, true},  {"input_keys", PG_ARG_BOOL, true},
        {"input_text_unicode", PG_ARG_BOOL, true}, {"settle", PG_ARG_BOOL, true},
        {"window_manager", PG_ARG_BOOL, true}, {"backend", PG_ARG_STRING, true},
        {"detail", PG_ARG_STRING, true},       {"desktop", PG_ARG_STRING, true}};
    pg_caps *c = out;
    char detail[sizeof c->detail], desktop[128];
    pg_err rc = check_fields(result, spec, sizeof spec / sizeof *spec, "caps", e);
    if (rc) return rc;
    if (m->n_att) return bad_reply(e, "unexpected attachment");
    if (!str_into(result, "backend", c->backend, sizeof c->backend) ||
        !str_into(result, "detail", detail, sizeof detail) || !str_into(result, "desktop", desktop, sizeof desktop))
        return bad_reply(e, "caps strings too long or not UTF-8");
    c->list_windows = pg_args_bool(result, "list_windows", false);
    c->capture_window = pg_args_bool(result, "capture_window", false);
    c->capture_covered = pg_args_bool(result, "capture_covered", false);
    c->capture_screen = pg_args_bool(result, "capture_screen", false);
    c->input_pointer = pg_args_bool(result, "input_pointer", false);
    c->input_keys = pg_args_bool(result, "input_keys", false);
    c->input_text_unicode = pg_args_bool(result, "input_text_unicode", false);
    c->settle = pg_args_bool(result, "settle", false);
    c->window_manager = pg_args_bool(result, "window_manager", false);
    /* How the helper runs comes first: it is what a truncated detail must keep. */
    char how[160], all[sizeof c->detail + sizeof how + sizeof desktop + 64];
    x->ops->describe(x->link, how, sizeof how);
    snprintf(all, sizeof all, "helper %s; %s%s%s", how, desktop, desktop[0] ? "; " : "", detail);
    fit_utf8(all, sizeof c->detail);
    memcpy(c->detail, all, strlen(all) + 1);
    return PG_OK;
}

/* One window in the one JSON form (pg_window_json.h), strictly. */
static pg_err dec_window(const cJSON *o, pg_window *w, size_t i, pg_error *e) {
    pg_error why;
    if (pg_window_json_decode(o, w, &why) != PG_OK) return bad_reply(e, "window %zu: %s", i, why.message);
    return PG_OK;
}

typedef struct {
    pg_window **list;
    size_t *n;
    bool *complete; /* list_all: the reply must say */
} list_out;

static pg_err dec_list(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e) {
    static const pg_arg_spec spec[] = {{"windows", PG_ARG_ARRAY, true}};
    static const pg_arg_spec spec_all[] = {{"windows", PG_ARG_ARRAY, true}, {"complete", PG_ARG_BOOL, true}};
    list_out *lo = out;
    pg_err rc = lo->complete ? check_fields(result, spec_all, 2, "list_all", e) : check_fields(result, spec, 1, "list", e);
    if (rc) return rc;
    if (lo->complete) *lo->complete = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "complete"));
    if (m->n_att) return bad_reply(e, "unexpected attachment");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(result, "windows");
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n > PG_HELPER_MAX_WINDOWS) return bad_reply(e, "%zu windows (limit %u)", n, PG_HELPER_MAX_WINDOWS);
    pg_window *w = calloc(n ? n : 1, sizeof *w);
    if (!w) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for %zu windows", n);
    size_t i = 0;
    for (const cJSON *o = arr->child; o && !rc; o = o->next, i++) rc = dec_window(o, &w[i], i, e);
    if (rc) {
        free(w);
        return rc;
    }
    /* Targets are only what this helper is trusted for; list_all stays whole,
     * because it is what screen captures black out from: a window of another
     * account dropped there would be left in the pixels. */
    if (x->ops->filter && !lo->complete) x->ops->filter(x->link, w, &n);
    *lo->list = w;
    *lo->n = n;
    return PG_OK;
}

typedef struct {
    pg_capture *cap;
    const pg_rect *region; /* what was asked for, NULL = all */
} capture_out;

/* Size checks in 64 bits: nothing here can overflow. */
static pg_err check_capture(const capture_out *co, int64_t w, int64_t h, int64_t stride, size_t len, pg_error *e) {
    if (w < 1 || h < 1 || w > PG_HELPER_MAX_DIM || h > PG_HELPER_MAX_DIM)
        return bad_reply(e, "capture of %lldx%lld (each side 1..%u)", (long long)w, (long long)h,
                         PG_HELPER_MAX_DIM);
    if (stride < w * 4 || stride > w * 4 + MAX_STRIDE_PAD)
        return bad_reply(e, "stride %lld for width %lld", (long long)stride, (long long)w);
    if ((uint64_t)(stride * h) > PG_HELPER_MAX_CAPTURE)
        return bad_reply(e, "capture of %lld bytes (limit %llu)", (long long)(stride * h),
                         (unsigned long long)PG_HELPER_MAX_CAPTURE);
    if ((uint64_t)len != (uint64_t)(stride * h))
        return bad_reply(e, "attachment of %zu bytes, but stride*height is %lld", len, (long long)(stride * h));
    if (co->region && ((uint64_t)w > co->region->w || (uint64_t)h > co->region->h))
        return bad_reply(e, "capture of %lldx%lld for a %ux%u region", (long long)w, (long long)h, co->region->w,
                         co->region->h);
    return PG_OK;
}

static pg_err dec_capture(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e) {
    static const pg_arg_spec spec[] = {{"width", PG_ARG_INT, true},   {"height", PG_ARG_INT, true},
                                       {"stride", PG_ARG_INT, true},  {"method", PG_ARG_STRING, true},
                                       {"fallback", PG_ARG_STRING, true}, {"origin_x", PG_ARG_INT, true},
                                       {"origin_y", PG_ARG_INT, true}};
    capture_out *co = out;
    pg_capture c = {0};
    char fallback[sizeof x->fallback];
    pg_err rc = check_fields(result, spec, sizeof spec / sizeof *spec, "capture", e);
    if (rc) return rc;
    if (m->n_att != 1) return bad_reply(e, "capture with %zu attachments, not 1", m->n_att);
    int64_t w = pg_args_int(result, "width", 0), h = pg_args_int(result, "height", 0);
    int64_t stride = pg_args_int(result, "stride", 0);
    if ((rc = check_capture(co, w, h, stride, m->att[0].len, e)) != PG_OK) return rc;
    if (!method_into(result, c.method, sizeof c.method) || !str_into(result, "fallback", fallback, sizeof fallback))
        return bad_reply(e, "capture method or fallback too long or not text");
    int64_t ox = pg_args_int(result, "origin_x", 0), oy = pg_args_int(result, "origin_y", 0);
    if (ox < INT32_MIN / 2 || ox > INT32_MAX / 2 || oy < INT32_MIN / 2 || oy > INT32_MAX / 2)
        return bad_reply(e, "capture origin %lld,%lld out of range", (long long)ox, (long long)oy);
    c.width = (uint32_t)w, c.height = (uint32_t)h, c.stride = (size_t)stride;
    c.origin_x = (int32_t)ox, c.origin_y = (int32_t)oy;
    c.rgba = m->att[0].data; /* taken from the message */
    m->att[0].data = NULL;
    memcpy(x->fallback, fallback, sizeof fallback);
    *co->cap = c;
    return PG_OK;
}

/* ----------------------------------------------------------- one call */

/* The helper's stream is out of step or gone: stop it; the next call
 * asks the link for a helper again. */
static pg_err transport_failed(proxy *x, const char *op, uint64_t ms, pg_err rc, pg_error *e) {
    char why[PG_ERR_MSG_MAX];
    snprintf(why, sizeof why, "%s", e->message);
    x->ops->stop(x->link);
    if (rc == PG_E_TIMEOUT)
        return pg_error_set(e, PG_E_TIMEOUT, x->ops->tip,
                            "session helper did not answer \"%s\" within %llu ms; it was stopped", op,
                            (unsigned long long)ms);
    if (rc == PG_E_UNREACHABLE)
        return pg_error_set(e, PG_E_UNREACHABLE, x->ops->tip, "session helper is gone (%s) during \"%s\"", why, op);
    return pg_error_set(e, PG_E_INTERNAL, x->ops->tip, "session helper sent a broken frame for \"%s\": %s", op, why);
}

/* Sends op(args) and reads the reply within call_timeout_ms + extra_ms. */
static pg_err exchange(proxy *x, const char *op, cJSON *args, uint32_t extra_ms, decode_fn dec, void *out,
                       pg_error *e) {
    static const pg_proto_limits limits = {REPLY_MAX_HEADER, 1, PG_HELPER_MAX_CAPTURE, PG_HELPER_MAX_CAPTURE};
    uint64_t id = ++x->next_id;
    uint64_t ms = (uint64_t)x->call_timeout_ms + extra_ms;
    pg_deadline until = pg_deadline_in_ms((double)ms);
    cJSON *req = pg_proto_request_new(id, op, args);
    if (!req) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_conn_set_timeout(x->conn, x->call_timeout_ms);
    pg_err rc = pg_proto_write(x->conn, req, NULL, 0, e);
    cJSON_Delete(req);
    /* The reply gets what is left of the call's time, as one deadline over
     * all its reads (pg_proto_read): a helper trickling bytes cannot stretch it. */
    uint32_t left = pg_deadline_left_ms(until);
    if (!rc && !left) rc = pg_error_set(e, PG_E_TIMEOUT, NULL, "deadline passed");
    pg_msg m = {0};
    if (!rc) {
        pg_conn_set_timeout(x->conn, left);
        rc = pg_proto_read(x->conn, &limits, &m, e);
    }
    if (rc) return transport_failed(x, op, ms, rc, e);
    const cJSON *result = NULL;
    rc = check_envelope(&m, id, &result, e);
    bool rejected = rc != PG_OK;
    if (!rc && result) rejected = (rc = dec(x, result, &m, out, e)) != PG_OK;
    else if (!rc) rc = helper_error(&m, id, e);
    if (rejected) x->ops->stop(x->link); /* broken or hostile: not to be trusted again */
    pg_msg_fini(&m);
    return rc;
}

/* One request: args is owned (NULL = out of memory). */
static pg_err call(pg_platform *p, const char *op, cJSON *args, uint32_t extra_ms, decode_fn dec, void *out,
                   pg_error *e) {
    proxy *x = px(p);
    pg_error local;
    if (!e) e = &local;
    if (!args) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pthread_mutex_lock(&x->lock);
    pg_err rc = x->ops->ensure(x->link, &x->conn, e);
    if (rc) cJSON_Delete(args);
    else rc = exchange(x, op, args, extra_ms, dec, out, e);
    x->conn = NULL;
    pthread_mutex_unlock(&x->lock);
    return rc;
}

/* ------------------------------------------------------------- the ops */

/* {"id": id, ...}; NULL on out of memory. */
static cJSON *args_for(uint64_t id) {
    cJSON *a = cJSON_CreateObject();
    if (a && !cJSON_AddNumberToObject(a, "id", (double)id)) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

static bool add_num(cJSON *a, const char *name, double v) { return a && cJSON_AddNumberToObject(a, name, v); }

/* Adds "region" if given; false on out of memory. */
static bool add_region(cJSON *a, const pg_rect *r) {
    if (!r) return true;
    cJSON *o = cJSON_AddObjectToObject(a, "region");
    return o && add_num(o, "x", r->x) && add_num(o, "y", r->y) && add_num(o, "w", r->w) && add_num(o, "h", r->h);
}

/* NULL if a failed to build, so call() reports out of memory. */
static cJSON *built(cJSON *a, bool ok) {
    if (ok) return a;
    cJSON_Delete(a);
    return NULL;
}

/* No window has an id at or above 2^53: it cannot be sent exactly, and
 * there is nothing to find. */
static pg_err id_unknown(uint64_t id, pg_error *e) {
    return pg_error_set(e, PG_E_NOTFOUND, NULL, "no window 0x%llx", (unsigned long long)id);
}

static pg_err proxy_caps(pg_platform *p, pg_caps *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    return call(p, "caps", cJSON_CreateObject(), 0, dec_caps, out, e);
}

static pg_err proxy_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e) {
    *out = NULL;
    *n = 0;
    list_out lo = {out, n, NULL};
    return call(p, "list_windows", cJSON_CreateObject(), 0, dec_list, &lo, e);
}

static pg_err proxy_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    *out = NULL;
    *n = 0;
    *complete = false; /* until the helper says otherwise */
    list_out lo = {out, n, complete};
    return call(p, "list_all", cJSON_CreateObject(), 0, dec_list, &lo, e);
}

static pg_err proxy_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out,
                                   pg_error *e) {
    memset(out, 0, sizeof *out);
    if (id > (uint64_t)MAX_ID) return id_unknown(id, e);
    capture_out co = {out, region};
    cJSON *a = args_for(id);
    return call(p, "capture_window", built(a, a && add_region(a, region)), 0, dec_capture, &co, e);
}

static pg_err proxy_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    capture_out co = {out, region};
    cJSON *a = cJSON_CreateObject();
    return call(p, "capture_screen", built(a, a && add_region(a, region)), 0, dec_capture, &co, e);
}

typedef struct {
    pg_monitor *v;
    size_t n;
} monitor_out;

/* {"monitors": [...]} in the one monitor form (pg_monitor_json.h). */
static pg_err dec_monitors(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e) {
    (void)x;
    static const pg_arg_spec spec[] = {{"monitors", PG_ARG_ARRAY, true}};
    pg_err rc = check_fields(result, spec, 1, "monitors", e);
    if (rc) return rc;
    if (m->n_att) return bad_reply(e, "unexpected attachment");
    monitor_out *mo = out;
    pg_error why;
    if (pg_monitor_json_decode(cJSON_GetObjectItemCaseSensitive(result, "monitors"), &mo->v, &mo->n, &why))
        return bad_reply(e, "%s", why.message);
    return PG_OK;
}

static pg_err proxy_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e) {
    monitor_out mo = {NULL, 0};
    pg_err rc = call(p, "monitors", cJSON_CreateObject(), 0, dec_monitors, &mo, e);
    *out = mo.v, *n = mo.n;
    return rc;
}

/* The path goes as [[x,y],...]; the helper's wait is the drag's own. */
static pg_err proxy_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                         uint32_t step_ms, pg_error *e) {
    if (id > (uint64_t)MAX_ID) return id_unknown(id, e);
    if (!pg_drag_shape_ok(n, hold_ms, step_ms))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "a drag has 2 to %d points and takes at most %d ms",
                            PG_DRAG_MAX_POINTS, PG_DRAG_MAX_MS);
    cJSON *a = args_for(id), *pts = pg_path_json(path, n);
    bool ok = a && pts && cJSON_AddItemToObject(a, "path", pts);
    if (!ok) cJSON_Delete(pts);
    ok = ok && add_num(a, "button", (int)b) && add_num(a, "hold_ms", hold_ms) && add_num(a, "step_ms", step_ms);
    return call(p, "drag", built(a, ok), hold_ms + (uint32_t)(n - 2) * step_ms, dec_none, NULL, e);
}

/* Text the helper's request limit can carry even fully escaped. */
static pg_err text_check(const char *s, const char *what, pg_error *e) {
    if (!s) return pg_error_set(e, PG_E_BADINPUT, NULL, "no %s given", what);
    if (strlen(s) > PG_HELPER_MAX_TEXT)
        return pg_error_set(e, PG_E_BADINPUT, "send the text in smaller pieces", "%s of %zu bytes (limit %zu)", what,
                            strlen(s), PG_HELPER_MAX_TEXT);
    return PG_OK;
}

/* {"id","down","key"} or {"id","down","button","at","x","y"}; id 0: a
 * release wherever the focus or the pointer is. */
static pg_err proxy_hold(pg_platform *p, const pg_hold *h, pg_error *e) {
    if (h->id > (uint64_t)MAX_ID) return id_unknown(h->id, e);
    if (h->is_key && text_check(h->key, "key", e)) return PG_E_BADINPUT;
    cJSON *a = args_for(h->id);
    bool ok = a && cJSON_AddBoolToObject(a, "down", h->down);
    if (h->is_key) ok = ok && cJSON_AddStringToObject(a, "key", h->key);
    else
        ok = ok && add_num(a, "button", (int)h->button) && cJSON_AddBoolToObject(a, "at", h->at) &&
             add_num(a, "x", h->x) && add_num(a, "y", h->y);
    return call(p, "hold", built(a, ok), 0, dec_none, NULL, e);
}

/* The helper is gone (the link says how it knows): the broker reports the
 * display lost, closes the proxy and opens a new one when its backoff
 * allows, so ping tells a health check while no helper runs. Never waits:
 * a proxy in a call is not looked at. */
static bool proxy_lost(pg_platform *p, char *why, size_t n) {
    proxy *x = px(p);
    if (pthread_mutex_trylock(&x->lock) != 0) return false;
    bool gone = x->ops->gone(x->link, why, n);
    pthread_mutex_unlock(&x->lock);
    return gone;
}

/* ------------------------------------------- the generated (WIRE) ops */

/* Outputs start out empty, so a failed call leaves nothing half-read. */
static void wire_reset(const pg_helper_wire_param *ps, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (ps[i].kind == PG_WK_OUT_ID) *(uint64_t *)ps[i].out = 0;
        else if (ps[i].kind == PG_WK_OUT_I32) *(int32_t *)ps[i].out = 0;
        else if (ps[i].kind == PG_WK_OUT_U32) *(uint32_t *)ps[i].out = 0;
        else if (ps[i].kind == PG_WK_RESPONDING) *(pg_responding *)ps[i].out = PG_RESPONDING_UNKNOWN;
    }
}

/* What the helper's limits refuse is refused here, unsent: text first, then
 * ids no window can have (they cannot be sent exactly). */
static pg_err wire_precheck(const pg_helper_wire_param *ps, size_t n, pg_error *e) {
    for (size_t i = 0; i < n; i++)
        if (ps[i].kind == PG_WK_TEXT && text_check(ps[i].v.text, ps[i].name, e)) return PG_E_BADINPUT;
    for (size_t i = 0; i < n; i++)
        if (ps[i].kind == PG_WK_ID && ps[i].v.u64 > (uint64_t)MAX_ID) return id_unknown(ps[i].v.u64, e);
    return PG_OK;
}

static double wire_number(const pg_helper_wire_param *q) {
    switch (q->kind) {
    case PG_WK_ID: return (double)q->v.u64;
    case PG_WK_I32: case PG_WK_BUTTON: case PG_WK_COUNT: return q->v.i32;
    default: return q->v.u32;
    }
}

/* The request's args; *extra_ms: the waits the helper may take whole. NULL: out of memory. */
static cJSON *wire_request(const pg_helper_wire_param *ps, size_t n, uint32_t *extra_ms) {
    cJSON *a = cJSON_CreateObject();
    bool ok = a != NULL;
    *extra_ms = 0;
    for (size_t i = 0; ok && i < n; i++) {
        const pg_helper_wire_param *q = &ps[i];
        double lo, hi;
        if (q->kind == PG_WK_TEXT) ok = cJSON_AddStringToObject(a, q->name, q->v.text) != NULL;
        else if (!pg_helper_wire_is_out(q->kind) && pg_helper_wire_range(q->kind, &lo, &hi))
            ok = add_num(a, q->name, wire_number(q));
        if (q->kind == PG_WK_WAIT_MS || q->kind == PG_WK_PING_MS) *extra_ms += q->v.u32;
    }
    return built(a, ok);
}

typedef struct {
    const char *op;
    pg_helper_wire_param *ps;
    size_t n;
} wire_call;

#define WIRE_MAX_PARAMS 8

/* The reply of a WIRE call: exactly its outputs, each a number in its range. */
static pg_err dec_wire(proxy *x, const cJSON *result, pg_msg *m, void *out, pg_error *e) {
    (void)x;
    const wire_call *w = out;
    pg_arg_spec spec[WIRE_MAX_PARAMS];
    size_t k = 0;
    for (size_t i = 0; i < w->n; i++)
        if (pg_helper_wire_is_out(w->ps[i].kind)) spec[k++] = (pg_arg_spec){w->ps[i].name, PG_ARG_INT, true};
    pg_err rc = check_fields(result, k ? spec : NULL, k, w->op, e);
    if (rc) return rc;
    if (m->n_att) return bad_reply(e, "unexpected attachment");
    int64_t v[WIRE_MAX_PARAMS] = {0};
    for (size_t i = 0; i < w->n; i++) {
        double lo, hi;
        if (pg_helper_wire_is_out(w->ps[i].kind) && pg_helper_wire_range(w->ps[i].kind, &lo, &hi) &&
            !int_in(result, w->ps[i].name, lo, hi, &v[i]))
            return bad_reply(e, "%s: %s out of range", w->op, w->ps[i].name);
    }
    for (size_t i = 0; i < w->n; i++) { /* all in range: only now written */
        void *o = w->ps[i].out;
        switch (w->ps[i].kind) {
        case PG_WK_OUT_ID: *(uint64_t *)o = (uint64_t)v[i]; break;
        case PG_WK_OUT_I32: *(int32_t *)o = (int32_t)v[i]; break;
        case PG_WK_OUT_U32: *(uint32_t *)o = (uint32_t)v[i]; break;
        case PG_WK_RESPONDING: *(pg_responding *)o = (pg_responding)v[i]; break;
        default: break;
        }
    }
    return PG_OK;
}

/* One WIRE call: outputs reset, inputs checked and sent, the reply decoded. */
static pg_err wire(pg_platform *p, const char *op, pg_helper_wire_param *ps, size_t n, pg_error *e) {
    wire_reset(ps, n);
    pg_err rc = wire_precheck(ps, n, e);
    if (rc) return rc;
    uint32_t extra_ms;
    cJSON *a = wire_request(ps, n, &extra_ms);
    wire_call w = {op, ps, n};
    return call(p, op, a, extra_ms, dec_wire, &w, e);
}

/* Each parameter as a pg_helper_wire_param: inputs by value, outputs by where they go. */
#define PX_PARAM_(kind, pn) PX_PARAM_##kind(pn)
#define PX_PARAM_SELF(pn) {#pn, PG_WK_SELF, {0}, NULL},
#define PX_PARAM_ERR(pn) {#pn, PG_WK_ERR, {0}, NULL},
#define PX_PARAM_ID(pn) {#pn, PG_WK_ID, {.u64 = pn}, NULL},
#define PX_PARAM_I32(pn) {#pn, PG_WK_I32, {.i32 = pn}, NULL},
#define PX_PARAM_BUTTON(pn) {#pn, PG_WK_BUTTON, {.i32 = (int32_t)pn}, NULL},
#define PX_PARAM_COUNT(pn) {#pn, PG_WK_COUNT, {.i32 = (int32_t)pn}, NULL},
#define PX_PARAM_U32(pn) {#pn, PG_WK_U32, {.u32 = pn}, NULL},
#define PX_PARAM_WAIT_MS(pn) {#pn, PG_WK_WAIT_MS, {.u32 = pn}, NULL},
#define PX_PARAM_PING_MS(pn) {#pn, PG_WK_PING_MS, {.u32 = pn}, NULL},
#define PX_PARAM_TEXT(pn) {#pn, PG_WK_TEXT, {.text = pn}, NULL},
#define PX_PARAM_OUT_ID(pn) {#pn, PG_WK_OUT_ID, {0}, pn},
#define PX_PARAM_OUT_I32(pn) {#pn, PG_WK_OUT_I32, {0}, pn},
#define PX_PARAM_OUT_U32(pn) {#pn, PG_WK_OUT_U32, {0}, pn},
#define PX_PARAM_RESPONDING(pn) {#pn, PG_WK_RESPONDING, {0}, pn},

/* proxy_<name> for each WIRE primitive of pg_platform.def. */
#define PX_WIRE(name)                                                             \
    static pg_err proxy_##name(PG_PARAMS(name)) {                                 \
        pg_helper_wire_param ps[] = {PG_ARGS_##name(PX_PARAM_)};                     \
        _Static_assert(sizeof ps / sizeof *ps <= WIRE_MAX_PARAMS, "too many");    \
        return wire(p, #name, ps, sizeof ps / sizeof *ps, e);                     \
    }
#define PX_GEN_WIRE(name) PX_WIRE(name)
#define PX_GEN_CUSTOM(name)
#define PX_GEN_LOCAL(name)
#define PX_GEN_NONE(name)
#define PG_PRIM(name, ret, bk, cap, helper, ...) PX_GEN_##helper(name)
#include "pg_platform.def"
#undef PG_PRIM

/* ------------------------------------------------ the person, polled */

static pg_err proxy_indicate(pg_platform *p, const pg_indicator *how, pg_error *e) {
    if (how->window > (uint64_t)MAX_ID) return id_unknown(how->window, e);
    char user[sizeof how->user];
    snprintf(user, sizeof user, "%s", how->user);
    cJSON *a = cJSON_CreateObject();
    bool ok = add_num(a, "window", (double)how->window) && add_num(a, "mode", (int)how->mode) &&
              cJSON_AddStringToObject(a, "user", user);
    return call(p, "indicate", built(a, ok), 0, dec_none, NULL, e);
}

static pg_err poll_once(proxy *x, person_counts *c, pg_error *e) {
    return proxy_person_poll((pg_platform *)(void *)x, x->poll.stop_key, &c->watching, &c->stops, &c->tampers,
                             &c->events, &c->idle_ms, e);
}

/* What changed since the last poll, into the broker's pg_person. Counts that
 * went down are a new helper's (relaunched): all of them are new. Stop
 * presses are replayed one by one (each toggles the latch), at most a
 * bounded number with the parity kept, whatever a broken helper claims. */
static void report(person_poller *w, const person_counts *c) {
    int64_t now = pg_mono_us();
    if (c->stops < w->seen.stops || c->tampers < w->seen.tampers) w->seen = (person_counts){0};
    uint32_t presses = c->stops - w->seen.stops;
    if (presses > 64) presses = 64 + (presses & 1u);
    for (uint32_t i = 0; i < presses; i++) pg_person_stop_key(w->person, now);
    if (c->tampers != w->seen.tampers) pg_person_tamper(w->person, "the session helper saw the keyboard tampered with");
    if (c->events != w->seen.events && c->idle_ms != UINT32_MAX)
        pg_person_activity(w->person, now - (int64_t)c->idle_ms * 1000);
    w->seen = *c;
}

static bool poll_and_report(proxy *x) {
    person_counts c;
    pg_error e;
    if (poll_once(x, &c, &e) != PG_OK) {
        pg_person_set_watching(x->poll.person, false, x->poll.stop_key, e.message);
        return false;
    }
    report(&x->poll, &c);
    pg_person_set_watching(x->poll.person, c.watching != 0, x->poll.stop_key,
                           "the session helper watches no input now");
    return true;
}

/* After a failed poll the next waits twice as long, up to this: a call
 * through a helper that is gone starts a new one, and a session without
 * one must not be asked ten times a second. */
#define PERSON_POLL_BACKOFF_MAX_MS 5000u

static void *poller_main(void *arg) {
    proxy *x = arg;
    person_poller *w = &x->poll;
    uint32_t wait_ms = PG_HELPER_PERSON_POLL_MS;
    pthread_mutex_lock(&w->lock);
    while (!w->quit) {
        pthread_mutex_unlock(&w->lock);
        bool ok = poll_and_report(x);
        wait_ms = ok ? PG_HELPER_PERSON_POLL_MS
                     : wait_ms * 2 < PERSON_POLL_BACKOFF_MAX_MS ? wait_ms * 2 : PERSON_POLL_BACKOFF_MAX_MS;
        pthread_mutex_lock(&w->lock);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += wait_ms / 1000u; /* seconds apart: tv_nsec is a 32-bit long on Windows */
        until.tv_nsec += (long)(wait_ms % 1000u) * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!w->quit && pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static void stop_poller(proxy *x) {
    person_poller *w = &x->poll;
    if (!w->running) return;
    pthread_mutex_lock(&w->lock);
    w->quit = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->running = false;
}

/* The helper's watch, polled into person. The first poll is made here: an
 * error (a backend that cannot watch, a stop key it does not know, a helper
 * not allowed person_poll) is watch_person's, and no poller starts. Called
 * again (another key or person): the old poller stops first. Not at the same
 * time as close. */
static pg_err proxy_watch_person(pg_platform *p, pg_person *person, const char *stop_key, pg_error *e) {
    proxy *x = px(p);
    person_poller *w = &x->poll;
    if (!stop_key || strlen(stop_key) >= sizeof w->stop_key)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "stop key name missing or too long");
    stop_poller(x);
    w->person = person;
    snprintf(w->stop_key, sizeof w->stop_key, "%s", stop_key);
    person_counts c;
    pg_err rc = poll_once(x, &c, e);
    if (rc) return rc;
    w->seen = c; /* counted before this watch: not news */
    pg_person_set_watching(person, c.watching != 0, stop_key, "the session helper watches no input now");
    w->quit = false;
    if (pthread_create(&w->thread, NULL, poller_main, x) != 0)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot start the person poller thread");
    w->running = true;
    return PG_OK;
}

/* The table: generated for WIRE, written above for CUSTOM and LOCAL, NULL for NONE. */
#define PX_FN_WIRE(name) proxy_##name
#define PX_FN_CUSTOM(name) proxy_##name
#define PX_FN_LOCAL(name) proxy_##name
#define PX_FN_NONE(name) NULL
#define PG_PRIM(name, ret, bk, cap, helper, ...) .name = PX_FN_##helper(name),
static const pg_platform_ops helper_ops = {
    .name = "session-helper",
#include "pg_platform.def"
};
#undef PG_PRIM

const pg_platform_ops *pg_helper_ops(void) { return &helper_ops; }
