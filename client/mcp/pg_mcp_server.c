/* SPDX-License-Identifier: MIT */
/* `pixelgate mcp`: the MCP lifecycle over stdio, one thread per tool call,
 * cancellation and progress. The tools themselves are pg_mcp_tools.c; the
 * envelopes pg_jsonrpc.c. See pg_mcp.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#else
#include <signal.h>
#endif

#include "pg_jsonrpc.h"
#include "pg_mcp.h"
#include "pg_time.h"

#define PROGRESS_EVERY_MS 1000

typedef struct server server;

/* One tools/call in flight. */
typedef struct call {
    struct call *next;
    server *srv;
    cJSON *id;             /* owned copy of the request id */
    cJSON *progress;       /* owned copy of _meta.progressToken, or NULL */
    cJSON *arguments;      /* owned copy, or NULL */
    const pg_opdecl *op;
    pg_conn *conn;         /* while connected: what a cancellation aborts (under srv->lock) */
    bool cancelled;        /* under srv->lock: no response will be sent */
    double t0_ms, total_s; /* progress: since when, out of how many seconds */
    double last_progress;
} call;

struct server {
    const pg_mcp_config *cfg;
    FILE *out;
    pthread_mutex_t out_lock; /* one line at a time on stdout */
    pthread_mutex_t lock;     /* calls, n_calls, stopping */
    pthread_cond_t changed;   /* a call ended, or stopping */
    call *calls;
    size_t n_calls;
    bool initialized;
    bool stopping;
    bool out_failed;
    /* Input tools share one connection, kept open between calls: keys and
     * buttons held by key_down and mouse_down belong to the connection that
     * pressed them (the broker lets go when it ends), so the session of
     * this MCP server holds them until key_up, mouse_up or the server's end. */
    pthread_mutex_t input_lock;
    pg_session input;
};

/* The tools that go over the shared input connection: input, cursor
 * (which reports what that connection holds) and lease (a lease taken in
 * this session ends with it). */
static bool on_input_session(const pg_opdecl *op) {
    return pg_mcp_is_input(op) || !strcmp(op->id, "cursor") || !strcmp(op->id, "lease");
}

/* Writes one line (consumed) whole. */
static void send_line(server *s, char *line) {
    if (!line) return;
    pthread_mutex_lock(&s->out_lock);
    if (!s->out_failed && (fputs(line, s->out) == EOF || fflush(s->out) != 0)) s->out_failed = true;
    pthread_mutex_unlock(&s->out_lock);
    free(line);
}

static void send_error(server *s, const cJSON *id, int code, const char *message) {
    send_line(s, pg_rpc_line_error(id, code, message, NULL));
}

/* ---- progress ---- */

/* Under s->lock: the next progress notification of c, if it has a token. */
static void progress_locked(server *s, call *c) {
    if (!c->progress || c->cancelled) return;
    double elapsed = (pg_mono_ms() - c->t0_ms) / 1000.0;
    double p = (double)(long long)(elapsed * 10) / 10; /* 0.1 s steps, and always rising */
    if (p <= c->last_progress && c->last_progress >= 0) p = c->last_progress + 0.1;
    c->last_progress = p;
    cJSON *params = cJSON_CreateObject();
    cJSON_AddItemToObject(params, "progressToken", cJSON_Duplicate(c->progress, 1));
    cJSON_AddNumberToObject(params, "progress", p);
    if (c->total_s > 0) cJSON_AddNumberToObject(params, "total", c->total_s);
    char msg[96];
    snprintf(msg, sizeof msg, "%s: %.0f s of at most %.0f s", c->op->cli, elapsed, c->total_s);
    cJSON_AddStringToObject(params, "message", msg);
    send_line(s, pg_rpc_line_notification("notifications/progress", params));
}

