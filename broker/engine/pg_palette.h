/* SPDX-License-Identifier: MIT */
/* pg_palette.h - the dominant colours of a region, with a name for each.
 *
 * Does: counts the region's opaque colours (alpha over white) in a 32x32x32
 * histogram, groups the bins greedily - largest first, each joining the
 * first group whose mean is within PG_PALETTE_JOIN (CIE76 in CIELAB) or
 * starting a new one (at most PG_PALETTE_GROUPS) - and returns the largest
 * groups: their mean colour (the exact mean of their pixels), the fraction
 * of the region they cover, and the nearest of a fixed list of colour names
 * (CIEDE2000; greys by lightness). Antialiased edges between two colours
 * fall between them and form small groups of their own.
 * Deterministic; pure. Never: touches the platform, allocates more than the
 * histogram (~400 KB) for a call.
 */
#ifndef PG_PALETTE_H
#define PG_PALETTE_H

#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

#define PG_PALETTE_MAX 8
#define PG_PALETTE_GROUPS 32
#define PG_PALETTE_JOIN 12.0

typedef struct {
    uint8_t rgb[3];
    uint64_t count;   /* pixels of the region in this group */
    double fraction;  /* count / region pixels */
    const char *name; /* "red", "dark gray", ... (static) */
} pg_palette_color;

/* Up to max (1..PG_PALETTE_MAX) colours of img's region (NULL: all), largest
 * first, into out; *n how many. PG_E_USAGE for a bad region or max. */
pg_err pg_palette_dominant(const pg_img *img, const pg_img_rect *region, unsigned max, pg_palette_color *out,
                           unsigned *n, pg_error *e);

/* The nearest colour name (static string). */
const char *pg_palette_name(const uint8_t rgb[3]);

#endif
