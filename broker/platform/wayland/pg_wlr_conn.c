/* SPDX-License-Identifier: MIT */
/* pg_wlr_conn.c - the wlroots backend's connection: the globals it binds,
 * the outputs it follows, the bounded event pump, lost(), caps() and the ops
 * table (pg_wlr.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wayland-client.h>

#include "pg_time.h"
#include "pg_wl_layout.h"
#include "pg_wlr.h"
#include "pg_wlr_private.h"
#include "virtual-keyboard-v1-client.h"
#include "wlr-screencopy-v1-client.h"
#include "wlr-virtual-pointer-v1-client.h"

static void mark_lost(pg_platform *p, const char *what) {
    if (p->lost_why[0]) return;
    int err = wl_display_get_error(p->dpy);
    snprintf(p->lost_why, sizeof p->lost_why, "the Wayland compositor at %s went away (%s: %s)", p->display, what,
             strerror(err ? err : EPIPE));
}

static pg_err lost_error(pg_platform *p, pg_error *e) {
    return pg_error_set(e, PG_E_UNREACHABLE, "start the compositor again; the helper reconnects", "%s",
                        p->lost_why);
}

/* One read of what the socket holds, waiting at most wait_ms (0: no wait). */
static pg_err read_once(pg_platform *p, int wait_ms, pg_error *e) {
    while (wl_display_prepare_read(p->dpy) != 0)
        if (wl_display_dispatch_pending(p->dpy) < 0) return mark_lost(p, "dispatch"), lost_error(p, e);
    if (wl_display_flush(p->dpy) < 0 && errno != EAGAIN) {
        wl_display_cancel_read(p->dpy);
        return mark_lost(p, "flush"), lost_error(p, e);
    }
    struct pollfd fd = {wl_display_get_fd(p->dpy), POLLIN, 0};
    int r = poll(&fd, 1, wait_ms);
    if (r <= 0) {
        wl_display_cancel_read(p->dpy);
        return PG_OK;
    }
    if (wl_display_read_events(p->dpy) < 0) return mark_lost(p, "read"), lost_error(p, e);
    if (wl_display_dispatch_pending(p->dpy) < 0) return mark_lost(p, "dispatch"), lost_error(p, e);
    return PG_OK;
}

pg_err wlr_pump(pg_platform *p, const bool *done, uint32_t timeout_ms, pg_error *e) {
    if (p->lost_why[0]) return lost_error(p, e);
    pg_deadline end = pg_deadline_in_ms(timeout_ms);
    if (wl_display_dispatch_pending(p->dpy) < 0) return mark_lost(p, "dispatch"), lost_error(p, e);
    while (!*done) {
        if (pg_deadline_passed(end))
            return pg_error_set(e, PG_E_TIMEOUT, "the compositor may be hung",
                                "the Wayland compositor at %s did not answer in %u ms", p->display, (unsigned)timeout_ms);
        pg_err rc = read_once(p, (int)pg_deadline_left_ms(end) + 1, e);
        if (rc) return rc;
    }
    return PG_OK;
}

static void sync_done(void *data, struct wl_callback *cb, uint32_t serial) {
    (void)serial;
    *(bool *)data = true;
    wl_callback_destroy(cb);
}
static const struct wl_callback_listener sync_listener = {.done = sync_done};

pg_err wlr_sync(pg_platform *p, pg_error *e) {
    if (p->lost_why[0]) return lost_error(p, e);
    bool done = false;
    struct wl_callback *cb = wl_display_sync(p->dpy);
    if (!cb) return mark_lost(p, "sync"), lost_error(p, e);
    wl_callback_add_listener(cb, &sync_listener, &done);
    return wlr_pump(p, &done, WLR_REPLY_MS, e);
}

uint32_t wlr_time_ms(void) { return (uint32_t)(uint64_t)pg_mono_ms(); }

pg_err wlr_need(pg_platform *p, bool keyboard, pg_error *e) {
    if (keyboard ? p->keyboard != NULL : p->pointer != NULL) return PG_OK;
    return pg_error_set(e, PG_E_UNSUPPORTED, "use a compositor that offers it (sway does)",
                        "the compositor at %s offers no virtual %s", p->display, keyboard ? "keyboard" : "pointer");
}

