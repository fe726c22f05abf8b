/* SPDX-License-Identifier: MIT */
/* Policy: strict parsing with JSON paths in every error, per-user sections that
 * may only tighten, evaluation (admission, approvers, release, endpoints,
 * capture/input patterns), and the StrictModes file checks. JSON in this file
 * is written with ' for " (see J()). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#else
#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

#include "pg_win_acl.h"
#endif

#include "pg_policy.h"
#include "pg_test.h"

/* ---- helpers ------------------------------------------------------------- */

static char *J(const char *s) {
    char *d = strdup(s);
    for (char *q = d; *q; q++)
        if (*q == '\'') *q = '"';
    return d;
}

static pg_policy *parse(const char *tick_json, pg_error *e) {
    char *j = J(tick_json);
    pg_policy *p = NULL;
    pg_error_clear(e);
    pg_err rc = pg_policy_parse(j, strlen(j), &p, e);
    free(j);
    if (rc != PG_OK) {
        if (p) fprintf(stderr, "parse failed but returned a policy\n");
        return NULL;
    }
    return p;
}

/* Expect a BADINPUT refusal whose message contains every given fragment. */
static bool refused(const char *tick_json, const char *frag1, const char *frag2) {
    pg_error e;
    pg_policy *p = parse(tick_json, &e);
    if (p) {
        fprintf(stderr, "  accepted, expected refusal containing \"%s\": %s\n", frag1, tick_json);
        pg_policy_free(p);
        return false;
    }
    bool ok = e.code == PG_E_BADINPUT && strstr(e.message, frag1) && (!frag2 || strstr(e.message, frag2));
    if (!ok) fprintf(stderr, "  code %d message \"%s\" lacks \"%s\"/\"%s\"\n", e.code, e.message, frag1, frag2 ? frag2 : "");
    return ok;
}

#define PARSE(var, json)                                                                 \
    pg_error var##_e;                                                                    \
    pg_policy *var = parse(json, &var##_e);                                              \
    if (!var) fprintf(stderr, "  unexpected refusal: %s\n", var##_e.message);            \
    REQUIRE(var != NULL)

#define V1 "'version':1"

static const char *const no_groups[1] = {NULL};

static pg_principal who(const char *user, uint32_t uid) {
    pg_principal w = {user, uid, no_groups, 0, uid == 0, false}; /* admin: Windows' notion */
    return w;
}

/* ---- defaults and accepted keys ------------------------------------------ */

PG_TEST(minimal_policy_gives_documented_defaults) {
    PARSE(p, "{" V1 "}");
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    CHECK_EQ_INT(v->expose_pixels, PG_EXPOSE_ANALYZE_ONLY);
    CHECK_EQ_INT(v->analysis_mode, PG_ANALYSIS_LOCAL_ONLY);
    CHECK(v->ocr);
    CHECK_EQ_INT(v->n_endpoints, 0);
    CHECK(v->default_endpoint == NULL);
    CHECK_EQ_INT(pg_policy_patset_count(v->deny_windows), 0);
    CHECK(v->allow_windows == NULL);
    CHECK(!v->input_other_users);
    CHECK_EQ_INT(v->token_ttl_s, 3600);
    CHECK_EQ_INT(v->spool_quota_bytes, 1024ull << 20);
    CHECK_EQ_INT(v->max_input_bytes, 67108864);
    CHECK_EQ_INT(v->max_pixels, 100000000);
    const pg_policy_settings *s = pg_policy_settings_get(p);
    CHECK(s->audit_path == NULL);
    CHECK_EQ_INT(s->audit_rotate_bytes, 64ull << 20);
    CHECK(!s->audit_journal);
    CHECK(!s->audit_journal_titles);
    CHECK_EQ_INT(s->spool_quota_bytes, 1024ull << 20);
    CHECK(!s->remote_clients);
    CHECK(!s->file_checked);
    CHECK_STR(s->source, "(memory)");
    CHECK_EQ_INT(strlen(s->sha256), 64);
    /* A policy that admits nobody parses, with a warning for the log. */
    CHECK(pg_policy_warning_count(p) >= 1);
    CHECK(strstr(pg_policy_warning(p, 0), "admits no client") != NULL);
    CHECK(pg_policy_warning(p, 99) == NULL);
    pg_policy_free(p);
}

static const char *const full_policy =
    "{'//':'every key', 'version':1, 'expose_pixels':'allow',"
    " 'analysis':{'mode':'allowlist', 'ocr':false, 'default_endpoint':'local',"
    "   'allowlist':['https://vision.example.com:443', 'http://127.0.0.1:11434'],"
    "   'endpoints':{"
    "     'local':{'kind':'openai','url':'http://127.0.0.1:11434/v1/chat/completions','model':'llava',"
    "              'timeout_s':20,'max_response_bytes':1000,'unix_socket':'/run/ollama.sock'},"
    "     'cloud':{'kind':'openai','url':'https://Vision.Example.com/v1/chat/completions?x=1','model':'gpt',"
    "              'api_key_file':'/etc/pixelgate/cloud.key'},"
    "     'judge':{'kind':'command','argv':['/usr/local/bin/judge','--strict'],'timeout_s':5,"
    "              'max_response_bytes':4096}}},"
    " 'clients':{'users':['alice','bob'],'groups':['agents'],'remote':true},"
    " 'approvers':['carol'],"
    " 'capture':{'deny_windows':['keepass','^secret$']},"
    " 'input':{'allow_windows':['xterm','tk'],'other_users':true},"
    " 'tokens':{'ttl_s':600,'spool_quota_mb':256},"
    " 'images':{'max_input_bytes':1048576,'max_pixels':4000000},"
    " 'audit':{'path':'/var/log/pixelgate/audit.jsonl','rotate_mb':8,'journal':true,'journal_window_titles':true},"
    " 'users':{'bob':{'expose_pixels':'never'}}}";

PG_TEST(every_key_is_accepted_and_reflected) {
    PARSE(p, full_policy);
    const pg_policy_view *v = pg_policy_view_for(p, "alice");
    CHECK(v->user == NULL); /* alice has no section: the global view */
    CHECK_EQ_INT(v->expose_pixels, PG_EXPOSE_ALLOW);
    CHECK_EQ_INT(v->analysis_mode, PG_ANALYSIS_ALLOWLIST);
    CHECK(!v->ocr);
    REQUIRE(v->n_endpoints == 3);
    CHECK_STR(v->default_endpoint->name, "local");
    const pg_policy_endpoint *l = v->endpoints[0], *c = v->endpoints[1], *j = v->endpoints[2];
    CHECK_STR(l->name, "local");
    CHECK_EQ_INT(l->kind, PG_ENDPOINT_OPENAI);
    CHECK_STR(l->scheme, "http");
    CHECK_STR(l->host, "127.0.0.1");
    CHECK_EQ_INT(l->port, 11434);
    CHECK_STR(l->origin, "http://127.0.0.1:11434");
    CHECK_STR(l->path, "/v1/chat/completions");
    CHECK_STR(l->model, "llava");
    CHECK_EQ_INT(l->timeout_s, 20);
    CHECK_EQ_INT(l->max_response_bytes, 1000);
    CHECK_STR(l->unix_socket, "/run/ollama.sock");
    CHECK(l->api_key_file == NULL);
    CHECK(l->host_is_loopback);
    CHECK_STR(c->host, "vision.example.com");
    CHECK_EQ_INT(c->port, 443);
    CHECK_STR(c->origin, "https://vision.example.com:443");
    CHECK_STR(c->path, "/v1/chat/completions?x=1");
    CHECK_STR(c->api_key_file, "/etc/pixelgate/cloud.key");
    CHECK(!c->host_is_loopback);
    CHECK_EQ_INT(c->timeout_s, 30);
    CHECK_EQ_INT(c->max_response_bytes, 65536);
    CHECK_EQ_INT(j->kind, PG_ENDPOINT_COMMAND);
    REQUIRE(j->argc == 2);
    CHECK_STR(j->argv[0], "/usr/local/bin/judge");
    CHECK_STR(j->argv[1], "--strict");
    CHECK(j->argv[2] == NULL);
    CHECK_EQ_INT(j->timeout_s, 5);
    CHECK_EQ_INT(pg_policy_patset_count(v->deny_windows), 2);
    CHECK_STR(pg_policy_patset_pattern(v->deny_windows, 1), "^secret$");
    CHECK_EQ_INT(pg_policy_patset_count(v->allow_windows), 2);
    CHECK(v->input_other_users);
    CHECK_EQ_INT(v->token_ttl_s, 600);
    CHECK_EQ_INT(v->spool_quota_bytes, 256ull << 20);
    CHECK_EQ_INT(v->max_input_bytes, 1048576);
    CHECK_EQ_INT(v->max_pixels, 4000000);
    const pg_policy_settings *s = pg_policy_settings_get(p);
    CHECK_STR(s->audit_path, "/var/log/pixelgate/audit.jsonl");
    CHECK_EQ_INT(s->audit_rotate_bytes, 8ull << 20);
    CHECK(s->audit_journal);
    CHECK(s->audit_journal_titles);
    CHECK(s->remote_clients);
    CHECK_EQ_INT(pg_policy_view_for(p, "bob")->expose_pixels, PG_EXPOSE_NEVER);
    CHECK_STR(pg_policy_view_for(p, "bob")->user, "bob");
    pg_policy_free(p);
}

PG_TEST(comments_bom_and_null_audit_path_are_accepted) {
    PARSE(p, "{'//':['a','b'], " V1 ", 'audit':{'//':'x','path':null}, 'users':{'//':'per user'}}");
    CHECK(pg_policy_settings_get(p)->audit_path == NULL);
    pg_policy_free(p);
    const char bom[] = "\xef\xbb\xbf{\"version\":1}";
    pg_policy *q = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_policy_parse(bom, strlen(bom), &q, &e), PG_OK);
    pg_policy_free(q);
}

PG_TEST(text_need_not_be_nul_terminated_and_digest_is_stable) {
    const char txt[] = "{\"version\":1}garbage";
    pg_policy *a = NULL, *b = NULL;
    pg_error e;
    REQUIRE(pg_policy_parse(txt, 13, &a, &e) == PG_OK);
    REQUIRE(pg_policy_parse("{\"version\":1}", 13, &b, &e) == PG_OK);
    CHECK_STR(pg_policy_settings_get(a)->sha256, pg_policy_settings_get(b)->sha256);
    pg_policy_free(a);
    pg_policy_free(b);
}

/* ---- refusals name the JSON path ------------------------------------------ */

PG_TEST(unknown_keys_are_rejected_with_their_path) {
    CHECK(refused("{" V1 ", 'expose':'allow'}", "$.expose: unknown key", "expose_pixels"));
    CHECK(refused("{" V1 ", 'analysis':{'modes':'x'}}", "$.analysis.modes: unknown key", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny':[]}}", "$.capture.deny: unknown key", NULL));
    CHECK(refused("{" V1 ", 'input':{'allow':[]}}", "$.input.allow: unknown key", NULL));
    CHECK(refused("{" V1 ", 'tokens':{'ttl':1}}", "$.tokens.ttl: unknown key", NULL));
    CHECK(refused("{" V1 ", 'images':{'max_bytes':1}}", "$.images.max_bytes: unknown key", NULL));
    CHECK(refused("{" V1 ", 'audit':{'file':'/x'}}", "$.audit.file: unknown key", NULL));
    CHECK(refused("{" V1 ", 'clients':{'uids':[1]}}", "$.clients.uids: unknown key", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'kind':'openai','url':'http://127.0.0.1/',"
                  "'model':'m','retries':3}}}}",
                  "$.analysis.endpoints.local.retries: unknown key", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'j':{'kind':'command','argv':['/bin/j'],'url':'http://x/'}}}}",
                  "$.analysis.endpoints.j.url: not a key of a \"command\" endpoint", NULL));
    CHECK(refused("{" V1 ", 'users':{'bob':{'tokens':{'ttl':1}}}}", "$.users.bob.tokens.ttl: unknown key", NULL));
    CHECK(refused("{" V1 ", 'users':{'a.b':{'x':1}}}", "$.users[\"a.b\"].x: unknown key", NULL));
}

