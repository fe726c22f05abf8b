/* SPDX-License-Identifier: MIT */
/* pg_gendoc - the documentation sections that come from the operation
 * declarations (common/pg_ops.def), and the check that the docs agree.
 *
 *   pg_gendoc protocol | agents | ops-list | platform-primitives | mcp-tools
 *                                            print one generated section
 *   pg_gendoc fields                         every reply field: op, name, type,
 *                                            disclosure class, doc (tab-separated)
 *   pg_gendoc write DOCS_DIR                 rewrite the generated sections in place
 *   pg_gendoc check DOCS_DIR PIXELGATE       fail (exit 1) naming each disagreement
 *   pg_gendoc man-client | man-broker PIXELGATED | man-policy POLICY_MD
 *                                            pixelgate(1), pixelgated(8), pixelgate-policy(5)
 *                                            (pg_gendoc_man.c; tools/check_man.sh checks them)
 *
 * platform-primitives comes from broker/platform/pg_platform.def (through
 * pg_platform_decl.h), every other section from the operation declarations.
 * A generated section sits between "<!-- BEGIN generated:NAME -->" and
 * "<!-- END generated:NAME -->" lines. check also holds the hand-written
 * parts to the declarations: every command has an example section in
 * agents.md ("## <first word of its CLI name>"), every operation has its row
 * in threat-model.md, every reply field has a type, a class and a doc line,
 * and `PIXELGATE help CMD` (the real binary) shows every
 * argument's spelling, help line and range. In the spirit of curl's test1139.
 * Never: installed; it is a build tool.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_cli.h"
#include "pg_gendoc.h"
#include "pg_mcp.h"
#include "pg_opdecl.h"
#include "pg_platform_decl.h"

/* ---- a growing string ---- */

void pg_gendoc_put(pg_gendoc_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    if (b->n + (size_t)w + 1 > b->cap) {
        b->cap = (b->n + (size_t)w + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) exit(9);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)w;
}

static const char *type_name(pg_argtype t) {
    static const char *names[] = {"string", "integer",  "number",         "bool",   "enum",      "{x,y,w,h}",
                                  "{w,h}",  "{x,y}",    "image {token|attachment}", "[{x,y,w,h}...]", "[string...]"};
    return names[t];
}

static void flags_text(unsigned f, pg_gendoc_buf *b) {
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{PG_OPF_AUDIT, "audited"},     {PG_OPF_DISPLAY, "display"},        {PG_OPF_CAPTURES, "captures"},
                 {PG_OPF_TOKENS, "tokens"},     {PG_OPF_EFFECT, "effect"},          {PG_OPF_APPROVER, "approver"},
                 {PG_OPF_LONG, "long-running"}, {PG_OPF_PIXELS, "may send pixels"}, {PG_OPF_ASSERT, "check"},
                 {PG_OPF_STATE, "keeps state"}, {PG_OPF_DESTROYS, "destroys"}, {PG_OPF_IDEMPOTENT, "idempotent"},
                 {PG_OPF_CORE, "default MCP tool"},
                 {PG_OPF_WHILE_STOPPED, "answered while a person's stop holds"}};
    int any = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (f & names[i].bit) pg_gendoc_put(b, "%s%s", any++ ? ", " : "", names[i].name);
    if (!any) pg_gendoc_put(b, "none");
}

/* "a \| b" for markdown table cells */
static void cell(pg_gendoc_buf *b, const char *s) {
    for (; *s; s++) pg_gendoc_put(b, *s == '|' ? "\\|" : "%c", *s);
}

/* ---- the sections ---- */

/* An operation's reply fields with their JSON type and disclosure class
 * (docs/threat-model.md says what each class promises). */
