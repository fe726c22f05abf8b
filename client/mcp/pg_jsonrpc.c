/* SPDX-License-Identifier: MIT */
/* JSON-RPC 2.0 envelopes: the strict parse of one line and the lines the
 * server writes. See pg_jsonrpc.h. */
#include "pg_jsonrpc.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, <= U+10FFFF)
 * and no NUL byte: cJSON would cut a string there. */
static bool utf8_ok(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c == 0) return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
        if (!len || c > 0xF4 || i + len > n) return false;
        uint32_t cp = c & (0x3Fu >> (len - 1));
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3Fu);
        }
        static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

#if defined(__MINGW32__)
#define RPC_PRINTF(f, a) __attribute__((format(gnu_printf, f, a))) /* __USE_MINGW_ANSI_STDIO */
#else
#define RPC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

static int fail(char *why, size_t n, int code, const char *fmt, ...) RPC_PRINTF(4, 5);
static int fail(char *why, size_t n, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (why && n) vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return code;
}

/* A string, or an integer that a double holds exactly. */
static bool id_ok(const cJSON *id) {
    if (cJSON_IsString(id)) return true;
    if (!cJSON_IsNumber(id)) return false;
    double d = id->valuedouble;
    return isfinite(d) && d == floor(d) && fabs(d) <= 9007199254740991.0;
}

/* Only the members JSON-RPC defines, each once. */
static int check_members(const cJSON *root, char *why, size_t n) {
    static const char *const known[] = {"jsonrpc", "id", "method", "params", "result", "error"};
    for (const cJSON *m = root->child; m; m = m->next) {
        size_t k = 0;
        while (k < sizeof known / sizeof *known && strcmp(m->string, known[k])) k++;
        if (k == sizeof known / sizeof *known)
            return fail(why, n, PG_RPC_INVALID_REQUEST, "unknown member \"%.64s\"", m->string);
        for (const cJSON *o = root->child; o != m; o = o->next)
            if (!strcmp(o->string, m->string))
                return fail(why, n, PG_RPC_INVALID_REQUEST, "member \"%s\" given twice", m->string);
    }
    return 0;
}

static int parse_response(pg_rpc_msg *out, char *why, size_t n) {
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(out->root, "result");
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(out->root, "error");
    if (cJSON_GetObjectItemCaseSensitive(out->root, "params"))
        return fail(why, n, PG_RPC_INVALID_REQUEST, "a response has no params");
    if (!res == !err) return fail(why, n, PG_RPC_INVALID_REQUEST, "a response has exactly one of result and error");
    if (err) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
        if (!cJSON_IsObject(err) || !id_ok(code) || cJSON_IsString(code) ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(err, "message")))
            return fail(why, n, PG_RPC_INVALID_REQUEST, "error must be {code: integer, message: string}");
    }
    out->kind = PG_RPC_RESPONSE;
    out->result = res;
    out->error = err;
    return 0;
}

