/* SPDX-License-Identifier: MIT */
/* pg_untrusted.c - the rules of which reply strings are screen text, and
 * the walk that turns them into JSON Pointers (pg_untrusted.h). One table,
 * read by the dispatcher for every reply, so a handler never has to
 * remember to mark what it adds, and a new kind of screen text is one line
 * here (and a test in test_untrusted.c). */
#include "pg_untrusted.h"

#include <stdio.h>
#include <string.h>

#include "pg_crypto.h"
#include "pg_jsonptr.h"
#include "pg_opdecl.h"

typedef struct {
    const char *op; /* wire name, or NULL: every operation */
    const char *pattern;
} rule;

/* Keys named for what they hold wherever they occur, then the fields whose
 * name alone does not say (an ocr's "text" is read, an assert text's
 * "expect" is the caller's). */
static const rule RULES[] = {
    {NULL, "/**/window_title"},
    {NULL, "/**/window_class"},
    {NULL, "/**/closest"},
    {NULL, "/**/text_read"},
    {NULL, "/**/words/*/text"},
    {NULL, "/**/labels_seen/*"},
    {"ocr", "/text"},
    {"analyze", "/answer"},
    {"judge", "/outcome"},
    {"judge", "/reason_code"},
    {"judge", "/samples/*/reason"},
    {"judge", "/error"},
    {"layout", "/lines/*/text"},
    {"layout", "/controls/*/label"},
    {"layout", "/controls/*/text"},
    {"layout", "/controls/*/selected_text"},
    {"layout", "/controls/*/rows/*/text"},
    {"assert_control", "/control/label"},
    {"assert_control", "/control/text"},
    {"assert_control", "/control/selected_text"},
    {"assert_control", "/control/rows/*/text"},
};

#define MAX_DEPTH 32
#define PTR_MAX 2048

/* Pattern tokens p[0..np) against path tokens t[0..nt). */
static bool match_tokens(const char *const *p, size_t np, const char *const *t, size_t nt) {
    if (np == 0) return nt == 0;
    if (!strcmp(p[0], "**")) {
        for (size_t skip = 0; skip <= nt; skip++)
            if (match_tokens(p + 1, np - 1, t + skip, nt - skip)) return true;
        return false;
    }
    if (nt == 0) return false;
    if (strcmp(p[0], "*") && strcmp(p[0], t[0])) return false;
    return match_tokens(p + 1, np - 1, t + 1, nt - 1);
}

bool pg_untrusted_match(const char *pattern, const char *const *tok, size_t n_tok) {
    char buf[256];
    const char *p[MAX_DEPTH];
    size_t np = 0, len = strlen(pattern);
    if (len >= sizeof buf || pattern[0] != '/') return false;
    memcpy(buf, pattern + 1, len); /* the tokens after the leading "/", split in place */
    for (char *s = buf; np < MAX_DEPTH;) {
        p[np++] = s;
        char *slash = strchr(s, '/');
        if (!slash) break;
        *slash = '\0';
        s = slash + 1;
    }
    return match_tokens(p, np, tok, n_tok);
}

/* A window object (pg_window_json, wherever a reply carries one: a list, a
 * target, the candidates of an ambiguous pattern, the cursor's window): its
 * title, class and instance are the program's to choose. */
static bool window_member(const cJSON *parent, const char *key) {
    if (!cJSON_IsObject(parent) || !cJSON_GetObjectItemCaseSensitive(parent, "id") ||
        !cJSON_GetObjectItemCaseSensitive(parent, "title"))
        return false;
    return !strcmp(key, "title") || !strcmp(key, "class") || !strcmp(key, "instance");
}

static bool is_screen_text(const char *op, const cJSON *parent, const char *const *tok, size_t nt) {
    if (nt && window_member(parent, tok[nt - 1])) return true;
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
        if ((!RULES[i].op || !strcmp(RULES[i].op, op)) && pg_untrusted_match(RULES[i].pattern, tok, nt)) return true;
    return false;
}

typedef struct {
    const char *op;
    cJSON *out;
    char ptr[PTR_MAX];
    const char *tok[MAX_DEPTH];
    char idx[MAX_DEPTH][24]; /* array indices as tokens */
    bool too_deep;
} walk_state;

static void walk(walk_state *w, const cJSON *parent, const cJSON *node, size_t depth);

/* Visits node's members, each under its own token. */
static void walk_members(walk_state *w, const cJSON *node, size_t depth) {
    if (depth >= MAX_DEPTH) {
        w->too_deep = true;
        return;
    }
    size_t keep = strlen(w->ptr), i = 0;
    for (const cJSON *m = node->child; m; m = m->next, i++) {
        bool ok;
        if (cJSON_IsArray(node)) {
            snprintf(w->idx[depth], sizeof w->idx[depth], "%zu", i);
            w->tok[depth] = w->idx[depth];
            ok = pg_jsonptr_push_index(w->ptr, sizeof w->ptr, i);
        } else {
            w->tok[depth] = m->string ? m->string : "";
            ok = pg_jsonptr_push(w->ptr, sizeof w->ptr, w->tok[depth]);
        }
        if (!ok) {
            w->too_deep = true;
            return;
        }
        walk(w, node, m, depth + 1);
        w->ptr[keep] = '\0';
    }
}

static void walk(walk_state *w, const cJSON *parent, const cJSON *node, size_t depth) {
    if (cJSON_IsString(node)) {
        if (is_screen_text(w->op, parent, w->tok, depth)) cJSON_AddItemToArray(w->out, cJSON_CreateString(w->ptr));
    } else if (cJSON_IsArray(node) || cJSON_IsObject(node)) {
        walk_members(w, node, depth);
    }
}

pg_err pg_untrusted_mark(const char *op, cJSON *reply, pg_error *e) {
    if (!cJSON_IsObject(reply)) return PG_OK;
    cJSON_DeleteItemFromObjectCaseSensitive(reply, PG_REPLY_UNTRUSTED); /* only the broker's own */
    cJSON_DeleteItemFromObjectCaseSensitive(reply, PG_REPLY_UNTRUSTED_NONCE);
    walk_state w = {.op = op};
    w.out = cJSON_CreateArray();
    if (!w.out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    walk(&w, NULL, reply, 0);
    if (w.too_deep || !w.out->child) {
        cJSON_Delete(w.out);
        if (w.too_deep) /* unmarked screen text is worse than no answer */
            return pg_error_set(e, PG_E_INTERNAL, "report this broker bug with the broker log",
                                "the reply is too deep to mark its screen text");
        return PG_OK;
    }
    uint8_t raw[16];
    char hex[33];
    pg_err rc = pg_random_bytes(raw, sizeof raw, e);
    if (rc) {
        cJSON_Delete(w.out);
        return rc;
    }
    pg_hex(raw, sizeof raw, hex);
    cJSON_AddItemToObject(reply, PG_REPLY_UNTRUSTED, w.out);
    cJSON_AddStringToObject(reply, PG_REPLY_UNTRUSTED_NONCE, hex);
    return PG_OK;
}
