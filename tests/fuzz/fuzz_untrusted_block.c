/* SPDX-License-Identifier: MIT */
/* Fuzz pixelgate mcp's untrusted block (client/mcp/pg_mcp_untrusted.h) with
 * arbitrary screen text, and hold it to its promise: whatever a window shows,
 * the block has exactly one BEGIN and one END line (the last), no other "<"
 * or ">", and the value line parses back to the text shown. The same input
 * is also walked as a JSON Pointer (common/pg_jsonptr.h), which must not
 * crash or read out of bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_jsonptr.h"
#include "pg_mcp_untrusted.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NONCE "0123456789abcdef0123456789abcdef"

static size_t count(const char *hay, char c) {
    size_t n = 0;
    for (; *hay; hay++) n += *hay == c;
    return n;
}

/* The one value line (the block's third line) read back as JSON. */
static void value_reads_back(const char *block, const char *shown) {
    const char *l = strchr(block, '\n');
    l = l ? strchr(l + 1, '\n') : NULL;
    const char *end = l ? strchr(l + 1, '\n') : NULL;
    if (!end) abort();
    size_t n = (size_t)(end - l - 1);
    char *obj = malloc(n + 3);
    obj[0] = '{';
    memcpy(obj + 1, l + 1, n);
    memcpy(obj + 1 + n, "}", 2);
    cJSON *o = cJSON_Parse(obj);
    free(obj);
    if (!o || !cJSON_IsString(o->child)) abort();
    /* cJSON keeps bytes as they are; the escapes are read back to the same UTF-8 only for valid text */
    if (cJSON_IsString(o->child) && strcmp(o->child->valuestring, shown) && strstr(block, "\\ufffd") == NULL) abort();
    cJSON_Delete(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *shown = malloc(size + 1);
    memcpy(shown, data, size);
    shown[size] = '\0';
    cJSON *r = cJSON_CreateObject();
    cJSON *w = cJSON_CreateObject();
    cJSON_AddNumberToObject(w, "id", 1);
    cJSON_AddStringToObject(w, "title", shown);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "windows"), w);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "untrusted"), cJSON_CreateString("/windows/0/title"));
    cJSON_AddStringToObject(r, "untrusted_nonce", NONCE);
    char *b = pg_mcp_untrusted_block(r, "the result");
    if (b) {
        const char *last = strrchr(b, '\n');
        if (count(b, '<') != 6 || count(b, '>') != 6 || count(b, '\n') != 3 || !last ||
            strcmp(last + 1, "<<<PIXELGATE-UNTRUSTED-END nonce=" NONCE ">>>"))
            abort();
        value_reads_back(b, shown);
        free(b);
    }
    (void)pg_jsonptr_get(r, shown);
    cJSON_Delete(r);
    free(shown);
    return 0;
}
