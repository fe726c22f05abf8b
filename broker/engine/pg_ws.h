/* SPDX-License-Identifier: MIT */
/* pg_ws.h - engine-internal: a set of numbered scratch buffers that grow on
 * demand and are reused by the next call, so repeated work on same-sized
 * frames (polling loops) stops paying the kernel's page faults for fresh
 * memory - on this kind of VM a third of a template search's time.
 * Contents are undefined on every get. Owned by whoever made it; no global
 * state. Never: visible outside broker/engine (the public handle wrapping it
 * is pg_template_ws in pg_template.h).
 */
#ifndef PG_WS_H
#define PG_WS_H

#include <stddef.h>

#define PG_WS_SLOTS 24

typedef struct {
    void *p[PG_WS_SLOTS];
    size_t n[PG_WS_SLOTS];
} pg_ws;

/* At least `bytes` bytes in slot `slot` (NULL when out of memory). */
void *pg_ws_get(pg_ws *ws, int slot, size_t bytes);
/* Frees every buffer; the pg_ws can be used again. */
void pg_ws_release(pg_ws *ws);

#endif
