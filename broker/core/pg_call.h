/* SPDX-License-Identifier: MIT */
/* pg_call.h - the handlers' one door into the broker: the request a
 * handler runs (pg_call), and every service of the core it may ask for:
 * the display (under its locks), targets and windows under the deny rules,
 * captures, images and tokens, disclosure charges, receipts, stability,
 * finding things, baseline environments and candidates, identity
 * (pg_identity.h).
 *
 * Every operation declared in common/pg_ops.def has one handler,
 *     pg_err pg_op_<id>(pg_call *c, const pg_args_<id> *a, pg_error *e);
 * declared here and defined in broker/ops/<id>.c (or the file of its family:
 * input.c holds focus, click, key and type; diff.c the image comparisons;
 * wait.c the waits). The dispatcher (broker/core/pg_dispatch.c) has already
 * checked the arguments against the declaration, so a handler reads typed,
 * in-range values from `a` and checks only what spans several arguments.
 * A handler includes this header and no other handler's file.
 *
 * The services carry the prefix of their file in broker/core/: pg_call_
 * (pg_call.c, and the few in other files that take a pg_call first),
 * pg_capture_ (pg_capture.c, pg_popups.c), pg_receipt_ (pg_receipt.c),
 * pg_stable_ (pg_stable.c), pg_find_ (pg_find.c), pg_env_ (pg_env.c),
 * pg_rules_ (pg_candidate.c), pg_compare_coarse_ (pg_compare_coarse.c).
 * Never: a service opens a path a client named, or trusts a window's own word
 * about who owns it.
 */
#ifndef PG_CALL_H
#define PG_CALL_H

#include "pg_accept.h"
#include "pg_broker.h"
#include "pg_design.h"
#include "pg_disclose.h"
#include "pg_identity.h"
#include "pg_img.h"
#include "pg_regex.h"
#include "pg_template.h"
#include "pg_window_json.h" /* pg_window_json: the window shape of every result */

/* What a handler tells the audit log about its request (all optional). */
typedef struct {
    bool has_window;
    uint64_t window_id;
    char window_title[256];
    char window_class[128];
    char image_sha256[65];
    const char *kind;           /* "token", "analyze", "ocr", "release", "input", ... */
    char token[PG_TOKEN_LEN + 1]; /* recorded as a prefix only */
    char endpoint[64];
    char mode[32];
    char request_id[32];
    char detail[256];
} pg_call_audit;

struct pg_call {
    pg_broker *b;
    const pg_peer *peer;
    const pg_request *req;
    const pg_opdecl *op;         /* the operation's declaration (common/pg_ops.def) */
    const void *args;            /* its checked arguments: a pg_args_<op> */
    const pg_msg *msg;           /* request attachments */
    pg_conn *conn;               /* the client's connection, or NULL (tests): long operations
                                    stop when the client hung up (pg_call_client_gone) */
    pg_platform *plat;           /* the display connection the handler holds now (pg_call_plat_*) */
    int plat_slot;               /* which one: a reader, or -1 for the main connection */
    cJSON *result;               /* set by the handler on success */
    cJSON *details;              /* optional structured detail on failure */
    pg_blob reply_att;           /* optional bytes released with the reply (owned) */
    pg_policy *policy;           /* the policy this request runs under (a reference) */
    const pg_policy_view *view;  /* the peer's effective policy, set by admission */
    char created_token[PG_TOKEN_LEN + 1]; /* dropped again if the audit write fails */
    pg_call_audit audit;
    /* The sources of protected pixels this request read (pg_disclose.h): what
     * its numeric answers are charged to. */
    char sources[4][48];
    size_t n_sources;
    /* The 16x16 tile contents of those pixels the answer is about (the
     * ledger's keys), and how many charges the request made so far (each
     * charge of a request is a question of its own). */
    pg_disclose_tile *tiles;
    size_t n_tiles, cap_tiles;
    unsigned n_charges;
    bool tiles_failed; /* a digest could not be made: charges fail closed */
    uint64_t pixels_held; /* of the broker's decoded-pixel budget, given back after the handler */
    double bits; /* charged so far, for the audit record */
    /* Record, then act (PG_OPF_EFFECT): "SEQ:HASH" of the record of intent
     * written right before the effect (pg_dispatch_intent); the outcome
     * record names it. Empty: no intent written (yet). */
    char intent[96];
    bool intent_refused; /* it could not be written: nothing was done */
    /* pg_dispatch_begin: the operation is known and the peer admitted (or not). */
    bool begun;
    /* Admitted only to end a hold (key-up --all): root or an approver who is
     * not one of the policy's clients. A person can always let go of keys an
     * agent holds down; nothing else is open to them this way. */
    bool person_only;
    pg_err admit_rc;
};

