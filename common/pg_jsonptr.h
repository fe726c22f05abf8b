/* SPDX-License-Identifier: MIT */
/* pg_jsonptr.h - JSON Pointers (RFC 6901) over cJSON: the broker writes
 * them to name the screen text in a reply (broker/core/pg_untrusted.h), the
 * MCP front end reads them back to wrap that text (client/mcp).
 *
 * Contract: a pointer is "" (the whole document) or "/" followed by
 * reference tokens joined by "/", each with "~" written "~0" and "/" written
 * "~1" (in that order, so "~1" in a name comes back as "~1", not "/").
 * Array members are named by their decimal index without leading zeros.
 * Never: allocates; follows "-" (the past-the-end index) or a malformed
 * escape (both resolve to nothing).
 */
#ifndef PG_JSONPTR_H
#define PG_JSONPTR_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

/* Appends "/" and the escaped token to the pointer in buf (NUL-terminated,
 * n bytes). false, buf unchanged, when it does not fit. */
bool pg_jsonptr_push(char *buf, size_t n, const char *token);
/* The same with an array index as the token. */
bool pg_jsonptr_push_index(char *buf, size_t n, size_t index);
/* The value ptr names in root, or NULL when it names nothing. */
const cJSON *pg_jsonptr_get(const cJSON *root, const char *ptr);

#endif
