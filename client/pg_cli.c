/* Session, printing and argument helpers shared by every command. */
#include "pg_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include "pg_utf8.h"
#include "pg_crypto.h"

void pg_cli_request_fini(pg_cli_request *r) {
    cJSON_Delete(r->args);
    for (size_t i = 0; i < r->n_att; i++) free(r->att[i].data);
    memset(r, 0, sizeof *r);
}

/* Writes released bytes where the user asked, as the user. */
static pg_err deliver_released(const pg_cli_request *req, const pg_blob *b, cJSON *result, pg_error *e) {
    if (req->out_base64) {
        char *b64 = malloc(pg_b64_len(b->len) + 1);
        if (!b64) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        pg_b64_encode(b->data, b->len, b64);
        cJSON_AddStringToObject(result, "png_base64", b64);
        free(b64);
        return PG_OK;
    }
    if (!req->out_path) return pg_error_set(e, PG_E_INTERNAL, NULL, "broker sent bytes nobody asked for");
#ifdef _WIN32
    FILE *f = pg_fopen_utf8(req->out_path, "wb");
#else
    int fd = open(req->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f && fd >= 0) close(fd);
#endif
    if (!f) return pg_error_set(e, PG_E_BADINPUT, NULL, "cannot write %s: %s", req->out_path, strerror(errno));
    size_t w = fwrite(b->data, 1, b->len, f);
    if (fclose(f) != 0 || w != b->len) {
        remove(req->out_path);
        return pg_error_set(e, PG_E_INTERNAL, "free some space", "writing %s failed: %s", req->out_path, strerror(errno));
    }
    cJSON_AddStringToObject(result, "written", req->out_path);
    cJSON_AddNumberToObject(result, "bytes", (double)b->len);
    return PG_OK;
}

static pg_err ensure_conn(pg_session *s, pg_error *e) {
    if (s->conn) return PG_OK;
    pg_err rc = pg_conn_connect(&s->conn, s->address, s->timeout_ms, e);
    if (rc == PG_E_UNREACHABLE)
        snprintf(e->recovery_tip, sizeof e->recovery_tip,
#ifdef _WIN32
                 "start the broker (sc start pixelgate) or point PIXELGATE_SOCKET / --socket at its pipe");
#else
                 "start pixelgated (systemctl start pixelgate) or point PIXELGATE_SOCKET / --socket at its socket");
#endif
    return rc;
}

pg_err pg_session_call(pg_session *s, pg_cli_request *req, cJSON **result, cJSON **details, pg_error *e) {
    *result = NULL;
    if (details) *details = NULL;
    pg_err rc = ensure_conn(s, e);
    uint64_t id = ++s->next_id;
    cJSON *hdr = rc ? NULL : pg_proto_request_new(id, req->op, req->args);
    if (!rc) req->args = NULL; /* now owned by hdr */
    if (!rc && !hdr) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (!rc) rc = pg_proto_write(s->conn, hdr, req->att, req->n_att, e);
    cJSON_Delete(hdr);
    pg_msg msg = {0};
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    if (!rc) rc = pg_proto_read(s->conn, &lim, &msg, e);
    if (!rc) {
        const cJSON *res, *det;
        rc = pg_proto_parse_response(msg.header, id, &res, &det, e);
        if (!rc) *result = cJSON_Duplicate(res, 1);
        else if (details && det) *details = cJSON_Duplicate(det, 1);
    }
    if (!rc && msg.n_att > 0) rc = deliver_released(req, &msg.att[0], *result, e);
    pg_msg_fini(&msg);
    pg_cli_request_fini(req);
    return rc;
}

void pg_session_close(pg_session *s) {
    pg_conn_close(s->conn);
    s->conn = NULL;
}

void pg_cli_print_json(const cJSON *obj) {
    char *s = cJSON_PrintUnformatted(obj);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(s);
    }
}

void pg_cli_print_error(const pg_error *e, const cJSON *details, int step, int line) {
    cJSON *root = cJSON_CreateObject();
    cJSON *o = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(o, "code", pg_err_name(e->code));
    cJSON_AddNumberToObject(o, "exit", e->code);
    cJSON_AddStringToObject(o, "message", e->message);
    cJSON_AddStringToObject(o, "recovery_tip", e->recovery_tip[0] ? e->recovery_tip : pg_err_default_tip(e->code));
    if (details) cJSON_AddItemToObject(o, "details", cJSON_Duplicate(details, 1));
    if (step > 0) {
        cJSON_AddNumberToObject(o, "step", step);
        cJSON_AddNumberToObject(o, "line", line);
    }
    char *s = cJSON_PrintUnformatted(root);
    if (s) {
        fputs(s, stderr);
        fputc('\n', stderr);
        free(s);
    }
    cJSON_Delete(root);
}

/* ---- options ---- */

static pg_opt *find_opt(pg_opt *opts, size_t n, const char *name, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len)) return &opts[i];
    return NULL;
}

pg_err pg_opts_parse(int argc, char **argv, pg_opt *opts, size_t n_opts, char **pos, size_t max_pos,
                     size_t *n_pos, pg_error *e) {
    *n_pos = 0;
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (!only_pos && !strcmp(a, "--")) {
            only_pos = true;
            continue;
        }
        if (!only_pos && a[0] == '-' && a[1] == '-') {
            const char *eq = strchr(a, '=');
            size_t len = eq ? (size_t)(eq - a) : strlen(a);
            pg_opt *o = find_opt(opts, n_opts, a, len);
            if (!o) return pg_error_set(e, PG_E_USAGE, NULL, "unknown option %.*s", (int)len, a);
            o->seen = true;
            if (!o->takes_value) {
                if (eq) return pg_error_set(e, PG_E_USAGE, NULL, "%s takes no value", o->name);
                continue;
            }
            if (eq) o->value = eq + 1;
            else if (i + 1 < argc) o->value = argv[++i];
            else return pg_error_set(e, PG_E_USAGE, NULL, "%s needs a value", o->name);
            continue;
        }
        if (*n_pos >= max_pos) return pg_error_set(e, PG_E_USAGE, NULL, "unexpected argument \"%s\"", a);
        pos[(*n_pos)++] = a;
    }
    return PG_OK;
}

