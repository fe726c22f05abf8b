/* SPDX-License-Identifier: MIT */
/* pg_policy_parse.c - policy text -> validated, merged, immutable pg_policy.
 *
 * Every key is looked up by exact name after the object's members have been
 * checked against the list of keys it may hold, so an unknown key, a key that
 * only the global section may hold, or a duplicate key is an error naming its
 * JSON path. The global section is read completely (defaults filled in) before
 * any users.NAME section, and each user section starts from a copy of the
 * global view and may only move each value in the tightening direction.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"
#include "pg_policy_private.h"
#include "pg_url.h"

#define PATH_MAX_LEN 384
#define POLICY_TIP "fix this key in the policy file (docs/policy.md lists every key), then start or reload the broker"

/* Defaults (docs/policy.md, "Defaults"). */
#define DEF_TTL_S 3600u
#define DEF_HOLD_IDLE_S 10u
#define DEF_HOLD_MAX_S 60u
#define DEF_QUOTA_MB 1024u
#define DEF_MAX_INPUT_BYTES 67108864u
#define DEF_MAX_PIXELS 100000000u
#define DEF_TIMEOUT_S 30u
#define DEF_MAX_RESPONSE 65536u
#define DEF_ROTATE_MB 64u
#define DEF_PERSON_QUIET_MS 3000u   /* take-over: a few seconds after the person's last input */
#define DEF_PERSON_LINGER_MS 3000u  /* the indicator stays this long after the agent's last input */
#define DEF_LEASE_IDLE_S 60u
#define DEF_LEASE_MAX_S 3600u
#define DEF_AUDIT_FLUSH_MS 20u /* group commit: docs/audit.md "Durability" */
#define DEF_BITS_PER_TILE_HOUR 128u /* per 16x16 tile content: see docs/threat-model.md */
#define DEF_BITS_PER_USER_HOUR 8388608u /* 8 Mibit: tests/integration/busy_agent.sh is charged up to 6 an hour */
#define DEF_MIN_AREA 1024u             /* 32 x 32 */
#define MIB 1048576ull

typedef struct {
    pg_policy *p;
    pg_error *e;
} pc;

/* ---- memory ------------------------------------------------------------ */

void *pgp_alloc(pg_policy *p, size_t n) {
    if (p->n_allocs == p->cap_allocs) {
        size_t nc = p->cap_allocs ? p->cap_allocs * 2 : 64;
        void **na = realloc(p->allocs, nc * sizeof *na);
        if (!na) return NULL;
        p->allocs = na;
        p->cap_allocs = nc;
    }
    void *m = calloc(1, n ? n : 1);
    if (!m) return NULL;
    p->allocs[p->n_allocs++] = m;
    return m;
}

char *pgp_strndup(pg_policy *p, const char *s, size_t n) {
    char *d = pgp_alloc(p, n + 1);
    if (d) memcpy(d, s, n);
    return d;
}

char *pgp_strdup(pg_policy *p, const char *s) { return pgp_strndup(p, s, strlen(s)); }

void pgp_destroy(pg_policy *p) {
    if (!p) return;
    for (pg_policy_patset *s = p->patsets; s; s = s->next_all)
        for (size_t i = 0; i < s->n_compiled; i++) regfree(&s->re[i]);
    cJSON_Delete(p->tree);
    for (size_t i = 0; i < p->n_allocs; i++) free(p->allocs[i]);
    free(p->allocs);
    free(p);
}

bool pgp_name_eq(const char *a, const char *b) { return pgp_name_cmp(a, b) == 0; }

int pgp_name_cmp(const char *a, const char *b) {
#ifdef _WIN32
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'A' && ca <= 'Z') ca += 32;
        if (cb >= 'A' && cb <= 'Z') cb += 32;
        if (ca != cb || !ca) return ca - cb;
    }
#else
    return strcmp(a, b);
#endif
}

/* ---- errors and paths --------------------------------------------------- */

#if defined(__MINGW32__)
#define PGP_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#else
#define PGP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#endif

static pg_err bad(pc *c, const char *path, const char *fmt, ...) PGP_PRINTF(3, 4);
static pg_err bad(pc *c, const char *path, const char *fmt, ...) {
    char msg[PG_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pg_error_set(c->e, PG_E_BADINPUT, POLICY_TIP, "%s: %s", path, msg);
}

static pg_err oom(pc *c) { return pg_error_set(c->e, PG_E_INTERNAL, NULL, "policy: out of memory"); }

static bool ident_char(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           ch == '-';
}

/* parent.key, or parent["key"] when key is not identifier-like. */
static void path_key(char *out, const char *parent, const char *key) {
    bool plain = key[0] != '\0';
    for (const char *k = key; *k; k++)
        if (!ident_char(*k)) plain = false;
    if (plain && strlen(key) <= 64) {
        if (snprintf(out, PATH_MAX_LEN, "%s.%s", parent, key) < 0) out[0] = '\0';
        return;
    }
    char esc[160];
    size_t o = 0;
    for (const char *k = key; *k && o < 64; k++) {
        unsigned char ch = (unsigned char)*k;
        if (ch == '"' || ch == '\\') {
            esc[o++] = '\\';
            esc[o++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7f) {
            o += (size_t)snprintf(esc + o, sizeof esc - o, "\\u%04x", ch);
        } else {
            esc[o++] = (char)ch;
        }
    }
    esc[o] = '\0';
    if (snprintf(out, PATH_MAX_LEN, "%s[\"%s%s\"]", parent, esc, strlen(key) > 64 ? "..." : "") < 0) out[0] = '\0';
}

static void path_idx(char *out, const char *parent, size_t i) {
    if (snprintf(out, PATH_MAX_LEN, "%s[%zu]", parent, i) < 0) out[0] = '\0';
}

/* ---- raw text checks ------------------------------------------------------ */

/* The text must be UTF-8 without NUL bytes; strings may not hold control
 * characters or \u0000 (which would cut a C string short and let two
 * different keys look the same). Returns the offset of a problem or -1. */
static long prescan(const char *s, size_t len, const char **why) {
    bool in_str = false;
    for (size_t i = 0; i < len;) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == 0) {
            *why = "NUL byte";
            return (long)i;
        }
        if (ch >= 0x80) {
            size_t n = 0;
            uint32_t cp;
            if (ch >= 0xc2 && ch <= 0xdf) {
                n = 2;
                cp = ch & 0x1f;
            } else if (ch >= 0xe0 && ch <= 0xef) {
                n = 3;
                cp = ch & 0x0f;
            } else if (ch >= 0xf0 && ch <= 0xf4) {
                n = 4;
                cp = ch & 0x07;
            } else {
                *why = "invalid UTF-8";
                return (long)i;
            }
            if (i + n > len) {
                *why = "invalid UTF-8";
                return (long)i;
            }
            for (size_t k = 1; k < n; k++) {
                unsigned char cc = (unsigned char)s[i + k];
                if ((cc & 0xc0) != 0x80) {
                    *why = "invalid UTF-8";
                    return (long)i;
                }
                cp = cp << 6 | (cc & 0x3f);
            }
            if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
                (cp >= 0xd800 && cp <= 0xdfff)) {
                *why = "invalid UTF-8";
                return (long)i;
            }
            i += n;
            continue;
        }
        if (in_str) {
            if (ch < 0x20) {
                *why = "control character inside a string";
                return (long)i;
            }
            if (ch == '\\') {
                if (i + 5 < len && s[i + 1] == 'u' && memcmp(s + i + 2, "0000", 4) == 0) {
                    *why = "\\u0000 inside a string";
                    return (long)i;
                }
                i += 2;
                continue;
            }
            if (ch == '"') in_str = false;
        } else if (ch == '"') {
            in_str = true;
        }
        i++;
    }
    return -1;
}