/* Every PROGRESS_EVERY_MS, a notification for each long call that asked. */
static void *ticker(void *arg) {
    server *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!(s->stopping && s->n_calls == 0)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += PROGRESS_EVERY_MS / 1000;
        pthread_cond_timedwait(&s->changed, &s->lock, &until);
        for (call *c = s->calls; c; c = c->next)
            if (pg_mono_ms() - c->t0_ms >= PROGRESS_EVERY_MS) progress_locked(s, c);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- one call ---- */

static void call_free(call *c) {
    cJSON_Delete(c->id);
    cJSON_Delete(c->progress);
    cJSON_Delete(c->arguments);
    free(c);
}

/* Takes c out of the list (a cancellation no longer finds it); true when
 * its answer is still wanted. It still counts in n_calls until its answer is
 * written (call_main): the server's end waits for that count, so a call in
 * flight at the end of input answers before the server returns. */
static bool finish(server *s, call *c) {
    pthread_mutex_lock(&s->lock);
    for (call **p = &s->calls; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    c->conn = NULL;
    bool wanted = !c->cancelled;
    pthread_mutex_unlock(&s->lock);
    return wanted;
}

/* Connects, and lets a cancellation reach the connection from now on. */
static pg_err connect_call(server *s, call *c, pg_session *sess, pg_error *e) {
    pg_err rc = pg_session_connect(sess, e);
    if (rc) return rc;
    pthread_mutex_lock(&s->lock);
    c->conn = sess->conn;
    if (c->cancelled) pg_conn_abort(sess->conn);
    pthread_mutex_unlock(&s->lock);
    return PG_OK;
}

/* One request on the shared input session (under input_lock): a broken
 * or cancelled connection is closed, and the next input call connects anew. */
static pg_err input_call(server *s, call *c, pg_cli_request *req, uint32_t timeout_ms, cJSON **result,
                         cJSON **details, pg_error *e) {
    pthread_mutex_lock(&s->input_lock);
    s->input.timeout_ms = timeout_ms;
    /* The broker closes a connection idle for its --io-timeout (30 s), and
     * lets go of what it held: connect anew rather than write into it. */
    if (s->input.conn && pg_conn_peer_gone(s->input.conn)) pg_session_close(&s->input);
    if (s->input.conn) pg_conn_set_timeout(s->input.conn, timeout_ms);
    pg_err rc = connect_call(s, c, &s->input, e);
    if (!rc) rc = pg_session_call(&s->input, req, result, details, e); /* consumes req */
    else pg_cli_request_fini(req);
    pthread_mutex_lock(&s->lock);
    bool cancelled = c->cancelled;
    pthread_mutex_unlock(&s->lock);
    if (rc == PG_E_UNREACHABLE || rc == PG_E_TIMEOUT || rc == PG_E_INTERNAL || rc == PG_E_BUSY || cancelled) pg_session_close(&s->input);
    pthread_mutex_unlock(&s->input_lock);
    return rc;
}

static void *call_main(void *arg) {
    call *c = arg;
    server *s = c->srv;
    pg_error e;
    pg_error_clear(&e);
    pg_blob image = {0};
    cJSON *result = NULL, *details = NULL;
    pg_cli_request req;
    uint32_t timeout_ms = pg_mcp_call_timeout_ms(c->op, c->arguments, s->cfg->timeout_ms);
    pg_session sess = {.address = s->cfg->address, .timeout_ms = timeout_ms};
    pg_err rc = pg_mcp_build_request(c->op, c->arguments, s->cfg->max_image, &req, &e);
    if (!rc && (c->op->flags & PG_OPF_PIXELS) && !req.out_path) req.out_bytes = &image;
    if (!rc && on_input_session(c->op)) {
        pg_cli_bind_lease(&req);
        rc = input_call(s, c, &req, timeout_ms, &result, &details, &e);
    } else {
        if (!rc) rc = connect_call(s, c, &sess, &e);
        if (!rc) rc = pg_session_call(&sess, &req, &result, &details, &e); /* consumes req */
        else pg_cli_request_fini(&req);
    }
    bool wanted = finish(s, c);
    pg_session_close(&sess);
    if (wanted) {
        cJSON *r = pg_mcp_tool_result(rc, &e, result, details, &image);
        if (r) send_line(s, pg_rpc_line_result(c->id, r));
        else send_error(s, c->id, PG_RPC_INTERNAL_ERROR, "out of memory");
    }
    cJSON_Delete(result);
    cJSON_Delete(details);
    free(image.data);
    call_free(c);
    pthread_mutex_lock(&s->lock);
    s->n_calls--; /* last: the server may return (and its state go) once this is 0 */
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* The seconds a long call may take, for progress's "total". */
static double total_seconds(const pg_opdecl *d, const cJSON *arguments) {
    const pg_argdecl *t = pg_opdecl_arg(d, "timeout");
    if (!t) return 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(arguments, "timeout");
    return cJSON_IsNumber(v) ? v->valuedouble : t->def;
}

/* A call beyond capacity is a tool error the model reads (BUSY, with what
 * to do), not a JSON-RPC error: a host hands a protocol error to its own
 * code, and the model would see only that the tool failed. */
static void send_busy(server *s, const cJSON *id) {
    pg_error e;
    pg_error_set(&e, PG_E_BUSY, "wait for the answer to one of your calls in flight, then call again",
                 "too many tool calls at once: at most %d run together", PG_MCP_MAX_CALLS);
    cJSON *r = pg_mcp_tool_result(PG_E_BUSY, &e, NULL, NULL, NULL);
    if (r) send_line(s, pg_rpc_line_result(id, r));
    else send_error(s, id, PG_RPC_INTERNAL_ERROR, "out of memory");
}

static void tools_call(server *s, const pg_rpc_msg *m) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(m->params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(m->params, "arguments");
    if (!cJSON_IsString(name)) {
        send_error(s, m->id, PG_RPC_INVALID_PARAMS, "tools/call needs a tool name");
        return;
    }
    const pg_opdecl *d = pg_mcp_tool_op(name->valuestring);
    if (!d || !pg_mcp_toolset_has(s->cfg->tools, d)) { /* a tool left out is not there */
        send_error(s, m->id, PG_RPC_INVALID_PARAMS, "unknown tool (see tools/list)");
        return;
    }
    if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
        {
        send_error(s, m->id, PG_RPC_INVALID_PARAMS, "tools/call arguments must be an object");
        return;
    }
    call *c = calloc(1, sizeof *c);
    if (!c) {
        send_error(s, m->id, PG_RPC_INTERNAL_ERROR, "out of memory");
        return;
    }
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m->params, "_meta"),
                                                        "progressToken");
    c->srv = s;
    c->op = d;
    c->id = cJSON_Duplicate(m->id, 1);
    c->arguments = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) : NULL;
    if ((d->flags & PG_OPF_LONG) && (cJSON_IsString(tok) || cJSON_IsNumber(tok))) c->progress = cJSON_Duplicate(tok, 1);
    c->t0_ms = pg_mono_ms();
    c->total_s = total_seconds(d, c->arguments);
    c->last_progress = -1;
    pthread_mutex_lock(&s->lock);
    bool busy = s->n_calls >= PG_MCP_MAX_CALLS;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (!busy) {
        c->next = s->calls;
        s->calls = c;
        s->n_calls++;
        progress_locked(s, c); /* progress 0: the call started */
        if (pthread_create(&t, &attr, call_main, c) != 0) {
            s->calls = c->next;
            s->n_calls--;
            busy = true;
        }
    }
    pthread_mutex_unlock(&s->lock);
    pthread_attr_destroy(&attr);
    if (busy) {
        send_busy(s, m->id);
        call_free(c);
    }
}

