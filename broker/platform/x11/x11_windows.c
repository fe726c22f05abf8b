/* x11_windows.c - which windows are application windows, and where they are.
 *
 * Contract: a client window is what a user calls "a window": with an EWMH
 * window manager, the entries of _NET_CLIENT_LIST (trusted only while the
 * _NET_SUPPORTING_WM_CHECK window is alive); otherwise the WM_STATE carriers
 * among root's children and their descendants (ICCCM WMs put clients in
 * frames); with no WM at all, mapped children of root that have a WM_CLASS or
 * a title. Override-redirect and InputOnly windows (menus, tooltips, WM
 * helpers) are never clients. Window ids handed out and accepted are client
 * ids; every other id (frame, child, root) is refused as PG_E_NOTFOUND so a
 * caller cannot reach pixels or input of a window the broker did not list.
 * pid comes from X-Resource (the server's record of the connection), never
 * from _NET_WM_PID, which a client writes itself.
 * Never: trusts a reply to be present (windows vanish at any time) or walks
 * deeper than X11_MAX_DEPTH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/res.h>

#include "x11_private.h"

/* ------------------------------------------------------------- text */

/* Copy text into out (cap bytes, NUL-terminated, cut on a character
 * boundary). Valid UTF-8 is taken as is (Tk writes UTF-8 into WM_NAME and
 * labels it STRING); invalid bytes are read as Latin-1 when the property says
 * STRING, else replaced by '?'. */
static void copy_text(char *out, size_t cap, const uint8_t *s, size_t n, bool latin1) {
    size_t o = 0;
    for (size_t i = 0; i < n && s[i];) {
        uint32_t cp;
        size_t len = x11_utf8_decode(s + i, n - i, &cp);
        uint8_t enc[4];
        size_t elen;
        if (len) {
            memcpy(enc, s + i, len);
            elen = len;
            i += len;
        } else if (latin1) {
            enc[0] = (uint8_t)(0xc0 | (s[i] >> 6));
            enc[1] = (uint8_t)(0x80 | (s[i] & 0x3f));
            elen = 2;
            i++;
        } else {
            enc[0] = '?';
            elen = 1;
            i++;
        }
        if (o + elen >= cap) break;
        memcpy(out + o, enc, elen);
        o += elen;
    }
    out[o] = 0;
}

static bool prop_text(pg_platform *p, xcb_get_property_reply_t *r, char *out, size_t cap) {
    if (!r || r->format != 8 || xcb_get_property_value_length(r) <= 0) return false;
    copy_text(out, cap, xcb_get_property_value(r), (size_t)xcb_get_property_value_length(r),
              r->type == p->atom.string);
    return out[0] != 0;
}

static xcb_get_property_cookie_t ask_prop(pg_platform *p, xcb_window_t w, xcb_atom_t a,
                                          uint32_t words) {
    return xcb_get_property(p->c, 0, w, a, XCB_GET_PROPERTY_TYPE_ANY, 0, words);
}

void x11_title(pg_platform *p, xcb_window_t w, char *out, size_t cap) {
    pg_err rc = PG_OK;
    xcb_get_property_cookie_t a = ask_prop(p, w, p->atom.net_wm_name, 256);
    xcb_get_property_cookie_t b = ask_prop(p, w, p->atom.wm_name, 256);
    xcb_get_property_reply_t *ra = x11_take(p, a.sequence, &rc, NULL);
    xcb_get_property_reply_t *rb = x11_take(p, b.sequence, &rc, NULL);
    out[0] = 0;
    if (!prop_text(p, ra, out, cap)) prop_text(p, rb, out, cap);
    free(ra);
    free(rb);
}

/* ------------------------------------------------------ enumeration */

static bool has_value(xcb_get_property_reply_t *r) {
    return r && r->type != XCB_NONE && (r->value_len > 0 || r->bytes_after > 0);
}

