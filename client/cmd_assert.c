/* hash, diff, assert: comparisons run in the broker. IMAGE arguments are
 * tokens or local files (read here, sent as bytes). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#define MAX_MASKS 64

/* Moves every "--mask R" out of argv into masks; the rest goes to rest. */
static pg_err take_masks(int argc, char **argv, char **rest, int *n_rest, cJSON **masks, pg_error *e) {
    *n_rest = 0;
    *masks = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--mask")) {
            if (i + 1 >= argc) return pg_error_set(e, PG_E_USAGE, NULL, "--mask needs X,Y,W,H");
            v = argv[++i];
        } else if (!strncmp(argv[i], "--mask=", 7)) {
            v = argv[i] + 7;
        }
        if (!v) {
            rest[(*n_rest)++] = argv[i];
            continue;
        }
        if (!*masks) *masks = cJSON_CreateArray();
        if (cJSON_GetArraySize(*masks) == MAX_MASKS) return pg_error_set(e, PG_E_USAGE, NULL, "at most %d masks", MAX_MASKS);
        cJSON *r;
        pg_err rc = pg_parse_region(v, &r, e);
        if (rc) return rc;
        cJSON_AddItemToArray(*masks, r);
    }
    return PG_OK;
}

static pg_err add_number(cJSON *args, const char *name, const pg_opt *o, double lo, double hi, pg_error *e) {
    if (!o) return PG_OK;
    char *end;
    double v = strtod(o->value, &end);
    if (*end || end == o->value || v < lo || v > hi)
        return pg_error_set(e, PG_E_USAGE, NULL, "%s takes a number in %g..%g", o->name, lo, hi);
    cJSON_AddNumberToObject(args, name, v);
    return PG_OK;
}

static pg_err add_region(cJSON *args, const pg_opt *o, pg_error *e) {
    if (!o) return PG_OK;
    cJSON *r;
    pg_err rc = pg_parse_region(o->value, &r, e);
    if (!rc) cJSON_AddItemToObject(args, "region", r);
    return rc;
}

pg_err pg_cmd_hash(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--algo", true, NULL, false}, {"--region", true, NULL, false}};
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, opts, 2, pos, 1, &np, e);
    if (rc) return rc;
    if (np != 1) return pg_error_set(e, PG_E_USAGE, NULL, "hash takes one IMAGE (a token or a file)");
    out->op = "hash";
    out->args = cJSON_CreateObject();
    if (opts[0].seen) cJSON_AddStringToObject(out->args, "algo", opts[0].value);
    if ((rc = add_region(out->args, pg_opt_get(opts, 2, "--region"), e))) return rc;
    return pg_cli_image_arg(out, "image", pos[0], e);
}

/* The options diff and assert changed/unchanged share. */
#define DIFF_OPTS                                                                                   \
    {"--threshold", true, NULL, false}, {"--include-aa", false, NULL, false}, {"--region", true, NULL, false}

static pg_err diff_common(pg_opt *opts, size_t n, char **pos, cJSON *masks, pg_cli_request *out, pg_error *e) {
    pg_err rc = add_number(out->args, "threshold", pg_opt_get(opts, n, "--threshold"), 0, 1, e);
    if (!rc) rc = add_region(out->args, pg_opt_get(opts, n, "--region"), e);
    if (rc) return rc;
    if (pg_opt_get(opts, n, "--include-aa")) cJSON_AddBoolToObject(out->args, "include_aa", 1);
    if (masks) cJSON_AddItemToObject(out->args, "masks", cJSON_Duplicate(masks, 1));
    if (!(rc = pg_cli_image_arg(out, "a", pos[0], e))) rc = pg_cli_image_arg(out, "b", pos[1], e);
    return rc;
}

pg_err pg_cmd_diff(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nr;
    cJSON *masks;
    pg_err rc = take_masks(argc, argv, rest, &nr, &masks, e);
    pg_opt opts[] = {DIFF_OPTS, {"--max-ratio", true, NULL, false}};
    size_t n = 4, np;
    char *pos[2];
    if (!rc) rc = pg_opts_parse(nr, rest, opts, n, pos, 2, &np, e);
    if (!rc && np != 2) rc = pg_error_set(e, PG_E_USAGE, NULL, "diff takes two IMAGES: A B (tokens or files)");
    if (!rc) {
        out->op = "diff";
        out->args = cJSON_CreateObject();
        rc = add_number(out->args, "max_ratio", pg_opt_get(opts, n, "--max-ratio"), 0, 1, e);
    }
    if (!rc) rc = diff_common(opts, n, pos, masks, out, e);
    cJSON_Delete(masks);
    free(rest);
    return rc;
}

