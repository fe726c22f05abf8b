/* snapshot (--window REGEX | --id ID | --screen) [--region X,Y,W,H] [--max-size WxH] [--first] [--no-settle] */
#include "cmd.h"

pg_err pg_cmd_snapshot(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS,
                     {"--screen", false, NULL, false},
                     {"--region", true, NULL, false},
                     {"--max-size", true, NULL, false},
                     {"--no-settle", false, NULL, false}};
    size_t n = sizeof opts / sizeof opts[0], np;
    char *pos[1];
    pg_err rc = pg_opts_parse(argc, argv, opts, n, pos, 0, &np, e);
    if (rc) return rc;
    out->op = "snapshot";
    out->args = cJSON_CreateObject();
    bool screen = pg_opt_get(opts, n, "--screen") != NULL;
    rc = pg_add_target(opts, n, out->args, !screen, e);
    if (rc) return rc;
    if (screen) {
        if (cJSON_GetObjectItem(out->args, "window") || cJSON_GetObjectItem(out->args, "id"))
            return pg_error_set(e, PG_E_USAGE, NULL, "give --screen or a window, not both");
        cJSON_AddBoolToObject(out->args, "screen", 1);
    }
    const pg_opt *o;
    cJSON *j;
    if ((o = pg_opt_get(opts, n, "--region"))) {
        if ((rc = pg_parse_region(o->value, &j, e))) return rc;
        cJSON_AddItemToObject(out->args, "region", j);
    }
    if ((o = pg_opt_get(opts, n, "--max-size"))) {
        if ((rc = pg_parse_size(o->value, &j, e))) return rc;
        cJSON_AddItemToObject(out->args, "max_size", j);
    }
    if (pg_opt_get(opts, n, "--no-settle")) cJSON_AddBoolToObject(out->args, "settle", 0);
    return PG_OK;
}
