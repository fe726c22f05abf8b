/* SPDX-License-Identifier: MIT */
/* pg_sway_ipc.c - see pg_sway_ipc.h. */
#include "pg_sway_ipc.h"

#include <cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t MAGIC[6] = {'i', '3', '-', 'i', 'p', 'c'};

#define MAX_ID 9007199254740991.0 /* 2^53 - 1: what a double holds exactly */
#define MAX_COORD 268435456.0     /* 2^28: sums of two stay far inside int32 */

size_t pg_sway_ipc_header(uint8_t out[PG_SWAY_IPC_HEADER_LEN], uint32_t type, uint32_t len) {
    memcpy(out, MAGIC, sizeof MAGIC);
    memcpy(out + 6, &len, 4); /* native order: sway reads it on this machine */
    memcpy(out + 10, &type, 4);
    return PG_SWAY_IPC_HEADER_LEN;
}

pg_err pg_sway_ipc_parse_header(const uint8_t in[PG_SWAY_IPC_HEADER_LEN], uint32_t *type, uint32_t *len,
                                pg_error *e) {
    if (memcmp(in, MAGIC, sizeof MAGIC) != 0)
        return pg_error_set(e, PG_E_INTERNAL, "is SWAYSOCK a sway IPC socket?",
                            "sway IPC: reply does not start with \"i3-ipc\"");
    uint32_t l, t;
    memcpy(&l, in + 6, 4);
    memcpy(&t, in + 10, 4);
    if (l > PG_SWAY_IPC_MAX_PAYLOAD)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "sway IPC: reply of %lu bytes is over the %lu byte limit",
                            (unsigned long)l, (unsigned long)PG_SWAY_IPC_MAX_PAYLOAD);
    *type = t;
    *len = l;
    return PG_OK;
}

/* ---------------------------------------------------------------- fields */

/* A node as errors name it: its id when it has a usable one. */
static unsigned long long node_id_of(const cJSON *o) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    return cJSON_IsNumber(id) && id->valuedouble >= 0 && id->valuedouble <= MAX_ID
               ? (unsigned long long)id->valuedouble
               : 0;
}

static pg_err bad(pg_error *e, const char *what, const cJSON *o, const char *field, const char *why) {
    return pg_error_set(e, PG_E_INTERNAL, "sway's reply is not what sway-ipc(7) says: a bug or an impostor",
                        "sway %s: node %llu: \"%s\" %s", what, node_id_of(o), field, why);
}

/* An integer field in [lo, hi]: JSON has only doubles, so the value must
 * be whole, and in range before it is converted (a cast of 1e300 is UB). */
static pg_err get_int(const cJSON *o, const char *field, double lo, double hi, double *v, pg_error *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!it) return bad(e, "reply", o, field, "is missing");
    if (!cJSON_IsNumber(it)) return bad(e, "reply", o, field, "is not a number");
    double d = it->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi) return bad(e, "reply", o, field, "is out of range");
    *v = d;
    return PG_OK;
}

static pg_err get_bool(const cJSON *o, const char *field, bool *v, pg_error *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!cJSON_IsBool(it)) return bad(e, "reply", o, field, it ? "is not a boolean" : "is missing");
    *v = cJSON_IsTrue(it);
    return PG_OK;
}

/* A string field that may be absent or null (*v = NULL then). */
static pg_err get_opt_str(const cJSON *o, const char *field, const char **v, pg_error *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
    *v = NULL;
    if (!it || cJSON_IsNull(it)) return PG_OK;
    if (!cJSON_IsString(it)) return bad(e, "reply", o, field, "is not a string");
    *v = it->valuestring;
    return PG_OK;
}

/* An array field that may be absent (*v = NULL then). */
static pg_err get_opt_array(const cJSON *o, const char *field, const cJSON **v, pg_error *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
    *v = it;
    if (it && !cJSON_IsArray(it)) return bad(e, "reply", o, field, "is not an array");
    return PG_OK;
}

typedef struct {
    double x, y, w, h;
} box;