/* Between two polls of a long operation: PG_E_UNREACHABLE (filled in e) when
 * the client closed its connection (a cancelled MCP call, a killed CLI), so
 * the broker stops capturing for nobody; PG_OK otherwise. */
pg_err pg_call_client_gone(const pg_call *c, pg_error *e);

/* ---- the handlers, one per declaration ---- */
#define PG_OP(id, ...) pg_err pg_op_##id(pg_call *c, const pg_args_##id *a, pg_error *e);
#define PG_ARG(op, name, type, ...)
#define PG_END(id)
#include "pg_ops.def"
#undef PG_OP
#undef PG_ARG
#undef PG_END

/* ---- pg_call.c: targets, images, tokens, audit fields, JSON shapes ---- */

/* The window an operation names (PG_TARGET_ARGS in pg_ops.def). */
typedef struct {
    const char *window; /* regex or NULL */
    bool has_id;
    uint64_t id;
    bool first;
    bool has_generation; /* the window must still be of this generation (its owner's start) */
    int64_t generation;
} pg_target;
#define PG_TARGET_OF(a) \
    ((pg_target){(a)->window, (a)->has_id, (uint64_t)(a)->id, (a)->first, (a)->has_generation, (a)->generation})

/* The display for this request, locked, in c->plat: pg_call_plat_input
 * takes the main connection (input: one input lock keeps every key and
 * click in order), pg_call_plat_read a reader (captures and listing run
 * beside input and each other). PG_E_UNREACHABLE when there is no display.
 * pg_call_plat_done releases whichever is held. */
pg_err pg_call_plat_input(pg_call *c, pg_error *e);
pg_err pg_call_plat_read(pg_call *c, pg_error *e);
void pg_call_plat_done(pg_call *c);

/* Resolves the target among the listed windows (regex over title, class and
 * instance; case-insensitive POSIX ERE; visible windows only; or the id).
 * Caller holds the platform lock. Ambiguity: PG_E_USAGE with
 * c->details = {"candidates":[...]}. */
pg_err pg_call_resolve_window(pg_call *c, const pg_target *t, pg_window *out, pg_error *e);
/* A window's generation: its owner's start time in ms (0 unknown). Results
 * carry it beside the decimal id ("generation"), and a target that names a
 * generation (--generation) finds only that window, not a new program that
 * the server gave the same id. */
int64_t pg_call_window_generation(const pg_window *w);
/* The window in every result, and the one place that decides what of it
 * the caller sees: pg_window_json and its generation; a hidden window
 * (pg_call_window_hidden) with title, class and instance null and
 * "private": true, and "other_user": true when it is another user's. all,
 * n: the list w was found in, or NULL (a dialog's parent is then looked up
 * afresh). A handler never prints a window any other way. */
cJSON *pg_call_window_json(pg_call *c, const pg_window *w, const pg_window *all, size_t n);
/* How the broker reaches the display, for replies' "via": "session-helper"
 * when through the desktop user's helper (broker/platform/helper), else "direct". */
const char *pg_call_display_source(const pg_call *c);
/* Is w another user's window to this caller (docs/privacy.md): not a
 * shared surface of the desktop (pg_window.shared), not the caller's by the
 * input rule's test (pg_identity_input_target), and not of an account the
 * policy's capture.other_users names; a window whose owner cannot be
 * established counts as another user's. Such a window is private, refused
 * for window captures and blacked out in screen captures. */
