/* SPDX-License-Identifier: MIT */
/* pg_policy_eval.c - answering the broker's per-request questions from an
 * immutable policy. Pure functions over const data: safe from any thread.
 */
#include <stdio.h>
#include <string.h>

#include "pg_policy_private.h"

#define ASK_ADMIN_TIP "ask the administrator to change the policy (docs/policy.md)"

pg_policy *pg_policy_ref(pg_policy *p) {
    if (p) atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return p;
}

void pg_policy_free(pg_policy *p) {
    if (!p) return;
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1) pgp_destroy(p);
}

const pg_policy_settings *pg_policy_settings_get(const pg_policy *p) { return &p->settings; }

size_t pg_policy_warning_count(const pg_policy *p) { return p->n_warnings; }

const char *pg_policy_warning(const pg_policy *p, size_t i) { return i < p->n_warnings ? p->warnings[i] : NULL; }

const pg_policy_view *pg_policy_view_for(const pg_policy *p, const char *user) {
    if (user)
        for (size_t i = 0; i < p->n_users; i++)
            if (pgp_name_eq(p->users[i].name, user)) return &p->users[i].view;
    return &p->global;
}

static bool is_admin(const pg_principal *w) {
#ifdef _WIN32
    return w->admin;
#else
    return w->uid == 0;
#endif
}

static bool same_principal(const pg_principal *a, const pg_principal *b) {
#ifndef _WIN32
    if (a->uid == b->uid) return true;
#endif
    return a->user && b->user && pgp_name_eq(a->user, b->user);
}

pg_err pg_policy_admit(const pg_policy *p, const pg_principal *who, const pg_policy_view **view, pg_error *e) {
    if (view) *view = NULL;
    if (!p || !who || !who->user || !who->user[0] || !view)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_admit: no policy or no principal");
    if (who->remote && !p->settings.remote_clients)
        return pg_error_set(e, PG_E_POLICY, ASK_ADMIN_TIP,
                            "remote clients are not admitted ($.clients.remote is false); user \"%s\"", who->user);
    bool ok = p->clients_all;
    for (size_t i = 0; !ok && i < p->n_client_users; i++)
        if (pgp_name_eq(p->client_users[i], who->user)) ok = true;
    for (size_t i = 0; !ok && i < p->n_client_groups; i++)
        for (size_t k = 0; !ok && who->groups && k < who->n_groups; k++)
            if (who->groups[k] && pgp_name_eq(p->client_groups[i], who->groups[k])) ok = true;
    if (!ok) {
        pg_error_set(e, PG_E_POLICY, NULL,
                     "user \"%s\" is not admitted by the policy (not in $.clients.users, and none of its "
                     "groups is in $.clients.groups)",
                     who->user);
        /* The socket let it in: the fix is the policy's clients list, not a group or the broker. */
        if (e)
            snprintf(e->recovery_tip, sizeof e->recovery_tip,
                     "ask the administrator to add \"%.64s\" to clients.users, or one of its groups to "
                     "clients.groups, in the policy's clients list (docs/policy.md), then systemctl reload pixelgate",
                     who->user);
        return PG_E_POLICY;
    }
    *view = pg_policy_view_for(p, who->user);
    return PG_OK;
}

bool pg_policy_is_approver(const pg_policy *p, const pg_principal *who) {
    if (!p || !who || !who->user) return false;
    if (is_admin(who)) return true;
    for (size_t i = 0; i < p->n_approvers; i++)
        if (pgp_name_eq(p->approvers[i], who->user)) return true;
    return false;
}

