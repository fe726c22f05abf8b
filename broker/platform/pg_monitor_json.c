/* SPDX-License-Identifier: MIT */
/* pg_monitor_json.c - the monitors as JSON, both ways (pg_monitor_json.h). */
#include "pg_monitor_json.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cJSON *pg_monitor_json(const pg_monitor *m, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n && i < PG_MONITORS_MAX; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(a, o)) { /* o is a's once added */
            cJSON_Delete(o);
            cJSON_Delete(a);
            return NULL;
        }
        if (!cJSON_AddStringToObject(o, "name", m[i].name) || !cJSON_AddNumberToObject(o, "x", m[i].r.x) ||
            !cJSON_AddNumberToObject(o, "y", m[i].r.y) || !cJSON_AddNumberToObject(o, "width", m[i].r.w) ||
            !cJSON_AddNumberToObject(o, "height", m[i].r.h) || !cJSON_AddBoolToObject(o, "primary", m[i].primary)) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* An integral number in [lo, hi]. */
static bool integer(const cJSON *o, const char *field, double lo, double hi, int64_t *v) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!cJSON_IsNumber(j)) return false;
    double d = j->valuedouble;
    if (!(d >= lo && d <= hi) || (double)(int64_t)d != d) return false;
    *v = (int64_t)d;
    return true;
}

static pg_err one(const cJSON *o, size_t i, pg_monitor *m, pg_error *e) {
    static const char *const fields[] = {"name", "x", "y", "width", "height", "primary"};
    if (!cJSON_IsObject(o)) return pg_error_set(e, PG_E_BADINPUT, NULL, "monitor %zu: not an object", i);
    size_t seen = 0;
    for (const cJSON *f = o->child; f; f = f->next) {
        bool known = false;
        for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) known |= f->string && !strcmp(f->string, fields[k]);
        if (!known) return pg_error_set(e, PG_E_BADINPUT, NULL, "monitor %zu: unknown field \"%.32s\"", i, f->string ? f->string : "");
        seen++;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *primary = cJSON_GetObjectItemCaseSensitive(o, "primary");
    int64_t x = 0, y = 0, w = 0, h = 0;
    if (seen != 6 || !cJSON_IsString(name) || !cJSON_IsBool(primary) || !integer(o, "x", INT32_MIN, INT32_MAX, &x) ||
        !integer(o, "y", INT32_MIN, INT32_MAX, &y) || !integer(o, "width", 0, PG_MONITOR_MAX_SIDE, &w) ||
        !integer(o, "height", 0, PG_MONITOR_MAX_SIDE, &h))
        return pg_error_set(e, PG_E_BADINPUT, NULL,
                            "monitor %zu: name, x, y, width, height (integers in range) and primary, each once", i);
    if (strlen(name->valuestring) >= sizeof m->name)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "monitor %zu: name longer than %zu bytes", i, sizeof m->name - 1);
    memcpy(m->name, name->valuestring, strlen(name->valuestring) + 1);
    m->r = (pg_rect){(int32_t)x, (int32_t)y, (uint32_t)w, (uint32_t)h};
    m->primary = cJSON_IsTrue(primary);
    return PG_OK;
}

pg_err pg_monitor_json_decode(const cJSON *a, pg_monitor **out, size_t *n, pg_error *e) {
    *out = NULL;
    *n = 0;
    int count = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (count < 1 || count > PG_MONITORS_MAX)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "monitors: an array of 1 to %d expected", PG_MONITORS_MAX);
    pg_monitor *m = calloc((size_t)count, sizeof *m);
    if (!m) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t i = 0;
    pg_err rc = PG_OK;
    for (const cJSON *o = a->child; o && !rc; o = o->next, i++) rc = one(o, i, &m[i], e);
    if (rc) {
        free(m);
        return rc;
    }
    *out = m;
    *n = (size_t)count;
    return PG_OK;
}
