/* SPDX-License-Identifier: MIT */
/* Fuzz the one JSON form of a window (broker/platform/pg_window_json.h),
 * which the Windows service reads from its session helper (a peer that may
 * be broken or hostile): any bytes give either a window or BAD_INPUT with a
 * reason - never a crash or an over-read - and a window that decodes encodes
 * to JSON that decodes to the very same window (kind, parent, frame and
 * title_cut included), so encoder and decoder cannot drift apart. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pg_window_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *o = cJSON_ParseWithLength((const char *)data, size);
    if (!o) return 0;
    pg_window w, back;
    pg_error e;
    pg_err rc = pg_window_json_decode(o, &w, &e);
    cJSON_Delete(o);
    if (rc != PG_OK) {
        if (rc != PG_E_BADINPUT || !e.message[0]) abort();
        return 0;
    }
    cJSON *again = pg_window_json(&w);
    if (!again) return 0;
    if (pg_window_json_decode(again, &back, &e) != PG_OK || memcmp(&w, &back, sizeof w) != 0) abort();
    cJSON_Delete(again);
    return 0;
}
