/* ping, caps, info: requests with no target window. */
#include "cmd.h"

pg_err pg_cmd_ping(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, NULL, 0, pos, 0, &np, e);
    if (rc) return rc;
    out->op = "ping";
    out->args = cJSON_CreateObject();
    return PG_OK;
}

pg_err pg_cmd_caps(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_err rc = pg_cmd_ping(argc, argv, out, e);
    out->op = "caps";
    return rc;
}

pg_err pg_cmd_info(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, NULL, 0, pos, 1, &np, e);
    if (rc) return rc;
    if (np != 1) return pg_error_set(e, PG_E_USAGE, NULL, "info takes one TOKEN");
    out->op = "info";
    out->args = cJSON_CreateObject();
    cJSON_AddStringToObject(out->args, "token", pos[0]);
    return PG_OK;
}