static pg_err get_box(const cJSON *o, const char *field, box *b, pg_error *e) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!cJSON_IsObject(r)) return bad(e, "reply", o, field, r ? "is not an object" : "is missing");
    pg_err rc = get_int(r, "x", -MAX_COORD, MAX_COORD, &b->x, e);
    if (rc == PG_OK) rc = get_int(r, "y", -MAX_COORD, MAX_COORD, &b->y, e);
    if (rc == PG_OK) rc = get_int(r, "width", 0, MAX_COORD, &b->w, e);
    if (rc == PG_OK) rc = get_int(r, "height", 0, MAX_COORD, &b->h, e);
    return rc;
}

/* Copies src into dst[cap], cut at a UTF-8 character boundary when it does
 * not fit (a half character would make the JSON the broker writes invalid). */
static bool copy_cut(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    bool cut = n >= cap;
    if (cut) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
    }
    memcpy(dst, src, n);
    dst[n] = 0;
    return cut;
}

/* ---------------------------------------------------------------- the walk */

typedef struct {
    uint64_t xwin;      /* XWayland: the X window id; 0 native */
    uint64_t transient; /* XWayland: window_properties.transient_for; 0 none */
    int fullscreen;     /* 0, 1 (its workspace), 2 (global) */
    bool stacked;       /* on a visible workspace: part of the stacking */
    unsigned ws;        /* which workspace (walk order, from 1); 0: none */
    bool floating;
    bool xwayland;
} view_aux;

typedef struct {
    pg_window *w;
    view_aux *aux;
    size_t n, cap;
    size_t nodes;
    unsigned workspaces;
    pg_error *e;
} walk;

/* Where in the tree a node is: what its views inherit. */
typedef struct {
    const char *current_ws; /* the output's current workspace name */
    bool ws_visible;
    bool floating;
    unsigned ws;
    const cJSON *parent;
} place;

static pg_err grow(walk *k) {
    if (k->n < k->cap) return PG_OK;
    if (k->cap >= PG_SWAY_MAX_VIEWS)
        return pg_error_set(k->e, PG_E_INTERNAL, NULL, "sway tree: more than %u views", PG_SWAY_MAX_VIEWS);
    size_t cap = k->cap ? k->cap * 2 : 16;
    if (cap > PG_SWAY_MAX_VIEWS) cap = PG_SWAY_MAX_VIEWS;
    pg_window *w = realloc(k->w, cap * sizeof *w);
    if (w) k->w = w;
    view_aux *a = w ? realloc(k->aux, cap * sizeof *a) : NULL;
    if (a) k->aux = a;
    if (!w || !a) return pg_error_set(k->e, PG_E_INTERNAL, NULL, "out of memory");
    k->cap = cap;
    return PG_OK;
}

/* Title bars above rect: in a stacked parent every sibling's bar is. */
static double bars_above(const box *deco, const cJSON *parent) {
    const cJSON *layout = parent ? cJSON_GetObjectItemCaseSensitive(parent, "layout") : NULL;
    const cJSON *nodes = parent ? cJSON_GetObjectItemCaseSensitive(parent, "nodes") : NULL;
    bool stacked = cJSON_IsString(layout) && strcmp(layout->valuestring, "stacked") == 0 && cJSON_IsArray(nodes);
    return deco->h * (stacked ? cJSON_GetArraySize(nodes) : 1);
}

static pg_err view_geometry(const cJSON *o, const place *at, pg_window *w, pg_error *e) {
    box r, wr, deco;
    pg_err rc = get_box(o, "rect", &r, e);
    if (rc == PG_OK) rc = get_box(o, "window_rect", &wr, e);
    if (rc == PG_OK) rc = get_box(o, "deco_rect", &deco, e);
    if (rc != PG_OK) return rc;
    double bars = bars_above(&deco, at->parent);
    if (bars > MAX_COORD) return bad(e, "reply", o, "deco_rect", "is out of range");
    w->x = (int32_t)(r.x + wr.x);
    w->y = (int32_t)(r.y + wr.y);
    w->width = (uint32_t)wr.w;
    w->height = (uint32_t)wr.h;
    w->frame = (pg_rect){(int32_t)r.x, (int32_t)(r.y - bars), (uint32_t)r.w, (uint32_t)(r.h + bars)};
    return PG_OK;
}

