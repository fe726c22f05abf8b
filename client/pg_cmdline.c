/* SPDX-License-Identifier: MIT */
/* The command line of every operation, read from its declaration
 * (common/pg_ops.def): argv -> the request's JSON arguments and attachments.
 * The same declaration then checks the result (pg_opdecl_check), so the
 * command line accepts exactly what the broker does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pg_cli.h"

const pg_opdecl *pg_cli_find_op(int argc, char **argv, int *used) {
    if (argc >= 2) { /* "assert changed", "baseline prepare": two words first */
        char two[128];
        snprintf(two, sizeof two, "%s %s", argv[0], argv[1]);
        const pg_opdecl *d = pg_opdecl_find_cli(two);
        if (d) {
            *used = 2;
            return d;
        }
    }
    *used = 1;
    return argc >= 1 ? pg_opdecl_find_cli(argv[0]) : NULL;
}

bool pg_cli_is_group(const char *word) {
    size_t n = strlen(word);
    for (size_t i = 0; i < PG_OPI_COUNT; i++)
        if (!strncmp(pg_opdecls[i].cli, word, n) && pg_opdecls[i].cli[n] == ' ') return true;
    return false;
}

static const pg_argdecl *find_option(const pg_opdecl *d, const char *name, size_t len) {
    for (size_t i = 0; i < d->n_args; i++)
        if (d->args[i].cli && strlen(d->args[i].cli) == len && !strncmp(d->args[i].cli, name, len)) return &d->args[i];
    return NULL;
}

/* The argument the next bare word fills; a positional list (drop TOKEN...)
 * takes every word left. */
static const pg_argdecl *next_positional(const pg_opdecl *d, size_t *cursor, const pg_argdecl **list) {
    while (*cursor < d->n_args && !(d->args[*cursor].flags & PG_AF_POSITIONAL)) (*cursor)++;
    if (*cursor >= d->n_args) return *list;
    const pg_argdecl *a = &d->args[(*cursor)++];
    if (a->type == PG_T_STRINGS || a->type == PG_T_RECTS) *list = a;
    return a;
}

/* "1,-2,30" -> up to max integers separated by sep; how many, -1 on junk. */
static int parse_ints(const char *s, char sep, long *out, int max) {
    int n = 0;
    for (const char *p = s; n < max;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno) return -1;
        out[n++] = v;
        if (*end == '\0') return n;
        if (*end != sep) return -1;
        p = end + 1;
    }
    return -1;
}

static cJSON *ints_object(const char *const *keys, const long *v, int n) {
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < n; i++) cJSON_AddNumberToObject(o, keys[i], (double)v[i]);
    return o;
}

pg_err pg_parse_region(const char *s, cJSON **out, pg_error *e) {
    static const char *keys[] = {"x", "y", "w", "h"};
    long v[4];
    if (parse_ints(s, ',', v, 4) != 4 || v[2] <= 0 || v[3] <= 0)
        return pg_error_set(e, PG_E_USAGE, "e.g. --region 10,20,200,100", "bad rectangle \"%s\": want X,Y,W,H with W,H > 0",
                            s);
    *out = ints_object(keys, v, 4);
    return PG_OK;
}

pg_err pg_parse_point(const char *s, cJSON **out, pg_error *e) {
    static const char *keys[] = {"x", "y"};
    long v[2];
    if (parse_ints(s, ',', v, 2) != 2)
        return pg_error_set(e, PG_E_USAGE, "e.g. --at 120,45 (relative to the window)", "bad point \"%s\": want X,Y", s);
    *out = ints_object(keys, v, 2);
    return PG_OK;
}

pg_err pg_parse_size(const char *s, cJSON **out, pg_error *e) {
    static const char *keys[] = {"w", "h"};
    long v[2];
    if (parse_ints(s, 'x', v, 2) != 2 || v[0] <= 0 || v[1] <= 0)
        return pg_error_set(e, PG_E_USAGE, "e.g. --max-size 1280x720", "bad size \"%s\": want WxH", s);
    *out = ints_object(keys, v, 2);
    return PG_OK;
}

