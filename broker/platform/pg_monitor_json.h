/* SPDX-License-Identifier: MIT */
/* pg_monitor_json.h - the one JSON form of the monitors: what `screens`
 * answers and what the Windows session helper sends the service,
 * [{"name", "x", "y", "width", "height", "primary"}, ...]. One encoder and
 * one decoder, so the two sides cannot drift apart.
 *
 * Decoding is strict, for a peer that may be broken or hostile: an array of
 * 1..PG_MONITORS_MAX objects with exactly those six fields, a name of at
 * most 63 bytes, x and y 32-bit signed integers, width and height integers
 * in 0..PG_MONITOR_MAX_SIDE, primary a boolean. Anything else is
 * PG_E_BADINPUT naming what is wrong, and nothing is returned.
 * Never: rounds a number, or keeps a pointer into the JSON.
 */
#ifndef PG_MONITOR_JSON_H
#define PG_MONITOR_JSON_H

#include <stddef.h>

#include <cJSON.h>

#include "pg_error.h"
#include "pg_platform.h"

#define PG_MONITORS_MAX 16
#define PG_MONITOR_MAX_SIDE 65536

/* A new array of the first PG_MONITORS_MAX monitors (the caller owns it),
 * or NULL when out of memory. */
cJSON *pg_monitor_json(const pg_monitor *m, size_t n);

/* *out malloc'd (the caller frees it), *n entries; both NULL/0 on failure. */
pg_err pg_monitor_json_decode(const cJSON *a, pg_monitor **out, size_t *n, pg_error *e);

#endif
