/* SPDX-License-Identifier: MIT */
/* pg_ocr_layout.c - see pg_ocr_layout.h. */
#include "pg_ocr_layout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static pg_img_rect shrink(pg_img_rect r, uint32_t k) {
    if (r.w > 2 * k + 4 && r.h > 2 * k + 4) r.x += k, r.y += k, r.w -= 2 * k, r.h -= 2 * k;
    return r;
}

/* Does a control lie between word p and word q (same row)? Then they are
 * two runs: the labels of two radio buttons in a row. */
static bool control_between(const pg_layout_result *lr, const pg_ocr_word *p, const pg_ocr_word *q) {
    for (size_t i = 0; lr && i < lr->n; i++) {
        const pg_img_rect *b = &lr->v[i].box;
        bool between = (int64_t)b->x >= p->x + p->w - 1 && (int64_t)b->x + b->w <= q->x + 1;
        bool row = (int64_t)b->y < q->y + q->h && (int64_t)b->y + b->h > q->y;
        if (between && row) return true;
    }
    return false;
}

/* Words of r grouped into runs: same visual row, gap < 1.2x the height, no
 * control between them. */
static pg_err runs_of(const pg_ocr_result *r, const pg_layout_result *lr, pg_ocr_layout_line **out, size_t *n,
                      pg_error *e) {
    *out = NULL, *n = 0;
    if (!r->n_words) return PG_OK;
    pg_ocr_layout_line *v = calloc(r->n_words, sizeof *v);
    char **parts = calloc(r->n_words, sizeof *parts);
    if (!v || !parts) {
        free(v), free(parts);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    size_t k = 0, start = 0;
    for (size_t i = 1; i <= r->n_words; i++) {
        const pg_ocr_word *p = &r->words[i - 1];
        bool brk = i == r->n_words;
        if (!brk) {
            const pg_ocr_word *q = &r->words[i];
            int hh = p->h > q->h ? p->h : q->h;
            brk = q->line != p->line || (q->x - (p->x + p->w)) * 5 > hh * 6 || control_between(lr, p, q);
        }
        if (!brk) continue;
        size_t len = 1;
        int x0 = r->words[start].x, y0 = r->words[start].y, x1 = x0, y1 = y0;
        double cs = 0;
        for (size_t j = start; j < i; j++) {
            const pg_ocr_word *w = &r->words[j];
            len += strlen(w->text) + 1;
            x0 = w->x < x0 ? w->x : x0, y0 = w->y < y0 ? w->y : y0;
            x1 = w->x + w->w > x1 ? w->x + w->w : x1, y1 = w->y + w->h > y1 ? w->y + w->h : y1;
            cs += w->conf;
        }
        char *t = malloc(len);
        if (!t) {
            for (size_t j = 0; j < k; j++) free(v[j].text);
            free(v), free(parts);
            return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        }
        t[0] = 0;
        for (size_t j = start; j < i; j++) {
            if (j > start) strcat(t, " ");
            strcat(t, r->words[j].text);
        }
        v[k].text = t;
        v[k].box = (pg_img_rect){(uint32_t)x0, (uint32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
        v[k].conf = cs / (double)(i - start);
        k++;
        start = i;
    }
    free(parts);
    *out = v, *n = k;
    return PG_OK;
}

static void lines_free(pg_ocr_layout_line *v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i].text);
    free(v);
}

/* The image with every control's inside painted with the background. */
static pg_err masked_copy(const pg_img *img, const pg_layout_result *lr, pg_img **out, pg_error *e) {
    pg_err rc = pg_img_clone(img, out, e);
    if (rc) return rc;
    for (size_t i = 0; i < lr->n; i++) {
        const pg_layout_control *c = &lr->v[i];
        pg_img_rect b = c->box;
        if (c->kind == PG_CTL_CHECK || c->kind == PG_CTL_RADIO) { /* with its frame */
            uint32_t g = 2;
            b.x = b.x >= g ? b.x - g : 0, b.y = b.y >= g ? b.y - g : 0, b.w += 2 * g, b.h += 2 * g;
        }
        for (uint32_t y = b.y; y < b.y + b.h && y < (*out)->height; y++) {
            uint8_t *row = pg_img_row(*out, y);
            for (uint32_t x = b.x; x < b.x + b.w && x < (*out)->width; x++)
                row[4 * x] = lr->bg[0], row[4 * x + 1] = lr->bg[1], row[4 * x + 2] = lr->bg[2], row[4 * x + 3] = 255;
        }
    }
    return PG_OK;
}

/* The box of what is not the background (within 8 a channel) in img's
 * region: the page OCR reads only that (a big window is mostly empty).
 * False when there is nothing. */
static bool content_box(const pg_img *img, const pg_img_rect *region, const uint8_t bg[3], pg_img_rect *out) {
    pg_img_rect r = region ? *region : (pg_img_rect){0, 0, img->width, img->height};
    uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (uint32_t y = r.y; y < r.y + r.h; y++) {
        const uint8_t *p = pg_img_row(img, y);
        for (uint32_t x = r.x; x < r.x + r.w; x++) {
            const uint8_t *c = p + 4 * (size_t)x;
            int d0 = c[0] - bg[0], d1 = c[1] - bg[1], d2 = c[2] - bg[2];
            if (d0 > 8 || d0 < -8 || d1 > 8 || d1 < -8 || d2 > 8 || d2 < -8) {
                x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            }
        }
    }
    if (x0 == UINT32_MAX) return false;
    /* a margin, so text at the edge keeps its surroundings */
    uint32_t m = 4;
    x0 = x0 >= r.x + m ? x0 - m : r.x, y0 = y0 >= r.y + m ? y0 - m : r.y;
    x1 = x1 + m < r.x + r.w ? x1 + m : r.x + r.w - 1, y1 = y1 + m < r.y + r.h ? y1 + m : r.y + r.h - 1;
    *out = (pg_img_rect){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
    return true;
}

static pg_err read_field(pg_ocr *o, const pg_img *img, pg_img_rect r, char **text, double *conf, pg_error *e) {
    *text = NULL, *conf = 0;
    if (r.w < 4 || r.h < 4) return PG_OK;
    pg_ocr_opts fo = {.field = true};
    pg_ocr_result res = {0};
    pg_err rc = pg_ocr_run_opts(o, img, &r, &fo, &res, e);
    if (rc) return rc;
    *text = dup_str(res.text);
    *conf = res.mean_conf;
    pg_ocr_result_fini(&res);
    return *text ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
}

/* A list's rows (OCR of its inside) and its selected band's text. */
static pg_err read_list(pg_ocr *o, const pg_img *img, pg_ocr_layout_control *lc, pg_error *e) {
    pg_ocr_result res = {0};
    pg_img_rect in = shrink(lc->c.inner, 1);
    pg_err rc = pg_ocr_run(o, img, &in, &res, e);
    if (!rc) rc = runs_of(&res, NULL, &lc->rows, &lc->n_rows, e);
    pg_ocr_result_fini(&res);
    if (rc || !lc->c.band.w) return rc;
    double conf;
    rc = read_field(o, img, lc->c.band, &lc->selected_text, &conf, e);
    /* The selected row is the one whose middle lies in the band. */
    for (size_t i = 0; !rc && i < lc->n_rows; i++) {
        uint32_t mid = lc->rows[i].box.y + lc->rows[i].box.h / 2;
        if (mid >= lc->c.band.y && mid < lc->c.band.y + lc->c.band.h) {
            lc->c.selected = (int)i;
            if (lc->selected_text && !lc->selected_text[0]) {
                free(lc->selected_text);
                lc->selected_text = dup_str(lc->rows[i].text);
            }
            break;
        }
    }
    return rc;
}

pg_err pg_ocr_layout_run(pg_ocr *o, const pg_img *img, const pg_img_rect *region, pg_ocr_layout *out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_USAGE, NULL, "pg_ocr_layout_run: no result");
    memset(out, 0, sizeof *out);
    pg_layout_result lr = {0};
    pg_err rc = pg_layout_detect(img, region, &lr, e);
    if (rc) return rc;
    memcpy(out->bg, lr.bg, 3);
    pg_img *masked = NULL;
    pg_ocr_result page = {0};
    rc = masked_copy(img, &lr, &masked, e);
    pg_img_rect content;
    bool any = !rc && content_box(masked, region, lr.bg, &content);
    if (any) rc = pg_ocr_run(o, masked, &content, &page, e);
    pg_img_free(masked);
    if (!rc) rc = runs_of(&page, &lr, &out->lines, &out->n_lines, e);
    pg_ocr_result_fini(&page);
    if (!rc && lr.n) {
        out->controls = calloc(lr.n, sizeof *out->controls);
        if (!out->controls) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    pg_layout_text *tb = NULL;
    if (!rc && out->n_lines) {
        tb = calloc(out->n_lines, sizeof *tb);
        if (!tb) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        for (size_t i = 0; tb && i < out->n_lines; i++) tb[i].box = out->lines[i].box;
    }
    for (size_t i = 0; !rc && i < lr.n; i++) {
        pg_ocr_layout_control *lc = &out->controls[out->n_controls++];
        lc->c = lr.v[i];
        switch (lc->c.kind) {
        case PG_CTL_ENTRY: rc = read_field(o, img, shrink(lc->c.inner, 1), &lc->text, &lc->text_conf, e); break;
        case PG_CTL_BUTTON: rc = read_field(o, img, shrink(lc->c.inner, 2), &lc->text, &lc->text_conf, e); break;
        case PG_CTL_LIST:
        case PG_CTL_TEXTAREA: rc = read_list(o, img, lc, e); break;
        default: break;
        }
        int li = pg_layout_label(&lc->c, tb, out->n_lines, img->width);
        if (!rc && li >= 0) {
            lc->label = dup_str(out->lines[li].text);
            lc->label_box = out->lines[li].box;
            if (!lc->label) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        }
    }
    free(tb);
    pg_layout_result_fini(&lr);
    if (rc) pg_ocr_layout_fini(out);
    return rc;
}

void pg_ocr_layout_fini(pg_ocr_layout *l) {
    if (!l) return;
    for (size_t i = 0; i < l->n_controls; i++) {
        pg_ocr_layout_control *c = &l->controls[i];
        free(c->label);
        free(c->text);
        free(c->selected_text);
        lines_free(c->rows, c->n_rows);
    }
    free(l->controls);
    lines_free(l->lines, l->n_lines);
    memset(l, 0, sizeof *l);
}