static void gen_reply_fields(pg_gendoc_buf *b, const pg_opdecl *d) {
    pg_gendoc_put(b, "| reply field | type | class | |\n|---|---|---|---|\n");
    for (size_t k = 0; k < d->n_fields; k++) {
        const pg_fielddecl *f = &d->fields[k];
        char types[64];
        pg_jtypes_text(f->types, types, sizeof types);
        pg_gendoc_put(b, "| `%s` | %s | %s | ", f->name, types, pg_disclosure_name(f->cls));
        cell(b, f->doc);
        pg_gendoc_put(b, " |\n");
    }
    pg_gendoc_put(b, "\n");
}

/* Every reply field of every operation, one a line: op, field, type, class,
 * doc, tab-separated (for scripts: the MCP output schemas, audits). */
static void gen_fields(pg_gendoc_buf *b) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++)
        for (size_t k = 0; k < pg_opdecls[i].n_fields; k++) {
            const pg_fielddecl *f = &pg_opdecls[i].fields[k];
            char types[64];
            pg_jtypes_text(f->types, types, sizeof types);
            pg_gendoc_put(b, "%s\t%s\t%s\t%s\t%s\n", pg_opdecls[i].id, f->name, types, pg_disclosure_name(f->cls),
                          f->doc);
        }
}

static void gen_protocol(pg_gendoc_buf *b) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        pg_gendoc_put(b, "### `%s`\n\n%s\n\nCLI `%s` · flags: ", d->id, d->summary, d->cli);
        flags_text(d->flags, b);
        pg_gendoc_put(b, " · discloses: %s\n\n", d->discloses);
        if (d->n_args) {
            pg_gendoc_put(b, "| argument | type | required | range | default | |\n|---|---|---|---|---|---|\n");
            for (size_t k = 0; k < d->n_args; k++) {
                const pg_argdecl *a = &d->args[k];
                if (a->flags & PG_AF_LOCAL) continue; /* never on the wire */
                char range[96] = "", def[64] = "";
                pg_arg_range_text(a, range, sizeof range);
                pg_arg_default_text(a, def, sizeof def);
                if (a->type == PG_T_BOOL) snprintf(def, sizeof def, "%s", a->def ? "true" : "false");
                pg_gendoc_put(b, "| `%s` | %s | %s | ", a->name, type_name(a->type),
                     (a->flags & PG_AF_REQUIRED) ? "yes" : a->one_of ? "one of group" : "no");
                cell(b, range);
                pg_gendoc_put(b, " | %s | ", def);
                cell(b, a->help);
                if (a->one_of) pg_gendoc_put(b, " (exactly one of group %c)", a->one_of);
                pg_gendoc_put(b, " |\n");
            }
            pg_gendoc_put(b, "\n");
        }
        pg_gendoc_put(b, "Result: `%s`\n\n", d->prints);
        gen_reply_fields(b, d);
    }
}

static void gen_agents(pg_gendoc_buf *b) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        char syn[1024];
        pg_cli_synopsis(d, syn, sizeof syn);
        pg_gendoc_put(b, "### %s\n\n```\n%s\n```\n\n%s\n\n", d->cli, syn, d->summary);
        for (size_t k = 0; k < d->n_args; k++) {
            const pg_argdecl *a = &d->args[k];
            char sp[160], range[96] = "", def[64] = "";
            pg_cli_arg_spelling(a, sp, sizeof sp);
            bool r = pg_arg_range_text(a, range, sizeof range) && a->type != PG_T_ENUM && a->type != PG_T_STRING;
            bool df = pg_arg_default_text(a, def, sizeof def);
            pg_gendoc_put(b, "- `%s`: %s", sp, a->help);
            if (r || df) pg_gendoc_put(b, " (%s%s%s%s)", r ? range : "", r && df ? ", " : "", df ? "default " : "", df ? def : "");
            pg_gendoc_put(b, "\n");
        }
        pg_gendoc_put(b, "%sPrints: `%s`\n\n", d->n_args ? "\n" : "", d->prints);
    }
}

