/* SPDX-License-Identifier: MIT */
/* Framing and request/response shapes; see pg_proto.h for the contract. */
#include "pg_proto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t frame_magic[4] = {'P', 'G', 'F', '1'};

void pg_proto_limits_default(pg_proto_limits *l) {
    l->max_header = 1u << 20;
    l->max_attachments = PG_PROTO_MAX_ATTACH;
    l->max_attachment_bytes = 64ull << 20;
    l->max_total_bytes = 128ull << 20;
}

static uint32_t get_be32(const uint8_t b[4]) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_be32(uint8_t b[4], uint32_t v) {
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

void pg_msg_fini(pg_msg *m) {
    if (!m) return;
    cJSON_Delete(m->header);
    for (size_t i = 0; i < m->n_att; i++) free(m->att[i].data);
    memset(m, 0, sizeof *m);
}

static pg_err read_header(pg_read_fn rd, void *ctx, uint32_t len, pg_msg *out, pg_error *e) {
    char *json = malloc((size_t)len + 1);
    if (!json) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for %u-byte header", len);
    pg_err rc = rd(ctx, json, len, e);
    if (rc) {
        free(json);
        return rc;
    }
    json[len] = '\0';
    if (memchr(json, '\0', len)) {
        free(json);
        return pg_error_set(e, PG_E_USAGE, NULL, "frame header contains a NUL byte");
    }
    out->header = cJSON_ParseWithLength(json, len);
    free(json);
    if (!out->header || !cJSON_IsObject(out->header)) {
        cJSON_Delete(out->header);
        out->header = NULL;
        return pg_error_set(e, PG_E_USAGE, NULL, "frame header is not a JSON object");
    }
    return PG_OK;
}

static pg_err read_attachments(pg_read_fn rd, void *ctx, uint32_t n, const pg_proto_limits *l, pg_msg *out,
                               pg_error *e) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t b[4];
        pg_err rc = rd(ctx, b, 4, e);
        if (rc) return rc;
        uint32_t len = get_be32(b);
        total += len;
        if (len > l->max_attachment_bytes || total > l->max_total_bytes)
            return pg_error_set(e, PG_E_BADINPUT, "send a smaller file or downscale it first",
                                "attachment %u is %u bytes: over the limit (%llu each, %llu in total)", i,
                                len, (unsigned long long)l->max_attachment_bytes,
                                (unsigned long long)l->max_total_bytes);
        uint8_t *data = malloc(len ? len : 1);
        if (!data) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for attachment");
        out->att[i].data = data;
        out->att[i].len = len;
        out->n_att = i + 1;
        rc = rd(ctx, data, len, e);
        if (rc) return rc;
    }
    return PG_OK;
}

static pg_err read_prefix(pg_read_fn rd, void *ctx, const pg_proto_limits *l, uint32_t *hlen, uint32_t *natt,
                          pg_error *e) {
    uint8_t pre[12];
    pg_err rc = rd(ctx, pre, sizeof pre, e);
    if (rc) return rc;
    if (memcmp(pre, frame_magic, 4) != 0)
        return pg_error_set(e, PG_E_USAGE, "client and broker versions differ?", "bad frame magic");
    *hlen = get_be32(pre + 4), *natt = get_be32(pre + 8);
    if (*hlen == 0 || *hlen > l->max_header)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "frame header of %u bytes (limit %u)", *hlen, l->max_header);
    if (*natt > PG_PROTO_MAX_ATTACH)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%u attachments (limit %u)", *natt, PG_PROTO_MAX_ATTACH);
    return PG_OK;
}

static pg_err check_count(uint32_t natt, const pg_proto_limits *l, pg_error *e) {
    if (natt > l->max_attachments)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%u attachments (limit %u)", natt, l->max_attachments);
    return PG_OK;
}

pg_err pg_proto_read_from(pg_read_fn rd, void *ctx, const pg_proto_limits *l, pg_msg *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    uint32_t hlen = 0, natt = 0; /* set by read_prefix; zero for -Wmaybe-uninitialized at -O2 */
    pg_err rc = read_prefix(rd, ctx, l, &hlen, &natt, e);
    if (!rc) rc = check_count(natt, l, e);
    if (!rc) rc = read_header(rd, ctx, hlen, out, e);
    if (!rc) rc = read_attachments(rd, ctx, natt, l, out, e);
    if (rc) pg_msg_fini(out);
    return rc;
}

