/* SPDX-License-Identifier: MIT */
/* pg_wlr_sway.c - windows through sway's IPC: the views, their stacking, the
 * cover rule, focus, frames and monitors (the replies are read by
 * pg_sway_ipc.h).
 *
 * Why IPC and not a Wayland protocol: wlr-foreign-toplevel-management gives
 * titles and app ids but no geometry and no process, and a window pixelgate
 * cannot place or attribute to a user is one it can neither capture nor
 * click safely. Without $SWAYSOCK the backend lists nothing and refuses
 * window operations (caps says so).
 * Each call opens its own connection: sway answers one request per message
 * and a fresh socket cannot be left half-read by a timeout.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pg_sway_ipc.h"
#include "pg_time.h"
#include "pg_wlr_private.h"

static pg_err io_all(int fd, uint8_t *buf, size_t n, bool out, pg_deadline end, pg_error *e) {
    size_t done = 0;
    while (done < n) {
        struct pollfd pfd = {fd, out ? POLLOUT : POLLIN, 0};
        int r = poll(&pfd, 1, (int)pg_deadline_left_ms(end));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return pg_error_set(e, PG_E_TIMEOUT, "sway may be hung", "sway's IPC did not answer in time");
        ssize_t k = out ? send(fd, buf + done, n - done, MSG_NOSIGNAL) : recv(fd, buf + done, n - done, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "sway's IPC socket closed: %s", k ? strerror(errno) : "end of stream");
        done += (size_t)k;
    }
    return PG_OK;
}

static pg_err ipc_connect(pg_platform *p, int *fd, pg_error *e) {
    if (!p->ipc_path[0])
        return pg_error_set(e, PG_E_UNSUPPORTED, "run the helper in a sway session ($SWAYSOCK)",
                            "the compositor offers no window list: sway's IPC socket is not known");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", p->ipc_path);
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "socket: %s", strerror(errno));
    if (connect(*fd, (struct sockaddr *)&a, sizeof a) == 0) return PG_OK;
    int err = errno;
    close(*fd);
    return pg_error_set(e, PG_E_UNREACHABLE, "is sway still running?", "sway's IPC %s: %s", p->ipc_path, strerror(err));
}

pg_err wlr_ipc(pg_platform *p, uint32_t type, const char *payload, char **reply, size_t *len, pg_error *e) {
    int fd = -1;
    pg_err rc = ipc_connect(p, &fd, e);
    if (rc) return rc;
    pg_deadline end = pg_deadline_in_ms(WLR_REPLY_MS);
    size_t plen = payload ? strlen(payload) : 0;
    uint8_t hdr[PG_SWAY_IPC_HEADER_LEN];
    pg_sway_ipc_header(hdr, type, (uint32_t)plen);
    rc = io_all(fd, hdr, sizeof hdr, true, end, e);
    if (!rc && plen) rc = io_all(fd, (uint8_t *)payload, plen, true, end, e);
    uint32_t rtype = 0, rlen = 0;
    if (!rc) rc = io_all(fd, hdr, sizeof hdr, false, end, e);
    if (!rc) rc = pg_sway_ipc_parse_header(hdr, &rtype, &rlen, e);
    if (!rc && rtype != type)
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "sway answered message type %u to a %u", (unsigned)rtype, (unsigned)type);
    char *buf = rc ? NULL : malloc((size_t)rlen + 1);
    if (!rc && !buf) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for %u bytes", (unsigned)rlen);
    if (!rc) rc = io_all(fd, (uint8_t *)buf, rlen, false, end, e);
    close(fd);
    if (rc) return free(buf), rc;
    buf[rlen] = 0;
    *reply = buf;
    if (len) *len = rlen;
    return PG_OK;
}

pg_err wlr_tree_read(pg_platform *p, wlr_tree *t, pg_error *e) {
    char *json;
    size_t len;
    *t = (wlr_tree){0};
    pg_err rc = wlr_ipc(p, PG_SWAY_GET_TREE, NULL, &json, &len, e);
    if (rc) return rc;
    rc = pg_sway_tree_windows(json, len, &t->w, &t->n, e);
    if (!rc) rc = pg_sway_tree_stacking(json, len, &t->order, &t->n_order, e);
    free(json);
    if (rc) wlr_tree_free(t);
    return rc;
}

void wlr_tree_free(wlr_tree *t) {
    free(t->w);
    free(t->order);
    *t = (wlr_tree){0};
}

pg_err wlr_tree_find(const wlr_tree *t, uint64_t id, const pg_window **w, pg_error *e) {
    for (size_t i = 0; i < t->n; i++)
        if (t->w[i].id == id) return *w = &t->w[i], PG_OK;
    return pg_error_set(e, PG_E_NOTFOUND, "list the windows again", "window %llu is gone", (unsigned long long)id);
}

pg_err wlr_view(pg_platform *p, uint64_t id, pg_window *out, pg_error *e) {
    wlr_tree t;
    const pg_window *w = NULL;
    pg_err rc = wlr_tree_read(p, &t, e);
    if (!rc) rc = wlr_tree_find(&t, id, &w, e);
    if (!rc) *out = *w;
    wlr_tree_free(&t);
    return rc;
}

static bool overlaps(const pg_window *w, pg_rect r) {
    pg_rect common;
    return w->visible && wlr_intersect(w->frame, r, &common);
}

pg_err wlr_tree_uncovered(const wlr_tree *t, uint64_t id, pg_rect r, pg_error *e) {
    size_t i = 0;
    while (i < t->n_order && t->order[i] != id) i++;
    if (i == t->n_order)
        return pg_error_set(e, PG_E_NOTFOUND, "focus the window to show its workspace, then retry",
                            "window %llu is not on a visible workspace", (unsigned long long)id);
    pg_error ignored;
    for (size_t j = i + 1; j < t->n_order; j++) {
        const pg_window *above = NULL;
        if (wlr_tree_find(t, t->order[j], &above, &ignored) == PG_OK && overlaps(above, r))
            return pg_error_set(e, PG_E_POLICY, "move or close the covering window, or focus the target first",
                                "window %llu is covered by window %llu", (unsigned long long)id,
                                (unsigned long long)above->id);
    }
    return PG_OK;
}

uint64_t wlr_tree_top_at(const wlr_tree *t, int32_t x, int32_t y) {
    pg_error ignored;
    for (size_t i = t->n_order; i-- > 0;) {
        const pg_window *v = NULL;
        if (wlr_tree_find(t, t->order[i], &v, &ignored) == PG_OK && overlaps(v, (pg_rect){x, y, 1, 1})) return v->id;
    }
    return 0;
}

static pg_err views(pg_platform *p, pg_window **out, size_t *n, pg_error *e) {
    wlr_tree t;
    pg_err rc = wlr_tree_read(p, &t, e);
    if (rc) return rc;
    *out = t.w, *n = t.n;
    t.w = NULL;
    wlr_tree_free(&t);
    return PG_OK;
}

pg_err wlr_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e) { return views(p, out, n, e); }

/* Popups (xdg_popup) are not in sway's tree: they belong to their view's
 * surface and are drawn inside or beside it; the list is complete as far
 * as views go, which is all sway can say. */