/* notifications/cancelled: that call answers nothing, and its broker
 * connection is cut so the broker stops too. */
static void cancel(server *s, const cJSON *params) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "requestId");
    pthread_mutex_lock(&s->lock);
    for (call *c = s->calls; c; c = c->next)
        if (pg_rpc_id_equal(c->id, id)) {
            c->cancelled = true;
            if (c->conn) pg_conn_abort(c->conn);
        }
    pthread_mutex_unlock(&s->lock);
}

/* ---- the lifecycle ---- */

static const char instructions[] =
    "pixelgate sees and drives the GUI windows of this desktop through a broker that keeps the pixels. snapshot "
    "captures a window into a token (cap:...); read it with ocr and layout, check it with the assert_* tools, wait "
    "with wait_for, act with click, type, key, scroll and focus. Pixels never come back by default; the tools "
    "offered depend on how the server was started (docs/mcp.md, profiles). A failure is a tool error whose text is JSON with code, "
    "message, recovery_tip and, for a check that said no, its measurements in details.";

static void initialize(server *s, const pg_rpc_msg *m) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->params, "protocolVersion");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", pg_mcp_negotiate(cJSON_IsString(v) ? v->valuestring : NULL));
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged", false);
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    cJSON_AddStringToObject(info, "name", "pixelgate");
    cJSON_AddStringToObject(info, "title", "pixelgate");
    cJSON_AddStringToObject(info, "version", PG_VERSION);
    cJSON_AddStringToObject(r, "instructions", instructions);
    s->initialized = true;
    send_line(s, pg_rpc_line_result(m->id, r));
}

