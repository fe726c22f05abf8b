/* SPDX-License-Identifier: MIT */
/* focus, click, move, scroll, drag, key, type, and the held keys and
 * buttons (key-down, key-up, mouse-down, mouse-up): input through the
 * platform backend, always aimed at a window the broker resolved itself and
 * the policy lets input reach. What is held belongs to one connection
 * (b->held, pg_held.h): while it holds anything, every other connection's
 * input is refused BUSY. */
#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_call.h"
#include "pg_guard.h"
#include "pg_time.h"

typedef struct in_token in_token;

/* Runs an input action under the platform lock against the resolved window,
 * and answers {"window": {...}} plus whatever the action adds. in: the
 * verb's --in TOKEN and --if-unchanged check, or NULL. */
typedef pg_err (*input_fn)(pg_call *c, const void *a, const pg_window *w, cJSON *result, in_token *in, pg_error *e);

/* Another user's window (input.other_users): never one whose program runs
 * as an approver or root, where "pixelgate approve rel:..." typed by the
 * agent would arrive with the approver's identity. An owner that cannot be
 * told could be one: refused too. */
static pg_err refuse_approvers_window(pg_call *c, const pg_window *w, pg_error *e) {
    char user[64];
    bool admin = false;
    pg_error why;
    if (pg_identity_process_owner(w->pid, user, &admin, &why) != PG_OK)
        return pg_error_set(e, PG_E_POLICY, "drive a window of a program you started yourself",
                            "input refused: the window's owner cannot be told, and it could be an approver (%s)",
                            why.message);
    pg_principal owner;
    pg_principal_start(&owner, 0, user, NULL);
    owner.admin = admin;
#ifndef _WIN32
    owner.uid = admin ? 0 : UINT32_MAX; /* the policy's POSIX notion of root */
#endif
    if (pg_policy_is_approver(c->policy, &owner))
        return pg_error_set(e, PG_E_POLICY, "an approval must be typed by the approver, never injected",
                            "input refused: the window's program runs as %s, who may approve releases (an "
                            "approver or the administrator)",
                            user);
    return PG_OK;
}

/* Input to a program that does not handle its events would be queued, not
 * done, and land whenever it wakes: refused before anything is sent. */
#define RESPONDING_MS 500

static pg_err answers(pg_call *c, const pg_window *w, pg_responding *resp, pg_error *e) {
    pg_err rc = pg_broker_responding(c->b, c->plat, w, RESPONDING_MS, resp, e);
    if (rc || *resp != PG_RESPONDING_NO) return rc;
    c->details = cJSON_CreateObject();
    cJSON_AddFalseToObject(c->details, "responding");
    cJSON_AddItemToObject(c->details, "window", pg_call_window_json(c, w, NULL, 0));
    return pg_error_set(e, PG_E_TIMEOUT, "the program is frozen or busy: wait until it answers, then retry",
                        "window %llu is not responding (its program did not answer within %d ms); nothing was sent",
                        (unsigned long long)w->id, RESPONDING_MS);
}

/* --in TOKEN: points given in a window snapshot's own pixels (what an agent
 * that looked at a cropped or downscaled image means), mapped to the
 * window: region offset plus the point scaled by captured/stored size. The
 * window must still be the size it was (a moved window is fine: the
 * points are the window's own). */
struct in_token {
    bool on;
    char label[64];
    uint64_t window;
    uint32_t width, height;   /* the token's pixels */
    uint32_t src_w, src_h;    /* as captured, before the downscale */
    int32_t rx, ry;           /* the crop's offset in the window */
    bool cropped;
    /* --if-unchanged: the token it compares with (NULL: no check), the
     * target in the window's coordinates, and the check with_target
     * prepares (pg_guard.h); also for --control N --in TOKEN, where on is
     * false (the point is the control's, not the token's). */
    const char *guard_token;
    pg_point guard_at;
    pg_guard_check guard;
};

static pg_err in_token_load(pg_call *c, const char *token, in_token *t, pg_error *e) {
    pg_tok_meta m;
    pg_err rc = pg_tok_get(c->b->tokens, token, (uint32_t)c->peer->uid, &m, e);
    if (rc) return rc;
    pg_tok_redact(m.token, t->label);
    if (m.screen || !m.window_id || m.frames > 1 || strstr(m.method, "+popups"))
        return pg_error_set(e, PG_E_USAGE, "aim with a snapshot of the window itself (--window or --id), or of "
                            "the popup by its id", "%s is not a capture of one window: its pixels map to no one window",
                            t->label);
    t->on = true;
    t->window = m.window_id;
    t->width = m.width, t->height = m.height;
    t->src_w = m.source_width, t->src_h = m.source_height;
    t->rx = m.region_x, t->ry = m.region_y;
    t->cropped = m.region_w != 0;
    return PG_OK;
}

static pg_err in_token_map(const in_token *t, pg_point p, pg_point *out, pg_error *e) {
    if (p.x < 0 || p.y < 0 || (uint32_t)p.x >= t->width || (uint32_t)p.y >= t->height)
        return pg_error_set(e, PG_E_BADINPUT, "the point is in the token's own pixels: see its width and height",
                            "point %d,%d is outside %s (%ux%u)", p.x, p.y, t->label, t->width, t->height);
    /* the centre of the token pixel, in the captured pixels */
    out->x = t->rx + (int32_t)(((uint64_t)p.x * 2 + 1) * t->src_w / ((uint64_t)t->width * 2));
    out->y = t->ry + (int32_t)(((uint64_t)p.y * 2 + 1) * t->src_h / ((uint64_t)t->height * 2));
    return PG_OK;
}

static pg_err in_token_fits(const in_token *t, const pg_window *w, pg_error *e) {
    bool same = t->cropped ? (int64_t)t->rx + t->src_w <= w->width && (int64_t)t->ry + t->src_h <= w->height
                           : t->src_w == w->width && t->src_h == w->height;
    if (same) return PG_OK;
    return pg_error_set(e, PG_E_BADINPUT, "take a fresh snapshot and aim in it",
                        "window %llu was resized since %s (captured %ux%u, now %ux%u): its points no longer match",
                        (unsigned long long)w->id, t->label, t->src_w, t->src_h, w->width, w->height);
}

/* "in": how the token's pixels were mapped (the answer's points are the window's). */
static cJSON *in_json(const in_token *t) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "token", t->label);
    cJSON_AddNumberToObject(o, "offset_x", t->rx);
    cJSON_AddNumberToObject(o, "offset_y", t->ry);
    cJSON_AddNumberToObject(o, "scale", (double)t->src_w / t->width);
    return o;
}

/* The input lock (platform lock held): refused while another connection
 * holds keys or buttons down; they would change what this input means. A
 * hold past its limits is let go of first (pg_held_expired); the holder's
 * own input starts its idle limit again. */
static pg_err input_free(pg_call *c, pg_error *e) {
    pg_broker_expire_held_locked(c->b);
    if (!pg_held_by_other(&c->b->held, c->conn)) {
        pg_held_touch(&c->b->held, pg_mono_us());
        return PG_OK;
    }
    char what[256];
    pg_held_describe(&c->b->held, what, sizeof what);
    return pg_error_set(e, PG_E_BUSY,
                        "retry once the other session lets go (its keys are released when it ends, after "
                        "input.hold_idle_s without input from it, or input.hold_max_s in all)",
                        "another connection holds %s down on the display: input waits until it lets go", what);
}

