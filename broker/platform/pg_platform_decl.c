/* SPDX-License-Identifier: MIT */
/* pg_platform.def as data, and the conformance check (pg_platform_decl.h). */
#include "pg_platform_decl.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The struct is generated from the declaration: a field outside it cannot exist. */
_Static_assert(sizeof(pg_platform_ops) == sizeof(const char *) + PG_PRIM_COUNT * sizeof(void (*)(void)),
               "pg_platform_ops has exactly the primitives of pg_platform.def");

#define PG_CAP(field) #field, offsetof(pg_caps, field)
#define PG_NOCAP NULL, 0
#define WIRE "wire"
#define CUSTOM "custom"
#define LOCAL "local"
#define NONE "none"
#define PG_PRIM(name_, ret, bk, cap, helper_, doc_) \
    {.name = #name_, .doc = doc_, .backends = (bk), .helper = helper_, cap, .offset = offsetof(pg_platform_ops, name_)},
/* cap expands to the two fields after .helper: caps, caps_offset. */
const pg_prim_decl pg_prim_decls[PG_PRIM_COUNT] = {
#include "pg_platform.def"
};
#undef PG_PRIM

const char *pg_platform_backend_name(unsigned bk) {
    switch (bk) {
    case PG_BK_X11: return "x11";
    case PG_BK_WIN32: return "win32";
    case PG_BK_FAKE: return "fake";
    case PG_BK_HELPER: return "helper";
    case PG_BK_WLR: return "wlroots";
    default: return "?";
    }
}

/* Whether ops has a function at the primitive's place. All function pointers
 * share one representation, so reading it as a void function is exact. */
static bool has(const pg_platform_ops *ops, const pg_prim_decl *d) {
    void (*fn)(void);
    memcpy(&fn, (const char *)ops + d->offset, sizeof fn);
    return fn != NULL;
}

typedef struct {
    char *out;
    size_t cap, used, count;
} report;

static void note(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(report *r, const char *fmt, ...) {
    r->count++;
    if (!r->cap || r->used >= r->cap - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(r->out + r->used, r->cap - r->used, fmt, ap);
    va_end(ap);
    if (w > 0) r->used += (size_t)w < r->cap - r->used ? (size_t)w : r->cap - r->used - 1;
}

static void conform_one(const pg_platform_ops *ops, unsigned bk, const pg_caps *caps, const pg_prim_decl *d,
                        report *r) {
    const char *b = pg_platform_backend_name(bk);
    bool declared = (d->backends & bk) != 0, there = has(ops, d);
    if (declared && !there) note(r, "%s: %s is NULL, but pg_platform.def says %s has it\n", b, d->name, b);
    if (!declared && there) note(r, "%s: %s is set, but pg_platform.def does not give it to %s\n", b, d->name, b);
    bool promised = false;
    if (caps && d->caps) memcpy(&promised, (const char *)caps + d->caps_offset, sizeof promised);
    if (promised && !there) note(r, "%s: caps says %s, but %s is NULL\n", b, d->caps, d->name);
}

size_t pg_platform_conform(const pg_platform_ops *ops, unsigned bk, const pg_caps *caps, char *why, size_t n) {
    report r = {why, n, 0, 0};
    if (n) why[0] = '\0';
    for (size_t i = 0; i < PG_PRIM_COUNT; i++) conform_one(ops, bk, caps, &pg_prim_decls[i], &r);
    return r.count;
}