pg_rect wlr_layout_box(const pg_platform *p) {
    if (!p->n_out) return (pg_rect){0};
    int64_t x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
    for (size_t i = 0; i < p->n_out; i++) {
        const wlr_output *o = &p->out[i];
        int32_t s = o->scale > 0 ? o->scale : 1;
        if (o->x < x0) x0 = o->x;
        if (o->y < y0) y0 = o->y;
        if (o->x + o->mode_w / s > x1) x1 = o->x + o->mode_w / s;
        if (o->y + o->mode_h / s > y1) y1 = o->y + o->mode_h / s;
    }
    return (pg_rect){(int32_t)x0, (int32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
}

/* ---- outputs ---- */

static void out_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw, int32_t ph,
                         int32_t subpixel, const char *make, const char *model, int32_t transform) {
    (void)o, (void)pw, (void)ph, (void)subpixel, (void)make, (void)model;
    wlr_output *w = data;
    w->x = x, w->y = y, w->transform = transform;
}
static void out_mode(void *data, struct wl_output *o, uint32_t flags, int32_t width, int32_t height, int32_t refresh) {
    (void)o, (void)refresh;
    wlr_output *w = data;
    if (flags & WL_OUTPUT_MODE_CURRENT) w->mode_w = width, w->mode_h = height;
}
static void out_done(void *data, struct wl_output *o) { (void)data, (void)o; }
static void out_scale(void *data, struct wl_output *o, int32_t factor) {
    (void)o;
    ((wlr_output *)data)->scale = factor;
}
static const struct wl_output_listener out_listener = {
    .geometry = out_geometry, .mode = out_mode, .done = out_done, .scale = out_scale};

/* ---- globals ---- */

static void add_output(pg_platform *p, struct wl_registry *r, uint32_t name) {
    if (p->n_out == WLR_MAX_OUTPUTS) return;
    wlr_output *w = &p->out[p->n_out++];
    *w = (wlr_output){.global = name, .scale = 1};
    w->o = wl_registry_bind(r, name, &wl_output_interface, 2);
    wl_output_add_listener(w->o, &out_listener, w);
}

static void remove_output(pg_platform *p, uint32_t name) {
    for (size_t i = 0; i < p->n_out; i++)
        if (p->out[i].global == name) {
            wl_output_destroy(p->out[i].o);
            memmove(&p->out[i], &p->out[i + 1], (p->n_out - i - 1) * sizeof p->out[0]);
            p->n_out--;
            return;
        }
}

static void global_add(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    pg_platform *p = data;
    (void)version;
    if (!strcmp(iface, wl_shm_interface.name) && !p->shm) p->shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
    else if (!strcmp(iface, wl_seat_interface.name) && !p->seat)
        p->seat = wl_registry_bind(r, name, &wl_seat_interface, 1);
    else if (!strcmp(iface, wl_output_interface.name) && version >= 2) add_output(p, r, name);
    else if (!strcmp(iface, zwlr_screencopy_manager_v1_interface.name) && !p->copier)
        p->copier = wl_registry_bind(r, name, &zwlr_screencopy_manager_v1_interface, 1);
    else if (!strcmp(iface, zwlr_virtual_pointer_manager_v1_interface.name) && !p->pointer_mgr)
        p->pointer_mgr = wl_registry_bind(r, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
    else if (!strcmp(iface, zwp_virtual_keyboard_manager_v1_interface.name) && !p->keyboard_mgr)
        p->keyboard_mgr = wl_registry_bind(r, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
}

static void global_remove(void *data, struct wl_registry *r, uint32_t name) {
    (void)r;
    remove_output(data, name);
}
static const struct wl_registry_listener registry_listener = {.global = global_add, .global_remove = global_remove};

/* ---- open / close ---- */

static void wlr_close(pg_platform *p) {
    if (!p) return;
    if (p->dpy && !p->lost_why[0]) wlr_release_all(p);
    if (p->keyboard) zwp_virtual_keyboard_v1_destroy(p->keyboard);
    pg_wl_layout_free(p->layout);
    if (p->pointer) zwlr_virtual_pointer_v1_destroy(p->pointer);
    if (p->keyboard_mgr) zwp_virtual_keyboard_manager_v1_destroy(p->keyboard_mgr);
    if (p->pointer_mgr) zwlr_virtual_pointer_manager_v1_destroy(p->pointer_mgr);
    if (p->copier) zwlr_screencopy_manager_v1_destroy(p->copier);
    for (size_t i = 0; i < p->n_out; i++) wl_output_destroy(p->out[i].o);
    if (p->seat) wl_seat_destroy(p->seat);
    if (p->shm) wl_shm_destroy(p->shm);
    if (p->reg) wl_registry_destroy(p->reg);
    if (p->dpy) wl_display_disconnect(p->dpy);
    free(p);
}

/* The virtual devices, made once: each is a new input device to the
 * compositor, and sway configures a new device (keymap, pointer accel) on
 * creation. */
static void make_devices(pg_platform *p) {
    if (p->pointer_mgr && p->seat)
        p->pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(p->pointer_mgr, p->seat);
    if (p->keyboard_mgr && p->seat)
        p->keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(p->keyboard_mgr, p->seat);
}

static pg_err wlr_open(pg_platform **out, const char *display, pg_error *e) {
    pg_platform *p = calloc(1, sizeof *p);
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    const char *name = display && display[0] ? display : getenv("WAYLAND_DISPLAY");
    snprintf(p->display, sizeof p->display, "%s", name ? name : "wayland-0");
    const char *sock = getenv("SWAYSOCK");
    if (sock && strlen(sock) < sizeof p->ipc_path) snprintf(p->ipc_path, sizeof p->ipc_path, "%s", sock);
    p->dpy = wl_display_connect(p->display);
    if (!p->dpy) {
        pg_err rc = pg_error_set(e, PG_E_UNREACHABLE, "run the helper inside the Wayland session (WAYLAND_DISPLAY, XDG_RUNTIME_DIR)",
                                 "cannot connect to the Wayland display %s: %s", p->display, strerror(errno));
        free(p);
        return rc;
    }
    p->reg = wl_display_get_registry(p->dpy);
    wl_registry_add_listener(p->reg, &registry_listener, p);
    pg_err rc = wlr_sync(p, e);
    if (!rc) rc = wlr_sync(p, e); /* the outputs' geometry and modes follow their bind */
    if (!rc && !p->copier)
        rc = pg_error_set(e, PG_E_UNSUPPORTED, "use a wlroots compositor (sway) or the GNOME path",
                          "the compositor at %s offers no wlr-screencopy", p->display);
    if (!rc) make_devices(p);
    pg_error layout_e;
    if (!rc && wlr_keys_start(p, &layout_e) != PG_OK) /* no layout: every key on a keymap of its own */
        snprintf(p->layout_why, sizeof p->layout_why, "%.150s", layout_e.message);
    if (!rc) rc = wlr_sync(p, e);
    if (rc) {
        wlr_close(p);
        return rc;
    }
    *out = p;
    return PG_OK;
}

/* Reading what waits on the socket, without waiting, is what notices a
 * compositor that went away. */
static bool wlr_lost(pg_platform *p, char *why, size_t n) {
    pg_error e;
    if (!p->lost_why[0]) (void)read_once(p, 0, &e);
    if (!p->lost_why[0] && wl_display_get_error(p->dpy)) mark_lost(p, "protocol error");
    if (!p->lost_why[0]) return false;
    snprintf(why, n, "%s", p->lost_why);
    return true;
}

pg_err wlr_caps(pg_platform *p, pg_caps *out, pg_error *e) {
    (void)e;
    bool ipc = p->ipc_path[0] != 0;
    *out = (pg_caps){.list_windows = ipc, .capture_window = ipc, .capture_covered = false,
                     .capture_screen = p->copier != NULL, .input_pointer = ipc && p->pointer,
                     .input_keys = ipc && p->keyboard, .input_text_unicode = ipc && p->keyboard, .settle = ipc,
                     .window_manager = ipc};
    snprintf(out->backend, sizeof out->backend, "wlroots");
    pg_rect box = wlr_layout_box(p);
    char kb[240] = "";
    if (p->keyboard)
        snprintf(kb, sizeof kb, ", virtual-keyboard%s%.150s%s", p->layout_why[0] ? " (no keyboard layout: " : "",
                 p->layout_why, p->layout_why[0] ? ")" : "");
    snprintf(out->detail, sizeof out->detail,
             "Wayland %.63s: wlr-screencopy%s%.199s; %s; layout %ux%u at %d,%d, %zu output(s); "
             "cannot: clipboard owner, whether a program answers, scaled or rotated outputs, popups as windows",
             p->display, p->pointer ? ", wlr-virtual-pointer" : "", kb,
             ipc ? "windows from sway IPC" : "no sway IPC ($SWAYSOCK): screen only, no windows, no input",
             (unsigned)box.w, (unsigned)box.h, (int)box.x, (int)box.y, p->n_out);
    return PG_OK;
}

static const pg_platform_ops wlr_ops = {
    .name = "wlroots",
    .open = wlr_open,
    .close = wlr_close,
    .caps = wlr_caps,
    .list_windows = wlr_list_windows,
    .list_all = wlr_list_all,
    .window_frame = wlr_window_frame,
    .selection_owner = wlr_selection_owner,
    .capture_window = wlr_capture_window,
    .capture_screen = wlr_capture_screen,
    .focus = wlr_focus,
    .pointer_move = wlr_pointer_move,
    .scroll = wlr_scroll,
    .drag = wlr_drag,
    .top_at = wlr_top_at,
    .hold = wlr_hold,
    .key_check = wlr_key_check,
    .pointer_at = wlr_pointer_at,
    .monitors = wlr_monitors,
    .click = wlr_click,
    .key = wlr_key,
    .type_text = wlr_type_text,
    .settle = wlr_settle,
    .lost = wlr_lost,
    .responding = wlr_responding,
};

const pg_platform_ops *pg_platform_wlroots(void) { return &wlr_ops; }
