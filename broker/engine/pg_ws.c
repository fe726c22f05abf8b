/* SPDX-License-Identifier: MIT */
#include "pg_ws.h"

#include <stdlib.h>

void *pg_ws_get(pg_ws *ws, int slot, size_t bytes) {
    if (slot < 0 || slot >= PG_WS_SLOTS) return NULL;
    if (bytes == 0) bytes = 1;
    if (ws->n[slot] >= bytes) return ws->p[slot];
    free(ws->p[slot]); /* contents need not survive: no realloc copy */
    ws->p[slot] = malloc(bytes);
    ws->n[slot] = ws->p[slot] ? bytes : 0;
    return ws->p[slot];
}

void pg_ws_release(pg_ws *ws) {
    for (int i = 0; i < PG_WS_SLOTS; i++) {
        free(ws->p[i]);
        ws->p[i] = NULL;
        ws->n[i] = 0;
    }
}
