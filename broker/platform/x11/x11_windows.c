/* SPDX-License-Identifier: MIT */
/* x11_windows.c - which windows are application windows, and where they are.
 *
 * Contract: a client window is what a user calls "a window": with an EWMH
 * window manager, the entries of _NET_CLIENT_LIST (trusted only while the
 * _NET_SUPPORTING_WM_CHECK window is alive); otherwise the WM_STATE carriers
 * among root's children and their descendants (ICCCM WMs put clients in
 * frames); with no WM at all, mapped children of root that have a WM_CLASS or
 * a title. Override-redirect and InputOnly windows (menus, tooltips, WM
 * helpers) are never clients. Window ids handed out and accepted are client
 * ids and the popups list_all reports (mapped override-redirect children of
 * root); every other id (frame, child, root) is refused as PG_E_NOTFOUND so
 * a caller cannot reach pixels or input of a window the broker did not list.
 * The broker's own indicator windows (x11_indicator.c) are never listed,
 * described or resolved.
 * pid comes from X-Resource (the server's record of the connection), never
 * from _NET_WM_PID, which a client writes itself.
 * A client with WM_TRANSIENT_FOR is a dialog; list_all adds the mapped
 * override-redirect children of root as popups. Each dialog and popup is
 * attributed to a normal window: the one its WM_TRANSIENT_FOR names, else
 * the only normal window of the same X client (X-Resource client base);
 * when that is not one window, parent stays 0. A window's frame is its
 * toplevel (the WM frame, borders included). Titles are read whole (while
 * the server says bytes are left, up to X11_MAX_TEXT_BYTES); one that does
 * not fit pg_window.title is marked title_cut. Lists longer than
 * X11_MAX_WINDOWS are reported incomplete.
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
 * STRING, else replaced by '?'. False when not all of it fit (or a NUL
 * inside hid the rest): the caller marks such a title cut. */
static bool copy_text(char *out, size_t cap, const uint8_t *s, size_t n, bool latin1) {
    size_t o = 0, i = 0;
    bool fit = true;
    while (i < n && s[i]) {
        uint32_t cp;
        size_t len = x11_utf8_decode(s + i, n - i, &cp);
        uint8_t enc[4];
        size_t elen;
        if (len) {
            memcpy(enc, s + i, len);
            elen = len;
        } else if (latin1) {
            enc[0] = (uint8_t)(0xc0 | (s[i] >> 6));
            enc[1] = (uint8_t)(0x80 | (s[i] & 0x3f));
            elen = 2;
        } else {
            enc[0] = '?';
            elen = 1;
        }
        if (o + elen >= cap) {
            fit = false;
            break;
        }
        memcpy(out + o, enc, elen);
        o += elen;
        i += len ? len : 1;
    }
    out[o] = 0;
    while (fit && i < n && !s[i]) i++; /* trailing NULs end the text; text after one does not fit */
    return fit && i >= n;
}

static xcb_get_property_cookie_t ask_prop(pg_platform *p, xcb_window_t w, xcb_atom_t a,
                                          uint32_t words) {
    return xcb_get_property(p->c, 0, w, a, XCB_GET_PROPERTY_TYPE_ANY, 0, words);
}

/* The whole value of the 8-bit property r is the first part of: the first
 * reply carries X11_TEXT_FIRST_WORDS words, the rest is fetched piece by piece
 * while bytes_after says there is more, up to X11_MAX_TEXT_BYTES. malloc'd
 * (caller frees), *n bytes; *more when it is longer than we read or changed
 * while we read. NULL when r is no 8-bit value. */
static uint8_t *whole_value(pg_platform *p, xcb_window_t w, xcb_atom_t a, xcb_get_property_reply_t *r,
                            size_t *n, bool *more) {
    *n = 0;
    *more = false;
    if (!r || r->format != 8 || r->type == XCB_NONE) return NULL;
    size_t len = (size_t)xcb_get_property_value_length(r);
    uint32_t after = r->bytes_after;
    xcb_atom_t type = r->type;
    uint8_t *buf = malloc(len + 1);
    if (!buf) return NULL;
    memcpy(buf, xcb_get_property_value(r), len);
    while (after > 0) {
        if (len >= X11_MAX_TEXT_BYTES || len % 4) { /* too long, or not where a next piece can start */
            *more = true;
            break;
        }
        size_t want = after < X11_MAX_TEXT_BYTES - len ? after : X11_MAX_TEXT_BYTES - len;
        pg_err rc = PG_OK;
        xcb_get_property_reply_t *q = x11_take(
            p, xcb_get_property(p->c, 0, w, a, type, (uint32_t)(len / 4), (uint32_t)((want + 3) / 4)).sequence, &rc,
            NULL);
        size_t got = q ? (size_t)xcb_get_property_value_length(q) : 0;
        uint8_t *grown = q && q->format == 8 && q->type == type && got ? realloc(buf, len + got + 1) : NULL;
        if (!grown) { /* gone, changed type or shrunk meanwhile: what we have is not all of it */
            free(q);
            *more = true;
            break;
        }
        buf = grown;
        memcpy(buf + len, xcb_get_property_value(q), got);
        len += got;
        after = q->bytes_after;
        free(q);
    }
    *n = len;
    return buf;
}