static void line_col(const char *s, size_t off, unsigned *line, unsigned *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* ---- generic value readers ---------------------------------------------- */

static bool is_comment_key(const char *k) { return strcmp(k, "//") == 0; }

static pg_err check_comment(pc *c, const cJSON *v, const char *path) {
    if (cJSON_IsString(v)) return PG_OK;
    if (cJSON_IsArray(v)) {
        for (const cJSON *x = v->child; x; x = x->next)
            if (!cJSON_IsString(x)) return bad(c, path, "a comment is a string or an array of strings");
        return PG_OK;
    }
    return bad(c, path, "a comment is a string or an array of strings");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }
static int cmp_name(const void *a, const void *b) {
    return pgp_name_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* Members: size cap, "//" comments, duplicates (by strcmp, or by name rules
 * when by_name). */
static pg_err check_members(pc *c, const cJSON *obj, const char *path, bool by_name) {
    size_t n = 0;
    for (const cJSON *x = obj->child; x; x = x->next) {
        if (++n > PGP_MAX_MEMBERS) return bad(c, path, "more than %d members", PGP_MAX_MEMBERS);
    }
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return oom(c);
    size_t k = 0;
    pg_err rc = PG_OK;
    char sub[PATH_MAX_LEN];
    for (const cJSON *x = obj->child; x; x = x->next) {
        if (!x->string) {
            free(keys);
            return bad(c, path, "member without a name");
        }
        if (is_comment_key(x->string)) {
            path_key(sub, path, x->string);
            if ((rc = check_comment(c, x, sub)) != PG_OK) {
                free(keys);
                return rc;
            }
            continue;
        }
        keys[k++] = x->string;
    }
    qsort(keys, k, sizeof *keys, by_name ? cmp_name : cmp_str);
    for (size_t i = 1; i < k; i++) {
        if ((by_name ? pgp_name_cmp(keys[i - 1], keys[i]) : strcmp(keys[i - 1], keys[i])) == 0) {
            path_key(sub, path, keys[i]);
            rc = bad(c, sub, "duplicate key (each key may appear once%s)",
                     by_name && strcmp(keys[i - 1], keys[i]) ? "; names compare case-insensitively here" : "");
            break;
        }
    }
    free(keys);
    return rc;
}

static bool in_list(const char *k, const char *const *list) {
    for (; list && *list; list++)
        if (strcmp(k, *list) == 0) return true;
    return false;
}

/* A fixed-schema object: only `keys` may appear; `forbidden` keys get `why`. */
static pg_err check_object(pc *c, const cJSON *obj, const char *path, const char *const *keys,
                           const char *const *forbidden, const char *why) {
    if (!cJSON_IsObject(obj)) return bad(c, path, "expected an object");
    pg_err rc = check_members(c, obj, path, false);
    if (rc != PG_OK) return rc;
    char sub[PATH_MAX_LEN];
    for (const cJSON *x = obj->child; x; x = x->next) {
        if (is_comment_key(x->string) || in_list(x->string, keys)) continue;
        path_key(sub, path, x->string);
        if (in_list(x->string, forbidden)) return bad(c, sub, "%s", why);
        char expect[256];
        size_t o = 0;
        expect[0] = '\0';
        for (const char *const *kk = keys; *kk && o < sizeof expect; kk++)
            o += (size_t)snprintf(expect + o, sizeof expect - o, "%s%s", o ? ", " : "", *kk);
        return bad(c, sub, "unknown key (expected one of: %s)", expect);
    }
    return PG_OK;
}

static const cJSON *get(const cJSON *obj, const char *key) {
    for (const cJSON *x = obj ? obj->child : NULL; x; x = x->next)
        if (x->string && strcmp(x->string, key) == 0) return x;
    return NULL;
}

/* An integer in [min,max]. */
static pg_err read_uint(pc *c, const cJSON *v, const char *path, uint64_t min, uint64_t max, uint64_t *out) {
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || floor(v->valuedouble) != v->valuedouble ||
        v->valuedouble < (double)min || v->valuedouble > (double)max)
        return bad(c, path, "expected an integer in %llu..%llu", (unsigned long long)min, (unsigned long long)max);
    *out = (uint64_t)v->valuedouble;
    return PG_OK;
}

static pg_err read_bool(pc *c, const cJSON *v, const char *path, bool *out) {
    if (!cJSON_IsBool(v)) return bad(c, path, "expected true or false");
    *out = cJSON_IsTrue(v);
    return PG_OK;
}

static pg_err read_string(pc *c, const cJSON *v, const char *path, const char **out) {
    if (!cJSON_IsString(v) || !v->valuestring) return bad(c, path, "expected a string");
    *out = v->valuestring;
    return PG_OK;
}

static pg_err read_array(pc *c, const cJSON *v, const char *path, size_t *n) {
    if (!cJSON_IsArray(v)) return bad(c, path, "expected an array");
    size_t k = 0;
    for (const cJSON *x = v->child; x; x = x->next)
        if (++k > PGP_MAX_MEMBERS) return bad(c, path, "more than %d elements", PGP_MAX_MEMBERS);
    *n = k;
    return PG_OK;
}

/* POSIX: starts with '/'. Windows: a drive path (C:\...), a UNC path, or a
 * path rooted on the current drive (\... or /...). Never relative: nothing
 * the broker runs or opens depends on its working directory or PATH. */
static bool is_abs_path(const char *s) {
#ifdef _WIN32
    if (((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) && s[1] == ':' &&
        (s[2] == '\\' || s[2] == '/'))
        return true;
    return s[0] == '\\' || s[0] == '/';
#else
    return s[0] == '/';
#endif
}

static pg_err read_abs_path(pc *c, const cJSON *v, const char *path, size_t max, const char **out) {
    const char *s = NULL;
    pg_err rc = read_string(c, v, path, &s);
    if (rc != PG_OK) return rc;
    if (!is_abs_path(s) || strlen(s) > max)
        return bad(c, path, "expected an absolute path of at most %zu bytes", max);
    *out = s;
    return PG_OK;
}

/* User and group names: 1..256 bytes, no control characters, no surrounding
 * spaces, not all digits (names only; the broker never matches uids here). */
static pg_err check_principal_name(pc *c, const char *s, const char *path, bool allow_star) {
    size_t len = strlen(s);
    if (allow_star && strcmp(s, "*") == 0) return PG_OK;
    if (len == 0 || len > PGP_MAX_NAME) return bad(c, path, "a name must be 1..%d bytes", PGP_MAX_NAME);
    bool digits = true;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f) return bad(c, path, "a name may not contain control characters");
        if (ch < '0' || ch > '9') digits = false;
    }
    if (digits) return bad(c, path, "\"%s\": write the account name, not a numeric id", s);
    if (s[0] == ' ' || s[len - 1] == ' ') return bad(c, path, "a name may not start or end with a space");
    if (strcmp(s, "*") == 0) return bad(c, path, "\"*\" is only meaningful in $.clients.users");
    return PG_OK;
}

static pg_err read_names(pc *c, const cJSON *v, const char *path, bool allow_star, const char ***out, size_t *n,
                         bool *star) {
    pg_err rc = read_array(c, v, path, n);
    if (rc != PG_OK) return rc;
    *out = pgp_alloc(c->p, (*n ? *n : 1) * sizeof **out);
    if (!*out) return oom(c);
    size_t i = 0;
    char sub[PATH_MAX_LEN];
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        path_idx(sub, path, i);
        const char *s = NULL;
        if ((rc = read_string(c, x, sub, &s)) != PG_OK) return rc;
        if ((rc = check_principal_name(c, s, sub, allow_star)) != PG_OK) return rc;
        if (star && strcmp(s, "*") == 0) *star = true;
        (*out)[i] = s;
    }
    return PG_OK;
}

static bool valid_ep_name(const char *s) {
    size_t len = strlen(s);
    if (len == 0 || len > PGP_MAX_EP_NAME || !ident_char(s[0]) || s[0] == '-') return false;
    for (size_t i = 0; i < len; i++)
        if (!ident_char(s[i]) && s[i] != '.') return false;
    return true;
}

/* ---- window patterns ---------------------------------------------------- */

