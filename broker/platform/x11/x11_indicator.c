/* SPDX-License-Identifier: MIT */
/* x11_indicator.c - the sign that an agent drives (pg_platform_ops.indicate):
 * a bright orange override-redirect window the broker draws as its own
 * account, either a ring about 6 px wide just outside the driven window's
 * frame (an XShape bounding region of four rectangles) or a 24 px strip at the
 * top of the screen saying "pixelgate: <user> is driving".
 *
 * Contract (x11_private.h, "x11_indicator.c"): the sign lives on its own XCB
 * connection and thread, started by the first indicate() that shows it and
 * ended (joined, connection closed, window gone) by x11_indicator_stop from
 * the handle's close. The thread owns the window: it follows the target's
 * toplevel (moves, resizes, reparenting by a window manager), hides while the
 * target is unmapped or gone, and raises itself whenever a window of another
 * client is stacked above it (at most IND_RAISES_PER_SEC raises a second, so
 * a client that fights for the top gets no storm). indicate() hands the
 * thread what to show and waits, bounded, until it is shown. The input region
 * is empty: every click goes to the window under the sign. Without Composite
 * the sign is not drawn at all (PG_E_UNSUPPORTED): a capture could not be
 * kept free of it there.
 * Captures never contain it: a window capture reads the target's own Composite
 * pixmap; a screen capture steps every sign of this process aside first
 * (x11_indicator_aside: unmapped under a server grab held by the capturing
 * connection, mapped again by x11_indicator_back before the grab ends). Every
 * window of the signs is in a small process-wide set (x11_indicator_is_own)
 * that the listings, top_at and the cover search skip.
 * Never: takes input, draws anywhere but its own window, waits on the server
 * without a deadline, or touches a window it did not create (but the target,
 * on which it only selects StructureNotify for itself).
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xcb/shape.h>

#include "x11_private.h"

#define IND_RING_PX 6       /* the ring's width outside the frame */
#define IND_BANNER_PX 24    /* the banner's height */
#define IND_MAX_OWN X11_MAX_INDICATORS
#define IND_RAISES_PER_SEC 20
#define IND_RECHECK_MS 100  /* a raise held back by the limit is tried again after this */
#define IND_CLASS "pixelgate-indicator\0pixelgate-indicator" /* WM_CLASS: instance, class */
#define IND_NAME "pixelgate indicator"

enum { IND_MSG_WAKE = 1, IND_MSG_STOP = 2 }; /* data32[0] of a client message to the sign */

/* ------------------------------------------------ the process's own signs */

static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;
static xcb_window_t own_ids[IND_MAX_OWN];

static bool own_add(xcb_window_t w) {
    bool added = false;
    pthread_mutex_lock(&own_lock);
    for (size_t i = 0; i < IND_MAX_OWN && !added; i++)
        if (!own_ids[i]) own_ids[i] = w, added = true;
    pthread_mutex_unlock(&own_lock);
    return added;
}

static void own_remove(xcb_window_t w) {
    pthread_mutex_lock(&own_lock);
    for (size_t i = 0; i < IND_MAX_OWN; i++)
        if (own_ids[i] == w) own_ids[i] = 0;
    pthread_mutex_unlock(&own_lock);
}

bool x11_indicator_is_own(xcb_window_t w) {
    bool own = false;
    pthread_mutex_lock(&own_lock);
    for (size_t i = 0; i < IND_MAX_OWN && !own; i++) own = w && own_ids[i] == w;
    pthread_mutex_unlock(&own_lock);
    return own;
}

/* The ids now in the set, copied out (at most IND_MAX_OWN). */
static size_t own_snapshot(xcb_window_t *out) {
    size_t n = 0;
    pthread_mutex_lock(&own_lock);
    for (size_t i = 0; i < IND_MAX_OWN; i++)
        if (own_ids[i]) out[n++] = own_ids[i];
    pthread_mutex_unlock(&own_lock);
    return n;
}

/* ------------------------------------------------------------ the sign */

/* What indicate asked for: a client window and the toplevel (child of root)
 * that holds it; client 0 = hidden. */
