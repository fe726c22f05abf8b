/* SPDX-License-Identifier: MIT */
/* `pixelgate mcp`: the JSON-RPC envelope, the tool list read from the
 * declarations, a tool call's arguments as a broker request, the results,
 * and the server loop over real streams (a silent fake broker for
 * cancellation). Checked against the declarations, not against copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_jsonrpc.h"
#include "pg_mcp.h"
#include "pg_proto.h"
#include "pg_test.h"
#include "pg_transport.h"

#ifndef _WIN32
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

static int parse(const char *line, pg_rpc_msg *m) {
    char why[160];
    return pg_rpc_parse(line, strlen(line), m, why, sizeof why);
}

PG_TEST(jsonrpc_tells_requests_notifications_and_responses_apart) {
    pg_rpc_msg m;
    REQUIRE(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{}}", &m) == 0);
    CHECK_EQ_INT(m.kind, PG_RPC_REQUEST);
    CHECK_STR(m.method, "tools/list");
    CHECK(cJSON_IsObject(m.params));
    pg_rpc_msg_fini(&m);
    REQUIRE(parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &m) == 0);
    CHECK_EQ_INT(m.kind, PG_RPC_NOTIFICATION);
    CHECK(m.id == NULL && m.params == NULL);
    pg_rpc_msg_fini(&m);
    REQUIRE(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}", &m) == 0);
    CHECK_EQ_INT(m.kind, PG_RPC_RESPONSE);
    pg_rpc_msg_fini(&m);
    REQUIRE(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-1,\"message\":\"m\"}}", &m) == 0);
    CHECK(m.error != NULL);
    pg_rpc_msg_fini(&m);
}

PG_TEST(jsonrpc_refuses_what_the_envelope_does_not_allow_and_keeps_a_readable_id) {
    static const struct {
        const char *line;
        int code;
        bool has_id;
    } cases[] = {
        {"not json", PG_RPC_PARSE_ERROR, false},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x", PG_RPC_PARSE_ERROR, false},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc3\x28\"}", PG_RPC_PARSE_ERROR, false},      /* bad UTF-8 */
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xed\xa0\x80\"}", PG_RPC_PARSE_ERROR, false},   /* a surrogate */
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\xaf\"}", PG_RPC_PARSE_ERROR, false},       /* overlong */
        {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", PG_RPC_INVALID_REQUEST, false},   /* batch */
        {"\"ping\"", PG_RPC_INVALID_REQUEST, false},
        {"{\"id\":1,\"method\":\"ping\"}", PG_RPC_INVALID_REQUEST, true},                          /* no jsonrpc */
        {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", PG_RPC_INVALID_REQUEST, false},  /* MCP: no null id */
        {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", PG_RPC_INVALID_REQUEST, false},
        {"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", PG_RPC_INVALID_REQUEST, false},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":3}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"x\"}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"extra\":1}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"result\":{}}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"\"}}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"x\",\"message\":\"\"}}", PG_RPC_INVALID_REQUEST, true},
        {"{\"jsonrpc\":\"2.0\"}", PG_RPC_INVALID_REQUEST, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pg_rpc_msg m;
        int code = parse(cases[i].line, &m);
        if (code != cases[i].code || (m.id != NULL) != cases[i].has_id)
            fprintf(stderr, "case %zu: %s -> %d (id %s)\n", i, cases[i].line, code, m.id ? "kept" : "none");
        CHECK_EQ_INT(code, cases[i].code);
        CHECK_EQ_INT(m.id != NULL, cases[i].has_id);
        pg_rpc_msg_fini(&m);
    }
    /* a NUL byte inside the line */
    pg_rpc_msg m;
    char why[64];
    CHECK_EQ_INT(pg_rpc_parse("{\"a\":\"\0\"}", 9, &m, why, sizeof why), PG_RPC_PARSE_ERROR);
    pg_rpc_msg_fini(&m);
}

PG_TEST(an_answer_echoes_the_largest_integer_id_exactly) {
    pg_rpc_msg m, r;
    REQUIRE(parse("{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,\"method\":\"ping\"}", &m) == 0);
    char *line = pg_rpc_line_result(m.id, cJSON_CreateObject());
    REQUIRE(line != NULL);
    CHECK(strstr(line, "\"id\":9007199254740991,") != NULL);
    CHECK(line[strlen(line) - 1] == '\n');
    REQUIRE(parse(line, &r) == 0);
    CHECK(pg_rpc_id_equal(r.id, m.id));
    pg_rpc_msg_fini(&r);
    free(line);
    line = pg_rpc_line_error(NULL, PG_RPC_PARSE_ERROR, "not JSON", NULL);
    CHECK(strstr(line, "\"id\":null") && strstr(line, "-32700"));
    free(line);
    pg_rpc_msg_fini(&m);
}

PG_TEST(the_server_answers_the_revision_asked_for_when_it_speaks_it_else_its_latest) {
    for (size_t i = 0; pg_mcp_protocol_versions[i]; i++)
        CHECK_STR(pg_mcp_negotiate(pg_mcp_protocol_versions[i]), pg_mcp_protocol_versions[i]);
    CHECK_STR(pg_mcp_negotiate("1999-01-01"), PG_MCP_PROTOCOL_LATEST);
    CHECK_STR(pg_mcp_negotiate(NULL), PG_MCP_PROTOCOL_LATEST);
}

/* ---- the tool list against the declarations ---- */

static const cJSON *tool_named(const cJSON *tools, const char *name) {
    for (const cJSON *t = tools->child; t; t = t->next)
        if (!strcmp(cJSON_GetObjectItem(t, "name")->valuestring, name)) return t;
    return NULL;
}

static bool in_required(const cJSON *schema, const char *name) {
    for (const cJSON *r = cJSON_GetObjectItem(schema, "required") ? cJSON_GetObjectItem(schema, "required")->child
                                                                     : NULL;
         r; r = r->next)
        if (!strcmp(r->valuestring, name)) return true;
    return false;
}

/* A command-line flag ("--window") or an exit code ("exit 3"): what a
 * model calling a tool never sees. */
static bool speaks_cli(const char *s) {
    for (const char *p = strstr(s, "--"); p; p = strstr(p + 1, "--"))
        if (p[2] >= 'a' && p[2] <= 'z') return true;
    for (const char *p = strstr(s, "exit "); p; p = strstr(p + 1, "exit "))
        if (p[5] >= '0' && p[5] <= '9') return true;
    return false;
}

static void check_arg_schema(int *pg_failed_, const pg_opdecl *d, const pg_argdecl *a, const cJSON *schema) {
    const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), a->name);
    if (a->flags & PG_AF_LOCAL && a->type == PG_T_BOOL) { /* release base64: image content instead */
        CHECK(p == NULL);
        return;
    }
    if (!p) fprintf(stderr, "%s.%s missing from the schema\n", d->id, a->name);
    REQUIRE(p != NULL);
    const char *desc = cJSON_GetObjectItem(p, "description")->valuestring;
    char *help = pg_mcp_terms(d, a->help);
    REQUIRE(help != NULL);
    CHECK(!strncmp(desc, help, strlen(help)));
    free(help);
    CHECK(!speaks_cli(desc));
    CHECK_EQ_INT(in_required(schema, a->name), (a->flags & PG_AF_REQUIRED) != 0);
    const char *type = cJSON_GetObjectItem(p, "type")->valuestring;
    switch (a->type) {
    case PG_T_INT:
    case PG_T_NUM:
        CHECK_STR(type, a->type == PG_T_INT ? "integer" : "number");
        CHECK(cJSON_GetObjectItem(p, "minimum")->valuedouble == a->min);
        CHECK(cJSON_GetObjectItem(p, "maximum")->valuedouble == a->max);
        if (cJSON_GetObjectItem(p, "default")) CHECK(cJSON_GetObjectItem(p, "default")->valuedouble == a->def);
        break;
    case PG_T_ENUM: {
        const cJSON *e = cJSON_GetObjectItem(p, "enum");
        CHECK_EQ_INT(cJSON_GetArraySize(e), pg_enum_count(a->values));
        char first[64];
        REQUIRE(pg_enum_name(a->values, (int)a->def, first, sizeof first));
        const cJSON *def = cJSON_GetObjectItem(p, "default");
        if (a->flags & PG_AF_REQUIRED) CHECK(def == NULL); /* a required choice has no default */
        else CHECK(def && cJSON_IsString(def) && !strcmp(def->valuestring, first));
        break;
    }
    case PG_T_STRING:
    case PG_T_IMAGE: CHECK_STR(type, "string"); break;
    case PG_T_BOOL:
        CHECK_STR(type, "boolean");
        CHECK_EQ_INT(cJSON_IsTrue(cJSON_GetObjectItem(p, "default")), a->def != 0);
        break;
    case PG_T_RECT:
    case PG_T_SIZE:
    case PG_T_POINT:
        CHECK_STR(type, "object");
        CHECK(cJSON_IsFalse(cJSON_GetObjectItem(p, "additionalProperties")));
        CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(p, "required")), a->type == PG_T_RECT ? 4 : 2);
        break;
    case PG_T_RECTS:
    case PG_T_STRINGS:
        CHECK_STR(type, "array");
        CHECK(cJSON_GetObjectItem(p, "maxItems")->valuedouble == a->max);
        break;
    }
    if (a->one_of && !(a->flags & PG_AF_LOCAL)) CHECK(strstr(desc, "exactly one of") != NULL);
}