/* Every read of one frame shares one deadline: a peer that paces its bytes
 * (a header part every 29 s) cannot hold a connection past the timeout. */
typedef struct {
    pg_conn *c;
    pg_deadline until;
} frame_src;

static pg_err conn_read(void *ctx, void *buf, size_t n, pg_error *e) {
    frame_src *f = ctx;
    return pg_conn_read_until(f->c, buf, n, f->until, e);
}

pg_err pg_proto_read(pg_conn *c, const pg_proto_limits *l, pg_msg *out, pg_error *e) {
    frame_src f = {c, pg_deadline_in_ms(pg_conn_timeout(c))};
    return pg_proto_read_from(conn_read, &f, l, out, e);
}

pg_err pg_proto_read_prefix(pg_conn *c, const pg_proto_limits *l, pg_frame_head *h, pg_error *e) {
    memset(h, 0, sizeof *h);
    frame_src f = {c, pg_deadline_in_ms(pg_conn_timeout(c))};
    return read_prefix(conn_read, &f, l, &h->header_len, &h->n_att, e);
}

pg_err pg_proto_read_header(pg_conn *c, const pg_frame_head *h, pg_msg *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    frame_src f = {c, pg_deadline_in_ms(pg_conn_timeout(c))};
    pg_err rc = read_header(conn_read, &f, h->header_len, out, e);
    if (rc) pg_msg_fini(out);
    return rc;
}

pg_err pg_proto_read_attachments(pg_conn *c, const pg_frame_head *h, const pg_proto_limits *l, pg_msg *out,
                                 pg_error *e) {
    pg_err rc = check_count(h->n_att, l, e);
    frame_src f = {c, pg_deadline_in_ms(pg_conn_timeout(c))};
    if (!rc) rc = read_attachments(conn_read, &f, h->n_att, l, out, e);
    return rc;
}

typedef struct {
    const uint8_t *p;
    size_t left;
} mem_src;

static pg_err mem_read(void *ctx, void *buf, size_t n, pg_error *e) {
    mem_src *m = ctx;
    if (n > m->left) return pg_error_set(e, PG_E_BADINPUT, NULL, "truncated frame");
    memcpy(buf, m->p, n);
    m->p += n;
    m->left -= n;
    return PG_OK;
}

pg_err pg_proto_decode(const uint8_t *buf, size_t len, const pg_proto_limits *l, pg_msg *out, pg_error *e) {
    mem_src m = {buf, len};
    pg_err rc = pg_proto_read_from(mem_read, &m, l, out, e);
    if (!rc && m.left) {
        pg_msg_fini(out);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%zu trailing bytes after frame", m.left);
    }
    return rc;
}

pg_err pg_proto_encode(const cJSON *header, const pg_blob *att, size_t n_att, uint8_t **out, size_t *out_len,
                       pg_error *e) {
    if (n_att > PG_PROTO_MAX_ATTACH) return pg_error_set(e, PG_E_INTERNAL, NULL, "too many attachments");
    char *json = cJSON_PrintUnformatted(header);
    if (!json) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory serialising header");
    size_t hlen = strlen(json), total = 12 + hlen;
    for (size_t i = 0; i < n_att; i++) {
        if (att[i].len > UINT32_MAX) {
            free(json);
            return pg_error_set(e, PG_E_BADINPUT, NULL, "attachment over 4 GiB");
        }
        total += 4 + att[i].len;
    }
    uint8_t *buf = malloc(total);
    if (!buf) {
        free(json);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for %zu-byte frame", total);
    }
    memcpy(buf, frame_magic, 4);
    put_be32(buf + 4, (uint32_t)hlen);
    put_be32(buf + 8, (uint32_t)n_att);
    memcpy(buf + 12, json, hlen);
    free(json);
    size_t o = 12 + hlen;
    for (size_t i = 0; i < n_att; i++) {
        put_be32(buf + o, (uint32_t)att[i].len);
        if (att[i].len) memcpy(buf + o + 4, att[i].data, att[i].len);
        o += 4 + att[i].len;
    }
    *out = buf;
    *out_len = total;
    return PG_OK;
}

