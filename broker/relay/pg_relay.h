/* SPDX-License-Identifier: MIT */
/* pg_relay.h - the analysis relay and content judgement (broker/relay).
 *
 * What it does: sends one PNG and a prompt to ONE administrator-described
 * endpoint and returns the endpoint's answer as text. Two kinds of endpoint:
 *   - PG_EP_OPENAI: an OpenAI-compatible chat-completions URL (Ollama,
 *     llama.cpp server, vLLM, LM Studio). The image goes as a PNG data URL.
 *   - PG_EP_COMMAND: an admin-listed local command, run without a shell,
 *     with the PNG on stdin; the last non-empty stdout line is the answer.
 * On top of that, pg_relay_judge() asks the same endpoint N times whether the
 * image satisfies an expectation and takes a majority vote (CONTENT_MATCH /
 * CONTENT_MISMATCH / CONTENT_UNCERTAIN); any endpoint failure BLOCKS the whole
 * judgement (never a pass). Completed judgements are cached in memory.
 *
 * Destination rules (docs/analysis.md is the user-facing statement):
 *   - The URL is parsed with the policy's own grammar, common/pg_url.h
 *     (http/https only, no userinfo, no fragment, no percent-encoded or
 *     odd-numeric hosts), and the canonical form it returns is what libcurl
 *     is given. The host is resolved HERE and
 *     EVERY returned address is checked; libcurl is then pinned to exactly
 *     the checked addresses (CURLOPT_RESOLVE) and an open-socket callback
 *     refuses any other address, redirects are not followed, proxies from
 *     the environment are disabled, only http/https may be spoken.
 *   - PG_DEST_LOCAL_ONLY: every address must be loopback (127.0.0.0/8, ::1,
 *     ::ffff:127.0.0.0/104), or the endpoint is a Unix socket.
 *   - PG_DEST_ALLOWLIST: the URL's origin ("scheme://host:port", compared
 *     after lower-casing and making the port explicit) must equal one listed
 *     origin. Unspecified, link-local (169.254/16, fe80::/10: cloud metadata),
 *     multicast, broadcast and reserved addresses are always refused.
 *     Loopback, private (RFC 1918, CGNAT 100.64/10, fc00::/7) and site-local
 *     addresses are refused UNLESS the listed origin's host is itself an IP
 *     literal of that address (the administrator named the box); a host NAME
 *     that resolves to such an address is refused (DNS rebinding).
 *   - A refusal is PG_E_POLICY and happens before any connection is made.
 *
 * Ownership: nothing here keeps a pointer to caller memory after returning.
 * Strings returned through char ** are malloc'd; the caller frees them.
 * Thread-safety: every function may be called from any thread; the judge
 * cache has its own lock. libcurl's global init runs once (pthread_once).
 *
 * Windows (mingw-w64): the same contract with libcurl over Schannel and
 * Winsock, with these differences: a unix_socket endpoint is PG_E_UNSUPPORTED
 * (refused before any connection); a command's argv[0] must be an absolute
 * drive path (C:\...); the command runs through CreateProcessW in a Job object
 * that is killed as a whole on timeout, cap overflow or exit (the process
 * group's role), with only its three pipe ends inherited, in the Windows
 * directory's drive root, and "exited with status" reports the exit code (no
 * signals). The environment defaults are SystemRoot and a system PATH
 * instead of PATH and LC_ALL (docs/analysis.md).
 * Never: follows a redirect, uses a proxy, sends the image anywhere but the
 * checked addresses, runs a shell, passes the broker's environment to a
 * command, returns anything but text, or turns a failure into a verdict.
 */
#ifndef PG_RELAY_H
#define PG_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef _WIN32
#include <winsock2.h> /* struct sockaddr_storage (Winsock; before windows.h) */
#include <ws2tcpip.h>
#else
#include <sys/socket.h>
#endif

#include "pg_error.h"
#include "pg_url.h"

/* ---- endpoint description (filled by the caller from the policy) ------- */

typedef enum {
    PG_EP_OPENAI = 1,  /* OpenAI-compatible chat-completions URL */
    PG_EP_COMMAND = 2  /* admin-listed local command */
} pg_relay_kind;

#define PG_RELAY_DEFAULT_TIMEOUT_S 60u
#define PG_RELAY_DEFAULT_MAX_RESPONSE (1024u * 1024u)
#define PG_RELAY_DEFAULT_MAX_TOKENS 512u
#define PG_RELAY_MAX_PROMPT 16384u /* bytes; longer prompts are PG_E_BADINPUT */