/* What a host reads: the list as printed and parsed again. */
static cJSON *printed_tool_list(void) {
    cJSON *tools = pg_mcp_tool_list(NULL);
    char *s = cJSON_PrintUnformatted(tools);
    cJSON_Delete(tools);
    tools = cJSON_Parse(s);
    free(s);
    return tools;
}

PG_TEST(every_operation_but_approve_is_a_tool_whose_schema_is_its_declaration) {
    cJSON *tools = printed_tool_list();
    size_t expected = 0;
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        const cJSON *t = tool_named(tools, d->id);
        if (d->flags & PG_OPF_APPROVER) {
            CHECK(t == NULL);
            CHECK(pg_mcp_tool_op(d->id) == NULL);
            continue;
        }
        expected++;
        if (!t) fprintf(stderr, "no tool %s\n", d->id);
        REQUIRE(t != NULL);
        CHECK(pg_mcp_tool_op(d->id) == d);
        const char *desc = cJSON_GetObjectItem(t, "description")->valuestring;
        CHECK(strstr(desc, d->summary) != NULL);
        if (speaks_cli(desc)) fprintf(stderr, "%s speaks in flags or exit codes: %s\n", d->id, desc);
        CHECK(!speaks_cli(desc));
        const cJSON *schema = cJSON_GetObjectItem(t, "inputSchema");
        CHECK_STR(cJSON_GetObjectItem(schema, "type")->valuestring, "object");
        CHECK(cJSON_IsFalse(cJSON_GetObjectItem(schema, "additionalProperties")));
        size_t shown = 0;
        for (size_t k = 0; k < d->n_args; k++) {
            check_arg_schema(pg_failed_, d, &d->args[k], schema);
            shown += !((d->args[k].flags & PG_AF_LOCAL) && d->args[k].type == PG_T_BOOL);
        }
        CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(schema, "properties")), shown);
        const cJSON *ann = cJSON_GetObjectItem(t, "annotations");
        CHECK_EQ_INT(cJSON_IsTrue(cJSON_GetObjectItem(ann, "readOnlyHint")),
                     !(d->flags & (PG_OPF_EFFECT | PG_OPF_STATE)));
    }
    CHECK_EQ_INT(cJSON_GetArraySize(tools), expected);
    CHECK(tool_named(tools, "assert_changed") != NULL); /* a two-word command is one tool */
    cJSON_Delete(tools);
}