PG_TEST(wrong_types_are_rejected_with_their_path) {
    CHECK(refused("[]", "$: expected an object", NULL));
    CHECK(refused("{" V1 ", 'expose_pixels':true}", "$.expose_pixels: expected \"never\", \"analyze-only\" or \"allow\"", NULL));
    CHECK(refused("{" V1 ", 'expose_pixels':'sometimes'}", "$.expose_pixels: expected", "not \"sometimes\""));
    CHECK(refused("{" V1 ", 'analysis':[]}", "$.analysis: expected an object", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'ocr':'yes'}}", "$.analysis.ocr: expected true or false", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'mode':'cloud'}}", "$.analysis.mode: expected \"local-only\" or \"allowlist\"", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'kind':'openai','url':'http://127.0.0.1/',"
                  "'model':'m','timeout_s':-1}}}}",
                  "$.analysis.endpoints.local.timeout_s: expected an integer in 1..3600", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'kind':'openai','url':'http://127.0.0.1/',"
                  "'model':'m','timeout_s':1.5}}}}",
                  "$.analysis.endpoints.local.timeout_s: expected an integer", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'kind':'openai','url':7,'model':'m'}}}}",
                  "$.analysis.endpoints.local.url: expected a string", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'kind':'rpc'}}}}",
                  "$.analysis.endpoints.local.kind: expected \"openai\" or \"command\"", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'url':'http://127.0.0.1/'}}}}",
                  "$.analysis.endpoints.local.kind: required", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'local':{'kind':'openai','url':'http://127.0.0.1/'}}}}",
                  "$.analysis.endpoints.local.model: required", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':[]}}", "$.analysis.endpoints: expected an object", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'allowlist':'https://x'}}", "$.analysis.allowlist: expected an array", NULL));
    CHECK(refused("{" V1 ", 'clients':{'users':'alice'}}", "$.clients.users: expected an array", NULL));
    CHECK(refused("{" V1 ", 'clients':{'users':[1]}}", "$.clients.users[0]: expected a string", NULL));
    CHECK(refused("{" V1 ", 'clients':{'remote':1}}", "$.clients.remote: expected true or false", NULL));
    CHECK(refused("{" V1 ", 'approvers':{'a':1}}", "$.approvers: expected an array", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['ok',3]}}", "$.capture.deny_windows[1]: expected a string", NULL));
    CHECK(refused("{" V1 ", 'input':{'other_users':'no'}}", "$.input.other_users: expected true or false", NULL));
    CHECK(refused("{" V1 ", 'tokens':{'ttl_s':0}}", "$.tokens.ttl_s: expected an integer in 1..2592000", NULL));
    CHECK(refused("{" V1 ", 'tokens':{'spool_quota_mb':'1G'}}", "$.tokens.spool_quota_mb: expected an integer", NULL));
    CHECK(refused("{" V1 ", 'images':{'max_pixels':1e300}}", "$.images.max_pixels: expected an integer", NULL));
    CHECK(refused("{" V1 ", 'audit':{'path':'relative/audit.jsonl'}}", "$.audit.path: expected an absolute path", NULL));
    CHECK(refused("{" V1 ", 'audit':{'path':false}}", "$.audit.path: expected an absolute path or null", NULL));
    CHECK(refused("{" V1 ", 'audit':{'rotate_mb':0}}", "$.audit.rotate_mb: expected an integer in 1..", NULL));
    CHECK(refused("{" V1 ", 'audit':{'journal':'yes'}}", "$.audit.journal: expected true or false", NULL));
    CHECK(refused("{" V1 ", 'audit':{'journal_window_titles':true}}", "$.audit.journal_window_titles: needs audit.journal true",
                  NULL));
    CHECK(refused("{" V1 ", 'users':[]}", "$.users: expected an object", NULL));
    CHECK(refused("{" V1 ", 'users':{'bob':1}}", "$.users.bob: expected an object", NULL));
    CHECK(refused("{" V1 ", '//':1}", "$[\"//\"]: a comment is a string", NULL));
}

PG_TEST(version_is_required_and_must_be_1) {
    CHECK(refused("{}", "$.version: required", NULL));
    CHECK(refused("{'version':2}", "$.version: unsupported policy version 2", NULL));
    CHECK(refused("{'version':'1'}", "$.version: expected the integer 1", NULL));
}

PG_TEST(malformed_text_is_rejected_with_a_position) {
    CHECK(refused("{'version':1,\n 'expose_pixels': }", "syntax error at line 2", NULL));
    CHECK(refused("{'version':1} {}", "text after the top-level object", NULL));
    CHECK(refused("{'version':1, 'approvers':['a\\u0000b']}", "\\u0000", NULL));
    CHECK(refused("{'version':1, 'approvers':['a\tb']}", "control character", NULL));
    CHECK(refused("{'version':1, 'approvers':['\xc3\x28']}", "invalid UTF-8", NULL));
    CHECK(refused("{'version':1, 'approvers':['\xed\xa0\x80']}", "invalid UTF-8", NULL)); /* surrogate */
    CHECK(refused("", "syntax error", NULL));
    pg_policy *p = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_policy_parse("{\"version\":1}\0", 14, &p, &e), PG_E_BADINPUT);
    CHECK(p == NULL);
}

PG_TEST(duplicate_keys_are_rejected) {
    /* Two parsers could pick different copies; the admin sees one, the broker another. */
    CHECK(refused("{" V1 ", 'expose_pixels':'never', 'expose_pixels':'allow'}", "$.expose_pixels: duplicate key", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'ocr':true,'ocr':false}}", "$.analysis.ocr: duplicate key", NULL));
    CHECK(refused("{" V1 ", 'users':{'bob':{},'bob':{}}}", "$.users.bob: duplicate key", NULL));
    /* Keys are case-sensitive: 'Expose_pixels' is simply unknown. */
    CHECK(refused("{" V1 ", 'Expose_pixels':'allow'}", "$.Expose_pixels: unknown key", NULL));
}

PG_TEST(names_are_validated) {
    CHECK(refused("{" V1 ", 'clients':{'users':['1000']}}", "$.clients.users[0]", "account name, not a numeric id"));
    CHECK(refused("{" V1 ", 'clients':{'users':['']}}", "$.clients.users[0]: a name must be", NULL));
    CHECK(refused("{" V1 ", 'clients':{'groups':['*']}}", "$.clients.groups[0]", "only meaningful in $.clients.users"));
    CHECK(refused("{" V1 ", 'approvers':[' alice']}", "$.approvers[0]", "space"));
    CHECK(refused("{" V1 ", 'users':{'*':{}}}", "$.users[\"*\"]", "only meaningful"));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'a b':{'kind':'command','argv':['/x']}}}}",
                  "$.analysis.endpoints[\"a b\"]: an endpoint name", NULL));
}

/* ---- regexes and URLs ----------------------------------------------------- */

PG_TEST(bad_regexes_are_rejected) {
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['ok','(unclosed']}}", "$.capture.deny_windows[1]: invalid regular expression", NULL));
    CHECK(refused("{" V1 ", 'users':{'bob':{'input':{'allow_windows':['[z-a]']}}}}",
                  "$.users.bob.input.allow_windows[0]: invalid regular expression", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['']}}", "$.capture.deny_windows[0]: empty pattern", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['(a)\\\\1']}}", "back-references", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['((a{200}){200}){200}']}}", "too complex", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['a{1000}']}}", "above 255", NULL));
    /* glibc copies the operand once per stacked operator: 2^n states. */
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['B++++++++++++++++++++++++++++++++(x']}}",
                  "$.capture.deny_windows[0]: stacked repetition operators", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['a*{2}']}}", "stacked repetition", NULL));
    CHECK(refused("{" V1 ", 'capture':{'deny_windows':['((((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+)+)+']}}",
                  "too complex", NULL));
    PARSE(p, "{" V1 ", 'capture':{'deny_windows':['a{3}b{100}', '[[:alpha:]]+ - (Firefox|Chromium)$', '[]x]', '(a+)+b', '\\\\++']}}");
    pg_policy_free(p);
}

/* Linux compiles patterns with glibc, Windows with PCRE2: what the two read
 * differently is refused on both, so one policy file means the same on both. */
PG_TEST(patterns_only_one_engine_understands_are_rejected_everywhere) {
    static const struct {
        const char *pat, *why;
    } bad[] = {
        {"\\\\d+", "means different things"},       /* a 'd' to glibc, a digit to PCRE2 */
        {"\\\\<word", "means different things"},    /* a word anchor to glibc only */
        {"\\\\x41", "means different things"},
        {"(?i)bank", "Perl/PCRE2 syntax"},
        {"(*LIMIT_MATCH=99999999)x", "Perl/PCRE2 syntax"}, /* could not raise our limits anyway */
        {"[\\\\w]", "a backslash inside [...]"},
        {"a{,3}", "write {0,n}"},
        {"[[.a.]]", "collating elements"},
        {"x+?", "stacked repetition"},                  /* lazy in PCRE2 */
        {"x*+", "stacked repetition"},                  /* possessive in PCRE2 */
    };
    char json[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(json, sizeof json, "{" V1 ", 'capture':{'deny_windows':['%s']}}", bad[i].pat);
        bool ok = refused(json, "$.capture.deny_windows[0]: ", bad[i].why);
        if (!ok) fprintf(stderr, "  pattern %s\n", bad[i].pat);
        CHECK(ok);
    }
    PARSE(p, "{" V1 ", 'capture':{'deny_windows':['\\\\w+\\\\s\\\\bvault\\\\b', '\\\\.\\\\$\\\\(', '[[:digit:]]{2,4}', 'qa{0,3}z']}}");
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    CHECK(pg_policy_capture_denied(v, "my vault", NULL, NULL, NULL, 0));
    CHECK(!pg_policy_capture_denied(v, "myvault", NULL, NULL, NULL, 0));
    CHECK(pg_policy_capture_denied(v, "costs .$(x)", NULL, NULL, NULL, 0));
    CHECK(pg_policy_capture_denied(v, "room 101", NULL, NULL, NULL, 0));
    pg_policy_free(p);
}