/* First WM_STATE carrier at or below top (breadth first, bounded), or 0. */
static xcb_window_t find_client(pg_platform *p, xcb_window_t top, pg_err *rc, pg_error *e) {
    xcb_window_t level[64], next[64];
    size_t nl = 1;
    level[0] = top;
    for (int depth = 0; depth < 4 && nl && *rc == PG_OK; depth++) {
        xcb_get_property_cookie_t st[64];
        for (size_t i = 0; i < nl; i++) st[i] = ask_prop(p, level[i], p->atom.wm_state, 0);
        xcb_window_t found = 0;
        for (size_t i = 0; i < nl; i++) {
            xcb_get_property_reply_t *r = x11_take(p, st[i].sequence, rc, e);
            if (!found && has_value(r)) found = level[i];
            free(r);
        }
        if (found) return found;
        xcb_query_tree_cookie_t qt[64];
        for (size_t i = 0; i < nl; i++) qt[i] = xcb_query_tree(p->c, level[i]);
        size_t nn = 0;
        for (size_t i = 0; i < nl; i++) {
            xcb_query_tree_reply_t *t = x11_take(p, qt[i].sequence, rc, e);
            if (!t) continue;
            xcb_window_t *kids = xcb_query_tree_children(t);
            for (int k = 0; k < xcb_query_tree_children_length(t) && nn < 64; k++) next[nn++] = kids[k];
            free(t);
        }
        memcpy(level, next, nn * sizeof *next);
        nl = nn;
    }
    return 0;
}

xcb_window_t x11_client_of(pg_platform *p, xcb_window_t toplevel) {
    pg_err rc = PG_OK;
    xcb_window_t c = find_client(p, toplevel, &rc, NULL);
    return c ? c : toplevel;
}

/* No usable _NET_CLIENT_LIST: walk root's children. */
static pg_err walk_tree(pg_platform *p, xcb_window_t *kids, size_t nk, xcb_window_t *ids,
                        size_t *n, pg_error *e) {
    typedef struct {
        xcb_get_window_attributes_cookie_t attr;
        xcb_get_property_cookie_t cls, name, net_name;
    } ck_t;
    ck_t *ck = malloc((nk ? nk : 1) * sizeof *ck);
    if (!ck) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (size_t i = 0; i < nk; i++) {
        ck[i].attr = xcb_get_window_attributes(p->c, kids[i]);
        ck[i].cls = ask_prop(p, kids[i], p->atom.wm_class, 0);
        ck[i].name = ask_prop(p, kids[i], p->atom.wm_name, 0);
        ck[i].net_name = ask_prop(p, kids[i], p->atom.net_wm_name, 0);
    }
    pg_err rc = PG_OK;
    for (size_t i = 0; i < nk; i++) {
        xcb_get_window_attributes_reply_t *a = x11_take(p, ck[i].attr.sequence, &rc, e);
        xcb_get_property_reply_t *c = x11_take(p, ck[i].cls.sequence, &rc, e);
        xcb_get_property_reply_t *t1 = x11_take(p, ck[i].name.sequence, &rc, e);
        xcb_get_property_reply_t *t2 = x11_take(p, ck[i].net_name.sequence, &rc, e);
        bool candidate = a && !a->override_redirect && a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT;
        bool named = has_value(c) || has_value(t1) || has_value(t2);
        bool viewable = a && a->map_state == XCB_MAP_STATE_VIEWABLE;
        free(a), free(c), free(t1), free(t2);
        if (!candidate || rc != PG_OK) continue;
        /* ICCCM: a WM marks its clients with WM_STATE, possibly inside a frame. */
        xcb_window_t cl = find_client(p, kids[i], &rc, e);
        if (!cl && viewable && named) cl = kids[i]; /* no WM: the window itself */
        if (cl && *n < X11_MAX_WINDOWS) ids[(*n)++] = cl;
    }
    free(ck);
    return rc;
}

