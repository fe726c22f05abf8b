/* SPDX-License-Identifier: MIT */
/* Which tools `pixelgate mcp` offers: a profile, or --tools, less
 * --exclude-tools. Each profile is a rule over the declarations' flags
 * (common/pg_ops.def), so an operation added later lands in the profile its
 * flags say, and no second list of names can drift. See pg_mcp.h. */
#include <string.h>

#include "pg_mcp.h"

static bool is_tool(const pg_opdecl *d) { return pg_mcp_tool_op(d->id) == d; }

/* Leaves nothing behind but its answer (annotations' readOnlyHint). */
static bool reads_only(const pg_opdecl *d) { return !(d->flags & (PG_OPF_EFFECT | PG_OPF_STATE)); }

/* observe: looks without checking or waiting: windows, snapshot, ocr, layout, ... */
static bool in_observe(const pg_opdecl *d) { return reads_only(d) && !(d->flags & (PG_OPF_ASSERT | PG_OPF_LONG)); }

/* drive: the input tools and the waits that follow them */
static bool in_drive(const pg_opdecl *d) {
    return pg_mcp_is_input(d) || (reads_only(d) && (d->flags & PG_OPF_LONG) && !(d->flags & PG_OPF_ASSERT));
}

/* assert: the checks that say yes or no and change nothing */
static bool in_assert(const pg_opdecl *d) { return reads_only(d) && (d->flags & PG_OPF_ASSERT); }

/* accept: baselines, the checks that leave a candidate for an approver */
static bool in_accept(const pg_opdecl *d) { return (d->flags & PG_OPF_STATE) && !(d->flags & PG_OPF_DESTROYS); }

static bool in_all(const pg_opdecl *d) {
    (void)d;
    return true;
}

/* default: what checking a form needs (find, look, act, wait, check), as
 * the declarations mark it (PG_OPF_CORE); the rest is a profile away */
static bool in_default(const pg_opdecl *d) { return d->flags & PG_OPF_CORE; }

static const struct {
    const char *name;
    bool (*has)(const pg_opdecl *);
} profiles[] = {{"default", in_default}, {"observe", in_observe}, {"drive", in_drive},
                {"assert", in_assert},   {"accept", in_accept},   {"all", in_all}};

static pg_err set_profile(pg_mcp_toolset *ts, const char *name, pg_error *e) {
    for (size_t p = 0; p < sizeof profiles / sizeof *profiles; p++) {
        if (strcmp(name, profiles[p].name)) continue;
        for (size_t i = 0; i < PG_OPI_COUNT; i++) ts->on[i] = is_tool(&pg_opdecls[i]) && profiles[p].has(&pg_opdecls[i]);
        return PG_OK;
    }
    return pg_error_set(e, PG_E_USAGE, "profiles: " PG_MCP_PROFILE_WORDS,
                        "unknown profile \"%s\"", name);
}

/* Each name of a comma-separated list set to on; an unknown one is refused
 * by name, so a typo does not silently leave a tool out or in. */
static pg_err set_names(pg_mcp_toolset *ts, const char *list, bool on, pg_error *e) {
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        char name[64];
        if (n == 0 || n >= sizeof name)
            return pg_error_set(e, PG_E_USAGE, "a comma-separated list of tool names", "bad tool list \"%s\"", list);
        memcpy(name, p, n);
        name[n] = '\0';
        const pg_opdecl *d = pg_mcp_tool_op(name);
        if (!d) return pg_error_set(e, PG_E_USAGE, "tools are named by their wire names: snapshot, assert_text, ...", "unknown tool \"%s\"", name);
        ts->on[d - pg_opdecls] = on;
        p += n + (p[n] == ',');
    }
    return PG_OK;
}

pg_err pg_mcp_toolset_init(pg_mcp_toolset *ts, const char *profile, const char *tools, const char *exclude,
                           pg_error *e) {
    if (profile && tools)
        return pg_error_set(e, PG_E_USAGE, "give --profile or --tools", "--profile and --tools both name the tools");
    pg_err rc = PG_OK;
    if (tools) {
        memset(ts->on, 0, sizeof ts->on);
        rc = set_names(ts, tools, true, e);
    } else {
        rc = set_profile(ts, profile ? profile : "default", e);
    }
    if (!rc && exclude) rc = set_names(ts, exclude, false, e);
    return rc;
}

bool pg_mcp_toolset_has(const pg_mcp_toolset *ts, const pg_opdecl *d) {
    return !ts || (is_tool(d) && ts->on[d - pg_opdecls]);
}
