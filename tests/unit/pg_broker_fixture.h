/* SPDX-License-Identifier: MIT */
/* pg_broker_fixture.h - a whole broker in the test process: the fake
 * desktop (broker/platform/fake), a policy from a JSON string, a private
 * temporary state dir (spool and audit log), and a peer as the kernel would
 * report it. Requests go through pg_dispatch exactly as the server hands
 * them over: admission, the declaration's argument check, the handler, the
 * audit record before the reply. No root, no X, no Wine. */
#ifndef PG_BROKER_FIXTURE_H
#define PG_BROKER_FIXTURE_H

#include <cJSON.h>

#include "pg_dispatch.h"
#include "pg_fake.h"

typedef struct {
    pg_broker b;
    pg_peer peer;          /* who calls: uid = this process's, user "agent" */
    pg_fake *fake;         /* the desktop (b.plat) */
    char dir[256];         /* state dir; spool under it */
    char audit_path[300];
    int64_t foreign_pid;   /* see pg_fx_foreign_pid; 0 until asked */
    pg_conn *conn;         /* the client connection calls see (pg_call.conn); NULL unless a test sets it */
} pg_fx;

/* Starts a broker under policy_json (NULL: agent admitted, analyze-only, one
 * denied pattern "^secret vault$"); @SELF@ in it stands for the account the
 * test runs as, which owns the fake's windows of pid getpid() (a test that
 * calls as another uid names it in capture.other_users). 0 on success;
 * prints why otherwise. */
int pg_fx_init(pg_fx *fx, const char *policy_json);
void pg_fx_fini(pg_fx *fx);

typedef struct {
    pg_err rc;
    pg_error e;
    cJSON *result;  /* owned; NULL on error */
    cJSON *details; /* owned; may be NULL */
    pg_blob reply;  /* released bytes (owned) */
} pg_fx_reply;

/* One request: op, its args as JSON text (NULL = none), and up to two
 * attachments (NULL = none). */
pg_err pg_fx_call(pg_fx *fx, const char *op, const char *args_json, const pg_blob *att, size_t n_att,
                  pg_fx_reply *out);
void pg_fx_reply_fini(pg_fx_reply *r);
/* The result's (or on failure the details') string field, or NULL. */
const char *pg_fx_str(const pg_fx_reply *r, const char *field);
double pg_fx_num(const pg_fx_reply *r, const char *field);
/* Every audit record so far, as a JSON array (owned). */
cJSON *pg_fx_audit(pg_fx *fx);
/* How many audit records have op and outcome ("OK", "POLICY_REFUSED", ...). */
int pg_fx_audit_count(pg_fx *fx, const char *op, const char *outcome);

/* A process owned by another uid (a window owner that is "not yours"):
 * root starts a child as nobody that dies with the test; anyone else gets
 * init (pid 1). -1 if none could be had. */
int64_t pg_fx_foreign_pid(pg_fx *fx);

/* The account process pid runs as, into out; false when unknown. */
bool pg_fx_pid_user(int64_t pid, char out[64]);

/* A w x h window of seeded noise (the same pixels every run) at 0,0, of
 * this process: the attack tests' target. *px_out: its pixels (malloc'd,
 * the caller's), what a rebuild is scored against. */
uint64_t pg_fx_noise_window(pg_fx *fx, uint32_t w, uint32_t h, uint8_t **px_out);

/* A snapshot of window id as a token (into tok[32]); 0 on success. */
int pg_fx_snapshot(pg_fx *fx, uint64_t id, char tok[32]);

#endif