/* A number as the command line writes it; ids may be 0x hex. */
static pg_err parse_number(const pg_argdecl *a, const char *s, cJSON **out, pg_error *e) {
    char *end;
    errno = 0;
    double v;
    if (a->type == PG_T_INT) {
        bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        long long i = strtoll(s, &end, hex ? 16 : 10);
        v = (double)i;
    } else {
        v = strtod(s, &end);
    }
    if (!*s || *end || errno)
        return pg_error_set(e, PG_E_USAGE, NULL, "%s takes a number, not \"%s\"", a->cli ? a->cli : a->meta, s);
    *out = cJSON_CreateNumber(v);
    return PG_OK;
}

/* Adds value to the list argument a->name of args. */
static void append(cJSON *args, const char *name, cJSON *item) {
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(args, name);
    if (!arr) arr = cJSON_AddArrayToObject(args, name);
    cJSON_AddItemToArray(arr, item);
}

/* One value of argument a (the word after its option, or a positional word). */
static pg_err put_value(pg_cli_request *req, cJSON *args, const pg_argdecl *a, const char *v, pg_error *e) {
    cJSON *j = NULL;
    pg_err rc = PG_OK;
    switch (a->type) {
    case PG_T_STRING:
    case PG_T_ENUM: j = cJSON_CreateString(v); break;
    case PG_T_INT:
    case PG_T_NUM: rc = parse_number(a, v, &j, e); break;
    case PG_T_RECT: rc = pg_parse_region(v, &j, e); break;
    case PG_T_SIZE: rc = pg_parse_size(v, &j, e); break;
    case PG_T_POINT: rc = pg_parse_point(v, &j, e); break;
    case PG_T_IMAGE: return pg_cli_image_arg(req, a->name, v, e);
    case PG_T_RECTS: rc = pg_parse_region(v, &j, e); break;
    case PG_T_STRINGS: j = cJSON_CreateString(v); break;
    case PG_T_BOOL: return pg_error_set(e, PG_E_INTERNAL, NULL, "a flag has no value");
    }
    if (rc) return rc;
    if (a->type == PG_T_RECTS || a->type == PG_T_STRINGS) append(args, a->name, j);
    else if (cJSON_GetObjectItemCaseSensitive(args, a->name)) {
        cJSON_Delete(j);
        return pg_error_set(e, PG_E_USAGE, NULL, "%s given twice", a->cli ? a->cli : a->meta);
    } else cJSON_AddItemToObject(args, a->name, j);
    return PG_OK;
}

/* One "--name[=value]" word (and its value word); *i advances past what it used. */
static pg_err take_option(const pg_opdecl *d, pg_cli_request *req, cJSON *args, int argc, char **argv, int *i,
                          pg_error *e) {
    const char *w = argv[*i], *eq = strchr(w, '=');
    size_t len = eq ? (size_t)(eq - w) : strlen(w);
    const pg_argdecl *a = find_option(d, w, len);
    if (!a)
        return pg_error_set(e, PG_E_USAGE, "see 'pixelgate help' for its options", "%s has no option %.*s", d->cli,
                            (int)len, w);
    if (a->type == PG_T_BOOL) {
        if (eq) return pg_error_set(e, PG_E_USAGE, NULL, "%s takes no value", a->cli);
        if (cJSON_GetObjectItemCaseSensitive(args, a->name))
            return pg_error_set(e, PG_E_USAGE, NULL, "%s given twice", a->cli);
        cJSON_AddBoolToObject(args, a->name, !(a->flags & PG_AF_NEGATE));
        return PG_OK;
    }
    const char *v = eq ? eq + 1 : NULL;
    if (!v && *i + 1 < argc) v = argv[++*i];
    if (!v) return pg_error_set(e, PG_E_USAGE, NULL, "%s needs a value (%s)", a->cli, a->meta ? a->meta : "");
    return put_value(req, args, a, v, e);
}