bool pg_call_window_foreign(pg_call *c, const pg_window *w);
/* Is the window's title private to this caller: denied by the policy, or
 * another user's (pg_call_window_foreign)? Private windows are listed
 * without title, class and instance, and no --window pattern matches them
 * (only --id names them), so a pattern cannot probe their titles. */
bool pg_call_window_private(pg_call *c, const pg_window *w, const pg_window *all, size_t n);
/* The same for a window printed without its list (all NULL): a dialog or
 * popup of a denied window is hidden too (the list is read to know). */
bool pg_call_window_hidden(pg_call *c, const pg_window *w, const pg_window *all, size_t n);
/* Does an agent's compiled pattern match the window's title, class or
 * instance (their first 1024 bytes: bounded cost whatever the pattern)? */
bool pg_call_pattern_matches(const regex_t *re, const pg_window *w);
/* Does the policy never capture w: its own title, class or instance match a
 * deny rule, its title was cut (it might have), or it is a dialog or popup of
 * a window that is denied (its parent, looked up in all[0..n))? */
bool pg_call_window_denied(pg_call *c, const pg_window *w, const pg_window *all, size_t n);
/* The same against the platform's list now: PG_E_POLICY (naming the window
 * by id only) when w is denied. Caller holds the platform lock. */
pg_err pg_call_check_denied(pg_call *c, const pg_window *w, pg_error *e);
/* Record, then act: the record of intent of an operation with an effect
 * (PG_OPF_EFFECT), written and on disk before the handler acts; call it right
 * before the platform or relay call, after c->audit says what and where.
 * Returns an error (nothing may be done then). See pg_dispatch_intent. */
pg_err pg_call_intent(pg_call *c, pg_error *e);
/* Records the target window / a token (prefix, digest, source) for the audit. */
void pg_call_audit_window(pg_call *c, const pg_window *w);
void pg_call_audit_token(pg_call *c, const pg_tok_meta *m);

/* Loads an image argument: a token of the caller's, or bytes the client sent
 * (decoded under the caller's image limits). label names it for messages
 * ("cap:AbCd..." or "file #0"); meta (may be NULL) gets a token's metadata
 * and *is_token says which it was (may be NULL). */
pg_err pg_call_image(pg_call *c, const pg_image_ref *ref, pg_img **out, char label[64], pg_tok_meta *meta,
                     bool *is_token, pg_error *e);
pg_err pg_call_token_image(pg_call *c, const char *token, pg_img **out, char label[64], pg_tok_meta *meta,
                           pg_error *e);
/* Two image arguments at once: when both are files, the second is decoded on
 * a thread of its own while the first decodes here (two PNG decodes are most
 * of a comparison's time). On error neither image is returned. */
pg_err pg_call_image_pair(pg_call *c, const pg_image_ref *ra, const pg_image_ref *rb, pg_img *img[2],
                          char label[2][64], pg_tok_meta meta[2], bool is_token[2], pg_error *e);
/* An argument rectangle in image coordinates (the declaration keeps x, y >= 0). */
pg_img_rect pg_call_img_rect(const pg_rect *r);

/* Stores img (always consumed) as a token of the caller under its policy's
 * TTL and quota; fills m's owner, size, token, times and digest. */
pg_err pg_call_store_image(pg_call *c, pg_img *img, pg_tok_meta *m, pg_error *e);
/* The same, for pixels whose SHA-256 is already known (the backend's, computed
 * while converting: pg_capture.sha256); NULL: the store hashes them. */
pg_err pg_call_store_hashed(pg_call *c, pg_img *img, const uint8_t *sha256, pg_tok_meta *m, pg_error *e);
/* Stores a derived image (takes img) as a new token of the caller under the
 * same policy as captures; adds its token to into[field]. */
pg_err pg_call_derived_token(pg_call *c, pg_img *img, const char *method, cJSON *into, const char *field,
                             pg_error *e);

/* The window a capture token is of, in its metadata: id, title, class, and
 * the account its program runs as now (for the approver; "" unknown). */