/* The text of property reply r (asked with ask_prop) into out; false when
 * there is none. *cut when it did not all fit (or could not all be read). */
static bool prop_text(pg_platform *p, xcb_window_t w, xcb_atom_t a, xcb_get_property_reply_t *r, char *out,
                      size_t cap, bool *cut) {
    size_t n;
    bool more;
    uint8_t *v = whole_value(p, w, a, r, &n, &more);
    out[0] = 0;
    if (!v) return false;
    bool fit = copy_text(out, cap, v, n, r->type == p->atom.string);
    free(v);
    if (!out[0] && !more) return false;
    *cut = more || !fit;
    return true;
}

bool x11_title(pg_platform *p, xcb_window_t w, char *out, size_t cap) {
    pg_err rc = PG_OK;
    xcb_get_property_cookie_t a = ask_prop(p, w, p->atom.net_wm_name, X11_TEXT_FIRST_WORDS);
    xcb_get_property_cookie_t b = ask_prop(p, w, p->atom.wm_name, X11_TEXT_FIRST_WORDS);
    xcb_get_property_reply_t *ra = x11_take(p, a.sequence, &rc, NULL);
    xcb_get_property_reply_t *rb = x11_take(p, b.sequence, &rc, NULL);
    bool cut = false;
    if (!prop_text(p, w, p->atom.net_wm_name, ra, out, cap, &cut)) prop_text(p, w, p->atom.wm_name, rb, out, cap, &cut);
    free(ra);
    free(rb);
    return cut;
}

/* ------------------------------------------------------ enumeration */

static bool has_value(xcb_get_property_reply_t *r) {
    return r && r->type != XCB_NONE && (r->value_len > 0 || r->bytes_after > 0);
}

/* For each of tops[0..n), the first WM_STATE carrier at or below it
 * (breadth first, 4 levels, at most 64 windows a level), or 0, in found[].
 * All the searches go level by level together: one round trip a level
 * for all of them, not per window. */
typedef struct {
    size_t owner;     /* index into tops */
    xcb_window_t win;
} frontier_item;

#define FIND_DEPTH 4
#define FIND_WIDTH 64

/* st0 and qt0 (both or neither): level 0's WM_STATE and QueryTree, asked
 * by the caller together with its own questions. */
static pg_err find_clients(pg_platform *p, const xcb_window_t *tops, size_t n, xcb_window_t *found,
                           const xcb_get_property_cookie_t *st0, const xcb_query_tree_cookie_t *qt0, pg_error *e) {
    size_t cap = (n ? n : 1) * FIND_WIDTH;
    frontier_item *level = malloc(cap * sizeof *level), *next = malloc(cap * sizeof *next);
    size_t *width = calloc(n ? n : 1, sizeof *width);
    xcb_get_property_cookie_t *st = malloc(cap * sizeof *st);
    xcb_query_tree_cookie_t *qt = malloc(cap * sizeof *qt);
    pg_err rc = level && next && width && st && qt ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t nl = 0;
    for (size_t i = 0; rc != PG_OK && st0 && i < n; i++) /* no memory: the pre-sent answers are dropped */
        xcb_discard_reply(p->c, st0[i].sequence), xcb_discard_reply(p->c, qt0[i].sequence);
    for (size_t i = 0; rc == PG_OK && i < n; i++) {
        found[i] = 0;
        level[nl++] = (frontier_item){i, tops[i]};
    }
    for (int depth = 0; depth < FIND_DEPTH && nl && rc == PG_OK; depth++) {
        /* A level's WM_STATE and its children are asked together (the
         * children of a window that turns out to be the client go unused):
         * one round trip a level. */
        bool last = depth + 1 == FIND_DEPTH;
        for (size_t i = 0; i < nl; i++) {
            if (depth == 0 && st0) {
                st[i] = st0[i], qt[i] = qt0[i];
                continue;
            }
            st[i] = ask_prop(p, level[i].win, p->atom.wm_state, 0);
            if (!last) qt[i] = xcb_query_tree(p->c, level[i].win);
        }
        for (size_t i = 0; i < nl; i++) {
            xcb_get_property_reply_t *r = x11_take(p, st[i].sequence, &rc, e);
            if (!found[level[i].owner] && has_value(r)) found[level[i].owner] = level[i].win;
            free(r);
        }
        memset(width, 0, (n ? n : 1) * sizeof *width);
        size_t nn = 0;
        for (size_t i = 0; !last && i < nl; i++) {
            xcb_query_tree_reply_t *t = x11_take(p, qt[i].sequence, &rc, e);
            if (!t || found[level[i].owner]) {
                free(t);
                continue;
            }
            xcb_window_t *kids = xcb_query_tree_children(t);
            size_t o = level[i].owner;
            for (int k = 0; k < xcb_query_tree_children_length(t) && width[o] < FIND_WIDTH; k++, width[o]++)
                next[nn++] = (frontier_item){o, kids[k]};
            free(t);
        }
        frontier_item *swap = level;
        level = next, next = swap, nl = nn;
    }
    free(level), free(next), free(width), free(st), free(qt);
    return rc;
}

