/* SPDX-License-Identifier: MIT */
/* Fuzz the JSON form of a pointer path (broker/platform/pg_path_json.h),
 * which the Windows session helper reads from the service: any bytes give
 * either a path or BAD_INPUT with a reason - never a crash or a write past
 * the points it was given room for - and a path that decodes encodes to
 * JSON that decodes to the very same points. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pg_path_json.h"

#define ROOM 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *o = cJSON_ParseWithLength((const char *)data, size);
    if (!o) return 0;
    pg_point path[ROOM + 1], back[ROOM];
    path[ROOM] = (pg_point){0x5a5a5a5a, 0x5a5a5a5a}; /* a canary past the room given */
    size_t n = 0, m = 0;
    pg_error e;
    pg_err rc = pg_path_json_decode(o, path, ROOM, &n, &e);
    cJSON_Delete(o);
    if (path[ROOM].x != 0x5a5a5a5a || path[ROOM].y != 0x5a5a5a5a) abort();
    if (rc != PG_OK) {
        if (rc != PG_E_BADINPUT || !e.message[0] || n != 0) abort();
        return 0;
    }
    if (n < 2 || n > ROOM) abort();
    cJSON *again = pg_path_json(path, n);
    if (!again) return 0;
    if (pg_path_json_decode(again, back, ROOM, &m, &e) != PG_OK || m != n || memcmp(path, back, n * sizeof *path))
        abort();
    cJSON_Delete(again);
    return 0;
}
