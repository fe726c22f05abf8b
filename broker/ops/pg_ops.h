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

extern const pg_arg_spec pg_op_windows_args[1];
extern const pg_arg_spec pg_op_snapshot_args[7];
extern const pg_arg_spec pg_op_info_args[1];
extern const pg_arg_spec pg_op_target_args[3];
extern const pg_arg_spec pg_op_click_args[7];
extern const pg_arg_spec pg_op_key_args[4];
extern const pg_arg_spec pg_op_type_args[4];
extern const pg_arg_spec pg_op_release_args[1];
extern const pg_arg_spec pg_op_approve_args[1];
extern const pg_arg_spec pg_op_analyze_args[3];
extern const pg_arg_spec pg_op_judge_args[4];

/* ---- helpers shared by handlers (op_common.c) ---- */

/* Resolves the target window from args "window" (regex over title, class and
 * instance; case-insensitive POSIX ERE, visible windows only), "id" or
 * "first". Caller holds the platform lock. On ambiguity: PG_E_USAGE with
 * c->details = {"candidates":[...]}. */
pg_err pg_resolve_window(pg_call *c, pg_window *out, pg_error *e);
cJSON *pg_window_json(const pg_window *w);
/* Records the target window in the call's audit record. */
void pg_audit_window_set(pg_call *c, const pg_window *w);
/* Reads args.region {"x","y","w","h"}; *has = false when absent. */
pg_err pg_region_arg(const cJSON *args, const char *name, pg_rect *r, bool *has, pg_error *e);
/* Copies src into dst[cap], cutting at a UTF-8 character boundary. */
void pg_copy_utf8(char *dst, size_t cap, const char *src);
/* A token's metadata as the client sees it (op_info.c). */
cJSON *pg_tok_meta_json(const pg_tok_meta *m);
/* ISO 8601 UTC from unix ms into out[40]. */
void pg_iso_time(int64_t ms, char out[40]);

#endif
