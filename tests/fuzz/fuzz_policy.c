/* SPDX-License-Identifier: MIT */
/* Fuzz the policy parser: any bytes give either a policy or a BAD_INPUT error
 * whose message names where it went wrong - never a crash, leak, over-read or
 * a pathological regex. An accepted policy is also evaluated the way the
 * broker does per request (views, admission, patterns, endpoints), so merge
 * results that point at freed or missing data are caught too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(const pg_policy *p, const pg_policy_view *v) {
    char m[128];
    pg_error e;
    const pg_policy_endpoint *ep;
    (void)pg_policy_capture_denied(v, "KeePassXC - vault", "keepassxc", "keepassxc", m, sizeof m);
    (void)pg_policy_capture_denied(v, NULL, NULL, NULL, NULL, 0);
    (void)pg_policy_check_input(v, "xterm", "XTerm", "xterm", true, &e);
    (void)pg_policy_check_input(v, "root terminal", "XTerm", "xterm", false, &e);
    (void)pg_policy_endpoint_find(v, NULL, &ep, &e);
    for (size_t i = 0; i < v->n_endpoints; i++) {
        if (pg_policy_endpoint_find(v, v->endpoints[i]->name, &ep, &e) == PG_OK && ep->kind == PG_ENDPOINT_OPENAI &&
            (strlen(ep->origin) == 0 || ep->path[0] != '/'))
            abort(); /* the parser promised a normalised origin and path */
    }
    (void)pg_policy_endpoint_find(v, "local", &ep, &e);
    (void)pg_policy_check_release(v, true, &e);
    char lang[128];
    (void)pg_policy_ocr_lang(v, NULL, lang, &e);
    (void)pg_policy_ocr_lang(v, "eng+deu", lang, &e);
    (void)pg_policy_ocr_lang(v, "+x++", lang, &e);
    cJSON *j = pg_policy_view_to_json(v);
    cJSON_Delete(j);
    for (size_t i = 0; i < pg_policy_patset_count(v->deny_windows); i++)
        if (!pg_policy_patset_pattern(v->deny_windows, i)) abort();
    (void)p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pg_policy *p = NULL;
    pg_error e;
    if (pg_policy_parse((const char *)data, size, &p, &e) != PG_OK) {
        if (p || e.code != PG_E_BADINPUT || !e.message[0]) abort();
        return 0;
    }
    static const char *const groups[] = {"agents", "users"};
    const char *names[] = {"alice", "bob", "agent", "root"};
    for (size_t i = 0; i < 4; i++) {
        pg_principal w = {names[i], (uint32_t)(i == 3 ? 0 : 1000 + i), groups, 2, false, i == 1};
        const pg_policy_view *v;
        if (pg_policy_admit(p, &w, &v, &e) == PG_OK) exercise(p, v);
        exercise(p, pg_policy_view_for(p, names[i]));
        pg_principal r = {"root", 0, groups, 0, false, false};
        (void)pg_policy_may_approve(p, &w, &r, &e);
    }
    exercise(p, pg_policy_view_for(p, NULL));
    for (size_t i = 0; i < pg_policy_warning_count(p); i++)
        if (!pg_policy_warning(p, i)) abort();
    pg_policy *q = pg_policy_ref(p);
    pg_policy_free(p);
    pg_policy_free(q);
    return 0;
}
