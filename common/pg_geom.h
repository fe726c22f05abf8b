/* SPDX-License-Identifier: MIT */
/* pg_geom.h - the few geometry value types both binaries speak: a rectangle
 * (x, y may be negative: screen coordinates left of or above the primary
 * monitor), a size and a point. Plain values; nothing here allocates. */
#ifndef PG_GEOM_H
#define PG_GEOM_H

#include <stdint.h>

typedef struct {
    int32_t x, y;
    uint32_t w, h;
} pg_rect;

typedef struct {
    uint32_t w, h;
} pg_size;

typedef struct {
    int32_t x, y;
} pg_point;

#endif