pg_err wlr_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    *complete = true;
    return views(p, out, n, e);
}

pg_err wlr_window_frame(pg_platform *p, uint64_t id, uint32_t *l, uint32_t *r, uint32_t *t, uint32_t *b,
                        pg_error *e) {
    pg_window w;
    pg_err rc = wlr_view(p, id, &w, e);
    if (rc) return rc;
    *l = (uint32_t)(w.x - w.frame.x);
    *t = (uint32_t)(w.y - w.frame.y);
    *r = (uint32_t)((int64_t)w.frame.x + w.frame.w - w.x - w.width);
    *b = (uint32_t)((int64_t)w.frame.y + w.frame.h - w.y - w.height);
    return PG_OK;
}

pg_err wlr_top_at(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e) {
    wlr_tree t;
    pg_err rc = wlr_tree_read(p, &t, e);
    if (!rc) *id = wlr_tree_top_at(&t, x, y);
    wlr_tree_free(&t);
    return rc;
}

pg_err wlr_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e) {
    char *json;
    size_t len;
    pg_err rc = wlr_ipc(p, PG_SWAY_GET_OUTPUTS, NULL, &json, &len, e);
    if (!rc) {
        rc = pg_sway_outputs(json, len, out, n, e);
        free(json);
    }
    if (rc != PG_E_UNSUPPORTED || !p->n_out) return rc;
    /* No IPC: the layout box as the one monitor. */
    pg_error_clear(e);
    *out = calloc(1, sizeof **out);
    if (!*out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    **out = (pg_monitor){.name = "layout", .r = wlr_layout_box(p), .primary = true};
    *n = 1;
    return PG_OK;
}

/* The command reply is [{"success":bool,...}]: sway applies a focus
 * command before it answers. */
pg_err wlr_focus(pg_platform *p, uint64_t id, pg_error *e) {
    pg_window w;
    pg_err rc = wlr_view(p, id, &w, e);
    if (rc) return rc;
    char cmd[64], *reply;
    snprintf(cmd, sizeof cmd, "[con_id=%llu] focus", (unsigned long long)id);
    rc = wlr_ipc(p, PG_SWAY_RUN_COMMAND, cmd, &reply, NULL, e);
    if (rc) return rc;
    if (!strstr(reply, "\"success\": true") && !strstr(reply, "\"success\":true"))
        rc = pg_error_set(e, PG_E_NOTFOUND, "list the windows again", "sway could not focus window %llu",
                          (unsigned long long)id);
    free(reply);
    return rc;
}

/* sway pings its clients itself and says nothing about the answers. */
pg_err wlr_responding(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e) {
    (void)max_ms;
    pg_window w;
    pg_err rc = wlr_view(p, id, &w, e);
    if (!rc) *out = PG_RESPONDING_UNKNOWN;
    return rc;
}

pg_err wlr_selection_owner(pg_platform *p, const char *selection, uint64_t *window, uint32_t *pid, pg_error *e) {
    (void)p, (void)window, (void)pid;
    if (strcmp(selection, "CLIPBOARD") && strcmp(selection, "PRIMARY"))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown selection \"%s\"", selection);
    return pg_error_set(e, PG_E_UNSUPPORTED, "check the pasted text in the window instead",
                        "Wayland does not tell other clients who owns the %s selection", selection);
}