void pg_call_meta_window(pg_tok_meta *m, const pg_window *w);
/* "region": {x, y, w, h} of a token's capture into `into`, when it has one. */
void pg_call_region_json(const pg_tok_meta *m, cJSON *into);
/* A token's metadata as the client sees it: its digest is the SHA-256 when
 * the pixels are the caller's to have, else keyed (pg_disclose.h). */
cJSON *pg_call_token_json(pg_call *c, const pg_tok_meta *m);

/* ---- disclosure (pg_disclose.h): answers about protected pixels ---- */

/* Did this request read pixels the caller may not have? */
bool pg_call_protected(const pg_call *c);
/* Records a source of protected pixels the request read ("window:ID", "screen"). */
void pg_call_source(pg_call *c, const char *source);
/* Records the tile contents of protected pixels the answer will be about:
 * the cells of img that meet r (NULL: all of it), on the grid of its source
 * when o says where a crop sits in it (NULL: img's own grid). Nothing when
 * the caller may have the pixels. Every read of a token or a capture does it
 * already; a handler that makes pixels of its own (a stored snapshot) adds
 * them. */
void pg_call_tiles(pg_call *c, const pg_img *img, const pg_img_rect *r, const pg_disclose_origin *o);
/* Where a token's pixels sit in their source, when they are an unscaled crop
 * of it (o filled, true); false for a whole capture or a scaled one. */
bool pg_call_tiles_origin(const pg_tok_meta *m, pg_disclose_origin *o);
/* Frees what pg_call_tiles kept (the dispatcher, after the handler). */
void pg_call_tiles_free(pg_call *c);
/* Charges an answer's bits to the tile contents the request read (nothing
 * when it read no protected pixels; a question asked before about the same
 * contents charges nothing again); PG_E_POLICY when that would pass a
 * budget, with c->details saying the balance and when enough is back. */
pg_err pg_call_disclose(pg_call *c, double bits, pg_error *e);
/* PG_E_POLICY when the request read protected pixels and its answer would be
 * about fewer than the policy's min_area of them. */
pg_err pg_call_area(pg_call *c, uint64_t area, const char *what, pg_error *e);
/* A token's digest as the caller may see it into out[65]; *keyed says which. */
void pg_call_digest(pg_call *c, const pg_tok_meta *m, char out[65], bool *keyed);
/* ISO 8601 UTC from unix ms into out[40]. */
void pg_iso_time(int64_t ms, char out[40]);
/* Copies src into dst[cap], cutting at a UTF-8 character boundary. */
void pg_copy_utf8(char *dst, size_t cap, const char *src);
cJSON *pg_rect_json(const pg_img_rect *r);

/* Finishes a check: on pass the measurements are the result; otherwise they
 * travel as error details (printed on stdout by the client) with
 * PG_E_ASSERT. fmt takes two doubles. */
pg_err pg_call_verdict(pg_call *c, cJSON *measured, bool pass, pg_error *e, const char *tip, const char *fmt,
                       double v1, double v2);

/* ---- pg_capture.c, pg_popups.c: live pixels of a window, under the deny rules ---- */

/* PG_E_POLICY when the policy never captures this window. */
pg_err pg_capture_check_allowed(pg_call *c, const pg_window *w, pg_error *e);
/* Captures the known window w, resolved (and checked) by the caller just
 * before under the same lock, under the deny rules checked at the moment of
 * use: after the pixels are read, w is listed afresh and checked again (a
 * capture of a window whose title turned private before or while it was
 * read is discarded); w is updated. A caller that waited after resolving w
 * refreshes it first (pg_capture_refresh). The caller holds the platform lock. */
pg_err pg_capture_checked(pg_call *c, pg_window *w, const pg_rect *region, pg_capture *cap, pg_error *e);
/* w as the platform lists it now, under the deny rules (its own and its
 * owner's): after anything that waited between resolving w and capturing. */
pg_err pg_capture_refresh(pg_call *c, pg_window *w, pg_error *e);
/* The same as an image; method (may be NULL) gets the path that ran. */
pg_err pg_capture_img_locked(pg_call *c, pg_window *w, const pg_rect *region, pg_img **img, char method[32],
                             pg_error *e);