/* A POSIX '.' matches a line break; PCRE2's only with REG_DOTALL, which the
 * Windows build sets: a title with a newline cannot slip past a deny pattern. */
PG_TEST(dot_matches_a_line_break_in_a_title_on_every_platform) {
    PARSE(p, "{" V1 ", 'capture':{'deny_windows':['^Bank.*Login$']}}");
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    CHECK(pg_policy_capture_denied(v, "Bank\nLogin", NULL, NULL, NULL, 0));
    CHECK(pg_policy_capture_denied(v, "Bank \r\n Login", NULL, NULL, NULL, 0));
    CHECK(!pg_policy_capture_denied(v, "Bank\nLogout", NULL, NULL, NULL, 0));
    pg_policy_free(p);
}

/* A title chosen to make a backtracking engine work hard: glibc decides it
 * (no match); PCRE2 hits the match limit, and a deny list then fails closed
 * while an allow list lets nothing through. Either way the answer is prompt. */
PG_TEST(costly_titles_are_decided_or_fail_closed) {
    PARSE(d, "{" V1 ", 'capture':{'deny_windows':['(a|aa)*[bc]']}}");
    PARSE(a, "{" V1 ", 'input':{'allow_windows':['(a|aa)*[bc]']}}");
    const pg_policy_view *dv = pg_policy_view_for(d, NULL), *av = pg_policy_view_for(a, NULL);
    char title[80];
    memset(title, 'a', 60); /* 2^40-odd ways to split, none followed by b or c */
    title[60] = '\0';
    pg_error e;
#ifdef _WIN32
    char m[64];
    CHECK(pg_policy_capture_denied(dv, title, NULL, NULL, m, sizeof m)); /* undecided: denied */
    CHECK_STR(m, "(a|aa)*[bc]");
#else
    CHECK(!pg_policy_capture_denied(dv, title, NULL, NULL, NULL, 0)); /* glibc decides: no match */
#endif
    CHECK_EQ_INT(pg_policy_check_input(av, title, NULL, NULL, true, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "$.input.allow_windows") != NULL);
    CHECK(pg_policy_capture_denied(dv, "aaac", NULL, NULL, NULL, 0));
    CHECK_EQ_INT(pg_policy_check_input(av, "aaab", NULL, NULL, true, &e), PG_OK);
    pg_policy_free(d);
    pg_policy_free(a);
}

static const char *ep_json(char *buf, size_t n, const char *mode, const char *url, const char *allow) {
    snprintf(buf, n,
             "{" V1 ", 'analysis':{'mode':'%s', %s 'endpoints':{'e':{'kind':'openai','url':'%s','model':'m'}}}}",
             mode, allow, url);
    return buf;
}

PG_TEST(bad_urls_are_rejected) {
    char b[1024];
    static const struct {
        const char *url, *why;
    } cases[] = {
        {"ftp://127.0.0.1/x", "scheme must be http or https"},
        {"file:///etc/passwd", "scheme must be http or https"},
        {"127.0.0.1:11434/v1", "expected scheme://host"},
        {"http://user:pw@127.0.0.1/", "userinfo"},
        {"http://127.0.0.1@evil.example/", "userinfo"},
        {"http:///v1", "no host"},
        {"http://127.0.0.1:0/", "port must be a number 1..65535"},
        {"http://127.0.0.1:65536/", "port must be a number 1..65535"},
        {"http://127.0.0.1:http/", "port must be a number"},
        {"http://127.0.0.1:/", "port must be a number"},
        {"http://127.0.0.1/a b", "printable ASCII"},
        {"http://127.0.0.1/#frag", "fragment"},
        {"http://127.0.0.1\\\\@evil/", "backslash"},
        {"http://[::1/", "unterminated IPv6"},
        {"http://[::1]x/", "after the IPv6 literal"},
        {"http://[fe80::1%25eth0]/", "zone"},
        {"http://[1:2:3:4:5:6:7:8:9]/", "invalid IPv6"},
        {"http://127.1/", "dotted-quad"},
        {"http://0x7f000001/", "dotted-quad"},
        {"http://127.000.0.1/", "dotted-quad"},
        {"http://loc%61lhost/", "percent-encoding"},
        {"http://localhost./", "trailing dot"},
        {"http://-a.example/", "start or end with '-'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!refused(ep_json(b, sizeof b, "local-only", cases[i].url, ""), "$.analysis.endpoints.e.url: ",
                     cases[i].why)) {
            fprintf(stderr, "  url case %zu: %s\n", i, cases[i].url);
            CHECK(0);
        }
    }
}

PG_TEST(local_only_admits_only_loopback_hosts) {
    char b[1024];
    static const char *const ok[] = {"http://127.0.0.1:11434/v1/chat/completions", "http://127.9.8.7/",
                                     "https://localhost/v1", "http://LOCALHOST:8080", "http://[::1]:8000/v1",
                                     "http://[0:0:0:0:0:0:0:1]/", "http://[::ffff:127.0.0.1]/"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        pg_error e;
        pg_policy *p = parse(ep_json(b, sizeof b, "local-only", ok[i], ""), &e);
        if (!p) fprintf(stderr, "  %s: %s\n", ok[i], e.message);
        CHECK(p != NULL);
        if (p) CHECK(pg_policy_view_for(p, NULL)->endpoints[0]->host_is_loopback);
        pg_policy_free(p);
    }
    static const char *const no[] = {"http://10.0.0.1/", "http://192.168.1.2:11434/", "http://vision.example.com/",
                                     "http://localhost.example.com/", "http://[::2]/", "http://[::ffff:10.0.0.1]/",
                                     "http://[::127.0.0.1]/", "http://0.0.0.0/"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(refused(ep_json(b, sizeof b, "local-only", no[i], ""), "$.analysis.endpoints.e.url",
                      "admits only loopback"));
    /* Canonical forms come out of the parser. */
    pg_error e;
    pg_policy *p = parse(ep_json(b, sizeof b, "local-only", "http://[0:0:0:0:0:0:0:1]:80/", ""), &e);
    REQUIRE(p);
    CHECK_STR(pg_policy_view_for(p, NULL)->endpoints[0]->origin, "http://[::1]:80");
    CHECK_STR(pg_policy_view_for(p, NULL)->endpoints[0]->host, "::1");
    pg_policy_free(p);
}

PG_TEST(allowlist_mode_needs_the_exact_origin) {
    char b[1024];
    const char *al = "'allowlist':['https://vision.example.com', 'http://[::1]:8080/'],";
    pg_error e;
    pg_policy *p = parse(ep_json(b, sizeof b, "allowlist", "https://VISION.example.com:443/v1/chat", al), &e);
    CHECK(p != NULL);
    pg_policy_free(p);
    p = parse(ep_json(b, sizeof b, "allowlist", "http://[0::1]:8080/v1", al), &e);
    CHECK(p != NULL);
    pg_policy_free(p);
    CHECK(refused(ep_json(b, sizeof b, "allowlist", "https://vision.example.com:8443/v1", al),
                  "$.analysis.endpoints.e.url: origin https://vision.example.com:8443 is not in $.analysis.allowlist", NULL));
    CHECK(refused(ep_json(b, sizeof b, "allowlist", "http://vision.example.com/v1", al), "origin http://vision.example.com:80", NULL));
    CHECK(refused(ep_json(b, sizeof b, "allowlist", "https://evil.example.com/", al), "not in $.analysis.allowlist", NULL));
    /* Loopback endpoints too must be listed in allowlist mode. */
    CHECK(refused(ep_json(b, sizeof b, "allowlist", "http://127.0.0.1:11434/", al), "not in $.analysis.allowlist", NULL));
    CHECK(refused(ep_json(b, sizeof b, "allowlist", "https://x.example/", "'allowlist':['https://x.example/v1'],"),
                  "$.analysis.allowlist[0]: an allowlist entry is an origin", NULL));
    CHECK(refused(ep_json(b, sizeof b, "allowlist", "https://x.example/", "'allowlist':['https://u@x.example'],"),
                  "$.analysis.allowlist[0]: URL with userinfo", NULL));
    /* An allowlist in local-only mode is accepted but flagged. */
    p = parse("{" V1 ", 'analysis':{'allowlist':['https://x.example']}}", &e);
    REQUIRE(p);
    bool flagged = false;
    for (size_t i = 0; i < pg_policy_warning_count(p); i++)
        if (strstr(pg_policy_warning(p, i), "allowlist is ignored")) flagged = true;
    CHECK(flagged);
    pg_policy_free(p);
}

PG_TEST(command_and_openai_endpoint_shapes) {
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'j':{'kind':'command','argv':['judge']}}}}",
                  "$.analysis.endpoints.j.argv: argv[0] must be an absolute path", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'j':{'kind':'command','argv':[]}}}}",
                  "$.analysis.endpoints.j.argv: expected 1..64 strings", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'j':{'kind':'command'}}}}", "$.analysis.endpoints.j.argv: required", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'j':{'kind':'command','argv':['/x',1]}}}}",
                  "$.analysis.endpoints.j.argv[1]: expected a string", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'o':{'kind':'openai','url':'http://127.0.0.1/','model':'m',"
                  "'api_key_file':'key.txt'}}}}",
                  "$.analysis.endpoints.o.api_key_file: expected an absolute path", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'endpoints':{'o':{'kind':'openai','url':'http://127.0.0.1/','model':'m',"
                  "'max_response_bytes':0}}}}",
                  "$.analysis.endpoints.o.max_response_bytes: expected an integer in 1..", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'default_endpoint':'nope'}}", "$.analysis.default_endpoint: no endpoint \"nope\"", NULL));
    /* A command endpoint is local: fine in local-only mode. A query-only URL gets path "/?q". */
    PARSE(p, "{" V1 ", 'analysis':{'endpoints':{'j':{'kind':'command','argv':['/bin/true']},"
             "'o':{'kind':'openai','url':'http://localhost?q','model':'m'}}}}");
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    CHECK(v->default_endpoint == NULL); /* two endpoints, no default */
    CHECK_STR(v->endpoints[1]->path, "/?q");
    pg_policy_free(p);
}

