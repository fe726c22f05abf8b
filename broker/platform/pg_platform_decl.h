/* SPDX-License-Identifier: MIT */
/* pg_platform_decl.h - pg_platform.def as data, and the check that a backend
 * agrees with it.
 *
 * Contract: pg_prim_decls[] has one entry per primitive, in pg_platform.def's
 * order: its name, one-line doc, which backends have it (PG_BK_*), how the
 * session helper carries it, the pg_caps field that promises it (if any), and
 * where its function sits in pg_platform_ops. pg_platform_conform holds one
 * backend's table (and, given, what its caps() answered) to it: a primitive
 * the declaration gives the backend must be there, one it does not give must
 * be NULL, and a caps field that is true must not promise a NULL function.
 * Why: the four tables (x11, win32, fake, the helper proxy) were kept in step
 * by hand; now a disagreement fails tests/unit/test_platform_decl.c.
 * Never: calls a backend function; allocates.
 */
#ifndef PG_PLATFORM_DECL_H
#define PG_PLATFORM_DECL_H

#include <stddef.h>

#include "pg_platform.h"

typedef struct {
    const char *name;
    const char *doc;      /* one line */
    unsigned backends;    /* PG_BK_* that fill it in */
    const char *helper;   /* "wire", "custom", "local", "none": how the session helper carries it */
    const char *caps;     /* the pg_caps field that promises it, or NULL */
    size_t caps_offset;   /* of that bool in pg_caps */
    size_t offset;        /* of the function in pg_platform_ops */
} pg_prim_decl;

#define PG_PRIM(name, ...) PG_PRIMI_##name,
enum {
#include "pg_platform.def"
    PG_PRIM_COUNT
};
#undef PG_PRIM

extern const pg_prim_decl pg_prim_decls[PG_PRIM_COUNT];

/* "x11", "win32", "fake", "helper", "wlroots" for one PG_BK_* bit. */
const char *pg_platform_backend_name(unsigned bk);

/* How many ways ops (the table of backend bk, one PG_BK_* bit) and caps (what
 * its caps() said; NULL: not checked) disagree with the declaration; the
 * first of them, one per line, in why[n]. 0: they agree. */
size_t pg_platform_conform(const pg_platform_ops *ops, unsigned bk, const pg_caps *caps, char *why, size_t n);

#endif