/* Captures the screen (or a region of it) with every visible denied window
 * blacked out in the coordinates of the capture's first pixel; fails closed
 * (refused) when the window list cannot be read. *redacted gets how many
 * windows were blacked out. The caller holds the platform lock. */
/* snapshot --with-popups (platform lock held): w and the popups and dialogs
 * of its program over it (at most PG_POPUPS_MAX, each checked as its own
 * capture), painted in stacking order onto the rectangle that holds them
 * all, black between them; cap->origin_x/y is that rectangle's screen
 * position and method ends in "+popups" (such a token maps to no one
 * window: --in refuses it). *popups: [{id, kind, x, y, width, height}] in
 * the image's pixels (owned by the caller, also on failure). */
#define PG_POPUPS_MAX 8
#define PG_POPUPS_MAX_DIM 8192
pg_err pg_capture_with_popups(pg_call *c, pg_window *w, pg_capture *cap, cJSON **popups, pg_error *e);
pg_err pg_capture_screen_locked(pg_call *c, const pg_rect *region, pg_capture *cap, unsigned *redacted,
                                pg_error *e);
/* Captures a window as an image under the platform lock. t non-NULL: resolve
 * w from it first (and record it for the audit); NULL: w is known. */
pg_err pg_capture_window_img(pg_call *c, const pg_target *t, pg_window *w, const pg_rect *region, pg_img **img,
                             char method[32], pg_error *e);
/* Captures the target t (resolved here, recorded for the audit) and stores
 * the frame as a token of the caller's, as snapshot would: *img gets the
 * pixels (the caller frees them), m the token's metadata; c->created_token
 * and the audit name it. For ops that take --window where a token would do. */
pg_err pg_capture_token(pg_call *c, const pg_target *t, pg_img **img, pg_tok_meta *m, pg_error *e);

/* ---- pg_receipt.c: --expect-change, an input's visible effect ---- */

typedef struct {
    bool on;              /* --expect-change given */
    const pg_rect *region; /* window-relative, or NULL: the whole window */
    double timeout_s;
    pg_img *before;        /* the frame before the input (owned) */
    char method[32];
} pg_receipt;
#define PG_RECEIPT_OF(a) ((pg_receipt){(a)->expect_change, (a)->has_region ? &(a)->region : NULL, (a)->timeout, NULL, ""})

/* Captures the frame before the input (platform lock held); --region
 * without --expect-change is PG_E_USAGE. Nothing when not on. */
pg_err pg_receipt_before(pg_call *c, pg_receipt *r, const pg_window *w, pg_error *e);
/* After the input (lock released): waits for the change, adds "effect" to
 * result, or PG_E_ASSERT "no visible effect" with the effect in c->details. */
pg_err pg_receipt_after(pg_call *c, pg_receipt *r, pg_window *w, cJSON *result, pg_error *e);
void pg_receipt_fini(pg_receipt *r);

/* ---- pg_compare_coarse.c: a design comparison about protected pixels ---- */

/* The result as the caller may see it when prot[0] (REF) or prot[1] (CAND)
 * holds pixels it may not have: the engine's shape, quantised
 * (docs/threat-model.md, "compare"); *bits gets what it can carry. NULL
 * when out of memory. */
cJSON *pg_compare_coarse_json(const pg_design_result *r, const bool prot[2], double *bits);
/* ---- pg_stable.c: capture until the window holds still ---- */

#define PG_STABLE_MAX_CYCLE 4 /* longest repeating cycle recognised (a blinking caret is 2) */

typedef struct {
    int64_t frames;     /* captures in a row that must agree, >= 2 */
    double interval_s;  /* between captures */
    double timeout_s;   /* no capture starts after this */
    int64_t max_tries;  /* 0: only the timeout bounds the captures */
    bool exact;         /* agree = identical pixels (compared, not hashed); false: dHash within
                           PG_FINGERPRINT_DHASH_SAME */
    int max_cycle;      /* 0: off; else also settled when the last captures repeat a cycle of
                           period 2..max_cycle whose changes fit a caret's box (0.5 % of the
                           frame, at least 256 px): a blinking text cursor */
} pg_stable_opts;