static pg_err read_patterns(pc *c, const cJSON *v, const char *path, pg_policy_patset **out) {
    size_t n = 0;
    pg_err rc = read_array(c, v, path, &n);
    if (rc != PG_OK) return rc;
    pg_policy_patset *s = pgp_alloc(c->p, sizeof *s);
    if (!s) return oom(c);
    s->src = pgp_alloc(c->p, (n ? n : 1) * sizeof *s->src);
    if (!s->src) return oom(c);
    s->re = pgp_alloc(c->p, (n ? n : 1) * sizeof *s->re);
    if (!s->re) return oom(c);
    s->next_all = c->p->patsets;
    c->p->patsets = s;
    size_t i = 0;
    char sub[PATH_MAX_LEN], why[256];
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        path_idx(sub, path, i);
        const char *src = NULL;
        if ((rc = read_string(c, x, sub, &src)) != PG_OK) return rc;
        if (!pgp_pattern_check(src, why, sizeof why)) return bad(c, sub, "%s", why);
        int r = pg_regex_compile(&s->re[i], src);
        if (r != 0) {
            regerror(r, &s->re[i], why, sizeof why);
            return bad(c, sub, "invalid regular expression \"%.100s\": %s (POSIX extended syntax)", src, why);
        }
        s->n_compiled = i + 1;
        s->src[i] = src;
        s->n = i + 1;
    }
    *out = s;
    return PG_OK;
}

/* ---- endpoints ---------------------------------------------------------- */

static const char *const openai_keys[] = {"kind",         "url",          "model",      "timeout_s",
                                          "max_response_bytes", "api_key_file", "unix_socket", NULL};
static const char *const command_keys[] = {"kind", "argv", "timeout_s", "max_response_bytes", NULL};

static pg_err parse_endpoint(pc *c, const char *name, const cJSON *v, const char *path, pg_policy_endpoint *ep) {
    char sub[PATH_MAX_LEN];
    if (!cJSON_IsObject(v)) return bad(c, path, "expected an object");
    const cJSON *kind = get(v, "kind");
    path_key(sub, path, "kind");
    if (!kind) return bad(c, sub, "required: \"openai\" or \"command\"");
    const char *ks = NULL;
    pg_err rc = read_string(c, kind, sub, &ks);
    if (rc != PG_OK) return rc;
    if (strcmp(ks, "openai") == 0) {
        ep->kind = PG_ENDPOINT_OPENAI;
    } else if (strcmp(ks, "command") == 0) {
        ep->kind = PG_ENDPOINT_COMMAND;
    } else {
        return bad(c, sub, "expected \"openai\" or \"command\", not \"%.64s\"", ks);
    }
    if ((rc = check_object(c, v, path, ep->kind == PG_ENDPOINT_OPENAI ? openai_keys : command_keys,
                           ep->kind == PG_ENDPOINT_OPENAI ? command_keys : openai_keys,
                           ep->kind == PG_ENDPOINT_OPENAI ? "not a key of an \"openai\" endpoint"
                                                          : "not a key of a \"command\" endpoint")) != PG_OK)
        return rc;
    ep->name = name;
    ep->timeout_s = DEF_TIMEOUT_S;
    ep->max_response_bytes = DEF_MAX_RESPONSE;
    const cJSON *x;
    uint64_t u = 0;
    if ((x = get(v, "timeout_s"))) {
        path_key(sub, path, "timeout_s");
        if ((rc = read_uint(c, x, sub, 1, 3600, &u)) != PG_OK) return rc;
        ep->timeout_s = (uint32_t)u;
    }
    if ((x = get(v, "max_response_bytes"))) {
        path_key(sub, path, "max_response_bytes");
        if ((rc = read_uint(c, x, sub, 1, 64 * MIB, &ep->max_response_bytes)) != PG_OK) return rc;
    }
    if (ep->kind == PG_ENDPOINT_COMMAND) {
        path_key(sub, path, "argv");
        if (!(x = get(v, "argv"))) return bad(c, sub, "required: the program and its arguments, e.g. [\"/usr/local/bin/judge\"]");
        size_t n = 0;
        if ((rc = read_array(c, x, sub, &n)) != PG_OK) return rc;
        if (n == 0 || n > PGP_MAX_ARGV) return bad(c, sub, "expected 1..%d strings", PGP_MAX_ARGV);
        const char **argv = pgp_alloc(c->p, (n + 1) * sizeof *argv);
        if (!argv) return oom(c);
        size_t i = 0;
        char el[PATH_MAX_LEN];
        for (const cJSON *a = x->child; a; a = a->next, i++) {
            path_idx(el, sub, i);
            if ((rc = read_string(c, a, el, &argv[i])) != PG_OK) return rc;
            if (strlen(argv[i]) > PGP_MAX_ARG) return bad(c, el, "argument longer than %d bytes", PGP_MAX_ARG);
        }
        if (!is_abs_path(argv[0]))
            return bad(c, sub, "argv[0] must be an absolute path (the broker never searches PATH)");
        ep->argv = argv;
        ep->argc = n;
        return PG_OK;
    }
    path_key(sub, path, "url");
    if (!(x = get(v, "url"))) return bad(c, sub, "required: the chat-completions URL, e.g. http://127.0.0.1:11434/v1/chat/completions");
    if ((rc = read_string(c, x, sub, &ep->url)) != PG_OK) return rc;
    pg_url url;
    pg_error ue;
    if (pg_url_parse(ep->url, &url, &ue) != PG_OK) return bad(c, sub, "%s", ue.message);
    if (!(ep->scheme = pgp_strdup(c->p, pg_url_scheme(&url))) || !(ep->host = pgp_strdup(c->p, url.host)) ||
        !(ep->origin = pgp_strdup(c->p, url.origin)) || !(ep->path = pgp_strdup(c->p, url.path)))
        return oom(c);
    ep->port = url.port;
    ep->host_is_loopback = pg_url_is_loopback(&url);
    path_key(sub, path, "model");
    if (!(x = get(v, "model"))) return bad(c, sub, "required: the model name the server expects");
    if ((rc = read_string(c, x, sub, &ep->model)) != PG_OK) return rc;
    if (ep->model[0] == '\0' || strlen(ep->model) > 256) return bad(c, sub, "expected 1..256 bytes");
    if ((x = get(v, "api_key_file"))) {
        path_key(sub, path, "api_key_file");
        if ((rc = read_abs_path(c, x, sub, PGP_MAX_PATH, &ep->api_key_file)) != PG_OK) return rc;
    }
    if ((x = get(v, "unix_socket"))) {
        path_key(sub, path, "unix_socket");
        if ((rc = read_abs_path(c, x, sub, 107, &ep->unix_socket)) != PG_OK) return rc;
    }
    return PG_OK;
}

/* ---- sections ----------------------------------------------------------- */

static const char *const top_keys[] = {"version", "expose_pixels", "analysis", "clients", "approvers", "baselines",
                                       "capture", "input", "tokens", "images", "disclosure", "audit", "person", "users", NULL};
static const char *const user_keys[] = {"expose_pixels", "analysis", "capture", "input",
                                        "tokens",        "images",   "disclosure", NULL};
static const char *const global_only[] = {"version", "clients", "approvers", "baselines", "audit", "person", "users",
                                          NULL};
static const char *const analysis_keys[] = {"mode",        "endpoints", "allowlist", "default_endpoint", "ocr",
                                            "ocr_languages", NULL};
static const char *const user_analysis_keys[] = {"mode", "endpoints", "default_endpoint", "ocr", "ocr_languages", NULL};
#ifdef _WIN32
static const char *const default_ocr_langs[] = {"eng"};
#else
static const char *const default_ocr_langs[] = {"Latin", "eng", "deu", "fra", "spa"};
#endif

static bool ocr_lang_name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 31) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* analysis.ocr_languages: 1..16 distinct names; per user (g non-NULL) only
 * names the global list has. */