/* Moves the arguments only the client uses (PG_AF_LOCAL) out of args. */
static void take_local(const pg_opdecl *d, cJSON *args, pg_cli_request *out) {
    for (size_t i = 0; i < d->n_args; i++) {
        const pg_argdecl *a = &d->args[i];
        if (!(a->flags & PG_AF_LOCAL)) continue;
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(args, a->name);
        if (!v) continue;
        if (!cJSON_IsString(v) && !cJSON_IsBool(v)) {
            cJSON_Delete(v);
            continue;
        }
        if (!out->local) out->local = cJSON_CreateObject();
        cJSON_AddItemToObject(out->local, a->name, v);
    }
    if (d->flags & PG_OPF_PIXELS) { /* where released bytes go: the client writes them, as its user */
        const cJSON *png = cJSON_GetObjectItemCaseSensitive(out->local, "png");
        const cJSON *rep = cJSON_GetObjectItemCaseSensitive(out->local, "report");
        out->out_path = cJSON_IsString(png) ? png->valuestring : NULL;
        out->out_base64 = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out->local, "base64"));
        out->report_dir = cJSON_IsString(rep) ? rep->valuestring : NULL;
        /* Ask for what the files need: the page (html, or image=html) or the PNG (image=png). */
        if (out->report_dir && pg_opdecl_arg(d, "html")) cJSON_AddBoolToObject(args, "html", true);
        if (pg_opdecl_arg(d, "image") && (out->report_dir || out->out_path) &&
            !cJSON_GetObjectItemCaseSensitive(args, "image"))
            cJSON_AddStringToObject(args, "image", out->report_dir ? "html" : "png");
    }
}

pg_err pg_cli_build(const pg_opdecl *d, int argc, char **argv, pg_cli_request *out, pg_error *e) {
    out->op = d->id;
    out->args = cJSON_CreateObject();
    if (!out->args) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    size_t cursor = 0;
    const pg_argdecl *list = NULL;
    bool only_pos = false;
    pg_err rc = PG_OK;
    for (int i = 0; i < argc && !rc; i++) {
        const char *w = argv[i];
        if (!only_pos && !strcmp(w, "--")) {
            only_pos = true;
        } else if (!only_pos && w[0] == '-' && w[1] == '-') {
            rc = take_option(d, out, out->args, argc, argv, &i, e);
        } else {
            const pg_argdecl *a = next_positional(d, &cursor, &list);
            rc = a ? put_value(out, out->args, a, w, e)
                   : pg_error_set(e, PG_E_USAGE, "see 'pixelgate help' for its arguments",
                                  "unexpected argument \"%s\" for %s", w, d->cli);
        }
    }
    if (rc) return rc;
    /* An op that judges a file by its name (spec) gets the name of the file read, never its path. */
    if (out->last_file && pg_opdecl_arg(d, "file_name") && !cJSON_GetObjectItemCaseSensitive(out->args, "file_name")) {
        const char *base = out->last_file, *p;
        for (p = base; *p; p++)
            if (*p == '/' || *p == '\\') base = p + 1;
        cJSON_AddStringToObject(out->args, "file_name", base);
    }
    void *parsed = malloc(d->args_size); /* the broker's own check, with the command line's names */
    if (!parsed) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    rc = pg_opdecl_check(d, out->args, parsed, true, e);
    free(parsed);
    if (!rc) take_local(d, out->args, out);
    if (!rc && out->report_dir && out->out_path)
        rc = pg_error_set(e, PG_E_USAGE, NULL, "--png and --report are two ways to look: take one");
    if (!rc && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out->args, "html")) && !out->report_dir)
        rc = pg_error_set(e, PG_E_USAGE, "add --report DIR", "--html writes report.html: it needs --report DIR");
    return rc;
}