typedef struct {
    bool stable;
    int64_t observed;   /* captures taken */
    int cycle;          /* 0, or the period of the cycle recognised */
    pg_img_rect blink;  /* with cycle: the box of the pixels that change within it */
    uint64_t dhash;     /* of the last frame (when !exact) */
    pg_img *last;       /* the last frame; the caller owns it (NULL on error) */
    char method[32];
    pg_window window;
    double elapsed_s;
} pg_stable_result;

/* Defaults: 2 identical frames, 0.1 s apart, 10 s, no cycles. */
void pg_stable_opts_init(pg_stable_opts *o);
/* Captures the target (resolved on the first capture, recorded for the
 * audit) until it settles, the tries or the time run out. PG_OK with
 * res->stable saying which; errors of the capture otherwise. */
pg_err pg_stable_capture(pg_call *c, const pg_target *t, const pg_rect *region, const pg_stable_opts *o,
                         pg_stable_result *res, pg_error *e);

/* ---- pg_env.c, pg_candidate.c: environments, frozen rules, candidates (baseline and accept) ---- */

/* What changes pixels, so a baseline is used only where it was made
 * (docs/acceptance.md "Environments"). */
typedef struct {
    char platform[16];  /* "linux", "windows" */
    char backend[32];   /* the platform backend: "x11", "win32", "fake" */
    uint32_t depth;     /* screen depth in bits from the backend (X11 root depth); 0 unknown */
    uint32_t scale_pct; /* the window's scale (Win32 DPI / 96); X11 has none: 100 */
    char toolkit[128];  /* the window's class (WM_CLASS class: "Tk", "Gtk..."); "*" any (imports) */
    char fonts[17];     /* fingerprint of the installed font files */
    char key[17];       /* hex of the SHA-256 of all of the above: the store's directory name */
} pg_env;

pg_err pg_call_env(pg_call *c, const char *toolkit, uint32_t dpi, pg_env *out, pg_error *e);
cJSON *pg_env_json(const pg_env *v);
bool pg_env_parse(const cJSON *j, pg_env *out);
/* v with toolkit "*" (the key an imported baseline is stored under). */
void pg_env_any_toolkit(const pg_env *v, pg_env *out);
/* The fields in which have differs from want, for the blocked reason. */
void pg_env_diff(const pg_env *want, const pg_env *have, char *out, size_t n);

/* Rules as frozen with a baseline: the accept rules and their storage. */
typedef struct {
    pg_accept_rules r; /* r.masks and r.zones point into the arrays below */
    pg_img_rect masks[PG_LIST_MAX];
    pg_accept_zone zones[PG_ACCEPT_MAX_ZONES];
} pg_rules;

pg_err pg_rules_from(pg_rules *r, double threshold, double max_ratio, int metric, bool include_aa,
                     const pg_rect_list *masks, const pg_string_list *zones, int64_t shift, pg_error *e);
cJSON *pg_rules_json(const pg_rules *r);
pg_err pg_rules_parse(const cJSON *j, pg_rules *r, pg_error *e);
/* The digest an approver approves: case, variant, environment key, pixel
 * SHA-256 and rules, under a version tag. */
void pg_baseline_digest(const char *case_id, const char *variant, const char *env_key_hex, const char *image_sha,
                        const cJSON *rules, char out[65]);
/* Whose baselines a case of the caller's means, into owner: "u<uid>" (the
 * caller's own case), or "shared" when the policy shares the case
 * (baselines.shared_cases) and names the caller among its owners;
 * PG_E_POLICY when it shares it with others only. A case is never
 * everyone's: another user's case of the same name is another case. */
#define PG_CASE_OWNER_MAX 24
pg_err pg_call_case_owner(pg_call *c, const char *case_id, char owner[PG_CASE_OWNER_MAX], pg_error *e);
/* The owner a candidate or baseline manifest files under: its "owner", or
 * "u<uid>" of its preparer for one made before cases had owners. */