/* The first press of this connection: it holds the display's input from
 * now, under its policy's limits. */
static void claim(pg_call *c, uint64_t window) {
    pg_held_claim(&c->b->held, c->conn, c->peer->uid, c->peer->user, c->peer->pid, window, pg_mono_us(),
                  c->view->hold_idle_s * 1000u, c->view->hold_max_s * 1000u);
}

/* Everything held, whoever holds it: what key-up --all lets go of. */
static cJSON *held_names_into(const pg_held *h, cJSON *a) {
    char names[PG_HELD_NAMES_MAX][64];
    size_t n = pg_held_names(h, names, PG_HELD_NAMES_MAX);
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
    return a;
}

/* "held": what this connection holds now. */
static cJSON *held_json(const pg_call *c) {
    cJSON *a = cJSON_CreateArray();
    const pg_held *h = &c->b->held;
    if (h->holder != c->conn) return a;
    return held_names_into(h, a);
}

/* rcpt: the op's --expect-change, or NULL (focus has none). */
/* How many inputs the backend sent without seeing them delivered in time
 * (platform lock held); false when it cannot tell (no such primitive, or a
 * helper that does not answer it): the reply then says nothing of delivery. */
static bool unconfirmed_count(pg_call *c, uint32_t *n) {
    pg_error ignored;
    *n = 0;
    return c->b->plat_ops->unconfirmed && c->b->plat_ops->unconfirmed(c->plat, n, &ignored) == PG_OK;
}

/* "delivery": an input sent but not seen delivered in time is a success
 * that says so, never a failure with "retry": the server may still deliver
 * it, and a retry would click twice. --expect-change then decides. */
static void report_delivery(pg_call *c, cJSON *r) {
    uint32_t n;
    if (!unconfirmed_count(c, &n)) return;
    cJSON_AddStringToObject(r, "delivery", n ? "unconfirmed" : "confirmed");
    size_t used = strlen(c->audit.detail);
    if (n) snprintf(c->audit.detail + used, sizeof c->audit.detail - used, ", delivery unconfirmed");
}

static pg_err with_target(pg_call *c, const pg_target *t, const void *a, input_fn fn, pg_receipt *rcpt,
                          in_token *in, pg_error *e) {
    pg_window w;
    pg_err rc = pg_call_plat_input(c, e);
    if (rc) return rc;
    rc = input_free(c, e);
    if (!rc) rc = pg_call_resolve_window(c, t, &w, e);
    cJSON *r = NULL;
    c->audit.kind = "input";
    if (!rc) {
        pg_call_audit_window(c, &w);
        /* Ownership from the server side (X-Resource pid -> /proc uid), never
         * from anything the client or the window says about itself. */
        bool same_owner = false;
        rc = pg_identity_input_target(&w, c->peer, &same_owner, e);
        if (!rc) rc = pg_policy_check_input(c->view, w.title, w.class_name, w.instance, same_owner, e);
        if (!rc) rc = pg_call_check_denied(c, &w, e); /* a denied application's dialogs, cut titles */
        if (!rc && !same_owner) rc = refuse_approvers_window(c, &w, e);
        if (!rc && in && in->on) rc = in_token_fits(in, &w, e);
    }
    pg_responding resp = PG_RESPONDING_UNKNOWN;
    if (!rc) rc = answers(c, &w, &resp, e);
    if (!rc && rcpt) rc = pg_receipt_before(c, rcpt, &w, e);
    if (!rc && in && in->guard_token) /* last before the input: the live pixels it notes are fresh */
        rc = pg_guard_prepare(c, in->guard_token, &w, in->guard_at.x, in->guard_at.y, &in->guard, e);
    if (!rc) {
        uint32_t stale;
        (void)unconfirmed_count(c, &stale); /* counted by an earlier request that failed later: not this one's */
        r = cJSON_CreateObject();
        rc = fn(c, a, &w, r, in, e);
        if (!rc) report_delivery(c, r);
    }
    if (!rc) { /* the window as it is after the input: "focused" was read before it */
        pg_target again = {NULL, true, w.id, false, false, 0};
        pg_window now;
        pg_error ignored;
        if (pg_call_resolve_window(c, &again, &now, &ignored) == PG_OK) w = now;
    }
    pg_call_plat_done(c);
    if (!rc && rcpt) rc = pg_receipt_after(c, rcpt, &w, r, e); /* the lock is free while it waits */
    if (rcpt) pg_receipt_fini(rcpt);
    if (in) pg_guard_report(&in->guard, r), pg_guard_fini(&in->guard);
    if (rc) {
        if (c->details && r) cJSON_AddItemToObject(c->details, "window", pg_call_window_json(c, &w, NULL, 0));
        cJSON_Delete(r);
        return rc;
    }
    if (in && in->on) cJSON_AddItemToObject(r, "in", in_json(in));
    cJSON_AddItemToObject(r, "window", pg_call_window_json(c, &w, NULL, 0));
    if (resp == PG_RESPONDING_YES) cJSON_AddTrueToObject(r, "responding");
    else cJSON_AddNullToObject(r, "responding"); /* could not be asked (no window manager) */
    c->result = r;
    return PG_OK;
}

/* --if-unchanged around the one platform input call (platform lock held):
 * guard_on right before it, and when it answered PG_OK, guard_off right
 * after it, whatever the call did. */
static pg_err guard_on(pg_call *c, in_token *in, pg_error *e) {
    return in ? pg_guard_begin(c, &in->guard, e) : PG_OK;
}

static void guard_off(pg_call *c, in_token *in) {
    if (in) pg_guard_end(c, &in->guard);
}

static pg_err do_focus(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    (void)args, (void)in;
    snprintf(c->audit.detail, sizeof c->audit.detail, "focus");
    pg_err rc = pg_call_intent(c, e);
    if (!rc) rc = c->b->plat_ops->focus(c->plat, w->id, e);
    if (!rc) cJSON_AddBoolToObject(r, "focused", 1);
    return rc;
}

/* What a pointer verb aims at when it is not a plain point: text or a
 * template, found in a fresh capture, plus an offset from its centre. */
typedef struct {
    const char *text;             /* or NULL: the template */
    const pg_image_ref *template;
    pg_point offset;
} aim_spec;

/* Finds the text or template in a fresh capture of w (platform lock held);
 * the pointer goes to the centre of what was found, plus the offset. */
static pg_err locate(pg_call *c, const aim_spec *a, const pg_window *w, cJSON *r, int64_t *x, int64_t *y,
                     pg_error *e) {
    pg_img *img = NULL;
    pg_window now = *w;
    pg_err rc = pg_capture_img_locked(c, &now, NULL, &img, NULL, e);
    if (rc) return rc;
    uint8_t d[PG_SHA256_LEN]; /* the capture the input was aimed by is on record, like any capture */
    if (pg_fingerprint_sha256(img, NULL, d, e) == PG_OK) pg_hex(d, sizeof d, c->audit.image_sha256);
    cJSON *found = NULL;
    pg_img_rect box = {0};
    bool ok = false;
    if (a->text) {
        rc = pg_find_text(c, img, NULL, a->text, false, &box, &found, e);
        ok = !rc && cJSON_IsTrue(cJSON_GetObjectItem(found, "found"));
    } else {
        pg_template_result res;
        rc = pg_find_template(c, img, a->template, 0.8, false, NULL, &res, &found, e);
        ok = !rc && res.found;
        box = res.best.box;
    }
    pg_img_free(img);
    if (rc) return rc;
    if (!ok) {
        c->details = found;
        return pg_error_set(e, PG_E_NOTFOUND, "check the text or template, or wait-for it first",
                            "%s not found in the window", a->text ? "text" : "template");
    }
    cJSON_AddItemToObject(r, "found", found);
    /* 64-bit: a negative offset must not wrap through the box's unsigned fields */
    *x = (int64_t)box.x + box.w / 2 + (int64_t)a->offset.x;
    *y = (int64_t)box.y + box.h / 2 + (int64_t)a->offset.y;
    return PG_OK;
}

