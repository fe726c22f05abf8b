/* SPDX-License-Identifier: MIT */
/* x11_monitors.c - the monitors of the screen, from RandR 1.5 monitors
 * (what `xrandr --listmonitors` shows: outputs, or the monitors an admin
 * or a test defined with --setmonitor), in root coordinates.
 * Contract: at least one monitor: without RandR, or with none defined, the
 * whole screen as "screen". Names are the monitors' atom names.
 * Never: changes the configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/randr.h>

#include "x11_private.h"

static void whole_screen(pg_platform *p, pg_monitor *m) {
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "screen");
    m->r = (pg_rect){0, 0, p->screen->width_in_pixels, p->screen->height_in_pixels};
    m->primary = true;
}

static void atom_name(pg_platform *p, xcb_atom_t a, char *out, size_t cap) {
    pg_error ignored;
    pg_err rc = PG_OK;
    xcb_get_atom_name_reply_t *r = x11_take(p, xcb_get_atom_name(p->c, a).sequence, &rc, &ignored);
    if (r) snprintf(out, cap, "%.*s", xcb_get_atom_name_name_length(r), xcb_get_atom_name_name(r));
    else snprintf(out, cap, "monitor-%u", (unsigned)a);
    free(r);
}

pg_err x11_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e) {
    *out = NULL;
    *n = 0;
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    const xcb_query_extension_reply_t *ext = xcb_get_extension_data(p->c, &xcb_randr_id);
    xcb_randr_get_monitors_reply_t *r = NULL;
    if (ext && ext->present) {
        pg_error ignored; /* an old RandR (no monitors request) is "no monitors": the screen */
        pg_err quiet = PG_OK;
        r = x11_take(p, xcb_randr_get_monitors(p->c, p->root, 1).sequence, &quiet, &ignored);
    }
    size_t count = r ? (size_t)xcb_randr_get_monitors_monitors_length(r) : 0;
    pg_monitor *m = calloc(count ? count : 1, sizeof *m);
    if (!m) {
        free(r);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    size_t k = 0;
    if (r)
        for (xcb_randr_monitor_info_iterator_t it = xcb_randr_get_monitors_monitors_iterator(r); it.rem;
             xcb_randr_monitor_info_next(&it)) {
            atom_name(p, it.data->name, m[k].name, sizeof m[k].name);
            m[k].r = (pg_rect){it.data->x, it.data->y, it.data->width, it.data->height};
            m[k].primary = it.data->primary;
            k++;
        }
    free(r);
    if (k == 0) whole_screen(p, &m[k++]); /* no RandR monitors: the screen is the one */
    *out = m;
    *n = k;
    return PG_OK;
}