pg_err pg_proto_write(pg_conn *c, const cJSON *header, const pg_blob *att, size_t n_att, pg_error *e) {
    uint8_t *buf;
    size_t len;
    pg_err rc = pg_proto_encode(header, att, n_att, &buf, &len, e);
    if (rc) return rc;
    rc = pg_conn_write_full(c, buf, len, e);
    free(buf);
    return rc;
}

/* ---- request / response shapes ---- */

static bool is_uint(const cJSON *j) {
    return cJSON_IsNumber(j) && j->valuedouble >= 0 && j->valuedouble <= 9007199254740991.0 &&
           floor(j->valuedouble) == j->valuedouble;
}

/* cJSON keeps every member of an object, a repeated key too, and a lookup
 * finds the first: a request whose two readers could see two different
 * values is refused instead. Small objects are compared pairwise, larger
 * ones sorted (a 1 MiB header of one-letter keys stays O(n log n)). Depth is
 * bounded by cJSON's nesting limit. */
static int cmp_key(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static pg_err object_duplicate(const cJSON *j, const char **dup) {
    size_t n = 0;
    for (const cJSON *c = j->child; c; c = c->next) n++;
    if (n <= 16) {
        for (const cJSON *c = j->child; c; c = c->next)
            for (const cJSON *d = c->next; d; d = d->next)
                if (!strcmp(c->string, d->string)) {
                    *dup = c->string;
                    return PG_OK;
                }
        return PG_OK;
    }
    const char **keys = malloc(n * sizeof *keys);
    if (!keys) return PG_E_INTERNAL;
    size_t k = 0;
    for (const cJSON *c = j->child; c; c = c->next) keys[k++] = c->string;
    qsort(keys, n, sizeof *keys, cmp_key);
    for (k = 1; k < n && !*dup; k++)
        if (!strcmp(keys[k - 1], keys[k])) *dup = keys[k];
    free(keys);
    return PG_OK;
}

static pg_err first_duplicate(const cJSON *j, const cJSON **parent, const char **dup) {
    if (cJSON_IsObject(j)) {
        if (object_duplicate(j, dup)) return PG_E_INTERNAL;
        if (*dup) {
            *parent = j;
            return PG_OK;
        }
    }
    for (const cJSON *c = j->child; c && !*dup; c = c->next)
        if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && first_duplicate(c, parent, dup)) return PG_E_INTERNAL;
    return PG_OK;
}

/* "v": MAJOR or "MAJOR.MINOR" (decimal, at most 9 digits each). */
static bool parse_version(const cJSON *v, unsigned long *major, unsigned long *minor) {
    *minor = 0;
    if (is_uint(v)) {
        if (v->valuedouble > 999999999) return false;
        *major = (unsigned long)v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v)) return false;
    const char *s = v->valuestring;
    size_t a = strspn(s, "0123456789");
    if (a == 0 || a > 9 || s[a] != '.') return false;
    size_t b = strspn(s + a + 1, "0123456789");
    if (b == 0 || b > 9 || s[a + 1 + b]) return false;
    *major = strtoul(s, NULL, 10);
    *minor = strtoul(s + a + 1, NULL, 10);
    return true;
}

