/* SPDX-License-Identifier: MIT */
/* Helpers every handler shares: naming the target window, loading image
 * arguments, storing tokens, the audit fields and the JSON shapes. An image
 * argument is a token of the caller's or bytes the client read from its own
 * file; the broker never opens a path a client names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include "pg_crypto.h"
#include "pg_disclose.h"
#include "pg_dispatch.h"
#include "pg_fingerprint.h"
#include "pg_img_codec.h"
#include "pg_call.h"
#include "pg_regex.h"

/* ---- JSON shapes ---- */

cJSON *pg_rect_json(const pg_img_rect *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "x", r->x);
    cJSON_AddNumberToObject(o, "y", r->y);
    cJSON_AddNumberToObject(o, "w", r->w);
    cJSON_AddNumberToObject(o, "h", r->h);
    return o;
}

void pg_iso_time(int64_t ms, char out[40]) {
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
#ifdef _WIN32
    gmtime_s(&tm, &s); /* mingw-w64 has no gmtime_r in strict C17 */
#else
    gmtime_r(&s, &tm);
#endif
    size_t n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 40 - n, ".%03dZ", (int)(ms % 1000));
}

void pg_call_meta_window(pg_tok_meta *m, const pg_window *w) {
    m->window_id = w->id;
    pg_copy_utf8(m->window_title, sizeof m->window_title, w->title);
    pg_copy_utf8(m->window_class, sizeof m->window_class, w->class_name);
    bool admin = false;
    pg_error ignored;
    if (!w->pid || pg_identity_process_owner(w->pid, m->window_owner, &admin, &ignored) != PG_OK) m->window_owner[0] = 0;
}

cJSON *pg_call_token_json(pg_call *c, const pg_tok_meta *m) {
    char created[40], expires[40], digest[65];
    bool keyed;
    pg_call_digest(c, m, digest, &keyed);
    pg_iso_time(m->created_ms, created);
    pg_iso_time(m->expires_ms, expires);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "token", m->token);
    cJSON_AddNumberToObject(r, "width", m->width);
    cJSON_AddNumberToObject(r, "height", m->height);
    cJSON_AddNumberToObject(r, "source_width", m->source_width);
    cJSON_AddNumberToObject(r, "source_height", m->source_height);
    cJSON_AddStringToObject(r, "method", m->method);
    if (!keyed) cJSON_AddStringToObject(r, "sha256", m->sha256);
    /* A digest of a few pixels would be an equality oracle on them: withheld below min_area. */
    bool withheld = keyed && (uint64_t)m->width * m->height < c->view->min_area;
    if (withheld) cJSON_AddNullToObject(r, "digest");
    else cJSON_AddStringToObject(r, "digest", digest);
    cJSON_AddStringToObject(r, "digest_kind", withheld ? "withheld" : keyed ? "keyed" : "sha256");
    cJSON_AddStringToObject(r, "created", created);
    cJSON_AddStringToObject(r, "expires", expires);
    if (m->screen) {
        cJSON_AddStringToObject(r, "source", "screen");
    } else {
        cJSON_AddStringToObject(r, "source", "window");
        cJSON *w = cJSON_AddObjectToObject(r, "window");
        cJSON_AddNumberToObject(w, "id", (double)m->window_id);
        cJSON_AddStringToObject(w, "title", m->window_title);
        cJSON_AddStringToObject(w, "class", m->window_class);
    }
    if (m->frames) {
        cJSON_AddNumberToObject(r, "frames", m->frames);
        cJSON_AddNumberToObject(r, "frame_width", m->width);
        cJSON_AddNumberToObject(r, "frame_height", m->height / m->frames);
    }
    pg_call_region_json(m, r);
    return r;
}

void pg_call_region_json(const pg_tok_meta *m, cJSON *into) {
    if (!m->region_w) return;
    cJSON *g = cJSON_AddObjectToObject(into, "region");
    cJSON_AddNumberToObject(g, "x", m->region_x);
    cJSON_AddNumberToObject(g, "y", m->region_y);
    cJSON_AddNumberToObject(g, "w", m->region_w);
    cJSON_AddNumberToObject(g, "h", m->region_h);
}

