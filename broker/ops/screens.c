/* screens: the monitors, from the platform backend (names and rectangles,
 * nothing from pixels). */
#include <stdlib.h>

#include "pg_ops.h"

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
    cJSON *r = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(r, "screens");
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "name", m[i].name);
        cJSON_AddNumberToObject(o, "x", m[i].r.x);
        cJSON_AddNumberToObject(o, "y", m[i].r.y);
        cJSON_AddNumberToObject(o, "width", m[i].r.w);
        cJSON_AddNumberToObject(o, "height", m[i].r.h);
        cJSON_AddBoolToObject(o, "primary", m[i].primary);
    }
    cJSON_AddNumberToObject(r, "count", (double)n);
    free(m);
    c->result = r;
    return PG_OK;
}