pg_err pg_proto_parse_request(const cJSON *header, pg_request *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    const cJSON *v = NULL, *id = NULL, *op = NULL, *args = NULL;
    if (!cJSON_IsObject(header)) return pg_error_set(e, PG_E_USAGE, NULL, "a request is a JSON object");
    const cJSON *parent = NULL;
    const char *dup = NULL;
    if (first_duplicate(header, &parent, &dup))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory checking the request's keys");
    if (dup)
        return pg_error_set(e, PG_E_BADINPUT, "send each key once",
                            "the request names key \"%.64s\" twice in %s%.64s%s", dup,
                            parent == header ? "its header" : "\"",
                            parent == header ? "" : parent->string ? parent->string : "an array's object",
                            parent == header ? "" : "\"");
    for (const cJSON *f = header->child; f; f = f->next) {
        if (!strcmp(f->string, "v")) v = f;
        else if (!strcmp(f->string, "id")) id = f;
        else if (!strcmp(f->string, "op")) op = f;
        else if (!strcmp(f->string, "args")) args = f;
        else return pg_error_set(e, PG_E_USAGE, NULL, "unknown request field \"%s\"", f->string);
    }
    unsigned long major, minor;
    if (!v || !parse_version(v, &major, &minor))
        return pg_error_set(e, PG_E_USAGE, "use a client of the same major version as the broker",
                            "request field \"v\" must be the protocol version: %d, or \"%d.MINOR\"",
                            PG_PROTO_VERSION, PG_PROTO_VERSION);
    if (major != PG_PROTO_VERSION)
        return pg_error_set(e, PG_E_BADINPUT, "use a client of the same major version as the broker",
                            "the request speaks protocol %lu.%lu; this broker speaks %d.%d (every %d.x)", major,
                            minor, PG_PROTO_VERSION, PG_PROTO_MINOR, PG_PROTO_VERSION);
    if (!id || !is_uint(id)) return pg_error_set(e, PG_E_USAGE, NULL, "request field \"id\" must be an unsigned integer");
    if (!op || !cJSON_IsString(op) || !op->valuestring[0] || strlen(op->valuestring) >= PG_PROTO_OP_MAX)
        return pg_error_set(e, PG_E_USAGE, NULL, "request field \"op\" must be a short non-empty string");
    if (args && !cJSON_IsObject(args)) return pg_error_set(e, PG_E_USAGE, NULL, "request field \"args\" must be an object");
    out->id = (uint64_t)id->valuedouble;
    strcpy(out->op, op->valuestring);
    static const cJSON empty = {.type = cJSON_Object};
    out->args = args ? args : &empty;
    return PG_OK;
}

cJSON *pg_proto_request_new(uint64_t id, const char *op, cJSON *args) {
    cJSON *r = cJSON_CreateObject();
    if (!r) {
        cJSON_Delete(args);
        return NULL;
    }
    cJSON_AddNumberToObject(r, "v", PG_PROTO_VERSION);
    cJSON_AddNumberToObject(r, "id", (double)id);
    cJSON_AddStringToObject(r, "op", op);
    cJSON_AddItemToObject(r, "args", args ? args : cJSON_CreateObject());
    return r;
}

static cJSON *response_base(uint64_t id, bool ok) {
    cJSON *r = cJSON_CreateObject();
    if (!r) return NULL;
    cJSON_AddNumberToObject(r, "v", PG_PROTO_VERSION);
    cJSON_AddNumberToObject(r, "id", (double)id);
    cJSON_AddBoolToObject(r, "ok", ok);
    return r;
}

cJSON *pg_proto_response_ok(uint64_t id, cJSON *result) {
    cJSON *r = response_base(id, true);
    if (!r) {
        cJSON_Delete(result);
        return NULL;
    }
    cJSON_AddItemToObject(r, "result", result ? result : cJSON_CreateObject());
    return r;
}

cJSON *pg_proto_response_err(uint64_t id, const pg_error *err, cJSON *details) {
    cJSON *r = response_base(id, false);
    cJSON *o = cJSON_CreateObject();
    if (!r || !o) {
        cJSON_Delete(r);
        cJSON_Delete(o);
        cJSON_Delete(details);
        return NULL;
    }
    cJSON_AddStringToObject(o, "code", pg_err_name(err->code));
    cJSON_AddNumberToObject(o, "exit", err->code);
    cJSON_AddStringToObject(o, "message", err->message);
    cJSON_AddStringToObject(o, "recovery_tip", err->recovery_tip[0] ? err->recovery_tip : pg_err_default_tip(err->code));
    if (details) cJSON_AddItemToObject(o, "details", details);
    cJSON_AddItemToObject(r, "error", o);
    return r;
}

