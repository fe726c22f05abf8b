/* SPDX-License-Identifier: MIT */
/* pg_helper.h - the session helper's protocol, both ends, on every OS: a
 * program running as the desktop user (Windows: in the interactive session)
 * that captures, injects and lists for the broker, and the proxy through
 * which the broker uses it as a platform backend.
 *
 * Why a helper: what the broker's own account cannot reach lives in the
 * user's session: on Windows the interactive desktop (the service is in
 * session 0); on Linux the compositor's capture and input (Wayland), the
 * accessibility bus, or an X display the broker was never granted. The
 * helper is one role with two ways to meet the broker: on Windows the
 * service starts it and it connects to a private pipe
 * (broker/os/win/pg_win_helper.h); on Linux the user's session starts
 * `pixelgate-session`, which connects to the broker's session socket and
 * registers (broker/os/posix/pg_posix_session.h). Either way the broker
 * sends the requests and the helper answers, one at a time.
 *
 * Wire: PGF1 frames (pg_proto.h). A request is {"v":1,"id":N,"op":OP,
 * "args":{...}} with OP a primitive that broker/platform/pg_platform.def
 * marks WIRE or CUSTOM (its name is the op, its parameters the args;
 * list_all's result also says "complete"); a WIRE primitive's request,
 * argument specs and reply are generated from its parameters
 * (pg_helper_wire_kind below). Replies are {"ok":true,"result":{...}} or
 * {"ok":false,"error":{"code","message","recovery_tip"}}. A capture's pixels
 * come back as one attachment of raw RGBA rows (width, height, stride,
 * method, fallback, origin in the result); windows are in the one JSON form
 * of pg_window_json.h, the same the agent sees.
 *
 * Proxy (broker side): pg_helper_ops() is a pg_platform_ops whose every call
 * is one request/reply over the helper's connection, which a link
 * (pg_helper_link_ops) provides. Every reply is validated before use: exact
 * fields and types, ids and coordinates in range, strings bounded and UTF-8,
 * at most PG_HELPER_MAX_WINDOWS windows, captures at most PG_HELPER_MAX_DIM
 * per side and PG_HELPER_MAX_CAPTURE bytes with stride*height == the
 * attachment's length; a reply that fails is PG_E_INTERNAL and the link is
 * told to stop the helper (it is broken or hostile). A chord or text over
 * PG_HELPER_MAX_TEXT bytes is BADINPUT, unsent. Each request is bounded by
 * call_timeout_ms (plus the primitive's own waits); past it the call is
 * PG_E_TIMEOUT and the helper is stopped; a helper that dies during a call
 * gives PG_E_UNREACHABLE with the link's tip. The helper's own error code,
 * message and tip are returned as they are.
 * The person's controls: indicate is forwarded as it is; watch_person is
 * the proxy's own: a first person_poll (its error is watch_person's), then
 * a thread of the proxy polls every PG_HELPER_PERSON_POLL_MS, under the
 * call lock like any call, and reports what the helper's hooks counted
 * since into the broker's pg_person (a stop press seen during a long call
 * arrives when that call ends; after a failed poll, which says "not
 * watching", it waits twice as long, up to 5 s); close stops it first.
 *
 * Server (helper side): pg_helper_serve_one reads one request, answers it
 * from the backend it was given, and writes the reply. It answers only ops
 * that are both primitives it knows and on the allowlist the broker sent
 * (NULL: every primitive); anything else is PG_E_POLICY, unsent to the
 * backend. Arguments are checked as strictly as replies are.
 *
 * Threads: a proxy handle may be used from several threads: a lock
 * serialises calls (so a slow settle delays the others). close must come
 * after every other call has returned. A server is single-threaded.
 * Never: the proxy trusts a length, size or string it was sent; the server
 * writes a file, keeps pixels between requests, or serves an op the broker
 * did not allow.
 */
#ifndef PG_HELPER_H
#define PG_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_platform.h"
#include "pg_proto.h"
#include "pg_transport.h"

#define PG_HELPER_CALL_MS 15000u    /* default: one request, reply included */
#define PG_HELPER_PERSON_POLL_MS 100u /* watch_person: how often the proxy asks the helper (person_poll) */
#define PG_HELPER_MAX_DIM 16384u    /* capture width and height */
#define PG_HELPER_MAX_CAPTURE ((uint64_t)256 << 20) /* bytes of one capture */
#define PG_HELPER_MAX_WINDOWS 4096u
#define PG_HELPER_MAX_TEXT ((size_t)512 << 10) /* bytes of a chord or typed text */
#define PG_HELPER_MAX_REQUEST (4u << 20)       /* request header: the text, JSON-escaped */

/* ---------------------------------------------------------------- wire */

/* How a WIRE primitive's parameter travels (pg_platform.def's kinds that
 * the helper can carry without hand-written code): a number argument in the
 * request, or a number field in the reply for an output. Both ends hold it
 * to its range. A kind missing here is not WIRE-able: a WIRE primitive with
 * it does not compile. */
