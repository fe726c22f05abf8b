/* SPDX-License-Identifier: MIT */
/* The MCP tools, read from the operation declarations (common/pg_ops.def):
 * their JSON Schemas, a call's arguments as a broker request, and the
 * CallToolResult of an answer. No I/O here except reading the image files
 * a call names (as this process's user, like the CLI). See pg_mcp.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"
#include "pg_mcp.h"
#include "pg_mcp_untrusted.h"

const char *const pg_mcp_protocol_versions[] = {PG_MCP_PROTOCOL_LATEST, "2025-06-18", "2025-03-26", "2024-11-05", NULL};

const char *pg_mcp_negotiate(const char *requested) {
    for (size_t i = 0; requested && pg_mcp_protocol_versions[i]; i++)
        if (!strcmp(requested, pg_mcp_protocol_versions[i])) return pg_mcp_protocol_versions[i];
    return PG_MCP_PROTOCOL_LATEST;
}

/* Which operations are tools: all but an approver's (never the agent). */
static bool is_tool(const pg_opdecl *d) { return !(d->flags & PG_OPF_APPROVER); }

/* Local arguments the MCP answer replaces: release --base64 (the image goes
 * out as image content instead). A local path (release --png) stays. */
static bool is_mcp_arg(const pg_argdecl *a) { return !((a->flags & PG_AF_LOCAL) && a->type == PG_T_BOOL); }

bool pg_mcp_is_input(const pg_opdecl *d) { return (d->flags & PG_OPF_EFFECT) && !strcmp(d->discloses, "input"); }

const pg_opdecl *pg_mcp_tool_op(const char *name) {
    const pg_opdecl *d = pg_opdecl_find(name);
    return d && is_tool(d) ? d : NULL;
}

/* ---- schemas ---- */

#define COORD_MAX 65535 /* as pg_opdecl.c checks rectangles and points */

/* A bound or default, exact: cJSON would print 2^53 - 1 with 15 digits. */
static void add_num(cJSON *o, const char *key, double v) {
    if (v == floor(v) && fabs(v) <= 9007199254740991.0) {
        char num[32];
        snprintf(num, sizeof num, "%.0f", v);
        cJSON_AddRawToObject(o, key, num);
    } else {
        cJSON_AddNumberToObject(o, key, v);
    }
}

static cJSON *int_schema(double lo, double hi) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "integer");
    add_num(s, "minimum", lo);
    add_num(s, "maximum", hi);
    return s;
}

/* An object of integer members, all required. */
static cJSON *ints_object(const char *const *keys, const double *lo, size_t n) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *req = cJSON_AddArrayToObject(s, "required");
    for (size_t i = 0; i < n; i++) {
        cJSON_AddItemToObject(props, keys[i], int_schema(lo[i], COORD_MAX));
        cJSON_AddItemToArray(req, cJSON_CreateString(keys[i]));
    }
    cJSON_AddBoolToObject(s, "additionalProperties", false);
    return s;
}

static cJSON *rect_schema(bool is_signed) {
    static const char *const k[] = {"x", "y", "w", "h"};
    double lo = is_signed ? -COORD_MAX : 0, los[4] = {lo, lo, 1, 1};
    return ints_object(k, los, 4);
}

static cJSON *enum_schema(const char *values) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "string");
    cJSON *e = cJSON_AddArrayToObject(s, "enum");
    char name[64];
    for (int i = 0; pg_enum_name(values, i, name, sizeof name); i++) cJSON_AddItemToArray(e, cJSON_CreateString(name));
    return s;
}

