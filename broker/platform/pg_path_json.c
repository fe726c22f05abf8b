/* SPDX-License-Identifier: MIT */
/* pg_path_json.c - [[x, y], ...] both ways (pg_path_json.h). */
#include <stdbool.h>
#include <stdint.h>

#include "pg_path_json.h"

cJSON *pg_path_json(const pg_point *path, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        const int xy[2] = {path[i].x, path[i].y};
        cJSON *pt = cJSON_CreateIntArray(xy, 2);
        if (!pt || !cJSON_AddItemToArray(a, pt)) {
            cJSON_Delete(pt);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static bool coordinate(const cJSON *j, int32_t *v) {
    if (!cJSON_IsNumber(j)) return false;
    double d = j->valuedouble;
    if (!(d >= INT32_MIN && d <= INT32_MAX) || (double)(int32_t)d != d) return false; /* in range, integral */
    *v = (int32_t)d;
    return true;
}

pg_err pg_path_json_decode(const cJSON *a, pg_point *out, size_t max, size_t *n, pg_error *e) {
    *n = 0;
    if (!cJSON_IsArray(a)) return pg_error_set(e, PG_E_BADINPUT, NULL, "path: not an array");
    size_t count = 0;
    for (const cJSON *pt = a->child; pt; pt = pt->next) {
        if (count == max) return pg_error_set(e, PG_E_BADINPUT, NULL, "path: more than %zu points", max);
        const cJSON *x = cJSON_IsArray(pt) ? pt->child : NULL, *y = x ? x->next : NULL;
        if (!x || !y || y->next || !coordinate(x, &out[count].x) || !coordinate(y, &out[count].y))
            return pg_error_set(e, PG_E_BADINPUT, NULL, "path: point %zu is not [x, y] of 32-bit integers", count);
        count++;
    }
    if (count < 2) return pg_error_set(e, PG_E_BADINPUT, NULL, "path: %zu points, at least 2 needed", count);
    *n = count;
    return PG_OK;
}