/* An offset that puts the point outside the window wherever the match is
 * (as large as the window or larger) is refused before anything is
 * located: the answer would otherwise tell where the match is. */
static pg_err offset_fits(const pg_point *o, const pg_window *w, pg_error *e) {
    int64_t ox = o->x < 0 ? -(int64_t)o->x : o->x, oy = o->y < 0 ? -(int64_t)o->y : o->y;
    if (ox < w->width && oy < w->height) return PG_OK;
    return pg_error_set(e, PG_E_BADINPUT, "an offset moves from the match's centre and stays inside the window",
                        "--offset %d,%d is as large as the %ux%u window: the point would be outside it", o->x, o->y,
                        w->width, w->height);
}

static pg_err outside(int64_t x, int64_t y, const pg_window *w, pg_error *e) {
    if (x >= 0 && y >= 0 && x < w->width && y < w->height) return PG_OK;
    return pg_error_set(e, PG_E_BADINPUT, "points are relative to the window's top-left; see its width and height",
                        "point %lld,%lld is outside the %ux%u window", (long long)x, (long long)y, w->width,
                        w->height);
}

/* Where a point found from pixels (text, template, control) is reported:
 * on the disclosure grid for a protected window, like "found". */
static void report_point(pg_call *c, const pg_window *w, bool found, int64_t x, int64_t y, cJSON *o) {
    if (found && pg_call_protected(c)) {
        double bits = 0;
        uint32_t qx = (uint32_t)x, qy = (uint32_t)y;
        pg_disclose_point(&qx, &qy, w->width, w->height, &bits);
        x = qx, y = qy;
    }
    cJSON_AddNumberToObject(o, "x", (double)x);
    cJSON_AddNumberToObject(o, "y", (double)y);
}

/* The listed window on top at screen point (sx,sy), what a click there
 * reaches (platform lock held): *top points into *all (list_all's, the
 * caller frees it), NULL for the desktop, for skip (nothing listed then) or
 * for a window the list does not have. */
static pg_err window_on_top(pg_call *c, int64_t sx, int64_t sy, uint64_t skip, pg_window **all, size_t *n,
                            const pg_window **top, pg_error *e) {
    *all = NULL, *n = 0, *top = NULL;
    uint64_t id = 0;
    pg_err rc = c->b->plat_ops->top_at ? c->b->plat_ops->top_at(c->plat, (int32_t)sx, (int32_t)sy, &id, e) : PG_OK;
    if (rc || id == 0 || id == skip) return rc;
    bool complete;
    rc = c->b->plat_ops->list_all(c->plat, all, n, &complete, e);
    for (size_t i = 0; !rc && i < *n && !*top; i++)
        if ((*all)[i].id == id) *top = &(*all)[i];
    return rc;
}

/* A point of w that the program's own popup or dialog covers (a menu it
 * opened, a dropdown): the input lands there, as it would for a user, so
 * it is aimed at that window instead of refused as covered. Only a window
 * that belongs to w (its parent) and runs as the same process; anything
 * else on top is left to the backend, which refuses it. The platform lock
 * is held. */
static void into_own_popup(pg_call *c, pg_window *w, int64_t *x, int64_t *y, cJSON *r) {
    int64_t sx = w->x + *x, sy = w->y + *y;
    pg_window *all;
    size_t n;
    const pg_window *o;
    pg_error ignored;
    if (window_on_top(c, sx, sy, w->id, &all, &n, &o, &ignored) == PG_OK && o && o->kind != PG_WINDOW_NORMAL &&
        o->parent == w->id && o->pid == w->pid && o->pid > 0 && o->visible) {
        cJSON *into = cJSON_AddObjectToObject(r, "into");
        cJSON_AddNumberToObject(into, "id", (double)o->id);
        cJSON_AddStringToObject(into, "kind", o->kind == PG_WINDOW_POPUP ? "popup" : "dialog");
        *x = sx - o->x, *y = sy - o->y;
        *w = *o;
    }
    free(all);
}

/* Where a pointer verb goes, shared by click, move and scroll: (x,y) as
 * given, or (locate) at the text or template found; inside w; and into the
 * program's own popup when one is on top there (*target says which window). */
static pg_err aim_at(pg_call *c, const aim_spec *aim, bool locate_it, const pg_window *w, cJSON *r, int64_t *x,
                     int64_t *y, pg_window *target, pg_error *e) {
    pg_err rc = locate_it ? offset_fits(&aim->offset, w, e) : PG_OK;
    if (!rc && locate_it) rc = locate(c, aim, w, r, x, y, e);
    if (!rc && locate_it && outside(*x, *y, w, e)) /* found from pixels: no number tells where */
        rc = pg_error_set(e, PG_E_BADINPUT, "a smaller --offset, or aim at a point (--at)",
                          "the match's centre plus --offset %d,%d falls outside the %ux%u window", aim->offset.x,
                          aim->offset.y, w->width, w->height);
    else if (!rc) rc = outside(*x, *y, w, e);
    if (rc) return rc;
    *target = *w;
    into_own_popup(c, target, x, y, r);
    return PG_OK;
}

static const char *how_located(const aim_spec *a) {
    return a->text ? ", located by OCR" : ", located by template";
}

static const pg_button buttons[] = {PG_BTN_LEFT, PG_BTN_MIDDLE, PG_BTN_RIGHT}; /* the order of "button"'s values */

/* ---- paste: what it inserts must be the requester's ---- */

/* Which selections a paste reads: */
#define PASTE_CLIPBOARD 1u
#define PASTE_PRIMARY 2u

/* The selections the whole chord (the held keys included) pastes: ctrl+v
 * and ctrl+shift+v the CLIPBOARD; shift+Insert the CLIPBOARD or PRIMARY
 * (toolkits differ); the Paste key the CLIPBOARD. 0: not a paste. */
static unsigned chord_pastes(const char *whole) {
    char parts[9][64];
    size_t n = pg_held_split(whole, parts, 9);
    if (!n) return 0;
    bool ctrl = false, shift = false, other = false;
    for (size_t i = 0; i + 1 < n; i++) {
        if (!strcasecmp(parts[i], "ctrl") || !strcasecmp(parts[i], "control")) ctrl = true;
        else if (!strcasecmp(parts[i], "shift")) shift = true;
        else other = true; /* alt, super, meta: another command */
    }
    const char *key = parts[n - 1];
    if (other) return 0;
    if (ctrl && !strcasecmp(key, "v")) return PASTE_CLIPBOARD;
    if (shift && !ctrl && (!strcmp(key, "Insert") || !strcmp(key, "KP_Insert"))) return PASTE_CLIPBOARD | PASTE_PRIMARY;
    if (!strcmp(key, "XF86Paste") || !strcmp(key, "Paste")) return PASTE_CLIPBOARD;
    return 0;
}

/* Is any window of process pid one the policy never captures? (Its
 * selection is its secret as much as its pixels.) Platform lock held. */