static void request(server *s, const pg_rpc_msg *m) {
    if (!strcmp(m->method, "initialize")) {
        initialize(s, m);
        return;
    }
    if (!strcmp(m->method, "ping")) {
        send_line(s, pg_rpc_line_result(m->id, cJSON_CreateObject()));
        return;
    }
    if (!s->initialized) {
        send_error(s, m->id, PG_RPC_INVALID_REQUEST, "initialize first");
        return;
    }
    if (!strcmp(m->method, "tools/list")) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddItemToObject(r, "tools", pg_mcp_tool_list(s->cfg->tools));
        send_line(s, pg_rpc_line_result(m->id, r));
        return;
    }
    if (!strcmp(m->method, "tools/call")) {
        tools_call(s, m);
        return;
    }
    send_error(s, m->id, PG_RPC_METHOD_NOT_FOUND, "method not found");
}

static void handle(server *s, const char *line, size_t len) {
    pg_rpc_msg m;
    char why[160];
    int code = pg_rpc_parse(line, len, &m, why, sizeof why);
    if (code) {
        send_error(s, m.id, code, why); /* id null when it could not be read */
    } else if (m.kind == PG_RPC_REQUEST) {
        request(s, &m);
    } else if (m.kind == PG_RPC_NOTIFICATION && !strcmp(m.method, "notifications/cancelled")) {
        cancel(s, m.params);
    } /* other notifications (initialized, ...) and responses need nothing */
    pg_rpc_msg_fini(&m);
}

/* One line from in into *buf (without its newline). A line longer than
 * PG_RPC_LINE_MAX is skipped to its end and reported as too long. */
typedef enum { LINE_EOF, LINE_OK, LINE_TOO_LONG } line_status;

static line_status read_line(FILE *in, char **buf, size_t *cap, size_t *len) {
    *len = 0;
    bool too_long = false;
    int ch;
    while ((ch = getc(in)) != EOF && ch != '\n') {
        if (too_long) continue;
        if (*len + 1 >= *cap) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            char *nb = *len < PG_RPC_LINE_MAX ? realloc(*buf, ncap) : NULL;
            if (!nb) {
                too_long = true;
                continue;
            }
            *buf = nb;
            *cap = ncap;
        }
        (*buf)[(*len)++] = (char)ch;
    }
    if (ch == EOF && *len == 0 && !too_long) return LINE_EOF;
    return too_long ? LINE_TOO_LONG : LINE_OK;
}

int pg_mcp_serve(const pg_mcp_config *cfg, FILE *in, FILE *out) {
#ifdef _WIN32
    _setmode(_fileno(in), _O_BINARY); /* "\n" framing: no CRLF translation */
    _setmode(_fileno(out), _O_BINARY);
#else
    signal(SIGPIPE, SIG_IGN); /* a host gone is a write error, not a signal */
#endif
    server s = {.cfg = cfg, .out = out, .input = {.address = cfg->address}};
    pthread_mutex_init(&s.input_lock, NULL);
    pthread_mutex_init(&s.out_lock, NULL);
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.changed, NULL);
    pthread_t tick;
    bool ticking = pthread_create(&tick, NULL, ticker, &s) == 0;
    char *buf = NULL;
    size_t cap = 0, len;
    line_status st;
    while (!s.out_failed && (st = read_line(in, &buf, &cap, &len)) != LINE_EOF) {
        if (st == LINE_TOO_LONG) {
            send_error(&s, NULL, PG_RPC_PARSE_ERROR, "message too long");
            continue;
        }
        if (len > 0 && buf[len - 1] == '\r') len--;
        if (len == 0) continue;
        handle(&s, buf, len);
    }
    free(buf);
    /* End of input: the calls in flight still answer (a host that closes
     * stdin early may still read stdout; one that does not kills us). */
    pthread_mutex_lock(&s.lock);
    s.stopping = true;
    pthread_cond_broadcast(&s.changed);
    while (s.n_calls > 0) pthread_cond_wait(&s.changed, &s.lock);
    pthread_mutex_unlock(&s.lock);
    if (ticking) pthread_join(tick, NULL);
    pg_session_close(&s.input); /* what it held is let go of */
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.lock);
    pthread_mutex_destroy(&s.out_lock);
    pthread_mutex_destroy(&s.input_lock);
    return s.out_failed ? 1 : 0;
}