static void gen_ops_list(pg_gendoc_buf *b) {
    pg_gendoc_put(b, "| operation | CLI | discloses | flags |\n|---|---|---|---|\n");
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        pg_gendoc_put(b, "| `%s` | `%s` | %s | ", pg_opdecls[i].id, pg_opdecls[i].cli, pg_opdecls[i].discloses);
        flags_text(pg_opdecls[i].flags, b);
        pg_gendoc_put(b, " |\n");
    }
}

/* Each platform primitive, which backends have it and what caps() field promises it. */
static void gen_platform_primitives(pg_gendoc_buf *b) {
    static const unsigned bks[] = {PG_BK_X11, PG_BK_WIN32, PG_BK_WLR, PG_BK_FAKE, PG_BK_HELPER};
    pg_gendoc_put(b, "| primitive | x11 | win32 | wlroots | fake | helper proxy | promised by caps | |\n"
                     "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < PG_PRIM_COUNT; i++) {
        const pg_prim_decl *d = &pg_prim_decls[i];
        pg_gendoc_put(b, "| `%s` |", d->name);
        for (size_t k = 0; k < sizeof bks / sizeof *bks; k++) {
            bool has = (d->backends & bks[k]) != 0;
            if (bks[k] == PG_BK_HELPER && has) pg_gendoc_put(b, " yes (%s) |", d->helper);
            else pg_gendoc_put(b, " %s |", has ? "yes" : "-");
        }
        pg_gendoc_put(b, " %s%s%s | ", d->caps ? "`" : "", d->caps ? d->caps : "-", d->caps ? "`" : "");
        cell(b, d->doc);
        pg_gendoc_put(b, " |\n");
    }
}

/* The exit codes, from the one table (common/pg_error.c). */
static void gen_exit_codes(pg_gendoc_buf *b) {
    pg_gendoc_put(b, "| exit | code | meaning | what to do |\n|---|---|---|---|\n");
    for (int c = PG_OK; c <= PG_ERR_LAST; c++) {
        pg_gendoc_put(b, "| %d | %s | ", c, pg_err_name((pg_err)c));
        cell(b, pg_err_meaning((pg_err)c));
        pg_gendoc_put(b, " | ");
        cell(b, pg_err_action((pg_err)c));
        pg_gendoc_put(b, *pg_err_action((pg_err)c) ? " |\n" : "|\n");
    }
}

/* The MCP tools as `pixelgate mcp` offers them: the profiles that hold each
 * and its annotations, read from the server's own code (pg_mcp.h) so the
 * page cannot say what the server does not. */
static int fail(const char *fmt, ...) PG_GENDOC_PRINTF(1, 2);

static void gen_mcp_tools(pg_gendoc_buf *b) {
    static const char *const profiles[] = {"default", "observe", "drive", "assert", "accept"};
    static const char *const hints[] = {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"};
    pg_mcp_toolset sets[sizeof profiles / sizeof *profiles];
    for (size_t p = 0; p < sizeof profiles / sizeof *profiles; p++)
        if (pg_mcp_toolset_init(&sets[p], profiles[p], NULL, NULL, NULL)) fail("no MCP profile %s", profiles[p]);
    cJSON *tools = pg_mcp_tool_list(NULL);
    pg_gendoc_put(b, "| tool | profiles (and `all`) | read-only | destructive | idempotent | open world | what it does |\n"
                     "|---|---|---|---|---|---|---|\n");
    for (const cJSON *t = tools ? tools->child : NULL; t; t = t->next) {
        const pg_opdecl *d = pg_mcp_tool_op(cJSON_GetObjectItem(t, "name")->valuestring);
        pg_gendoc_put(b, "| `%s` | ", d->id);
        int any = 0;
        for (size_t p = 0; p < sizeof profiles / sizeof *profiles; p++)
            if (pg_mcp_toolset_has(&sets[p], d)) pg_gendoc_put(b, "%s%s", any++ ? ", " : "", profiles[p]);
        pg_gendoc_put(b, "%s |", any ? "" : "-");
        const cJSON *ann = cJSON_GetObjectItem(t, "annotations");
        for (size_t h = 0; h < sizeof hints / sizeof *hints; h++)
            pg_gendoc_put(b, " %s |", cJSON_IsTrue(cJSON_GetObjectItem(ann, hints[h])) ? "yes" : "no");
        char *summary = pg_mcp_terms(d, d->summary);
        pg_gendoc_put(b, " ");
        cell(b, summary ? summary : d->summary);
        pg_gendoc_put(b, " |\n");
        free(summary);
    }
    cJSON_Delete(tools);
}

typedef struct {
    const char *file, *name;
    void (*gen)(pg_gendoc_buf *b);
} section;

static const section sections[] = {
    {"protocol.md", "ops", gen_protocol},
    {"agents.md", "exit-codes", gen_exit_codes},
    {"agents.md", "reference", gen_agents},
    {"architecture.md", "ops-list", gen_ops_list},
    {"architecture.md", "platform-primitives", gen_platform_primitives},
    {"mcp.md", "mcp-tools", gen_mcp_tools},
};

/* ---- files ---- */

char *pg_gendoc_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    pg_gendoc_buf b = {0};
    char chunk[65536];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) pg_gendoc_put(&b, "%.*s", (int)r, chunk);
    fclose(f);
    if (!b.s) pg_gendoc_put(&b, "%s", "");
    return b.s;
}

