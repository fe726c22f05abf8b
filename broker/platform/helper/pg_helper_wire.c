/* SPDX-License-Identifier: MIT */
/* pg_helper_wire.c - what both ends of the session helper's protocol agree
 * on (pg_helper.h): the ranges of WIRE numbers and the ops carried. */
#include <string.h>

#include "pg_helper.h"

#define MAX_ID 9007199254740991.0 /* 2^53 - 1 */

bool pg_helper_wire_range(pg_helper_wire_kind k, double *lo, double *hi) {
    switch (k) {
    case PG_WK_ID: case PG_WK_OUT_ID: *lo = 0, *hi = MAX_ID; return true;
    case PG_WK_I32: case PG_WK_BUTTON: case PG_WK_COUNT: case PG_WK_OUT_I32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    case PG_WK_U32: case PG_WK_WAIT_MS: case PG_WK_OUT_U32: *lo = 0, *hi = UINT32_MAX; return true;
    case PG_WK_PING_MS: *lo = 0, *hi = 60000; return true;
    case PG_WK_RESPONDING: *lo = PG_RESPONDING_UNKNOWN, *hi = PG_RESPONDING_SILENT; return true;
    default: return false;
    }
}

/* The primitives pg_platform.def marks WIRE or CUSTOM, by name. */
#define HW_NAME_WIRE(name) #name,
#define HW_NAME_CUSTOM(name) #name,
#define HW_NAME_LOCAL(name)
#define HW_NAME_NONE(name)
#define PG_PRIM(name, ret, bk, cap, helper, ...) HW_NAME_##helper(name)
static const char *const carried[] = {
#include "pg_platform.def"
};
#undef PG_PRIM

size_t pg_helper_ops_carried(const char *const **ops) {
    *ops = carried;
    return sizeof carried / sizeof *carried;
}

bool pg_helper_op_known(const char *op) {
    for (size_t i = 0; op && i < sizeof carried / sizeof *carried; i++)
        if (!strcmp(carried[i], op)) return true;
    return false;
}