pg_err x11_client_ids(pg_platform *p, xcb_window_t **ids, size_t *n, pg_error *e) {
    *ids = NULL;
    *n = 0;
    pg_err rc = PG_OK;
    bool wm = x11_wm_running(p, NULL, 0, e);
    xcb_get_property_cookie_t cl = xcb_get_property(p->c, 0, p->root, p->atom.net_client_list,
                                                    XCB_ATOM_WINDOW, 0, X11_MAX_WINDOWS);
    xcb_query_tree_cookie_t qt = xcb_query_tree(p->c, p->root);
    xcb_get_property_reply_t *list = x11_take(p, cl.sequence, &rc, e);
    xcb_query_tree_reply_t *tree = x11_take(p, qt.sequence, &rc, e);
    if (rc == PG_OK && !tree) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "QueryTree(root) failed");
    xcb_window_t *out = rc == PG_OK ? malloc(X11_MAX_WINDOWS * sizeof *out) : NULL;
    if (rc == PG_OK && !out) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (rc == PG_OK && wm && list && list->type == XCB_ATOM_WINDOW && list->format == 32) {
        size_t m = (size_t)xcb_get_property_value_length(list) / 4;
        memcpy(out, xcb_get_property_value(list), m * 4);
        *n = m;
    } else if (rc == PG_OK) {
        size_t nk = (size_t)xcb_query_tree_children_length(tree);
        if (nk > X11_MAX_WINDOWS) nk = X11_MAX_WINDOWS;
        rc = walk_tree(p, xcb_query_tree_children(tree), nk, out, n, e);
    }
    free(list);
    free(tree);
    if (rc != PG_OK) {
        free(out);
        *n = 0;
        return rc;
    }
    *ids = out;
    return PG_OK;
}

/* ------------------------------------------------------------ lookup */

static pg_err not_found(pg_error *e, uint64_t id) {
    return pg_error_set(e, PG_E_NOTFOUND, "list windows again; the window may have closed",
                        "no application window 0x%llx (closed, or not a top-level client window)",
                        (unsigned long long)id);
}

/* The ancestor of w that is a child of root. */
static xcb_window_t toplevel_of(pg_platform *p, xcb_window_t w, pg_err *rc, pg_error *e) {
    for (int i = 0; i < X11_MAX_DEPTH && *rc == PG_OK; i++) {
        xcb_query_tree_reply_t *t = x11_take(p, xcb_query_tree(p->c, w).sequence, rc, e);
        if (!t) return 0;
        xcb_window_t parent = t->parent;
        free(t);
        if (parent == p->root) return w;
        if (parent == XCB_NONE) return 0;
        w = parent;
    }
    return 0;
}

static bool is_client(pg_platform *p, xcb_window_t w, pg_err *rc, pg_error *e) {
    xcb_window_t *ids;
    size_t n;
    *rc = x11_client_ids(p, &ids, &n, e);
    bool found = false;
    for (size_t i = 0; *rc == PG_OK && i < n && !found; i++) found = ids[i] == w;
    free(ids);
    return found;
}