/* app_id, else the X class; the X instance. */
static pg_err view_names(const cJSON *o, pg_window *w, view_aux *a, pg_error *e) {
    const char *title, *app_id, *cls = NULL, *inst = NULL;
    pg_err rc = get_opt_str(o, "name", &title, e);
    if (rc == PG_OK) rc = get_opt_str(o, "app_id", &app_id, e);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(o, "window_properties");
    if (rc == PG_OK && props && !cJSON_IsNull(props)) {
        if (!cJSON_IsObject(props)) return bad(e, "reply", o, "window_properties", "is not an object");
        rc = get_opt_str(props, "class", &cls, e);
        if (rc == PG_OK) rc = get_opt_str(props, "instance", &inst, e);
        const cJSON *tf = cJSON_GetObjectItemCaseSensitive(props, "transient_for");
        double v = 0;
        if (rc == PG_OK && tf && !cJSON_IsNull(tf)) rc = get_int(props, "transient_for", 0, MAX_ID, &v, e);
        a->transient = (uint64_t)v;
    }
    if (rc != PG_OK) return rc;
    w->title_cut = copy_cut(w->title, sizeof w->title, title ? title : "");
    copy_cut(w->class_name, sizeof w->class_name, app_id ? app_id : cls ? cls : "");
    copy_cut(w->instance, sizeof w->instance, inst ? inst : "");
    return PG_OK;
}

static pg_err view_state(const cJSON *o, pg_window *w, view_aux *a, pg_error *e) {
    double id, pid, fs = 0, xwin = 0;
    pg_err rc = get_int(o, "id", 1, MAX_ID, &id, e);
    if (rc == PG_OK) rc = get_int(o, "pid", 0, 2147483647.0, &pid, e);
    if (rc == PG_OK) rc = get_bool(o, "focused", &w->focused, e);
    if (rc == PG_OK) rc = get_bool(o, "visible", &w->visible, e);
    if (rc == PG_OK && cJSON_HasObjectItem(o, "fullscreen_mode")) rc = get_int(o, "fullscreen_mode", 0, 2, &fs, e);
    const cJSON *xw = cJSON_GetObjectItemCaseSensitive(o, "window");
    if (rc == PG_OK && xw && !cJSON_IsNull(xw)) rc = get_int(o, "window", 0, MAX_ID, &xwin, e);
    const char *shell = NULL;
    if (rc == PG_OK) rc = get_opt_str(o, "shell", &shell, e);
    if (rc != PG_OK) return rc;
    w->id = (uint64_t)id;
    w->pid = pid > 0 ? (int64_t)pid : -1;
    a->fullscreen = (int)fs;
    a->xwin = (uint64_t)xwin;
    a->xwayland = shell && strcmp(shell, "xwayland") == 0;
    return PG_OK;
}

static pg_err add_view(walk *k, const cJSON *o, const place *at) {
    pg_err rc = grow(k);
    if (rc != PG_OK) return rc;
    pg_window *w = &k->w[k->n];
    view_aux *a = &k->aux[k->n];
    memset(w, 0, sizeof *w);
    memset(a, 0, sizeof *a);
    rc = view_state(o, w, a, k->e);
    if (rc == PG_OK) rc = view_names(o, w, a, k->e);
    if (rc == PG_OK) rc = view_geometry(o, at, w, k->e);
    if (rc != PG_OK) return rc;
    w->kind = PG_WINDOW_NORMAL;
    w->visible = w->visible && at->ws_visible;
    a->stacked = at->ws_visible;
    a->floating = at->floating;
    a->ws = at->ws;
    k->n++;
    return PG_OK;
}

static pg_err walk_node(walk *k, const cJSON *o, place at, unsigned depth);

static pg_err walk_children(walk *k, const cJSON *o, const char *field, place at, unsigned depth) {
    const cJSON *arr, *c;
    pg_err rc = get_opt_array(o, field, &arr, k->e);
    at.parent = o;
    if (strcmp(field, "floating_nodes") == 0) at.floating = true;
    for (c = arr ? arr->child : NULL; c && rc == PG_OK; c = c->next) rc = walk_node(k, c, at, depth + 1);
    return rc;
}

