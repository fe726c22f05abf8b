/* SPDX-License-Identifier: MIT */
/* pg_report.h - the offline HTML page of acceptance results and baseline
 * reviews.
 *
 * One self-contained HTML file: CSS and script inline, images as data:
 * URLs, nothing fetched (no CDN, no font, no network). Per item: status and
 * reason, the two images side by side, an overlay of the right image over
 * the left with an opacity slider, the diff image, the metrics and the
 * regions with their coordinates; a status filter over all items.
 * The page embeds pixels: building it is a release, and the handlers send
 * it only where the policy allows (approvers, expose_pixels allow).
 * Never: writes files (the client writes what it receives), or puts text
 * into the page unescaped.
 * Ownership: *out is malloc'd (free).
 */
#ifndef PG_REPORT_H
#define PG_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_error.h"

typedef struct {
    const char *title;            /* "home / default" */
    const char *status;           /* passed | failed | blocked | needs_approval */
    const char *reason;           /* reason code or sentence */
    const cJSON *metrics;         /* object: name -> number or string (may be NULL) */
    const cJSON *regions;         /* array of {x,y,w,h,pixels} (may be NULL) */
    const uint8_t *baseline_png;  /* left image (may be NULL) */
    size_t baseline_len;
    const uint8_t *actual_png;    /* right image (may be NULL) */
    size_t actual_len;
    const uint8_t *diff_png;      /* (may be NULL) */
    size_t diff_len;
    const char *left_label, *right_label; /* NULL: "baseline", "capture" */
} pg_report_item;

pg_err pg_report_html(const char *heading, const pg_report_item *items, size_t n, char **out, size_t *len,
                      pg_error *e);

#endif