typedef struct {
    const char *name;                /* policy name, for messages and the cache key */
    pg_relay_kind kind;
    /* PG_EP_OPENAI */
    const char *url;                 /* full chat-completions URL */
    const char *model;               /* "model" field; required */
    const char *api_key;             /* NULL/"" = no Authorization header */
    const char *unix_socket;         /* optional absolute path: connect there
                                        instead of the URL's host (the URL still
                                        gives Host: and the path) */
    uint32_t max_tokens;             /* 0 = PG_RELAY_DEFAULT_MAX_TOKENS */
    /* PG_EP_COMMAND */
    const char *const *argv;         /* NULL-terminated; argv[0] absolute path */
    const char *const *env;          /* extra "NAME=value" entries, NULL-terminated,
                                        may be NULL; see docs/analysis.md */
    /* both */
    uint32_t timeout_s;              /* whole request; 0 = default (60 s) */
    uint32_t connect_timeout_s;      /* 0 = min(timeout_s, 10) */
    size_t max_response_bytes;       /* HTTP body / command stdout cap;
                                        0 = default (1 MiB) */
} pg_endpoint;

/* ---- destination policy --------------------------------------------------- */

typedef enum {
    PG_DEST_LOCAL_ONLY = 1,
    PG_DEST_ALLOWLIST = 2
} pg_dest_mode;

/* Resolver hook for tests (DNS tricks without DNS). Must fill at most max
 * addresses (sockaddr_in / sockaddr_in6, port ignored) and return how many,
 * or a negative value when the name does not resolve. NULL = getaddrinfo. */
typedef int (*pg_relay_resolver_fn)(void *ctx, const char *host, struct sockaddr_storage *out,
                                    int max);

typedef struct {
    pg_dest_mode mode;
    const char *const *allow_origins; /* PG_DEST_ALLOWLIST: "https://host:port" */
    size_t n_allow_origins;
    pg_relay_resolver_fn resolver;    /* NULL in production */
    void *resolver_ctx;
} pg_dest_policy;

/* ---- destination check ------------------------------------------------------ */

#define PG_RELAY_MAX_ADDRS 16

typedef struct {
    pg_url url;                       /* the parsed URL (Host: and path) */
    bool unix_socket;                 /* destination is ep->unix_socket (naddrs 0) */
    int naddrs;                       /* distinct checked addresses (first 16; all were checked) */
    struct sockaddr_storage addrs[PG_RELAY_MAX_ADDRS];
    char addr_text[PG_RELAY_MAX_ADDRS][48]; /* numeric form, no brackets */
} pg_relay_dest;

/* Checks an OpenAI-kind endpoint's destination against the policy: parses the
 * URL, matches the origin (allowlist), resolves the host itself and checks
 * every address. On PG_OK *out holds the addresses the connection must be
 * pinned to. Refused: PG_E_POLICY (reason in e); a name that does not resolve:
 * PG_E_UNREACHABLE; a malformed policy (bad allowlist entry): PG_E_BADINPUT.
 * Makes no connection. Command endpoints need no destination check. */
pg_err pg_relay_check_destination(const pg_endpoint *ep, const pg_dest_policy *pol, pg_relay_dest *out,
                                  pg_error *e);

/* ---- analysis ------------------------------------------------------------ */

/* One-time libcurl init; called implicitly, callable early from main(). */
pg_err pg_relay_global_init(pg_error *e);

/* Sends png (must be a PNG: signature + IHDR are checked) and prompt to ep;
 * on PG_OK *answer_text is the endpoint's text answer (malloc'd, NUL-
 * terminated UTF-8 as received). Errors:
 *   PG_E_POLICY      destination refused (no connection made), or the
 *                    endpoint answered with a redirect (never followed)
 *   PG_E_BADINPUT    bad endpoint description, not a PNG, prompt too long,
 *                    response over the cap, malformed/textless response,
 *                    command cannot be executed
 *   PG_E_TIMEOUT     connect/total timeout (command: process group killed)
 *   PG_E_UNREACHABLE connection failed, HTTP status not 2xx (status in the
 *                    message), command exited non-zero or by a signal
 *   PG_E_INTERNAL    resource failure */
pg_err pg_relay_analyze(const pg_endpoint *ep, const pg_dest_policy *pol, const uint8_t *png, size_t png_len,
                        const char *prompt, char **answer_text, pg_error *e);

/* ---- content judgement ----------------------------------------------------- */

#define PG_JUDGE_MAX_SAMPLES 9
#define PG_JUDGE_MAX_EXPECT 4000  /* bytes */
#define PG_JUDGE_REASON_MAX 256

