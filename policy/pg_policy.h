/* SPDX-License-Identifier: MIT */
/* pg_policy.h - the administrator's policy: parse, validate, merge, evaluate.
 *
 * What it does
 *   Reads one admin-owned JSON file (docs/policy.md is the reference; Linux
 *   default PG_POLICY_DEFAULT_PATH), validates every key strictly (unknown keys,
 *   wrong types, duplicate keys, out-of-range numbers, bad regexes and bad URLs
 *   are errors naming the JSON path, e.g. "$.analysis.endpoints.local.timeout_s:
 *   expected an integer in 1..3600"), merges each "users.NAME" section into the
 *   global one (a per-user section may only tighten; a loosening value is an
 *   error naming its path), and answers the broker's questions per request:
 *   is this principal admitted, which view applies, may this window be
 *   captured, may input go to it, which endpoint does a name mean, may pixels
 *   be released, may this user approve that request.
 *
 * What it never does
 *   No I/O beyond reading the one file pg_policy_load is given (and lstat of
 *   its directories; on Windows their attributes and security descriptors);
 *   no network, no name resolution (the relay resolves and
 *   checks endpoint hosts itself at request time), no group lookup (the broker
 *   resolves the peer's groups and passes their names), no globals, no exit().
 *
 * Errors
 *   Bad policy text: PG_E_BADINPUT. Policy file missing: PG_E_NOTFOUND. File
 *   or directory writable by someone other than root, not owned by root, or a
 *   symlink: PG_E_BADINPUT with a message saying why and a tip saying how to
 *   fix it (chmod/chown; on Windows icacls). A refusal of a request: PG_E_POLICY with the reason.
 *   Allocation failure: PG_E_INTERNAL.
 *
 * Ownership and threads
 *   A pg_policy is immutable once parse/load returns, and reference counted.
 *   parse/load hand the caller one reference; pg_policy_ref adds one,
 *   pg_policy_free drops one and frees the policy when the last goes. Every
 *   function taking a const pg_policy* or const pg_policy_view* is safe to call
 *   from many threads at once. Views, endpoints and every string they point to
 *   are owned by the policy and valid while the caller holds a reference.
 *
 *   Reload on SIGHUP (the broker's pattern):
 *     request:  lock; p = pg_policy_ref(current); unlock; ... use p ...; pg_policy_free(p);
 *     reload:   if (pg_policy_load(path, &np, &e) == PG_OK) { lock; old = current;
 *               current = np; unlock; pg_policy_free(old); }  else keep current, log e.
 *   A request that started under the old policy finishes under it.
 *
 * Windows
 *   pg_policy_check_file takes a plain path on a local drive (no UNC share,
 *   device path or stream), refuses a reparse point (symbolic link, junction)
 *   anywhere on it, and applies common/pg_win_acl.h's rule to the file and its
 *   directory: owned by SYSTEM, Administrators or TrustedInstaller, and no
 *   write-type right for anyone else (the tip gives the icacls fix).
 *   pg_policy_load then opens the file without following reparse points,
 *   re-checks the ACL on the handle and sets file_checked. Under Wine (no
 *   ACLs kept or enforced) the ACL rule is skipped and file_checked stays
 *   false; the path and reparse-point checks still run. Window patterns are
 *   compiled by PCRE2 through common/pg_regex.h with the same meaning as on
 *   Linux (syntax the engines read differently is refused at parse time); a
 *   title that hits PCRE2's match limit counts as matching a deny pattern and
 *   as not matching an allow pattern (fail closed).
 */
#ifndef PG_POLICY_H
#define PG_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_error.h"

#define PG_POLICY_DEFAULT_PATH "/etc/pixelgate/policy.json"
#define PG_POLICY_VERSION 1
#define PG_POLICY_MAX_BYTES (1u << 20) /* a larger policy file is refused */

typedef struct pg_policy pg_policy;

typedef enum {
    PG_EXPOSE_NEVER = 0,        /* no image leaves the broker: no release, no endpoint */
    PG_EXPOSE_ANALYZE_ONLY = 1, /* images go to policy endpoints; release needs an approver */
    PG_EXPOSE_ALLOW = 2         /* the agent may release pixels of its own tokens */
} pg_expose;

typedef enum { PG_ANALYSIS_LOCAL_ONLY = 0, PG_ANALYSIS_ALLOWLIST = 1 } pg_analysis_mode;