typedef struct {
    xcb_window_t client, top;
    pg_indicator_mode mode;
    char user[sizeof ((pg_indicator *)0)->user];
} ind_want;

struct x11_indicator {
    pg_platform conn;       /* only .c, .screen and .root: lets x11_wait bound every reply */
    xcb_window_t win;
    xcb_gcontext_t gc;      /* black text on orange, core font "fixed" */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t applied_cv;
    ind_want want;          /* under lock: the last request */
    uint64_t asked, applied;/* under lock: request generations */
    bool broken;            /* under lock: the connection failed, the thread has ended */
    /* The thread's own, never touched by anyone else once it runs: */
    ind_want cur;           /* what is shown (or would be, while the target is unmapped) */
    pg_rect frame;          /* the target toplevel's outer bounds, root coordinates */
    bool target_viewable;
    bool mapped;            /* the thread has mapped the sign */
    double raise_window_ms; /* start of the current second of raises */
    int raises;             /* raises in it */
    bool recheck;           /* a raise was held back: look again after IND_RECHECK_MS */
};

/* One bounded reply on the sign's connection (NULL on an X error or a
 * failed wait: the caller treats both as "not there"). */
static void *ind_take(x11_indicator *ind, unsigned int seq) {
    pg_err rc = PG_OK;
    return x11_take(&ind->conn, seq, &rc, NULL);
}

static void set_text_prop(x11_indicator *ind, xcb_atom_t prop, xcb_atom_t type, size_t n, const char *text) {
    xcb_change_property(ind->conn.c, XCB_PROP_MODE_REPLACE, ind->win, prop, type, 8, (uint32_t)n, text);
}

static xcb_atom_t intern(x11_indicator *ind, const char *name) {
    xcb_intern_atom_reply_t *r = ind_take(ind, xcb_intern_atom(ind->conn.c, 0, (uint16_t)strlen(name), name).sequence);
    xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
    free(r);
    return a;
}

/* Its names say what it is to anyone who lists root's children (xwininfo). */
static void name_sign(x11_indicator *ind) {
    xcb_atom_t net_wm_name = intern(ind, "_NET_WM_NAME"), utf8 = intern(ind, "UTF8_STRING");
    set_text_prop(ind, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, strlen(IND_NAME), IND_NAME);
    if (net_wm_name && utf8) set_text_prop(ind, net_wm_name, utf8, strlen(IND_NAME), IND_NAME);
    set_text_prop(ind, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, sizeof IND_CLASS, IND_CLASS);
}

/* The shape extension with input shapes (1.1): without it the sign would
 * catch clicks meant for the window under it. */
static pg_err need_shape(x11_indicator *ind, pg_error *e) {
    const xcb_query_extension_reply_t *q = xcb_get_extension_data(ind->conn.c, &xcb_shape_id);
    xcb_shape_query_version_reply_t *v =
        q && q->present ? ind_take(ind, xcb_shape_query_version(ind->conn.c).sequence) : NULL;
    bool ok = v && (v->major_version > 1 || (v->major_version == 1 && v->minor_version >= 1));
    free(v);
    if (ok) return PG_OK;
    return pg_error_set(e, PG_E_UNSUPPORTED, "run an X server with the SHAPE extension 1.1",
                        "the indicator needs SHAPE 1.1 input regions to let clicks through: not drawn");
}

/* Orange in the default colormap (TrueColor or not: the server picks the pixel). */
static uint32_t orange_pixel(x11_indicator *ind) {
    xcb_alloc_color_reply_t *r = ind_take(
        ind, xcb_alloc_color(ind->conn.c, ind->conn.screen->default_colormap, 0xffff, 0x8c00, 0x0000).sequence);
    uint32_t pixel = r ? r->pixel : ind->conn.screen->white_pixel;
    free(r);
    return pixel;
}

/* The window: override-redirect (no window manager frames or moves it),
 * empty input region (click-through), not mapped yet. */
