/* SPDX-License-Identifier: MIT */
/* pg_jnum.h - engine-internal: JSON numbers with a fixed number of
 * decimals, formatted with integer arithmetic (round half away from zero,
 * trailing zeros dropped), so that the printed text never depends on the C
 * library's printf of doubles. Non-finite values become JSON null.
 * Never: visible outside broker/engine.
 */
#ifndef PG_JNUM_H
#define PG_JNUM_H

#include <cJSON.h>

#define PG_JNUM_MAX 32

/* At most 9 decimals; |v| * 10^decimals beyond 2^53 prints as null. */
void pg_jnum_format(double v, int decimals, char out[PG_JNUM_MAX]);
/* A new cJSON raw number (NULL when out of memory). */
cJSON *pg_jnum(double v, int decimals);
/* cJSON_AddItemToObject(o, key, pg_jnum(v, decimals)); 0 when out of memory. */
int pg_jnum_add(cJSON *o, const char *key, double v, int decimals);

#endif