/* One hint of a tool, as a host reads it: 1 true, 0 false, -1 absent. */
static int hint(const cJSON *tools, const char *tool, const char *name) {
    const cJSON *h = cJSON_GetObjectItem(cJSON_GetObjectItem(tool_named(tools, tool), "annotations"), name);
    return cJSON_IsBool(h) ? cJSON_IsTrue(h) : -1;
}

/* MCP reads an absent hint as the worst case, so each is written out, and
 * none claims read-only for a tool that leaves something behind. */
PG_TEST(declaration_text_reaches_a_model_with_wire_names_and_error_codes) {
    const pg_opdecl *d = pg_mcp_tool_op("click");
    char *t = pg_mcp_terms(d, "with --expect-change, exit 1 'no visible effect'; --case (exit 10); exit-code --zz-top");
    REQUIRE(t != NULL);
    CHECK_STR(t, "with expect_change, ASSERTION_FAILED 'no visible effect'; case_id (BLOCKED); exit-code zz_top");
    free(t);
}

PG_TEST(annotations_say_what_a_tool_changes_drop_destroys_snapshot_reads) {
    cJSON *tools = printed_tool_list();
    static const char *const changing[] = {"drop", "baseline_prepare", "accept", "release", "click", "analyze"};
    for (size_t i = 0; i < sizeof changing / sizeof *changing; i++) CHECK_EQ_INT(hint(tools, changing[i], "readOnlyHint"), 0);
    static const char *const reading[] = {"snapshot", "ocr", "windows", "info", "hash", "diff", "assert_text"};
    for (size_t i = 0; i < sizeof reading / sizeof *reading; i++) {
        CHECK_EQ_INT(hint(tools, reading[i], "readOnlyHint"), 1);
        CHECK_EQ_INT(hint(tools, reading[i], "destructiveHint"), 0);
    }
    CHECK_EQ_INT(hint(tools, "drop", "destructiveHint"), 1);
    CHECK_EQ_INT(hint(tools, "drop", "idempotentHint"), 1);
    CHECK_EQ_INT(hint(tools, "drop", "openWorldHint"), 0);
    CHECK_EQ_INT(hint(tools, "click", "destructiveHint"), 1);
    CHECK_EQ_INT(hint(tools, "click", "idempotentHint"), 0);
    CHECK_EQ_INT(hint(tools, "release", "destructiveHint"), 1); /* png: a file written over */
    CHECK_EQ_INT(hint(tools, "accept", "destructiveHint"), 1);  /* report: files written over */
    CHECK_EQ_INT(hint(tools, "baseline_prepare", "destructiveHint"), 0); /* a candidate is added */
    CHECK_EQ_INT(hint(tools, "analyze", "destructiveHint"), 0);
    CHECK_EQ_INT(hint(tools, "analyze", "openWorldHint"), 1);
    CHECK_EQ_INT(hint(tools, "snapshot", "openWorldHint"), 1);
    cJSON_Delete(tools);
}