/* Fill w from the replies about the client and its toplevel. */
static pg_err fill_geometry(pg_platform *p, x11_win *w, pg_error *e) {
    pg_err rc = PG_OK;
    xcb_get_window_attributes_cookie_t ca = xcb_get_window_attributes(p->c, w->id);
    xcb_get_geometry_cookie_t cg = xcb_get_geometry(p->c, w->id);
    xcb_translate_coordinates_cookie_t cr = xcb_translate_coordinates(p->c, w->id, p->root, 0, 0);
    xcb_translate_coordinates_cookie_t ct = xcb_translate_coordinates(p->c, w->id, w->toplevel, 0, 0);
    xcb_get_window_attributes_cookie_t cta = xcb_get_window_attributes(p->c, w->toplevel);
    xcb_get_geometry_cookie_t ctg = xcb_get_geometry(p->c, w->toplevel);
    xcb_get_window_attributes_reply_t *a = x11_take(p, ca.sequence, &rc, e);
    xcb_get_geometry_reply_t *g = x11_take(p, cg.sequence, &rc, e);
    xcb_translate_coordinates_reply_t *r = x11_take(p, cr.sequence, &rc, e);
    xcb_translate_coordinates_reply_t *t = x11_take(p, ct.sequence, &rc, e);
    xcb_get_window_attributes_reply_t *ta = x11_take(p, cta.sequence, &rc, e);
    xcb_get_geometry_reply_t *tg = x11_take(p, ctg.sequence, &rc, e);
    if (rc == PG_OK && (!a || !g || !r || !t || !ta || !tg)) rc = not_found(e, w->id);
    if (rc == PG_OK) {
        w->viewable = a->map_state == XCB_MAP_STATE_VIEWABLE;
        w->width = g->width;
        w->height = g->height;
        w->root_x = r->dst_x;
        w->root_y = r->dst_y;
        /* The toplevel's pixmap starts at the outer edge of its border. */
        w->off_x = t->dst_x + tg->border_width;
        w->off_y = t->dst_y + tg->border_width;
        w->top_w = tg->width + 2u * tg->border_width;
        w->top_h = tg->height + 2u * tg->border_width;
        w->top_visual = ta->visual;
        w->top_depth = tg->depth;
    }
    free(a), free(g), free(r), free(t), free(ta), free(tg);
    return rc;
}

pg_err x11_resolve(pg_platform *p, uint64_t id, x11_win *w, pg_error *e) {
    memset(w, 0, sizeof *w);
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    if (id == 0 || id > 0x1fffffffu) return not_found(e, id);
    w->id = (xcb_window_t)id;
    if (!is_client(p, w->id, &rc, e)) return rc != PG_OK ? rc : not_found(e, id);
    w->toplevel = toplevel_of(p, w->id, &rc, e);
    if (rc != PG_OK) return rc;
    if (!w->toplevel) return not_found(e, id);
    return fill_geometry(p, w, e);
}

/* ---------------------------------------------------------- listing */

/* The focus window and its ancestors: a client is focused when it is on
 * this chain (toolkits focus a child or a focus proxy, not the client). */
static size_t focus_chain(pg_platform *p, xcb_window_t *chain, size_t cap, pg_error *e) {
    pg_err rc = PG_OK;
    xcb_get_input_focus_reply_t *f = x11_take(p, xcb_get_input_focus(p->c).sequence, &rc, e);
    xcb_window_t w = f ? f->focus : XCB_NONE;
    free(f);
    size_t n = 0;
    /* None (0) and PointerRoot (1) name no window. */
    while (w > 1 && w != p->root && n < cap && rc == PG_OK) {
        chain[n++] = w;
        xcb_query_tree_reply_t *t = x11_take(p, xcb_query_tree(p->c, w).sequence, &rc, e);
        w = t ? t->parent : XCB_NONE;
        free(t);
    }
    return n;
}

static int64_t res_pid(xcb_res_query_client_ids_reply_t *r) {
    if (!r) return -1;
    xcb_res_client_id_value_iterator_t it = xcb_res_query_client_ids_ids_iterator(r);
    for (; it.rem; xcb_res_client_id_value_next(&it)) {
        if ((it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID) &&
            xcb_res_client_id_value_value_length(it.data) == 1)
            return (int64_t)*xcb_res_client_id_value_value(it.data);
    }
    return -1;
}

typedef struct {
    xcb_get_window_attributes_cookie_t attr;
    xcb_get_geometry_cookie_t geo;
    xcb_translate_coordinates_cookie_t tr;
    xcb_get_property_cookie_t net_name, name, cls;
    xcb_res_query_client_ids_cookie_t pid;
    bool ask_pid;
} list_ck;