pg_err pg_policy_may_approve(const pg_policy *p, const pg_principal *approver, const pg_principal *requester,
                             pg_error *e) {
    if (!p || !approver || !requester || !approver->user || !approver->user[0])
        return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_may_approve: missing principal");
    if (same_principal(approver, requester))
        return pg_error_set(e, PG_E_POLICY, "a release must be approved by another person: an approver or root",
                            "user \"%s\" cannot approve its own request", approver->user);
    if (approver->remote && !p->settings.remote_clients)
        return pg_error_set(e, PG_E_POLICY, ASK_ADMIN_TIP,
                            "approvals over a remote connection are refused ($.clients.remote is false)");
    if (pg_policy_is_approver(p, approver)) return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "ask a user named in the policy's approvers, or root, to approve",
                        "user \"%s\" is not an approver (not in $.approvers, not root)", approver->user);
}

pg_err pg_policy_check_release(const pg_policy_view *v, bool approved, pg_error *e) {
    switch (v->expose_pixels) {
    case PG_EXPOSE_ALLOW:
        return PG_OK;
    case PG_EXPOSE_ANALYZE_ONLY:
        if (approved) return PG_OK;
        return pg_error_set(e, PG_E_POLICY,
                            "use analyze/ocr for text results, or ask an approver to run 'pixelgate approve REQUEST_ID'",
                            "expose_pixels is analyze-only: releasing pixels needs a one-off approval");
    case PG_EXPOSE_NEVER:
    default:
        return pg_error_set(e, PG_E_POLICY, "pixels cannot be released under this policy; use text results",
                            "expose_pixels is never: no pixels leave the broker, approved or not");
    }
}

static void list_names(const pg_policy_view *v, char *buf, size_t n) {
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < v->n_endpoints && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", v->endpoints[i]->name);
    if (v->n_endpoints == 0) snprintf(buf, n, "(none)");
}

pg_err pg_policy_endpoint_find(const pg_policy_view *v, const char *name, const pg_policy_endpoint **out,
                               pg_error *e) {
    if (out) *out = NULL;
    if (!v || !out) return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_endpoint_find: bad arguments");
    if (v->expose_pixels == PG_EXPOSE_NEVER)
        return pg_error_set(e, PG_E_POLICY, "use ocr or the comparison commands, which run inside the broker",
                            "expose_pixels is never: no image is sent to any analysis endpoint");
    char names[256];
    list_names(v, names, sizeof names);
    if (!name || !name[0]) {
        if (v->default_endpoint) {
            *out = v->default_endpoint;
            return PG_OK;
        }
        if (v->n_endpoints == 0)
            return pg_error_set(e, PG_E_POLICY, ASK_ADMIN_TIP, "the policy names no analysis endpoint for you");
        return pg_error_set(e, PG_E_POLICY, "pass --endpoint NAME",
                            "no endpoint named and the policy sets no default; yours are: %s", names);
    }
    if (strstr(name, "://") || strchr(name, '/'))
        return pg_error_set(e, PG_E_POLICY, "pass --endpoint NAME with one of the policy's names",
                            "endpoints are chosen by name, never by URL or path; yours are: %s", names);
    for (size_t i = 0; i < v->n_endpoints; i++)
        if (strcmp(v->endpoints[i]->name, name) == 0) {
            *out = v->endpoints[i];
            return PG_OK;
        }
    return pg_error_set(e, PG_E_POLICY, "pass --endpoint NAME with one of the policy's names",
                        "endpoint \"%.64s\" is not allowed for you by the policy; yours are: %s", name, names);
}

/* ---- window patterns ---------------------------------------------------- */

size_t pg_policy_patset_count(const pg_policy_patset *s) { return s ? s->n : 0; }

const char *pg_policy_patset_pattern(const pg_policy_patset *s, size_t i) {
    return s && i < s->n ? s->src[i] : NULL;
}

/* Index of the first pattern matching any of the strings, or -1. A pattern
 * the engine could not decide for a string (PCRE2's match limit on Windows)
 * counts as matching when undecided_matches: a deny list fails closed, and an
 * allow list (false) lets nothing through that it did not positively match. */
static long patset_match(const pg_policy_patset *s, const char *title, const char *cls, const char *instance,
                         bool undecided_matches) {
    if (!s) return -1;
    const char *subj[3] = {title, cls, instance};
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) {
            int m = pg_regex_match(&s->re[i], subj[k]);
            if (m == 1 || (m < 0 && undecided_matches)) return (long)i;
        }
    return -1;
}