/* ---- a call's arguments ---- */

static pg_err build(const char *tool, const char *args_json, pg_cli_request *req, pg_error *e) {
    cJSON *args = cJSON_Parse(args_json);
    pg_err rc = pg_mcp_build_request(pg_mcp_tool_op(tool), args, 1568, req, e);
    cJSON_Delete(args);
    return rc;
}

PG_TEST(a_tool_call_is_checked_by_the_declaration_with_its_wire_names) {
    pg_cli_request req;
    pg_error e;
    CHECK_EQ_INT(build("snapshot", "{\"window\":\"demo\",\"screen\":true}", &req, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "exactly one of window, id, screen") != NULL);
    pg_cli_request_fini(&req);
    CHECK_EQ_INT(build("click", "{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":2},\"count\":4}", &req, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "argument \"count\"") != NULL && strstr(e.message, "1..3") != NULL);
    pg_cli_request_fini(&req);
    CHECK_EQ_INT(build("ping", "{\"nope\":1}", &req, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "unknown argument \"nope\"") != NULL);
    pg_cli_request_fini(&req);
    CHECK_EQ_INT(build("release", "{\"token\":\"cap:x\",\"base64\":true}", &req, &e), PG_E_USAGE);
    pg_cli_request_fini(&req);
    CHECK_EQ_INT(build("ocr", "{}", &req, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "needs argument \"token\"") != NULL);
    pg_cli_request_fini(&req);
    REQUIRE(build("click", "{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":2},\"button\":\"right\"}", &req, &e) == PG_OK);
    CHECK_STR(req.op, "click");
    CHECK_STR(cJSON_GetObjectItem(req.args, "button")->valuestring, "right");
    CHECK_EQ_INT(req.n_att, 0);
    pg_cli_request_fini(&req);
}

PG_TEST(an_image_argument_is_a_token_or_a_file_this_process_reads_and_sends_as_bytes) {
    char path[] = "/tmp/pg_mcp_tpl_XXXXXX";
#ifdef _WIN32
    snprintf(path, sizeof path, "pg_mcp_tpl.bin");
#else
    close(mkstemp(path));
#endif
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fputs("not really a png", f);
    fclose(f);
    char args[256];
    snprintf(args, sizeof args, "{\"a\":\"cap:AAAAAAAAAAAAAAAAAAAAAA\",\"b\":\"%s\"}", path);
    pg_cli_request req;
    pg_error e;
    REQUIRE(build("diff", args, &req, &e) == PG_OK);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(req.args, "a"), "token")->valuestring,
              "cap:AAAAAAAAAAAAAAAAAAAAAA");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(req.args, "b"), "attachment")->valueint, 0);
    REQUIRE(req.n_att == 1);
    CHECK(req.att[0].len == 16 && !memcmp(req.att[0].data, "not really a png", 16));
    char *wire = cJSON_PrintUnformatted(req.args);
    CHECK(strstr(wire, path) == NULL); /* the path never goes to the broker */
    free(wire);
    pg_cli_request_fini(&req);
    remove(path);
    snprintf(args, sizeof args, "{\"a\":\"cap:AAAAAAAAAAAAAAAAAAAAAA\",\"b\":\"%s\"}", path);
    CHECK_EQ_INT(build("diff", args, &req, &e), PG_E_NOTFOUND); /* a file it cannot open */
    pg_cli_request_fini(&req);
    CHECK_EQ_INT(build("diff", "{\"a\":\"cap:AAAAAAAAAAAAAAAAAAAAAA\",\"b\":{\"token\":\"cap:x\"}}", &req, &e), PG_E_USAGE);
    pg_cli_request_fini(&req);
}