static pg_err parse_ocr_langs(pc *c, const cJSON *x, const char *path, const pg_policy_view *g, pg_policy_view *v) {
    char el[PATH_MAX_LEN];
    size_t n = 0;
    pg_err rc = read_array(c, x, path, &n);
    if (rc != PG_OK) return rc;
    if (n == 0 || n > 16) return bad(c, path, "expected 1..16 language names");
    const char **langs = pgp_alloc(c->p, n * sizeof *langs);
    if (!langs) return oom(c);
    size_t i = 0;
    for (const cJSON *o = x->child; o; o = o->next, i++) {
        path_idx(el, path, i);
        const char *s = NULL;
        if ((rc = read_string(c, o, el, &s)) != PG_OK) return rc;
        if (!ocr_lang_name_ok(s))
            return bad(c, el, "a Tesseract language name is 1..31 of A-Z a-z 0-9 _ (eng, deu, Latin)");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(langs[k], s)) return bad(c, el, "\"%s\" is listed twice", s);
        if (g) {
            bool known = false;
            for (size_t k = 0; k < g->n_ocr_langs; k++) known |= !strcmp(g->ocr_langs[k], s);
            if (!known) return bad(c, el, "may only tighten: \"%s\" is not in $.analysis.ocr_languages", s);
        }
        if (!(langs[i] = pgp_strdup(c->p, s))) return oom(c);
    }
    v->ocr_langs = langs;
    v->n_ocr_langs = n;
    return PG_OK;
}
/* capture.other_users: account names whose windows the user may see and
 * capture. Globally any names; per user (g non-NULL) only names the global
 * list has, so a section can narrow what its user sees, never widen it. */
static pg_err parse_capture_users(pc *c, const cJSON *x, const char *path, const pg_policy_view *g,
                                  pg_policy_view *v) {
    const char **names = NULL;
    size_t n = 0;
    pg_err rc = read_names(c, x, path, false, &names, &n, NULL);
    if (rc != PG_OK) return rc;
    char el[PATH_MAX_LEN];
    for (size_t i = 0; g && i < n; i++) {
        path_idx(el, path, i);
        if (!pg_policy_capture_user_allowed(g, names[i]))
            return bad(c, el, "may only tighten: \"%s\" is not in $.capture.other_users", names[i]);
    }
    v->capture_other_users = names;
    v->n_capture_other_users = n;
    return PG_OK;
}

static const char *const baselines_keys[] = {"shared_cases", NULL};

/* baselines.shared_cases: {"CASE": ["owner", ...], ...}. A case is its
 * preparer's unless listed here; a listed case is its owners' together. */
static pg_err parse_baselines(pc *c, const cJSON *x, pg_policy *p) {
    pg_err rc = check_object(c, x, "$.baselines", baselines_keys, NULL, NULL);
    const cJSON *cases = rc ? NULL : get(x, "shared_cases");
    if (rc != PG_OK || !cases) return rc;
    const char *path = "$.baselines.shared_cases";
    if (!cJSON_IsObject(cases)) return bad(c, path, "expected an object of case names, each with its owners");
    if ((rc = check_members(c, cases, path, true)) != PG_OK) return rc;
    size_t n = 0;
    for (const cJSON *k = cases->child; k; k = k->next) n += !is_comment_key(k->string);
    p->shared_cases = pgp_alloc(p, (n ? n : 1) * sizeof *p->shared_cases);
    p->shared_owners = pgp_alloc(p, (n ? n : 1) * sizeof *p->shared_owners);
    p->n_shared_owners = pgp_alloc(p, (n ? n : 1) * sizeof *p->n_shared_owners);
    if (!p->shared_cases || !p->shared_owners || !p->n_shared_owners) return oom(c);
    char sub[PATH_MAX_LEN];
    for (const cJSON *k = cases->child; k; k = k->next) {
        if (is_comment_key(k->string)) continue;
        path_key(sub, path, k->string);
        if (!pg_policy_case_name_ok(k->string)) return bad(c, sub, "a case name is 1..64 of A-Z a-z 0-9 . _ -");
        const char **owners = NULL;
        size_t m = 0;
        if ((rc = read_names(c, k, sub, false, &owners, &m, NULL)) != PG_OK) return rc;
        if (m == 0) return bad(c, sub, "a shared case needs at least one owner");
        size_t i = p->n_shared_cases++;
        p->shared_cases[i] = k->string, p->shared_owners[i] = owners, p->n_shared_owners[i] = m;
    }
    return PG_OK;
}

static const char *const user_analysis_forbidden[] = {"allowlist", NULL};
static const char *const capture_keys[] = {"deny_windows", "other_users", NULL};
static const char *const input_keys[] = {"allow_windows", "other_users", "hold_idle_s", "hold_max_s", "paste_other_users", NULL};
static const char *const tokens_keys[] = {"ttl_s", "spool_quota_mb", NULL};
static const char *const images_keys[] = {"max_input_bytes", "max_pixels", NULL};
static const char *const disclosure_keys[] = {"bits_per_tile_hour", "bits_per_user_hour", "min_area", "bits_per_source_hour", NULL};
static const char *const clients_keys[] = {"users", "groups", "remote", NULL};
static const char *const person_keys[] = {"stop_key", "quiet_ms", "indicator", "indicator_linger_ms",
                                          "lease_idle_s", "lease_max_s", NULL};
static const char *const audit_keys[] = {"path", "rotate_mb", "flush_ms", "journal", "journal_window_titles", NULL};

static const char *const expose_names[] = {"never", "analyze-only", "allow"};
static const char *const mode_names[] = {"local-only", "allowlist"};

const char *pg_policy_expose_name(pg_expose x) {
    return (unsigned)x < 3 ? expose_names[x] : "never";
}
const char *pg_policy_mode_name(pg_analysis_mode m) { return (unsigned)m < 2 ? mode_names[m] : "local-only"; }

static pg_err read_enum(pc *c, const cJSON *v, const char *path, const char *const *names, int n, int *out) {
    char expect[128];
    size_t o = 0;
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(expect + o, sizeof expect - o, "%s\"%s\"", i ? (i == n - 1 ? " or " : ", ") : "",
                              names[i]);
    if (!cJSON_IsString(v)) return bad(c, path, "expected %s", expect);
    for (int i = 0; i < n; i++)
        if (strcmp(v->valuestring, names[i]) == 0) {
            *out = i;
            return PG_OK;
        }
    return bad(c, path, "expected %s, not \"%.64s\"", expect, v->valuestring);
}

static const pg_policy_endpoint *global_ep(const pg_policy *p, const char *name) {
    for (size_t i = 0; i < p->n_eps; i++)
        if (strcmp(p->eps[i]->name, name) == 0) return p->eps[i];
    return NULL;
}

static bool ep_is_local(const pg_policy_endpoint *ep) {
    return ep->kind == PG_ENDPOINT_COMMAND || ep->host_is_loopback;
}

static const pg_policy_endpoint *view_ep(const pg_policy_view *v, const char *name) {
    for (size_t i = 0; i < v->n_endpoints; i++)
        if (strcmp(v->endpoints[i]->name, name) == 0) return v->endpoints[i];
    return NULL;
}