pg_err pg_proto_parse_response(const cJSON *header, uint64_t expect_id, const cJSON **result, const cJSON **details,
                               pg_error *e) {
    *result = NULL;
    if (details) *details = NULL;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(header, "id");
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(header, "ok");
    /* id 0 is the connection's, not a request's: a refusal sent before the request could be read. */
    bool conn_level = is_uint(id) && id->valuedouble == 0 && cJSON_IsFalse(ok);
    if (!is_uint(id) || ((uint64_t)id->valuedouble != expect_id && !conn_level) || !cJSON_IsBool(ok))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "malformed response from broker");
    if (cJSON_IsTrue(ok)) {
        *result = cJSON_GetObjectItemCaseSensitive(header, "result");
        return cJSON_IsObject(*result) ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "response without result");
    }
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(header, "error");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");
    const cJSON *tip = cJSON_GetObjectItemCaseSensitive(err, "recovery_tip");
    if (!cJSON_IsString(code)) return pg_error_set(e, PG_E_INTERNAL, NULL, "malformed error response from broker");
    pg_err c = pg_err_from_name(code->valuestring);
    if (c == PG_OK) c = PG_E_INTERNAL;
    if (details) *details = cJSON_GetObjectItemCaseSensitive(err, "details");
    return pg_error_set(e, c, cJSON_IsString(tip) ? tip->valuestring : NULL, "%s",
                        cJSON_IsString(msg) ? msg->valuestring : "(no message)");
}

/* ---- argument checking ---- */

static bool type_matches(const cJSON *j, pg_arg_type t) {
    switch (t) {
    case PG_ARG_STRING: return cJSON_IsString(j);
    case PG_ARG_INT: return cJSON_IsNumber(j) && floor(j->valuedouble) == j->valuedouble &&
                            fabs(j->valuedouble) <= 9007199254740991.0;
    case PG_ARG_NUMBER: return cJSON_IsNumber(j) && isfinite(j->valuedouble);
    case PG_ARG_BOOL: return cJSON_IsBool(j);
    case PG_ARG_OBJECT: return cJSON_IsObject(j);
    case PG_ARG_ARRAY: return cJSON_IsArray(j);
    }
    return false;
}

static const char *type_name(pg_arg_type t) {
    static const char *names[] = {"a string", "an integer", "a number", "a boolean", "an object", "an array"};
    return names[t];
}

pg_err pg_args_check(const cJSON *args, const pg_arg_spec *spec, size_t n_spec, pg_error *e) {
    for (const cJSON *f = args ? args->child : NULL; f; f = f->next) {
        size_t i = 0;
        while (i < n_spec && strcmp(spec[i].name, f->string) != 0) i++;
        if (i == n_spec) return pg_error_set(e, PG_E_USAGE, NULL, "unknown argument \"%s\"", f->string);
        if (!type_matches(f, spec[i].type))
            return pg_error_set(e, PG_E_USAGE, NULL, "argument \"%s\" must be %s", f->string, type_name(spec[i].type));
        for (const cJSON *g = f->next; g; g = g->next)
            if (!strcmp(g->string, f->string))
                return pg_error_set(e, PG_E_USAGE, NULL, "argument \"%s\" given twice", f->string);
    }
    for (size_t i = 0; i < n_spec; i++)
        if (spec[i].required && !cJSON_GetObjectItemCaseSensitive(args, spec[i].name))
            return pg_error_set(e, PG_E_USAGE, NULL, "missing argument \"%s\"", spec[i].name);
    return PG_OK;
}

const char *pg_args_str(const cJSON *args, const char *name, const char *def) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, name);
    return cJSON_IsString(j) ? j->valuestring : def;
}

int64_t pg_args_int(const cJSON *args, const char *name, int64_t def) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, name);
    return cJSON_IsNumber(j) ? (int64_t)j->valuedouble : def;
}

double pg_args_num(const cJSON *args, const char *name, double def) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, name);
    return cJSON_IsNumber(j) ? j->valuedouble : def;
}

bool pg_args_bool(const cJSON *args, const char *name, bool def) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, name);
    return cJSON_IsBool(j) ? cJSON_IsTrue(j) : def;
}