/* The JSON Schema of one argument's value, without its description. */
static cJSON *value_schema(const pg_argdecl *a) {
    static const char *const pt[] = {"x", "y"}, *const sz[] = {"w", "h"};
    cJSON *s = NULL;
    switch (a->type) {
    case PG_T_STRING:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "string");
        add_num(s, "maxLength", a->max); /* bytes, checked by the broker; never fewer chars */
        return s;
    case PG_T_INT: s = int_schema(a->min, a->max); break;
    case PG_T_NUM:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "number");
        add_num(s, "minimum", a->min);
        add_num(s, "maximum", a->max);
        break;
    case PG_T_BOOL:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "boolean");
        cJSON_AddBoolToObject(s, "default", a->def != 0);
        return s;
    case PG_T_ENUM: s = enum_schema(a->values); break;
    case PG_T_RECT: return rect_schema(a->flags & PG_AF_SIGNED);
    case PG_T_SIZE: {
        double lo[2] = {1, 1};
        return ints_object(sz, lo, 2);
    }
    case PG_T_POINT: {
        double lo[2] = {(a->flags & PG_AF_SIGNED) ? -COORD_MAX : 0, (a->flags & PG_AF_SIGNED) ? -COORD_MAX : 0};
        return ints_object(pt, lo, 2);
    }
    case PG_T_IMAGE:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "string");
        cJSON_AddNumberToObject(s, "maxLength", 4096);
        return s;
    case PG_T_RECTS:
    case PG_T_STRINGS:
        s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "type", "array");
        cJSON_AddItemToObject(s, "items", a->type == PG_T_RECTS ? rect_schema(false) : cJSON_CreateObject());
        if (a->type == PG_T_STRINGS) cJSON_AddStringToObject(cJSON_GetObjectItem(s, "items"), "type", "string");
        cJSON_AddNumberToObject(s, "minItems", 1);
        add_num(s, "maxItems", a->max);
        return s;
    }
    char def[64]; /* a default outside the range means "not given" (window_size): none */
    bool in_range = a->type == PG_T_ENUM || (a->def >= a->min && a->def <= a->max);
    if (s && in_range && pg_arg_default_text(a, def, sizeof def)) {
        if (a->type == PG_T_ENUM) cJSON_AddStringToObject(s, "default", def);
        else add_num(s, "default", a->def);
    }
    return s;
}

/* "window, id or screen" for the group of a->one_of. */
static void group_names(const pg_opdecl *d, char g, char *out, size_t n) {
    size_t len = 0, count = 0, total = 0;
    out[0] = '\0';
    for (size_t i = 0; i < d->n_args; i++) total += d->args[i].one_of == g && is_mcp_arg(&d->args[i]);
    for (size_t i = 0; i < d->n_args && len < n; i++) {
        if (d->args[i].one_of != g || !is_mcp_arg(&d->args[i])) continue;
        const char *sep = count == 0 ? "" : count + 1 == total ? " or " : ", ";
        int w = snprintf(out + len, n - len, "%s%s", sep, d->args[i].name);
        if (w > 0) len += (size_t)w;
        count++;
    }
}

/* ---- the declarations' text in MCP terms ----
 * Help lines and descriptions are written for both front ends and name
 * command-line flags and exit codes; a model calling a tool knows neither.
 * Each "--flag" becomes the argument's wire name and each "exit N" the
 * code a tool error carries, so the one declaration still serves both. */

/* The wire name of the argument spelled cli ("--expect-change"): d's own
 * first, then any operation's; NULL when none is. */
static const char *wire_name(const pg_opdecl *d, const char *cli, size_t len) {
    for (size_t k = 0; k <= PG_OPI_COUNT; k++) {
        const pg_opdecl *o = k == 0 ? d : &pg_opdecls[k - 1];
        for (size_t i = 0; i < o->n_args; i++)
            if (o->args[i].cli && strlen(o->args[i].cli) == len && !strncmp(o->args[i].cli, cli, len))
                return o->args[i].name;
    }
    return NULL;
}

static bool is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

/* At s (after "--"): the flag's wire name into out; the characters read. */
static size_t put_flag(const pg_opdecl *d, const char *s, char *out, size_t *len, size_t n) {
    size_t w = 2;
    while (is_word(s[w])) w++;
    const char *name = wire_name(d, s, w);
    if (name) *len += (size_t)snprintf(out + *len, n - *len, "%s", name);
    else
        for (size_t i = 2; i < w && *len + 1 < n; i++) out[(*len)++] = s[i] == '-' ? '_' : s[i];
    return w;
}