char *pg_gendoc_run(const char *cmd) {
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    pg_gendoc_buf out = {0};
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, p)) > 0) pg_gendoc_put(&out, "%.*s", (int)r, chunk);
    if (!out.s) pg_gendoc_put(&out, "%s", "");
    if (pclose(p) != 0) {
        free(out.s);
        return NULL;
    }
    return out.s;
}

/* The text between a section's markers in doc, or NULL (*start, *end set). */
static bool find_section(const char *doc, const char *name, const char **start, const char **end) {
    char begin[128], stop[128];
    snprintf(begin, sizeof begin, "<!-- BEGIN generated:%s (tools/pg_gendoc) -->\n", name);
    snprintf(stop, sizeof stop, "<!-- END generated:%s -->", name);
    const char *s = strstr(doc, begin);
    if (!s) return false;
    *start = s + strlen(begin);
    *end = strstr(*start, stop);
    return *end != NULL;
}

static int fail(const char *fmt, ...) PG_GENDOC_PRINTF(1, 2);
static int failures;
static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("pg_gendoc check: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
    return 1;
}

/* Reports the first line where have and want part. */
static void first_difference(const char *file, const char *name, const char *have, size_t have_len, const char *want) {
    size_t line = 1, i = 0;
    while (i < have_len && want[i] && have[i] == want[i]) line += have[i++] == '\n';
    const char *w = want + i, *h = have + i;
    while (w > want && w[-1] != '\n') w--, h--;
    fail("%s: generated section \"%s\" disagrees with the declarations at its line %llu:\n  doc:  %.*s\n  decl: %.*s\n"
         "  (run: pg_gendoc write docs)",
         file, name, (unsigned long long)line, (int)strcspn(h, "\n"), h, (int)strcspn(w, "\n"), w);
}

static int do_sections(const char *dir, bool write) {
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, sections[i].file);
        char *doc = pg_gendoc_slurp(path);
        const char *s, *e;
        if (!doc || !find_section(doc, sections[i].name, &s, &e)) {
            fail("%s: no generated section \"%s\"", path, sections[i].name);
            free(doc);
            continue;
        }
        pg_gendoc_buf g = {0};
        sections[i].gen(&g);
        if (!write && ((size_t)(e - s) != g.n || memcmp(s, g.s, g.n)))
            first_difference(sections[i].file, sections[i].name, s, (size_t)(e - s), g.s);
        if (write) {
            FILE *f = fopen(path, "wb");
            if (!f) return fail("cannot write %s", path);
            fwrite(doc, 1, (size_t)(s - doc), f);
            fwrite(g.s, 1, g.n, f);
            fputs(e, f);
            fclose(f);
        }
        free(g.s);
        free(doc);
    }
    return failures ? 1 : 0;
}