typedef enum {
    PG_VERDICT_MATCH = 0,
    PG_VERDICT_MISMATCH = 1,
    PG_VERDICT_UNCERTAIN = 2
} pg_verdict;

typedef enum {
    PG_CONTENT_MATCH = 0,
    PG_CONTENT_MISMATCH = 1,
    PG_CONTENT_UNCERTAIN = 2,
    PG_CONTENT_BLOCKED = 3   /* an endpoint failure: no verdict, never a pass */
} pg_content_status;

typedef struct {
    pg_verdict verdict;
    char reason[PG_JUDGE_REASON_MAX];  /* text after the verdict word */
} pg_judge_sample;

typedef struct {
    pg_content_status status;
    /* Stable reason code (static string): CONTENT_MATCH, CONTENT_MISMATCH,
     * CONTENT_UNCERTAIN, or for BLOCKED: CONTENT_REFUSED (destination refused),
     * CONTENT_COMMAND_MISSING (cannot execute), CONTENT_COMMAND_FAILED
     * (non-zero exit / signal), CONTENT_ENDPOINT_FAILED (HTTP error or
     * unreachable), CONTENT_TIMEOUT, CONTENT_OUTPUT_INVALID (no single
     * VERDICT line, response over the cap, malformed response),
     * CONTENT_CONFIG_INVALID (bad arguments or endpoint description). */
    const char *reason_code;
    unsigned samples;                 /* asked for */
    unsigned completed;               /* samples that produced a verdict */
    unsigned votes_match, votes_mismatch, votes_uncertain;
    pg_judge_sample sample[PG_JUDGE_MAX_SAMPLES];
    bool cached;                      /* answered from the cache, nothing asked */
    char cache_key[65];               /* hex SHA-256 (empty if not computed) */
    char image_sha256[65];            /* hex SHA-256 of the PNG bytes */
    /* BLOCKED only: */
    unsigned failed_sample;           /* 1-based */
    pg_error error;                   /* what blocked it (same as the e out-param) */
} pg_judge_result;

/* The in-memory judgement cache: bounded (LRU), thread-safe. Only completed
 * judgements (MATCH/MISMATCH/UNCERTAIN) are stored, never BLOCKED ones. */
typedef struct pg_judge_cache pg_judge_cache;
pg_err pg_judge_cache_new(pg_judge_cache **out, size_t capacity, pg_error *e); /* capacity >= 1 */
void pg_judge_cache_free(pg_judge_cache *c);
void pg_judge_cache_clear(pg_judge_cache *c);  /* e.g. on policy reload */
size_t pg_judge_cache_size(pg_judge_cache *c);

/* Asks ep `samples` times (1..9, odd recommended), serially, with the prompt
 * from pg_relay_judge_prompt(), and votes: MATCH if match votes > samples/2,
 * MISMATCH if mismatch votes > samples/2, else UNCERTAIN (ties and uncertain
 * majorities alike). Returns PG_OK when a verdict was reached (any of the
 * three; res->status says which); otherwise the first failing sample's error
 * and res->status == PG_CONTENT_BLOCKED. cache may be NULL (no caching). A
 * cache hit fills res with the stored verdict and sets res->cached; entries
 * are keyed by uid too (the asking user), so a hit is always the same user's
 * own earlier judgement. */
pg_err pg_relay_judge(const pg_endpoint *ep, const pg_dest_policy *pol, pg_judge_cache *cache, uint32_t uid,
                      const uint8_t *png, size_t png_len, const char *expectation, unsigned samples,
                      pg_judge_result *res, pg_error *e);

/* The judgement prompt for an expectation (malloc'd; NULL on bad input: empty,
 * over PG_JUDGE_MAX_EXPECT, control characters other than \n \t, or containing
 * the closing marker). Exposed for docs and tests. */
char *pg_relay_judge_prompt(const char *expectation);

/* Parses one answer: exactly one distinct verdict among the lines of the form
 * "VERDICT: MATCH|MISMATCH|UNCERTAIN[ <sep> reason]". Returns false when there
 * is none or they disagree. reason (may be NULL) gets the text after the word. */
bool pg_relay_parse_verdict(const char *answer, pg_verdict *v, char reason[PG_JUDGE_REASON_MAX]);

const char *pg_content_status_name(pg_content_status s); /* "CONTENT_MATCH", ..., "BLOCKED" */
const char *pg_verdict_name(pg_verdict v);                /* "MATCH", "MISMATCH", "UNCERTAIN" */

#endif