typedef enum {
    PG_WK_SELF,       /* the handle: not sent */
    PG_WK_ERR,        /* the error: not sent */
    PG_WK_ID,         /* a window id, 0..2^53-1 */
    PG_WK_I32,
    PG_WK_U32,
    PG_WK_WAIT_MS,    /* a uint32 wait: the proxy waits that much longer for the reply */
    PG_WK_PING_MS,    /* the same, at most 60 s */
    PG_WK_BUTTON,     /* int32 range: the backend judges it */
    PG_WK_COUNT,      /* int32 range: the backend judges it */
    PG_WK_TEXT,       /* a string of at most PG_HELPER_MAX_TEXT bytes */
    PG_WK_OUT_ID,     /* outputs: */
    PG_WK_OUT_I32,
    PG_WK_OUT_U32,
    PG_WK_RESPONDING  /* a pg_responding */
} pg_helper_wire_kind;

/* One parameter of a WIRE call, as the generated code lists them. */
typedef struct {
    const char *name;
    pg_helper_wire_kind kind;
    union {
        uint64_t u64;
        int32_t i32;
        uint32_t u32;
        const char *text;
        pg_responding responding;
    } v;          /* an input's value (helper: also an output's) */
    void *out;    /* proxy: where an output goes */
} pg_helper_wire_param;

/* Is the kind an output (a reply field)? */
static inline bool pg_helper_wire_is_out(pg_helper_wire_kind k) { return k >= PG_WK_OUT_ID; }

/* The range both ends hold a number of kind k to; false for SELF, ERR, TEXT. */
bool pg_helper_wire_range(pg_helper_wire_kind k, double *lo, double *hi);

/* The primitives the helper protocol carries (WIRE or CUSTOM), by name: the
 * most a broker can allow; returns how many, *ops the list. */
size_t pg_helper_ops_carried(const char *const **ops);
/* Is the op one of them? */
bool pg_helper_op_known(const char *op);

/* --------------------------------------------------------------- proxy */

/* Where the proxy's connection comes from: the OS's part. Every function is
 * called with the proxy's lock held, except gone (which must not block). */
typedef struct {
    /* The connection for the next call: the current helper's, or (a link
     * that can) a newly started one's. A link that cannot start one answers
     * PG_E_UNREACHABLE with what the person should do. */
    pg_err (*ensure)(void *link, pg_conn **conn, pg_error *e);
    /* The helper broke the protocol, timed out or went away: end it; the
     * connection given by ensure is not used again. */
    void (*stop)(void *link);
    /* Is the helper gone for good (the broker then reports the display
     * lost and reopens it)? Never blocks. */
    bool (*gone)(void *link, char *why, size_t n);
    /* How the helper runs, put first in caps' detail. */
    void (*describe)(void *link, char *out, size_t cap);
    /* Trims list_windows' list to what the broker may trust this helper
     * for (NULL: all of it). list_all's is never trimmed: screen captures
     * black out from it, and pg_call_window_foreign judges each window. */
    void (*filter)(void *link, pg_window *w, size_t *n);
    /* Stops the helper if the link owns one and frees the link. */
    void (*free)(void *link);
    /* The tip of an error about the helper's connection. */
    const char *tip;
} pg_helper_link_ops;

/* The proxy's table. Its open (and the display it is given) is answered by
 * the OS: pg_helper_link_open, defined by the shell that links the proxy
 * (broker/os/win/pg_win_helper_link.c, broker/os/posix/pg_posix_session.c). */
const pg_platform_ops *pg_helper_ops(void);
pg_err pg_helper_link_open(pg_platform **out, const char *display, pg_error *e);

/* A proxy handle over link (owned from here on, also on failure: freed by
 * its ops->free); call_timeout_ms 0 = PG_HELPER_CALL_MS. */
pg_err pg_helper_proxy_new(pg_platform **out, const pg_helper_link_ops *ops, void *link, uint32_t call_timeout_ms,
                           pg_error *e);
/* The link a proxy handle was made with. */
void *pg_helper_proxy_link(pg_platform *p);
/* Holds the proxy's lock (no call runs) while fn(link, arg) runs. */
pg_err pg_helper_proxy_locked(pg_platform *p, pg_err (*fn)(void *link, void *arg, pg_error *e), void *arg,
                              pg_error *e);
/* Why the last capture fell back ("" if it did not), as the helper said. */
void pg_helper_proxy_capture_fallback(pg_platform *p, char *out, size_t cap);

/* -------------------------------------------------------------- server */

typedef struct {
    const pg_platform_ops *ops;
    pg_platform *p;         /* NULL if the backend did not open: every request gets open_err */
    pg_error open_err;
    /* The ops the broker allowed (NULL: every primitive the protocol carries). */
    const char *const *allow;
    size_t n_allow;
    /* Optional OS hooks (NULL: none): before each request (Windows: follow
     * the input desktop); where the helper is, for caps' "desktop"; why the
     * last window or screen capture fell back ("" if it did not). */
    void (*before)(void *ctx);
    void (*where)(void *ctx, char *out, size_t cap);
    const char *(*fallback)(void *ctx, bool screen);
    void *ctx;
} pg_helper_server;

/* The reply to one request header (never NULL unless out of memory); a
 * capture's pixels in *att (free()d by the caller). For the fuzzer too. */
cJSON *pg_helper_answer(pg_helper_server *s, const cJSON *header, pg_blob *att);
/* Reads one request from conn (waiting at most idle_ms for it), answers it
 * and writes the reply. PG_E_UNREACHABLE: the broker closed the connection. */
pg_err pg_helper_serve_one(pg_helper_server *s, pg_conn *conn, uint32_t idle_ms, pg_error *e);

#endif