xcb_window_t x11_client_of(pg_platform *p, xcb_window_t toplevel) {
    xcb_window_t c = 0;
    if (find_clients(p, &toplevel, 1, &c, NULL, NULL, NULL) != PG_OK) c = 0;
    return c ? c : toplevel;
}

/* No usable _NET_CLIENT_LIST: walk root's children. */
static pg_err walk_tree(pg_platform *p, xcb_window_t *kids, size_t nk, xcb_window_t *ids,
                        size_t *n, bool *cut, pg_error *e) {
    typedef struct {
        xcb_get_window_attributes_cookie_t attr;
        xcb_get_property_cookie_t cls, name, net_name, state;
        xcb_query_tree_cookie_t tree;
    } ck_t;
    ck_t *ck = malloc((nk ? nk : 1) * sizeof *ck);
    xcb_window_t *cand = calloc(nk ? nk : 1, sizeof *cand), *client = calloc(nk ? nk : 1, sizeof *client);
    bool *plain = malloc((nk ? nk : 1) * sizeof *plain); /* viewable and named: its own client without a WM */
    xcb_get_property_cookie_t *st0 = calloc(nk ? nk : 1, sizeof *st0);
    xcb_query_tree_cookie_t *qt0 = calloc(nk ? nk : 1, sizeof *qt0);
    if (!ck || !cand || !client || !plain || !st0 || !qt0) {
        free(ck), free(cand), free(client), free(plain), free(st0), free(qt0);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    /* The first level of the WM_STATE search travels with the attributes:
     * one round trip for both (a non-candidate's answers are dropped). */
    for (size_t i = 0; i < nk; i++) {
        ck[i].attr = xcb_get_window_attributes(p->c, kids[i]);
        ck[i].cls = ask_prop(p, kids[i], p->atom.wm_class, 0);
        ck[i].name = ask_prop(p, kids[i], p->atom.wm_name, 0);
        ck[i].net_name = ask_prop(p, kids[i], p->atom.net_wm_name, 0);
        ck[i].state = ask_prop(p, kids[i], p->atom.wm_state, 0);
        ck[i].tree = xcb_query_tree(p->c, kids[i]);
    }
    pg_err rc = PG_OK;
    size_t nc = 0;
    for (size_t i = 0; i < nk; i++) {
        xcb_get_window_attributes_reply_t *a = x11_take(p, ck[i].attr.sequence, &rc, e);
        xcb_get_property_reply_t *c = x11_take(p, ck[i].cls.sequence, &rc, e);
        xcb_get_property_reply_t *t1 = x11_take(p, ck[i].name.sequence, &rc, e);
        xcb_get_property_reply_t *t2 = x11_take(p, ck[i].net_name.sequence, &rc, e);
        bool candidate = a && !a->override_redirect && a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT;
        bool named = has_value(c) || has_value(t1) || has_value(t2);
        bool viewable = a && a->map_state == XCB_MAP_STATE_VIEWABLE;
        free(a), free(c), free(t1), free(t2);
        if (candidate && rc == PG_OK) {
            plain[nc] = viewable && named, st0[nc] = ck[i].state, qt0[nc] = ck[i].tree, cand[nc++] = kids[i];
        } else {
            xcb_discard_reply(p->c, ck[i].state.sequence);
            xcb_discard_reply(p->c, ck[i].tree.sequence);
        }
    }
    /* ICCCM: a WM marks its clients with WM_STATE, possibly inside a frame. */
    if (rc == PG_OK) rc = find_clients(p, cand, nc, client, st0, qt0, e);
    else
        for (size_t i = 0; i < nc; i++) xcb_discard_reply(p->c, st0[i].sequence), xcb_discard_reply(p->c, qt0[i].sequence);
    for (size_t i = 0; rc == PG_OK && i < nc; i++) {
        xcb_window_t cl = client[i] ? client[i] : plain[i] ? cand[i] : 0; /* no WM: the window itself */
        if (cl && *n < X11_MAX_WINDOWS) ids[(*n)++] = cl;
        else if (cl) *cut = true; /* never silently: the caller decides what an incomplete list means */
    }
    free(ck), free(cand), free(client), free(plain), free(st0), free(qt0);
    return rc;
}

static int window_order(const void *a, const void *b) {
    xcb_window_t x = *(const xcb_window_t *)a, y = *(const xcb_window_t *)b;
    return x < y ? -1 : x > y;
}

/* Which of ids[0..n) are children of root, by the tree read with them;
 * malloc'd (NULL when out of memory: then nothing is known to be). */
static bool *mark_root_children(xcb_query_tree_reply_t *tree, const xcb_window_t *ids, size_t n) {
    size_t nk = (size_t)xcb_query_tree_children_length(tree);
    xcb_window_t *kids = malloc((nk ? nk : 1) * sizeof *kids);
    bool *at_root = calloc(n ? n : 1, sizeof *at_root);
    if (!kids || !at_root) {
        free(kids), free(at_root);
        return NULL;
    }
    memcpy(kids, xcb_query_tree_children(tree), nk * sizeof *kids);
    qsort(kids, nk, sizeof *kids, window_order);
    for (size_t i = 0; i < n; i++) at_root[i] = bsearch(&ids[i], kids, nk, sizeof *kids, window_order) != NULL;
    free(kids);
    return at_root;
}

pg_err x11_client_ids(pg_platform *p, xcb_window_t **ids, size_t *n, bool *cut, bool **at_root, pg_error *e) {
    *ids = NULL;
    if (at_root) *at_root = NULL;
    *n = 0;
    bool ignored;
    if (!cut) cut = &ignored;
    *cut = false;
    pg_err rc = PG_OK;
    /* The three questions travel together: one round trip (two with a WM). */
    xcb_get_property_cookie_t wm_check = x11_wm_check_ask(p);
    xcb_get_property_cookie_t cl = xcb_get_property(p->c, 0, p->root, p->atom.net_client_list,
                                                    XCB_ATOM_WINDOW, 0, X11_MAX_WINDOWS);
    xcb_query_tree_cookie_t qt = xcb_query_tree(p->c, p->root);
    bool wm = x11_wm_check_take(p, wm_check, NULL, 0, e);
    xcb_get_property_reply_t *list = x11_take(p, cl.sequence, &rc, e);
    xcb_query_tree_reply_t *tree = x11_take(p, qt.sequence, &rc, e);
    if (rc == PG_OK && !tree) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "QueryTree(root) failed");
    xcb_window_t *out = rc == PG_OK ? malloc(X11_MAX_WINDOWS * sizeof *out) : NULL;
    if (rc == PG_OK && !out) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (rc == PG_OK && wm && list && list->type == XCB_ATOM_WINDOW && list->format == 32) {
        size_t m = (size_t)xcb_get_property_value_length(list) / 4;
        memcpy(out, xcb_get_property_value(list), m * 4);
        *n = m;
        *cut = list->bytes_after > 0;
    } else if (rc == PG_OK) {
        size_t nk = (size_t)xcb_query_tree_children_length(tree);
        if (nk > X11_MAX_WINDOWS) { /* root's children are bottom to top: these are the topmost */
            nk = X11_MAX_WINDOWS;
            *cut = true;
        }
        rc = walk_tree(p, xcb_query_tree_children(tree), nk, out, n, cut, e);
    }
    if (rc == PG_OK && at_root) *at_root = mark_root_children(tree, out, *n);
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
                        "no application window %llu (closed, or not a top-level client window)",
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

/* Is w one of the clients? *at_root: it is a child of root itself (no WM
 * frame around it), so it is its own toplevel. */
static bool is_client(pg_platform *p, xcb_window_t w, bool *at_root, pg_err *rc, pg_error *e) {
    xcb_window_t *ids;
    bool *root_child;
    size_t n;
    *at_root = false;
    *rc = x11_client_ids(p, &ids, &n, NULL, &root_child, e);
    bool found = false;
    for (size_t i = 0; *rc == PG_OK && i < n && !found; i++)
        if ((found = ids[i] == w)) *at_root = root_child && root_child[i];
    free(ids);
    free(root_child);
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

/* A popup as list_all reports it: a mapped override-redirect InputOutput
 * child of root (a menu, a dropdown, a tooltip). */
static bool is_popup(pg_platform *p, xcb_window_t w, pg_err *rc, pg_error *e) {
    xcb_get_window_attributes_cookie_t ca = xcb_get_window_attributes(p->c, w);
    xcb_query_tree_cookie_t ct = xcb_query_tree(p->c, w);
    xcb_get_window_attributes_reply_t *a = x11_take(p, ca.sequence, rc, e);
    xcb_query_tree_reply_t *t = x11_take(p, ct.sequence, rc, e);
    bool popup = a && t && a->override_redirect && a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT &&
                 a->map_state == XCB_MAP_STATE_VIEWABLE && t->parent == p->root;
    free(a);
    free(t);
    return popup;
}

pg_err x11_resolve(pg_platform *p, uint64_t id, x11_win *w, pg_error *e) {
    memset(w, 0, sizeof *w);
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    if (id == 0 || id > 0x1fffffffu || x11_indicator_is_own((xcb_window_t)id)) return not_found(e, id); /* never a target */
    w->id = (xcb_window_t)id;
    bool at_root = false;
    if (!is_client(p, w->id, &at_root, &rc, e) && (rc != PG_OK || !is_popup(p, w->id, &rc, e)))
        return rc != PG_OK ? rc : not_found(e, id);
    w->toplevel = at_root ? w->id : toplevel_of(p, w->id, &rc, e);
    if (rc != PG_OK) return rc;
    if (!w->toplevel) return not_found(e, id);
    return fill_geometry(p, w, e);
}

/* ---------------------------------------------------------- listing */

/* The owner of a window as the server knows it: the pid of its connection
 * and the client's resource base (what "the same X client" means). */
typedef struct {
    int64_t pid;       /* -1: not known */
    uint32_t client;   /* 0: not known */
} x11_owner;

static x11_owner res_owner(xcb_res_query_client_ids_reply_t *r) {
    x11_owner o = {-1, 0};
    if (!r) return o;
    xcb_res_client_id_value_iterator_t it = xcb_res_query_client_ids_ids_iterator(r);
    for (; it.rem; xcb_res_client_id_value_next(&it)) {
        if ((it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID) &&
            xcb_res_client_id_value_value_length(it.data) == 1)
            o.pid = (int64_t)*xcb_res_client_id_value_value(it.data);
        if (it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_CLIENT_XID) o.client = it.data->spec.client;
    }
    return o;
}

/* One window to describe: a client (normal window or dialog), or a popup. */
typedef struct {
    xcb_window_t id;
    xcb_window_t top; /* its ancestor that is a child of root (the WM frame), 0 if not found */
    bool popup;       /* override-redirect child of root */
} item;

typedef struct {
    xcb_get_window_attributes_cookie_t attr;
    xcb_get_geometry_cookie_t geo, top_geo;
    xcb_translate_coordinates_cookie_t tr;
    xcb_get_property_cookie_t net_name, name, cls, transient, type;
    xcb_res_query_client_ids_cookie_t res;
    bool ask_res;
} list_ck;

/* What the listing learns besides the pg_window: who the window says it
 * belongs to, and which X client made it. */
typedef struct {
    xcb_window_t transient; /* WM_TRANSIENT_FOR, 0 if none */
    uint32_t client;        /* X-Resource client base, 0 if unknown */
} item_meta;

static void ask_window(pg_platform *p, const item *it, list_ck *k) {
    xcb_window_t id = it->id;
    k->attr = xcb_get_window_attributes(p->c, id);
    k->geo = xcb_get_geometry(p->c, id);
    k->top_geo = xcb_get_geometry(p->c, it->top ? it->top : id);
    k->tr = xcb_translate_coordinates(p->c, id, p->root, 0, 0);
    k->net_name = ask_prop(p, id, p->atom.net_wm_name, X11_TEXT_FIRST_WORDS);
    k->name = ask_prop(p, id, p->atom.wm_name, X11_TEXT_FIRST_WORDS);
    k->cls = ask_prop(p, id, p->atom.wm_class, 256);
    k->transient = xcb_get_property(p->c, 0, id, XCB_ATOM_WM_TRANSIENT_FOR, XCB_ATOM_WINDOW, 0, 1);
    k->type = xcb_get_property(p->c, 0, id, p->atom.net_wm_window_type, XCB_ATOM_ATOM, 0, 8);
    k->ask_res = p->res.present && (p->res.major > 1 || p->res.minor >= 2);
    if (k->ask_res) {
        xcb_res_client_id_spec_t spec = {id, XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID | XCB_RES_CLIENT_ID_MASK_CLIENT_XID};
        k->res = xcb_res_query_client_ids(p->c, 1, &spec);
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

static xcb_window_t window_value(xcb_get_property_reply_t *r) {
    xcb_window_t v = 0;
    if (r && r->type == XCB_ATOM_WINDOW && r->format == 32 && xcb_get_property_value_length(r) == 4)
        memcpy(&v, xcb_get_property_value(r), 4);
    return v;
}

/* A surface of the desktop itself (EWMH: the background, a panel), by the
 * first type the window names (EWMH lists them by preference). Every user
 * of the display sees it, so it is nobody's private window. */
static bool shared_type(pg_platform *p, xcb_get_property_reply_t *r) {
    if (!r || r->type != XCB_ATOM_ATOM || r->format != 32) return false;
    const xcb_atom_t *v = xcb_get_property_value(r);
    int n = xcb_get_property_value_length(r) / 4;
    return n > 0 && (v[0] == p->atom.net_wm_window_type_desktop || v[0] == p->atom.net_wm_window_type_dock);
}

/* The outer bounds of the toplevel (border included), in root coordinates;
 * the content when the toplevel is not known. */
static pg_rect frame_of(const xcb_get_geometry_reply_t *tg, const pg_window *w) {
    if (!tg) return (pg_rect){w->x, w->y, w->width, w->height};
    return (pg_rect){tg->x, tg->y, tg->width + 2u * tg->border_width, tg->height + 2u * tg->border_width};
}

/* Collect one window's replies; false if it vanished meanwhile. */
static bool take_window(pg_platform *p, const item *it, list_ck *k, const xcb_window_t *chain, size_t nchain,
                        pg_window *w, item_meta *m, pg_err *rc, pg_error *e) {
    xcb_get_window_attributes_reply_t *a = x11_take(p, k->attr.sequence, rc, e);
    xcb_get_geometry_reply_t *g = x11_take(p, k->geo.sequence, rc, e);
    xcb_get_geometry_reply_t *tg = x11_take(p, k->top_geo.sequence, rc, e);
    xcb_translate_coordinates_reply_t *t = x11_take(p, k->tr.sequence, rc, e);
    xcb_get_property_reply_t *nn = x11_take(p, k->net_name.sequence, rc, e);
    xcb_get_property_reply_t *wn = x11_take(p, k->name.sequence, rc, e);
    xcb_get_property_reply_t *cl = x11_take(p, k->cls.sequence, rc, e);
    xcb_get_property_reply_t *tf = x11_take(p, k->transient.sequence, rc, e);
    xcb_get_property_reply_t *ty = x11_take(p, k->type.sequence, rc, e);
    xcb_res_query_client_ids_reply_t *res = k->ask_res ? x11_take(p, k->res.sequence, rc, e) : NULL;
    bool ok = *rc == PG_OK && a && g && t;
    if (ok) {
        memset(w, 0, sizeof *w);
        w->id = it->id;
        if (!prop_text(p, it->id, p->atom.net_wm_name, nn, w->title, sizeof w->title, &w->title_cut))
            prop_text(p, it->id, p->atom.wm_name, wn, w->title, sizeof w->title, &w->title_cut);
        class_parts(cl, w);
        x11_owner o = res_owner(res);
        w->pid = o.pid;
        w->x = t->dst_x;
        w->y = t->dst_y;
        w->width = g->width;
        w->height = g->height;
        w->frame = frame_of(it->top ? tg : NULL, w);
        w->visible = a->map_state == XCB_MAP_STATE_VIEWABLE;
        for (size_t i = 0; i < nchain; i++) w->focused |= chain[i] == it->id;
        m->transient = window_value(tf);
        m->client = o.client;
        w->kind = it->popup ? PG_WINDOW_POPUP : m->transient ? PG_WINDOW_DIALOG : PG_WINDOW_NORMAL;
        w->shared = !it->popup && shared_type(p, ty);
    }
    free(a), free(g), free(tg), free(t), free(nn), free(wn), free(cl), free(tf), free(ty), free(res);
    return ok;
}

/* ------------------------------------------------------- attribution */

static size_t index_of(const pg_window *w, size_t n, uint64_t id) {
    for (size_t i = 0; i < n; i++)
        if (w[i].id == id) return i;
    return n;
}

/* The normal window i ends up at when one follows parents (dialogs of
 * dialogs), or n. */
static size_t normal_root(const pg_window *w, const size_t *up, size_t n, size_t i) {
    for (int hop = 0; hop < 8 && i < n; hop++) {
        if (w[i].kind == PG_WINDOW_NORMAL) return i;
        i = up[i];
    }
    return n;
}

/* The one normal window that every non-popup window of i's X client leads
 * to, or n when there is none or more than one. */
static size_t only_normal_of_client(const pg_window *w, const item_meta *m, const size_t *up, size_t n, size_t i) {
    size_t found = n;
    for (size_t j = 0; j < n; j++) {
        if (j == i || m[j].client != m[i].client || w[j].kind == PG_WINDOW_POPUP) continue;
        size_t r = normal_root(w, up, n, j);
        if (r == n) continue;
        if (found < n && found != r) return n; /* two candidates: no answer */
        found = r;
    }
    return found;
}

/* Every dialog and popup gets the normal window it belongs to: the window
 * its WM_TRANSIENT_FOR names (followed through dialogs), else the one normal
 * window of the same X client. Two candidates are no answer: parent 0, which
 * a caller treats as "could belong to anyone". */
static void attribute(pg_window *w, const item_meta *m, size_t n) {
    size_t *up = malloc((n ? n : 1) * sizeof *up);
    if (!up) return; /* parents stay 0: not known */
    for (size_t i = 0; i < n; i++)
        up[i] = m[i].transient && m[i].transient != w[i].id ? index_of(w, n, m[i].transient) : n;
    for (size_t i = 0; i < n; i++) {
        if (w[i].kind == PG_WINDOW_NORMAL) continue;
        size_t r = normal_root(w, up, n, up[i]);
        if (r == n && m[i].client) r = only_normal_of_client(w, m, up, n, i);
        w[i].parent = r < n ? w[r].id : 0;
    }
    free(up);
}

/* ---------------------------------------------------------- listing */

/* The focus window and its ancestors below root: a client is focused when
 * it is on this chain (toolkits focus a child or a focus proxy, not the
 * client). Walked alongside the toplevels, a level per round trip. */
typedef struct {
    xcb_window_t at; /* the next window to add, 0 when done */
    xcb_window_t chain[X11_MAX_DEPTH];
    size_t n;
} focus_walk;

static void focus_start(pg_platform *p, focus_walk *f, xcb_window_t focus) {
    f->n = 0;
    f->at = focus > 1 && focus != p->root ? focus : 0; /* None (0) and PointerRoot (1) name no window */
}

/* Fill top[i] with the child of root that holds ids[i], and the focus chain,
 * one round trip per level for all of them together. 0 where a window
 * vanished. */
static pg_err toplevels(pg_platform *p, item *items, size_t n, focus_walk *f, pg_error *e) {
    xcb_window_t *cur = malloc((n ? n : 1) * sizeof *cur);
    xcb_query_tree_cookie_t *ck = malloc((n ? n : 1) * sizeof *ck);
    if (!cur || !ck) {
        free(cur), free(ck);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    pg_err rc = PG_OK;
    for (size_t i = 0; i < n; i++) { /* a popup, or a client known to be a child of root, is its own */
        cur[i] = items[i].id;
        if (items[i].popup) items[i].top = items[i].id;
    }
    for (int depth = 0; rc == PG_OK; depth++) {
        size_t asked = 0;
        for (size_t i = 0; depth < X11_MAX_DEPTH && i < n; i++)
            if (!items[i].top && cur[i]) ck[i] = xcb_query_tree(p->c, cur[i]), asked++;
        bool focus_step = f->at && f->n < X11_MAX_DEPTH;
        xcb_query_tree_cookie_t fck;
        if (focus_step) fck = xcb_query_tree(p->c, f->at);
        if (!asked && !focus_step) break;
        for (size_t i = 0; asked && i < n; i++) {
            if (items[i].top || !cur[i]) continue;
            xcb_query_tree_reply_t *t = x11_take(p, ck[i].sequence, &rc, e);
            xcb_window_t parent = t ? t->parent : XCB_NONE;
            free(t);
            if (parent == p->root) items[i].top = cur[i];
            cur[i] = parent == p->root ? 0 : parent;
        }
        if (focus_step) {
            f->chain[f->n++] = f->at;
            xcb_query_tree_reply_t *t = x11_take(p, fck.sequence, &rc, e);
            f->at = t && t->parent > 1 && t->parent != p->root ? t->parent : 0;
            free(t);
        }
    }
    free(cur), free(ck);
    return rc;
}

/* Override-redirect InputOutput children of root that are mapped: menus,
 * tooltips, dropdowns, and whatever else draws over the desktop without the
 * WM. Appended to items; *cut when root has more children than we look at. */
static pg_err popups(pg_platform *p, item *items, size_t *n, size_t cap, bool *cut, pg_error *e) {
    pg_err rc = PG_OK;
    xcb_query_tree_reply_t *tree = x11_take(p, xcb_query_tree(p->c, p->root).sequence, &rc, e);
    if (rc != PG_OK) return rc;
    if (!tree) return pg_error_set(e, PG_E_INTERNAL, NULL, "QueryTree(root) failed");
    size_t nk = (size_t)xcb_query_tree_children_length(tree);
    xcb_window_t *kids = xcb_query_tree_children(tree);
    if (nk > X11_MAX_WINDOWS) nk = X11_MAX_WINDOWS, *cut = true;
    xcb_get_window_attributes_cookie_t *ck = malloc((nk ? nk : 1) * sizeof *ck);
    if (!ck) {
        free(tree);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    for (size_t i = 0; i < nk; i++) ck[i] = xcb_get_window_attributes(p->c, kids[i]);
    for (size_t i = 0; i < nk; i++) {
        xcb_get_window_attributes_reply_t *a = x11_take(p, ck[i].sequence, &rc, e);
        bool popup = a && a->override_redirect && a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT &&
                     a->map_state == XCB_MAP_STATE_VIEWABLE;
        free(a);
        if (!popup || rc != PG_OK || x11_indicator_is_own(kids[i])) continue; /* the broker's own sign */
        if (*n == cap) *cut = true;
        else items[(*n)++] = (item){kids[i], kids[i], true};
    }
    free(ck);
    free(tree);
    return rc;
}

/* Clients, and with all_windows the popups too, described and attributed. */
static pg_err list(pg_platform *p, bool all_windows, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    *out = NULL;
    *n = 0;
    *complete = true;
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    xcb_window_t *ids;
    size_t nid;
    bool cut = false;
    bool *at_root = NULL;
    xcb_get_input_focus_cookie_t focus = xcb_get_input_focus(p->c); /* answered with the client list */
    if ((rc = x11_client_ids(p, &ids, &nid, &cut, &at_root, e)) != PG_OK) {
        xcb_discard_reply(p->c, focus.sequence);
        return rc;
    }
    size_t cap = nid + (all_windows ? X11_MAX_WINDOWS : 0), ni = 0;
    item *items = malloc((cap ? cap : 1) * sizeof *items);
    if (!items) {
        free(ids);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    for (size_t i = 0; i < nid; i++) items[ni++] = (item){ids[i], at_root && at_root[i] ? ids[i] : 0, false};
    free(ids);
    free(at_root);
    if (all_windows) rc = popups(p, items, &ni, cap, &cut, e);
    xcb_get_input_focus_reply_t *fr = x11_take(p, focus.sequence, &rc, e);
    focus_walk fw;
    focus_start(p, &fw, fr ? fr->focus : XCB_NONE);
    free(fr);
    if (rc == PG_OK) rc = toplevels(p, items, ni, &fw, e);
    const xcb_window_t *chain = fw.chain;
    size_t nchain = rc == PG_OK ? fw.n : 0;
    list_ck *ck = malloc((ni ? ni : 1) * sizeof *ck);
    pg_window *w = calloc(ni ? ni : 1, sizeof *w);
    item_meta *meta = calloc(ni ? ni : 1, sizeof *meta);
    if (rc == PG_OK && (!ck || !w || !meta)) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t m = 0;
    if (rc == PG_OK) {
        for (size_t i = 0; i < ni; i++) ask_window(p, &items[i], &ck[i]);
        /* Take every reply, even after a failure (x11_take then drops it). */
        for (size_t i = 0; i < ni; i++)
            if (take_window(p, &items[i], &ck[i], chain, nchain, &w[m], &meta[m], &rc, e)) m++;
    }
    if (rc == PG_OK) attribute(w, meta, m);
    free(items), free(ck), free(meta);
    if (rc != PG_OK) {
        free(w);
        return rc;
    }
    *out = w;
    *n = m;
    *complete = !cut;
    return PG_OK;
}

pg_err x11_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e) {
    bool complete;
    return list(p, false, out, n, &complete, e);
}

pg_err x11_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    return list(p, true, out, n, complete, e);
}

/* The listing's questions for one window. Its description is asked at
 * once as if it were its own toplevel (no WM frame: the common case on a
 * bare X server), travelling with the focus question; when the tree says
 * it sits in a frame, those answers are dropped and asked again with the
 * frame. Two round trips without a WM, where a listing takes about eight. */
pg_err x11_describe_window(pg_platform *p, uint64_t id, pg_window *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    if (id == 0 || id > 0x1fffffffu || x11_indicator_is_own((xcb_window_t)id)) return not_found(e, id);
    item it = {(xcb_window_t)id, 0, false}, own = {(xcb_window_t)id, (xcb_window_t)id, false};
    xcb_get_input_focus_cookie_t fc = xcb_get_input_focus(p->c);
    list_ck ck;
    ask_window(p, &own, &ck);
    xcb_get_input_focus_reply_t *fr = x11_take(p, fc.sequence, &rc, e);
    focus_walk fw;
    focus_start(p, &fw, fr ? fr->focus : XCB_NONE);
    free(fr);
    if (rc == PG_OK) rc = toplevels(p, &it, 1, &fw, e);
    item_meta meta;
    bool there = take_window(p, &own, &ck, fw.chain, fw.n, out, &meta, &rc, e); /* every reply taken */
    if (rc == PG_OK && there && it.top && it.top != own.top) { /* framed: the frame's geometry too */
        ask_window(p, &it, &ck);
        there = take_window(p, &it, &ck, fw.chain, fw.n, out, &meta, &rc, e);
    }
    if (rc != PG_OK) return rc;
    return there && it.top ? PG_OK : not_found(e, id); /* gone, or no longer under root */
}

/* The property is the window manager's word for its own decorations (a
 * reparenting WM's frame may also hold shadows or invisible borders, so the
 * frame's geometry would not say the same). The atom is asked for with
 * only_if_exists: where no client ever named it, no WM sets it, and the
 * window has no frame. */
pg_err x11_window_frame(pg_platform *p, uint64_t id, uint32_t *left, uint32_t *right, uint32_t *top,
                        uint32_t *bottom, pg_error *e) {
    static const char name[] = "_NET_FRAME_EXTENTS";
    *left = *right = *top = *bottom = 0;
    x11_win w;
    pg_err rc = x11_resolve(p, id, &w, e);
    if (rc != PG_OK) return rc;
    xcb_intern_atom_reply_t *a =
        x11_take(p, xcb_intern_atom(p->c, 1, (uint16_t)(sizeof name - 1), name).sequence, &rc, e);
    xcb_atom_t atom = a ? a->atom : XCB_ATOM_NONE;
    free(a);
    if (rc != PG_OK || atom == XCB_ATOM_NONE) return rc;
    xcb_get_property_reply_t *r =
        x11_take(p, xcb_get_property(p->c, 0, w.id, atom, XCB_ATOM_CARDINAL, 0, 4).sequence, &rc, e);
    if (rc == PG_OK && !r) return not_found(e, id); /* BadWindow: it closed meanwhile */
    if (r && r->type == XCB_ATOM_CARDINAL && r->format == 32 && xcb_get_property_value_length(r) == 16) {
        const uint32_t *v = xcb_get_property_value(r);
        *left = v[0], *right = v[1], *top = v[2], *bottom = v[3];
    }
    free(r);
    return rc;
}

/* The X client behind window w, by X-Resource: its pid, 0 when not known. */
static uint32_t res_pid_of(pg_platform *p, xcb_window_t w, pg_err *rc, pg_error *e) {
    if (!p->res.present || (p->res.major == 1 && p->res.minor < 2)) return 0;
    xcb_res_client_id_spec_t spec = {w, XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID};
    xcb_res_query_client_ids_reply_t *r = x11_take(p, xcb_res_query_client_ids(p->c, 1, &spec).sequence, rc, e);
    x11_owner o = res_owner(r);
    free(r);
    return o.pid > 0 && o.pid <= UINT32_MAX ? (uint32_t)o.pid : 0;
}

pg_err x11_selection_owner(pg_platform *p, const char *selection, uint64_t *window, uint32_t *pid, pg_error *e) {
    *window = 0, *pid = 0;
    xcb_atom_t atom = XCB_ATOM_PRIMARY;
    pg_err rc = PG_OK;
    if (!strcmp(selection, "CLIPBOARD")) {
        xcb_intern_atom_reply_t *a = x11_take(p, xcb_intern_atom(p->c, 0, 9, "CLIPBOARD").sequence, &rc, e);
        atom = a ? a->atom : XCB_ATOM_NONE;
        free(a);
        if (rc != PG_OK) return rc;
    } else if (strcmp(selection, "PRIMARY")) {
        return pg_error_set(e, PG_E_BADINPUT, NULL, "no selection \"%.32s\" (CLIPBOARD or PRIMARY)", selection);
    }
    xcb_get_selection_owner_reply_t *o = x11_take(p, xcb_get_selection_owner(p->c, atom).sequence, &rc, e);
    xcb_window_t owner = o ? o->owner : XCB_WINDOW_NONE;
    free(o);
    if (rc != PG_OK || owner == XCB_WINDOW_NONE) return rc;
    *window = owner;
    *pid = res_pid_of(p, owner, &rc, e); /* an owner window that just closed: pid unknown (0) */
    return rc;
}