const pg_opt *pg_opt_get(const pg_opt *opts, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(opts[i].name, name)) return opts[i].seen ? &opts[i] : NULL;
    return NULL;
}

/* Parses up to max comma-separated integers; returns how many, -1 on junk. */
static int parse_ints(const char *s, char sep, long *out, int max) {
    int n = 0;
    const char *p = s;
    while (n < max) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno) return -1;
        out[n++] = v;
        if (*end == '\0') return n;
        if (*end != sep) return -1;
        p = end + 1;
    }
    return -1;
}

pg_err pg_parse_region(const char *s, cJSON **out, pg_error *e) {
    long v[4];
    if (parse_ints(s, ',', v, 4) != 4 || v[2] <= 0 || v[3] <= 0)
        return pg_error_set(e, PG_E_USAGE, "e.g. --region 10,20,200,100", "bad region \"%s\": want X,Y,W,H with W,H > 0",
                            s);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "x", (double)v[0]);
    cJSON_AddNumberToObject(o, "y", (double)v[1]);
    cJSON_AddNumberToObject(o, "w", (double)v[2]);
    cJSON_AddNumberToObject(o, "h", (double)v[3]);
    *out = o;
    return PG_OK;
}

pg_err pg_parse_point(const char *s, long *x, long *y, pg_error *e) {
    long v[2];
    if (parse_ints(s, ',', v, 2) != 2)
        return pg_error_set(e, PG_E_USAGE, "e.g. --at 120,45 (relative to the window)", "bad point \"%s\": want X,Y", s);
    *x = v[0];
    *y = v[1];
    return PG_OK;
}

pg_err pg_parse_size(const char *s, cJSON **out, pg_error *e) {
    long v[2];
    if (parse_ints(s, 'x', v, 2) != 2 || v[0] <= 0 || v[1] <= 0)
        return pg_error_set(e, PG_E_USAGE, "e.g. --max-size 1280x720", "bad size \"%s\": want WxH", s);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "w", (double)v[0]);
    cJSON_AddNumberToObject(o, "h", (double)v[1]);
    *out = o;
    return PG_OK;
}

pg_err pg_parse_window_id(const char *s, double *out, pg_error *e) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (!*s || *end || errno || s[0] == '-' || v > 9007199254740991ull)
        return pg_error_set(e, PG_E_USAGE, "ids come from 'pixelgate windows' (decimal or 0x hex)", "bad window id \"%s\"", s);
    *out = (double)v;
    return PG_OK;
}

pg_err pg_add_target(const pg_opt *opts, size_t n, cJSON *args, bool required, pg_error *e) {
    const pg_opt *w = pg_opt_get(opts, n, "--window"), *id = pg_opt_get(opts, n, "--id");
    if (w && id) return pg_error_set(e, PG_E_USAGE, NULL, "give --window or --id, not both");
    if (!w && !id) {
        if (required) return pg_error_set(e, PG_E_USAGE, NULL, "name the window with --window REGEX or --id ID");
        return PG_OK;
    }
    if (w) cJSON_AddStringToObject(args, "window", w->value);
    if (id) {
        double v;
        pg_err rc = pg_parse_window_id(id->value, &v, e);
        if (rc) return rc;
        cJSON_AddNumberToObject(args, "id", v);
    }
    if (pg_opt_get(opts, n, "--first")) cJSON_AddBoolToObject(args, "first", 1);
    return PG_OK;
}

#define PG_CLI_MAX_FILE ((size_t)64 << 20)

/* Reads a whole local file (the client's own, as the client's user). */
static pg_err read_file(const char *path, pg_blob *out, pg_error *e) {
    FILE *f = pg_fopen_utf8(path, "rb");
    if (!f) return pg_error_set(e, PG_E_NOTFOUND, NULL, "cannot open %s: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    pg_err rc = PG_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            if (cap > PG_CLI_MAX_FILE + 1) cap = PG_CLI_MAX_FILE + 1;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory reading %s", path);
                break;
            }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (len > PG_CLI_MAX_FILE) {
            rc = pg_error_set(e, PG_E_BADINPUT, "downscale or crop the image first", "%s is over %zu bytes", path,
                              PG_CLI_MAX_FILE);
            break;
        }
        if (r == 0) break;
    }
    if (!rc && ferror(f)) rc = pg_error_set(e, PG_E_BADINPUT, NULL, "reading %s failed", path);
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    out->data = buf;
    out->len = len;
    return PG_OK;
}

pg_err pg_cli_image_arg(pg_cli_request *req, const char *name, const char *value, pg_error *e) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(req->args, name, o);
    if (!strncmp(value, "cap:", 4)) {
        cJSON_AddStringToObject(o, "token", value);
        return PG_OK;
    }
    if (req->n_att == PG_PROTO_MAX_ATTACH) return pg_error_set(e, PG_E_USAGE, NULL, "too many image files in one call");
    pg_err rc = read_file(value, &req->att[req->n_att], e);
    if (rc) return rc;
    cJSON_AddNumberToObject(o, "attachment", (double)req->n_att);
    req->n_att++;
    return PG_OK;
}
