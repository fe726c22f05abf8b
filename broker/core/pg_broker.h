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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_approval.h"
#include "pg_baseline.h"
#include "pg_opdecl.h"
#include "pg_held.h"
#include "pg_platform.h"
#include "pg_policy.h"
#include "pg_proto.h"
#include "pg_token.h"

typedef struct pg_audit pg_audit;
typedef struct pg_disclose pg_disclose;
typedef struct pg_judge_cache pg_judge_cache;

#define PG_PEER_MAX_GROUPS 64

/* Who is on the other end of a connection, as the kernel says.
 * Linux: SO_PEERCRED, passwd, /proc. Windows: the pipe client's token
 * (ImpersonateNamedPipeClient) and GetNamedPipeClientProcessId. */
typedef struct {
    uint32_t uid;    /* POSIX uid. Windows: the broker's number for the user SID
                        (pg_win_principals; stable while the broker runs), so
                        tokens and approvals bind to a SID exactly as to a uid */
    uint32_t gid;    /* POSIX primary gid; 0 on Windows */
    int64_t pid;
    char user[64];   /* passwd name, or the uid in decimal. Windows: account name,
                        "DOMAIN\\name" unless the domain is this machine */
    char comm[64];   /* /proc/PID/comm; Windows: image file name */
    char exe[256];   /* /proc/PID/exe when readable (same uid), else empty;
                        Windows: full image path */
    char sid[192];   /* Windows: user SID ("S-1-5-21-..."); empty on POSIX */
    uint32_t integrity_rid; /* Windows: SECURITY_MANDATORY_*_RID; 0 on POSIX */
    bool admin;      /* Windows: enabled Administrators/SYSTEM; POSIX: uid 0 */
    /* Windows: this connection's own usable groups (enabled, not deny-only),
     * named as the policy spells them, from its own token: never another
     * process's of the same account. POSIX: unused (the group database is
     * asked, pg_broker_principal). */
    char groups[PG_PEER_MAX_GROUPS][64];
    uint32_t n_groups;
    bool remote;          /* POSIX: decided once, at accept (pg_peer_is_remote) */
    char remote_why[128]; /* why, for the log */
} pg_peer;

/* The display as the broker last saw it. Its own lock, so that ping and
 * caps report it without waiting for a platform call to finish. */
typedef enum {
    PG_DISPLAY_NONE, /* never opened yet (the display may come up after the broker) */
    PG_DISPLAY_UP,
    PG_DISPLAY_LOST  /* it was open and went away: reconnect attempts with backoff */
} pg_display_state;

typedef struct {
    pthread_mutex_t lock;
    pg_display_state state;
    char reason[PG_ERR_MSG_MAX]; /* why it is not up */
    int64_t since_ms;            /* wall clock ms of the last change of state */
    uint64_t gen;                /* counts connections made: a handle of an older one is stale */
    unsigned reconnects;         /* returns after a loss */
    uint32_t backoff_ms;         /* the wait before the next attempt */
    int64_t next_try_us;         /* pg_mono_us of the next allowed attempt */
} pg_display;

/* A connection to the display that reads pixels beside the main one
 * (captures, listing), under its own lock. */
typedef struct {
    pthread_mutex_t lock;
    pg_platform *p; /* NULL: not open */
    uint64_t gen;   /* display.gen when p was opened */
} pg_plat_reader;
#define PG_PLAT_READERS_MAX 8
#define PG_OCR_ENGINES_MAX 8

