/* SPDX-License-Identifier: MIT */
/* pg_broker.h - the broker's process state and lifecycle, for the process
 * shells (broker/os/), the server and the core.
 *
 * One pg_broker lives for the process: the display connections and their
 * locks, the stores (broker/store/), the audit log, the OCR engines, the
 * policy and the decoded-pixel budget. Requests arrive on worker threads
 * (pg_server.h); each becomes a pg_call (pg_call.h) that pg_dispatch
 * (pg_dispatch.h) hands to its operation's handler. The platform handle is
 * not thread-safe: handlers reach it only through pg_call_plat_* (pg_call.h),
 * which take these locks.
 * Never: anything here takes identity from a request (pg_identity.h).
 */
#ifndef PG_BROKER_H
#define PG_BROKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_opdecl.h"
#include "pg_control.h"
#include "pg_held.h"
#include "pg_platform.h"
#include "pg_policy.h"
#include "pg_proto.h"
#include "pg_store.h"

typedef struct pg_audit pg_audit;
/* A request on its way through the core (pg_call.h). */
typedef struct pg_call pg_call;
/* An operation's handler as the dispatcher calls it: args is the checked
 * pg_args_<op>. The table of them, indexed by PG_OPI_<op>, belongs to the
 * handlers (broker/ops/pg_handlers.h); the process shell hands it to the
 * broker (pg_broker_config.handlers), so the core never names a handler. */
typedef pg_err (*pg_handler_fn)(pg_call *c, const void *args, pg_error *e);
typedef struct pg_disclose pg_disclose;
typedef struct pg_judge_cache pg_judge_cache;

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
    char tip[PG_ERR_TIP_MAX];    /* the backend's fix for that ("": the broker's own) */
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
    const pg_handler_fn *handlers; /* PG_OPI_COUNT of them (pg_broker_config.handlers) */
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
    struct pg_ocr_cache *ocr_cache; /* OCR results per uid by the pixels read (broker/ocr/pg_ocr_cache.h) */
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
    /* The person's controls (pg_control.h, pg_control_broker.c): what the
     * person's devices said, the latch, take-over and the lease under
     * control_lock; the sign as drawn under plat_lock. */
    struct pg_person *person;
    pthread_mutex_t control_lock;
    pg_control control;
    char forgeable[256];         /* why an agent account could forge a physical key ("": it cannot) */
    char indicator_state[PG_ERR_MSG_MAX + 16]; /* what caps says of the sign (control_lock) */
    pg_indicator shown;          /* the sign as last drawn (plat_lock) */
    int64_t last_drive_us;       /* pg_mono_us of the last agent input (plat_lock) */
} pg_broker;

/* ---- The person's controls (pg_control_broker.c; docs/privacy.md) ---- */
pg_err pg_broker_person_init(pg_broker *b, pg_error *e);
void pg_broker_person_fini(pg_broker *b);
/* The process shell's finding that an agent account could forge a physical
 * key (Linux: /dev/uinput open to others); "" or NULL: it cannot. */
void pg_broker_person_forgeable(pg_broker *b, const char *why);
/* Before a handler: STOPPED, HUMAN_ACTIVE, or BUSY for input without the
 * lease held; PG_OK otherwise (approvers' operations always). */
pg_err pg_broker_person_gate(pg_call *c, pg_error *e);
/* For waits, each round: STOPPED once a person stopped the agents. */
pg_err pg_broker_person_interrupt(pg_call *c, pg_error *e);
/* After an input that succeeded: the sign shows who drives which window. */
void pg_broker_person_drove(pg_call *c);
/* The watch thread's tick; the main display connection opened; a client's
 * connection ended (its bound lease ends with it). */
void pg_broker_person_tick(pg_broker *b);
void pg_broker_person_opened(pg_broker *b);
void pg_broker_person_conn_gone(pg_broker *b, const void *conn);
/* The lease: take (fills out), give back, end whoever's (holder says whose). */
pg_err pg_broker_person_lease(pg_call *c, double ttl_s, bool bound, cJSON *out, pg_error *e);
pg_err pg_broker_person_unlease(pg_broker *b, const char *id, pg_error *e);
bool pg_broker_person_break_lease(pg_broker *b, const void *conn, char *holder, size_t n);
/* Root or an approver re-arms: false when it was not stopped. */
bool pg_broker_person_resume(pg_broker *b, char *was, size_t n, double *stopped_s);
/* ms left of the take-over quiet period now (0: nobody is using the machine). */
uint32_t pg_broker_person_quiet_left_ms(pg_broker *b);
/* ping's and caps' "person". */
cJSON *pg_broker_person_json(pg_broker *b);

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
/* Lifecycle shared by the Linux daemon and the Windows service
 * (broker/core/pg_broker.c). cfg->policy is handed over (one reference). */
typedef struct {
    pg_policy *policy;
    const char *policy_path;
    const char *state_dir;       /* the audit log lives here unless the policy names one */
    const char *spool_dir;
    const char *display;         /* may be NULL */
    const char *journal_socket;  /* NULL: the system journal's socket */
    const pg_platform_ops *plat_ops;
    const pg_handler_fn *handlers; /* every operation's handler, by PG_OPI_<op> (pg_op_handlers) */
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
    bool no_ocr_cache;           /* keep no OCR results (--no-ocr-cache: for measuring against) */
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
/* Lets go of what is held when the hold outlived its limits
 * (pg_held_expired), recording why; plat_lock held. The watcher calls it
 * every half second, and input calls it before judging the input lock. */
void pg_broker_expire_held_locked(pg_broker *b);
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