static pg_err make_window(x11_indicator *ind, pg_error *e) {
    xcb_connection_t *c = ind->conn.c;
    uint32_t orange = orange_pixel(ind);
    ind->win = xcb_generate_id(c);
    uint32_t vals[] = {orange, 1, XCB_EVENT_MASK_EXPOSURE};
    xcb_void_cookie_t ck = xcb_create_window_checked(
        c, XCB_COPY_FROM_PARENT, ind->win, ind->conn.root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
        XCB_COPY_FROM_PARENT, XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, vals);
    xcb_generic_error_t *xe = NULL;
    pg_err rc = x11_check(&ind->conn, ck, &xe, e);
    if (rc == PG_OK && xe) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "creating the indicator window: %s",
                                             x11_error_name(xe->error_code));
    free(xe);
    if (rc != PG_OK) return rc;
    xcb_shape_rectangles(c, XCB_SHAPE_SO_SET, XCB_SHAPE_SK_INPUT, XCB_CLIP_ORDERING_UNSORTED, ind->win, 0, 0, 0,
                         NULL);
    name_sign(ind);
    xcb_font_t font = xcb_generate_id(c);
    xcb_open_font(c, font, 5, "fixed"); /* every X server has it; an error only leaves the text out */
    ind->gc = xcb_generate_id(c);
    uint32_t gcv[] = {ind->conn.screen->black_pixel, orange, font};
    xcb_create_gc(c, ind->gc, ind->win, XCB_GC_FOREGROUND | XCB_GC_BACKGROUND | XCB_GC_FONT, gcv);
    xcb_close_font(c, font); /* the GC keeps it */
    /* Every map, restack and new window among root's children: the sign may be covered. */
    uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY;
    xcb_change_window_attributes(c, ind->conn.root, XCB_CW_EVENT_MASK, &mask);
    return x11_sync(&ind->conn, e);
}

/* ------------------------------------------------------------ drawing */

static void banner_text(const ind_want *w, char *out, size_t cap) {
    char user[sizeof w->user];
    size_t n = 0;
    for (; n + 1 < sizeof user && w->user[n]; n++) /* the core font's 8-bit text: printable ASCII only */
        user[n] = w->user[n] >= 0x20 && w->user[n] < 0x7f ? w->user[n] : '?';
    user[n] = 0;
    snprintf(out, cap, "pixelgate: %s is driving", n ? user : "an agent");
}

static void draw_banner(x11_indicator *ind) {
    if (ind->cur.mode != PG_INDICATOR_BANNER || !ind->mapped) return;
    char text[128];
    banner_text(&ind->cur, text, sizeof text);
    xcb_image_text_8(ind->conn.c, (uint8_t)strlen(text), ind->win, ind->gc, 8, 17, text);
}

