/* SPDX-License-Identifier: MIT */
/* pg_colorname.h - what a caller means by a colour: "#RRGGBB" or a name.
 *
 * Does: reads "#RRGGBB" (six hex digits, either case) or one of the CSS
 * basic colour names (CSS Color Level 3, section 4.1: black, silver, gray,
 * white, maroon, red, purple, fuchsia, green, lime, olive, yellow, navy,
 * blue, teal, aqua), plus orange (CSS 2.1) and the aliases grey, magenta
 * (= fuchsia) and cyan (= aqua), case-insensitive, with their CSS values:
 * "green" is #008000 as in CSS (X11 and Tk call #00ff00 "green": that is
 * "lime" here). The table is what `pixelgate assert color --expect` takes
 * and docs/agents.md lists (pg_colorname_at walks it for the docs and tests).
 * Never: guesses (an unknown name or a malformed hex is an error naming
 * what is accepted), allocates, touches images or globals that change.
 */
#ifndef PG_COLORNAME_H
#define PG_COLORNAME_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

/* text -> rgb. PG_E_USAGE (a bad argument) for anything else, saying why. */
pg_err pg_colorname_parse(const char *text, uint8_t rgb[3], pg_error *e);

/* The i-th entry of the table (its name and value); NULL past the end. */
const char *pg_colorname_at(size_t i, uint8_t rgb[3]);

#endif
