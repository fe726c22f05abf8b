/* pg_ops.h - handlers for every broker operation and their argument schemas.
 * One handler per operation; the table that binds names to handlers is in
 * broker/pg_dispatch.c. Shared helpers (window resolution, JSON shapes) are in
 * op_common.c. */
#ifndef PG_OPS_H
#define PG_OPS_H

#include "../pg_broker.h"

pg_err pg_op_ping(pg_call *c, pg_error *e);
pg_err pg_op_caps(pg_call *c, pg_error *e);
pg_err pg_op_windows(pg_call *c, pg_error *e);
pg_err pg_op_snapshot(pg_call *c, pg_error *e);
pg_err pg_op_info(pg_call *c, pg_error *e);
pg_err pg_op_focus(pg_call *c, pg_error *e);
pg_err pg_op_click(pg_call *c, pg_error *e);
pg_err pg_op_key(pg_call *c, pg_error *e);
pg_err pg_op_type(pg_call *c, pg_error *e);
pg_err pg_op_release(pg_call *c, pg_error *e);
pg_err pg_op_approve(pg_call *c, pg_error *e);
pg_err pg_op_analyze(pg_call *c, pg_error *e);
pg_err pg_op_judge(pg_call *c, pg_error *e);
pg_err pg_op_hash(pg_call *c, pg_error *e);
pg_err pg_op_diff(pg_call *c, pg_error *e);
pg_err pg_op_assert(pg_call *c, pg_error *e);
pg_err pg_op_ocr(pg_call *c, pg_error *e);
pg_err pg_op_wait_stable(pg_call *c, pg_error *e);
pg_err pg_op_wait_for(pg_call *c, pg_error *e);

extern const pg_arg_spec pg_op_windows_args[1];
extern const pg_arg_spec pg_op_snapshot_args[7];
extern const pg_arg_spec pg_op_info_args[1];
extern const pg_arg_spec pg_op_target_args[3];
extern const pg_arg_spec pg_op_click_args[11];
extern const pg_arg_spec pg_op_key_args[4];
extern const pg_arg_spec pg_op_type_args[4];
extern const pg_arg_spec pg_op_release_args[1];
extern const pg_arg_spec pg_op_approve_args[1];
extern const pg_arg_spec pg_op_analyze_args[3];
extern const pg_arg_spec pg_op_judge_args[4];
extern const pg_arg_spec pg_op_hash_args[3];
extern const pg_arg_spec pg_op_diff_args[7];
extern const pg_arg_spec pg_op_assert_args[14];
extern const pg_arg_spec pg_op_ocr_args[2];
extern const pg_arg_spec pg_op_wait_stable_args[7];
extern const pg_arg_spec pg_op_wait_for_args[8];

/* ---- helpers shared by handlers (op_common.c) ---- */

/* Resolves the target window from args "window" (regex over title, class and
 * instance; case-insensitive POSIX ERE, visible windows only), "id" or
 * "first". Caller holds the platform lock. On ambiguity: PG_E_USAGE with
 * c->details = {"candidates":[...]}. */
pg_err pg_resolve_window(pg_call *c, pg_window *out, pg_error *e);
cJSON *pg_window_json(const pg_window *w);
/* Records a token (as a prefix), its image digest and source window. */
void pg_audit_token_set(pg_call *c, const pg_tok_meta *m);
/* Records the target window in the call's audit record. */
void pg_audit_window_set(pg_call *c, const pg_window *w);
/* Reads args.region {"x","y","w","h"}; *has = false when absent. */
pg_err pg_region_arg(const cJSON *args, const char *name, pg_rect *r, bool *has, pg_error *e);
/* Copies src into dst[cap], cutting at a UTF-8 character boundary. */
void pg_copy_utf8(char *dst, size_t cap, const char *src);
/* ---- image arguments (op_image.c) ---- */
#include "pg_img.h"
/* Loads image argument `name` ({"token"} or {"attachment"}); label names it
 * for messages ("cap:AbCd..." or "file #0"). */
pg_err pg_image_arg(pg_call *c, const char *name, pg_img **out, char label[64], pg_error *e);
/* Loads one of the caller's tokens as an image; meta (may be NULL) gets its metadata. */
pg_err pg_image_from_token(pg_call *c, const char *token, pg_img **out, char label[64], pg_tok_meta *meta,
                           pg_error *e);
/* Reads a region argument as an image rectangle (x, y >= 0). */
pg_err pg_rect_arg(const cJSON *args, const char *name, pg_img_rect *r, bool *has, pg_error *e);
/* Stores img (always consumed) as a token of the caller under its policy's
 * TTL and quota; fills m's owner, size, token, times and digest. */
pg_err pg_store_image(pg_call *c, pg_img *img, pg_tok_meta *m, pg_error *e);
/* Stores a derived image (takes img) as a new token of the caller under the
 * same policy as captures; adds its token to into[field]. */
pg_err pg_derived_token(pg_call *c, pg_img *img, const char *method, cJSON *into, const char *field, pg_error *e);

/* ---- finding things (op_assert.c, op_ocr.c) ---- */
#include "pg_template.h"
/* Template from args.template in img; *out = {found, best, ...}. */
pg_err pg_template_find(pg_call *c, const pg_img *img, const pg_img_rect *region, pg_tmpl_result *res, cJSON **out,
                        pg_error *e);
/* OCR img and look for phrase; *out = {found, match{box,center}, words, text_read}; box filled when found. */
pg_err pg_find_text(pg_call *c, const pg_img *img, const pg_img_rect *region, const char *phrase, bool exact,
                    pg_img_rect *box, cJSON **out, pg_error *e);
pg_err pg_assert_text(pg_call *c, pg_error *e);
/* PG_E_POLICY when the policy never captures this window (op_snapshot.c). */
pg_err pg_check_capture_allowed(pg_call *c, const pg_window *w, pg_error *e);
/* Captures the known window w as an image, checking the policy first; the
 * caller holds the platform lock. method (may be NULL) gets the path that ran. */
pg_err pg_capture_img_locked(pg_call *c, const pg_window *w, const pg_rect *region, pg_img **img, char method[32],
                             pg_error *e);
/* Captures a window as an image (op_wait.c). resolve: find w from the args
 * first (and check the policy); otherwise w is known. Takes the platform lock. */
pg_err pg_capture_window_img(pg_call *c, bool resolve, pg_window *w, const pg_rect *region, pg_img **img,
                             char method[32], pg_error *e);

/* A token's metadata as the client sees it (op_info.c). */
cJSON *pg_tok_meta_json(const pg_tok_meta *m);
/* ISO 8601 UTC from unix ms into out[40]. */
void pg_iso_time(int64_t ms, char out[40]);

#endif