PG_TEST(release_is_sized_by_the_broker_to_the_image_limit_unless_it_writes_a_file) {
    pg_cli_request req;
    pg_error e;
    REQUIRE(build("release", "{\"token\":\"cap:AAAAAAAAAAAAAAAAAAAAAA\"}", &req, &e) == PG_OK);
    const cJSON *ms = cJSON_GetObjectItem(req.args, "max_size");
    CHECK_EQ_INT(cJSON_GetObjectItem(ms, "w")->valueint, 1568);
    CHECK_EQ_INT(cJSON_GetObjectItem(ms, "h")->valueint, 1568);
    CHECK(req.out_path == NULL);
    pg_cli_request_fini(&req);
    REQUIRE(build("release", "{\"token\":\"cap:AAAAAAAAAAAAAAAAAAAAAA\",\"max_size\":{\"w\":4000,\"h\":300}}", &req, &e) ==
            PG_OK);
    ms = cJSON_GetObjectItem(req.args, "max_size");
    CHECK_EQ_INT(cJSON_GetObjectItem(ms, "w")->valueint, 1568); /* never over the limit */
    CHECK_EQ_INT(cJSON_GetObjectItem(ms, "h")->valueint, 300);  /* smaller when asked */
    pg_cli_request_fini(&req);
    REQUIRE(build("release", "{\"token\":\"cap:AAAAAAAAAAAAAAAAAAAAAA\",\"png\":\"/tmp/x.png\"}", &req, &e) == PG_OK);
    CHECK_STR(req.out_path, "/tmp/x.png");
    CHECK(cJSON_GetObjectItem(req.args, "max_size") == NULL);
    CHECK(cJSON_GetObjectItem(req.args, "png") == NULL); /* local: never sent */
    pg_cli_request_fini(&req);
}

PG_TEST(the_timeout_of_a_call_covers_the_operations_own_timeout) {
    cJSON *args = cJSON_Parse("{\"timeout\":300}");
    CHECK_EQ_INT(pg_mcp_call_timeout_ms(pg_opdecl_find("wait_for"), args, 30000), 330000);
    CHECK_EQ_INT(pg_mcp_call_timeout_ms(pg_opdecl_find("wait_for"), NULL, 30000),
                 30000 + (uint32_t)(pg_opdecl_arg(pg_opdecl_find("wait_for"), "timeout")->def * 1000));
    CHECK_EQ_INT(pg_mcp_call_timeout_ms(pg_opdecl_find("ping"), args, 30000), 30000);
    cJSON_Delete(args);
}

/* ---- results ---- */

PG_TEST(results_are_the_clis_json_and_errors_are_tool_errors_with_code_message_tip_details) {
    cJSON *res = cJSON_Parse("{\"token\":\"cap:x\",\"width\":3}");
    cJSON *r = pg_mcp_tool_result(PG_OK, NULL, res, NULL, NULL);
    const cJSON *content = cJSON_GetObjectItem(r, "content");
    CHECK_EQ_INT(cJSON_GetArraySize(content), 1);
    CHECK_STR(cJSON_GetObjectItem(content->child, "type")->valuestring, "text");
    char *cli = cJSON_PrintUnformatted(res);
    CHECK_STR(cJSON_GetObjectItem(content->child, "text")->valuestring, cli);
    free(cli);
    CHECK(cJSON_GetObjectItem(r, "isError") == NULL);
    cJSON_Delete(r);
    pg_blob png = {(uint8_t *)"\x89PNG....", 8};
    r = pg_mcp_tool_result(PG_OK, NULL, res, NULL, &png);
    const cJSON *img = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "content"), 1);
    CHECK_STR(cJSON_GetObjectItem(img, "type")->valuestring, "image");
    CHECK_STR(cJSON_GetObjectItem(img, "mimeType")->valuestring, "image/png");
    CHECK_STR(cJSON_GetObjectItem(img, "data")->valuestring, "iVBORy4uLi4=");
    cJSON_Delete(r);
    pg_error e;
    pg_error_set(&e, PG_E_ASSERT, NULL, "changed %d%%", 12);
    cJSON *details = cJSON_Parse("{\"changed_pct\":12}");
    r = pg_mcp_tool_result(PG_E_ASSERT, &e, NULL, details, NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "isError")));
    cJSON *err = cJSON_Parse(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "content")->child, "text")->valuestring);
    const cJSON *o = cJSON_GetObjectItem(err, "error");
    CHECK_STR(cJSON_GetObjectItem(o, "code")->valuestring, "ASSERTION_FAILED");
    CHECK_EQ_INT(cJSON_GetObjectItem(o, "exit")->valueint, 1);
    CHECK_STR(cJSON_GetObjectItem(o, "message")->valuestring, "changed 12%");
    CHECK_STR(cJSON_GetObjectItem(o, "recovery_tip")->valuestring, pg_err_default_tip(PG_E_ASSERT));
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "details"), "changed_pct")->valueint, 12);
    cJSON_Delete(err);
    cJSON_Delete(r);
    cJSON_Delete(details);
    cJSON_Delete(res);
}

