/* focus, click, key, type: input aimed at one window the broker resolves. */
#include <string.h>

#include "cmd.h"

/* Parses the target options plus extra; fills out->args with the target. */
static pg_err target_cmd(const char *op, int argc, char **argv, pg_opt *opts, size_t n, char **pos, size_t max_pos,
                         size_t *np, pg_cli_request *out, pg_error *e) {
    pg_err rc = pg_opts_parse(argc, argv, opts, n, pos, max_pos, np, e);
    if (rc) return rc;
    out->op = op;
    out->args = cJSON_CreateObject();
    return pg_add_target(opts, n, out->args, true, e);
}

pg_err pg_cmd_focus(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS};
    char *pos[1];
    size_t np;
    return target_cmd("focus", argc, argv, opts, 3, pos, 0, &np, out, e);
}

pg_err pg_cmd_click(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS,
                     {"--at", true, NULL, false},
                     {"--text", true, NULL, false},
                     {"--template", true, NULL, false},
                     {"--offset", true, NULL, false},
                     {"--button", true, NULL, false},
                     {"--double", false, NULL, false}};
    size_t n = sizeof opts / sizeof opts[0], np;
    char *pos[1];
    pg_err rc = target_cmd("click", argc, argv, opts, n, pos, 0, &np, out, e);
    if (rc) return rc;
    const pg_opt *at = pg_opt_get(opts, n, "--at"), *text = pg_opt_get(opts, n, "--text"),
                 *tmpl = pg_opt_get(opts, n, "--template"), *off = pg_opt_get(opts, n, "--offset");
    if (!!at + !!text + !!tmpl != 1)
        return pg_error_set(e, PG_E_USAGE, NULL, "click needs one of --at X,Y, --text TEXT or --template FILE");
    long x, y;
    if (at) {
        if ((rc = pg_parse_point(at->value, &x, &y, e))) return rc;
        cJSON_AddNumberToObject(out->args, "x", (double)x);
        cJSON_AddNumberToObject(out->args, "y", (double)y);
    }
    if (text) cJSON_AddStringToObject(out->args, "text", text->value);
    if (tmpl && (rc = pg_cli_image_arg(out, "template", tmpl->value, e))) return rc;
    if (off) {
        if (at) return pg_error_set(e, PG_E_USAGE, NULL, "--offset goes with --text or --template");
        if ((rc = pg_parse_point(off->value, &x, &y, e))) return rc;
        cJSON_AddNumberToObject(out->args, "offset_x", (double)x);
        cJSON_AddNumberToObject(out->args, "offset_y", (double)y);
    }
    const pg_opt *b = pg_opt_get(opts, n, "--button");
    if (b) cJSON_AddStringToObject(out->args, "button", b->value);
    if (pg_opt_get(opts, n, "--double")) cJSON_AddBoolToObject(out->args, "double", 1);
    return PG_OK;
}

pg_err pg_cmd_key(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS};
    char *pos[1];
    size_t np;
    pg_err rc = target_cmd("key", argc, argv, opts, 3, pos, 1, &np, out, e);
    if (rc) return rc;
    if (np != 1) return pg_error_set(e, PG_E_USAGE, "e.g. pixelgate key --window X ctrl+a", "key takes one CHORD");
    cJSON_AddStringToObject(out->args, "chord", pos[0]);
    return PG_OK;
}

pg_err pg_cmd_type(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {PG_TARGET_OPTS};
    char *pos[1];
    size_t np;
    pg_err rc = target_cmd("type", argc, argv, opts, 3, pos, 1, &np, out, e);
    if (rc) return rc;
    if (np != 1) return pg_error_set(e, PG_E_USAGE, "quote the text: pixelgate type --window X 'Hello'", "type takes one TEXT");
    cJSON_AddStringToObject(out->args, "text", pos[0]);
    return PG_OK;
}