static uint16_t clamp_size(int64_t v) { return (uint16_t)(v < 1 ? 1 : v > 32767 ? 32767 : v); }
static int16_t clamp_pos(int64_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

/* Size, place and shape the sign for the current mode and frame. */
static void place(x11_indicator *ind) {
    xcb_connection_t *c = ind->conn.c;
    int64_t x = 0, y = 0, w = ind->conn.screen->width_in_pixels, h = IND_BANNER_PX;
    if (ind->cur.mode == PG_INDICATOR_RING) {
        x = (int64_t)ind->frame.x - IND_RING_PX, y = (int64_t)ind->frame.y - IND_RING_PX;
        w = (int64_t)ind->frame.w + 2 * IND_RING_PX, h = (int64_t)ind->frame.h + 2 * IND_RING_PX;
        uint16_t ww = clamp_size(w), hh = clamp_size(h), inner = clamp_size(h - 2 * IND_RING_PX);
        xcb_rectangle_t ring[4] = {{0, 0, ww, IND_RING_PX},
                                   {0, (int16_t)(hh - IND_RING_PX), ww, IND_RING_PX},
                                   {0, IND_RING_PX, IND_RING_PX, inner},
                                   {(int16_t)(ww - IND_RING_PX), IND_RING_PX, IND_RING_PX, inner}};
        xcb_shape_rectangles(c, XCB_SHAPE_SO_SET, XCB_SHAPE_SK_BOUNDING, XCB_CLIP_ORDERING_UNSORTED, ind->win, 0, 0,
                             4, ring);
    } else {
        xcb_shape_mask(c, XCB_SHAPE_SO_SET, XCB_SHAPE_SK_BOUNDING, ind->win, 0, 0, XCB_NONE); /* the plain strip */
    }
    uint32_t vals[] = {(uint32_t)(int32_t)clamp_pos(x), (uint32_t)(int32_t)clamp_pos(y), clamp_size(w),
                       clamp_size(h), XCB_STACK_MODE_ABOVE};
    xcb_configure_window(c, ind->win,
                         XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y | XCB_CONFIG_WINDOW_WIDTH |
                             XCB_CONFIG_WINDOW_HEIGHT | XCB_CONFIG_WINDOW_STACK_MODE,
                         vals);
}

/* Shown exactly while there is a target and it is viewable. */
static void show_or_hide(x11_indicator *ind) {
    bool want = ind->cur.client && ind->target_viewable;
    if (want) place(ind);
    if (want && !ind->mapped) xcb_map_window(ind->conn.c, ind->win);
    if (!want && ind->mapped) xcb_unmap_window(ind->conn.c, ind->win);
    ind->mapped = want;
    draw_banner(ind); /* a banner already mapped gets no Expose when only its text changed */
    xcb_flush(ind->conn.c);
}

/* ------------------------------------------------------------ the target */

static void select_structure(x11_indicator *ind, xcb_window_t w, bool on) {
    uint32_t mask = on ? XCB_EVENT_MASK_STRUCTURE_NOTIFY : XCB_EVENT_MASK_NO_EVENT;
    if (w) xcb_change_window_attributes(ind->conn.c, w, XCB_CW_EVENT_MASK, &mask); /* our selection only */
}

/* One walk up from w to the child of root; 0 when a window on the way
 * went away (or *client_gone, when w itself did). */
static xcb_window_t walk_up(x11_indicator *ind, xcb_window_t w, bool *client_gone) {
    for (int i = 0; i < X11_MAX_DEPTH && w; i++) {
        xcb_query_tree_reply_t *t = ind_take(ind, xcb_query_tree(ind->conn.c, w).sequence);
        xcb_window_t parent = t ? t->parent : XCB_NONE;
        if (i == 0 && !t) *client_gone = true;
        free(t);
        if (parent == ind->conn.root) return w;
        w = parent;
    }
    return 0;
}

/* The ancestor of the client that is a child of root now, or 0 when the
 * client is gone. A window manager that takes the client out of a frame
 * and destroys the frame while we walk makes one walk fail: walk again. */
static xcb_window_t toplevel_now(x11_indicator *ind, xcb_window_t client) {
    bool gone = false;
    for (int attempt = 0; attempt < 8 && !gone; attempt++) {
        xcb_window_t top = walk_up(ind, client, &gone);
        if (top) return top;
    }
    return 0;
}

/* Read the toplevel's bounds and map state again (after a change of target
 * or of its frame). A target that went away hides the sign. */
static void refresh_target(x11_indicator *ind) {
    ind->target_viewable = false;
    if (!ind->cur.top) return;
    xcb_get_geometry_cookie_t gc = xcb_get_geometry(ind->conn.c, ind->cur.top);
    xcb_get_window_attributes_cookie_t ac = xcb_get_window_attributes(ind->conn.c, ind->cur.top);
    xcb_get_geometry_reply_t *g = ind_take(ind, gc.sequence);
    xcb_get_window_attributes_reply_t *a = ind_take(ind, ac.sequence);
    if (g && a) {
        ind->frame = (pg_rect){g->x, g->y, g->width + 2u * g->border_width, g->height + 2u * g->border_width};
        ind->target_viewable = a->map_state == XCB_MAP_STATE_VIEWABLE;
    }
    free(g), free(a);
}

/* Follow the client into (or out of) a window manager's frame. */
static void retarget(x11_indicator *ind) {
    xcb_window_t top = ind->cur.client ? toplevel_now(ind, ind->cur.client) : 0;
    if (top != ind->cur.top) {
        if (ind->cur.top != ind->cur.client) select_structure(ind, ind->cur.top, false);
        ind->cur.top = top;
        select_structure(ind, top, true);
    }
    if (!top) ind->cur.client = 0; /* gone for good: hidden until indicate names another */
    refresh_target(ind);
}

/* Take over the last request: stop watching the old target, watch the new. */
static void apply_request(x11_indicator *ind) {
    pthread_mutex_lock(&ind->lock);
    ind_want want = ind->want;
    uint64_t gen = ind->asked;
    pthread_mutex_unlock(&ind->lock);
    if (want.client != ind->cur.client || want.top != ind->cur.top) {
        select_structure(ind, ind->cur.client, false);
        if (ind->cur.top != ind->cur.client) select_structure(ind, ind->cur.top, false);
        select_structure(ind, want.client, true);
        if (want.top != want.client) select_structure(ind, want.top, true);
    }
    ind->cur = want;
    if (want.client) retarget(ind); /* the toplevel may have changed since indicate looked */
    show_or_hide(ind);
    (void)x11_sync(&ind->conn, NULL); /* shown (or hidden) when indicate returns */
    pthread_mutex_lock(&ind->lock);
    ind->applied = gen;
    pthread_cond_broadcast(&ind->applied_cv);
    pthread_mutex_unlock(&ind->lock);
}

/* ------------------------------------------------------------ on top */

/* Is any window of another client stacked above the sign? Signs of this
 * process do not count: two of them never fight. */
static bool covered(x11_indicator *ind) {
    xcb_query_tree_reply_t *t = ind_take(ind, xcb_query_tree(ind->conn.c, ind->conn.root).sequence);
    if (!t) return false;
    const xcb_window_t *kids = xcb_query_tree_children(t);
    int n = xcb_query_tree_children_length(t), k = n - 1; /* bottom to top */
    while (k >= 0 && kids[k] != ind->win) k--;
    bool above = false;
    for (int i = k + 1; k >= 0 && i < n && !above; i++) above = !x11_indicator_is_own(kids[i]);
    free(t);
    return above;
}

/* Raise when covered, at most IND_RAISES_PER_SEC times a second: a client
 * that raises itself over and over gets a bounded fight, not a storm. */
static void keep_on_top(x11_indicator *ind) {
    ind->recheck = false;
    if (!ind->mapped || !covered(ind)) return;
    double now = pg_mono_ms();
    if (now - ind->raise_window_ms >= 1000) ind->raise_window_ms = now, ind->raises = 0;
    if (ind->raises >= IND_RAISES_PER_SEC) {
        ind->recheck = true;
        return;
    }
    ind->raises++;
    uint32_t above = XCB_STACK_MODE_ABOVE;
    xcb_configure_window(ind->conn.c, ind->win, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    xcb_flush(ind->conn.c);
}

/* ------------------------------------------------------------ the thread */

typedef struct {
    bool stop, request, stack, target, expose;
} ind_todo;

static bool is_target(const x11_indicator *ind, xcb_window_t w) {
    return w && (w == ind->cur.client || w == ind->cur.top);
}

/* What one event means; the work is done once per batch of events. */
static void note_event(x11_indicator *ind, const xcb_generic_event_t *ev, ind_todo *todo) {
    switch (ev->response_type & 0x7f) {
    case XCB_CLIENT_MESSAGE: {
        if (!x11_is_self_message(ev, ind->win)) break;
        uint32_t what = ((const xcb_client_message_event_t *)ev)->data.data32[0];
        todo->stop |= what == IND_MSG_STOP;
        todo->request |= what == IND_MSG_WAKE;
        break;
    }
    case XCB_EXPOSE: todo->expose = true; break;
    case XCB_CONFIGURE_NOTIFY: { /* a move or resize of the target, or a restack among root's children */
        const xcb_configure_notify_event_t *c = (const void *)ev;
        todo->target |= is_target(ind, c->window);
        todo->stack |= c->event == ind->conn.root;
        break;
    }
    case XCB_MAP_NOTIFY: todo->target |= is_target(ind, ((const xcb_map_notify_event_t *)ev)->window); /* FALLTHROUGH */
    case XCB_CREATE_NOTIFY:
    case XCB_CIRCULATE_NOTIFY: todo->stack = true; break;
    case XCB_UNMAP_NOTIFY: todo->target |= is_target(ind, ((const xcb_unmap_notify_event_t *)ev)->window); break;
    case XCB_DESTROY_NOTIFY: todo->target |= is_target(ind, ((const xcb_destroy_notify_event_t *)ev)->window); break;
    case XCB_REPARENT_NOTIFY: /* into or out of a window manager's frame */
        todo->target |= is_target(ind, ((const xcb_reparent_notify_event_t *)ev)->window);
        todo->stack = true;
        break;
    default: break; /* errors: a target that vanished, which its DestroyNotify reports too */
    }
}

static void work(x11_indicator *ind, const ind_todo *todo) {
    if (todo->request) {
        apply_request(ind);
    } else if (todo->target) {
        if (ind->cur.client) retarget(ind); /* a frame may have come, gone, moved or been unmapped */
        show_or_hide(ind);
    } else if (todo->expose) {
        draw_banner(ind);
    }
    if (todo->stack || todo->request || todo->target) keep_on_top(ind);
    xcb_flush(ind->conn.c);
}

/* True when the connection has something before ms (-1: no limit) pass. */
static bool wait_readable(x11_indicator *ind, int ms) {
    struct pollfd pfd = {xcb_get_file_descriptor(ind->conn.c), POLLIN, 0};
    return poll(&pfd, 1, ms) != 0;
}

static void *ind_main(void *arg) {
    x11_indicator *ind = arg;
    for (;;) {
        ind_todo todo = {0};
        bool any = false;
        xcb_generic_event_t *ev;
        /* Reads the socket and what replies read meanwhile queued: poll()
         * below only ever sleeps on an empty queue. */
        while ((ev = xcb_poll_for_event(ind->conn.c)) != NULL) {
            note_event(ind, ev, &todo);
            any = true;
            free(ev);
        }
        if (xcb_connection_has_error(ind->conn.c) || todo.stop) break;
        if (any) work(ind, &todo);
        else if (!ind->recheck) (void)wait_readable(ind, -1);
        else if (!wait_readable(ind, IND_RECHECK_MS)) keep_on_top(ind);
    }
    pthread_mutex_lock(&ind->lock);
    ind->broken = true;
    pthread_cond_broadcast(&ind->applied_cv);
    pthread_mutex_unlock(&ind->lock);
    return NULL;
}

/* ------------------------------------------------------------ start/stop */

/* To the sign's own window: the sign's thread alone gets it. */
static void send_msg(x11_indicator *ind, uint32_t what) { x11_self_message(ind->conn.c, ind->win, what); }

static void free_sign(x11_indicator *ind) {
    if (ind->win) own_remove(ind->win);
    xcb_disconnect(ind->conn.c); /* the server destroys the window, its GC and our selections */
    free(ind);
}

static pg_err connect_sign(x11_indicator *ind, const char *display, pg_error *e) {
    ind->conn.c = xcb_connect(display, NULL);
    if (xcb_connection_has_error(ind->conn.c))
        return pg_error_set(e, PG_E_UNREACHABLE, "check that the X server still runs",
                            "the indicator cannot connect to X display '%s'", display ? display : "(default)");
    xcb_prefetch_extension_data(ind->conn.c, &xcb_shape_id);
    ind->conn.screen = xcb_setup_roots_iterator(xcb_get_setup(ind->conn.c)).data;
    ind->conn.root = ind->conn.screen->root;
    pg_err rc = need_shape(ind, e);
    return rc == PG_OK ? make_window(ind, e) : rc;
}

/* A sign on its own connection to display and its own thread, hidden. */
static pg_err start_sign(const char *display, x11_indicator **out, pg_error *e) {
    *out = NULL;
    x11_indicator *ind = calloc(1, sizeof *ind);
    if (!ind) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_err rc = connect_sign(ind, display, e);
    bool listed = rc == PG_OK && own_add(ind->win); /* before it is ever mapped: no listing sees it unknown */
    if (rc == PG_OK && !listed)
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "more than %d indicators in one process", IND_MAX_OWN);
    if (rc != PG_OK) {
        if (!listed) ind->win = 0; /* not ours to take out of the set */
        free_sign(ind);
        return rc;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ind->applied_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&ind->lock, NULL);
    if (pthread_create(&ind->thread, NULL, ind_main, ind) != 0) {
        pthread_cond_destroy(&ind->applied_cv);
        pthread_mutex_destroy(&ind->lock);
        free_sign(ind);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot start the indicator's thread");
    }
    *out = ind;
    return PG_OK;
}

void x11_indicator_stop(x11_indicator *ind) {
    if (!ind) return;
    send_msg(ind, IND_MSG_STOP); /* a broken connection has ended the thread already */
    pthread_join(ind->thread, NULL);
    pthread_cond_destroy(&ind->applied_cv);
    pthread_mutex_destroy(&ind->lock);
    free_sign(ind);
}

/* Hand the thread a request and wait, bounded, until it has shown it. */
static pg_err ask_sign(x11_indicator *ind, const ind_want *want, pg_error *e) {
    pthread_mutex_lock(&ind->lock);
    ind->want = *want;
    uint64_t gen = ++ind->asked;
    pthread_mutex_unlock(&ind->lock);
    send_msg(ind, IND_MSG_WAKE);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += X11_REPLY_TIMEOUT_MS / 1000 + 1;
    pg_err rc = PG_OK;
    pthread_mutex_lock(&ind->lock);
    while (ind->applied < gen && !ind->broken && rc == PG_OK)
        if (pthread_cond_timedwait(&ind->applied_cv, &ind->lock, &until) != 0 && ind->applied < gen)
            rc = pg_error_set(e, PG_E_TIMEOUT, "the X server may be grabbed by another client",
                              "the indicator did not change within %d s", X11_REPLY_TIMEOUT_MS / 1000 + 1);
    if (rc == PG_OK && ind->applied < gen)
        rc = pg_error_set(e, PG_E_UNREACHABLE, "check that the X server is still running",
                          "the indicator's X connection was lost");
    pthread_mutex_unlock(&ind->lock);
    return rc;
}

static bool sign_broken(x11_indicator *ind) {
    pthread_mutex_lock(&ind->lock);
    bool broken = ind->broken;
    pthread_mutex_unlock(&ind->lock);
    return broken;
}

/* ------------------------------------------------------------ indicate */

static pg_err check_request(const pg_indicator *how, pg_error *e) {
    if (how->mode != PG_INDICATOR_RING && how->mode != PG_INDICATOR_BANNER)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "indicator mode %d is neither ring nor banner", (int)how->mode);
    if (!memchr(how->user, 0, sizeof how->user))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "indicator user name is not terminated");
    return PG_OK;
}