typedef enum { PG_ENDPOINT_OPENAI = 0, PG_ENDPOINT_COMMAND = 1 } pg_endpoint_kind;

/* One named analysis endpoint, as the administrator wrote it (validated). */
typedef struct {
    const char *name;
    pg_endpoint_kind kind;
    uint32_t timeout_s;          /* whole request/run, 1..3600 (default 30) */
    uint64_t max_response_bytes; /* response body / command stdout cap (default 65536) */
    /* kind == PG_ENDPOINT_OPENAI */
    const char *url;             /* as written, e.g. http://127.0.0.1:11434/v1/chat/completions */
    const char *scheme;          /* "http" or "https" (lower case) */
    const char *host;            /* lower case; IPv6 without brackets */
    uint16_t port;               /* explicit or the scheme's default */
    const char *origin;          /* "scheme://host:port", IPv6 host in brackets */
    const char *path;            /* path and query, at least "/" */
    const char *model;
    const char *api_key_file;    /* absolute path or NULL; the broker reads it */
    const char *unix_socket;     /* absolute path or NULL: connect here instead of TCP */
    bool host_is_loopback;       /* host is 127.0.0.0/8, ::1, ::ffff:127.x or "localhost" */
    /* kind == PG_ENDPOINT_COMMAND */
    const char *const *argv;     /* NULL-terminated; argv[0] is an absolute path */
    size_t argc;
} pg_policy_endpoint;

typedef struct pg_policy_patset pg_policy_patset; /* compiled window patterns (opaque) */

/* The effective policy for one user: the global policy with that user's
 * section merged in. Plain fields; owned by the policy. */
typedef struct {
    const char *user;                         /* NULL for the global view */
    pg_expose expose_pixels;
    pg_analysis_mode analysis_mode;
    bool ocr;
    /* analysis.ocr_languages: the Tesseract languages an agent may name with
     * --lang (alone or joined by '+'); the first is the default. Default:
     * Latin (every Latin-script language, Debian tesseract-ocr-script-latn),
     * eng, deu, fra, spa; on Windows only eng (the one language the
     * installer ships). A user's section may only keep some of them. */
    const char *const *ocr_langs;
    size_t n_ocr_langs;
    const pg_policy_endpoint *const *endpoints; /* this user's endpoints, in file order */
    size_t n_endpoints;
    const pg_policy_endpoint *default_endpoint; /* NULL: the agent must name one */
    const pg_policy_patset *deny_windows;      /* global patterns */
    const pg_policy_patset *deny_windows_user; /* added by users.NAME */
    const pg_policy_patset *allow_windows;     /* NULL: any window (subject to ownership) */
    const pg_policy_patset *allow_windows_user;/* NULL: no further narrowing */
    bool input_other_users;
    /* May a paste insert a selection (CLIPBOARD, PRIMARY) that another
     * user's program owns? Never one of a denied program's. */
    bool paste_other_users;
    /* How long one connection may keep keys or buttons held down (key-down,
     * mouse-down): hold_idle_s without a new input request from it, and
     * hold_max_s from its first press, whatever it sends; then the broker
     * lets go (docs/policy.md "input"). The holder's own view decides. */
    uint32_t hold_idle_s;
    uint32_t hold_max_s;
    /* capture.other_users: the accounts whose windows this user may see
     * (titles) and capture besides its own; another user's window is
     * otherwise private: refused for window captures, blacked out in screen
     * captures. A user's section may only keep some of the global names. */
    const char *const *capture_other_users;
    size_t n_capture_other_users;
    uint32_t token_ttl_s;
    uint64_t spool_quota_bytes;  /* this user's tokens together (the whole spool is capped by
                                    pg_policy_settings()->spool_quota_bytes) */
    uint64_t max_input_bytes;    /* one input image as sent by the client */
    uint64_t max_pixels;         /* decoded width*height of one input image */
    /* What numeric answers (digests, counts, boxes, scores) may reveal about
     * pixels this user may not have (expose_pixels is not allow): at most
     * bits_per_tile_hour about the content of one 16x16 tile and
     * bits_per_user_hour in all, each a budget that refills continuously at
     * that many bits per hour; answers about fewer than min_area pixels are
     * refused. docs/threat-model.md. */
    uint32_t bits_per_tile_hour;
    uint32_t bits_per_user_hour;
    uint32_t min_area;
} pg_policy_view;

/* person.indicator: how the sign that an agent drives is drawn. */
typedef enum { PG_INDICATE_OFF = 0, PG_INDICATE_RING, PG_INDICATE_BANNER } pg_policy_indicator;

