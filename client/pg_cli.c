/* SPDX-License-Identifier: MIT */
/* Session, printing and argument helpers shared by every command. */
#include "pg_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "pg_utf8.h"
#include "pg_crypto.h"

void pg_cli_request_fini(pg_cli_request *r) {
    cJSON_Delete(r->args);
    cJSON_Delete(r->local);
    for (size_t i = 0; i < r->n_att; i++) free(r->att[i].data);
    memset(r, 0, sizeof *r);
}

/* Writes released bytes where the user asked, as the user. */
static pg_err deliver_released(const pg_cli_request *req, pg_blob *b, cJSON *result, pg_error *e) {
    if (req->out_bytes) {
        *req->out_bytes = *b;
        *b = (pg_blob){0};
        return PG_OK;
    }
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

#ifndef _WIN32
/* The name of id in /etc/passwd or /etc/group (NAME:x:ID:...), else the
 * number. Read directly: the client links statically, where glibc's NSS
 * (getpwuid) is not to be used. */
static void name_of_id(const char *db, unsigned id, char *out, size_t n) {
    snprintf(out, n, "%u", id);
    FILE *f = fopen(db, "re");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char *name = line, *c1 = strchr(name, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        char *end;
        unsigned long v = strtoul(c2 + 1, &end, 10);
        if (end == c2 + 1 || *end != ':' || v != id) continue;
        *c1 = '\0';
        snprintf(out, n, "%.*s", (int)n - 1, name);
        break;
    }
    fclose(f);
}

/* connect() said EACCES/EPERM: the socket (or a directory on its way) does
 * not let this account in. Starting the broker fixes nothing: the fix is the
 * group that may use it, or an administrator who opens it and admits the
 * account in the policy. Names what stat() shows of the socket, or of its
 * directory when the socket cannot even be looked at. */
static pg_err not_allowed(const char *address, int err, pg_error *e) {
    struct stat st;
    char what[4096];
    snprintf(what, sizeof what, "%s", address);
    if (stat(what, &st) != 0) {
        char *slash = strrchr(what, '/');
        if (slash && slash != what) *slash = '\0';
        else snprintf(what, sizeof what, "%s", slash ? "/" : ".");
        if (stat(what, &st) != 0) memset(&st, 0, sizeof st);
    }
    char owner[64], group[64], self[64];
    name_of_id("/etc/passwd", (unsigned)st.st_uid, owner, sizeof owner);
    name_of_id("/etc/group", (unsigned)st.st_gid, group, sizeof group);
    name_of_id("/etc/passwd", (unsigned)geteuid(), self, sizeof self);
    pg_error_set(e, PG_E_UNREACHABLE, NULL,
                 "permission denied on the broker's socket %s (%s): %s is owner %s, group %s, mode %04o, and "
                 "this account (%s) may not connect",
                 address, strerror(err), what, owner, group, (unsigned)(st.st_mode & 07777), self);
    char tip[1024];
    snprintf(tip, sizeof tip,
             "not a broker problem: ask the administrator to add %s to group %s (then log in again), or to open the "
             "socket and admit %s in the policy's clients.users / clients.groups",
             self, group, self);
    snprintf(e->recovery_tip, sizeof e->recovery_tip, "%.*s", (int)sizeof e->recovery_tip - 1, tip);
    return PG_E_UNREACHABLE;
}
#endif

pg_err pg_session_connect(pg_session *s, pg_error *e) {
    if (s->conn) return PG_OK;
    errno = 0;
#ifdef _WIN32
    SetLastError(0);
#endif
    pg_err rc = pg_conn_connect(&s->conn, s->address, s->timeout_ms, e);
    if (rc != PG_E_UNREACHABLE) return rc;
#ifdef _WIN32
    if (GetLastError() == ERROR_ACCESS_DENIED) return rc; /* the transport's tip: the policy, not the service */
    snprintf(e->recovery_tip, sizeof e->recovery_tip,
             "start the broker (sc start pixelgate) or point PIXELGATE_SOCKET / --socket at its pipe");
#else
    int err = errno;
    if (err == EACCES || err == EPERM) return not_allowed(s->address, err, e);
    if (err == ENOENT)
        pg_error_set(e, PG_E_UNREACHABLE, NULL, "no broker socket at %s: the broker is not running there",
                     s->address);
    else if (err == ECONNREFUSED)
        pg_error_set(e, PG_E_UNREACHABLE, NULL,
                     "nothing listens on %s (connection refused): the broker is not running", s->address);
    snprintf(e->recovery_tip, sizeof e->recovery_tip,
             "start the broker (systemctl start pixelgate.socket pixelgate), or point PIXELGATE_SOCKET / "
             "--socket at its socket");
#endif
    return rc;
}

pg_err pg_session_call(pg_session *s, pg_cli_request *req, cJSON **result, cJSON **details, pg_error *e) {
    *result = NULL;
    if (details) *details = NULL;
    pg_err rc = pg_session_connect(s, e);
    uint64_t id = ++s->next_id;
    cJSON *hdr = rc ? NULL : pg_proto_request_new(id, req->op, req->args);
    if (!rc) req->args = NULL; /* now owned by hdr */
    if (!rc && !hdr) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    bool sent = false;
    if (!rc) {
        rc = pg_proto_write(s->conn, hdr, req->att, req->n_att, e);
        sent = true;
    }
    cJSON_Delete(hdr);
    pg_msg msg = {0};
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    if (sent && rc == PG_E_UNREACHABLE) {
        /* The broker may have answered and closed before it read everything
         * (a refusal: busy, not admitted): its answer is still ours to read,
         * and it says more than "broken pipe". */
        pg_error we = *e;
        pg_conn_set_timeout(s->conn, 2000);
        rc = pg_proto_read(s->conn, &lim, &msg, e);
        if (rc) *e = we, rc = we.code;
        pg_conn_set_timeout(s->conn, s->timeout_ms);
    } else if (!rc) {
        rc = pg_proto_read(s->conn, &lim, &msg, e);
    }
    if (!rc) {
        const cJSON *res, *det;
        rc = pg_proto_parse_response(msg.header, id, &res, &det, e);
        if (!rc) *result = cJSON_Duplicate(res, 1);
        else if (details && det) *details = cJSON_Duplicate(det, 1);
    }
    if (req->report_dir && (!rc || (PG_ERR_IS_VERDICT(rc) && details && *details))) {
        pg_error re;
        pg_error_clear(&re);
        pg_err wr = pg_cli_report(req->report_dir, rc ? *details : *result, msg.n_att ? &msg.att[0] : NULL, &re);
        if (wr && !rc) *e = re, rc = wr;
    } else if (!rc && msg.n_att > 0) {
        rc = deliver_released(req, &msg.att[0], *result, e);
    }
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
    req->last_file = value;
    cJSON_AddNumberToObject(o, "attachment", (double)req->n_att);
    req->n_att++;
    return PG_OK;
}

void pg_cli_bind_lease(pg_cli_request *req) {
    if (!req->op || strcmp(req->op, "lease") != 0) return;
    if (!req->args) req->args = cJSON_CreateObject();
    if (!req->args || cJSON_GetObjectItemCaseSensitive(req->args, "release") ||
        cJSON_GetObjectItemCaseSensitive(req->args, "break_all") ||
        cJSON_GetObjectItemCaseSensitive(req->args, "connection"))
        return;
    cJSON_AddBoolToObject(req->args, "connection", 1);
}