/* Global analysis: mode, allowlist, endpoints, default, ocr. */
static pg_err parse_global_analysis(pc *c, const cJSON *a, const char *path, pg_policy_view *v) {
    pg_policy *p = c->p;
    pg_err rc = check_object(c, a, path, analysis_keys, NULL, NULL);
    if (rc != PG_OK) return rc;
    char sub[PATH_MAX_LEN], el[PATH_MAX_LEN];
    const cJSON *x;
    int iv = 0;
    if ((x = get(a, "mode"))) {
        path_key(sub, path, "mode");
        if ((rc = read_enum(c, x, sub, mode_names, 2, &iv)) != PG_OK) return rc;
        v->analysis_mode = (pg_analysis_mode)iv;
    }
    if ((x = get(a, "ocr"))) {
        path_key(sub, path, "ocr");
        if ((rc = read_bool(c, x, sub, &v->ocr)) != PG_OK) return rc;
    }
    if ((x = get(a, "ocr_languages"))) {
        path_key(sub, path, "ocr_languages");
        if ((rc = parse_ocr_langs(c, x, sub, NULL, v)) != PG_OK) return rc;
    }
    if ((x = get(a, "allowlist"))) {
        path_key(sub, path, "allowlist");
        size_t n = 0;
        if ((rc = read_array(c, x, sub, &n)) != PG_OK) return rc;
        p->allowlist = pgp_alloc(p, (n ? n : 1) * sizeof *p->allowlist);
        if (!p->allowlist) return oom(c);
        p->allowlist_present = true;
        size_t i = 0;
        for (const cJSON *o = x->child; o; o = o->next, i++) {
            path_idx(el, sub, i);
            const char *s = NULL;
            if ((rc = read_string(c, o, el, &s)) != PG_OK) return rc;
            pg_url u;
            pg_error ue;
            if (pg_url_parse(s, &u, &ue) != PG_OK) return bad(c, el, "%s", ue.message);
            if (!pg_url_is_origin(&u))
                return bad(c, el, "an allowlist entry is an origin, scheme://host[:port], without a path or query");
            if (!(p->allowlist[i] = pgp_strdup(p, u.origin))) return oom(c);
        }
        p->n_allowlist = n;
    }
    if ((x = get(a, "endpoints"))) {
        path_key(sub, path, "endpoints");
        if (!cJSON_IsObject(x)) return bad(c, sub, "expected an object of named endpoints");
        if ((rc = check_members(c, x, sub, false)) != PG_OK) return rc;
        size_t n = 0;
        for (const cJSON *o = x->child; o; o = o->next)
            if (!is_comment_key(o->string)) n++;
        if (n > PGP_MAX_ENDPOINTS) return bad(c, sub, "more than %d endpoints", PGP_MAX_ENDPOINTS);
        p->eps = pgp_alloc(p, (n ? n : 1) * sizeof *p->eps);
        if (!p->eps) return oom(c);
        for (const cJSON *o = x->child; o; o = o->next) {
            if (is_comment_key(o->string)) continue;
            path_key(el, sub, o->string);
            if (!valid_ep_name(o->string))
                return bad(c, el, "an endpoint name is 1..%d of A-Z a-z 0-9 . _ - (starting with a letter, digit or _)",
                           PGP_MAX_EP_NAME);
            pg_policy_endpoint *ep = pgp_alloc(p, sizeof *ep);
            if (!ep) return oom(c);
            if ((rc = parse_endpoint(c, o->string, o, el, ep)) != PG_OK) return rc;
            if (ep->kind == PG_ENDPOINT_OPENAI) {
                char up[PATH_MAX_LEN];
                path_key(up, el, "url");
                if (v->analysis_mode == PG_ANALYSIS_LOCAL_ONLY && !ep->host_is_loopback)
                    return bad(c, up,
                               "\"mode\": \"local-only\" admits only loopback hosts (127.0.0.1, [::1], localhost), "
                               "not %s; for a remote endpoint set \"mode\": \"allowlist\" and list its origin",
                               ep->host);
                if (v->analysis_mode == PG_ANALYSIS_ALLOWLIST) {
                    bool found = false;
                    for (size_t k = 0; k < p->n_allowlist; k++)
                        if (strcmp(p->allowlist[k], ep->origin) == 0) found = true;
                    if (!found)
                        return bad(c, up, "origin %s is not in $.analysis.allowlist (add it there to allow it)",
                                   ep->origin);
                }
            }
            p->eps[p->n_eps++] = ep;
        }
    }
    v->endpoints = p->eps;
    v->n_endpoints = p->n_eps;
    if ((x = get(a, "default_endpoint"))) {
        path_key(sub, path, "default_endpoint");
        const char *s = NULL;
        if ((rc = read_string(c, x, sub, &s)) != PG_OK) return rc;
        if (!(v->default_endpoint = global_ep(p, s)))
            return bad(c, sub, "no endpoint \"%.64s\" in $.analysis.endpoints", s);
    } else if (p->n_eps == 1) {
        v->default_endpoint = p->eps[0];
    }
    return PG_OK;
}

/* users.NAME.analysis: mode (only towards local-only), endpoints (names, a
 * subset), default_endpoint (one of the user's), ocr (only off). */
static pg_err parse_user_analysis(pc *c, const cJSON *a, const char *path, const pg_policy_view *g,
                                  pg_policy_view *v) {
    pg_policy *p = c->p;
    pg_err rc = check_object(c, a, path, user_analysis_keys, user_analysis_forbidden,
                             "not allowed per user: restrict a user's endpoints with users.NAME.analysis.endpoints");
    if (rc != PG_OK) return rc;
    char sub[PATH_MAX_LEN], el[PATH_MAX_LEN];
    const cJSON *x;
    int iv = 0;
    if ((x = get(a, "mode"))) {
        path_key(sub, path, "mode");
        if ((rc = read_enum(c, x, sub, mode_names, 2, &iv)) != PG_OK) return rc;
        if (iv == PG_ANALYSIS_ALLOWLIST && g->analysis_mode == PG_ANALYSIS_LOCAL_ONLY)
            return bad(c, sub, "may only tighten (global is local-only)");
        v->analysis_mode = (pg_analysis_mode)iv;
    }
    if ((x = get(a, "ocr"))) {
        path_key(sub, path, "ocr");
        bool b = false;
        if ((rc = read_bool(c, x, sub, &b)) != PG_OK) return rc;
        if (b && !g->ocr) return bad(c, sub, "may only tighten (global is false)");
        v->ocr = b;
    }
    if ((x = get(a, "ocr_languages"))) {
        path_key(sub, path, "ocr_languages");
        if ((rc = parse_ocr_langs(c, x, sub, g, v)) != PG_OK) return rc;
    }
    bool local = v->analysis_mode == PG_ANALYSIS_LOCAL_ONLY;
    const pg_policy_endpoint **eps = pgp_alloc(p, (g->n_endpoints ? g->n_endpoints : 1) * sizeof *eps);
    if (!eps) return oom(c);
    size_t n = 0;
    if ((x = get(a, "endpoints"))) {
        path_key(sub, path, "endpoints");
        size_t cnt = 0;
        if (cJSON_IsObject(x))
            return bad(c, sub, "per user this is a list of endpoint names kept from $.analysis.endpoints");
        if ((rc = read_array(c, x, sub, &cnt)) != PG_OK) return rc;
        size_t i = 0;
        for (const cJSON *o = x->child; o; o = o->next, i++) {
            path_idx(el, sub, i);
            const char *s = NULL;
            if ((rc = read_string(c, o, el, &s)) != PG_OK) return rc;
            const pg_policy_endpoint *ep = global_ep(p, s);
            if (!ep)
                return bad(c, el, "no endpoint \"%.64s\" in $.analysis.endpoints (a user may only remove endpoints)",
                           s);
            if (local && !ep_is_local(ep))
                return bad(c, el, "endpoint \"%s\" is not loopback, and this user's analysis mode is local-only", s);
            bool dup = false;
            for (size_t k = 0; k < n; k++)
                if (eps[k] == ep) dup = true;
            if (!dup) eps[n++] = ep;
        }
    } else {
        for (size_t i = 0; i < g->n_endpoints; i++)
            if (!local || ep_is_local(g->endpoints[i])) eps[n++] = g->endpoints[i];
    }
    v->endpoints = eps;
    v->n_endpoints = n;
    v->default_endpoint = NULL;
    if ((x = get(a, "default_endpoint"))) {
        path_key(sub, path, "default_endpoint");
        const char *s = NULL;
        if ((rc = read_string(c, x, sub, &s)) != PG_OK) return rc;
        if (!(v->default_endpoint = view_ep(v, s)))
            return bad(c, sub, "\"%.64s\" is not one of this user's endpoints", s);
    } else if (g->default_endpoint && view_ep(v, g->default_endpoint->name)) {
        v->default_endpoint = g->default_endpoint;
    } else if (n == 1) {
        v->default_endpoint = eps[0];
    }
    return PG_OK;
}