static pg_err owner_denied(pg_call *c, uint32_t pid, bool *denied, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    bool complete = true;
    *denied = false;
    pg_err rc = c->b->plat_ops->list_all(c->plat, &all, &n, &complete, e);
    for (size_t i = 0; !rc && i < n && !*denied; i++)
        *denied = all[i].pid == (int64_t)pid && pg_call_window_denied(c, &all[i], all, n);
    if (!rc && !complete) *denied = true; /* a window left out might be it: fail closed */
    free(all);
    return rc;
}

static pg_err paste_refused(pg_error *e, const char *selection, const char *why) {
    return pg_error_set(e, PG_E_POLICY,
                        "type the text you mean (pixelgate type), or copy it in your own window first",
                        "refused: a paste would insert the %s, which %s", selection, why);
}

/* May this request paste selection (platform lock held)? Only when nobody
 * owns it, or its owner is a process of the requester's (the input rule's
 * test: pg_identity_input_target) none of whose windows a deny rule matches;
 * input.paste_other_users lifts the first condition, never the second. An
 * owner the display server does not name counts as another user's. */
static pg_err paste_one(pg_call *c, const char *selection, pg_error *e) {
    uint64_t owner = 0;
    uint32_t pid = 0;
    pg_err rc = c->b->plat_ops->selection_owner(c->plat, selection, &owner, &pid, e);
    if (rc || !owner) return rc;
    bool same = false, denied = false;
    if (pid) {
        pg_window w = {.id = owner, .pid = pid};
        rc = pg_identity_input_target(&w, c->peer, &same, e);
        if (rc == PG_E_NOTFOUND) rc = PG_OK, same = false; /* the owner is gone: not known to be the caller's */
        if (rc) return rc;
        rc = owner_denied(c, pid, &denied, e);
        if (rc) return rc;
    }
    if (denied) return paste_refused(e, selection, "a program the policy never captures owns");
    if (!same && !c->view->paste_other_users)
        return paste_refused(e, selection, pid ? "another user's program owns" : "a program the display cannot name owns");
    return PG_OK;
}

static pg_err paste_allowed(pg_call *c, unsigned selections, pg_error *e) {
    pg_err rc = PG_OK;
    if (selections & PASTE_CLIPBOARD) rc = paste_one(c, "CLIPBOARD", e);
    if (!rc && (selections & PASTE_PRIMARY)) rc = paste_one(c, "PRIMARY", e);
    return rc;
}

/* A chord as the display will see it (the held keys with it): a paste is
 * judged by its owner. */
static pg_err chord_paste_allowed(pg_call *c, const char *chord, pg_error *e) {
    char whole[384];
    if (!pg_held_chord(&c->b->held, chord, whole, sizeof whole))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "the chord with the held keys is too long");
    return paste_allowed(c, chord_pastes(whole), e);
}

/* Does text name a paste ("Paste", "Paste special")? A control clicked by
 * such text pastes the CLIPBOARD as ctrl+v would. */
static bool names_paste(const char *text) {
    static const char word[] = "paste";
    for (const char *s = text; s && *s; s++) {
        size_t i = 0;
        while (word[i] && s[i] && tolower((unsigned char)s[i]) == word[i]) i++;
        if (!word[i]) return true;
    }
    return false;
}

/* The middle button pastes X11's PRIMARY selection in most programs. */
static pg_err button_paste_allowed(pg_call *c, pg_button b, pg_error *e) {
    return b == PG_BTN_MIDDLE ? paste_allowed(c, PASTE_PRIMARY, e) : PG_OK;
}

/* The name of value v of op's "button" argument, as the declaration spells it. */
static void button_name(size_t op, int64_t v, char out[16]) {
    pg_enum_name(pg_opdecl_arg(&pg_opdecls[op], "button")->values, (int)v, out, 16);
}

static pg_err do_click(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    const pg_args_click *a = args;
    char bname[16];
    button_name(PG_OPI_click, a->button, bname);
    if (a->has_offset && a->has_at)
        return pg_error_set(e, PG_E_USAGE, "--offset moves from the centre of --text or --template",
                            "click takes --offset only with --text or --template");
    int64_t x = a->at.x, y = a->at.y;
    aim_spec aim = {a->text, &a->template, a->offset};
    pg_window target;
    pg_err rc = aim_at(c, &aim, !a->has_at && !a->has_control, w, r, &x, &y, &target, e);
    if (rc) return rc;
    int count = (int)a->count;
    snprintf(c->audit.detail, sizeof c->audit.detail, "click %lld,%lld %s x%d%s", (long long)x, (long long)y, bname,
             count, a->has_at ? "" : a->has_control ? ", a layout control" : how_located(&aim));
    rc = button_paste_allowed(c, buttons[a->button], e);
    if (!rc && names_paste(a->text)) rc = paste_allowed(c, PASTE_CLIPBOARD, e); /* an Edit > Paste aimed at by text */
    if (!rc) rc = pg_call_intent(c, e);
    if (!rc) rc = guard_on(c, in, e);
    if (!rc) {
        rc = c->b->plat_ops->click(c->plat, target.id, (int32_t)x, (int32_t)y, buttons[a->button], count, e);
        guard_off(c, in);
    }
    if (rc) return rc;
    cJSON *k = cJSON_AddObjectToObject(r, "clicked");
    report_point(c, &target, !a->has_at || a->has_control, x, y, k);
    cJSON_AddStringToObject(k, "button", bname);
    cJSON_AddNumberToObject(k, "count", count);
    return PG_OK;
}

static pg_err do_move(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    const pg_args_move *a = args;
    if (a->has_offset && a->has_at)
        return pg_error_set(e, PG_E_USAGE, "--offset moves from the centre of --text or --template",
                            "move takes --offset only with --text or --template");
    int64_t x = a->at.x, y = a->at.y;
    aim_spec aim = {a->text, &a->template, a->offset};
    pg_window target;
    pg_err rc = aim_at(c, &aim, !a->has_at, w, r, &x, &y, &target, e);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "move %lld,%lld%s", (long long)x, (long long)y,
             a->has_at ? "" : how_located(&aim));
    rc = pg_call_intent(c, e);
    if (!rc) rc = guard_on(c, in, e);
    if (!rc) {
        rc = c->b->plat_ops->pointer_move(c->plat, target.id, (int32_t)x, (int32_t)y, e);
        guard_off(c, in);
    }
    if (rc) return rc;
    report_point(c, &target, !a->has_at, x, y, cJSON_AddObjectToObject(r, "moved"));
    return PG_OK;
}