/* What a node passes on: an output its current workspace, a workspace
 * whether it is that one. */
static pg_err enter(walk *k, const cJSON *o, const char *type, place *at) {
    const char *name = NULL;
    pg_err rc = get_opt_str(o, "name", &name, k->e);
    if (rc != PG_OK) return rc;
    if (strcmp(type, "output") == 0) {
        const cJSON *active = cJSON_GetObjectItemCaseSensitive(o, "active");
        rc = get_opt_str(o, "current_workspace", &at->current_ws, k->e);
        /* "__i3" holds the scratchpad: never on screen. */
        if (cJSON_IsFalse(active) || (name && strcmp(name, "__i3") == 0)) at->current_ws = NULL;
        at->ws_visible = false;
    } else if (strcmp(type, "workspace") == 0) {
        at->ws_visible = name && at->current_ws && strcmp(name, at->current_ws) == 0;
        at->floating = false;
        at->ws = ++k->workspaces;
    }
    return rc;
}

static pg_err walk_node(walk *k, const cJSON *o, place at, unsigned depth) {
    if (!cJSON_IsObject(o)) return bad(k->e, "reply", at.parent, "nodes", "holds something not an object");
    if (depth > PG_SWAY_MAX_DEPTH)
        return pg_error_set(k->e, PG_E_INTERNAL, NULL, "sway tree: nested deeper than %u", PG_SWAY_MAX_DEPTH);
    if (++k->nodes > PG_SWAY_MAX_NODES)
        return pg_error_set(k->e, PG_E_INTERNAL, NULL, "sway tree: more than %u nodes", PG_SWAY_MAX_NODES);
    const char *type;
    pg_err rc = get_opt_str(o, "type", &type, k->e);
    if (rc == PG_OK && !type) rc = bad(k->e, "reply", o, "type", "is missing");
    if (rc == PG_OK) rc = enter(k, o, type, &at);
    if (rc != PG_OK) return rc;
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(o, "pid");
    bool view = (strcmp(type, "con") == 0 || strcmp(type, "floating_con") == 0) && pid && !cJSON_IsNull(pid);
    if (view) rc = add_view(k, o, &at);
    if (rc == PG_OK) rc = walk_children(k, o, "nodes", at, depth);
    if (rc == PG_OK) rc = walk_children(k, o, "floating_nodes", at, depth);
    return rc;
}

/* A floating XWayland view transient for another: a dialog of the view
 * whose X window it names. */
static void link_dialogs(walk *k) {
    for (size_t i = 0; i < k->n; i++) {
        if (!k->aux[i].floating || !k->aux[i].xwayland || !k->aux[i].transient) continue;
        k->w[i].kind = PG_WINDOW_DIALOG;
        for (size_t j = 0; j < k->n; j++)
            if (j != i && k->aux[j].xwin == k->aux[i].transient) k->w[i].parent = k->w[j].id;
    }
}

static pg_err parse_tree(const char *json, size_t len, walk *k) {
    cJSON *root = json ? cJSON_ParseWithLength(json, len) : NULL;
    pg_err rc = PG_OK;
    if (!root)
        rc = pg_error_set(k->e, PG_E_INTERNAL, NULL, "sway tree: the reply is not JSON");
    else if (!cJSON_IsObject(root))
        rc = pg_error_set(k->e, PG_E_INTERNAL, NULL, "sway tree: the reply is not an object");
    else
        rc = walk_node(k, root, (place){0}, 0);
    cJSON_Delete(root);
    if (rc == PG_OK) link_dialogs(k);
    return rc;
}

static void walk_free(walk *k) {
    free(k->w);
    free(k->aux);
    k->w = NULL;
    k->aux = NULL;
    k->n = 0;
}

pg_err pg_sway_tree_windows(const char *json, size_t len, pg_window **out, size_t *n, pg_error *e) {
    walk k = {.e = e};
    *out = NULL;
    *n = 0;
    pg_err rc = parse_tree(json, len, &k);
    if (rc != PG_OK || k.n == 0) {
        walk_free(&k);
        return rc;
    }
    free(k.aux);
    *out = k.w;
    *n = k.n;
    return PG_OK;
}