/* ---- what is written by hand ---- */

static void check_examples(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/agents.md", dir);
    char *doc = pg_gendoc_slurp(path);
    if (!doc) return (void)fail("cannot read %s", path);
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        char head[96];
        snprintf(head, sizeof head, "\n## %.*s\n", (int)strcspn(pg_opdecls[i].cli, " "), pg_opdecls[i].cli);
        if (!strstr(doc, head)) fail("agents.md: no example section \"%s\" for %s", head + 1, pg_opdecls[i].id);
    }
    free(doc);
    snprintf(path, sizeof path, "%s/threat-model.md", dir);
    doc = pg_gendoc_slurp(path);
    if (!doc) return (void)fail("cannot read %s", path);
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        char row[96];
        snprintf(row, sizeof row, "| `%s` |", pg_opdecls[i].id);
        if (!strstr(doc, row)) fail("threat-model.md: no row \"%s\" for what %s discloses", row, pg_opdecls[i].id);
    }
    free(doc);
}

/* The real client's `help CMD` shows every argument with its help and range. */
static void check_help(const char *pixelgate) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "'%s' help %s", pixelgate, d->cli);
        FILE *p = popen(cmd, "r");
        if (!p) return (void)fail("cannot run %s", cmd);
        pg_gendoc_buf out = {0};
        char chunk[4096];
        size_t r;
        while ((r = fread(chunk, 1, sizeof chunk, p)) > 0) pg_gendoc_put(&out, "%.*s", (int)r, chunk);
        if (pclose(p) != 0 || !out.s) {
            fail("`%s` failed", cmd);
            free(out.s);
            continue;
        }
        char syn[1024];
        pg_cli_synopsis(d, syn, sizeof syn);
        if (!strstr(out.s, syn)) fail("`pixelgate help %s` lacks its usage line \"%s\"", d->cli, syn);
        if (!strstr(out.s, d->summary)) fail("`pixelgate help %s` lacks its summary", d->cli);
        for (size_t k = 0; k < d->n_args; k++) {
            const pg_argdecl *a = &d->args[k];
            char sp[160], range[96];
            pg_cli_arg_spelling(a, sp, sizeof sp);
            if (!strstr(out.s, sp)) fail("`pixelgate help %s` lacks argument %s", d->cli, sp);
            if (!strstr(out.s, a->help)) fail("`pixelgate help %s` lacks the help line of %s", d->cli, sp);
            if ((a->type == PG_T_INT || a->type == PG_T_NUM) && pg_arg_range_text(a, range, sizeof range) &&
                !strstr(out.s, range))
                fail("`pixelgate help %s` lacks the range %s of %s", d->cli, range, sp);
        }
        free(out.s);
    }
}

/* Declarations that are wrong on their face: a number without a range, a
 * CLI name that does not follow from the wire name. */
static void check_declarations(void) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        /* "wait_stable" -> "wait-stable"; a two-word command: "assert_changed" -> "assert changed" */
        char dashed[64], spaced[64];
        snprintf(dashed, sizeof dashed, "%s", d->id);
        for (char *c = dashed; *c; c++) *c = *c == '_' ? '-' : *c;
        snprintf(spaced, sizeof spaced, "%s", dashed);
        char *first = strchr(spaced, '-');
        if (first) *first = ' ';
        if (strcmp(d->cli, dashed) && strcmp(d->cli, spaced))
            fail("%s: CLI name \"%s\" is neither \"%s\" nor \"%s\"", d->id, d->cli, dashed, spaced);
        if (!d->summary || !d->description || !d->prints || !d->discloses) fail("%s: summary, description, prints and discloses are required", d->id);
        for (size_t k = 0; k < d->n_args; k++) {
            const pg_argdecl *a = &d->args[k];
            if ((a->type == PG_T_INT || a->type == PG_T_NUM || a->type == PG_T_STRING) && !(a->max > a->min))
                fail("%s.%s: no range", d->id, a->name);
            if (!a->help || !a->help[0]) fail("%s.%s: no help line", d->id, a->name);
            if (!a->cli && !(a->flags & PG_AF_POSITIONAL)) fail("%s.%s: neither an option nor positional", d->id, a->name);
        }
        if (!d->n_fields) fail("%s: no reply field declared (PG_FIELD)", d->id);
        for (size_t k = 0; k < d->n_fields; k++) {
            const pg_fielddecl *f = &d->fields[k];
            if (f->cls == PG_DC_UNSET) fail("%s reply field %s: no disclosure class", d->id, f->name);
            if (!f->types) fail("%s reply field %s: no JSON type", d->id, f->name);
            if (!f->doc || !f->doc[0]) fail("%s reply field %s: no doc line", d->id, f->name);
            if (pg_opdecl_field(d, f->name) != f) fail("%s reply field %s: declared twice", d->id, f->name);
        }
    }
}

