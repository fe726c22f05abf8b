/* windows [--match REGEX] */
#include "cmd.h"

pg_err pg_cmd_windows(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--match", true, NULL, false}};
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, opts, 1, pos, 0, &np, e);
    if (rc) return rc;
    out->op = "windows";
    out->args = cJSON_CreateObject();
    if (opts[0].seen) cJSON_AddStringToObject(out->args, "match", opts[0].value);
    return PG_OK;
}
