/* SPDX-License-Identifier: MIT */
/* Fuzz sway's IPC readers (broker/platform/wayland/pg_sway_ipc.h): any bytes
 * as a GET_TREE and a GET_OUTPUTS reply, and the first 14 as a header. Any
 * input gives PG_OK or an error with nothing returned, never a crash; what
 * is returned keeps the limits: views under the cap, strings terminated,
 * and the stacking order a subset of the listed views. */
#include <stdlib.h>
#include <string.h>

#include "pg_sway_ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tree(const char *json, size_t size) {
    pg_window *w = NULL;
    size_t n = 0;
    pg_error e = {0};
    pg_err rc = pg_sway_tree_windows(json, size, &w, &n, &e);
    if (rc != PG_OK && (w || n || !e.message[0])) abort();
    if (n > PG_SWAY_MAX_VIEWS || (n && !w)) abort();
    for (size_t i = 0; i < n; i++)
        if (!memchr(w[i].title, 0, sizeof w[i].title) || !memchr(w[i].class_name, 0, sizeof w[i].class_name) ||
            !memchr(w[i].instance, 0, sizeof w[i].instance) || w[i].id == 0)
            abort();
    uint64_t *ids = NULL;
    size_t m = 0;
    pg_err rs = pg_sway_tree_stacking(json, size, &ids, &m, &e);
    if (rs != rc || m > n) abort(); /* the same walk: the same verdict */
    for (size_t i = 0; i < m; i++) {
        bool listed = false;
        for (size_t j = 0; j < n && !listed; j++) listed = w[j].id == ids[i];
        if (!listed) abort();
    }
    free(ids);
    free(w);
}

static void check_outputs(const char *json, size_t size) {
    pg_monitor *m = NULL;
    size_t n = 0;
    pg_error e = {0};
    pg_err rc = pg_sway_outputs(json, size, &m, &n, &e);
    if ((rc != PG_OK && (m || n)) || n > PG_SWAY_MAX_OUTPUTS) abort();
    for (size_t i = 0; i < n; i++)
        if (!memchr(m[i].name, 0, sizeof m[i].name)) abort();
    free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size >= PG_SWAY_IPC_HEADER_LEN) {
        uint32_t type, len;
        pg_error e = {0};
        if (pg_sway_ipc_parse_header(data, &type, &len, &e) == PG_OK && len > PG_SWAY_IPC_MAX_PAYLOAD) abort();
    }
    /* an exact-size copy: ASan sees any read past the reply's length */
    char *json = malloc(size ? size : 1);
    if (!json) return 0;
    memcpy(json, data, size);
    check_tree(json, size);
    check_outputs(json, size);
    free(json);
    return 0;
}