/* ---- the server over streams ---- */

/* Runs the server over the lines in `input` and returns what it wrote, one
 * parsed message per array entry. */
static cJSON *serve(const char *address, const char *input) {
    FILE *in = tmpfile(), *out = tmpfile();
    if (!in || !out) return NULL;
    fputs(input, in);
    rewind(in);
    pg_mcp_config cfg = {.address = address, .timeout_ms = 5000, .max_image = 1568};
    int rc = pg_mcp_serve(&cfg, in, out);
    rewind(out);
    cJSON *all = cJSON_CreateArray();
    static char line[1 << 20]; /* tools/list is one line of more than 64 KiB */
    while (fgets(line, sizeof line, out)) cJSON_AddItemToArray(all, cJSON_Parse(line));
    fclose(in);
    fclose(out);
    if (rc != 0) cJSON_AddItemToArray(all, cJSON_CreateString("serve failed"));
    return all;
}

static const cJSON *answer_to(const cJSON *all, double id) {
    for (const cJSON *m = all->child; m; m = m->next) {
        const cJSON *i = cJSON_GetObjectItem(m, "id");
        if (cJSON_IsNumber(i) && i->valuedouble == id && !cJSON_GetObjectItem(m, "method")) return m;
    }
    return NULL;
}

#ifdef _WIN32
#define NO_BROKER "\\\\.\\pipe\\pixelgate-mcp-test-nobody"
#else
#define NO_BROKER "/nonexistent/pixelgate.sock"
#endif

#define INIT "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n"

PG_TEST(the_server_initializes_lists_tools_and_answers_every_request_once) {
    cJSON *all = serve(NO_BROKER,
                       "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}\n" INIT
                       "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\"}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"approve\"}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"click\","
                       "\"arguments\":{\"window\":\"x\",\"at\":{\"x\":1,\"y\":1},\"count\":9}}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"ping\"}}\n"
                       "\n{oops\n");
    REQUIRE(all != NULL);
    CHECK(cJSON_GetObjectItem(answer_to(all, 9), "error") != NULL); /* before initialize */
    const cJSON *init = cJSON_GetObjectItem(answer_to(all, 1), "result");
    CHECK_STR(cJSON_GetObjectItem(init, "protocolVersion")->valuestring, "2025-06-18");
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(init, "capabilities"), "tools") != NULL);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(init, "serverInfo"), "name")->valuestring, "pixelgate");
    const cJSON *tools = cJSON_GetObjectItem(cJSON_GetObjectItem(answer_to(all, 2), "result"), "tools");
    CHECK(cJSON_GetArraySize(tools) > 0);
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(answer_to(all, 3), "result")));
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(answer_to(all, 4), "error"), "code")->valueint,
                 PG_RPC_METHOD_NOT_FOUND);
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(answer_to(all, 5), "error"), "code")->valueint,
                 PG_RPC_INVALID_PARAMS);
    const cJSON *bad = cJSON_GetObjectItem(answer_to(all, 6), "result");
    if (!bad) { /* seen once on a loaded machine: say what the server answered */
        char *dump = cJSON_PrintUnformatted(all);
        fprintf(stderr, "answers: %.3000s\n", dump);
        free(dump);
    }
    REQUIRE(bad != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(bad, "isError")));
    CHECK(strstr(cJSON_GetObjectItem(cJSON_GetObjectItem(bad, "content")->child, "text")->valuestring, "\"USAGE\""));
    const cJSON *gone = cJSON_GetObjectItem(answer_to(all, 7), "result");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(gone, "isError")));
    CHECK(strstr(cJSON_GetObjectItem(cJSON_GetObjectItem(gone, "content")->child, "text")->valuestring,
                 "BROKER_UNREACHABLE"));
    /* 8 requests answered, plus one parse error for "{oops"; the empty line is nothing */
    CHECK_EQ_INT(cJSON_GetArraySize(all), 9);
    int parse_errors = 0;
    for (const cJSON *m = all->child; m; m = m->next)
        parse_errors += cJSON_IsNull(cJSON_GetObjectItem(m, "id")) &&
                        cJSON_GetObjectItem(cJSON_GetObjectItem(m, "error"), "code")->valueint == PG_RPC_PARSE_ERROR;
    CHECK_EQ_INT(parse_errors, 1);
    cJSON_Delete(all);
}