static void ask_window(pg_platform *p, xcb_window_t id, list_ck *k) {
    k->attr = xcb_get_window_attributes(p->c, id);
    k->geo = xcb_get_geometry(p->c, id);
    k->tr = xcb_translate_coordinates(p->c, id, p->root, 0, 0);
    k->net_name = ask_prop(p, id, p->atom.net_wm_name, 256);
    k->name = ask_prop(p, id, p->atom.wm_name, 256);
    k->cls = ask_prop(p, id, p->atom.wm_class, 256);
    k->ask_pid = p->res.present && (p->res.major > 1 || p->res.minor >= 2);
    if (k->ask_pid) {
        xcb_res_client_id_spec_t spec = {id, XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID};
        k->pid = xcb_res_query_client_ids(p->c, 1, &spec);
    }
}

static void class_parts(xcb_get_property_reply_t *r, pg_window *w) {
    if (!r || r->format != 8) return;
    const uint8_t *v = xcb_get_property_value(r);
    size_t n = (size_t)xcb_get_property_value_length(r);
    size_t inst = strnlen((const char *)v, n);
    copy_text(w->instance, sizeof w->instance, v, inst, true);
    if (inst + 1 < n) copy_text(w->class_name, sizeof w->class_name, v + inst + 1, n - inst - 1, true);
}

/* Collect one window's replies; false if it vanished meanwhile. */
static bool take_window(pg_platform *p, xcb_window_t id, list_ck *k, const xcb_window_t *chain,
                        size_t nchain, pg_window *w, pg_err *rc, pg_error *e) {
    xcb_get_window_attributes_reply_t *a = x11_take(p, k->attr.sequence, rc, e);
    xcb_get_geometry_reply_t *g = x11_take(p, k->geo.sequence, rc, e);
    xcb_translate_coordinates_reply_t *t = x11_take(p, k->tr.sequence, rc, e);
    xcb_get_property_reply_t *nn = x11_take(p, k->net_name.sequence, rc, e);
    xcb_get_property_reply_t *wn = x11_take(p, k->name.sequence, rc, e);
    xcb_get_property_reply_t *cl = x11_take(p, k->cls.sequence, rc, e);
    xcb_res_query_client_ids_reply_t *pr = k->ask_pid ? x11_take(p, k->pid.sequence, rc, e) : NULL;
    bool ok = *rc == PG_OK && a && g && t;
    if (ok) {
        memset(w, 0, sizeof *w);
        w->id = id;
        if (!prop_text(p, nn, w->title, sizeof w->title)) prop_text(p, wn, w->title, sizeof w->title);
        class_parts(cl, w);
        w->pid = res_pid(pr);
        w->x = t->dst_x;
        w->y = t->dst_y;
        w->width = g->width;
        w->height = g->height;
        w->visible = a->map_state == XCB_MAP_STATE_VIEWABLE;
        for (size_t i = 0; i < nchain; i++) w->focused |= chain[i] == id;
    }
    free(a), free(g), free(t), free(nn), free(wn), free(cl), free(pr);
    return ok;
}

pg_err x11_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e) {
    *out = NULL;
    *n = 0;
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    xcb_window_t *ids;
    size_t nid;
    if ((rc = x11_client_ids(p, &ids, &nid, e)) != PG_OK) return rc;
    xcb_window_t chain[X11_MAX_DEPTH];
    size_t nchain = focus_chain(p, chain, X11_MAX_DEPTH, e);
    list_ck *ck = malloc((nid ? nid : 1) * sizeof *ck);
    pg_window *w = calloc(nid ? nid : 1, sizeof *w);
    if (!ck || !w) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t m = 0;
    if (rc == PG_OK) {
        for (size_t i = 0; i < nid; i++) ask_window(p, ids[i], &ck[i]);
        /* Take every reply, even after a failure (x11_take then drops it). */
        for (size_t i = 0; i < nid; i++)
            if (take_window(p, ids[i], &ck[i], chain, nchain, &w[m], &rc, e)) m++;
    }
    free(ids);
    free(ck);
    if (rc != PG_OK) {
        free(w);
        return rc;
    }
    *out = w;
    *n = m;
    return PG_OK;
}