/* The walk appends each workspace's tiled views before its floating ones,
 * in array order: already bottom to top but for the fullscreen ones, which
 * go above their workspace (1) or above everything (2). */
static size_t stack_order(const walk *k, uint64_t *ids) {
    size_t m = 0;
    for (size_t i = 0, end; i < k->n; i = end) {
        for (end = i; end < k->n && k->aux[end].ws == k->aux[i].ws;) end++; /* one workspace's run */
        for (int top = 0; top < 2 && k->aux[i].stacked; top++)
            for (size_t j = i; j < end; j++)
                if (k->aux[j].fullscreen == (top ? 1 : 0)) ids[m++] = k->w[j].id;
    }
    for (size_t j = 0; j < k->n; j++)
        if (k->aux[j].stacked && k->aux[j].fullscreen == 2) ids[m++] = k->w[j].id;
    return m;
}

pg_err pg_sway_tree_stacking(const char *json, size_t len, uint64_t **out, size_t *n, pg_error *e) {
    walk k = {.e = e};
    *out = NULL;
    *n = 0;
    pg_err rc = parse_tree(json, len, &k);
    uint64_t *ids = rc == PG_OK && k.n ? malloc(k.n * sizeof *ids) : NULL;
    if (rc == PG_OK && k.n && !ids) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t m = rc == PG_OK && ids ? stack_order(&k, ids) : 0;
    walk_free(&k);
    if (rc != PG_OK || m == 0) {
        free(ids);
        return rc;
    }
    *out = ids;
    *n = m;
    return PG_OK;
}

/* ---------------------------------------------------------------- outputs */

static pg_err one_output(const cJSON *o, pg_monitor *m, bool *active, pg_error *e) {
    if (!cJSON_IsObject(o)) return pg_error_set(e, PG_E_INTERNAL, NULL, "sway outputs: an entry is not an object");
    const char *name;
    box r;
    bool focused = false;
    *active = true; /* sway before 1.0 wrote no "active": every listed output was */
    pg_err rc = get_opt_str(o, "name", &name, e);
    if (rc == PG_OK && !name) rc = bad(e, "reply", o, "name", "is missing");
    if (rc == PG_OK && cJSON_HasObjectItem(o, "active")) rc = get_bool(o, "active", active, e);
    if (rc == PG_OK && cJSON_HasObjectItem(o, "focused")) rc = get_bool(o, "focused", &focused, e);
    if (rc == PG_OK) rc = get_box(o, "rect", &r, e);
    if (rc != PG_OK) return rc;
    memset(m, 0, sizeof *m);
    copy_cut(m->name, sizeof m->name, name);
    m->r = (pg_rect){(int32_t)r.x, (int32_t)r.y, (uint32_t)r.w, (uint32_t)r.h};
    m->primary = focused;
    return PG_OK;
}

pg_err pg_sway_outputs(const char *json, size_t len, pg_monitor **out, size_t *n, pg_error *e) {
    *out = NULL;
    *n = 0;
    cJSON *arr = json ? cJSON_ParseWithLength(json, len) : NULL;
    pg_err rc = PG_OK;
    int count = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr))
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "sway outputs: the reply is not a JSON array");
    else if ((unsigned)count > PG_SWAY_MAX_OUTPUTS)
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "sway outputs: more than %u outputs", PG_SWAY_MAX_OUTPUTS);
    pg_monitor *m = rc == PG_OK && count ? calloc((size_t)count, sizeof *m) : NULL;
    if (rc == PG_OK && count && !m) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t k = 0;
    const cJSON *o, *list = rc == PG_OK ? arr : NULL;
    cJSON_ArrayForEach(o, list) {
        bool active;
        if (rc == PG_OK) rc = one_output(o, &m[k], &active, e);
        if (rc == PG_OK && active) k++;
    }
    cJSON_Delete(arr);
    if (rc != PG_OK || k == 0) {
        free(m);
        return rc;
    }
    *out = m;
    *n = k;
    return PG_OK;
}
