/* release, approve, analyze, ocr, judge: what the policy lets out of the broker. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* Parses opts and exactly one positional TOKEN into args.token. */
static pg_err token_cmd(const char *op, int argc, char **argv, pg_opt *opts, size_t n, pg_cli_request *out,
                        pg_error *e) {
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, opts, n, pos, 1, &np, e);
    if (rc) return rc;
    if (np != 1) return pg_error_set(e, PG_E_USAGE, NULL, "%s takes one TOKEN (from pixelgate snapshot)", op);
    out->op = op;
    out->args = cJSON_CreateObject();
    cJSON_AddStringToObject(out->args, "token", pos[0]);
    return PG_OK;
}

pg_err pg_cmd_release(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--png", true, NULL, false}, {"--base64", false, NULL, false}};
    pg_err rc = token_cmd("release", argc, argv, opts, 2, out, e);
    if (rc) return rc;
    if (opts[0].seen == opts[1].seen)
        return pg_error_set(e, PG_E_USAGE, NULL, "release needs exactly one of --png PATH or --base64");
    out->out_path = opts[0].value;
    out->out_base64 = opts[1].seen;
    return PG_OK;
}

pg_err pg_cmd_approve(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    char *pos[1];
    size_t np;
    pg_err rc = pg_opts_parse(argc, argv, NULL, 0, pos, 1, &np, e);
    if (rc) return rc;
    if (np != 1) return pg_error_set(e, PG_E_USAGE, NULL, "approve takes one REQUEST_ID (rel:...)");
    out->op = "approve";
    out->args = cJSON_CreateObject();
    cJSON_AddStringToObject(out->args, "request", pos[0]);
    return PG_OK;
}

pg_err pg_cmd_analyze(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--prompt", true, NULL, false}, {"--endpoint", true, NULL, false}};
    pg_err rc = token_cmd("analyze", argc, argv, opts, 2, out, e);
    if (rc) return rc;
    if (!opts[0].seen) return pg_error_set(e, PG_E_USAGE, NULL, "analyze needs --prompt TEXT");
    cJSON_AddStringToObject(out->args, "prompt", opts[0].value);
    if (opts[1].seen) cJSON_AddStringToObject(out->args, "endpoint", opts[1].value);
    return PG_OK;
}

pg_err pg_cmd_ocr(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--region", true, NULL, false}};
    pg_err rc = token_cmd("ocr", argc, argv, opts, 1, out, e);
    if (rc) return rc;
    if (opts[0].seen) {
        cJSON *r;
        if ((rc = pg_parse_region(opts[0].value, &r, e))) return rc;
        cJSON_AddItemToObject(out->args, "region", r);
    }
    return PG_OK;
}

pg_err pg_cmd_judge(int argc, char **argv, pg_cli_request *out, pg_error *e) {
    pg_opt opts[] = {{"--expect", true, NULL, false}, {"--samples", true, NULL, false}, {"--endpoint", true, NULL, false}};
    pg_err rc = token_cmd("judge", argc, argv, opts, 3, out, e);
    if (rc) return rc;
    if (!opts[0].seen) return pg_error_set(e, PG_E_USAGE, NULL, "judge needs --expect TEXT");
    cJSON_AddStringToObject(out->args, "expect", opts[0].value);
    if (opts[1].seen) {
        char *end;
        long n = strtol(opts[1].value, &end, 10);
        if (*end || n < 1 || n > 9) return pg_error_set(e, PG_E_USAGE, NULL, "--samples takes 1..9");
        cJSON_AddNumberToObject(out->args, "samples", (double)n);
    }
    if (opts[2].seen) cJSON_AddStringToObject(out->args, "endpoint", opts[2].value);
    return PG_OK;
}