#ifndef _WIN32
/* A fake broker's listening socket in a fresh directory: -1 on failure. */
typedef struct {
    char dir[32];
    char path[64];
} fake_socket;

static int fake_listen(fake_socket *f) {
    snprintf(f->dir, sizeof f->dir, "/tmp/pg_mcp_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%.40s/broker.sock", f->dir);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", f->path);
    /* a backlog that holds every call the server runs at once, unaccepted */
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, PG_MCP_MAX_CALLS + 4) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

static void fake_unlisten(fake_socket *f, int fd) {
    shutdown(fd, SHUT_RDWR);
    close(fd);
    unlink(f->path);
    rmdir(f->dir);
}

/* A broker that accepts one connection, reads, never answers, and reports
 * when the client hung up. */
typedef struct {
    int lfd;
    bool hung_up;
} silent_broker;

static void *silent_main(void *arg) {
    silent_broker *b = arg;
    int fd = accept(b->lfd, NULL, NULL);
    if (fd < 0) return NULL;
    char buf[4096];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    b->hung_up = true; /* EOF: the client closed or shut down its end */
    close(fd);
    return NULL;
}

PG_TEST(a_cancelled_call_gets_no_answer_and_its_broker_connection_is_cut) {
    fake_socket fs;
    silent_broker b = {.lfd = fake_listen(&fs)};
    REQUIRE(b.lfd >= 0);
    const char *path = fs.path;
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, silent_main, &b) == 0);
    /* an hour-long wait with a progress token, then its cancellation: the
     * server must end (EOF) without waiting for the hour */
    cJSON *all = serve(path, INIT
                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"wait_for\","
                       "\"arguments\":{\"window\":\"demo\",\"text\":\"never\",\"timeout\":3600},"
                       "\"_meta\":{\"progressToken\":\"p2\"}}}\n"
                       "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
    REQUIRE(all != NULL);
    CHECK(answer_to(all, 2) == NULL);
    CHECK(answer_to(all, 3) != NULL);
    bool progress = false;
    for (const cJSON *m = all->child; m; m = m->next) {
        const cJSON *meth = cJSON_GetObjectItem(m, "method");
        if (!cJSON_IsString(meth) || strcmp(meth->valuestring, "notifications/progress")) continue;
        const cJSON *p = cJSON_GetObjectItem(m, "params");
        progress |= !strcmp(cJSON_GetObjectItem(p, "progressToken")->valuestring, "p2") &&
                    cJSON_GetObjectItem(p, "total")->valuedouble == 3600;
    }
    CHECK(progress); /* it said it started */
    cJSON_Delete(all);
    /* the call connected (before or after the cancellation) and was cut */
    shutdown(b.lfd, SHUT_RDWR);
    pthread_join(t, NULL);
    CHECK(b.hung_up);
    fake_unlisten(&fs, b.lfd);
}

/* The 17th call while 16 wait on a broker that never answers: the 16 are
 * in flight for sure (a call counts from the moment its line is read), and
 * the 17th gets a BUSY tool result, not a JSON-RPC error. The listening
 * socket's backlog takes all 16 connections without an accept. */
PG_TEST(a_call_beyond_sixteen_in_flight_is_a_busy_tool_error_the_model_can_read) {
    fake_socket fs;
    int lfd = fake_listen(&fs);
    REQUIRE(lfd >= 0);
    static char input[16384];
    size_t len = (size_t)snprintf(input, sizeof input, "%s", INIT);
    for (int id = 2; id <= PG_MCP_MAX_CALLS + 2; id++)
        len += (size_t)snprintf(input + len, sizeof input - len,
                                "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
                                "\"wait_for\",\"arguments\":{\"window\":\"demo\",\"text\":\"never\",\"timeout\":3600}}}\n",
                                id);
    for (int id = 2; id <= PG_MCP_MAX_CALLS + 1; id++) /* so the server can end */
        len += (size_t)snprintf(input + len, sizeof input - len,
                                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%d}}\n",
                                id);
    REQUIRE(len < sizeof input);
    cJSON *all = serve(fs.path, input);
    REQUIRE(all != NULL);
    const cJSON *busy = answer_to(all, PG_MCP_MAX_CALLS + 2);
    REQUIRE(busy != NULL);
    CHECK(cJSON_GetObjectItem(busy, "error") == NULL);
    const cJSON *r = cJSON_GetObjectItem(busy, "result");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "isError")));
    cJSON *err = cJSON_Parse(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "content")->child, "text")->valuestring);
    const cJSON *o = cJSON_GetObjectItem(err, "error");
    CHECK_STR(cJSON_GetObjectItem(o, "code")->valuestring, "BUSY");
    CHECK_EQ_INT(cJSON_GetObjectItem(o, "exit")->valueint, PG_E_BUSY);
    CHECK(strstr(cJSON_GetObjectItem(o, "message")->valuestring, "16") != NULL);
    CHECK(strstr(cJSON_GetObjectItem(o, "recovery_tip")->valuestring, "in flight") != NULL);
    cJSON_Delete(err);
    for (int id = 2; id <= PG_MCP_MAX_CALLS + 1; id++) CHECK(answer_to(all, id) == NULL); /* cancelled */
    cJSON_Delete(all);
    fake_unlisten(&fs, lfd);
}