static pg_err do_scroll(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    const pg_args_scroll *a = args;
    if (a->has_at + a->has_text + a->has_template > 1)
        return pg_error_set(e, PG_E_USAGE, "give one of --at, --text, --template, or none (the window's centre)",
                            "scroll takes at most one of --at, --text and --template");
    if (a->has_offset && !a->has_text && !a->has_template)
        return pg_error_set(e, PG_E_USAGE, "--offset moves from the centre of --text or --template",
                            "scroll takes --offset only with --text or --template");
    bool located = a->has_text || a->has_template;
    int64_t x = a->has_at ? (int64_t)a->at.x : (int64_t)(w->width / 2);
    int64_t y = a->has_at ? (int64_t)a->at.y : (int64_t)(w->height / 2);
    aim_spec aim = {a->text, &a->template, a->offset};
    pg_window target;
    pg_err rc = aim_at(c, &aim, located, w, r, &x, &y, &target, e);
    if (rc) return rc;
    char dname[16];
    pg_enum_name(pg_opdecl_arg(&pg_opdecls[PG_OPI_scroll], "direction")->values, a->direction, dname, sizeof dname);
    int32_t n = (int32_t)a->notches;
    int32_t dx = a->direction == 2 ? -n : a->direction == 3 ? n : 0; /* up|down|left|right */
    int32_t dy = a->direction == 0 ? -n : a->direction == 1 ? n : 0;
    snprintf(c->audit.detail, sizeof c->audit.detail, "scroll %s %d at %lld,%lld%s", dname, n, (long long)x,
             (long long)y, located ? how_located(&aim) : a->has_at ? "" : ", the window's centre");
    rc = pg_call_intent(c, e);
    if (!rc) rc = guard_on(c, in, e);
    if (!rc) {
        rc = c->b->plat_ops->scroll(c->plat, target.id, (int32_t)x, (int32_t)y, dx, dy, e);
        guard_off(c, in);
    }
    if (rc) return rc;
    cJSON *k = cJSON_AddObjectToObject(r, "scrolled");
    report_point(c, &target, located, x, y, k);
    cJSON_AddStringToObject(k, "direction", dname);
    cJSON_AddNumberToObject(k, "notches", n);
    return PG_OK;
}

/* The drag's path: the press point, then steps points evenly to the end
 * (rounded to the nearest pixel; the last is exactly --to). */
static void drag_path(pg_point from, pg_point to, int64_t steps, pg_point *path) {
    path[0] = from;
    for (int64_t i = 1; i <= steps; i++) {
        double t = (double)i / (double)steps;
        path[i].x = (int32_t)lround(from.x + t * (to.x - from.x));
        path[i].y = (int32_t)lround(from.y + t * (to.y - from.y));
    }
}

static pg_err do_drag(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    const pg_args_drag *a = args;
    pg_err rc = outside(a->from.x, a->from.y, w, e);
    if (!rc) rc = outside(a->to.x, a->to.y, w, e);
    if (rc) return rc;
    pg_point path[PG_DRAG_MAX_POINTS];
    size_t n = (size_t)a->steps + 1;
    drag_path(a->from, a->to, a->steps, path);
    uint32_t hold = (uint32_t)a->hold_ms, step = (uint32_t)a->step_ms;
    if (!pg_drag_shape_ok(n, hold, step))
        return pg_error_set(e, PG_E_USAGE, "fewer --steps or a shorter --step-ms",
                            "a drag takes at most %d ms: --hold-ms %u plus %zu steps of %u ms is more",
                            PG_DRAG_MAX_MS, hold, n - 2, step);
    char bname[16];
    button_name(PG_OPI_drag, a->button, bname);
    snprintf(c->audit.detail, sizeof c->audit.detail, "drag %d,%d -> %d,%d %s in %lld steps", a->from.x, a->from.y,
             a->to.x, a->to.y, bname, (long long)a->steps);
    rc = button_paste_allowed(c, buttons[a->button], e);
    if (!rc) rc = pg_call_intent(c, e);
    if (!rc) rc = guard_on(c, in, e); /* the press point's box: the backend lets go once it is pressed */
    if (!rc) {
        rc = c->b->plat_ops->drag(c->plat, w->id, path, n, buttons[a->button], hold, step, e);
        guard_off(c, in);
    }
    if (rc) return rc;
    cJSON *k = cJSON_AddObjectToObject(r, "dragged");
    cJSON *f = cJSON_AddObjectToObject(k, "from"), *t = cJSON_AddObjectToObject(k, "to");
    cJSON_AddNumberToObject(f, "x", a->from.x);
    cJSON_AddNumberToObject(f, "y", a->from.y);
    cJSON_AddNumberToObject(t, "x", a->to.x);
    cJSON_AddNumberToObject(t, "y", a->to.y);
    cJSON_AddStringToObject(k, "button", bname);
    cJSON_AddNumberToObject(k, "steps", (double)a->steps);
    return PG_OK;
}

/* The chord as the display will see it, judged whole: the held modifiers
 * are down while it goes out ("ctrl+alt+Delete" built from key-down ctrl,
 * key-down alt and key Delete is refused like the chord itself). */
static pg_err check_with_held(pg_call *c, const char *chord, pg_error *e) {
    if (!pg_held_any(&c->b->held)) return PG_OK;
    char whole[384];
    if (!pg_held_chord(&c->b->held, chord, whole, sizeof whole))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "the chord with the held keys is too long");
    return c->b->plat_ops->key_check(c->plat, whole, e);
}

/* key --hold MS: every part of the chord down in order, the wait, and
 * every part up in reverse, whatever failed after the first press. */
static pg_err hold_chord(pg_call *c, const pg_window *w, const char *chord, uint32_t ms, pg_error *e) {
    char parts[9][64];
    size_t n = pg_held_split(chord, parts, 9);
    pg_err rc = c->b->plat_ops->key_check(c->plat, chord, e);
    size_t down = 0;
    for (; !rc && down < n; down++) {
        pg_hold h = {.id = w->id, .down = true, .is_key = true};
        snprintf(h.key, sizeof h.key, "%s", parts[down]);
        if (pg_held_has_key(&c->b->held, h.key)) continue; /* already down: stays as it is */
        rc = c->b->plat_ops->hold(c->plat, &h, e);
        if (rc) break;
    }
    if (!rc) pg_sleep_ms(ms);
    for (size_t i = down; i-- > 0;) {
        pg_hold h = {.is_key = true};
        snprintf(h.key, sizeof h.key, "%s", parts[i]);
        if (pg_held_has_key(&c->b->held, h.key)) continue;
        pg_error ignored;
        pg_err up = c->b->plat_ops->hold(c->plat, &h, rc ? &ignored : e);
        if (!rc) rc = up;
    }
    return rc;
}

static pg_err do_key(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    (void)in;
    const pg_args_key *a = args;
    if (a->has_hold && a->repeat > 1)
        return pg_error_set(e, PG_E_USAGE, "hold once, or press several times", "--hold and --repeat do not go together");
    snprintf(c->audit.detail, sizeof c->audit.detail, "key %.200s", a->chord);
    if (a->repeat > 1)
        snprintf(c->audit.detail + strlen(c->audit.detail), sizeof c->audit.detail - strlen(c->audit.detail), " x%lld",
                 (long long)a->repeat);
    if (a->has_hold)
        snprintf(c->audit.detail + strlen(c->audit.detail), sizeof c->audit.detail - strlen(c->audit.detail),
                 " held %lld ms", (long long)a->hold);
    pg_err rc = check_with_held(c, a->chord, e);
    if (!rc) rc = chord_paste_allowed(c, a->chord, e);
    char chord[256]; /* without the modifiers already held: they stay down */
    pg_held_strip(&c->b->held, a->chord, chord, sizeof chord);
    if (!rc) rc = pg_call_intent(c, e);
    if (!rc && a->has_hold) {
        rc = hold_chord(c, w, chord, (uint32_t)a->hold, e);
        if (!rc) cJSON_AddNumberToObject(r, "held_ms", (double)a->hold);
    }
    int64_t done = a->has_hold ? a->repeat : 0;
    while (!rc && done < a->repeat && !(rc = c->b->plat_ops->key(c->plat, w->id, chord, e))) done++;
    if (rc && done) /* the presses that went out are part of the answer */
        snprintf(e->message + strlen(e->message), sizeof e->message - strlen(e->message),
                 " (after %lld of %lld presses)", (long long)done, (long long)a->repeat);
    if (rc) return rc;
    cJSON_AddStringToObject(r, "key", a->chord);
    cJSON_AddNumberToObject(r, "repeat", (double)a->repeat);
    return PG_OK;
}