typedef struct {
    const pg_platform_ops *plat_ops;
    pg_platform *plat;           /* the main connection: input (under plat_lock, the input lock), and
                                    everything else when there are no readers; NULL when not open */
    uint64_t plat_gen;           /* display.gen when plat was opened */
    char plat_error[PG_ERR_MSG_MAX]; /* why plat is NULL */
    char display[128];
    pthread_mutex_t plat_lock;
    pg_held held;                /* keys and buttons held down and the connection holding them (under plat_lock) */
    atomic_uintptr_t held_by;    /* held.holder | 1 while anything is held, else 0: set when plat_lock is let go,
                                    so a connection that holds nothing ends without waiting for the lock */
    pg_display disp;
    pg_plat_reader readers[PG_PLAT_READERS_MAX];
    unsigned n_readers;          /* 0: every platform call goes through plat */
    unsigned next_reader;        /* round robin when every reader is busy */
    pthread_t watch;             /* notices a lost display and brings it back (pg_broker_watch_start) */
    bool watching;
    pthread_mutex_t watch_lock;
    pthread_cond_t watch_cond;
    bool watch_stop;
    pg_tok_store *tokens;
    pg_approvals *approvals;
    pg_baselines *baselines;     /* <state_dir>/baselines: candidates and approved baselines */
    pg_audit *audit;             /* every audited op is on disk before its reply */
    pg_judge_cache *judge_cache; /* content judgements by image + expectation + endpoint */
    pg_disclose *disclose;       /* what numeric answers revealed about protected pixels */
    struct pg_refusals *refusals; /* refusals coalesced per user before they reach the audit log */
    pthread_mutex_t ocr_lock;    /* Tesseract engines, made on first use; one per reading request */
    pthread_cond_t ocr_cond;
    struct pg_ocr *ocr[PG_OCR_ENGINES_MAX];
    bool ocr_busy[PG_OCR_ENGINES_MAX];
    char ocr_lang[PG_OCR_ENGINES_MAX][128]; /* each engine's language spec ("eng+deu") */
    unsigned n_ocr, ocr_max;     /* made, and the most that may be */
    char ocr_datapath[1024];     /* tessdata directory; "" = Tesseract's default */
    pthread_mutex_t policy_lock; /* guards the pointer only; a policy is immutable */
    pg_policy *policy;           /* swapped on SIGHUP; requests hold a reference */
    char policy_path[4096];
    char journal_socket[108];    /* where audit copies go when the policy says audit.journal */
    uint32_t self_uid;           /* the broker's own identity, for its own audit records */
    int64_t self_pid;
    uint64_t quota_cap_bytes;    /* the command line's ceilings (pg_broker_config), for reloads */
    uint32_t ttl_cap_s;
    /* One budget of decoded pixels across concurrent requests: what images
     * sent by clients and tokens loaded for a request take while it runs. */
    pthread_mutex_t pixels_lock;
    pthread_cond_t pixels_cond;
    uint64_t pixels_budget, pixels_used;
    uint32_t pixels_wait_ms;     /* how long a request waits for budget before BUSY (10 s) */
    /* Windows whose program answered a ping (id and owner pid), so that one
     * that stops answering is known frozen though it never promised to. */
    pthread_mutex_t answered_lock;
    struct {
        uint64_t id;
        int64_t pid;
    } answered[256];
    unsigned answered_next;
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
    uint64_t pixels_held; /* of the broker's decoded-pixel budget, given back after the handler */
    double bits; /* charged so far, for the audit record */
    /* Record, then act (PG_OPF_EFFECT): "SEQ:HASH" of the record of intent
     * written right before the effect (pg_dispatch_intent); the outcome
     * record names it. Empty: no intent written (yet). */
    char intent[96];
    bool intent_refused; /* it could not be written: nothing was done */
    /* pg_dispatch_begin: the operation is known and the peer admitted (or not). */
    bool begun;
    pg_err admit_rc;
} pg_call;

/* Dispatch one parsed request: look up its declaration, admit the peer,
 * check the arguments against the declaration into a typed struct, run the
 * handler, then write the audit record (when the op is audited, or was
 * refused) before the caller replies. A failed audit write turns the outcome
 * into PG_E_INTERNAL and undoes a created token: nothing happens that is not
 * on record. */
pg_err pg_dispatch(pg_call *c, pg_error *e);
/* Between two polls of a long operation: PG_E_UNREACHABLE (filled in e) when
 * the client closed its connection (a cancelled MCP call, a killed CLI), so
 * the broker stops capturing for nobody; PG_OK otherwise. */
pg_err pg_call_client_gone(const pg_call *c, pg_error *e);
/* The first half of pg_dispatch, for a server that reads a request's
 * attachments only once it is admitted: finds the declaration (c->op) and
 * admits the peer (c->view). Its outcome is kept for pg_dispatch, which then
 * answers (and audits) a refusal without running anything; e must be left
 * as it is in between. */
