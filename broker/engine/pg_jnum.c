/* SPDX-License-Identifier: MIT */
/* Fixed-decimal JSON numbers (see pg_jnum.h). */
#include "pg_jnum.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void pg_jnum_format(double v, int decimals, char out[PG_JNUM_MAX]) {
    if (decimals < 0) decimals = 0;
    if (decimals > 9) decimals = 9;
    uint64_t scale = 1;
    for (int i = 0; i < decimals; i++) scale *= 10;
    double a = fabs(v) * (double)scale;
    if (!isfinite(v) || a >= 9007199254740992.0) {
        strcpy(out, "null");
        return;
    }
    uint64_t q = (uint64_t)(a + 0.5);
    uint64_t ip = q / scale, fp = q % scale;
    int neg = v < 0 && q != 0;
    int n = snprintf(out, PG_JNUM_MAX, "%s%llu", neg ? "-" : "", (unsigned long long)ip);
    if (fp == 0 || n < 0) return;
    int d = decimals;
    while (fp % 10 == 0) fp /= 10, d--; /* drop trailing zeros */
    snprintf(out + n, PG_JNUM_MAX - (size_t)n, ".%0*llu", d, (unsigned long long)fp);
}

cJSON *pg_jnum(double v, int decimals) {
    char buf[PG_JNUM_MAX];
    pg_jnum_format(v, decimals, buf);
    return strcmp(buf, "null") ? cJSON_CreateRaw(buf) : cJSON_CreateNull();
}

int pg_jnum_add(cJSON *o, const char *key, double v, int decimals) {
    cJSON *n = pg_jnum(v, decimals);
    if (n && cJSON_AddItemToObject(o, key, n)) return 1;
    cJSON_Delete(n);
    return 0;
}