/* ---- per-user sections ---------------------------------------------------- */

static const char *const base =
    "{" V1 ", 'expose_pixels':'analyze-only',"
    " 'analysis':{'mode':'allowlist','allowlist':['https://v.example','http://127.0.0.1:11434'],"
    "   'endpoints':{'local':{'kind':'openai','url':'http://127.0.0.1:11434/v1/chat/completions','model':'m'},"
    "                'cloud':{'kind':'openai','url':'https://v.example/v1','model':'m'},"
    "                'judge':{'kind':'command','argv':['/usr/bin/judge']}},"
    "   'default_endpoint':'cloud'},"
    " 'clients':{'users':['bob','dave']},"
    " 'capture':{'deny_windows':['keepass']},"
    " 'input':{'allow_windows':['term|tk']},"
    " 'tokens':{'ttl_s':3600,'spool_quota_mb':100}, 'images':{'max_input_bytes':1000,'max_pixels':2000},"
    " 'users':{'bob':%s}}";

static char *with_user(const char *section) {
    static char buf[4096];
    snprintf(buf, sizeof buf, base, section);
    return buf;
}

PG_TEST(shared_cases_name_real_cases_and_owners) {
    CHECK(refused("{'version':1,'baselines':{'shared_cases':{'../x':['a']}}}", "$.baselines.shared_cases[\"../x\"]", "case name"));
    CHECK(refused("{'version':1,'baselines':{'shared_cases':{'team':[]}}}", "at least one owner", NULL));
    CHECK(refused("{'version':1,'baselines':{'shared':{}}}", "$.baselines.shared", NULL));
    pg_error e;
    pg_policy *p = parse("{'version':1,'baselines':{'shared_cases':{'team':['ann','bob']}}}", &e);
    REQUIRE(p != NULL);
    size_t n = 0;
    const char *const *o = pg_policy_case_owners(p, "team", &n);
    CHECK(o && n == 2 && !strcmp(o[0], "ann") && !strcmp(o[1], "bob"));
    CHECK(pg_policy_case_owners(p, "other", &n) == NULL && n == 0);
    pg_policy_free(p);
}

/* Issue 27: budgets are per tile content; the per-source key of before is
 * refused with its replacement named, and per-user budgets only tighten. */
PG_TEST(disclosure_budgets_migrate_with_a_clear_error_and_only_tighten_per_user) {
    CHECK(refused("{'version':1,'disclosure':{'bits_per_source_hour':8192}}",
                  "$.disclosure.bits_per_source_hour: is replaced by bits_per_tile_hour", "docs/policy.md"));
    CHECK(refused(with_user("{'disclosure':{'bits_per_tile_hour':129}}"),
                  "$.users.bob.disclosure.bits_per_tile_hour: may only tighten", "128"));
    CHECK(refused(with_user("{'disclosure':{'bits_per_user_hour':9000000}}"),
                  "$.users.bob.disclosure.bits_per_user_hour: may only tighten", NULL));
    pg_error e;
    pg_policy *p = parse(with_user("{'disclosure':{'bits_per_tile_hour':64,'bits_per_user_hour':4096}}"), &e);
    REQUIRE(p);
    const pg_policy_view *v = pg_policy_view_for(p, "bob");
    CHECK(v && v->bits_per_tile_hour == 64 && v->bits_per_user_hour == 4096);
    CHECK_EQ_INT(pg_policy_view_for(p, "alice")->bits_per_tile_hour, 128);
    pg_policy_free(p);
}

PG_TEST(each_loosening_per_user_value_is_rejected) {
    CHECK(refused(with_user("{'expose_pixels':'allow'}"),
                  "$.users.bob.expose_pixels: may only tighten (global is analyze-only)", NULL));
    CHECK(refused(with_user("{'analysis':{'endpoints':['local','gpu']}}"),
                  "$.users.bob.analysis.endpoints[1]: no endpoint \"gpu\" in $.analysis.endpoints", NULL));
    CHECK(refused(with_user("{'analysis':{'endpoints':{'x':{}}}}"), "$.users.bob.analysis.endpoints: per user this is a list", NULL));
    CHECK(refused(with_user("{'analysis':{'allowlist':['https://w.example']}}"),
                  "$.users.bob.analysis.allowlist: not allowed per user", NULL));
    CHECK(refused(with_user("{'analysis':{'endpoints':['local'],'default_endpoint':'cloud'}}"),
                  "$.users.bob.analysis.default_endpoint: \"cloud\" is not one of this user's endpoints", NULL));
    CHECK(refused(with_user("{'tokens':{'ttl_s':7200}}"), "$.users.bob.tokens.ttl_s: may only tighten", "global is 3600"));
    CHECK(refused(with_user("{'tokens':{'spool_quota_mb':101}}"), "$.users.bob.tokens.spool_quota_mb: may only tighten", "global is 100"));
    CHECK(refused(with_user("{'images':{'max_input_bytes':1001}}"), "$.users.bob.images.max_input_bytes: may only tighten", NULL));
    CHECK(refused(with_user("{'images':{'max_pixels':2001}}"), "$.users.bob.images.max_pixels: may only tighten", NULL));
    CHECK(refused(with_user("{'input':{'other_users':true}}"), "$.users.bob.input.other_users: may only tighten (global is false)", NULL));
    CHECK(refused(with_user("{'input':{'hold_idle_s':11}}"), "$.users.bob.input.hold_idle_s: may only tighten", "global is 10"));
    CHECK(refused(with_user("{'input':{'hold_max_s':61}}"), "$.users.bob.input.hold_max_s: may only tighten", "global is 60"));
    CHECK(refused(with_user("{'input':{'hold_max_s':0}}"), "$.users.bob.input.hold_max_s", NULL));
    CHECK(refused(with_user("{'clients':{'users':['bob']}}"), "$.users.bob.clients: not allowed in a per-user section", NULL));
    CHECK(refused(with_user("{'approvers':['bob']}"), "$.users.bob.approvers: not allowed in a per-user section", NULL));
    CHECK(refused(with_user("{'baselines':{}}"), "$.users.bob.baselines: not allowed in a per-user section", NULL));
    CHECK(refused(with_user("{'input':{'paste_other_users':true}}"), "$.users.bob.input.paste_other_users: may only tighten", NULL));
    CHECK(refused(with_user("{'audit':{'rotate_mb':1}}"), "$.users.bob.audit: not allowed in a per-user section", NULL));
    CHECK(refused(with_user("{'version':1}"), "$.users.bob.version: not allowed in a per-user section", NULL));
    CHECK(refused(with_user("{'users':{}}"), "$.users.bob.users: not allowed in a per-user section", NULL));
    /* Defaults count as the global value. */
    CHECK(refused("{" V1 ", 'users':{'bob':{'tokens':{'ttl_s':3601}}}}", "global is 3600", NULL));
    CHECK(refused("{" V1 ", 'analysis':{'ocr':false}, 'users':{'bob':{'analysis':{'ocr':true}}}}",
                  "$.users.bob.analysis.ocr: may only tighten (global is false)", NULL));
    CHECK(refused("{" V1 ", 'users':{'bob':{'analysis':{'mode':'allowlist'}}}}",
                  "$.users.bob.analysis.mode: may only tighten (global is local-only)", NULL));
    CHECK(refused("{" V1 ", 'expose_pixels':'never', 'users':{'bob':{'expose_pixels':'analyze-only'}}}",
                  "may only tighten (global is never)", NULL));
    /* A user mode of local-only may not keep a remote endpoint by name. */
    CHECK(refused(with_user("{'analysis':{'mode':'local-only','endpoints':['cloud']}}"),
                  "$.users.bob.analysis.endpoints[0]: endpoint \"cloud\" is not loopback", NULL));
}

