/* SPDX-License-Identifier: MIT */
/* pg_ocr_layout.h - a window's structure from pixels: the controls
 * pg_layout_detect finds, with their text read by OCR and each tied to its
 * label. What `pixelgate layout` answers.
 *
 * Does, in one call:
 *  1. pg_layout_detect on the image (broker/engine/pg_layout.h);
 *  2. one OCR of the image with every control's inside painted over (so the
 *     page holds the labels and free text only), grouped into text runs:
 *     words of one visual row closer than 1.5x their height;
 *  3. field OCR (pg_ocr_opts.field) of each entry's and button's inside, of
 *     a list's selected band, and an OCR of each list and text area inside
 *     for its rows (one row per visual line, top to bottom);
 *  4. each control's label: pg_layout_label over the text runs.
 * Deterministic like its parts: the same pixels give the same answer.
 * Never: touches the platform, keeps pixels after the call.
 * Cost: dominated by OCR - one page plus one field per entry, button and
 * selected row (bench/README.md has the figures).
 * Ownership: a pg_ocr_layout owns every string and array inside;
 * pg_ocr_layout_fini frees them. Boxes are in img's coordinates.
 */
#ifndef PG_OCR_LAYOUT_H
#define PG_OCR_LAYOUT_H

#include "pg_layout.h"
#include "pg_ocr.h"

typedef struct {
    char *text;
    pg_img_rect box;
    double conf; /* mean of its words, 0..100 */
} pg_ocr_layout_line;

typedef struct {
    pg_layout_control c;
    char *label;           /* the label's text, or NULL */
    pg_img_rect label_box;
    char *text;            /* entry: its value; button: its caption; text area: its text; else NULL */
    double text_conf;      /* 0..100 */
    pg_ocr_layout_line *rows; /* list and text area: visual rows inside */
    size_t n_rows;
    char *selected_text;   /* list: the selected band's text (field OCR), or NULL */
} pg_ocr_layout_control;

typedef struct {
    pg_ocr_layout_control *controls;
    size_t n_controls;
    pg_ocr_layout_line *lines; /* text outside the controls: labels and free text */
    size_t n_lines;
    uint8_t bg[3];
} pg_ocr_layout;

pg_err pg_ocr_layout_run(pg_ocr *o, const pg_img *img, const pg_img_rect *region, pg_ocr_layout *out, pg_error *e);
void pg_ocr_layout_fini(pg_ocr_layout *l);

#endif