static pg_err tighten_uint(pc *c, const cJSON *x, const char *path, uint64_t min, uint64_t max, uint64_t global,
                           bool is_user, uint64_t *out) {
    uint64_t u = 0;
    pg_err rc = read_uint(c, x, path, min, max, &u);
    if (rc != PG_OK) return rc;
    if (is_user && u > global)
        return bad(c, path, "may only tighten: lower it or leave it out (global is %llu)", (unsigned long long)global);
    *out = u;
    return PG_OK;
}

/* disclosure: the budget of what numeric answers may reveal about pixels the
 * caller may not have (docs/threat-model.md). Tightening lowers a budget and
 * raises the minimum area. */
static pg_err parse_disclosure(pc *c, const cJSON *x, const char *path, const pg_policy_view *g, pg_policy_view *v) {
    char sub[PATH_MAX_LEN], el[PATH_MAX_LEN];
    path_key(sub, path, "disclosure");
    pg_err rc = check_object(c, x, sub, disclosure_keys, NULL, NULL);
    if (rc != PG_OK) return rc;
    bool is_user = g != NULL;
    const cJSON *y;
    uint64_t u = 0;
    if ((y = get(x, "bits_per_source_hour"))) { /* before issue 27: one window was several sources */
        path_key(el, sub, "bits_per_source_hour");
        return bad(c, el,
                   "is replaced by bits_per_tile_hour: charges are kept per 16x16 tile content, not per window or "
                   "screen (docs/policy.md, disclosure); remove it, or write bits_per_tile_hour (default %u)",
                   DEF_BITS_PER_TILE_HOUR);
    }
    if ((y = get(x, "bits_per_tile_hour"))) {
        path_key(el, sub, "bits_per_tile_hour");
        if ((rc = tighten_uint(c, y, el, 0, 1u << 30, is_user ? g->bits_per_tile_hour : 0, is_user, &u)) != PG_OK)
            return rc;
        v->bits_per_tile_hour = (uint32_t)u;
    }
    if ((y = get(x, "bits_per_user_hour"))) {
        path_key(el, sub, "bits_per_user_hour");
        if ((rc = tighten_uint(c, y, el, 0, 1u << 30, is_user ? g->bits_per_user_hour : 0, is_user, &u)) != PG_OK)
            return rc;
        v->bits_per_user_hour = (uint32_t)u;
    }
    if ((y = get(x, "min_area"))) {
        path_key(el, sub, "min_area");
        if ((rc = read_uint(c, y, el, 64, 1u << 24, &u)) != PG_OK) return rc;
        if (is_user && u < g->min_area)
            return bad(c, el, "may only tighten: raise it or leave it out (global is %u)", g->min_area);
        v->min_area = (uint32_t)u;
    }
    return PG_OK;
}

/* The keys a global and a user section share. g is NULL for the global one. */
static pg_err parse_section(pc *c, const cJSON *obj, const char *path, const pg_policy_view *g, pg_policy_view *v) {
    bool is_user = g != NULL;
    char sub[PATH_MAX_LEN], el[PATH_MAX_LEN];
    const cJSON *x, *y;
    pg_err rc;
    int iv = 0;
    if ((x = get(obj, "expose_pixels"))) {
        path_key(sub, path, "expose_pixels");
        if ((rc = read_enum(c, x, sub, expose_names, 3, &iv)) != PG_OK) return rc;
        if (is_user && iv > (int)g->expose_pixels)
            return bad(c, sub, "may only tighten (global is %s)", pg_policy_expose_name(g->expose_pixels));
        v->expose_pixels = (pg_expose)iv;
    }
    path_key(sub, path, "analysis");
    if (is_user) {
        static const cJSON empty_obj = {.type = cJSON_Object};
        x = get(obj, "analysis");
        if ((rc = parse_user_analysis(c, x ? x : &empty_obj, sub, g, v)) != PG_OK) return rc;
    } else if ((x = get(obj, "analysis"))) {
        if ((rc = parse_global_analysis(c, x, sub, v)) != PG_OK) return rc;
    }
    if ((x = get(obj, "capture"))) {
        path_key(sub, path, "capture");
        if ((rc = check_object(c, x, sub, capture_keys, NULL, NULL)) != PG_OK) return rc;
        if ((y = get(x, "deny_windows"))) {
            path_key(el, sub, "deny_windows");
            pg_policy_patset *s = NULL;
            if ((rc = read_patterns(c, y, el, &s)) != PG_OK) return rc;
            if (is_user)
                v->deny_windows_user = s;
            else
                v->deny_windows = s;
        }
        if ((y = get(x, "other_users"))) {
            path_key(el, sub, "other_users");
            if ((rc = parse_capture_users(c, y, el, is_user ? g : NULL, v)) != PG_OK) return rc;
        }
    }
    if ((x = get(obj, "input"))) {
        path_key(sub, path, "input");
        if ((rc = check_object(c, x, sub, input_keys, NULL, NULL)) != PG_OK) return rc;
        if ((y = get(x, "allow_windows"))) {
            path_key(el, sub, "allow_windows");
            pg_policy_patset *s = NULL;
            if ((rc = read_patterns(c, y, el, &s)) != PG_OK) return rc;
            if (is_user)
                v->allow_windows_user = s;
            else
                v->allow_windows = s;
        }
        if ((y = get(x, "other_users"))) {
            path_key(el, sub, "other_users");
            bool b = false;
            if ((rc = read_bool(c, y, el, &b)) != PG_OK) return rc;
            if (is_user && b && !g->input_other_users) return bad(c, el, "may only tighten (global is false)");
            v->input_other_users = b;
        }
        if ((y = get(x, "paste_other_users"))) {
            path_key(el, sub, "paste_other_users");
            bool b = false;
            if ((rc = read_bool(c, y, el, &b)) != PG_OK) return rc;
            if (is_user && b && !g->paste_other_users) return bad(c, el, "may only tighten (global is false)");
            v->paste_other_users = b;
        }
        uint64_t u = 0;
        if ((y = get(x, "hold_idle_s"))) {
            path_key(el, sub, "hold_idle_s");
            if ((rc = tighten_uint(c, y, el, 1, 600, is_user ? g->hold_idle_s : 0, is_user, &u)) != PG_OK) return rc;
            v->hold_idle_s = (uint32_t)u;
        }
        if ((y = get(x, "hold_max_s"))) {
            path_key(el, sub, "hold_max_s");
            if ((rc = tighten_uint(c, y, el, 1, 3600, is_user ? g->hold_max_s : 0, is_user, &u)) != PG_OK) return rc;
            v->hold_max_s = (uint32_t)u;
        }
    }
    if ((x = get(obj, "tokens"))) {
        path_key(sub, path, "tokens");
        if ((rc = check_object(c, x, sub, tokens_keys, NULL, NULL)) != PG_OK) return rc;
        uint64_t u = 0;
        if ((y = get(x, "ttl_s"))) {
            path_key(el, sub, "ttl_s");
            if ((rc = tighten_uint(c, y, el, 1, 2592000, is_user ? g->token_ttl_s : 0, is_user, &u)) != PG_OK)
                return rc;
            v->token_ttl_s = (uint32_t)u;
        }
        if ((y = get(x, "spool_quota_mb"))) {
            path_key(el, sub, "spool_quota_mb");
            if ((rc = tighten_uint(c, y, el, 1, 1048576, is_user ? g->spool_quota_bytes / MIB : 0, is_user, &u)) !=
                PG_OK)
                return rc;
            v->spool_quota_bytes = u * MIB;
        }
    }
    if ((x = get(obj, "disclosure")) && (rc = parse_disclosure(c, x, path, g, v)) != PG_OK) return rc;
    if ((x = get(obj, "images"))) {
        path_key(sub, path, "images");
        if ((rc = check_object(c, x, sub, images_keys, NULL, NULL)) != PG_OK) return rc;
        if ((y = get(x, "max_input_bytes"))) {
            path_key(el, sub, "max_input_bytes");
            if ((rc = tighten_uint(c, y, el, 1, 4096 * MIB, is_user ? g->max_input_bytes : 0, is_user,
                                   &v->max_input_bytes)) != PG_OK)
                return rc;
        }
        if ((y = get(x, "max_pixels"))) {
            path_key(el, sub, "max_pixels");
            if ((rc = tighten_uint(c, y, el, 1, 1ull << 30, is_user ? g->max_pixels : 0, is_user, &v->max_pixels)) !=
                PG_OK)
                return rc;
        }
    }
    return PG_OK;
}

