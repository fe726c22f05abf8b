/* SPDX-License-Identifier: MIT */
/* windows: list top-level windows (with --all the popups too), optionally
 * filtered by a regex. */
#include <stdlib.h>

#include "pg_call.h"
#include "pg_regex.h"

/* Does w belong to a listed window the pattern matches (and may probe)? */
static bool parent_matches(pg_call *c, const regex_t *re, const pg_window *w, const pg_window *all, size_t n) {
    if (w->kind != PG_WINDOW_POPUP || !w->parent) return false;
    for (size_t i = 0; i < n; i++)
        if (all[i].id == w->parent)
            return !pg_call_window_private(c, &all[i], all, n) && pg_call_pattern_matches(re, &all[i]);
    return false;
}

pg_err pg_op_windows(pg_call *c, const pg_args_windows *a, pg_error *e) {
    regex_t re;
    pg_err rc = a->match ? pg_policy_pattern_check(a->match, e) : PG_OK; /* before any compile: cost */
    if (rc) return rc;
    if (a->match && pg_regex_compile(&re, a->match) != 0)
        return pg_error_set(e, PG_E_USAGE, "--match takes a POSIX extended regular expression", "bad pattern \"%s\"",
                            a->match);
    pg_window *all = NULL;
    size_t n = 0;
    rc = pg_call_plat_read(c, e);
    if (!rc) {
        bool complete;
        rc = a->all ? c->b->plat_ops->list_all(c->plat, &all, &n, &complete, e)
                    : c->b->plat_ops->list_windows(c->plat, &all, &n, e);
        pg_call_plat_done(c);
    }
    if (!rc) {
        cJSON *r = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(r, "windows");
        for (size_t i = 0; i < n; i++) {
            const pg_window w = all[i];
            bool private = pg_call_window_private(c, &w, all, n);
            /* a pattern never probes a private title; a popup (no title of its
             * own) is shown with the window it belongs to */
            if (a->match && (private || !(pg_call_pattern_matches(&re, &w) || parent_matches(c, &re, &w, all, n))))
                continue;
            /* say up front which windows are never captured: denied ones and other users' */
            bool denied = pg_call_window_denied(c, &w, all, n) || pg_call_window_foreign(c, &w);
            cJSON *o = pg_call_window_json(c, &w, all, n);
            cJSON_AddBoolToObject(o, "capture_denied", denied);
            cJSON_AddItemToArray(arr, o);
        }
        cJSON_AddNumberToObject(r, "count", cJSON_GetArraySize(arr));
        cJSON_AddStringToObject(r, "via", pg_call_display_source(c));
        c->result = r;
    }
    free(all);
    if (a->match) regfree(&re);
    return rc;
}