pg_err x11_indicate(pg_platform *p, const pg_indicator *how, pg_error *e) {
    pg_err rc = x11_alive(p, e);
    if (rc == PG_OK) rc = check_request(how, e);
    if (rc != PG_OK) return rc;
    if (!p->redirected)
        return pg_error_set(e, PG_E_UNSUPPORTED, "run the X server with the Composite extension",
                            "without Composite the sign that an agent drives cannot be kept out of captures: "
                            "it is not drawn");
    ind_want want = {0};
    if (how->window) {
        x11_win w;
        if ((rc = x11_resolve(p, how->window, &w, e)) != PG_OK) return rc;
        want = (ind_want){w.id, w.toplevel, how->mode, {0}};
        memcpy(want.user, how->user, sizeof want.user);
    }
    if (p->indicator && sign_broken(p->indicator)) { /* the display came back, or never will: start afresh */
        x11_indicator_stop(p->indicator);
        p->indicator = NULL;
    }
    if (!p->indicator && !how->window) return PG_OK; /* nothing shown, nothing to hide */
    if (!p->indicator && (rc = start_sign(p->display, &p->indicator, e)) != PG_OK) return rc;
    return ask_sign(p->indicator, &want, e);
}

/* ------------------------------------------------------------ captures */

/* Is this window, as the capturing connection sees it, a sign of ours that
 * shows over r? The class is checked too: an id of our set names our sign
 * only on the display the sign is on. */