int pg_rpc_parse(const char *line, size_t len, pg_rpc_msg *out, char *why, size_t why_len) {
    memset(out, 0, sizeof *out);
    if (why && why_len) why[0] = '\0';
    if (len > PG_RPC_LINE_MAX) return fail(why, why_len, PG_RPC_PARSE_ERROR, "message over %zu bytes", PG_RPC_LINE_MAX);
    if (!utf8_ok((const unsigned char *)line, len))
        return fail(why, why_len, PG_RPC_PARSE_ERROR, "not UTF-8 (or a NUL byte)");
    const char *end = NULL;
    out->root = cJSON_ParseWithLengthOpts(line, len, &end, false);
    if (!out->root) return fail(why, why_len, PG_RPC_PARSE_ERROR, "not JSON");
    for (; end && (size_t)(end - line) < len; end++)
        if (!strchr(" \t\r\n", *end)) return fail(why, why_len, PG_RPC_PARSE_ERROR, "text after the JSON value");
    if (cJSON_IsArray(out->root))
        return fail(why, why_len, PG_RPC_INVALID_REQUEST, "batches are not part of this protocol revision");
    if (!cJSON_IsObject(out->root)) return fail(why, why_len, PG_RPC_INVALID_REQUEST, "a message is a JSON object");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(out->root, "id");
    if (id && id_ok(id)) out->id = id; /* from here on, errors can name the request */
    int rc = check_members(out->root, why, why_len);
    if (rc) return rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(out->root, "jsonrpc");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.0"))
        return fail(why, why_len, PG_RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
    if (id && !out->id) return fail(why, why_len, PG_RPC_INVALID_REQUEST, "id must be a string or an integer");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(out->root, "method");
    if (!method) {
        if (!id) return fail(why, why_len, PG_RPC_INVALID_REQUEST, "neither a request nor a response");
        return parse_response(out, why, why_len);
    }
    if (!cJSON_IsString(method) || !method->valuestring[0])
        return fail(why, why_len, PG_RPC_INVALID_REQUEST, "method must be a non-empty string");
    if (cJSON_GetObjectItemCaseSensitive(out->root, "result") || cJSON_GetObjectItemCaseSensitive(out->root, "error"))
        return fail(why, why_len, PG_RPC_INVALID_REQUEST, "a request has no result or error");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(out->root, "params");
    if (params && !cJSON_IsObject(params))
        return fail(why, why_len, PG_RPC_INVALID_REQUEST, "params must be an object");
    out->kind = id ? PG_RPC_REQUEST : PG_RPC_NOTIFICATION;
    out->method = method->valuestring;
    out->params = params;
    return 0;
}

void pg_rpc_msg_fini(pg_rpc_msg *m) {
    cJSON_Delete(m->root);
    memset(m, 0, sizeof *m);
}

bool pg_rpc_id_equal(const cJSON *a, const cJSON *b) {
    if (!a || !b) return false;
    if (cJSON_IsString(a) && cJSON_IsString(b)) return !strcmp(a->valuestring, b->valuestring);
    return cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble;
}

/* Prints msg (consumed) as one line with its newline. */
static char *line_of(cJSON *msg) {
    if (!msg) return NULL;
    char *s = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!s) return NULL;
    size_t n = strlen(s);
    char *l = realloc(s, n + 2);
    if (!l) {
        free(s);
        return NULL;
    }
    l[n] = '\n';
    l[n + 1] = '\0';
    return l;
}

/* The id as the request wrote it. cJSON prints large integers with 15
 * significant digits, so 9007199254740991 would come back as another id:
 * integers are printed here, exactly (id_ok allows only |id| <= 2^53 - 1). */
static cJSON *id_copy(const cJSON *id) {
    if (!id) return cJSON_CreateNull();
    if (!cJSON_IsNumber(id)) return cJSON_Duplicate(id, 1);
    char num[32];
    snprintf(num, sizeof num, "%.0f", id->valuedouble);
    return cJSON_CreateRaw(num);
}

static cJSON *envelope(const cJSON *id, bool with_id) {
    cJSON *m = cJSON_CreateObject();
    if (!m) return NULL;
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    if (with_id) cJSON_AddItemToObject(m, "id", id_copy(id));
    return m;
}

char *pg_rpc_line_result(const cJSON *id, cJSON *result) {
    cJSON *m = envelope(id, true);
    if (!m || !result) {
        cJSON_Delete(m);
        cJSON_Delete(result);
        return NULL;
    }
    cJSON_AddItemToObject(m, "result", result);
    return line_of(m);
}

char *pg_rpc_line_error(const cJSON *id, int code, const char *message, cJSON *data) {
    cJSON *m = envelope(id, true);
    cJSON *err = m ? cJSON_AddObjectToObject(m, "error") : NULL;
    if (!err) {
        cJSON_Delete(m);
        cJSON_Delete(data);
        return NULL;
    }
    cJSON_AddNumberToObject(err, "code", code);
    cJSON_AddStringToObject(err, "message", message);
    if (data) cJSON_AddItemToObject(err, "data", data);
    return line_of(m);
}

char *pg_rpc_line_notification(const char *method, cJSON *params) {
    cJSON *m = envelope(NULL, false);
    if (!m) {
        cJSON_Delete(params);
        return NULL;
    }
    cJSON_AddStringToObject(m, "method", method);
    if (params) cJSON_AddItemToObject(m, "params", params);
    return line_of(m);
}