/* --replace: the focused field's line selected and deleted. End then
 * shift+Home selects it in Tk, GTK and Win32 edits (ctrl+a is "line start"
 * in Tk, "select all" elsewhere); Delete removes the selection. */
static pg_err clear_line(pg_call *c, const pg_window *w, pg_error *e) {
    static const char *const keys[] = {"End", "shift+Home", "Delete"};
    pg_err rc = PG_OK;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !rc; i++) rc = c->b->plat_ops->key(c->plat, w->id, keys[i], e);
    return rc;
}

/* type --control: the control's point, clicked first to focus it. */
typedef struct {
    pg_args_type a;
    int64_t x, y;
} type_at;

static pg_err do_type(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    const pg_args_type *a = args;
    const type_at *t = args;
    if (c->b->held.n_keys)
        return pg_error_set(e, PG_E_USAGE, "let go of the held keys first (key-up --all)",
                            "type chooses its own modifiers per character: not while keys are held");
    if (a->has_control && (t->x < 0 || t->y < 0 || t->x >= w->width || t->y >= w->height))
        return pg_error_set(e, PG_E_BADINPUT, "take a fresh layout: the window changed size",
                            "control %lld is outside the %ux%u window", (long long)a->control, w->width, w->height);
    /* The text itself may be a secret (a password): record only its size. */
    snprintf(c->audit.detail, sizeof c->audit.detail, "type %zu bytes%s%s", strlen(a->text),
             a->has_control ? " after a click on a layout control" : "", a->replace ? ", replacing the line" : "");
    pg_err rc = pg_call_intent(c, e); /* one record of intent before every effect */
    if (!rc && a->has_control) { /* --if-unchanged checks this click: it decides where the text goes */
        rc = guard_on(c, in, e);
        if (!rc) {
            rc = c->b->plat_ops->click(c->plat, w->id, (int32_t)t->x, (int32_t)t->y, PG_BTN_LEFT, 1, e);
            guard_off(c, in);
        }
        if (!rc) cJSON_AddNumberToObject(r, "control", (double)a->control);
    }
    if (!rc && a->replace) rc = clear_line(c, w, e);
    if (!rc && a->text[0]) rc = c->b->plat_ops->type_text(c->plat, w->id, a->text, e);
    if (rc) return rc;
    size_t chars = 0; /* code points: count bytes that do not continue a UTF-8 sequence */
    for (const unsigned char *p = (const unsigned char *)a->text; *p; p++) chars += (*p & 0xC0) != 0x80;
    cJSON_AddNumberToObject(r, "typed_chars", (double)chars);
    cJSON_AddBoolToObject(r, "replaced", a->replace);
    return PG_OK;
}

pg_err pg_op_focus(pg_call *c, const pg_args_focus *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    return with_target(c, &t, a, do_focus, NULL, NULL, e);
}

pg_err pg_op_key(pg_call *c, const pg_args_key *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    pg_receipt rcpt = PG_RECEIPT_OF(a);
    return with_target(c, &t, a, do_key, &rcpt, NULL, e);
}

/* --in TOKEN for a verb with one point: the target is the token's window,
 * the point (required) mapped from the token's pixels. */
static pg_err one_point_in(pg_call *c, const char *token, bool has_at, pg_point *at, in_token *in, pg_target *t,
                           pg_error *e) {
    if (!token) return PG_OK;
    if (!has_at) return pg_error_set(e, PG_E_USAGE, "give the point in the token's pixels", "--in TOKEN needs --at X,Y");
    pg_err rc = in_token_load(c, token, in, e);
    if (!rc) rc = in_token_map(in, *at, at, e);
    if (!rc) *t = (pg_target){NULL, true, in->window, false, false, 0};
    return rc;
}

/* --if-unchanged (pg_guard.h): with_target checks the region of token
 * around window point at right before the input. Without --in it is USAGE,
 * before anything is looked up. */
static void guard_at(bool if_unchanged, const char *token, pg_point at, in_token *in) {
    if (!if_unchanged) return;
    in->guard_token = token;
    in->guard_at = at;
}

/* move and scroll: one point, which --in TOKEN maps. */
pg_err pg_op_move(pg_call *c, const pg_args_move *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    pg_receipt rcpt = PG_RECEIPT_OF(a);
    pg_args_move b = *a;
    in_token in = {0};
    pg_err rc = pg_guard_need_token(a->if_unchanged, a->in, e);
    if (!rc) rc = one_point_in(c, a->in, a->has_at, &b.at, &in, &t, e);
    guard_at(a->if_unchanged, a->in, b.at, &in);
    return rc ? rc : with_target(c, &t, &b, do_move, &rcpt, &in, e);
}

pg_err pg_op_scroll(pg_call *c, const pg_args_scroll *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    pg_receipt rcpt = PG_RECEIPT_OF(a);
    pg_args_scroll b = *a;
    in_token in = {0};
    pg_err rc = pg_guard_need_token(a->if_unchanged, a->in, e);
    if (!rc) rc = one_point_in(c, a->in, a->has_at, &b.at, &in, &t, e);
    guard_at(a->if_unchanged, a->in, b.at, &in);
    return rc ? rc : with_target(c, &t, &b, do_scroll, &rcpt, &in, e);
}

/* A drag is checked at its press point: where it grabs decides what moves. */
pg_err pg_op_drag(pg_call *c, const pg_args_drag *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    pg_receipt rcpt = PG_RECEIPT_OF(a);
    pg_args_drag b = *a;
    in_token in = {0};
    pg_err rc = pg_guard_need_token(a->if_unchanged, a->in, e);
    if (!rc) rc = one_point_in(c, a->in, true, &b.from, &in, &t, e);
    if (!rc && a->in) rc = in_token_map(&in, a->to, &b.to, e);
    guard_at(a->if_unchanged, a->in, b.from, &in);
    return rc ? rc : with_target(c, &t, &b, do_drag, &rcpt, &in, e);
}

/* --control N --in TOKEN: the target is the token's window, the point the
 * control's centre in it (broker/ops/layout.c). */
static pg_err control_target(pg_call *c, bool has_in, const char *in, bool has_control, int64_t control, pg_target *t,
                             int64_t *x, int64_t *y, pg_error *e) {
    if (has_in != has_control)
        return pg_error_set(e, PG_E_USAGE, "name a control as --control N --in TOKEN (the token layout ran on)",
                            "--control and --in go together");
    if (!has_in) return PG_OK;
    uint64_t wid = 0;
    pg_err rc = pg_call_control_point(c, in, control, NULL, &wid, x, y, NULL, e);
    if (!rc) *t = (pg_target){NULL, true, wid, false, false, 0};
    return rc;
}

