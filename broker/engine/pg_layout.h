/* SPDX-License-Identifier: MIT */
/* pg_layout.h - widgets from pixels: entries, text areas, buttons, check
 * boxes, radio buttons, lists with their selected row, sliders and
 * scrollbars, found in a capture without any accessibility tree.
 *
 * Does: pg_layout_detect segments an RGBA8 image into flat regions (4-connected
 * pixels whose colour steps by at most PG_LAYOUT_STEP per channel from a
 * neighbour and stays within PG_LAYOUT_SPREAD of the region's first pixel),
 * measures each region's box, fill colour and solidity (the region plus the
 * holes it encloses, over its box), and classifies by shape:
 *   - a small square (7..26 px, solid) is a check box, a small disc or
 *     diamond a radio button; "on" when its centre holds a mark (ink that
 *     differs from the fill) or the fill itself is dark or saturated;
 *   - a solid rectangle 12..48 px high and >= 3x as wide, lighter than the
 *     background around it, is an entry; taller ones are lists (when a
 *     full-width band of another fill - the selected row - lies inside) or
 *     text areas;
 *   - a solid rectangle holding centred ink, not lighter than its
 *     surroundings, is a button;
 *   - a long thin trough (darker than the background around it, or a line)
 *     with a thumb (a run of another colour along its centre line) is a
 *     slider, or a scrollbar when it runs along a list's or text area's edge;
 *     the thumb's position is reported as a fraction.
 * Each control has a confidence in 0..1 (how well the shape fits its class).
 * Labels are not read here: pg_layout_label ties a control to the nearest
 * of the text boxes the caller read (OCR lines), by the rule below.
 * Deterministic (integer arithmetic on pixels, fixed scan order): the same
 * pixels give the same controls in the same order (top to bottom, then left
 * to right).
 * Never: reads text, touches the platform or files, keeps state between
 * calls, or allocates more than O(pixels) for one call.
 * Cannot see (docs/ocr.md "What layout cannot see"): controls drawn without
 * a closed outline or a fill of their own (flat toolbar icons, links), combo
 * boxes and spin boxes (reported as entries or buttons), tabs, menus, tree
 * views, anything smaller than 7 px, and the state of a widget that shows
 * its state only by colour against a neighbour it cannot compare with.
 * Ownership: a pg_layout_result owns its array; pg_layout_result_fini frees it.
 */
#ifndef PG_LAYOUT_H
#define PG_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

#define PG_LAYOUT_MAX_PIXELS ((uint64_t)8294400) /* 3840x2160 */
#define PG_LAYOUT_MAX_CONTROLS 512
#define PG_LAYOUT_STEP 4    /* per channel, between neighbours of one flat region */
#define PG_LAYOUT_SPREAD 20 /* per channel, from the region's first pixel */

typedef enum {
    PG_CTL_ENTRY = 0,
    PG_CTL_TEXTAREA,
    PG_CTL_BUTTON,
    PG_CTL_CHECK,
    PG_CTL_RADIO,
    PG_CTL_LIST,
    PG_CTL_SLIDER,
    PG_CTL_SCROLLBAR,
    PG_CTL_KINDS
} pg_ctl_kind;

/* "entry", "textarea", "button", "check", "radio", "list", "slider", "scrollbar". */
const char *pg_ctl_kind_name(pg_ctl_kind k);
/* The kind for a name, or -1. */
int pg_ctl_kind_parse(const char *name);

typedef struct {
    pg_ctl_kind kind;
    pg_img_rect box;   /* the control: an entry's frame, a check box's indicator */
    pg_img_rect inner; /* where its text is: inside the frame; a button's face */
    bool on;           /* check, radio: checked */
    int selected;      /* list: index into rows of the selected band's row, -1 none (set by the caller's rows) */
    pg_img_rect band;  /* list: the selected row's band (w == 0: none) */
    pg_img_rect thumb; /* slider, scrollbar: the thumb */
    bool vertical;     /* slider, scrollbar: orientation */
    double first, last; /* slider: the value 0..1 in first (last == first); scrollbar: the thumb's span */
    uint8_t fill[3];   /* the fill colour (RGB) */
    double conf;       /* 0..1 */
} pg_layout_control;

typedef struct {
    pg_layout_control *v;
    size_t n;
    uint8_t bg[3];     /* the image's most common colour */
    unsigned regions;  /* flat regions examined */
} pg_layout_result;

/* Detects the controls of img (region NULL: all of it), boxes in img's
 * coordinates. PG_E_BADINPUT for an image without pixels or over
 * PG_LAYOUT_MAX_PIXELS; PG_E_USAGE for a region outside it. At most
 * PG_LAYOUT_MAX_CONTROLS (the most confident first, then re-sorted). On
 * error *out is empty. */
pg_err pg_layout_detect(const pg_img *img, const pg_img_rect *region, pg_layout_result *out, pg_error *e);
void pg_layout_result_fini(pg_layout_result *r);

/* A text box the caller read (an OCR line or word run). */
typedef struct {
    pg_img_rect box;
} pg_layout_text;

/* The label of control c among n text boxes, or -1. Check and radio buttons:
 * the text starting right of the indicator on its row (vertical overlap of
 * half the indicator, starting within 3 indicator widths). Buttons: none (their
 * text is inside). Everything else: the nearest text ending left of the
 * control on its row (within 40 % of the image width), else the nearest text
 * ending above it (within 3 rows of text) that overlaps it horizontally or
 * starts near its left edge. Text inside the control is never its label. */
int pg_layout_label(const pg_layout_control *c, const pg_layout_text *t, size_t n, uint32_t img_w);

#endif