/* A broker that answers every request {"ok":true} and counts, per
 * connection, the requests and which operations came over it. */
typedef struct {
    int lfd;
    int conns;
    int requests[8];
    char ops[8][256];
} answering_broker;

typedef struct {
    answering_broker *b;
    int fd, k;
} answering_conn;

/* One connection, served on its own thread (the input one stays open). */
static void *answering_serve(void *arg) {
    answering_conn *ac = arg;
    answering_broker *b = ac->b;
    pg_conn *conn = NULL;
    pg_error e;
    if (pg_conn_from_fd(&conn, ac->fd, 10000, &e)) return NULL;
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    for (pg_msg m = {0}; pg_proto_read(conn, &lim, &m, &e) == PG_OK; m = (pg_msg){0}) {
        pg_request req;
        memset(&req, 0, sizeof req);
        if (pg_proto_parse_request(m.header, &req, &e) == PG_OK) {
            b->requests[ac->k]++;
            size_t n = strlen(b->ops[ac->k]);
            snprintf(b->ops[ac->k] + n, sizeof b->ops[ac->k] - n, "%s ", req.op);
            cJSON *r = cJSON_CreateObject();
            cJSON_AddTrueToObject(r, "ok");
            cJSON *resp = pg_proto_response_ok(req.id, r);
            pg_proto_write(conn, resp, NULL, 0, &e);
            cJSON_Delete(resp);
        }
        pg_msg_fini(&m);
    }
    pg_conn_close(conn);
    return NULL;
}

static void *answering_main(void *arg) {
    answering_broker *b = arg;
    pthread_t th[8];
    answering_conn ac[8];
    int n = 0;
    for (int fd; n < 8 && (fd = accept(b->lfd, NULL, NULL)) >= 0; n++) {
        ac[n] = (answering_conn){b, fd, n};
        b->conns = n + 1;
        if (pthread_create(&th[n], NULL, answering_serve, &ac[n]) != 0) break;
    }
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    return NULL;
}

/* key_down in one tool call still holds in the next: the input tools (and
 * cursor) share one kept connection; other tools get their own. */
PG_TEST(input_tools_share_one_connection_so_held_keys_outlive_a_tool_call) {
    fake_socket fs;
    answering_broker b = {.lfd = fake_listen(&fs)};
    REQUIRE(b.lfd >= 0);
    const char *path = fs.path;
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, answering_main, &b) == 0);
    cJSON *all = serve(path, INIT
                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"key_down\","
                       "\"arguments\":{\"window\":\"demo\",\"key\":\"shift\"}}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"click\","
                       "\"arguments\":{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":1}}}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"cursor\"}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"key_up\","
                       "\"arguments\":{\"key\":\"shift\"}}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"ping\"}}\n");
    REQUIRE(all != NULL);
    for (int id = 2; id <= 6; id++) {
        const cJSON *r = cJSON_GetObjectItem(answer_to(all, id), "result");
        bool ok = r != NULL && !cJSON_IsTrue(cJSON_GetObjectItem(r, "isError"));
        if (!ok) {
            char *dump = cJSON_PrintUnformatted(answer_to(all, id));
            fprintf(stderr, "answer %d: %.2000s\n", id, dump ? dump : "none");
            free(dump);
        }
        CHECK(ok);
    }
    cJSON_Delete(all);
    shutdown(b.lfd, SHUT_RDWR);
    pthread_join(t, NULL);
    fake_unlisten(&fs, b.lfd);
    CHECK_EQ_INT(b.conns, 2);
    int input = b.requests[0] == 4 ? 0 : 1; /* the ping may have connected first */
    CHECK_EQ_INT(b.requests[input], 4);
    CHECK_EQ_INT(b.requests[1 - input], 1);
    CHECK(strstr(b.ops[input], "key_down") && strstr(b.ops[input], "click") && strstr(b.ops[input], "cursor") &&
          strstr(b.ops[input], "key_up"));
    CHECK_STR(b.ops[1 - input], "ping ");
}
#endif