pg_err pg_op_click(pg_call *c, const pg_args_click *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    pg_args_click b = *a;
    in_token in = {0};
    pg_receipt rcpt = PG_RECEIPT_OF(a);
    pg_err rc = pg_guard_need_token(a->if_unchanged, a->in, e);
    if (rc) return rc;
    if (a->has_in && a->has_at) { /* --in TOKEN --at X,Y: the token's pixels */
        rc = one_point_in(c, a->in, true, &b.at, &in, &t, e);
        guard_at(a->if_unchanged, a->in, b.at, &in);
        return rc ? rc : with_target(c, &t, &b, do_click, &rcpt, &in, e);
    }
    int64_t x = 0, y = 0;
    rc = control_target(c, a->has_in, a->in, a->has_control, a->control, &t, &x, &y, e);
    if (rc) return rc;
    if (a->has_control) b.at = (pg_point){(int32_t)x, (int32_t)y};
    guard_at(a->if_unchanged, a->in, b.at, &in); /* --control N --in TOKEN: the control's centre */
    return with_target(c, &t, &b, do_click, &rcpt, a->if_unchanged ? &in : NULL, e);
}

/* type --if-unchanged checks the click on --control N of --in TOKEN (its
 * centre): that click decides which field the text goes to. */
pg_err pg_op_type(pg_call *c, const pg_args_type *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    type_at b = {*a, 0, 0};
    in_token in = {0};
    pg_err rc = pg_guard_need_token(a->if_unchanged, a->in, e);
    if (!rc) rc = control_target(c, a->has_in, a->in, a->has_control, a->control, &t, &b.x, &b.y, e);
    if (rc) return rc;
    guard_at(a->if_unchanged, a->in, (pg_point){(int32_t)b.x, (int32_t)b.y}, &in);
    pg_receipt rcpt = PG_RECEIPT_OF(a);
    return with_target(c, &t, &b, do_type, &rcpt, a->if_unchanged ? &in : NULL, e);
}

/* ---- held keys and buttons ---- */

static pg_err do_key_down(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    (void)in;
    const pg_args_key_down *a = args;
    pg_held *h = &c->b->held;
    if (pg_held_has_key(h, a->key))
        return pg_error_set(e, PG_E_USAGE, "key-up it first, or go on: it is down", "%s is held already", a->key);
    if (h->n_keys == PG_HELD_MAX)
        return pg_error_set(e, PG_E_USAGE, "let go of some first (key-up)", "at most %d keys are held at once",
                            PG_HELD_MAX);
    /* Judged with what is held, either way round: the key with the held
     * modifiers, and a new modifier with every held key. */
    pg_held after = *h;
    pg_held_add_key(&after, a->key);
    pg_err rc = PG_OK;
    for (size_t i = 0; i < after.n_keys && !rc; i++) {
        char whole[384];
        if (pg_held_is_modifier(after.keys[i])) continue;
        if (!pg_held_chord(&after, after.keys[i], whole, sizeof whole))
            rc = pg_error_set(e, PG_E_BADINPUT, NULL, "the chord with the held keys is too long");
        else if (pg_held_any(h)) rc = c->b->plat_ops->key_check(c->plat, whole, e); /* alone: the backend judges it */
        if (!rc) rc = paste_allowed(c, chord_pastes(whole), e); /* key-down ctrl, then key-down v */
    }
    snprintf(c->audit.detail, sizeof c->audit.detail, "key-down %s", a->key);
    if (!rc) rc = pg_call_intent(c, e);
    pg_hold press = {.id = w->id, .down = true, .is_key = true};
    snprintf(press.key, sizeof press.key, "%s", a->key);
    if (!rc) rc = c->b->plat_ops->hold(c->plat, &press, e);
    if (rc) return rc;
    claim(c, w->id);
    pg_held_add_key(h, a->key);
    cJSON_AddStringToObject(r, "pressed", a->key);
    cJSON_AddItemToObject(r, "held", held_json(c));
    return PG_OK;
}

pg_err pg_op_key_down(pg_call *c, const pg_args_key_down *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    return with_target(c, &t, a, do_key_down, NULL, NULL, e);
}

/* A release of what this connection holds, with no window (platform lock
 * held): it goes out wherever the focus or the pointer is. */
static pg_err let_go(pg_call *c, const pg_hold *up, pg_error *e) {
    pg_err rc = pg_call_intent(c, e);
    if (!rc) rc = c->b->plat_ops->hold(c->plat, up, e);
    return rc;
}

/* key-up --all may end any connection's hold when root or an approver
 * (pg_call_is_approver) asks: a person can always end a hold that an agent
 * keeps alive. *why gets what the release record says. */
static pg_err input_free_for_all(pg_call *c, char why[128], pg_error *e) {
    snprintf(why, 128, "key-up --all");
    pg_err rc = input_free(c, e);
    if (rc != PG_E_BUSY || !pg_call_is_approver(c)) return rc;
    pg_error_clear(e);
    snprintf(why, 128, "key-up --all by %.60s (an approver)", c->peer->user);
    return PG_OK;
}

static pg_err release_keys(pg_call *c, const pg_args_key_up *a, const char *why, cJSON *released, pg_error *e) {
    pg_held *h = &c->b->held;
    if (a->all) {
        pg_err rc = pg_call_intent(c, e);
        if (!rc) pg_broker_release_held_locked(c->b, why);
        return rc;
    }
    if (!pg_held_has_key(h, a->key) || h->holder != c->conn)
        return pg_error_set(e, PG_E_BADINPUT, "key-up names a key you hold (cursor lists them)",
                            "%s is not held by this connection", a->key);
    pg_hold up = {.is_key = true};
    snprintf(up.key, sizeof up.key, "%s", a->key);
    pg_err rc = let_go(c, &up, e);
    if (!rc) pg_held_remove_key(h, a->key), cJSON_AddItemToArray(released, cJSON_CreateString(a->key));
    return rc;
}

pg_err pg_op_key_up(pg_call *c, const pg_args_key_up *a, pg_error *e) {
    if (c->person_only && !a->all)
        return pg_error_set(e, PG_E_POLICY, "as an approver who is not a client, use key-up --all",
                            "you are not one of the policy's clients: key-up --all only, to end a hold");
    pg_err rc = pg_call_plat_input(c, e);
    if (rc) return rc;
    c->audit.kind = "input";
    snprintf(c->audit.detail, sizeof c->audit.detail, "key-up %s", a->all ? "--all" : a->key);
    cJSON *released = cJSON_CreateArray();
    char why[128];
    rc = a->all ? input_free_for_all(c, why, e) : input_free(c, e);
    if (!rc && a->all) held_names_into(&c->b->held, released); /* as pg_broker_release_held_locked records it */
    if (!rc) rc = release_keys(c, a, why, released, e);
    cJSON *held = rc ? NULL : held_json(c);
    pg_call_plat_done(c);
    if (rc) {
        cJSON_Delete(released);
        return rc;
    }
    c->result = cJSON_CreateObject();
    cJSON_AddItemToObject(c->result, "released", released);
    cJSON_AddItemToObject(c->result, "held", held);
    return PG_OK;
}

