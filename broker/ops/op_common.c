/* Helpers shared by operation handlers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_ops.h"
#include "pg_regex.h"

cJSON *pg_window_json(const pg_window *w) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "id", (double)w->id);
    cJSON_AddStringToObject(o, "title", w->title);
    cJSON_AddStringToObject(o, "class", w->class_name);
    cJSON_AddStringToObject(o, "instance", w->instance);
    if (w->pid >= 0) cJSON_AddNumberToObject(o, "pid", (double)w->pid);
    else cJSON_AddNullToObject(o, "pid");
    cJSON_AddNumberToObject(o, "x", w->x);
    cJSON_AddNumberToObject(o, "y", w->y);
    cJSON_AddNumberToObject(o, "width", w->width);
    cJSON_AddNumberToObject(o, "height", w->height);
    cJSON_AddBoolToObject(o, "visible", w->visible);
    cJSON_AddBoolToObject(o, "focused", w->focused);
    if (w->minimized) cJSON_AddBoolToObject(o, "minimized", true); /* Windows: listed, not visible */
    if (w->dpi) { /* Windows: the window's DPI and scale (1 = 96 DPI); coordinates stay physical */
        cJSON_AddNumberToObject(o, "dpi", w->dpi);
        cJSON_AddNumberToObject(o, "scale", w->dpi / 96.0);
    }
    return o;
}

void pg_audit_window_set(pg_call *c, const pg_window *w) {
    c->audit.has_window = true;
    c->audit.window_id = w->id;
    pg_copy_utf8(c->audit.window_title, sizeof c->audit.window_title, w->title);
    pg_copy_utf8(c->audit.window_class, sizeof c->audit.window_class, w->class_name);
}

void pg_audit_token_set(pg_call *c, const pg_tok_meta *m) {
    memcpy(c->audit.token, m->token, sizeof c->audit.token);
    memcpy(c->audit.image_sha256, m->sha256, sizeof c->audit.image_sha256);
    if (m->screen) return;
    c->audit.has_window = true;
    c->audit.window_id = m->window_id;
    memcpy(c->audit.window_title, m->window_title, sizeof c->audit.window_title);
    memcpy(c->audit.window_class, m->window_class, sizeof c->audit.window_class);
}

void pg_copy_utf8(char *dst, size_t cap, const char *src) {
    size_t n = strnlen(src, cap - 1);
    if (src[n] != '\0')
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--; /* don't split a character */
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void pg_iso_time(int64_t ms, char out[40]) {
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
#ifdef _WIN32
    gmtime_s(&tm, &s); /* mingw-w64 has no gmtime_r in strict C17 */
#else
    gmtime_r(&s, &tm);
#endif
    size_t n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 40 - n, ".%03dZ", (int)(ms % 1000));
}

pg_err pg_region_arg(const cJSON *args, const char *name, pg_rect *r, bool *has, pg_error *e) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(args, name);
    *has = false;
    if (!o) return PG_OK;
    static const pg_arg_spec spec[] = {
        {"x", PG_ARG_INT, true}, {"y", PG_ARG_INT, true}, {"w", PG_ARG_INT, true}, {"h", PG_ARG_INT, true}};
    pg_err rc = pg_args_check(o, spec, 4, e);
    if (rc) return rc;
    int64_t x = pg_args_int(o, "x", 0), y = pg_args_int(o, "y", 0);
    int64_t w = pg_args_int(o, "w", 0), h = pg_args_int(o, "h", 0);
    if (w <= 0 || h <= 0 || w > 65535 || h > 65535 || x < -65535 || x > 65535 || y < -65535 || y > 65535)
        return pg_error_set(e, PG_E_USAGE, "give --region X,Y,W,H with W and H above zero",
                            "%s %lld,%lld,%lldx%lld is empty or out of range", name, (long long)x, (long long)y,
                            (long long)w, (long long)h);
    *r = (pg_rect){(int32_t)x, (int32_t)y, (uint32_t)w, (uint32_t)h};
    *has = true;
    return PG_OK;
}

/* Only a positive match counts: a title the engine could not decide (PCRE2's
 * match limit on Windows) is not a target the agent named. */
static bool window_matches(const regex_t *re, const pg_window *w) {
    return pg_regex_match(re, w->title) == 1 || pg_regex_match(re, w->class_name) == 1 ||
           pg_regex_match(re, w->instance) == 1;
}

static pg_err resolve_by_id(pg_window *all, size_t n, uint64_t id, pg_window *out, pg_error *e) {
    for (size_t i = 0; i < n; i++)
        if (all[i].id == id) {
            *out = all[i];
            return PG_OK;
        }
    return pg_error_set(e, PG_E_NOTFOUND, NULL, "no window with id %llu", (unsigned long long)id);
}

static cJSON *candidates_json(pg_window *all, size_t n, const regex_t *re) {
    cJSON *d = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(d, "candidates");
    for (size_t i = 0; i < n; i++)
        if (all[i].visible && window_matches(re, &all[i])) cJSON_AddItemToArray(arr, pg_window_json(&all[i]));
    return d;
}

static pg_err resolve_by_regex(pg_call *c, pg_window *all, size_t n, const char *pattern, pg_window *out,
                               pg_error *e) {
    regex_t re;
    pg_err prc = pg_policy_pattern_check(pattern, e); /* before any compile: cost */
    if (prc) return prc;
    int rr = pg_regex_compile(&re, pattern);
    if (rr != 0) {
        char msg[128];
        regerror(rr, &re, msg, sizeof msg);
        return pg_error_set(e, PG_E_USAGE, "--window takes a POSIX extended regular expression",
                            "bad window pattern \"%s\": %s", pattern, msg);
    }
    size_t hits = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].visible && window_matches(&re, &all[i]) && hits++ == 0) first = i;
    pg_err rc = PG_OK;
    if (hits == 0)
        rc = pg_error_set(e, PG_E_NOTFOUND, "list candidates with 'pixelgate windows'",
                          "no visible window matches \"%s\"", pattern);
    else if (hits > 1 && !pg_args_bool(c->req->args, "first", false)) {
        rc = pg_error_set(e, PG_E_USAGE, "narrow the pattern, pass --id ID, or add --first",
                          "%zu windows match \"%s\" (listed in details.candidates)", hits, pattern);
        c->details = candidates_json(all, n, &re);
    } else {
        *out = all[first];
    }
    regfree(&re);
    return rc;
}

pg_err pg_resolve_window(pg_call *c, pg_window *out, pg_error *e) {
    const char *pattern = pg_args_str(c->req->args, "window", NULL);
    bool has_id = cJSON_GetObjectItemCaseSensitive(c->req->args, "id") != NULL;
    if (!!pattern + has_id != 1)
        return pg_error_set(e, PG_E_USAGE, NULL, "name the target with exactly one of --window REGEX or --id ID");
    pg_window *all = NULL;
    size_t n = 0;
    pg_err rc = c->b->plat_ops->list_windows(c->b->plat, &all, &n, e);
    if (rc) return rc;
    if (has_id) {
        int64_t id = pg_args_int(c->req->args, "id", -1);
        rc = id < 0 ? pg_error_set(e, PG_E_USAGE, NULL, "--id must be a non-negative window id")
                    : resolve_by_id(all, n, (uint64_t)id, out, e);
    } else {
        rc = resolve_by_regex(c, all, n, pattern, out, e);
    }
    free(all);
    return rc;
}