PG_TEST(tightening_per_user_values_are_accepted_and_effective) {
    pg_error e;
    pg_policy *p = parse(with_user("{'expose_pixels':'never',"
                                   " 'analysis':{'endpoints':['local','judge','local'],'ocr':false},"
                                   " 'capture':{'deny_windows':['bank']},"
                                   " 'input':{'allow_windows':['tk'],'other_users':false},"
                                   " 'tokens':{'ttl_s':60,'spool_quota_mb':10},"
                                   " 'images':{'max_input_bytes':10,'max_pixels':20}}"),
                         &e);
    if (!p) fprintf(stderr, "  %s\n", e.message);
    REQUIRE(p);
    const pg_policy_view *g = pg_policy_view_for(p, NULL), *b = pg_policy_view_for(p, "bob"),
                         *d = pg_policy_view_for(p, "dave");
    CHECK(d == g);
    CHECK_STR(b->user, "bob");
    CHECK_EQ_INT(b->expose_pixels, PG_EXPOSE_NEVER);
    CHECK_EQ_INT(g->expose_pixels, PG_EXPOSE_ANALYZE_ONLY);
    CHECK(!b->ocr);
    CHECK(g->ocr);
    REQUIRE(b->n_endpoints == 2); /* duplicates collapse */
    CHECK_STR(b->endpoints[0]->name, "local");
    CHECK_STR(b->endpoints[1]->name, "judge");
    CHECK(b->default_endpoint == NULL); /* global default "cloud" was removed; two remain */
    CHECK_EQ_INT(g->n_endpoints, 3);
    CHECK_EQ_INT(pg_policy_patset_count(b->deny_windows), 1);
    CHECK_EQ_INT(pg_policy_patset_count(b->deny_windows_user), 1);
    CHECK_EQ_INT(b->token_ttl_s, 60);
    CHECK_EQ_INT(b->spool_quota_bytes, 10ull << 20);
    CHECK_EQ_INT(b->max_input_bytes, 10);
    CHECK_EQ_INT(b->max_pixels, 20);
    CHECK_EQ_INT(g->token_ttl_s, 3600);
    CHECK_EQ_INT(pg_policy_settings_get(p)->spool_quota_bytes, 100ull << 20);
    char m[64];
    CHECK(pg_policy_capture_denied(b, "My Bank - Firefox", NULL, NULL, m, sizeof m));
    CHECK_STR(m, "bank");
    CHECK(!pg_policy_capture_denied(g, "My Bank - Firefox", NULL, NULL, m, sizeof m));
    CHECK(pg_policy_capture_denied(g, "x", "KeePassXC", NULL, m, sizeof m));
    /* allow_windows intersect: global 'term|tk' and bob's 'tk' */
    CHECK_EQ_INT(pg_policy_check_input(g, "xterm", NULL, NULL, true, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_input(b, "xterm", NULL, NULL, true, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "$.users.bob.input.allow_windows") != NULL);
    CHECK_EQ_INT(pg_policy_check_input(b, "demo", "Tk", NULL, true, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_input(b, "tk but not global?", NULL, NULL, true, &e), PG_OK);
    pg_policy_free(p);

    /* Same value as global is not a loosening; lowering to the same is fine. */
    p = parse(with_user("{'expose_pixels':'analyze-only','tokens':{'ttl_s':3600}}"), &e);
    CHECK(p != NULL);
    pg_policy_free(p);

    /* User-level local-only keeps only local endpoints (loopback URL or command). */
    p = parse(with_user("{'analysis':{'mode':'local-only'}}"), &e);
    REQUIRE(p);
    const pg_policy_view *bl = pg_policy_view_for(p, "bob");
    CHECK_EQ_INT(bl->analysis_mode, PG_ANALYSIS_LOCAL_ONLY);
    REQUIRE(bl->n_endpoints == 2);
    CHECK_STR(bl->endpoints[0]->name, "local");
    CHECK_STR(bl->endpoints[1]->name, "judge");
    pg_policy_free(p);

    /* A user may choose its own default among its endpoints; one left is the default. */
    p = parse(with_user("{'analysis':{'endpoints':['judge']}}"), &e);
    REQUIRE(p);
    CHECK_STR(pg_policy_view_for(p, "bob")->default_endpoint->name, "judge");
    pg_policy_free(p);
    p = parse(with_user("{'analysis':{'endpoints':[]}}"), &e);
    REQUIRE(p);
    const pg_policy_endpoint *ep;
    CHECK_EQ_INT(pg_policy_endpoint_find(pg_policy_view_for(p, "bob"), NULL, &ep, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "no analysis endpoint") != NULL);
    pg_policy_free(p);
}

/* ---- evaluation ----------------------------------------------------------- */

PG_TEST(clients_admit_nobody_by_default) {
    PARSE(p, "{" V1 "}");
    pg_principal w = who("alice", 1000);
    const pg_policy_view *v = (const pg_policy_view *)1;
    pg_error e;
    CHECK_EQ_INT(pg_policy_admit(p, &w, &v, &e), PG_E_POLICY);
    CHECK(v == NULL);
    CHECK(strstr(e.message, "user \"alice\" is not admitted") != NULL);
    CHECK(strstr(e.recovery_tip, "clients.users") != NULL);
    pg_principal r = who("root", 0);
    CHECK_EQ_INT(pg_policy_admit(p, &r, &v, &e), PG_E_POLICY); /* root is not special here */
    pg_policy_free(p);
}

PG_TEST(clients_users_groups_star_and_remote) {
    PARSE(p, "{" V1 ", 'clients':{'users':['alice'],'groups':['agents']}, 'users':{'alice':{'expose_pixels':'never'}}}");
    const pg_policy_view *v;
    pg_error e;
    pg_principal a = who("alice", 1000);
    CHECK_EQ_INT(pg_policy_admit(p, &a, &v, &e), PG_OK);
    CHECK_EQ_INT(v->expose_pixels, PG_EXPOSE_NEVER);
    pg_principal b = who("bob", 1001);
    CHECK_EQ_INT(pg_policy_admit(p, &b, &v, &e), PG_E_POLICY);
    const char *groups[] = {"users", "agents"};
    b.groups = groups;
    b.n_groups = 2;
    CHECK_EQ_INT(pg_policy_admit(p, &b, &v, &e), PG_OK);
    CHECK(v == pg_policy_view_for(p, NULL));
    pg_principal alice_caps = who("Alice", 1000);
#ifndef _WIN32
    CHECK_EQ_INT(pg_policy_admit(p, &alice_caps, &v, &e), PG_E_POLICY); /* POSIX names are case-sensitive */
#else
    CHECK_EQ_INT(pg_policy_admit(p, &alice_caps, &v, &e), PG_OK);
#endif
    a.remote = true;
    CHECK_EQ_INT(pg_policy_admit(p, &a, &v, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "remote clients are not admitted") != NULL);
    pg_principal nobody = who(NULL, 5);
    CHECK_EQ_INT(pg_policy_admit(p, &nobody, &v, &e), PG_E_INTERNAL);
    pg_policy_free(p);

    PARSE(q, "{" V1 ", 'clients':{'users':['*'],'remote':true}}");
    pg_principal z = who("zed", 4242);
    z.remote = true;
    CHECK_EQ_INT(pg_policy_admit(q, &z, &v, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_warning_count(q), 1); /* only: no approvers */
    pg_policy_free(q);
}

PG_TEST(approvers_root_and_never_the_requester) {
    PARSE(p, "{" V1 ", 'clients':{'users':['agent']}, 'approvers':['alice']}");
    pg_error e;
    pg_principal agent = who("agent", 1001), alice = who("alice", 1000), root = who("root", 0),
                 mallory = who("mallory", 1002);
    CHECK_EQ_INT(pg_policy_may_approve(p, &alice, &agent, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_may_approve(p, &root, &agent, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_may_approve(p, &mallory, &agent, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "not an approver") != NULL);
    CHECK_EQ_INT(pg_policy_may_approve(p, &agent, &agent, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "cannot approve its own request") != NULL);
    /* An approver's own request, and root's own request, are not self-approvable. */
    CHECK_EQ_INT(pg_policy_may_approve(p, &alice, &alice, &e), PG_E_POLICY);
    CHECK_EQ_INT(pg_policy_may_approve(p, &root, &root, &e), PG_E_POLICY);
#ifndef _WIN32
    /* Same uid under another name (a second passwd entry) is the same principal. */
    pg_principal alias = who("alice2", 1000);
    CHECK_EQ_INT(pg_policy_may_approve(p, &alice, &alias, &e), PG_E_POLICY);
    /* "admin" is a Windows notion: on POSIX only uid 0 is root. */
    pg_principal fake = who("mallory", 1002);
    fake.admin = true;
    CHECK_EQ_INT(pg_policy_may_approve(p, &fake, &agent, &e), PG_E_POLICY);
#endif
    pg_principal remote_alice = alice;
    remote_alice.remote = true;
    CHECK_EQ_INT(pg_policy_may_approve(p, &remote_alice, &agent, &e), PG_E_POLICY);
    pg_policy_free(p);
}

PG_TEST(release_follows_expose_pixels) {
    PARSE(p, "{" V1 ", 'users':{'n':{'expose_pixels':'never'}}}");
    pg_error e;
    const pg_policy_view *g = pg_policy_view_for(p, NULL), *n = pg_policy_view_for(p, "n");
    CHECK_EQ_INT(pg_policy_check_release(g, false, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "analyze-only") != NULL);
    CHECK_EQ_INT(pg_policy_check_release(g, true, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_release(n, true, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "never") != NULL);
    pg_policy_free(p);
    PARSE(a, "{" V1 ", 'expose_pixels':'allow'}");
    CHECK_EQ_INT(pg_policy_check_release(pg_policy_view_for(a, NULL), false, &e), PG_OK);
    pg_policy_free(a);
}

PG_TEST(endpoints_are_chosen_by_name_only) {
    pg_error e;
    pg_policy *p = parse(with_user("{'expose_pixels':'never'}"), &e);
    REQUIRE(p);
    const pg_policy_view *g = pg_policy_view_for(p, NULL);
    const pg_policy_endpoint *ep;
    CHECK_EQ_INT(pg_policy_endpoint_find(g, NULL, &ep, &e), PG_OK);
    CHECK_STR(ep->name, "cloud");
    CHECK_EQ_INT(pg_policy_endpoint_find(g, "", &ep, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_endpoint_find(g, "judge", &ep, &e), PG_OK);
    CHECK_EQ_INT(ep->kind, PG_ENDPOINT_COMMAND);
    CHECK_EQ_INT(pg_policy_endpoint_find(g, "gpu", &ep, &e), PG_E_POLICY);
    CHECK(ep == NULL);
    CHECK(strstr(e.message, "local, cloud, judge") != NULL);
    CHECK_EQ_INT(pg_policy_endpoint_find(g, "http://127.0.0.1:11434/v1/chat/completions", &ep, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "never by URL") != NULL);
    CHECK_EQ_INT(pg_policy_endpoint_find(g, "LOCAL", &ep, &e), PG_E_POLICY); /* names are exact */
    CHECK_EQ_INT(pg_policy_endpoint_find(pg_policy_view_for(p, "bob"), "local", &ep, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "expose_pixels is never") != NULL);
    pg_policy_free(p);
    PARSE(q, "{" V1 ", 'analysis':{'endpoints':{'a':{'kind':'command','argv':['/a']},'b':{'kind':'command','argv':['/b']}}}}");
    CHECK_EQ_INT(pg_policy_endpoint_find(pg_policy_view_for(q, NULL), NULL, &ep, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "no endpoint named and the policy sets no default; yours are: a, b") != NULL);
    pg_policy_free(q);
}

PG_TEST(capture_deny_matches_title_class_instance_case_insensitively) {
    PARSE(p, "{" V1 ", 'capture':{'deny_windows':['^KeePassXC$','pass(word)? manager']}}");
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    char m[64];
    CHECK(pg_policy_capture_denied(v, "Vault", "keepassxc", "x", m, sizeof m));
    CHECK_STR(m, "^KeePassXC$");
    CHECK(pg_policy_capture_denied(v, "x", "y", "KEEPASSXC", m, sizeof m));
    CHECK(pg_policy_capture_denied(v, "My Password Manager", NULL, NULL, m, sizeof m));
    CHECK_STR(m, "pass(word)? manager");
    CHECK(!pg_policy_capture_denied(v, "keepassxc docs - Firefox", "firefox", "Navigator", m, sizeof m));
    CHECK_STR(m, "");
    CHECK(!pg_policy_capture_denied(v, NULL, NULL, NULL, NULL, 0));
    CHECK(pg_policy_capture_denied(v, "password manager", NULL, NULL, NULL, 0));
    char tiny[4];
    CHECK(pg_policy_capture_denied(v, "password manager", NULL, NULL, tiny, sizeof tiny));
    CHECK_STR(tiny, "pas");
    pg_policy_free(p);
    PARSE(q, "{" V1 "}");
    CHECK(!pg_policy_capture_denied(pg_policy_view_for(q, NULL), "anything", NULL, NULL, m, sizeof m));
    pg_policy_free(q);
}

PG_TEST(input_goes_only_to_own_windows_unless_widened) {
    pg_error e;
    PARSE(p, "{" V1 ", 'capture':{'deny_windows':['pinentry']}}");
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    CHECK_EQ_INT(pg_policy_check_input(v, "xterm", "XTerm", "xterm", true, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_input(v, "root@host: ~", "XTerm", "xterm", false, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "does not run as you") != NULL);
    /* A window that may not be captured takes no input, even one's own. */
    CHECK_EQ_INT(pg_policy_check_input(v, "Passphrase", "Pinentry", NULL, true, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "capture.deny_windows") != NULL);
    pg_policy_free(p);

    PARSE(plain, "{" V1 "}");
    v = pg_policy_view_for(plain, NULL);
    CHECK_EQ_INT(pg_policy_check_input(v, "xterm", "XTerm", "xterm", true, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_input(v, "root@host: ~", "XTerm", "xterm", false, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "does not run as you") != NULL);
    pg_policy_free(plain);

    PARSE(w, "{" V1 ", 'input':{'other_users':true, 'allow_windows':['^demo']}}");
    v = pg_policy_view_for(w, NULL);
    CHECK_EQ_INT(pg_policy_check_input(v, "demo app", NULL, NULL, false, &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_input(v, "xterm", NULL, NULL, false, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "$.input.allow_windows") != NULL);
    CHECK_EQ_INT(pg_policy_check_input(v, "xterm", NULL, NULL, true, &e), PG_E_POLICY); /* filter applies to own too */
    pg_policy_free(w);

    /* An empty allow list turns input off. */
    PARSE(off, "{" V1 ", 'input':{'allow_windows':[]}}");
    CHECK_EQ_INT(pg_policy_check_input(pg_policy_view_for(off, NULL), "xterm", NULL, NULL, true, &e), PG_E_POLICY);
    pg_policy_free(off);
}

/* input.other_users with approvers: the agent could type an approval into an
 * approver's terminal. The broker refuses input into approvers' windows, and
 * the policy says so at load (a warning: the combination is legitimate, and
 * what stays open - an approver who switched user inside someone else's
 * terminal - is for the administrator to weigh). */
PG_TEST(other_users_input_with_approvers_is_warned_at_load) {
    PARSE(p, "{" V1 ", 'clients':{'users':['agent']}, 'approvers':['alice'], 'input':{'other_users':true}}");
    bool warned = false;
    for (size_t i = 0; i < pg_policy_warning_count(p); i++) {
        const char *w = pg_policy_warning(p, i);
        if (strstr(w, "$.input.other_users") && strstr(w, "approvers")) warned = true;
    }
    CHECK(warned);
    pg_policy_free(p);
    PARSE(q, "{" V1 ", 'clients':{'users':['agent']}, 'approvers':['alice']}");
    for (size_t i = 0; i < pg_policy_warning_count(q); i++)
        CHECK(strstr(pg_policy_warning(q, i), "other_users") == NULL);
    pg_policy_free(q);
}

/* capture.other_users: whose windows (besides its own) an agent may see and
 * capture. Names only (no "*", no numeric ids); a user's section keeps some
 * of the global names and adds none. */
PG_TEST(capture_other_users_names_accounts_and_only_tightens_per_user) {
    PARSE(p, "{" V1 ", 'capture':{'other_users':['alice','carol']},"
             " 'users':{'bob':{'capture':{'other_users':['carol']}}, 'dan':{'capture':{'other_users':[]}}}}");
    const pg_policy_view *g = pg_policy_view_for(p, NULL), *bob = pg_policy_view_for(p, "bob");
    CHECK(pg_policy_capture_user_allowed(g, "alice"));
    CHECK(pg_policy_capture_user_allowed(g, "carol"));
    CHECK(!pg_policy_capture_user_allowed(g, "mallory"));
    CHECK(!pg_policy_capture_user_allowed(g, NULL));
    CHECK(!pg_policy_capture_user_allowed(g, ""));
    CHECK(!pg_policy_capture_user_allowed(bob, "alice"));
    CHECK(pg_policy_capture_user_allowed(bob, "carol"));
    CHECK(!pg_policy_capture_user_allowed(pg_policy_view_for(p, "dan"), "carol"));
    CHECK(pg_policy_capture_user_allowed(pg_policy_view_for(p, "erin"), "alice")); /* no section: the global list */
    pg_policy_free(p);
    PARSE(d, "{" V1 "}");
    CHECK(pg_policy_view_for(d, NULL)->n_capture_other_users == 0); /* default: nobody else's windows */
    CHECK(!pg_policy_capture_user_allowed(pg_policy_view_for(d, NULL), "root"));
    pg_policy_free(d);
    CHECK(refused("{" V1 ", 'capture':{'other_users':true}}", "$.capture.other_users", NULL));
    CHECK(refused("{" V1 ", 'capture':{'other_users':['*']}}", "$.capture.other_users[0]", NULL));
    CHECK(refused("{" V1 ", 'capture':{'other_users':['1000']}}", "$.capture.other_users[0]", "not a numeric id"));
    CHECK(refused("{" V1 ", 'capture':{'other_users':[7]}}", "$.capture.other_users[0]", NULL));
    CHECK(refused("{" V1 ", 'capture':{'other_users':['alice']}, 'users':{'bob':{'capture':{'other_users':['mallory']}}}}",
                  "$.users.bob.capture.other_users[0]: may only tighten", "mallory"));
    CHECK(refused("{" V1 ", 'users':{'bob':{'capture':{'other_users':['alice']}}}}",
                  "$.users.bob.capture.other_users[0]: may only tighten", NULL));
}

PG_TEST(view_json_tells_the_agent_names_not_urls) {
    pg_error e;
    pg_policy *p = parse(with_user("{}"), &e);
    REQUIRE(p);
    cJSON *j = pg_policy_view_to_json(pg_policy_view_for(p, "bob"));
    REQUIRE(j);
    char *s = cJSON_PrintUnformatted(j);
    REQUIRE(s);
    CHECK(strstr(s, "\"expose_pixels\":\"analyze-only\"") != NULL);
    CHECK(strstr(s, "{\"name\":\"local\",\"kind\":\"openai\"}") != NULL);
    CHECK(strstr(s, "\"default_endpoint\":\"cloud\"") != NULL);
    CHECK(strstr(s, "127.0.0.1") == NULL);
    CHECK(strstr(s, "keepass") == NULL);
    free(s);
    cJSON_Delete(j);
    pg_policy_free(p);
}

PG_TEST(refcount_keeps_the_policy_alive) {
    PARSE(p, "{" V1 ", 'clients':{'users':['a']}}");
    pg_policy *q = pg_policy_ref(p);
    CHECK(q == p);
    const pg_policy_view *v = pg_policy_view_for(q, "a");
    pg_policy_free(p); /* the "current" pointer is swapped out */
    CHECK_EQ_INT(v->token_ttl_s, 3600); /* still valid under the request's reference */
    pg_policy_free(q);
    pg_policy_free(NULL);
    CHECK(pg_policy_ref(NULL) == NULL);
}

PG_TEST(names_of_enums) {
    CHECK_STR(pg_policy_expose_name(PG_EXPOSE_NEVER), "never");
    CHECK_STR(pg_policy_expose_name(PG_EXPOSE_ANALYZE_ONLY), "analyze-only");
    CHECK_STR(pg_policy_expose_name(PG_EXPOSE_ALLOW), "allow");
    CHECK_STR(pg_policy_mode_name(PG_ANALYSIS_LOCAL_ONLY), "local-only");
    CHECK_STR(pg_policy_mode_name(PG_ANALYSIS_ALLOWLIST), "allowlist");
}

/* ---- shipped files parse -------------------------------------------------- */

#ifndef _WIN32
static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    *n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[*n] = '\0';
    return buf;
}

PG_TEST(installer_default_policy_parses_and_is_the_documented_default) {
    size_t n;
    char *t = slurp(PG_SOURCE_DIR "/installer/linux/policy.json", &n);
    REQUIRE(t);
    pg_policy *p = NULL;
    pg_error e;
    pg_err rc = pg_policy_parse(t, n, &p, &e);
    if (rc) fprintf(stderr, "  %s\n", e.message);
    REQUIRE(rc == PG_OK);
    const pg_policy_view *v = pg_policy_view_for(p, NULL);
    CHECK_EQ_INT(v->expose_pixels, PG_EXPOSE_ANALYZE_ONLY);
    CHECK_EQ_INT(v->analysis_mode, PG_ANALYSIS_LOCAL_ONLY);
    CHECK(!pg_policy_settings_get(p)->remote_clients);
    CHECK(!v->input_other_users);
    CHECK(pg_policy_patset_count(v->deny_windows) > 0);
    char m[64];
    CHECK(pg_policy_capture_denied(v, "Unlock", "KeePassXC", "keepassxc", m, sizeof m));
    CHECK(!pg_policy_capture_denied(v, "demo", "Tk", "demo", m, sizeof m));
    pg_policy_free(p);
    free(t);
}

/* Every ```json block in docs/policy.md is a policy that parses (the examples
 * do not rot). */
PG_TEST(docs_examples_parse) {
    size_t n;
    char *t = slurp(PG_SOURCE_DIR "/docs/policy.md", &n);
    REQUIRE(t);
    int blocks = 0;
    for (char *s = strstr(t, "```json\n"); s; s = strstr(s, "```json\n")) {
        s += 8;
        char *end = strstr(s, "```");
        REQUIRE(end);
        pg_policy *p = NULL;
        pg_error e;
        if (pg_policy_parse(s, (size_t)(end - s), &p, &e) != PG_OK) {
            fprintf(stderr, "  docs/policy.md block %d: %s\n", blocks + 1, e.message);
            CHECK(0);
        }
        pg_policy_free(p);
        blocks++;
        s = end + 3;
    }
    CHECK(blocks >= 2);
    free(t);
}
#endif

/* ---- the file checks (StrictModes) ---------------------------------------- */

#ifndef _WIN32
static char g_dir[64];

static void put(const char *path, const char *text, mode_t mode) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static bool mkscratch(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/pg_policy_test.XXXXXX");
    if (!mkdtemp(g_dir)) return false;
    chmod(g_dir, 0755);
    return true;
}

static void rmscratch(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "  could not remove %s\n", g_dir);
}

/* Expect load(path) to fail with code and message/tip fragments. */
static bool load_refused(const char *path, pg_err code, const char *msg, const char *tip) {
    pg_policy *p = NULL;
    pg_error e;
    pg_err rc = pg_policy_load(path, &p, &e);
    if (rc == PG_OK) {
        pg_policy_free(p);
        fprintf(stderr, "  %s was accepted\n", path);
        return false;
    }
    bool ok = rc == code && p == NULL && strstr(e.message, msg) && (!tip || strstr(e.recovery_tip, tip));
    if (!ok) fprintf(stderr, "  %s: code %d \"%s\" tip \"%s\"\n", path, rc, e.message, e.recovery_tip);
    return ok;
}

/* Owner checks need files owned by root: as another user every path below the
 * scratch directory would (rightly) be refused for its owner first. Not run
 * is not passed: without root these tests fail, saying why. */
#define NEED_ROOT()                                                              \
    do {                                                                         \
        if (geteuid() != 0) {                                                    \
            fprintf(stderr, "     this test needs root to own files (scripts/test.sh runs as root)\n"); \
            *pg_failed_ = 1;                                                     \
            return;                                                              \
        }                                                                        \
    } while (0)

#define GOOD "{\"version\":1, \"clients\":{\"users\":[\"alice\"]}}"

PG_TEST(file_root_owned_0644_in_root_dir_is_loaded) {
    NEED_ROOT();
    REQUIRE(mkscratch());
    char f[128];
    snprintf(f, sizeof f, "%s/policy.json", g_dir);
    put(f, GOOD, 0644);
    pg_policy *p = NULL;
    pg_error e;
    pg_err rc = pg_policy_load(f, &p, &e);
    if (rc) fprintf(stderr, "  %s\n", e.message);
    CHECK_EQ_INT(rc, PG_OK);
    if (p) {
        CHECK(pg_policy_settings_get(p)->file_checked);
        CHECK_STR(pg_policy_settings_get(p)->source, f);
        pg_policy_free(p);
    }
    /* 0600 and 0640 are fine too (the broker needs read access, which is its business). */
    chmod(f, 0600);
    CHECK_EQ_INT(pg_policy_check_file(f, &e), PG_OK);
    /* The shipped mode, 0640 root:pixelgate: group-readable is fine, only group-writable is not. */
    REQUIRE(chown(f, 0, 65534) == 0);
    chmod(f, 0640);
    rc = pg_policy_load(f, &p, &e);
    if (rc) fprintf(stderr, "  %s\n", e.message);
    CHECK_EQ_INT(rc, PG_OK);
    pg_policy_free(p);
    REQUIRE(chown(f, 0, 0) == 0);
    /* A relative path is checked from / down, too. */
    char cwd[512];
    REQUIRE(getcwd(cwd, sizeof cwd));
    REQUIRE(chdir(g_dir) == 0);
    CHECK_EQ_INT(pg_policy_check_file("policy.json", &e), PG_OK);
    CHECK_EQ_INT(pg_policy_check_file(".//policy.json", &e), PG_OK);
    REQUIRE(chdir(cwd) == 0);
    rmscratch();
}

PG_TEST(file_group_or_world_writable_is_refused) {
    NEED_ROOT();
    REQUIRE(mkscratch());
    char f[128];
    snprintf(f, sizeof f, "%s/policy.json", g_dir);
    put(f, GOOD, 0664);
    CHECK(load_refused(f, PG_E_BADINPUT, "is writable by its group (mode 0664)", "chmod go-w"));
    chmod(f, 0646);
    CHECK(load_refused(f, PG_E_BADINPUT, "is writable by everyone (mode 0646)", "chmod go-w"));
    rmscratch();
}

PG_TEST(file_in_world_writable_dir_is_refused) {
    NEED_ROOT();
    REQUIRE(mkscratch());
    char f[128];
    snprintf(f, sizeof f, "%s/policy.json", g_dir);
    put(f, GOOD, 0644);
    chmod(g_dir, 0777);
    CHECK(load_refused(f, PG_E_BADINPUT, "is writable by its group and everyone (mode 0777)", "chmod go-w /tmp/pg_policy_test."));
    /* The file's own directory may not rely on the sticky bit. */
    chmod(g_dir, 01777);
    CHECK(load_refused(f, PG_E_BADINPUT, "replace the file", "chmod go-w"));
    /* ... but a sticky root-owned ancestor (like /tmp) is fine. */
    {
        chmod(g_dir, 01777);
        char sub[128], f2[160];
        snprintf(sub, sizeof sub, "%s/etc", g_dir);
        REQUIRE(mkdir(sub, 0755) == 0);
        snprintf(f2, sizeof f2, "%s/policy.json", sub);
        put(f2, GOOD, 0644);
        pg_error e;
        CHECK_EQ_INT(pg_policy_check_file(f2, &e), PG_OK);
    }
    chmod(g_dir, 0755);
    rmscratch();
}

PG_TEST(file_symlinks_are_refused) {
    NEED_ROOT();
    REQUIRE(mkscratch());
    char f[128], link[128], dlink[128], via[160];
    snprintf(f, sizeof f, "%s/policy.json", g_dir);
    snprintf(link, sizeof link, "%s/link.json", g_dir);
    snprintf(dlink, sizeof dlink, "%s/dirlink", g_dir);
    snprintf(via, sizeof via, "%s/dirlink/policy.json", g_dir);
    put(f, GOOD, 0644);
    REQUIRE(symlink(f, link) == 0);
    REQUIRE(symlink(g_dir, dlink) == 0);
    CHECK(load_refused(link, PG_E_BADINPUT, "link.json is a symbolic link", "realpath"));
    CHECK(load_refused(via, PG_E_BADINPUT, "dirlink is a symbolic link", "realpath"));
    rmscratch();
}

PG_TEST(file_not_owned_by_root_is_refused) {
    NEED_ROOT();
    REQUIRE(mkscratch());
    char f[128];
    snprintf(f, sizeof f, "%s/policy.json", g_dir);
    put(f, GOOD, 0644);
    REQUIRE(chown(f, 65534, 65534) == 0);
    CHECK(load_refused(f, PG_E_BADINPUT, "policy.json is owned by uid 65534, not root", "chown root:root"));
    REQUIRE(chown(f, 0, 0) == 0);
    REQUIRE(chown(g_dir, 65534, 65534) == 0);
    CHECK(load_refused(f, PG_E_BADINPUT, "is owned by uid 65534, not root", "chown root:root /tmp/pg_policy_test."));
    REQUIRE(chown(g_dir, 0, 0) == 0);
    rmscratch();
}

PG_TEST(file_missing_directory_or_bad_content) {
    NEED_ROOT();
    REQUIRE(mkscratch());
    char f[128];
    snprintf(f, sizeof f, "%s/absent.json", g_dir);
    CHECK(load_refused(f, PG_E_NOTFOUND, "does not exist", "installer/linux/policy.json"));
    snprintf(f, sizeof f, "%s/nodir/policy.json", g_dir);
    CHECK(load_refused(f, PG_E_NOTFOUND, "nodir does not exist", NULL));
    snprintf(f, sizeof f, "%s/adir", g_dir);
    REQUIRE(mkdir(f, 0755) == 0);
    CHECK(load_refused(f, PG_E_BADINPUT, "adir is not a regular file", NULL));
    snprintf(f, sizeof f, "%s/", g_dir);
    CHECK(load_refused(f, PG_E_BADINPUT, "names a directory", NULL));
    CHECK(load_refused("", PG_E_BADINPUT, "empty path", NULL));
    {
        snprintf(f, sizeof f, "%s/policy.json", g_dir);
        put(f, "{\"version\":1, \"expose_pixels\":\"sometimes\"}", 0644);
        char want[200];
        snprintf(want, sizeof want, "%s: $.expose_pixels: expected", f);
        CHECK(load_refused(f, PG_E_BADINPUT, want, "docs/policy.md"));
        /* Larger than the cap. */
        FILE *big = fopen(f, "w");
        REQUIRE(big);
        fputs("{\"version\":1, \"//\":\"", big);
        for (int i = 0; i < (1 << 20); i++) fputc('x', big);
        fputs("\"}", big);
        fclose(big);
        CHECK(load_refused(f, PG_E_BADINPUT, "larger than", NULL));
    }
    rmscratch();
}
#endif

#ifdef _WIN32
/* ---- the file checks (Windows: local path, reparse points, ACLs) ---------- */

/* Wine keeps no ACL of its own: SetNamedSecurityInfo succeeds but changes
 * nothing, and every file is reported owned by the Wine user (full control),
 * SYSTEM full control, Everyone read (from the Unix mode). */
static bool under_wine(void) {
    HMODULE nt = GetModuleHandleW(L"ntdll.dll");
    return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}

/* Owner Administrators; SYSTEM and Administrators full control; Users read. */
#define ADMIN_ONLY_FILE "O:BAD:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;BU)"
#define ADMIN_ONLY_DIR "O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FR;;;BU)"
#define EVERYONE_WRITES "(A;;FW;;;WD)"

static char g_wdir[MAX_PATH];

static bool wscratch(void) {
    char tmp[MAX_PATH];
    DWORD n = GetTempPathA(sizeof tmp, tmp);
    if (n == 0 || n >= sizeof tmp) return false;
    snprintf(g_wdir, sizeof g_wdir, "%spg_policy_test.%lu", tmp, (unsigned long)GetCurrentProcessId());
    return CreateDirectoryA(g_wdir, NULL) || GetLastError() == ERROR_ALREADY_EXISTS;
}

static void wput(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Sets owner and a protected DACL from SDDL; the Windows error, 0 on success. */
static DWORD set_acl(const char *path, const char *sddl) {
    PSECURITY_DESCRIPTOR sd = NULL;
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorA(sddl, SDDL_REVISION_1, &sd, NULL))
        return GetLastError();
    PSID owner = NULL;
    PACL dacl = NULL;
    BOOL present = FALSE, defaulted = FALSE;
    GetSecurityDescriptorOwner(sd, &owner, &defaulted);
    GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted);
    DWORD err = SetNamedSecurityInfoA((char *)path, SE_FILE_OBJECT,
                                      OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION |
                                          PROTECTED_DACL_SECURITY_INFORMATION,
                                      owner, NULL, dacl, NULL);
    LocalFree(sd);
    return err;
}

static void wrmscratch(void) {
    char f[MAX_PATH + 32];
    if (!under_wine()) set_acl(g_wdir, ADMIN_ONLY_DIR);
    snprintf(f, sizeof f, "%s\\policy.json", g_wdir);
    DeleteFileA(f);
    if (!RemoveDirectoryA(g_wdir)) fprintf(stderr, "  could not remove %s\n", g_wdir);
}

static bool wload_refused(const char *path, pg_err code, const char *msg, const char *tip) {
    pg_policy *p = NULL;
    pg_error e;
    pg_err rc = pg_policy_load(path, &p, &e);
    if (rc == PG_OK) {
        pg_policy_free(p);
        fprintf(stderr, "  %s was accepted\n", path);
        return false;
    }
    bool ok = rc == code && p == NULL && strstr(e.message, msg) && (!tip || strstr(e.recovery_tip, tip));
    if (!ok) fprintf(stderr, "  %s: code %d \"%s\" tip \"%s\"\n", path, rc, e.message, e.recovery_tip);
    return ok;
}

#define GOOD "{\"version\":1, \"clients\":{\"users\":[\"alice\"]}}"

/* Real Windows (run elevated): an admin-only file in an admin-only directory
 * loads; Everyone write on the file or on its directory is refused with the
 * icacls fix. Wine keeps no ACLs, so there the rule is not applied: the file
 * loads with file_checked false, and the rule itself, given what Wine reports
 * (the Wine user owns everything), refuses it for its owner. */
PG_TEST(windows_admin_only_policy_loads_and_writable_ones_are_refused) {
    REQUIRE(wscratch());
    char f[MAX_PATH + 32], sddl[256];
    snprintf(f, sizeof f, "%s\\policy.json", g_wdir);
    wput(f, GOOD);
    DWORD e_dir = set_acl(g_wdir, ADMIN_ONLY_DIR), e_file = set_acl(f, ADMIN_ONLY_FILE);
    if (under_wine()) {
        fprintf(stderr, "     Wine stores no ACLs: the ACL rule is skipped and says so\n");
        pg_policy *p = NULL;
        pg_error e;
        pg_err rc = pg_policy_load(f, &p, &e);
        if (rc) fprintf(stderr, "  %s\n", e.message);
        CHECK_EQ_INT(rc, PG_OK);
        if (p) {
            CHECK(!pg_policy_settings_get(p)->file_checked);
            CHECK_STR(pg_policy_settings_get(p)->source, f);
            pg_policy_free(p);
        }
        CHECK_EQ_INT(pg_win_acl_check_file(f, &e), PG_E_BADINPUT);
        CHECK(strstr(e.message, "is owned by") && strstr(e.message, "S-1-5-21-"));
        CHECK(strstr(e.recovery_tip, "icacls") && strstr(e.recovery_tip, "/setowner *S-1-5-32-544"));
        /* The size cap and the parse still apply. */
        wput(f, "{\"version\":1, \"expose_pixels\":\"sometimes\"}");
        CHECK(wload_refused(f, PG_E_BADINPUT, "$.expose_pixels", NULL));
        FILE *big = fopen(f, "wb");
        REQUIRE(big);
        fputs("{\"version\":1, \"//\":\"", big);
        for (int i = 0; i < (1 << 20); i++) fputc('x', big);
        fputs("\"}", big);
        fclose(big);
        CHECK(wload_refused(f, PG_E_BADINPUT, "larger than", NULL));
        wrmscratch();
        return;
    }
    if (e_dir || e_file) fprintf(stderr, "     setting the ACL failed (%lu, %lu): run this test elevated\n",
                                 (unsigned long)e_dir, (unsigned long)e_file);
    REQUIRE(e_dir == 0 && e_file == 0);
    pg_policy *p = NULL;
    pg_error e;
    pg_err rc = pg_policy_load(f, &p, &e);
    if (rc) fprintf(stderr, "  %s\n", e.message);
    CHECK_EQ_INT(rc, PG_OK);
    if (p) {
        CHECK(pg_policy_settings_get(p)->file_checked);
        CHECK_STR(pg_policy_settings_get(p)->source, f);
        pg_policy_free(p);
    }
    snprintf(sddl, sizeof sddl, "%s%s", ADMIN_ONLY_FILE, EVERYONE_WRITES);
    CHECK_EQ_INT(set_acl(f, sddl), 0);
    CHECK(wload_refused(f, PG_E_BADINPUT, "can be changed by", "icacls"));
    CHECK_EQ_INT(set_acl(f, ADMIN_ONLY_FILE), 0);
    snprintf(sddl, sizeof sddl, "%s%s", ADMIN_ONLY_DIR, EVERYONE_WRITES);
    CHECK_EQ_INT(set_acl(g_wdir, sddl), 0);
    CHECK(wload_refused(f, PG_E_BADINPUT, "S-1-1-0", "/remove:g *S-1-1-0"));
    wrmscratch();
}

/* Only a plain file on a local drive: no share, device path or stream. */
PG_TEST(windows_policy_path_must_be_a_file_on_a_local_drive) {
    REQUIRE(wscratch());
    char f[MAX_PATH + 32];
    CHECK(wload_refused("", PG_E_BADINPUT, "empty path", NULL));
    snprintf(f, sizeof f, "%s\\absent.json", g_wdir);
    CHECK(wload_refused(f, PG_E_NOTFOUND, "absent.json does not exist", "installer"));
    snprintf(f, sizeof f, "%s\\nodir\\policy.json", g_wdir);
    CHECK(wload_refused(f, PG_E_NOTFOUND, "nodir does not exist", NULL));
    CHECK(wload_refused(g_wdir, PG_E_BADINPUT, "is not a regular file", NULL));
    snprintf(f, sizeof f, "%s\\", g_wdir);
    CHECK(wload_refused(f, PG_E_BADINPUT, "names a directory", NULL));
    CHECK(wload_refused("\\\\server\\share\\policy.json", PG_E_BADINPUT, "local drive", NULL));
    CHECK(wload_refused("\\\\?\\C:\\policy.json", PG_E_BADINPUT, "local drive", NULL));
    snprintf(f, sizeof f, "%s\\policy.json:alt", g_wdir);
    CHECK(wload_refused(f, PG_E_BADINPUT, "local drive", NULL));
    /* A relative name is resolved against the current directory, then checked. */
    CHECK(wload_refused("pg_policy_absent.json", PG_E_NOTFOUND, ":\\", NULL));
    wrmscratch();
}

/* A directory symlink or junction on the way is refused: whoever may write
 * its directory could re-point it. Wine shows a Unix symlink to a directory
 * as a reparse point (tests/unit/policy.cmake makes one on the Linux side);
 * on Windows the test makes a directory symbolic link itself. */
PG_TEST(windows_reparse_points_on_the_path_are_refused) {
    char f[MAX_PATH + 64];
    if (under_wine()) {
        snprintf(f, sizeof f, "Z:%s/policy.json", PG_POLICY_TEST_LINK_UNIX);
        for (char *q = f; *q; q++)
            if (*q == '/') *q = '\\';
        CHECK(wload_refused(f, PG_E_BADINPUT, "is a symbolic link, junction or other reparse point", "dir /AL"));
        return;
    }
    REQUIRE(wscratch());
    char link[MAX_PATH + 32];
    snprintf(f, sizeof f, "%s\\policy.json", g_wdir);
    wput(f, GOOD);
    snprintf(link, sizeof link, "%s.link", g_wdir);
    bool made = CreateSymbolicLinkA(link, g_wdir,
                                    SYMBOLIC_LINK_FLAG_DIRECTORY | SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
    if (!made) fprintf(stderr, "     CreateSymbolicLink failed (%lu): run elevated\n", (unsigned long)GetLastError());
    REQUIRE(made);
    snprintf(f, sizeof f, "%s\\policy.json", link);
    CHECK(wload_refused(f, PG_E_BADINPUT, "reparse point", NULL));
    RemoveDirectoryA(link);
    wrmscratch();
}
#endif

/* Patterns an agent sends (--window, --match) follow the policy's own rules,
 * checked before anything is compiled (glibc's regcomp takes gigabytes on
 * nested intervals). */
PG_TEST(agent_patterns_are_checked_like_policy_patterns) {
    pg_error e;
    CHECK_EQ_INT(pg_policy_pattern_check("^pixelgate demo$", &e), PG_OK);
    CHECK_EQ_INT(pg_policy_pattern_check("Press|OK [[:digit:]]+", &e), PG_OK);
    CHECK_EQ_INT(pg_policy_pattern_check("((a{1,255}){1,255}){1,255}", &e), PG_E_USAGE);
    CHECK(strstr(e.message, "bad window pattern") != NULL);
    CHECK_EQ_INT(pg_policy_pattern_check("a**", &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_policy_pattern_check("(a)\\1", &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_policy_pattern_check("(?i)demo", &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_policy_pattern_check("", &e), PG_E_USAGE);
}

/* ---- analysis.ocr_languages ------------------------------------------------ */

PG_TEST(ocr_languages_default_to_latin_first_and_a_user_may_keep_some) {
    PARSE(p, "{" V1 ",'users':{'ci':{'analysis':{'ocr_languages':['eng']}}}}");
    const pg_policy_view *g = pg_policy_view_for(p, NULL), *ci = pg_policy_view_for(p, "ci");
#ifndef _WIN32
    REQUIRE(g->n_ocr_langs == 5);
    CHECK_STR(g->ocr_langs[0], "Latin");
#endif
    char lang[128];
    pg_error e;
    CHECK_EQ_INT(pg_policy_ocr_lang(ci, NULL, lang, &e), PG_OK);
    CHECK_STR(lang, "eng");
    CHECK_EQ_INT(pg_policy_ocr_lang(ci, "deu", lang, &e), PG_E_POLICY);
    /* A combination is checked against an explicit list: the default list
     * differs by platform (Windows ships eng only). */
    PARSE(two, "{" V1 ",'analysis':{'ocr_languages':['eng','deu']}}");
    const pg_policy_view *t = pg_policy_view_for(two, NULL);
    CHECK_EQ_INT(pg_policy_ocr_lang(t, "eng+deu", lang, &e), PG_OK);
    CHECK_STR(lang, "eng+deu");
    CHECK_EQ_INT(pg_policy_ocr_lang(t, "eng+fra", lang, &e), PG_E_POLICY);
    CHECK_EQ_INT(pg_policy_ocr_lang(t, "eng++deu", lang, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_policy_ocr_lang(t, "eng+", lang, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_policy_ocr_lang(g, "../eng", lang, &e), PG_E_POLICY);
    pg_policy_free(two);
    pg_policy_free(p);
}

PG_TEST(ocr_languages_are_validated_and_a_user_may_not_add_one) {
    const char *bad[] = {
        "{" V1 ",'analysis':{'ocr_languages':[]}}",
        "{" V1 ",'analysis':{'ocr_languages':['eng','eng']}}",
        "{" V1 ",'analysis':{'ocr_languages':['../x']}}",
        "{" V1 ",'analysis':{'ocr_languages':'eng'}}",
        "{" V1 ",'analysis':{'ocr_languages':['eng']},'users':{'a':{'analysis':{'ocr_languages':['fra']}}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pg_error e;
        pg_policy *p = parse(bad[i], &e);
        CHECK(p == NULL);
        if (!p) CHECK(strstr(e.message, "ocr_languages") != NULL);
        pg_policy_free(p);
    }
}
