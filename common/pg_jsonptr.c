/* SPDX-License-Identifier: MIT */
/* pg_jsonptr.c - JSON Pointers (RFC 6901): escape on the way out, unescape
 * while walking on the way in. */
#include "pg_jsonptr.h"

#include <stdio.h>
#include <string.h>

bool pg_jsonptr_push(char *buf, size_t n, const char *token) {
    size_t len = strlen(buf), need = 1;
    for (const char *p = token; *p; p++) need += (*p == '~' || *p == '/') ? 2 : 1;
    if (len + need >= n) return false;
    char *o = buf + len;
    *o++ = '/';
    for (const char *p = token; *p; p++) {
        if (*p == '~' || *p == '/') {
            *o++ = '~';
            *o++ = *p == '~' ? '0' : '1';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return true;
}

bool pg_jsonptr_push_index(char *buf, size_t n, size_t index) {
    char tok[24];
    snprintf(tok, sizeof tok, "%zu", index);
    return pg_jsonptr_push(buf, n, tok);
}

/* Unescapes the token [p, end) into out (n bytes); false on a bad escape
 * ("~" not followed by 0 or 1) or a token longer than out. */
static bool unescape(const char *p, const char *end, char *out, size_t n) {
    size_t k = 0;
    for (; p < end; p++) {
        char ch = *p;
        if (ch == '~') {
            if (p + 1 >= end || (p[1] != '0' && p[1] != '1')) return false;
            ch = *++p == '0' ? '~' : '/';
        }
        if (k + 1 >= n) return false;
        out[k++] = ch;
    }
    out[k] = '\0';
    return true;
}

/* The member of an array named by a decimal token: digits only, no leading
 * zero (so "01" and "-" name nothing, as RFC 6901 says). */
static const cJSON *array_member(const cJSON *arr, const char *tok) {
    size_t len = strlen(tok);
    if (!len || len > 9 || (len > 1 && tok[0] == '0')) return NULL;
    int idx = 0;
    for (const char *p = tok; *p; p++) {
        if (*p < '0' || *p > '9') return NULL;
        idx = idx * 10 + (*p - '0');
    }
    return cJSON_GetArrayItem(arr, idx);
}

const cJSON *pg_jsonptr_get(const cJSON *root, const char *ptr) {
    if (!root || !ptr) return NULL;
    if (!*ptr) return root;
    if (*ptr != '/') return NULL;
    const cJSON *at = root;
    char tok[1024];
    for (const char *p = ptr; at && *p == '/';) {
        const char *end = strchr(p + 1, '/');
        if (!end) end = p + strlen(p);
        if (!unescape(p + 1, end, tok, sizeof tok)) return NULL;
        if (cJSON_IsArray(at)) at = array_member(at, tok);
        else if (cJSON_IsObject(at)) at = cJSON_GetObjectItemCaseSensitive(at, tok);
        else return NULL;
        p = end;
    }
    return at;
}