char *pg_mcp_terms(const pg_opdecl *d, const char *text) {
    size_t n = strlen(text) * 3 + 64, len = 0; /* "exit 1" -> "ASSERTION_FAILED" at most */
    char *out = malloc(n);
    if (!out) return NULL;
    for (const char *s = text; *s && len + 1 < n;) {
        bool word_start = s == text || !isalnum((unsigned char)s[-1]);
        char *end = NULL;
        if (s[0] == '-' && s[1] == '-' && s[2] >= 'a' && s[2] <= 'z' && word_start) {
            s += put_flag(d, s, out, &len, n);
        } else if (word_start && !strncmp(s, "exit ", 5) && isdigit((unsigned char)s[5])) {
            long code = strtol(s + 5, &end, 10);
            len += (size_t)snprintf(out + len, n - len, "%s", pg_err_name((pg_err)code));
            s = end;
        } else {
            out[len++] = *s++;
        }
        if (len >= n) len = n - 1;
    }
    out[len] = '\0';
    return out;
}

static void arg_description(const pg_opdecl *d, const pg_argdecl *a, char *out, size_t n) {
    char *help = pg_mcp_terms(d, a->help);
    int w = snprintf(out, n, "%s", help ? help : a->help);
    free(help);
    if (w < 0 || (size_t)w >= n) return;
    size_t len = (size_t)w;
    if (a->type == PG_T_IMAGE)
        len += (size_t)snprintf(out + len, n - len,
                                ". A token (cap:...) or the path of a PNG, JPEG or WebP file that this server reads as "
                                "you; the path itself is never sent to the broker");
    if (a->flags & PG_AF_LOCAL && len < n)
        len += (size_t)snprintf(out + len, n - len, "; without it the image comes back as image content");
    if (a->one_of && len < n && (!(a->flags & PG_AF_LOCAL))) {
        char names[256];
        group_names(d, a->one_of, names, sizeof names);
        snprintf(out + len, n - len, ". Give exactly one of %s", names);
    }
}

static cJSON *input_schema(const pg_opdecl *d) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *req = cJSON_CreateArray();
    for (size_t i = 0; i < d->n_args; i++) {
        const pg_argdecl *a = &d->args[i];
        if (!is_mcp_arg(a)) continue;
        cJSON *v = value_schema(a);
        char desc[1024];
        arg_description(d, a, desc, sizeof desc);
        cJSON_AddStringToObject(v, "description", desc);
        cJSON_AddItemToObject(props, a->name, v);
        if (a->flags & PG_AF_REQUIRED) cJSON_AddItemToArray(req, cJSON_CreateString(a->name));
    }
    if (cJSON_GetArraySize(req) > 0) cJSON_AddItemToObject(s, "required", req);
    else cJSON_Delete(req);
    cJSON_AddBoolToObject(s, "additionalProperties", false);
    return s;
}

/* What a model reads when it chooses a tool: what it does and what it
 * answers, in MCP terms. How failures come back is said once, in the
 * server's instructions, not in every tool. */
static char *tool_description(const pg_opdecl *d) {
    size_t n = strlen(d->summary) + strlen(d->description) + strlen(d->prints) + 64;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s %s Returns %s.", d->summary, d->description, d->prints);
    char *t = s ? pg_mcp_terms(d, s) : NULL;
    free(s);
    return t;
}

/* A file the call names is written, as the caller, over what was there
 * (release's png, accept's report). */
static bool writes_local_file(const pg_opdecl *d) {
    for (size_t i = 0; i < d->n_args; i++)
        if ((d->args[i].flags & PG_AF_LOCAL) && d->args[i].type == PG_T_STRING) return true;
    return false;
}

/* MCP's hints (2025-03-26 on), read from the declaration's flags: what a host
 * may tell its user before a call. Read-only means nothing is left behind
 * but the answer (a snapshot's token is its answer); a candidate made or
 * tokens dropped are not. MCP's defaults assume the worst when a hint is
 * absent, so every hint is written out. */