static bool shows_over(xcb_get_window_attributes_reply_t *a, xcb_get_geometry_reply_t *g,
                       xcb_get_property_reply_t *cls, const pg_rect *r) {
    if (!a || !g || !cls || a->map_state != XCB_MAP_STATE_VIEWABLE || !a->override_redirect) return false;
    if (xcb_get_property_value_length(cls) != (int)sizeof IND_CLASS ||
        memcmp(xcb_get_property_value(cls), IND_CLASS, sizeof IND_CLASS) != 0)
        return false;
    int64_t x1 = (int64_t)g->x + g->width + 2 * g->border_width, y1 = (int64_t)g->y + g->height + 2 * g->border_width;
    return g->x < (int64_t)r->x + r->w && x1 > r->x && g->y < (int64_t)r->y + r->h && y1 > r->y;
}

/* Unmap the signs of ids[0..n) that show over r; the server is grabbed. */
static pg_err unmap_over(pg_platform *p, const pg_rect *r, const xcb_window_t *ids, size_t n, x11_aside *out,
                         pg_error *e) {
    xcb_get_window_attributes_cookie_t ca[IND_MAX_OWN];
    xcb_get_geometry_cookie_t cg[IND_MAX_OWN];
    xcb_get_property_cookie_t cc[IND_MAX_OWN];
    for (size_t i = 0; i < n; i++) {
        ca[i] = xcb_get_window_attributes(p->c, ids[i]);
        cg[i] = xcb_get_geometry(p->c, ids[i]);
        cc[i] = xcb_get_property(p->c, 0, ids[i], XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 0, 16);
    }
    pg_err rc = PG_OK;
    for (size_t i = 0; i < n; i++) { /* every reply taken, even after a failure */
        xcb_get_window_attributes_reply_t *a = x11_take(p, ca[i].sequence, &rc, e);
        xcb_get_geometry_reply_t *g = x11_take(p, cg[i].sequence, &rc, e);
        xcb_get_property_reply_t *cls = x11_take(p, cc[i].sequence, &rc, e);
        if (rc == PG_OK && shows_over(a, g, cls, r)) {
            xcb_unmap_window(p->c, ids[i]);
            out->win[out->n++] = ids[i];
        }
        free(a), free(g), free(cls);
    }
    /* Once the unmaps are answered the server has repainted what they
     * bared from the windows' own pixmaps: a read now has no sign in it. */
    if (rc == PG_OK && out->n) rc = x11_sync(p, e);
    return rc;
}