int main(int argc, char **argv) {
    pg_gendoc_buf b = {0};
    if (argc == 2 && !strcmp(argv[1], "protocol")) gen_protocol(&b);
    else if (argc == 2 && !strcmp(argv[1], "agents")) gen_agents(&b);
    else if (argc == 2 && !strcmp(argv[1], "ops-list")) gen_ops_list(&b);
    else if (argc == 2 && !strcmp(argv[1], "exit-codes")) gen_exit_codes(&b);
    else if (argc == 2 && !strcmp(argv[1], "fields")) gen_fields(&b);
    else if (argc == 2 && !strcmp(argv[1], "platform-primitives")) gen_platform_primitives(&b);
    else if (argc == 2 && !strcmp(argv[1], "mcp-tools")) gen_mcp_tools(&b);
    else if (argc == 2 && !strcmp(argv[1], "man-client")) pg_gendoc_man_client(&b);
    else if (argc == 2 && !strcmp(argv[1], "completion-bash")) pg_gendoc_completion_bash(&b);
    else if (argc == 2 && !strcmp(argv[1], "completion-zsh")) pg_gendoc_completion_zsh(&b);
    else if (argc == 2 && !strcmp(argv[1], "completion-fish")) pg_gendoc_completion_fish(&b);
    else if (argc == 3 && !strcmp(argv[1], "man-broker")) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "'%s' --help", argv[2]);
        char *help = pg_gendoc_run(cmd);
        if (!help) return fail("`%s` failed", cmd);
        pg_gendoc_man_broker(&b, help);
        free(help);
    } else if (argc == 3 && !strcmp(argv[1], "man-policy")) {
        char *md = pg_gendoc_slurp(argv[2]);
        if (!md) return fail("cannot read %s", argv[2]);
        pg_gendoc_man_policy(&b, md);
        free(md);
    } else if (argc == 3 && !strcmp(argv[1], "write")) return do_sections(argv[2], true);
    else if (argc == 4 && !strcmp(argv[1], "check")) {
        check_declarations();
        do_sections(argv[2], false);
        check_examples(argv[2]);
        check_help(argv[3]);
        if (failures) fprintf(stderr, "pg_gendoc check: %d disagreement(s)\n", failures);
        return failures ? 1 : 0;
    } else {
        fprintf(stderr, "usage: pg_gendoc protocol|agents|ops-list|exit-codes|platform-primitives|fields | write DOCS_DIR | check DOCS_DIR PIXELGATE\n"
                        "       pg_gendoc man-client | man-broker PIXELGATED | man-policy POLICY_MD   (roff on stdout)\n"
                        "       pg_gendoc completion-bash                 (pixelgate's bash completion on stdout)\n"
                        "       pg_gendoc completion-zsh                  (its zsh completion, _pixelgate)\n"
                        "       pg_gendoc completion-fish                 (its fish completion, pixelgate.fish)\n");
        return 2;
    }
    if (b.s) fputs(b.s, stdout);
    free(b.s);
    return 0;
}