static cJSON *annotations(const pg_opdecl *d) {
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "title", d->cli);
    bool read_only = !(d->flags & (PG_OPF_EFFECT | PG_OPF_STATE));
    cJSON_AddBoolToObject(a, "readOnlyHint", read_only);
    cJSON_AddBoolToObject(a, "destructiveHint",
                          !read_only && (pg_mcp_is_input(d) || (d->flags & PG_OPF_DESTROYS) || writes_local_file(d)));
    cJSON_AddBoolToObject(a, "idempotentHint", read_only || (d->flags & PG_OPF_IDEMPOTENT));
    /* the desktop's programs and an analysis endpoint are outside this server */
    cJSON_AddBoolToObject(a, "openWorldHint", !strcmp(d->discloses, "endpoint-text") || (d->flags & PG_OPF_DISPLAY));
    return a;
}

cJSON *pg_mcp_tool_list(const pg_mcp_toolset *ts) {
    cJSON *tools = cJSON_CreateArray();
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        if (!is_tool(d) || !pg_mcp_toolset_has(ts, d)) continue;
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", d->id);
        cJSON_AddStringToObject(t, "title", d->cli);
        char *desc = tool_description(d);
        cJSON_AddStringToObject(t, "description", desc ? desc : d->summary);
        free(desc);
        cJSON_AddItemToObject(t, "inputSchema", input_schema(d));
        cJSON_AddItemToObject(t, "annotations", annotations(d));
        cJSON_AddItemToArray(tools, t);
    }
    return tools;
}

/* ---- a call ---- */

uint32_t pg_mcp_call_timeout_ms(const pg_opdecl *d, const cJSON *arguments, uint32_t base_ms) {
    const pg_argdecl *t = pg_opdecl_arg(d, "timeout");
    if (!t || t->type != PG_T_NUM) return base_ms;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(arguments, "timeout");
    double s = cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : t->def;
    if (s < 0) s = 0;
    if (s > t->max) s = t->max;
    double ms = (double)base_ms + s * 1000.0;
    return ms > 4e9 ? 4000000000u : (uint32_t)ms;
}

/* One argument into the request: images are read here, local ones kept aside. */
static pg_err put_arg(const pg_opdecl *d, const cJSON *m, pg_cli_request *out, pg_error *e) {
    const pg_argdecl *a = pg_opdecl_arg(d, m->string);
    if (!a || !is_mcp_arg(a))
        return pg_error_set(e, PG_E_USAGE, "see the tool's inputSchema", "unknown argument \"%s\" for %s", m->string,
                            d->id);
    if (cJSON_GetObjectItemCaseSensitive(out->args, a->name) ||
        cJSON_GetObjectItemCaseSensitive(out->local, a->name))
        return pg_error_set(e, PG_E_USAGE, NULL, "argument \"%s\" given twice", a->name);
    if (a->flags & PG_AF_LOCAL) {
        if (!cJSON_IsString(m) || !m->valuestring[0] || (double)strlen(m->valuestring) > a->max)
            return pg_error_set(e, PG_E_USAGE, NULL, "argument \"%s\" must be a path", a->name);
        if (!out->local) out->local = cJSON_CreateObject();
        cJSON_AddItemToObject(out->local, a->name, cJSON_Duplicate(m, 1));
        return PG_OK;
    }
    if (a->type == PG_T_IMAGE) {
        if (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) > 4096)
            return pg_error_set(e, PG_E_USAGE, "give a token (cap:...) or a file path",
                                "argument \"%s\" must be a token or a file path", a->name);
        return pg_cli_image_arg(out, a->name, m->valuestring, e);
    }
    cJSON_AddItemToObject(out->args, a->name, cJSON_Duplicate(m, 1));
    return PG_OK;
}

/* release: into a file the call names (as asked), else back as image
 * content no larger than max_image, downscaled by the broker. */
static void size_release(uint32_t max_image, pg_cli_request *out) {
    const cJSON *png = cJSON_GetObjectItemCaseSensitive(out->local, "png");
    if (cJSON_IsString(png)) {
        out->out_path = png->valuestring;
        return;
    }
    cJSON *ms = cJSON_GetObjectItemCaseSensitive(out->args, "max_size");
    double w = max_image, h = max_image;
    const cJSON *mw = cJSON_GetObjectItemCaseSensitive(ms, "w"), *mh = cJSON_GetObjectItemCaseSensitive(ms, "h");
    if (cJSON_IsNumber(mw) && mw->valuedouble < w) w = mw->valuedouble;
    if (cJSON_IsNumber(mh) && mh->valuedouble < h) h = mh->valuedouble;
    cJSON_DeleteItemFromObjectCaseSensitive(out->args, "max_size");
    cJSON *fit = cJSON_AddObjectToObject(out->args, "max_size");
    cJSON_AddNumberToObject(fit, "w", w);
    cJSON_AddNumberToObject(fit, "h", h);
}