static void copy_out(char *dst, size_t n, const char *src) {
    if (dst && n) snprintf(dst, n, "%s", src);
}

bool pg_policy_capture_denied(const pg_policy_view *v, const char *title, const char *cls, const char *instance,
                              char *matched, size_t n) {
    if (matched && n) matched[0] = '\0';
    const pg_policy_patset *sets[2] = {v->deny_windows, v->deny_windows_user};
    for (int k = 0; k < 2; k++) {
        long i = patset_match(sets[k], title, cls, instance, true);
        if (i >= 0) {
            copy_out(matched, n, sets[k]->src[i]);
            return true;
        }
    }
    return false;
}

/* An allow list passes when absent; an empty list passes nothing. */
static bool allow_ok(const pg_policy_patset *s, const char *title, const char *cls, const char *instance) {
    if (!s) return true;
    return patset_match(s, title, cls, instance, false) >= 0;
}

bool pg_policy_capture_user_allowed(const pg_policy_view *v, const char *owner) {
    for (size_t i = 0; owner && owner[0] && i < v->n_capture_other_users; i++)
        if (pgp_name_eq(v->capture_other_users[i], owner)) return true;
    return false;
}

pg_err pg_policy_check_input(const pg_policy_view *v, const char *title, const char *cls, const char *instance,
                             bool same_owner, pg_error *e) {
    char pat[PGP_MAX_PATTERN + 1];
    if (pg_policy_capture_denied(v, title, cls, instance, pat, sizeof pat))
        return pg_error_set(e, PG_E_POLICY, ASK_ADMIN_TIP,
                            "the window matches capture.deny_windows pattern \"%.200s\": a window that may not be "
                            "captured takes no input either",
                            pat);
    if (!same_owner && !v->input_other_users)
        return pg_error_set(e, PG_E_POLICY, "drive a window of a program you started yourself",
                            "the window's program does not run as you (or its owner is unknown): input goes only to "
                            "your own windows unless the policy sets input.other_users");
    if (!allow_ok(v->allow_windows, title, cls, instance))
        return pg_error_set(e, PG_E_POLICY, ASK_ADMIN_TIP,
                            "the window matches no pattern in $.input.allow_windows");
    if (!allow_ok(v->allow_windows_user, title, cls, instance))
        return pg_error_set(e, PG_E_POLICY, ASK_ADMIN_TIP,
                            "the window matches no pattern in $.users.%s.input.allow_windows",
                            v->user ? v->user : "?");
    return PG_OK;
}

/* A JSON array of names, [] for none (cJSON_CreateStringArray has no empty list). */
static cJSON *names_json(const char *const *names, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(names[i]));
    return a;
}