void pg_copy_utf8(char *dst, size_t cap, const char *src) {
    size_t n = strnlen(src, cap - 1);
    if (src[n] != '\0')
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--; /* don't split a character */
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---- audit fields ---- */

void pg_call_audit_window(pg_call *c, const pg_window *w) {
    c->audit.has_window = true;
    c->audit.window_id = w->id;
    pg_copy_utf8(c->audit.window_title, sizeof c->audit.window_title, w->title);
    pg_copy_utf8(c->audit.window_class, sizeof c->audit.window_class, w->class_name);
}

void pg_call_audit_token(pg_call *c, const pg_tok_meta *m) {
    memcpy(c->audit.token, m->token, sizeof c->audit.token);
    memcpy(c->audit.image_sha256, m->sha256, sizeof c->audit.image_sha256);
    if (m->screen) return;
    c->audit.has_window = true;
    c->audit.window_id = m->window_id;
    memcpy(c->audit.window_title, m->window_title, sizeof c->audit.window_title);
    memcpy(c->audit.window_class, m->window_class, sizeof c->audit.window_class);
}

pg_err pg_call_intent(pg_call *c, pg_error *e) { return pg_dispatch_intent(c, e); }

/* ---- the display ---- */

pg_err pg_call_plat_input(pg_call *c, pg_error *e) {
    pg_err rc = pg_broker_plat_lock(c->b, e);
    c->plat = rc ? NULL : c->b->plat;
    c->plat_slot = -1;
    return rc;
}

pg_err pg_call_plat_read(pg_call *c, pg_error *e) {
    pg_err rc = pg_broker_plat_read(c->b, &c->plat, &c->plat_slot, e);
    if (rc) c->plat = NULL;
    return rc;
}

void pg_call_plat_done(pg_call *c) {
    if (!c->plat) return;
    pg_broker_plat_release(c->b, c->plat_slot);
    c->plat = NULL;
}

/* ---- the target window ---- */

static bool denied_itself(pg_call *c, const pg_window *w) {
    return w->title_cut || pg_policy_capture_denied(c->view, w->title, w->class_name, w->instance, NULL, 0);
}

bool pg_call_window_denied(pg_call *c, const pg_window *w, const pg_window *all, size_t n) {
    if (denied_itself(c, w)) return true;
    for (size_t i = 0; w->parent && i < n; i++)
        if (all[i].id == w->parent) return denied_itself(c, &all[i]);
    return false;
}

pg_err pg_call_check_denied(pg_call *c, const pg_window *w, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    pg_err rc = c->b->plat_ops->list_windows(c->plat, &all, &n, e);
    if (!rc && pg_call_window_denied(c, w, all, n))
        rc = pg_error_set(e, PG_E_POLICY, "this window is private by the administrator's policy",
                          "window %llu is private (capture.deny_windows, or a dialog of such a window)",
                          (unsigned long long)w->id);
    free(all);
    return rc;
}

bool pg_call_window_foreign(pg_call *c, const pg_window *w) {
    if (w->shared) return false;
    bool same_owner = false;
    pg_error ignored;
    /* same_owner alone: Windows' integrity refusal is input's rule, not ownership. */
    (void)pg_identity_input_target(w, c->peer, &same_owner, &ignored);
    if (same_owner) return false;
    char owner[64];
    if (!c->view->n_capture_other_users || pg_identity_window_owner(w, owner, &ignored) != PG_OK) return true;
    return !pg_policy_capture_user_allowed(c->view, owner);
}

bool pg_call_window_private(pg_call *c, const pg_window *w, const pg_window *all, size_t n) {
    return pg_call_window_denied(c, w, all, n) || pg_call_window_foreign(c, w);
}

/* Only a positive match counts: a title the engine could not decide (PCRE2's
 * match limit on Windows) is not a target the agent named. */
/* Only the first PG_PATTERN_TEXT_MAX bytes of each string are matched: an
 * agent's pattern names a window, and titles can be 64 KiB long, so the
 * match's cost stays bounded whatever the pattern (the policy's own deny
 * rules, which decide privacy, always see the whole title). */
#define PG_PATTERN_TEXT_MAX 1024

static int match_prefix(const regex_t *re, const char *s) {
    char buf[PG_PATTERN_TEXT_MAX + 1];
    pg_copy_utf8(buf, sizeof buf, s);
    return pg_regex_match(re, buf);
}

bool pg_call_pattern_matches(const regex_t *re, const pg_window *w) {
    return match_prefix(re, w->title) == 1 || match_prefix(re, w->class_name) == 1 ||
           match_prefix(re, w->instance) == 1;
}

static bool window_matches(const regex_t *re, const pg_window *w) { return pg_call_pattern_matches(re, w); }

static pg_err resolve_by_id(pg_window *all, size_t n, uint64_t id, pg_window *out, pg_error *e) {
    for (size_t i = 0; i < n; i++)
        if (all[i].id == id) {
            *out = all[i];
            return PG_OK;
        }
    return pg_error_set(e, PG_E_NOTFOUND, "list windows with 'pixelgate windows'", "no window with id %llu",
                        (unsigned long long)id);
}

/* A popup (menu, dropdown, tooltip) named by the id `windows --all` lists:
 * list_windows leaves popups out, list_all has them. */
static pg_err resolve_popup(pg_call *c, uint64_t id, pg_window *out, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    bool complete;
    pg_error why;
    pg_err rc = c->b->plat_ops->list_all(c->plat, &all, &n, &complete, &why);
    bool found = false;
    for (size_t i = 0; !rc && i < n && !found; i++)
        if (all[i].id == id && all[i].kind == PG_WINDOW_POPUP) *out = all[i], found = true;
    free(all);
    if (found) return PG_OK;
    return pg_error_set(e, PG_E_NOTFOUND, "list windows with 'pixelgate windows' (popups: --all)", "no window with id %llu",
                        (unsigned long long)id);
}

static cJSON *candidates_json(pg_call *c, pg_window *all, size_t n, const bool *hit) {
    cJSON *d = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(d, "candidates");
    for (size_t i = 0; i < n; i++)
        if (hit[i]) cJSON_AddItemToArray(arr, pg_call_window_json(c, &all[i], all, n));
    return d;
}

static pg_err resolve_by_regex(pg_call *c, pg_window *all, size_t n, const pg_target *t, pg_window *out,
                               pg_error *e) {
    regex_t re;
    pg_err prc = pg_policy_pattern_check(t->window, e); /* before any compile: cost */
    if (prc) return prc;
    int rr = pg_regex_compile(&re, t->window);
    if (rr != 0) {
        char msg[128];
        regerror(rr, &re, msg, sizeof msg);
        return pg_error_set(e, PG_E_USAGE, "--window takes a POSIX extended regular expression",
                            "bad window pattern \"%s\": %s", t->window, msg);
    }
    bool *hit = calloc(n ? n : 1, sizeof *hit);
    if (!hit) {
        regfree(&re);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    size_t hits = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        hit[i] = all[i].visible && window_matches(&re, &all[i]) && !pg_call_window_private(c, &all[i], all, n);
        if (hit[i] && hits++ == 0) first = i;
    }
    pg_err rc = PG_OK;
    if (hits == 0)
        rc = pg_error_set(e, PG_E_NOTFOUND, "list candidates with 'pixelgate windows'",
                          "no visible window matches \"%s\"", t->window);
    else if (hits > 1 && !t->first) {
        rc = pg_error_set(e, PG_E_USAGE, "narrow the pattern, pass --id ID, or add --first",
                          "%zu windows match \"%s\" (listed in details.candidates)", hits, t->window);
        c->details = candidates_json(c, all, n, hit);
    } else {
        *out = all[first];
    }
    free(hit);
    regfree(&re);
    return rc;
}

pg_err pg_call_resolve_window(pg_call *c, const pg_target *t, pg_window *out, pg_error *e) {
    if (!!t->window + t->has_id != 1)
        return pg_error_set(e, PG_E_USAGE, NULL, "name the target with exactly one of --window REGEX or --id ID");
    pg_window *all = NULL;
    size_t n = 0;
    pg_err rc = c->b->plat_ops->list_windows(c->plat, &all, &n, e);
    if (rc) return rc;
    if (t->has_id) {
        rc = resolve_by_id(all, n, t->id, out, e);
        if (rc == PG_E_NOTFOUND) rc = resolve_popup(c, t->id, out, e);
    } else {
        /* Matching reads only the copied list: other requests may use the
         * display meanwhile (what is captured later is checked afresh). */
        bool input_lock = c->plat_slot < 0; /* a reader blocks nobody's input */
        if (input_lock) pg_broker_plat_unlock(c->b);
        rc = resolve_by_regex(c, all, n, t, out, e);
        if (input_lock) pthread_mutex_lock(&c->b->plat_lock);
    }
    free(all);
    if (!rc && t->has_generation && pg_call_window_generation(out) != t->generation)
        rc = pg_error_set(e, PG_E_NOTFOUND, "the program restarted: find its window again with 'pixelgate windows'",
                          "window %llu of generation %lld is gone (that id is now a window of generation %lld)",
                          (unsigned long long)out->id, (long long)t->generation,
                          (long long)pg_call_window_generation(out));
    return rc;
}

int64_t pg_call_window_generation(const pg_window *w) { return pg_identity_process_started_ms(w->pid); }

/* Is w, a dialog or popup named without the list it was found in, one of
 * a denied window? The list is read now (under the display lock the caller
 * holds, or a reader's taken for it); one that cannot be read says yes. */
static bool parent_denied_now(pg_call *c, const pg_window *w) {
    bool held = c->plat != NULL;
    pg_error ignored;
    if (!held && pg_call_plat_read(c, &ignored) != PG_OK) return true;
    pg_window *all = NULL;
    size_t n = 0;
    bool denied = c->b->plat_ops->list_windows(c->plat, &all, &n, &ignored) != PG_OK ||
                  pg_call_window_denied(c, w, all, n);
    free(all);
    if (!held) pg_call_plat_done(c);
    return denied;
}

bool pg_call_window_hidden(pg_call *c, const pg_window *w, const pg_window *all, size_t n) {
    if (pg_call_window_private(c, w, all, n)) return true;
    return !all && w->parent && parent_denied_now(c, w);
}

const char *pg_call_display_source(const pg_call *c) {
    return strcmp(c->b->plat_ops->name, "session-helper") == 0 ? "session-helper" : "direct";
}

cJSON *pg_call_window_json(pg_call *c, const pg_window *w, const pg_window *all, size_t n) {
    bool hidden = pg_call_window_hidden(c, w, all, n);
    pg_window shown = *w;
    if (hidden) shown.title[0] = shown.class_name[0] = shown.instance[0] = '\0', shown.title_cut = false;
    cJSON *o = pg_window_json(&shown);
    int64_t gen = pg_call_window_generation(w);
    if (gen) cJSON_AddNumberToObject(o, "generation", (double)gen);
    else cJSON_AddNullToObject(o, "generation");
    if (w->shared) cJSON_AddBoolToObject(o, "shared", true);
    if (!hidden) return o;
    cJSON_ReplaceItemInObjectCaseSensitive(o, "title", cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(o, "class", cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(o, "instance", cJSON_CreateNull());
    cJSON_AddBoolToObject(o, "private", true);
    if (pg_call_window_foreign(c, w)) cJSON_AddBoolToObject(o, "other_user", true);
    return o;
}

/* ---- images ---- */

/* Decoded pixels a request holds count against the broker's one budget. */
/* held: what the request holds (c->pixels_held; a decode thread counts in
 * its own and adds it after the join, so two threads never race on it). */
static pg_err take_pixels(pg_call *c, uint64_t bytes, const char *what, uint64_t *held, pg_error *e) {
    pg_err rc = pg_broker_pixels_take(c->b, bytes, c->b->pixels_wait_ms, what, e);
    if (!rc) *held += bytes;
    return rc;
}

/* The operations whose --region is a rectangle of the images they read: an
 * answer of theirs is about the tiles there. Any other reading of a token is
 * about all of it. */
static bool arg_region(const pg_call *c, pg_img_rect *r) {
    static const char *const ops[] = {"ocr",         "hash",        "diff",  "assert_changed", "assert_unchanged",
                                      "assert_text", "assert_template", "color", "assert_color", NULL};
    bool listed = false;
    for (size_t i = 0; ops[i] && c->req; i++) listed |= !strcmp(ops[i], c->req->op);
    const cJSON *g = listed && c->req->args ? cJSON_GetObjectItemCaseSensitive(c->req->args, "region") : NULL;
    if (!cJSON_IsObject(g)) return false;
    double v[4];
    const char *k[4] = {"x", "y", "w", "h"};
    for (int i = 0; i < 4; i++) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(g, k[i]);
        if (!cJSON_IsNumber(n) || n->valuedouble < 0 || n->valuedouble > UINT32_MAX) return false;
        v[i] = n->valuedouble;
    }
    *r = (pg_img_rect){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3]};
    return true;
}

pg_err pg_call_token_image(pg_call *c, const char *token, pg_img **out, char label[64], pg_tok_meta *meta,
                           pg_error *e) {
    pg_tok_meta m;
    uint8_t *px = NULL;
    pg_err rc = pg_tok_get(c->b->tokens, token, (uint32_t)c->peer->uid, &m, e); /* its size, before its pixels */
    if (!rc) rc = take_pixels(c, (uint64_t)m.width * m.height * 4, "a token", &c->pixels_held, e);
    if (!rc) rc = pg_tok_load(c->b->tokens, token, (uint32_t)c->peer->uid, &m, &px, e);
    if (rc) return rc;
    rc = pg_img_wrap(out, px, m.width, m.height, (size_t)m.width * 4, e);
    if (rc) free(px);
    pg_tok_redact(m.token, label);
    if (!rc && pg_disclose_protected(c->view)) {
        pg_call_source(c, m.source[0] ? m.source : "token");
        pg_img_rect r;
        pg_disclose_origin o;
        pg_call_tiles(c, *out, arg_region(c, &r) ? &r : NULL, pg_call_tiles_origin(&m, &o) ? &o : NULL);
    }
    if (!c->audit.image_sha256[0]) memcpy(c->audit.image_sha256, m.sha256, sizeof c->audit.image_sha256);
    if (!c->audit.token[0]) memcpy(c->audit.token, m.token, sizeof c->audit.token);
    if (!rc && meta) *meta = m;
    return rc;
}

static pg_err from_attachment(pg_call *c, int64_t idx, pg_img **out, char label[64], uint64_t *held, pg_error *e) {
    if (idx < 0 || (size_t)idx >= c->msg->n_att)
        return pg_error_set(e, PG_E_USAGE, NULL, "image refers to attachment %lld, the request has %zu", (long long)idx,
                            c->msg->n_att);
    const pg_blob *b = &c->msg->att[idx];
    pg_img_limits lim = {(size_t)c->view->max_input_bytes, c->view->max_pixels};
    if (b->len > lim.max_input_bytes)
        return pg_error_set(e, PG_E_BADINPUT, "send a smaller image (images.max_input_bytes in the policy)",
                            "image of %zu bytes is over the limit of %zu", b->len, lim.max_input_bytes);
    snprintf(label, 64, "file #%lld", (long long)idx);
    pg_img_format fmt;
    uint32_t w = 0, h = 0;
    pg_err rc = pg_img_probe(b->data, b->len, &fmt, &w, &h, e);
    /* RGBA out, and for JPEG libjpeg's coefficients of a progressive file (6 bytes a pixel) besides. */
    if (!rc) rc = pg_img_limits_check(&lim, w, h, e);
    if (!rc) rc = take_pixels(c, (uint64_t)w * h * (fmt == PG_IMG_FMT_JPEG ? 10 : 4), label, held, e);
    return rc ? rc : pg_img_decode(b->data, b->len, &lim, out, e);
}

pg_err pg_call_image(pg_call *c, const pg_image_ref *ref, pg_img **out, char label[64], pg_tok_meta *meta,
                     bool *is_token, pg_error *e) {
    if (is_token) *is_token = ref->token != NULL;
    if (ref->token) return pg_call_token_image(c, ref->token, out, label, meta, e);
    return from_attachment(c, ref->attachment, out, label, &c->pixels_held, e);
}

/* A file decoded on a thread of its own (the request's attachments outlive it). */
typedef struct {
    pg_call *c;
    int64_t idx;
    pg_img *img;
    char label[64];
    uint64_t held; /* pixel budget it took, added to the request's after the join */
    pg_error e;
    pg_err rc;
} decode_job;

static void *decode_main(void *arg) {
    decode_job *j = arg;
    j->rc = from_attachment(j->c, j->idx, &j->img, j->label, &j->held, &j->e);
    return NULL;
}

pg_err pg_call_image_pair(pg_call *c, const pg_image_ref *ra, const pg_image_ref *rb, pg_img *img[2],
                          char label[2][64], pg_tok_meta meta[2], bool is_token[2], pg_error *e) {
    img[0] = img[1] = NULL;
    pthread_t th;
    decode_job job = {.c = c, .idx = rb->attachment};
    bool threaded = !ra->token && !rb->token && pthread_create(&th, NULL, decode_main, &job) == 0;
    pg_err rc = pg_call_image(c, ra, &img[0], label[0], &meta[0], &is_token[0], e);
    if (threaded) {
        pthread_join(th, NULL);
        c->pixels_held += job.held;
        is_token[1] = false;
        memcpy(label[1], job.label, 64);
        img[1] = job.img;
        if (!rc && job.rc) rc = job.rc, *e = job.e;
    } else if (!rc) {
        rc = pg_call_image(c, rb, &img[1], label[1], &meta[1], &is_token[1], e);
    }
    if (rc) {
        pg_img_free(img[0]), pg_img_free(img[1]);
        img[0] = img[1] = NULL;
    }
    return rc;
}

pg_img_rect pg_call_img_rect(const pg_rect *r) { return (pg_img_rect){(uint32_t)r->x, (uint32_t)r->y, r->w, r->h}; }

pg_err pg_call_store_image(pg_call *c, pg_img *img, pg_tok_meta *m, pg_error *e) {
    return pg_call_store_hashed(c, img, NULL, m, e);
}

pg_err pg_call_store_hashed(pg_call *c, pg_img *img, const uint8_t *sha256, pg_tok_meta *m, pg_error *e) {
    if (img->stride != (size_t)img->width * 4) { /* the store holds tight rows */
        pg_img *tight = NULL;
        pg_err rc = pg_img_clone(img, &tight, e);
        pg_img_free(img);
        if (rc) return rc;
        img = tight;
    }
    m->uid = (uint32_t)c->peer->uid;
    m->width = img->width;
    m->height = img->height;
    uint8_t *px = img->px; /* the store takes the pixels over */
    img->px = NULL;
    pg_img_free(img);
    return pg_tok_put_hashed(c->b->tokens, m, px, sha256, c->view->token_ttl_s, c->view->spool_quota_bytes, e);
}

pg_err pg_call_derived_token(pg_call *c, pg_img *img, const char *method, cJSON *into, const char *field,
                             pg_error *e) {
    pg_tok_meta m;
    memset(&m, 0, sizeof m);
    m.source_width = img->width;
    m.source_height = img->height;
    snprintf(m.method, sizeof m.method, "%s", method);
    if (c->n_sources) memcpy(m.source, c->sources[0], sizeof m.source); /* a derived image inherits its source */
    pg_err rc = pg_call_disclose(c, 1, e); /* its keyed digest, like a snapshot's: equal or not to another */
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    rc = pg_call_store_image(c, img, &m, e);
    if (rc) return rc;
    cJSON_AddStringToObject(into, field, m.token);
    return PG_OK;
}

pg_err pg_call_verdict(pg_call *c, cJSON *measured, bool pass, pg_error *e, const char *tip, const char *fmt,
                       double v1, double v2) {
    cJSON_AddBoolToObject(measured, "passed", pass);
    if (pass) {
        c->result = measured;
        return PG_OK;
    }
    c->details = measured;
    return pg_error_set(e, PG_E_ASSERT, tip, fmt, v1, v2);
}

/* ---- disclosure ---- */

bool pg_call_protected(const pg_call *c) { return c->n_sources > 0 && pg_disclose_protected(c->view); }

void pg_call_source(pg_call *c, const char *source) {
    for (size_t i = 0; i < c->n_sources; i++)
        if (!strcmp(c->sources[i], source)) return;
    size_t i = c->n_sources < 4 ? c->n_sources++ : 3; /* a fifth source shares the fourth's ledger */
    snprintf(c->sources[i], sizeof c->sources[i], "%s", source);
}

void pg_call_tiles(pg_call *c, const pg_img *img, const pg_img_rect *r, const pg_disclose_origin *o) {
    if (!pg_disclose_protected(c->view) || !img) return;
    pg_error e;
    if (pg_disclose_tiles(c->b->disclose, img->px, img->width, img->height, img->stride, r, o, &c->tiles,
                          &c->n_tiles, &c->cap_tiles, &e))
        c->tiles_failed = true;
}

bool pg_call_tiles_origin(const pg_tok_meta *m, pg_disclose_origin *o) {
    if (!m->region_w || m->width != m->region_w || m->height != m->region_h || !m->source[0]) return false;
    *o = (pg_disclose_origin){m->region_x, m->region_y, m->source};
    return true;
}

void pg_call_tiles_free(pg_call *c) {
    free(c->tiles);
    c->tiles = NULL;
    c->n_tiles = c->cap_tiles = 0;
}

/* Strips what names pixels rather than asks about them: tokens (their tiles
 * are the answer's subject), so the same question on a fresh capture is the
 * same question. */
static void strip_tokens(cJSON *o) {
    cJSON *it = o ? o->child : NULL;
    while (it) {
        cJSON *next = it->next;
        if (it->string && !strcmp(it->string, "token") && cJSON_IsString(it)) cJSON_DeleteItemFromObject(o, "token");
        else if (cJSON_IsObject(it) || cJSON_IsArray(it)) strip_tokens(it);
        it = next;
    }
}

/* The question a charge answers: the operation, its arguments without
 * tokens, the bytes of every file the caller sent, and which charge of the
 * request this is. Its first 8 bytes of SHA-256. */
static pg_err question_of(pg_call *c, uint64_t *q, pg_error *e) {
    cJSON *args = c->req && c->req->args ? cJSON_Duplicate(c->req->args, true) : cJSON_CreateObject();
    strip_tokens(args);
    char *text = args ? cJSON_PrintUnformatted(args) : NULL;
    cJSON_Delete(args);
    pg_sha256_ctx *h = NULL;
    pg_err rc = text ? pg_sha256_new(&h, e) : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    const char *op = c->req ? c->req->op : "";
    if (!rc) rc = pg_sha256_update(h, op, strlen(op) + 1, e);
    if (!rc) rc = pg_sha256_update(h, text, strlen(text) + 1, e);
    if (!rc) rc = pg_sha256_update(h, &c->n_charges, sizeof c->n_charges, e);
    for (size_t i = 0; !rc && c->msg && i < c->msg->n_att; i++)
        rc = pg_sha256_update(h, c->msg->att[i].data, c->msg->att[i].len, e);
    uint8_t md[PG_SHA256_LEN];
    if (!rc) rc = pg_sha256_final(h, md, e), h = NULL;
    pg_sha256_free(h);
    free(text);
    if (!rc) memcpy(q, md, sizeof *q);
    return rc;
}

/* What the agent is told of its budget with a refusal. */
static void refusal_details(pg_call *c, const pg_disclose_receipt *r) {
    if (c->details) return;
    c->details = cJSON_CreateObject();
    cJSON_AddNumberToObject(c->details, "disclosure_balance_bits", r->balance);
    if (r->retry_s >= 0) cJSON_AddNumberToObject(c->details, "retry_after_s", r->retry_s);
}

pg_err pg_call_disclose(pg_call *c, double bits, pg_error *e) {
    if (!pg_call_protected(c) || bits <= 0) return PG_OK;
    if (c->tiles_failed)
        return pg_error_set(e, PG_E_INTERNAL, "retry", "the disclosure ledger could not key these pixels: refused");
    uint64_t q = 0;
    pg_err rc = question_of(c, &q, e);
    c->n_charges++;
    pg_disclose_receipt r;
    if (!rc)
        rc = pg_disclose_charge(c->b->disclose, c->view, (uint32_t)c->peer->uid, c->tiles, c->n_tiles, q, bits, &r,
                                e);
    if (!rc) c->bits += r.charged;
    if (rc == PG_E_POLICY) refusal_details(c, &r);
    return rc;
}

pg_err pg_call_area(pg_call *c, uint64_t area, const char *what, pg_error *e) {
    return pg_call_protected(c) ? pg_disclose_area(c->view, area, what, e) : PG_OK;
}

void pg_call_digest(pg_call *c, const pg_tok_meta *m, char out[65], bool *keyed) {
    *keyed = pg_disclose_protected(c->view) && m->source[0];
    if (*keyed) pg_disclose_digest(c->b->disclose, (uint32_t)c->peer->uid, m->sha256, out);
    else memcpy(out, m->sha256, 65);
}

/* ---- who the caller is to the policy ---- */

/* The caller as the policy sees it (groups from the connection). */
void pg_call_principal(pg_call *c, pg_principal *p, const char **groups, char *buf, size_t n) {
    pg_identity_principal(c->peer, p, groups, 64, buf, n);
    p->remote = pg_identity_remote(c->peer);
}

/* May the caller approve what (uid, user) prepared? */
pg_err pg_call_may_approve(pg_call *c, uint32_t uid, const char *user, pg_error *e) {
    const char *groups[64];
    char buf[4096];
    pg_principal me, them;
    pg_call_principal(c, &me, groups, buf, sizeof buf);
    pg_principal_start(&them, uid, user, NULL); /* only who it is: uid and name */
    return pg_policy_may_approve(c->policy, &me, &them, e);
}

/* Is the caller an approver at all (for seeing true digests and images)? */
bool pg_call_is_approver(pg_call *c) {
    pg_error ignored;
    return pg_call_may_approve(c, UINT32_MAX - 1, "\x01nobody", &ignored) == PG_OK;
}

/* ---- small JSON and image helpers ---- */

void pg_json_str(const cJSON *o, const char *k, char *dst, size_t n) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    snprintf(dst, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

double pg_json_num(const cJSON *o, const char *k, double def) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

void pg_call_image_sha256(const pg_img *img, char out[65]) {
    uint8_t d[PG_SHA256_LEN];
    if (pg_fingerprint_sha256(img, NULL, d, NULL) != PG_OK) memset(d, 0, sizeof d);
    pg_hex(d, sizeof d, out);
}