static pg_err parse_clients(pc *c, const cJSON *x, pg_policy *p) {
    const char *path = "$.clients";
    pg_err rc = check_object(c, x, path, clients_keys, NULL, NULL);
    if (rc != PG_OK) return rc;
    const cJSON *y;
    if ((y = get(x, "users")) &&
        (rc = read_names(c, y, "$.clients.users", true, &p->client_users, &p->n_client_users, &p->clients_all)) !=
            PG_OK)
        return rc;
    if ((y = get(x, "groups")) &&
        (rc = read_names(c, y, "$.clients.groups", false, &p->client_groups, &p->n_client_groups, NULL)) != PG_OK)
        return rc;
    if ((y = get(x, "remote")) && (rc = read_bool(c, y, "$.clients.remote", &p->settings.remote_clients)) != PG_OK)
        return rc;
    return PG_OK;
}

/* person: the person's controls (docs/policy.md "person"). The stop key is
 * a key name the backends resolve (X11 keysym names): letters, digits and
 * underscores only, so it cannot smuggle a chord. */
static const char *const indicator_names[] = {"off", "ring", "banner"};

static pg_err parse_person(pc *c, const cJSON *x, pg_policy *p) {
    pg_err rc = check_object(c, x, "$.person", person_keys, NULL, NULL);
    if (rc != PG_OK) return rc;
    pg_policy_settings *s = &p->settings;
    const cJSON *y;
    if ((y = get(x, "stop_key"))) {
        if ((rc = read_string(c, y, "$.person.stop_key", &s->person_stop_key)) != PG_OK) return rc;
        size_t n = strlen(s->person_stop_key);
        bool ok = n >= 1 && n <= 32;
        for (size_t i = 0; ok && i < n; i++) ok = ident_char(s->person_stop_key[i]);
        if (!ok) return bad(c, "$.person.stop_key", "expected a key name such as \"Pause\" (letters, digits, _)");
    }
    uint64_t u = 0;
    if ((y = get(x, "quiet_ms"))) {
        if ((rc = read_uint(c, y, "$.person.quiet_ms", 0, 60000, &u)) != PG_OK) return rc;
        s->person_quiet_ms = (uint32_t)u;
    }
    if ((y = get(x, "indicator"))) {
        int m = 0;
        if ((rc = read_enum(c, y, "$.person.indicator", indicator_names, 3, &m)) != PG_OK) return rc;
        s->person_indicator = (pg_policy_indicator)m;
    }
    if ((y = get(x, "indicator_linger_ms"))) {
        if ((rc = read_uint(c, y, "$.person.indicator_linger_ms", 500, 60000, &u)) != PG_OK) return rc;
        s->person_indicator_linger_ms = (uint32_t)u;
    }
    if ((y = get(x, "lease_idle_s"))) {
        if ((rc = read_uint(c, y, "$.person.lease_idle_s", 1, 3600, &u)) != PG_OK) return rc;
        s->lease_idle_s = (uint32_t)u;
    }
    if ((y = get(x, "lease_max_s"))) {
        if ((rc = read_uint(c, y, "$.person.lease_max_s", 1, 86400, &u)) != PG_OK) return rc;
        s->lease_max_s = (uint32_t)u;
    }
    return PG_OK;
}

static pg_err parse_audit(pc *c, const cJSON *x, pg_policy *p) {
    pg_err rc = check_object(c, x, "$.audit", audit_keys, NULL, NULL);
    if (rc != PG_OK) return rc;
    const cJSON *y;
    if ((y = get(x, "path")) && !cJSON_IsNull(y)) {
        if ((rc = read_abs_path(c, y, "$.audit.path", PGP_MAX_PATH, &p->settings.audit_path)) != PG_OK) {
            if (!cJSON_IsString(y)) return bad(c, "$.audit.path", "expected an absolute path or null");
            return rc;
        }
    }
    if ((y = get(x, "rotate_mb"))) {
        uint64_t u = 0;
        if ((rc = read_uint(c, y, "$.audit.rotate_mb", 1, 1048576, &u)) != PG_OK) return rc;
        p->settings.audit_rotate_bytes = u * MIB;
    }
    if ((y = get(x, "flush_ms"))) {
        uint64_t u = 0;
        if ((rc = read_uint(c, y, "$.audit.flush_ms", 0, 1000, &u)) != PG_OK) return rc;
        p->settings.audit_flush_ms = (uint32_t)u;
    }
    if ((y = get(x, "journal")) && (rc = read_bool(c, y, "$.audit.journal", &p->settings.audit_journal)) != PG_OK)
        return rc;
    if ((y = get(x, "journal_window_titles")) &&
        (rc = read_bool(c, y, "$.audit.journal_window_titles", &p->settings.audit_journal_titles)) != PG_OK)
        return rc;
    if (p->settings.audit_journal_titles && !p->settings.audit_journal)
        return bad(c, "$.audit.journal_window_titles", "needs audit.journal true");
    return PG_OK;
}