cJSON *pg_policy_view_to_json(const pg_policy_view *v) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON *eps = cJSON_CreateArray();
    if (!eps) goto fail;
    cJSON_AddItemToObject(o, "endpoints", eps);
    for (size_t i = 0; i < v->n_endpoints; i++) {
        cJSON *ep = cJSON_CreateObject();
        if (!ep) goto fail;
        cJSON_AddItemToArray(eps, ep);
        if (!cJSON_AddStringToObject(ep, "name", v->endpoints[i]->name) ||
            !cJSON_AddStringToObject(ep, "kind",
                                     v->endpoints[i]->kind == PG_ENDPOINT_OPENAI ? "openai" : "command"))
            goto fail;
    }
    if (!cJSON_AddStringToObject(o, "expose_pixels", pg_policy_expose_name(v->expose_pixels)) ||
        !cJSON_AddStringToObject(o, "analysis_mode", pg_policy_mode_name(v->analysis_mode)) ||
        !(v->default_endpoint ? cJSON_AddStringToObject(o, "default_endpoint", v->default_endpoint->name)
                              : cJSON_AddNullToObject(o, "default_endpoint")) ||
        !cJSON_AddBoolToObject(o, "ocr", v->ocr) ||
        !cJSON_AddItemToObject(o, "ocr_languages", cJSON_CreateStringArray(v->ocr_langs, (int)v->n_ocr_langs)) ||
        !cJSON_AddBoolToObject(o, "input_other_users", v->input_other_users) ||
        !cJSON_AddItemToObject(o, "capture_other_users", names_json(v->capture_other_users, v->n_capture_other_users)) ||
        !cJSON_AddNumberToObject(o, "token_ttl_s", v->token_ttl_s) ||
        !cJSON_AddNumberToObject(o, "spool_quota_bytes", (double)v->spool_quota_bytes) ||
        !cJSON_AddNumberToObject(o, "max_input_bytes", (double)v->max_input_bytes) ||
        !cJSON_AddNumberToObject(o, "max_pixels", (double)v->max_pixels) ||
        !cJSON_AddNumberToObject(o, "disclosure_bits_per_tile_hour", v->bits_per_tile_hour) ||
        !cJSON_AddNumberToObject(o, "disclosure_bits_per_user_hour", v->bits_per_user_hour) ||
        !cJSON_AddNumberToObject(o, "disclosure_min_area", v->min_area))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

pg_err pg_policy_ocr_lang(const pg_policy_view *v, const char *lang, char out[128], pg_error *e) {
    if (!lang || !lang[0]) {
        if (!v->n_ocr_langs) return pg_error_set(e, PG_E_POLICY, NULL, "no OCR language is allowed");
        snprintf(out, 128, "%s", v->ocr_langs[0]);
        return PG_OK;
    }
    size_t n = strlen(lang);
    if (n > 127 || lang[0] == '+' || lang[n - 1] == '+')
        return pg_error_set(e, PG_E_USAGE, "name languages like eng or eng+deu", "malformed OCR language \"%.64s\"", lang);
    char allowed[512] = "";
    size_t al = 0;
    for (size_t k = 0; k < v->n_ocr_langs && al < sizeof allowed; k++)
        al += (size_t)snprintf(allowed + al, sizeof allowed - al, "%s%s", k ? ", " : "", v->ocr_langs[k]);
    const char *p = lang;
    while (*p) {
        const char *q = strchr(p, '+');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == 0) return pg_error_set(e, PG_E_USAGE, NULL, "malformed OCR language \"%.64s\"", lang);
        bool ok = false;
        for (size_t k = 0; k < v->n_ocr_langs && !ok; k++)
            ok = strlen(v->ocr_langs[k]) == len && !strncmp(v->ocr_langs[k], p, len);
        if (!ok)
            return pg_error_set(e, PG_E_POLICY, "the policy's analysis.ocr_languages lists the languages you may use",
                                "OCR language \"%.*s\" is not allowed here (allowed: %s)", (int)len, p, allowed);
        p += len + (q ? 1 : 0);
        if (q && !*p) return pg_error_set(e, PG_E_USAGE, NULL, "malformed OCR language \"%.64s\"", lang);
    }
    snprintf(out, 128, "%s", lang);
    return PG_OK;
}

void pg_policy_principals_get(const pg_policy *p, pg_policy_principals *out) {
    out->users = (const char *const *)p->client_users;
    out->n_users = p->n_client_users;
    out->groups = (const char *const *)p->client_groups;
    out->n_groups = p->n_client_groups;
    out->approvers = (const char *const *)p->approvers;
    out->n_approvers = p->n_approvers;
    out->all = p->clients_all;
}

pg_err pg_policy_pattern_check(const char *pattern, pg_error *e) {
    char why[256];
    if (pgp_pattern_check(pattern, why, sizeof why)) return PG_OK;
    return pg_error_set(e, PG_E_USAGE, "window patterns are POSIX extended regular expressions of modest cost",
                        "bad window pattern \"%.200s\": %s", pattern, why);
}