pg_err pg_dispatch_begin(pg_call *c, pg_error *e);
/* Record, then act: writes the request's record of intent (who, what: the
 * op and c->audit's detail so far, where: its window) after reserving room
 * for it and its outcome; a handler of a PG_OPF_EFFECT operation calls it
 * (as pg_call_intent) right before the platform or relay call. PG_E_INTERNAL
 * when it cannot be written: the handler must not act. Once per request.
 * pg_dispatch refuses the answer of an effect operation that returns PG_OK
 * without one. */
pg_err pg_dispatch_intent(pg_call *c, pg_error *e);
/* Is the peer one of the current policy's clients? No audit record: the
 * server's question when a connection arrives. */
bool pg_dispatch_admitted(pg_broker *b, const pg_peer *peer);

/* Takes bytes of the decoded-pixel budget for a request, waiting at most
 * wait_ms for other requests to give some back: PG_E_BUSY when they did
 * not, PG_E_BADINPUT when bytes alone are over the whole budget.
 * pg_broker_pixels_give returns them. */
pg_err pg_broker_pixels_take(pg_broker *b, uint64_t bytes, uint32_t wait_ms, const char *what, pg_error *e);
void pg_broker_pixels_give(pg_broker *b, uint64_t bytes);

/* An OCR engine of the broker's for the language spec lang (an idle one of
 * that language; else made, up to ocr_max; else an idle one of another
 * language remade; else the first one given back), for one reading;
 * pg_broker_ocr_give returns it.
 * An engine is not thread-safe: one request at a time uses it. */
pg_err pg_broker_ocr_take(pg_broker *b, const char *lang, struct pg_ocr **out, pg_error *e);
void pg_broker_ocr_give(pg_broker *b, struct pg_ocr *o);

/* Does w's program answer (pg_platform_ops.responding on p, a connection
 * the caller holds)? A SILENT answer is NO for a window whose program
 * answered before, else UNKNOWN. */
pg_err pg_broker_responding(pg_broker *b, pg_platform *p, const pg_window *w, uint32_t max_ms, pg_responding *out,
                            pg_error *e);

/* The current policy, with a reference the caller drops (pg_policy_free). */
pg_policy *pg_broker_policy(pg_broker *b);
/* Loads the policy file again; on success swaps it in, otherwise keeps the
 * old one and says why. */
pg_err pg_broker_reload_policy(pg_broker *b, pg_error *e);
/* Per platform (broker/os/posix/pg_posix_peer.c, broker/os/win/pg_win_peer.c): */
/* Fills the policy principal of a connected peer; group names live in buf.
 * POSIX: uid and name from the peer, groups from the group database.
 * Windows: administrator and groups from the connection's own token (the
 * peer's groups), never from another connection of the same SID. */
void pg_broker_principal(const pg_peer *peer, pg_principal *p, const char **groups, size_t max_groups, char *buf,
                         size_t buflen);
/* Shared by the two: a principal holding only uid and user, and one more
 * group name copied into buf (false when buf or the array is full). */
void pg_principal_start(pg_principal *p, uint32_t uid, const char *user, const char **groups);
bool pg_principal_add_group(pg_principal *p, size_t max_groups, char *buf, size_t buflen, size_t *used,
                            const char *name);
/* Did the peer come through a remote transport (an SSH-forwarded socket)? */
bool pg_peer_is_remote(const pg_peer *p);
/* What input into window w (owned by process w->pid) must know, from one
 * look at the process: *same_owner - it runs as the peer (Linux: /proc;
 * Windows: its token's user SID); false when unknown. The result: Windows refuses
 * (PG_E_POLICY) a process at a higher integrity level than the requester
 * (UIPI's rule, kept by the broker too) or one whose token cannot be read,
 * whatever the policy says, and a vanished one is PG_E_NOTFOUND. Linux: PG_OK
 * (X11 has no integrity levels; ownership and the policy decide). */
pg_err pg_broker_input_target(const pg_window *w, const pg_peer *peer, bool *same_owner, pg_error *e);

/* The account process pid runs as, for rules that name accounts (input into
 * an approver's window is refused): its name as the policy spells it into
 * user, and whether it is the administrator (Linux: uid 0; Windows: its token
 * is elevated, integrity High or System). Linux counts an owner only when the
 * process's real, effective, saved and filesystem uids agree. PG_E_NOTFOUND
 * when the process or its owner cannot be told. */
pg_err pg_broker_process_owner(int64_t pid, char user[64], bool *admin, pg_error *e);
/* When process pid started, in ms since 1970 (Linux: /proc/PID/stat and the
 * boot time; Windows: GetProcessTimes); 0 when unknown. A window's
 * generation: an id the server reuses for a new process's window gets
 * another one. */
