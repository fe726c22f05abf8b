/* SPDX-License-Identifier: MIT */
/* screens: the monitors, from the platform backend (names and rectangles,
 * nothing from pixels). */
#include <stdlib.h>

#include "pg_monitor_json.h"
#include "pg_call.h"

pg_err pg_op_screens(pg_call *c, const pg_args_screens *a, pg_error *e) {
    (void)a;
    if (!c->b->plat_ops->monitors) return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "this backend lists no monitors");
    pg_monitor *m = NULL;
    size_t n = 0;
    pg_err rc = pg_call_plat_read(c, e);
    if (!rc) {
        rc = c->b->plat_ops->monitors(c->plat, &m, &n, e);
        pg_call_plat_done(c);
    }
    if (rc) return rc;
    cJSON *r = cJSON_CreateObject(), *list = pg_monitor_json(m, n);
    cJSON_AddItemToObject(r, "screens", list);
    cJSON_AddNumberToObject(r, "count", cJSON_GetArraySize(list));
    free(m);
    c->result = r;
    return PG_OK;
}