/* Broker-wide settings that are not per user. */
typedef struct {
    const char *audit_path;      /* NULL: <state-dir>/audit.jsonl */
    uint64_t audit_rotate_bytes;
    uint32_t audit_flush_ms;   /* group commit of records other than intent; 0: every record synced */
    bool audit_journal;          /* audit.journal: each record also to the systemd journal (off) */
    bool audit_journal_titles;   /* audit.journal_window_titles: with titles and free text (off) */
    uint64_t spool_quota_bytes;  /* the whole spool */
    bool remote_clients;         /* clients.remote */
    bool file_checked;           /* pg_policy_load verified owner and modes (Windows: owner
                                    and DACL); false: parsed from memory, or under Wine */
    const char *source;          /* path given to pg_policy_load, or "(memory)" */
    const char *sha256;          /* hex SHA-256 of the policy bytes, for the audit log */
    /* person: the person's controls (docs/privacy.md "The person's controls"). */
    const char *person_stop_key;        /* the physical key that stops every agent ("Pause") */
    uint32_t person_quiet_ms;           /* take-over: agents wait this long after the person's last input */
    pg_policy_indicator person_indicator; /* ring (default), banner, off (the administrator's choice alone) */
    uint32_t person_indicator_linger_ms; /* the sign stays this long after the agent's last input */
    uint32_t lease_idle_s;              /* a lease ends after this long without input from its holder */
    uint32_t lease_max_s;               /* and lasts at most this long, whatever --ttl says */
} pg_policy_settings;

/* Who is asking, as the kernel says (never from the request). */
typedef struct {
    const char *user;               /* account name; required */
    uint32_t uid;                   /* POSIX uid; unused on Windows */
    const char *const *groups;      /* names of all groups: primary and supplementary
                                       (may be NULL when n_groups is 0) */
    size_t n_groups;
    bool admin;                     /* Windows: member of Administrators. POSIX: ignored;
                                       uid 0 is the administrator */
    bool remote;                    /* came through a remote transport (e.g. sshd-forwarded) */
} pg_principal;

/* Parse and validate policy text (pure; no file checks). len bytes, need not
 * be NUL-terminated. On success *out holds one reference. */
pg_err pg_policy_parse(const char *json, size_t len, pg_policy **out, pg_error *e);

/* StrictModes check of a policy path, without reading it (POSIX): the file is a
 * regular file, not a symlink, owned by root, not group/other-writable; its
 * directory is owned by root and not group/other-writable; every directory
 * above it is owned by root and not group/other-writable unless sticky; no
 * component is a symlink. Windows: see "Windows" above. */
pg_err pg_policy_check_file(const char *path, pg_error *e);

/* pg_policy_check_file, then read (O_NOFOLLOW; owner and mode re-checked on the
 * open descriptor; Windows: FILE_FLAG_OPEN_REPARSE_POINT, no write sharing,
 * ACL re-checked on the handle; at most PG_POLICY_MAX_BYTES) and parse.
 * Messages start with the path. */
pg_err pg_policy_load(const char *path, pg_policy **out, pg_error *e);

pg_policy *pg_policy_ref(pg_policy *p);   /* returns p; p may be NULL */
void pg_policy_free(pg_policy *p);        /* drops one reference; NULL is a no-op */

const pg_policy_settings *pg_policy_settings_get(const pg_policy *p);

/* Things that parse but that an administrator probably did not mean (e.g. a
 * policy that admits nobody). For the broker's log at load; may be 0. */
size_t pg_policy_warning_count(const pg_policy *p);
const char *pg_policy_warning(const pg_policy *p, size_t i);

/* Admission: is this principal one of clients.users / clients.groups, and if
 * remote, are remote clients on? PG_OK and *view = the principal's view, or
 * PG_E_POLICY saying why. */
pg_err pg_policy_admit(const pg_policy *p, const pg_principal *who, const pg_policy_view **view,
                       pg_error *e);

/* The view for a user name, without the admission check (never NULL; the
 * global view when user is NULL or has no section). */
const pg_policy_view *pg_policy_view_for(const pg_policy *p, const char *user);

/* baselines.shared_cases: the accounts that own case_id together (*n of
 * them), or NULL when the case is not shared (it is then its preparer's). */
