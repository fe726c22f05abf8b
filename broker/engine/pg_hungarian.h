/* SPDX-License-Identifier: MIT */
/* pg_hungarian.h - minimum-cost one-to-one assignment (the Hungarian
 * method, in its shortest-augmenting-path form with potentials, O(n^2 m)).
 *
 * Does: given an n x m cost matrix (row-major, finite doubles; rectangular
 * allowed), pairs min(n, m) rows with as many distinct columns so that the
 * sum of their costs is the smallest possible; the rows (or columns) left
 * over stay unassigned. Ties are broken by index order, so the same matrix
 * always gives the same pairing.
 * Errors: PG_E_USAGE for n or m of 0 or above PG_HUNG_MAX, or a cost that is
 * not finite; PG_E_INTERNAL when out of memory.
 * Never: keeps state; memory is O(n m) for the call only.
 * Ownership: row_to_col (n entries, -1 for an unassigned row) is the caller's.
 */
#ifndef PG_HUNGARIAN_H
#define PG_HUNGARIAN_H

#include <stddef.h>

#include "pg_error.h"

#define PG_HUNG_MAX 256

pg_err pg_hungarian(const double *cost, size_t n, size_t m, int *row_to_col, double *total, pg_error *e);

#endif
