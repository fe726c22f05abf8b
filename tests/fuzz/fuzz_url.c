/* SPDX-License-Identifier: MIT */
/* Fuzz the one URL grammar (common/pg_url.h) that the policy validates with
 * and the relay dials with: any bytes give either a canonical URL or a
 * BAD_INPUT error with a reason - never a crash or an over-read - and what
 * the relay would dial (origin + path) parses back to the same URL, so no
 * second reading of it can differ from the first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_canonical(const pg_url *u) {
    if (u->port == 0 || u->path[0] != '/' || !u->host[0]) abort();
    char want[sizeof u->origin];
    bool v6 = u->kind == PG_URL_IPV6;
    snprintf(want, sizeof want, "%s://%s%s%s:%u", pg_url_scheme(u), v6 ? "[" : "", u->host, v6 ? "]" : "",
             (unsigned)u->port);
    if (strcmp(want, u->origin) != 0) abort();
    for (const char *p = u->host; *p; p++)
        if (*p >= 'A' && *p <= 'Z') abort(); /* origins compare as strings */
    if (u->kind == PG_URL_IPV4) {
        char quad[16];
        snprintf(quad, sizeof quad, "%u.%u.%u.%u", u->addr[0], u->addr[1], u->addr[2], u->addr[3]);
        if (strcmp(quad, u->host) != 0) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    pg_url u;
    pg_error e;
    pg_err rc = pg_url_parse(s, &u, &e);
    if (rc != PG_OK) {
        if (rc != PG_E_BADINPUT || !e.message[0]) abort();
        free(s);
        return 0;
    }
    check_canonical(&u);
    static char dial[sizeof u.origin + sizeof u.path];
    int n = snprintf(dial, sizeof dial, "%s%s", u.origin, u.path);
    if (n <= PG_URL_MAX) { /* making the port explicit may lengthen it past the limit */
        pg_url again;
        if (pg_url_parse(dial, &again, &e) != PG_OK) abort();
        if (strcmp(again.origin, u.origin) || strcmp(again.path, u.path) || again.kind != u.kind ||
            memcmp(again.addr, u.addr, sizeof u.addr) || pg_url_is_loopback(&again) != pg_url_is_loopback(&u))
            abort();
    }
    free(s);
    return 0;
}
