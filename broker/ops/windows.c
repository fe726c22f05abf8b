/* windows: list top-level windows, optionally filtered by a regex. */
#include <stdlib.h>

#include "pg_ops.h"
#include "pg_regex.h"

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
        rc = c->b->plat_ops->list_windows(c->plat, &all, &n, e);
        pg_call_plat_done(c);
    }
    if (!rc) {
        cJSON *r = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(r, "windows");
        for (size_t i = 0; i < n; i++) {
            pg_window w = all[i];
            bool private = pg_call_window_private(c, &w, all, n);
            if (a->match && (private || !pg_call_pattern_matches(&re, &w))) continue; /* a pattern never probes a private title */
            bool denied = pg_call_window_denied(c, &w, all, n);
            if (private) w.title[0] = w.class_name[0] = w.instance[0] = '\0';
            cJSON *o = pg_call_window_json(&w);
            if (private) {
                cJSON_ReplaceItemInObject(o, "title", cJSON_CreateNull());
                cJSON_ReplaceItemInObject(o, "class", cJSON_CreateNull());
                cJSON_ReplaceItemInObject(o, "instance", cJSON_CreateNull());
                cJSON_AddBoolToObject(o, "private", true);
            }
            cJSON_AddBoolToObject(o, "capture_denied", denied); /* say up front which windows are never captured */
            cJSON_AddItemToArray(arr, o);
        }
        cJSON_AddNumberToObject(r, "count", cJSON_GetArraySize(arr));
        c->result = r;
    }
    free(all);
    if (a->match) regfree(&re);
    return rc;
}
