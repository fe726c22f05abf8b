/* SPDX-License-Identifier: MIT */
/* The journal copy of an audit record: journald's native protocol (see
 * pg_audit_journal.h). Portable: only the sending is per platform. */
#include "pg_audit_journal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t n, cap;
    bool oom;
} dgram;

static void grow(dgram *d, size_t more) {
    if (d->oom || d->n + more <= d->cap) return;
    size_t cap = (d->n + more) * 2;
    char *s = realloc(d->s, cap);
    if (!s) {
        d->oom = true;
        return;
    }
    d->s = s;
    d->cap = cap;
}

static void put(dgram *d, const void *p, size_t n) {
    grow(d, n);
    if (d->oom) return;
    memcpy(d->s + d->n, p, n);
    d->n += n;
}

/* One field. A value with a newline takes the length-prefixed form. */
static void field(dgram *d, const char *key, const char *val) {
    if (!val) return;
    size_t kl = strlen(key), vl = strlen(val);
    put(d, key, kl);
    if (!memchr(val, '\n', vl)) {
        put(d, "=", 1);
        put(d, val, vl);
    } else {
        uint8_t le[8];
        for (int i = 0; i < 8; i++) le[i] = (uint8_t)((uint64_t)vl >> (8 * i));
        put(d, "\n", 1);
        put(d, le, 8);
        put(d, val, vl);
    }
    put(d, "\n", 1);
}

/* A member as text: strings as they are, numbers as the record wrote them. */
static void member(dgram *d, const char *key, const cJSON *obj, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (cJSON_IsString(v)) field(d, key, v->valuestring);
    else if (cJSON_IsRaw(v)) field(d, key, v->valuestring);
    else if (cJSON_IsNumber(v)) {
        char num[32];
        snprintf(num, sizeof num, "%.0f", v->valuedouble);
        field(d, key, num);
    }
}

/* "PIXELGATE_D_" + the key in upper case, or false when it is no plain name. */
static bool extra_key(const char *name, char *out, size_t n) {
    int w = snprintf(out, n, "PIXELGATE_D_");
    for (const char *c = name; *c; c++) {
        if ((size_t)w + 1 >= n || !((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
        out[w++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    }
    out[w] = '\0';
    return true;
}

static void disposition(dgram *d, const cJSON *disp, bool titles) {
    static const struct {
        const char *name, *key;
        bool free_text; /* may quote a window title */
    } known[] = {{"kind", "PIXELGATE_DISPOSITION", false},    {"token_prefix", "PIXELGATE_TOKEN_PREFIX", false},
                 {"endpoint", "PIXELGATE_ENDPOINT", false},   {"mode", "PIXELGATE_MODE", false},
                 {"request_id", "PIXELGATE_REQUEST_ID", false}, {"reason", "PIXELGATE_REASON", true},
                 {"detail", "PIXELGATE_DETAIL", true}};
    for (const cJSON *m = disp ? disp->child : NULL; m; m = m->next) {
        size_t k = 0;
        while (k < sizeof known / sizeof *known && strcmp(known[k].name, m->string)) k++;
        char key[64];
        if (k < sizeof known / sizeof *known) {
            if (!known[k].free_text || titles) member(d, known[k].key, disp, m->string);
        } else if (extra_key(m->string, key, sizeof key)) {
            member(d, key, disp, m->string); /* the log's own records: rotated_from, torn_bytes, ... */
        }
    }
}

pg_err pg_journal_encode(const cJSON *rec, const char *hash_hex, bool titles, char **out, size_t *len, pg_error *e) {
    dgram d = {0};
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(rec, "principal");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "window");
    const cJSON *disp = cJSON_GetObjectItemCaseSensitive(rec, "disposition");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(rec, "op");
    const cJSON *outcome = cJSON_GetObjectItemCaseSensitive(rec, "outcome");
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(rec, "seq");
    const cJSON *user = cJSON_GetObjectItemCaseSensitive(p, "user");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(disp, "kind");
    bool ok = cJSON_IsString(outcome) && !strcmp(outcome->valuestring, "OK");
    char msg[512];
    snprintf(msg, sizeof msg, "audit %s: %s by %s -> %s (%s)", cJSON_IsRaw(seq) ? seq->valuestring : "?",
             cJSON_IsString(op) ? op->valuestring : "?", cJSON_IsString(user) ? user->valuestring : "?",
             cJSON_IsString(outcome) ? outcome->valuestring : "?", cJSON_IsString(kind) ? kind->valuestring : "?");
    field(&d, "MESSAGE", msg);
    field(&d, "PRIORITY", ok ? "6" : "5"); /* info; notice for refusals and failures */
    field(&d, "SYSLOG_IDENTIFIER", "pixelgated");
    field(&d, "MESSAGE_ID", PG_JOURNAL_MESSAGE_ID);
    member(&d, "PIXELGATE_AUDIT_SEQ", rec, "seq");
    field(&d, "PIXELGATE_AUDIT_HASH", hash_hex);
    member(&d, "PIXELGATE_AUDIT_PREV", rec, "prev");
    member(&d, "PIXELGATE_AUDIT_TIME", rec, "time");
    member(&d, "PIXELGATE_UID", p, "uid");
    member(&d, "PIXELGATE_SID", p, "sid");
    member(&d, "PIXELGATE_USER", p, "user");
    member(&d, "PIXELGATE_PID", p, "pid");
    member(&d, "PIXELGATE_EXE", p, "exe");
    member(&d, "PIXELGATE_COMM", p, "comm");
    member(&d, "PIXELGATE_OP", rec, "op");
    if (cJSON_IsObject(w)) {
        member(&d, "PIXELGATE_WINDOW_ID", w, "id");
        member(&d, "PIXELGATE_WINDOW_CLASS", w, "class");
        if (titles) member(&d, "PIXELGATE_WINDOW_TITLE", w, "title");
    }
    member(&d, "PIXELGATE_IMAGE_SHA256", rec, "image_sha256");
    disposition(&d, disp, titles);
    member(&d, "PIXELGATE_OUTCOME", rec, "outcome");
    if (d.oom) {
        free(d.s);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit journal copy: out of memory");
    }
    *out = d.s;
    *len = d.n;
    return PG_OK;
}
