/* SPDX-License-Identifier: MIT */
/* Fuzz the session helper's request parser (broker/platform/helper/pg_helper.h,
 * pg_helper_answer): the helper reads these from the broker's connection,
 * and a helper must never crash or act on a request it cannot read. Any
 * bytes that parse as JSON give a reply that is an object with "ok"; a
 * refused request carries no attachment; the fake desktop behind it never
 * sees input from a request that was refused, and a request outside the
 * allowlist (here: no "type_text") never reaches it at all. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pg_fake.h"
#include "pg_helper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const allow[] = {"caps", "list_windows", "list_all", "capture_window", "capture_screen",
                                    "click", "key", "drag", "hold", "monitors", "settle", "focus"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *req = cJSON_ParseWithLength((const char *)data, size);
    if (!req) return 0;
    static pg_platform *fake;
    pg_error e;
    if (!fake) {
        if (pg_fake_ops.open(&fake, NULL, &e) != PG_OK) abort();
        pg_fake_add_window(fake, "Form", "tk", 42, 0, 0, 64, 48, 0x336699ff);
    }
    size_t inputs = pg_fake_input_count(fake);
    pg_helper_server s = {.ops = &pg_fake_ops, .p = fake, .allow = allow, .n_allow = sizeof allow / sizeof *allow};
    pg_blob att;
    cJSON *reply = pg_helper_answer(&s, req, &att);
    if (!reply) abort(); /* only out of memory, which a fuzzer does not cause */
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(reply, "ok");
    if (!cJSON_IsBool(ok)) abort();
    if (cJSON_IsFalse(ok) && (att.data || pg_fake_input_count(fake) != inputs)) abort();
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    if (cJSON_IsString(op) && !strcmp(op->valuestring, "type_text") && cJSON_IsTrue(ok)) abort();
    free(att.data);
    cJSON_Delete(reply);
    cJSON_Delete(req);
    return 0;
}