static pg_err do_mouse_down(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    const pg_args_mouse_down *a = args;
    pg_held *h = &c->b->held;
    pg_button b = buttons[a->button];
    if (h->buttons & (1u << b))
        return pg_error_set(e, PG_E_USAGE, "mouse-up it first", "that button is held already");
    int64_t x = a->at.x, y = a->at.y;
    pg_window target = *w;
    pg_err rc = PG_OK;
    if (a->has_at) {
        aim_spec none = {0};
        rc = aim_at(c, &none, false, w, r, &x, &y, &target, e);
    } else { /* where the pointer is: it must be over the window (checked again by the backend) */
        int32_t sx = 0, sy = 0;
        rc = c->b->plat_ops->pointer_at(c->plat, &sx, &sy, e);
        x = (int64_t)sx - w->x, y = (int64_t)sy - w->y;
        if (!rc) rc = outside(x, y, w, e);
    }
    if (rc) return rc;
    char bname[16];
    button_name(PG_OPI_mouse_down, a->button, bname);
    snprintf(c->audit.detail, sizeof c->audit.detail, "mouse-down %s at %lld,%lld%s", bname, (long long)x, (long long)y,
             a->has_at ? "" : ", where the pointer was");
    rc = button_paste_allowed(c, b, e);
    if (!rc) rc = pg_call_intent(c, e);
    pg_hold press = {.id = target.id, .down = true, .button = b, .at = a->has_at, .x = (int32_t)x, .y = (int32_t)y};
    if (!rc) rc = guard_on(c, in, e);
    if (!rc) {
        rc = c->b->plat_ops->hold(c->plat, &press, e);
        guard_off(c, in);
    }
    if (rc) return rc;
    claim(c, target.id);
    pg_held_add_button(h, b);
    cJSON *k = cJSON_AddObjectToObject(r, "pressed");
    cJSON_AddNumberToObject(k, "x", (double)x);
    cJSON_AddNumberToObject(k, "y", (double)y);
    cJSON_AddStringToObject(k, "button", bname);
    cJSON_AddItemToObject(r, "held", held_json(c));
    return PG_OK;
}

pg_err pg_op_mouse_down(pg_call *c, const pg_args_mouse_down *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    pg_args_mouse_down b = *a;
    in_token in = {0};
    pg_err rc = pg_guard_need_token(a->if_unchanged, a->in, e);
    if (!rc) rc = one_point_in(c, a->in, a->has_at, &b.at, &in, &t, e);
    guard_at(a->if_unchanged, a->in, b.at, &in);
    return rc ? rc : with_target(c, &t, &b, do_mouse_down, NULL, &in, e);
}

static pg_err held_button(pg_call *c, pg_button b, pg_error *e) {
    const pg_held *h = &c->b->held;
    if (h->holder == c->conn && (h->buttons & (1u << b))) return PG_OK;
    return pg_error_set(e, PG_E_BADINPUT, "mouse-up lets go of a button mouse-down pressed on this connection",
                        "that button is not held by this connection");
}

static pg_err do_mouse_up(pg_call *c, const void *args, const pg_window *w, cJSON *r, in_token *in, pg_error *e) {
    (void)in; /* letting go is never checked */
    const pg_args_mouse_up *a = args;
    pg_button b = buttons[a->button];
    pg_err rc = held_button(c, b, e);
    int64_t x = a->at.x, y = a->at.y;
    pg_window target = *w;
    aim_spec none = {0};
    if (!rc) rc = aim_at(c, &none, false, w, r, &x, &y, &target, e);
    char bname[16];
    button_name(PG_OPI_mouse_up, a->button, bname);
    snprintf(c->audit.detail, sizeof c->audit.detail, "mouse-up %s at %lld,%lld", bname, (long long)x, (long long)y);
    if (!rc) rc = pg_call_intent(c, e);
    pg_hold up = {.id = target.id, .button = b, .at = true, .x = (int32_t)x, .y = (int32_t)y};
    if (!rc) rc = c->b->plat_ops->hold(c->plat, &up, e);
    if (rc) return rc;
    pg_held_remove_button(&c->b->held, b);
    cJSON *k = cJSON_AddObjectToObject(r, "released");
    cJSON_AddStringToObject(k, "button", bname);
    cJSON_AddNumberToObject(k, "x", (double)x);
    cJSON_AddNumberToObject(k, "y", (double)y);
    cJSON_AddItemToObject(r, "held", held_json(c));
    return PG_OK;
}

/* mouse-up without a point: the button comes up where the pointer is. */
static pg_err mouse_up_in_place(pg_call *c, const pg_args_mouse_up *a, pg_error *e) {
    pg_err rc = pg_call_plat_input(c, e);
    if (rc) return rc;
    c->audit.kind = "input";
    char bname[16];
    button_name(PG_OPI_mouse_up, a->button, bname);
    snprintf(c->audit.detail, sizeof c->audit.detail, "mouse-up %s where the pointer is", bname);
    pg_button b = buttons[a->button];
    rc = input_free(c, e);
    if (!rc) rc = held_button(c, b, e);
    pg_hold up = {.button = b};
    if (!rc) rc = let_go(c, &up, e);
    if (!rc) pg_held_remove_button(&c->b->held, b);
    cJSON *held = rc ? NULL : held_json(c);
    pg_call_plat_done(c);
    if (rc) return rc;
    c->result = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(c->result, "released"), "button", bname);
    cJSON_AddItemToObject(c->result, "held", held);
    cJSON_AddNullToObject(c->result, "window");
    return PG_OK;
}

pg_err pg_op_mouse_up(pg_call *c, const pg_args_mouse_up *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    bool targeted = a->window || a->has_id || a->in;
    if ((a->window != NULL) + a->has_id + (a->in != NULL) > 1)
        return pg_error_set(e, PG_E_USAGE, "name the window once", "give one of --window, --id and --in");
    if (targeted != a->has_at)
        return pg_error_set(e, PG_E_USAGE, "mouse-up --window W --at X,Y, or mouse-up alone (where the pointer is)",
                            "a window and --at go together");
    if (!targeted) return mouse_up_in_place(c, a, e);
    pg_args_mouse_up b = *a;
    in_token in = {0};
    pg_err rc = one_point_in(c, a->in, a->has_at, &b.at, &in, &t, e);
    return rc ? rc : with_target(c, &t, &b, do_mouse_up, NULL, &in, e);
}

/* ---- cursor ---- */

/* The window at screen point (sx,sy) when it is the caller's own and the
 * policy lets input reach it (platform lock held): *found says so. */
static pg_err own_window_at(pg_call *c, int32_t sx, int32_t sy, pg_window *out, bool *found, pg_error *e) {
    pg_window *all;
    size_t n;
    const pg_window *top;
    pg_err rc = window_on_top(c, sx, sy, 0, &all, &n, &top, e);
    bool same_owner = false;
    pg_error why;
    *found = !rc && top && pg_identity_input_target(top, c->peer, &same_owner, &why) == PG_OK && same_owner &&
             !pg_call_window_denied(c, top, all, n);
    if (*found) *out = *top;
    free(all);
    return rc;
}

pg_err pg_op_cursor(pg_call *c, const pg_args_cursor *a, pg_error *e) {
    (void)a;
    pg_err rc = pg_call_plat_input(c, e); /* the held state is under the input lock */
    if (rc) return rc;
    int32_t sx = 0, sy = 0;
    pg_window w;
    bool found = false;
    rc = c->b->plat_ops->pointer_at(c->plat, &sx, &sy, e);
    if (!rc) rc = own_window_at(c, sx, sy, &w, &found, e);
    cJSON *r = rc ? NULL : cJSON_CreateObject();
    if (r && found) {
        cJSON *k = cJSON_AddObjectToObject(r, "cursor");
        cJSON_AddNumberToObject(k, "x", (double)sx - w.x);
        cJSON_AddNumberToObject(k, "y", (double)sy - w.y);
        cJSON_AddItemToObject(k, "window", pg_call_window_json(c, &w, NULL, 0));
        pg_call_audit_window(c, &w);
    } else if (r) {
        cJSON_AddNullToObject(r, "cursor"); /* not over a window of yours: where is not yours to know */
    }
    if (r) cJSON_AddItemToObject(r, "held", held_json(c));
    pg_call_plat_done(c);
    c->result = r;
    return rc;
}