int64_t pg_broker_process_started_ms(int64_t pid);

/* Lifecycle shared by the Linux daemon and the Windows service
 * (broker/pg_broker.c). cfg->policy is handed over (one reference). */
typedef struct {
    pg_policy *policy;
    const char *policy_path;
    const char *state_dir;       /* the audit log lives here unless the policy names one */
    const char *spool_dir;
    const char *display;         /* may be NULL */
    const char *journal_socket;  /* NULL: the system journal's socket */
    const pg_platform_ops *plat_ops;
    uint64_t quota_cap_bytes;    /* hard cap over the policy's spool quota */
    uint64_t memory_budget;
    uint32_t ttl_s;
    uint32_t self_uid;
    int64_t self_pid;
    unsigned display_readers;    /* extra display connections for reading pixels (0: none) */
    /* Command-line ceilings over the policy: each limit both set takes the
     * tighter of the two (0: not given, the policy's value stands). Logged
     * at start. quota_cap_bytes above caps the whole spool the same way. */
    uint32_t ttl_cap_s;
    unsigned uid_max_tokens;     /* tokens one user may hold (0: PG_TOK_UID_MAX_DEFAULT) */
    uint64_t pixel_budget;       /* decoded pixel bytes across all requests at once (0: 1 GiB) */
    unsigned ocr_engines;        /* Tesseract engines reading at once (0: one) */
} pg_broker_config;
pg_err pg_broker_init(pg_broker *b, const pg_broker_config *cfg, pg_error *e);
void pg_broker_fini(pg_broker *b);
/* Loads the policy again (SIGHUP / service PARAMCHANGE); a bad file keeps the
 * old policy. Both outcomes are logged and audited. */
void pg_broker_reload(pg_broker *b);
/* "pixelgated --verify-audit FILE [--anchor SEQ:HASH]": an administrator's
 * check of the chain, no broker started. Prints the report; returns 0 when
 * whole, PG_E_ASSERT naming the first bad record, or the error. */
int pg_broker_verify_audit(const char *path, const char *anchor);

/* Platform access for handlers: the main connection under its lock (input
 * takes it: held keys and the pointer are one global state, so input stays
 * in order), PG_E_UNREACHABLE with the reason when there is no display. A
 * lost display is reopened here when its backoff allows. unlock notices a
 * connection that was lost during the call (pg_platform_ops.lost): it is
 * closed and the display marked lost. */
pg_err pg_broker_plat_lock(pg_broker *b, pg_error *e);
/* Lets go of every key and button held (pg_held.h), buttons first, keys in
 * the reverse of their order, and records it in the audit log as the
 * holder's input, with why ("the connection ended"). plat_lock held. */
void pg_broker_release_held_locked(pg_broker *b, const char *why);
/* The end of a connection: releases what it held (takes plat_lock). */
void pg_broker_release_held(pg_broker *b, const void *conn);
void pg_broker_plat_unlock(pg_broker *b);
/* A connection for reading pixels and windows: a free reader (the main
 * connection when the broker has none), locked; *out is released with
 * pg_broker_plat_release. */
pg_err pg_broker_plat_read(pg_broker *b, pg_platform **p, int *slot, pg_error *e);
void pg_broker_plat_release(pg_broker *b, int slot);
/* Opens the display into b->plat, or records why not in b->plat_error. */
void pg_broker_open_platform(pg_broker *b);
/* The display's state as JSON {"state":"up"|"lost"|"none","name":...,
 * "since":ISO,"reason":...,"reconnects":N}, read under its own lock. */
cJSON *pg_broker_display_json(pg_broker *b);
/* Marks the display lost (a platform call said so); reconnects follow. */
void pg_broker_display_lost(pg_broker *b, const char *reason);
/* The watcher thread: every 500 ms it looks, without waiting for a busy
 * connection, whether the display was lost, brings it back when the backoff
 * allows (250 ms doubling to 2 s), sweeps expired tokens and hands freed
 * memory back. pg_broker_fini stops it. */
void pg_broker_watch_start(pg_broker *b);
/* One round of the watcher, for tests that do not start the thread. */
void pg_broker_watch_once(pg_broker *b);

#endif
