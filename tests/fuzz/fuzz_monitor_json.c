/* SPDX-License-Identifier: MIT */
/* Fuzz the JSON form of the monitors (broker/platform/pg_monitor_json.h),
 * which the Windows service reads from its session helper: any bytes give
 * either monitors or BAD_INPUT with a reason - never a crash, a name without
 * its terminator, or a count out of range - and monitors that decode encode
 * to JSON that decodes to the very same monitors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pg_monitor_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *o = cJSON_ParseWithLength((const char *)data, size);
    if (!o) return 0;
    pg_monitor *m = NULL, *back = NULL;
    size_t n = 0, k = 0;
    pg_error e;
    pg_err rc = pg_monitor_json_decode(o, &m, &n, &e);
    cJSON_Delete(o);
    if (rc != PG_OK) {
        if (rc != PG_E_BADINPUT || !e.message[0] || m || n) abort();
        return 0;
    }
    if (n < 1 || n > PG_MONITORS_MAX) abort();
    for (size_t i = 0; i < n; i++)
        if (!memchr(m[i].name, 0, sizeof m[i].name) || m[i].r.w > PG_MONITOR_MAX_SIDE || m[i].r.h > PG_MONITOR_MAX_SIDE)
            abort();
    cJSON *again = pg_monitor_json(m, n);
    if (again) {
        if (pg_monitor_json_decode(again, &back, &k, &e) != PG_OK || k != n) abort();
        for (size_t i = 0; i < n; i++)
            if (strcmp(m[i].name, back[i].name) || memcmp(&m[i].r, &back[i].r, sizeof m[i].r) ||
                m[i].primary != back[i].primary)
                abort();
        cJSON_Delete(again);
        free(back);
    }
    free(m);
    return 0;
}