static pg_err assert_compare(const char *kind, int argc, char **argv, pg_cli_request *out, pg_error *e) {
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nr;
    cJSON *masks;
    pg_err rc = take_masks(argc, argv, rest, &nr, &masks, e);
    pg_opt opts[] = {DIFF_OPTS, {"--min-pct", true, NULL, false}, {"--max-pct", true, NULL, false}};
    size_t n = 5, np;
    char *pos[2];
    if (!rc) rc = pg_opts_parse(nr, rest, opts, n, pos, 2, &np, e);
    if (!rc && np != 2) rc = pg_error_set(e, PG_E_USAGE, NULL, "assert %s takes two IMAGES: A B", kind);
    bool changed = !strcmp(kind, "changed");
    if (!rc && pg_opt_get(opts, n, changed ? "--max-pct" : "--min-pct"))
        rc = pg_error_set(e, PG_E_USAGE, NULL, "assert %s takes %s", kind, changed ? "--min-pct" : "--max-pct");
    if (!rc) {
        out->op = "assert";
        out->args = cJSON_CreateObject();
        cJSON_AddStringToObject(out->args, "kind", kind);
        rc = add_number(out->args, changed ? "min_pct" : "max_pct",
                        pg_opt_get(opts, n, changed ? "--min-pct" : "--max-pct"), 0, 100, e);
    }
    if (!rc) rc = diff_common(opts, n, pos, masks, out, e);
    cJSON_Delete(masks);
    free(rest);
    return rc;
}

static pg_err assert_template(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--template", true, NULL, false},
                     {"--threshold", true, NULL, false},
                     {"--all", false, NULL, false},
                     {"--region", true, NULL, false}};
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, opts, 4, pos, 1, &np, e);
    if (rc) return rc;
    if (np != 1 || !opts[0].seen)
        return pg_error_set(e, PG_E_USAGE, NULL, "assert template IMAGE --template FILE|TOKEN");
    out->op = "assert";
    out->args = cJSON_CreateObject();
    cJSON_AddStringToObject(out->args, "kind", "template");
    if ((rc = add_number(out->args, "threshold", pg_opt_get(opts, 4, "--threshold"), -1, 1, e))) return rc;
    if ((rc = add_region(out->args, pg_opt_get(opts, 4, "--region"), e))) return rc;
    if (opts[2].seen) cJSON_AddBoolToObject(out->args, "all", 1);
    if ((rc = pg_cli_image_arg(out, "image", pos[0], e))) return rc;
    return pg_cli_image_arg(out, "template", opts[0].value, e);
}

static pg_err assert_text(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--expect", true, NULL, false}, {"--exact", false, NULL, false}, {"--region", true, NULL, false}};
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, opts, 3, pos, 1, &np, e);
    if (rc) return rc;
    if (np != 1 || !opts[0].seen) return pg_error_set(e, PG_E_USAGE, NULL, "assert text IMAGE --expect TEXT");
    out->op = "assert";
    out->args = cJSON_CreateObject();
    cJSON_AddStringToObject(out->args, "kind", "text");
    cJSON_AddStringToObject(out->args, "expect", opts[0].value);
    if (opts[1].seen) cJSON_AddBoolToObject(out->args, "exact", 1);
    if ((rc = add_region(out->args, pg_opt_get(opts, 3, "--region"), e))) return rc;
    return pg_cli_image_arg(out, "image", pos[0], e);
}

pg_err pg_cmd_assert(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    if (argc < 1)
        return pg_error_set(e, PG_E_USAGE, "pixelgate help assert", "assert needs a kind: changed, unchanged, template, text");
    const char *kind = argv[0];
    if (!strcmp(kind, "changed") || !strcmp(kind, "unchanged")) return assert_compare(kind, argc - 1, argv + 1, out, e);
    if (!strcmp(kind, "template")) return assert_template(argc - 1, argv + 1, out, e);
    if (!strcmp(kind, "text")) return assert_text(argc - 1, argv + 1, out, e);
    return pg_error_set(e, PG_E_USAGE, "assert changed|unchanged|template|text", "unknown assertion \"%s\"", kind);
}