pg_err x11_indicator_aside(pg_platform *p, const pg_rect *r, x11_aside *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    xcb_window_t ids[IND_MAX_OWN];
    size_t n = own_snapshot(ids);
    if (!n) return PG_OK; /* no sign in this process: no grab, no round trip */
    xcb_grab_server(p->c);
    out->grabbed = true;
    return unmap_over(p, r, ids, n, out, e);
}

pg_err x11_indicator_aside_held(pg_platform *p, const pg_rect *r, x11_aside *out, pg_error *e) {
    memset(out, 0, sizeof *out); /* grabbed stays false: back leaves the caller's grab alone */
    xcb_window_t ids[IND_MAX_OWN];
    size_t n = own_snapshot(ids);
    return n ? unmap_over(p, r, ids, n, out, e) : PG_OK;
}

void x11_indicator_back(pg_platform *p, x11_aside *a) {
    uint32_t above = XCB_STACK_MODE_ABOVE;
    for (size_t i = 0; i < a->n; i++) {
        xcb_map_window(p->c, a->win[i]);
        xcb_configure_window(p->c, a->win[i], XCB_CONFIG_WINDOW_STACK_MODE, &above);
    }
    if (a->grabbed) xcb_ungrab_server(p->c);
    xcb_flush(p->c);
    memset(a, 0, sizeof *a);
}