void pg_call_manifest_owner(const cJSON *m, char owner[PG_CASE_OWNER_MAX]);
/* May the caller see manifest m (a candidate or baseline)? Approvers see
 * every one; a client its own cases' and the shared cases' it owns. */
bool pg_call_manifest_visible(pg_call *c, const cJSON *m, bool approver);
/* Stores img as a candidate of the caller's case (pg_call_case_owner);
 * *out = what the caller may see of it. */
pg_err pg_call_candidate(pg_call *c, const char *case_id, const char *variant, const pg_env *env, const pg_rules *r,
                         const pg_img *img, const char *source, const char *kind, cJSON **out, pg_error *e);
/* ---- who the caller is to the policy (pg_call.c) ---- */

/* The caller as the policy sees it: groups from the connection into buf
 * (groups has room for 64). */
void pg_call_principal(pg_call *c, pg_principal *p, const char **groups, char *buf, size_t n);
/* May the caller approve what (uid, user) prepared? PG_E_POLICY saying why not. */
pg_err pg_call_may_approve(pg_call *c, uint32_t uid, const char *user, pg_error *e);
/* Is the caller an approver (policy approvers or root)? */
bool pg_call_is_approver(pg_call *c);

/* ---- small helpers (pg_call.c) ---- */

/* o[k] as a string into dst[n] ("" when absent or not a string). */
void pg_json_str(const cJSON *o, const char *k, char *dst, size_t n);
/* o[k] as a number, def when absent or not a number. */
double pg_json_num(const cJSON *o, const char *k, double def);
/* The SHA-256 of img's pixels in hex (zeros when it cannot be computed). */
void pg_call_image_sha256(const pg_img *img, char out[65]);

/* ---- pg_find.c: finding things in an image (templates, text, controls) ---- */

/* The template image in img; *out = {found, threshold, best[, matches]}. */
pg_err pg_find_template(pg_call *c, const pg_img *img, const pg_image_ref *tmpl, double threshold, bool all,
                        const pg_img_rect *region, pg_template_result *res, cJSON **out, pg_error *e);
/* OCR img and look for phrase; *out = {found, expect, exact, match{box,center}, words, text_read};
 * box filled when found. */
pg_err pg_find_text(pg_call *c, const pg_img *img, const pg_img_rect *region, const char *phrase, bool exact,
                    pg_img_rect *box, cJSON **out, pg_error *e);
/* The same with the options of assert text: normalize (NFKC + case folding),
 * field mode, a language (NULL: the policy's default) and an edit distance
 * that still counts as found; with normalize or max_distance *out also
 * carries edit_distance, similarity and closest. */
typedef struct {
    bool exact, normalize, field;
    const char *lang;
    size_t max_distance;
} pg_find_text_opts;
pg_err pg_find_text_ex(pg_call *c, const pg_img *img, const pg_img_rect *region, const char *phrase,
                       const pg_find_text_opts *fo, pg_img_rect *box, cJSON **out, pg_error *e);

/* ---- pg_find.c: the OCR engines (one per language, shared under a lock) ---- */
struct pg_ocr;
/* The language spec a request runs with (lang NULL: the policy's default);
 * PG_E_POLICY when OCR is off or the language is not allowed. */
pg_err pg_call_ocr_lang(pg_call *c, const char *lang, char out[128], pg_error *e);
/* Runs fn with the engine of lang, under the engines' lock. */
typedef pg_err (*pg_call_ocr_fn)(struct pg_ocr *o, void *ctx, pg_error *e);
pg_err pg_call_ocr_with(pg_call *c, const char *lang, pg_call_ocr_fn fn, void *ctx, pg_error *e);

/* ---- pg_find.c: controls named relative to the token layout ran on ---- */
/* Control n (0-based, as layout listed it) of token: its box's centre in the
 * token's source window's coordinates into *x, *y, the window id into *wid,
 * its kind into *kind (may be NULL). PG_E_NOTFOUND when there is no such
 * control; PG_E_USAGE when the token is not a window's capture. */
pg_err pg_call_control_point(pg_call *c, const char *token, int64_t n, const char *lang, uint64_t *wid,
                               int64_t *x, int64_t *y, int *kind, pg_error *e);

#endif