pg_err pg_mcp_build_request(const pg_opdecl *d, const cJSON *arguments, uint32_t max_image, pg_cli_request *out,
                            pg_error *e) {
    memset(out, 0, sizeof *out);
    out->op = d->id;
    out->args = cJSON_CreateObject();
    if (!out->args) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (arguments && !cJSON_IsObject(arguments))
        return pg_error_set(e, PG_E_USAGE, NULL, "arguments must be an object");
    for (const cJSON *m = arguments ? arguments->child : NULL; m; m = m->next) {
        pg_err rc = put_arg(d, m, out, e);
        if (rc) return rc;
    }
    void *parsed = malloc(d->args_size); /* the broker's own check, before anything is sent */
    if (!parsed) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_err rc = pg_opdecl_check(d, out->args, parsed, false, e);
    free(parsed);
    if (rc) return rc;
    if (d->flags & PG_OPF_PIXELS) size_release(max_image, out);
    return PG_OK;
}

/* ---- the answer ---- */

static void add_text_string(cJSON *content, const char *s) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "text");
    cJSON_AddStringToObject(c, "text", s);
    cJSON_AddItemToArray(content, c);
}

/* The JSON with pg_mcp_safe_json's escapes: the same values, but no screen
 * text in it reads as a delimiter of the untrusted block. */
static void add_text(cJSON *content, const cJSON *obj) {
    char *raw = cJSON_PrintUnformatted(obj);
    char *s = raw ? pg_mcp_safe_json(raw) : NULL;
    add_text_string(content, s ? s : "{}");
    free(s);
    free(raw);
}

/* The reply's screen text between the broker's delimiters (pg_mcp_untrusted.h). */
static void add_untrusted(cJSON *content, const cJSON *reply, const char *where) {
    char *block = reply ? pg_mcp_untrusted_block(reply, where) : NULL;
    if (block) add_text_string(content, block);
    free(block);
}

static void add_image(cJSON *content, const pg_blob *png) {
    char *b64 = malloc(pg_b64_len(png->len) + 1);
    if (!b64) return;
    pg_b64_encode(png->data, png->len, b64);
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "image");
    cJSON_AddStringToObject(c, "data", b64);
    cJSON_AddStringToObject(c, "mimeType", "image/png");
    cJSON_AddItemToArray(content, c);
    free(b64);
}

cJSON *pg_mcp_tool_result(pg_err rc, const pg_error *e, const cJSON *result, const cJSON *details,
                          const pg_blob *image) {
    cJSON *r = cJSON_CreateObject();
    if (!r) return NULL;
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    if (rc == PG_OK) {
        cJSON *empty = result ? NULL : cJSON_CreateObject();
        add_text(content, result ? result : empty);
        cJSON_Delete(empty);
        add_untrusted(content, result, "the result");
        if (image && image->data && image->len) add_image(content, image);
        return r;
    }
    /* the same object the CLI prints on stderr */
    cJSON *root = cJSON_CreateObject();
    cJSON *o = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(o, "code", pg_err_name(rc));
    cJSON_AddNumberToObject(o, "exit", rc);
    cJSON_AddStringToObject(o, "message", e->message);
    cJSON_AddStringToObject(o, "recovery_tip", e->recovery_tip[0] ? e->recovery_tip : pg_err_default_tip(rc));
    if (details) cJSON_AddItemToObject(o, "details", cJSON_Duplicate(details, 1));
    add_text(content, root);
    cJSON_Delete(root);
    add_untrusted(content, details, "error.details");
    cJSON_AddBoolToObject(r, "isError", true);
    return r;
}