static pg_err warn(pc *c, const char *fmt, ...) PGP_PRINTF(2, 3);
static pg_err warn(pc *c, const char *fmt, ...) {
    char msg[PG_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pg_policy *p = c->p;
    if (p->n_warnings % 8 == 0) {
        const char **nw = pgp_alloc(p, (p->n_warnings + 8) * sizeof *nw);
        if (!nw) return oom(c);
        if (p->n_warnings) memcpy(nw, p->warnings, p->n_warnings * sizeof *nw);
        p->warnings = nw;
    }
    if (!(p->warnings[p->n_warnings] = pgp_strdup(p, msg))) return oom(c);
    p->n_warnings++;
    return PG_OK;
}

static bool client_listed(const pg_policy *p, const char *user) {
    for (size_t i = 0; i < p->n_client_users; i++)
        if (pgp_name_eq(p->client_users[i], user)) return true;
    return false;
}

static pg_err parse_root(pc *c, const cJSON *root) {
    pg_policy *p = c->p;
    pg_err rc = check_object(c, root, "$", top_keys, NULL, NULL);
    if (rc != PG_OK) return rc;
    const cJSON *x = get(root, "version");
    if (!x) return bad(c, "$.version", "required: add \"version\": %d", PG_POLICY_VERSION);
    uint64_t ver = 0;
    if (!cJSON_IsNumber(x) || read_uint(c, x, "$.version", 1, 1000000, &ver) != PG_OK)
        return bad(c, "$.version", "expected the integer %d", PG_POLICY_VERSION);
    if (ver != PG_POLICY_VERSION)
        return bad(c, "$.version", "unsupported policy version %llu (this broker reads version %d)",
                   (unsigned long long)ver, PG_POLICY_VERSION);

    pg_policy_view *g = &p->global;
    g->user = NULL;
    g->expose_pixels = PG_EXPOSE_ANALYZE_ONLY;
    g->analysis_mode = PG_ANALYSIS_LOCAL_ONLY;
    g->ocr = true;
    g->ocr_langs = default_ocr_langs;
    g->n_ocr_langs = sizeof default_ocr_langs / sizeof *default_ocr_langs;
    g->token_ttl_s = DEF_TTL_S;
    g->hold_idle_s = DEF_HOLD_IDLE_S;
    g->hold_max_s = DEF_HOLD_MAX_S;
    g->spool_quota_bytes = DEF_QUOTA_MB * MIB;
    g->max_input_bytes = DEF_MAX_INPUT_BYTES;
    g->max_pixels = DEF_MAX_PIXELS;
    g->bits_per_tile_hour = DEF_BITS_PER_TILE_HOUR;
    g->bits_per_user_hour = DEF_BITS_PER_USER_HOUR;
    g->min_area = DEF_MIN_AREA;
    p->settings.audit_rotate_bytes = DEF_ROTATE_MB * MIB;
    p->settings.audit_flush_ms = DEF_AUDIT_FLUSH_MS;
    p->settings.person_stop_key = "Pause";
    p->settings.person_quiet_ms = DEF_PERSON_QUIET_MS;
    p->settings.person_indicator = PG_INDICATE_RING;
    p->settings.person_indicator_linger_ms = DEF_PERSON_LINGER_MS;
    p->settings.lease_idle_s = DEF_LEASE_IDLE_S;
    p->settings.lease_max_s = DEF_LEASE_MAX_S;
    if ((rc = parse_section(c, root, "$", NULL, g)) != PG_OK) return rc;
    p->settings.spool_quota_bytes = g->spool_quota_bytes;
    if (!g->endpoints) g->endpoints = p->eps;

    if ((x = get(root, "clients")) && (rc = parse_clients(c, x, p)) != PG_OK) return rc;
    if ((x = get(root, "approvers")) &&
        (rc = read_names(c, x, "$.approvers", false, &p->approvers, &p->n_approvers, NULL)) != PG_OK)
        return rc;
    if ((x = get(root, "audit")) && (rc = parse_audit(c, x, p)) != PG_OK) return rc;
    if ((x = get(root, "person")) && (rc = parse_person(c, x, p)) != PG_OK) return rc;
    if ((x = get(root, "baselines")) && (rc = parse_baselines(c, x, p)) != PG_OK) return rc;

    if ((x = get(root, "users"))) {
        const char *path = "$.users";
        if (!cJSON_IsObject(x)) return bad(c, path, "expected an object of per-user sections");
        if ((rc = check_members(c, x, path, true)) != PG_OK) return rc;
        size_t n = 0;
        for (const cJSON *u = x->child; u; u = u->next)
            if (!is_comment_key(u->string)) n++;
        p->users = pgp_alloc(p, (n ? n : 1) * sizeof *p->users);
        if (!p->users) return oom(c);
        char sub[PATH_MAX_LEN];
        for (const cJSON *u = x->child; u; u = u->next) {
            if (is_comment_key(u->string)) continue;
            path_key(sub, path, u->string);
            if ((rc = check_principal_name(c, u->string, sub, false)) != PG_OK) return rc;
            if ((rc = check_object(c, u, sub, user_keys, global_only,
                                   "not allowed in a per-user section: it applies to the whole broker")) != PG_OK)
                return rc;
            pgp_user_view *uv = &p->users[p->n_users];
            uv->name = u->string;
            uv->view = *g;
            uv->view.user = u->string;
            if ((rc = parse_section(c, u, sub, g, &uv->view)) != PG_OK) return rc;
            p->n_users++;
        }
    }

    /* Things that parse but were probably not meant. */
    if (!p->clients_all && p->n_client_users == 0 && p->n_client_groups == 0 &&
        (rc = warn(c, "the policy admits no client ($.clients.users and $.clients.groups are empty): "
                      "every agent request will be refused")) != PG_OK)
        return rc;
    if (p->allowlist_present && g->analysis_mode == PG_ANALYSIS_LOCAL_ONLY &&
        (rc = warn(c, "$.analysis.allowlist is ignored while $.analysis.mode is local-only")) != PG_OK)
        return rc;
    for (size_t i = 0; i < p->n_users; i++)
        if (!p->clients_all && p->n_client_groups == 0 && !client_listed(p, p->users[i].name) &&
            (rc = warn(c, "$.users: \"%s\" has a section but is not in $.clients.users, so it is never admitted",
                       p->users[i].name)) != PG_OK)
            return rc;
    if (g->expose_pixels == PG_EXPOSE_ANALYZE_ONLY && p->n_approvers == 0 &&
        (rc = warn(c, "$.approvers is empty: only root can approve a one-off pixel release")) != PG_OK)
        return rc;
    /* An agent that may type into other users' windows could type an
     * approval into an approver's terminal. The broker refuses input into
     * windows of approvers and root; an approver who switched user inside
     * someone else's terminal (su, ssh) is beyond what it can see. */
    if (g->input_other_users && p->n_approvers > 0 &&
        (rc = warn(c, "$.input.other_users is true and $.approvers is set: input into windows whose program runs "
                      "as an approver or root is refused, but an approver who runs 'pixelgate approve' in another "
                      "user's terminal (after su or ssh) could have an approval typed for them")) != PG_OK)
        return rc;
    return PG_OK;
}

pg_err pg_policy_parse(const char *json, size_t len, pg_policy **out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_parse: out is NULL");
    *out = NULL;
    if (!json && len) return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_parse: no text");
    if (len > PG_POLICY_MAX_BYTES)
        return pg_error_set(e, PG_E_BADINPUT, POLICY_TIP, "policy is %zu bytes; at most %u are read", len,
                            (unsigned)PG_POLICY_MAX_BYTES);
    const char *text = json ? json : "";
    size_t off = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) off = 3; /* UTF-8 byte order mark */
    const char *why = NULL;
    unsigned line, col;
    long bad_at = prescan(text + off, len - off, &why);
    if (bad_at >= 0) {
        line_col(text + off, (size_t)bad_at, &line, &col);
        return pg_error_set(e, PG_E_BADINPUT, POLICY_TIP, "policy is not valid JSON text: %s at line %u, column %u",
                            why, line, col);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text + off, len - off, &end, false);
    if (!root) {
        size_t at = end && end >= text + off && end <= text + len ? (size_t)(end - (text + off)) : 0;
        line_col(text + off, at, &line, &col);
        return pg_error_set(e, PG_E_BADINPUT, POLICY_TIP, "policy is not valid JSON: syntax error at line %u, column %u",
                            line, col);
    }
    for (const char *t = end; t && t < text + len; t++) {
        if (*t != ' ' && *t != '\t' && *t != '\r' && *t != '\n') {
            line_col(text + off, (size_t)(t - (text + off)), &line, &col);
            cJSON_Delete(root);
            return pg_error_set(e, PG_E_BADINPUT, POLICY_TIP,
                                "policy is not valid JSON: text after the top-level object at line %u, column %u",
                                line, col);
        }
    }
    pg_policy *p = calloc(1, sizeof *p);
    if (!p) {
        cJSON_Delete(root);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
    }
    atomic_init(&p->refs, 1);
    p->tree = root; /* names, URLs and patterns point into it; freed with p */
    p->settings.source = "(memory)";
    pc c = {p, e};
    pg_err rc = parse_root(&c, root);
    if (rc == PG_OK) {
        uint8_t d[PG_SHA256_LEN];
        char *hex = pgp_alloc(p, 2 * PG_SHA256_LEN + 1);
        if (!hex) {
            rc = oom(&c);
        } else if ((rc = pg_sha256(text, len, d, e)) == PG_OK) {
            pg_hex(d, sizeof d, hex);
            p->settings.sha256 = hex;
        }
    }
    if (rc != PG_OK) {
        pgp_destroy(p);
        return rc;
    }
    *out = p;
    return PG_OK;
}

bool pg_policy_case_name_ok(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 64 || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '.' || s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

const char *const *pg_policy_case_owners(const pg_policy *p, const char *case_id, size_t *n) {
    for (size_t i = 0; i < p->n_shared_cases; i++)
        if (!strcmp(p->shared_cases[i], case_id)) return *n = p->n_shared_owners[i], p->shared_owners[i];
    *n = 0;
    return NULL;
}
