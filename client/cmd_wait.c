/* wait-stable and wait-for: the broker polls live captures until the
 * condition holds or the timeout passes (exit 6 with the last frame). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static pg_err seconds(cJSON *args, const char *name, const pg_opt *o, double max, pg_error *e) {
    if (!o) return PG_OK;
    char *end;
    double v = strtod(o->value, &end);
    if (*end || end == o->value || v <= 0 || v > max)
        return pg_error_set(e, PG_E_USAGE, NULL, "%s takes seconds in (0, %g]", o->name, max);
    cJSON_AddNumberToObject(args, name, v);
    return PG_OK;
}

pg_err pg_cmd_wait_stable(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS,
                     {"--region", true, NULL, false},
                     {"--frames", true, NULL, false},
                     {"--interval", true, NULL, false},
                     {"--timeout", true, NULL, false}};
    size_t n = sizeof opts / sizeof opts[0], np;
    char *pos[1];
    pg_err rc = pg_opts_parse(argc, argv, opts, n, pos, 0, &np, e);
    if (rc) return rc;
    out->op = "wait_stable";
    out->args = cJSON_CreateObject();
    if ((rc = pg_add_target(opts, n, out->args, true, e))) return rc;
    const pg_opt *o;
    if ((o = pg_opt_get(opts, n, "--region"))) {
        cJSON *r;
        if ((rc = pg_parse_region(o->value, &r, e))) return rc;
        cJSON_AddItemToObject(out->args, "region", r);
    }
    if ((o = pg_opt_get(opts, n, "--frames"))) {
        long f = strtol(o->value, NULL, 10);
        if (f < 2 || f > 100) return pg_error_set(e, PG_E_USAGE, NULL, "--frames takes 2..100");
        cJSON_AddNumberToObject(out->args, "frames", (double)f);
    }
    if ((rc = seconds(out->args, "interval", pg_opt_get(opts, n, "--interval"), 60, e))) return rc;
    return seconds(out->args, "timeout", pg_opt_get(opts, n, "--timeout"), 3600, e);
}

pg_err pg_cmd_wait_for(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS,
                     {"--text", true, NULL, false},
                     {"--template", true, NULL, false},
                     {"--timeout", true, NULL, false},
                     {"--interval", true, NULL, false}};
    size_t n = sizeof opts / sizeof opts[0], np;
    char *pos[1];
    pg_err rc = pg_opts_parse(argc, argv, opts, n, pos, 0, &np, e);
    if (rc) return rc;
    out->op = "wait_for";
    out->args = cJSON_CreateObject();
    if ((rc = pg_add_target(opts, n, out->args, true, e))) return rc;
    const pg_opt *text = pg_opt_get(opts, n, "--text"), *tmpl = pg_opt_get(opts, n, "--template");
    if (!!text == !!tmpl) return pg_error_set(e, PG_E_USAGE, NULL, "wait-for takes exactly one of --text or --template");
    if (text) cJSON_AddStringToObject(out->args, "text", text->value);
    else if ((rc = pg_cli_image_arg(out, "template", tmpl->value, e))) return rc;
    if ((rc = seconds(out->args, "interval", pg_opt_get(opts, n, "--interval"), 60, e))) return rc;
    return seconds(out->args, "timeout", pg_opt_get(opts, n, "--timeout"), 3600, e);
}
