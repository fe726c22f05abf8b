/* pg_broker.h - the broker's shared state and the operation table.
 *
 * One pg_broker lives for the process. Requests arrive on worker threads; each
 * becomes a pg_call handed to the handler registered for its op in
 * pg_ops_table (broker/pg_dispatch.c). Handlers fill call->result (a cJSON
 * object) or return an error (with optional call->details). The platform
 * handle is not thread-safe: handlers take plat_lock around every platform
 * call (pg_broker_plat_lock/unlock).
 * Never: a handler opens a path named by a client, or takes identity from the
 * request (call->peer comes from the kernel).
 */
#ifndef PG_BROKER_H
#define PG_BROKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cJSON.h>

#include "pg_platform.h"
#include "pg_proto.h"
#include "pg_token.h"
#include "pg_approval.h"

typedef struct pg_audit pg_audit;
typedef struct pg_judge_cache pg_judge_cache;
#include "pg_policy.h"

typedef struct {
    uid_t uid;
    gid_t gid;
    pid_t pid;
    char user[64];   /* from the passwd database, or the uid in decimal */
    char comm[64];   /* /proc/PID/comm */
    char exe[256];   /* /proc/PID/exe when readable (same uid), else empty */
} pg_peer;

typedef struct {
    const pg_platform_ops *plat_ops;
    pg_platform *plat;           /* NULL when the display could not be opened */
    char plat_error[PG_ERR_MSG_MAX]; /* why plat is NULL */
    char display[128];
    pthread_mutex_t plat_lock;
    pg_tok_store *tokens;
    pg_approvals *approvals;
    pg_audit *audit;             /* every audited op is on disk before its reply */
    pg_judge_cache *judge_cache; /* content judgements by image + expectation + endpoint */
    pthread_mutex_t ocr_lock;    /* one Tesseract engine, made on first use */
    struct pg_ocr *ocr;
    pthread_mutex_t policy_lock; /* guards the pointer only; a policy is immutable */
    pg_policy *policy;           /* swapped on SIGHUP; requests hold a reference */
    char policy_path[4096];
    uint32_t settle_quiet_ms;    /* repaint quiet period before a snapshot */
    uint32_t settle_timeout_ms;
} pg_broker;

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

typedef struct {
    pg_broker *b;
    const pg_peer *peer;
    const pg_request *req;
    const pg_msg *msg;           /* request attachments */
    cJSON *result;               /* set by the handler on success */
    cJSON *details;              /* optional structured detail on failure */
    pg_blob reply_att;           /* optional bytes released with the reply (owned) */
    pg_policy *policy;           /* the policy this request runs under (a reference) */
    const pg_policy_view *view;  /* the peer's effective policy, set by admission */
    char created_token[PG_TOKEN_LEN + 1]; /* dropped again if the audit write fails */
    pg_call_audit audit;
} pg_call;

typedef pg_err (*pg_op_fn)(pg_call *c, pg_error *e);

/* PG_OP_AUDIT: every outcome is audited. Without it only refusals are. */
#define PG_OP_AUDIT 1u

typedef struct {
    const char *name;
    pg_op_fn fn;
    const pg_arg_spec *args;
    size_t n_args;
    unsigned flags;
} pg_op;

/* Dispatch one parsed request: look up op, check args, run handler, then
 * write the audit record (when the op is audited, or was refused) before the
 * caller replies. A failed audit write turns the outcome into PG_E_INTERNAL
 * and undoes a created token: nothing happens that is not on record. */
pg_err pg_dispatch(pg_call *c, pg_error *e);
const pg_op *pg_ops_find(const char *name);
const pg_op *pg_ops_list(size_t *n);

/* The current policy, with a reference the caller drops (pg_policy_free). */
pg_policy *pg_broker_policy(pg_broker *b);
/* Loads the policy file again; on success swaps it in, otherwise keeps the
 * old one and says why. */
pg_err pg_broker_reload_policy(pg_broker *b, pg_error *e);
/* Fills a policy principal for a uid (name and group names from the system
 * databases); strings live in buf. */
void pg_broker_principal(uint32_t uid, const char *user, pg_principal *p, const char **groups, size_t max_groups,
                         char *buf, size_t buflen);
/* Did the peer come through a remote transport (an SSH-forwarded socket)? */
bool pg_peer_is_remote(const pg_peer *p);
/* Does the process pid run as uid (real uid, from /proc)? False when unknown. */
bool pg_broker_pid_owned_by(int64_t pid, uint32_t uid);

/* Platform access for handlers: lock, and PG_E_UNREACHABLE if no display. */
pg_err pg_broker_plat_lock(pg_broker *b, pg_error *e);
void pg_broker_plat_unlock(pg_broker *b);
/* Opens the display into b->plat, or records why not in b->plat_error. */
void pg_broker_open_platform(pg_broker *b);

#endif
