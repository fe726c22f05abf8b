/* SPDX-License-Identifier: MIT */
/* pg_path_json.h - the one JSON form of a pointer path (a drag's points),
 * as the Windows service sends it to its session helper: [[x, y], ...].
 * One encoder and one decoder, so the two sides cannot drift apart.
 *
 * Decoding is strict, for a peer that may be broken or hostile: an array of
 * 2..max entries, each an array of exactly two integral numbers in the
 * 32-bit signed range. Anything else is PG_E_BADINPUT naming what is wrong;
 * *out is then unspecified. Whether the path is a drag the backend will
 * send (its points inside the window, its timing) is the backend's to say.
 * Never: rounds a number, or keeps a pointer into the JSON.
 */
#ifndef PG_PATH_JSON_H
#define PG_PATH_JSON_H

#include <stddef.h>

#include <cJSON.h>

#include "pg_error.h"
#include "pg_geom.h"

/* A new array (the caller owns it), or NULL when out of memory. */
cJSON *pg_path_json(const pg_point *path, size_t n);

/* out has room for max points; *n is how many were decoded. */
pg_err pg_path_json_decode(const cJSON *a, pg_point *out, size_t max, size_t *n, pg_error *e);

#endif