const char *const *pg_policy_case_owners(const pg_policy *p, const char *case_id, size_t *n);
/* A case name as baselines take it: 1..64 of A-Z a-z 0-9 . _ -, not starting with '.'. */
bool pg_policy_case_name_ok(const char *s);
/* May `approver` approve a one-off release (or a baseline) requested by
 * `requester`? Root / Administrators always, users in "approvers" too; never
 * the requester itself (same uid or same name), not even root. PG_E_POLICY
 * with the reason otherwise. */
pg_err pg_policy_may_approve(const pg_policy *p, const pg_principal *approver,
                             const pg_principal *requester, pg_error *e);

/* Could `who` approve anything: root / Administrators, or named in
 * "approvers"? (Input into such a user's windows is refused: an approval
 * could be typed there.) */
bool pg_policy_is_approver(const pg_policy *p, const pg_principal *who);

/* May pixels be released to the agent? allow: PG_OK. analyze-only: PG_OK only
 * if `approved` (an approver granted this one request). never: PG_E_POLICY
 * even if approved. */
pg_err pg_policy_check_release(const pg_policy_view *v, bool approved, pg_error *e);

/* The endpoint an analysis/judge request names (name NULL or "": the view's
 * default). PG_E_POLICY when expose_pixels is never, when no endpoint is
 * named and there is no default, or when the name is not one of this user's
 * endpoints (the message lists the names that are). */
pg_err pg_policy_endpoint_find(const pg_policy_view *v, const char *name,
                               const pg_policy_endpoint **out, pg_error *e);

/* True when a window must not be captured: any global or per-user
 * deny_windows pattern matches its title, class or instance (NULL = "").
 * The matching pattern is copied to matched (may be NULL). */
bool pg_policy_capture_denied(const pg_policy_view *v, const char *title, const char *cls,
                              const char *instance, char *matched, size_t n);

/* May this user see and capture the windows of account `owner` (one of
 * capture.other_users)? Never for NULL or "". */
bool pg_policy_capture_user_allowed(const pg_policy_view *v, const char *owner);

/* May input (keys, text, pointer) go to this window? PG_OK when: the window
 * is not capture-denied; same_owner (its owning process runs as the
 * requesting uid, as the broker found out from the server side) or
 * input.other_users; and it matches allow_windows (if set) and the user's
 * allow_windows (if set). PG_E_POLICY with the reason otherwise. */
pg_err pg_policy_check_input(const pg_policy_view *v, const char *title, const char *cls,
                             const char *instance, bool same_owner, pg_error *e);

/* A window pattern an agent sent (--window, --match), held to the rules the
 * policy's own patterns follow: size, matching cost (no stacked or deeply
 * nested repetitions, which make glibc's regcomp take gigabytes), no
 * back-references, no syntax POSIX and PCRE2 read differently. PG_E_USAGE
 * saying why; the broker checks before it compiles anything. */
pg_err pg_policy_pattern_check(const char *pattern, pg_error *e);

/* The language spec an OCR request runs with: lang (NULL or "": the view's
 * default) when every '+'-part of it is one of v's ocr_langs, into out;
 * PG_E_POLICY naming the allowed ones otherwise, PG_E_USAGE when malformed. */
pg_err pg_policy_ocr_lang(const pg_policy_view *v, const char *lang, char out[128], pg_error *e);

/* Pattern list access (for logs and the audit): count and source text. */
size_t pg_policy_patset_count(const pg_policy_patset *s);
const char *pg_policy_patset_pattern(const pg_policy_patset *s, size_t i);

/* What an agent may know about its own view (for a "policy"/"caps" reply):
 * expose_pixels, analysis mode, endpoint names and kinds, default endpoint,
 * ocr, token ttl, quota and image limits. No URLs, paths or patterns.
 * Caller owns the result; NULL on allocation failure. */
cJSON *pg_policy_view_to_json(const pg_policy_view *v);

/* Every name the policy lets reach the broker at all: clients.users,
 * clients.groups and approvers (for a transport that filters before
 * admission, e.g. the Windows pipe's DACL). *all is true when clients.users
 * holds "*". The arrays are owned by the policy. */
typedef struct {
    const char *const *users, *const *groups, *const *approvers;
    size_t n_users, n_groups, n_approvers;
    bool all;
} pg_policy_principals;
void pg_policy_principals_get(const pg_policy *p, pg_policy_principals *out);

const char *pg_policy_expose_name(pg_expose x);          /* "never" | "analyze-only" | "allow" */
const char *pg_policy_mode_name(pg_analysis_mode m);    /* "local-only" | "allowlist" */

#endif
