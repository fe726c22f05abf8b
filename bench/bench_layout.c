/* SPDX-License-Identifier: MIT */
/* bench_layout - scores layout detection and field OCR on the labelled set
 * bench/ocr_testset.sh makes (PNG captures of tests/apps/pg_form.tcl and
 * tests/apps/pg_form_gtk.py, each with the JSON truth the app wrote), and
 * times them. Run by hand or by bench/ocr_testset.sh; a bounded subset runs
 * in ctest through tests/integration/ocr_testset.sh.
 *
 *   bench_layout score LANG PNG...   one JSON line per split, then a total
 *   bench_layout time LANG PNG N     median ms of N layout+OCR runs
 * The truth of X.png is X.json. Splits come from the file name: a name
 * containing "heldout" is held out, "gtk" is the GTK form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "pg_img_codec.h"
#include "pg_layout.h"
#include "pg_ocr.h"
#include "pg_ocr_layout.h"
#include "pg_time.h"

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) free(b), b = NULL;
    fclose(f);
    if (b) b[len] = 0, *n = (size_t)len;
    return b;
}

/* Levenshtein distance in code points. */
static size_t cps(const char *s, uint32_t *out, size_t cap) {
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && n < cap) {
        uint32_t c = *p;
        int k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
        c = k == 1 ? c : k == 2 ? (c & 0x1F) : k == 3 ? (c & 0x0F) : (c & 0x07);
        for (int i = 1; i < k && p[i]; i++) c = (c << 6) | (p[i] & 0x3F);
        out[n++] = c;
        p += k;
    }
    return n;
}

static size_t lev(const char *a, const char *b, size_t *alen) {
    uint32_t x[512], y[512];
    size_t n = cps(a, x, 512), m = cps(b, y, 512);
    *alen = n;
    size_t d[513];
    for (size_t j = 0; j <= m; j++) d[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t prev = d[0];
        d[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t t = d[j];
            size_t v = prev + (x[i - 1] != y[j - 1]);
            if (d[j] + 1 < v) v = d[j] + 1;
            if (d[j - 1] + 1 < v) v = d[j - 1] + 1;
            d[j] = v;
            prev = t;
        }
    }
    return d[m];
}

typedef struct {
    double chars, errs_before, errs_after; /* field OCR: truth characters, edits */
    double chars12, errs12_before, errs12_after;
    unsigned tp[PG_CTL_KINDS], fn[PG_CTL_KINDS], fp[PG_CTL_KINDS];
    unsigned states, states_ok, rows, rows_ok, labels, labels_ok, sliders, sliders_ok;
    unsigned images;
    double ms;
} score;

static int kind_of(const char *k) {
    if (!strcmp(k, "list")) return PG_CTL_LIST;
    return pg_ctl_kind_parse(k);
}

static pg_img_rect jrect(const cJSON *o) {
    return (pg_img_rect){(uint32_t)cJSON_GetObjectItem(o, "x")->valueint, (uint32_t)cJSON_GetObjectItem(o, "y")->valueint,
                         (uint32_t)cJSON_GetObjectItem(o, "w")->valueint, (uint32_t)cJSON_GetObjectItem(o, "h")->valueint};
}

static bool centre_in(const pg_img_rect *a, const pg_img_rect *b) {
    uint32_t cx = a->x + a->w / 2, cy = a->y + a->h / 2;
    return cx >= b->x && cx < b->x + b->w && cy >= b->y && cy < b->y + b->h;
}

/* Field OCR of one truth box: the old whole-region path vs field mode. */
static void field_ocr(pg_ocr *o, const pg_img *img, pg_img_rect r, const char *truth, int px, score *s) {
    if (!truth[0]) return;
    /* Inside the frame: 2 px in, as a caller that knows the entry would read it. */
    if (r.w > 6 && r.h > 6) r.x += 2, r.y += 2, r.w -= 4, r.h -= 4;
    if (r.x + r.w > img->width || r.y + r.h > img->height) return;
    pg_ocr_result a = {0}, b = {0};
    pg_error e;
    pg_ocr_opts before = {0}, after = {.field = true};
    size_t n = 0;
    if (pg_ocr_run_opts(o, img, &r, &before, &a, &e) == PG_OK && pg_ocr_run_opts(o, img, &r, &after, &b, &e) == PG_OK) {
        size_t eb = lev(truth, a.text, &n), ea = lev(truth, b.text, &n);
        s->chars += (double)n, s->errs_before += (double)eb, s->errs_after += (double)ea;
        if (px >= 12) s->chars12 += (double)n, s->errs12_before += (double)eb, s->errs12_after += (double)ea;
        if (getenv("BENCH_VERBOSE") && ea) fprintf(stderr, "  field '%s' -> before '%s' after '%s'\n", truth, a.text, b.text);
    }
    pg_ocr_result_fini(&a);
    pg_ocr_result_fini(&b);
}

static void score_image(pg_ocr *o, const char *png, score *s) {
    char jpath[1024];
    snprintf(jpath, sizeof jpath, "%.*s.json", (int)(strlen(png) - 4), png);
    size_t n, jn;
    char *buf = slurp(png, &n), *js = slurp(jpath, &jn);
    cJSON *t = js ? cJSON_Parse(js) : NULL;
    pg_img *img = NULL;
    pg_error e;
    pg_img_limits lim = pg_img_limits_default();
    if (!buf || !t || pg_img_decode((uint8_t *)buf, n, &lim, &img, &e)) {
        fprintf(stderr, "bench_layout: cannot read %s or its truth\n", png);
        exit(2);
    }
    int px = cJSON_GetObjectItem(t, "px")->valueint;
    pg_ocr_layout lay;
    double t0 = pg_mono_ms();
    if (pg_ocr_layout_run(o, img, NULL, &lay, &e)) {
        fprintf(stderr, "bench_layout: %s: %s\n", png, e.message);
        exit(2);
    }
    s->ms += pg_mono_ms() - t0;
    s->images++;
    bool *hit = calloc(lay.n_controls + 1, sizeof *hit);
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(t, "widgets")) {
        const char *k = cJSON_GetObjectItem(w, "kind")->valuestring;
        pg_img_rect box = jrect(w);
        if (!strcmp(k, "entry") || !strcmp(k, "label") || !strcmp(k, "button")) {
            const cJSON *v = cJSON_GetObjectItem(w, !strcmp(k, "entry") ? "value" : "text");
            field_ocr(o, img, box, v->valuestring, px, s);
        }
        int kind = kind_of(k);
        if (kind < 0) continue;
        /* Matching: a detection of the kind whose centre is inside the truth box. */
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < lay.n_controls && best == SIZE_MAX; i++) {
            const pg_layout_control *c = &lay.controls[i].c;
            bool same = (int)c->kind == kind || (kind == PG_CTL_LIST && c->kind == PG_CTL_TEXTAREA);
            if (!hit[i] && same && centre_in(&c->box, &box)) best = i;
        }
        if (best == SIZE_MAX) {
            s->fn[kind]++;
            if (getenv("BENCH_VERBOSE")) fprintf(stderr, "  missed %s at %u,%u %ux%u\n", k, box.x, box.y, box.w, box.h);
            continue;
        }
        hit[best] = true;
        s->tp[kind]++;
        const pg_ocr_layout_control *d = &lay.controls[best];
        if (kind == PG_CTL_CHECK || kind == PG_CTL_RADIO) {
            s->states++;
            bool on = cJSON_IsTrue(cJSON_GetObjectItem(w, "checked"));
            s->states_ok += on == d->c.on;
            s->labels++;
            const char *lt = cJSON_GetObjectItem(w, "text")->valuestring;
            s->labels_ok += d->label && !strcmp(d->label, lt);
            if (getenv("BENCH_VERBOSE") && !(d->label && !strcmp(d->label, lt)))
                fprintf(stderr, "  label of %s '%s' read '%s'\n", k, lt, d->label ? d->label : "(none)");
            if (getenv("BENCH_VERBOSE") && on != d->c.on) fprintf(stderr, "  state of %s '%s' wrong\n", k, lt);
        } else if (kind == PG_CTL_ENTRY || kind == PG_CTL_LIST) {
            s->labels++;
            const char *lt = cJSON_GetObjectItem(w, "label")->valuestring;
            s->labels_ok += d->label && !strcmp(d->label, lt);
        }
        if (kind == PG_CTL_LIST) {
            s->rows++;
            const char *st = cJSON_GetObjectItem(w, "selected_text")->valuestring;
            s->rows_ok += d->selected_text && !strcmp(d->selected_text, st);
            if (getenv("BENCH_VERBOSE")) fprintf(stderr, "  selected row '%s' read '%s'\n", st, d->selected_text ? d->selected_text : "(none)");
        }
        if (kind == PG_CTL_SLIDER) {
            s->sliders++;
            double f = cJSON_GetObjectItem(w, "fraction")->valuedouble;
            s->sliders_ok += d->c.first - f < 0.05 && f - d->c.first < 0.05;
        }
    }
    for (size_t i = 0; i < lay.n_controls; i++)
        if (!hit[i]) {
            s->fp[lay.controls[i].c.kind]++;
            if (getenv("BENCH_VERBOSE"))
                fprintf(stderr, "  extra %s at %u,%u %ux%u\n", pg_ctl_kind_name(lay.controls[i].c.kind),
                        lay.controls[i].c.box.x, lay.controls[i].c.box.y, lay.controls[i].c.box.w, lay.controls[i].c.box.h);
        }
    free(hit);
    pg_ocr_layout_fini(&lay);
    pg_img_free(img);
    cJSON_Delete(t);
    free(buf);
    free(js);
}

static void print_score(const char *split, const score *s) {
    printf("{\"split\":\"%s\",\"images\":%u,\"field_chars\":%.0f,\"char_acc_before\":%.4f,\"char_acc_after\":%.4f,"
           "\"char_acc_12px_before\":%.4f,\"char_acc_12px_after\":%.4f",
           split, s->images, s->chars, s->chars ? 1 - s->errs_before / s->chars : 0,
           s->chars ? 1 - s->errs_after / s->chars : 0, s->chars12 ? 1 - s->errs12_before / s->chars12 : 0,
           s->chars12 ? 1 - s->errs12_after / s->chars12 : 0);
    for (int k = 0; k < PG_CTL_KINDS; k++) {
        unsigned tp = s->tp[k], fn = s->fn[k], fp = s->fp[k];
        if (!tp && !fn && !fp) continue;
        printf(",\"%s\":{\"recall\":%.3f,\"precision\":%.3f,\"truth\":%u}", pg_ctl_kind_name(k),
               tp + fn ? (double)tp / (tp + fn) : 0, tp + fp ? (double)tp / (tp + fp) : 0, tp + fn);
    }
    printf(",\"state_acc\":%.4f,\"states\":%u,\"label_acc\":%.3f,\"selected_row_acc\":%.3f,\"slider_acc\":%.3f,"
           "\"ms_per_image\":%.0f}\n",
           s->states ? (double)s->states_ok / s->states : 0, s->states, s->labels ? (double)s->labels_ok / s->labels : 0,
           s->rows ? (double)s->rows_ok / s->rows : 0, s->sliders ? (double)s->sliders_ok / s->sliders : 0,
           s->images ? s->ms / s->images : 0);
}

static void add(score *a, const score *b) {
    a->chars += b->chars, a->errs_before += b->errs_before, a->errs_after += b->errs_after;
    a->chars12 += b->chars12, a->errs12_before += b->errs12_before, a->errs12_after += b->errs12_after;
    for (int k = 0; k < PG_CTL_KINDS; k++) a->tp[k] += b->tp[k], a->fn[k] += b->fn[k], a->fp[k] += b->fp[k];
    a->states += b->states, a->states_ok += b->states_ok, a->rows += b->rows, a->rows_ok += b->rows_ok;
    a->labels += b->labels, a->labels_ok += b->labels_ok, a->sliders += b->sliders, a->sliders_ok += b->sliders_ok;
    a->images += b->images, a->ms += b->ms;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 4 || (strcmp(argv[1], "score") && strcmp(argv[1], "time") && strcmp(argv[1], "ocr"))) {
        fprintf(stderr, "usage: bench_layout score LANG PNG... | time LANG PNG N | ocr LANG PNG N\n");
        return 2;
    }
    pg_error e;
    if (pg_ocr_ensure_single_thread(argv, &e)) return fprintf(stderr, "%s\n", e.message), 2;
    pg_ocr *o;
    if (pg_ocr_new(&o, argv[2], NULL, &e)) return fprintf(stderr, "%s\n", e.message), 2;
    if (!strcmp(argv[1], "ocr")) { /* the window's OCR as pixelgate ocr runs it: median ms and the text */
        int n = argc > 4 ? atoi(argv[4]) : 5;
        n = n < 1 ? 1 : n > 100 ? 100 : n;
        size_t len;
        char *buf = slurp(argv[3], &len);
        pg_img *img = NULL;
        pg_img_limits lim = pg_img_limits_default();
        if (!buf || pg_img_decode((uint8_t *)buf, len, &lim, &img, &e)) return fprintf(stderr, "cannot read %s\n", argv[3]), 2;
        double ms[100];
        pg_ocr_result r = {0};
        for (int i = 0; i < n; i++) {
            pg_ocr_result_fini(&r);
            double t0 = pg_mono_ms();
            if (pg_ocr_run(o, img, NULL, &r, &e)) return fprintf(stderr, "%s\n", e.message), 2;
            ms[i] = pg_mono_ms() - t0;
        }
        qsort(ms, (size_t)n, sizeof *ms, cmp_d);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "median_ms", ms[n / 2]);
        cJSON_AddStringToObject(j, "text", r.text);
        char *txt = cJSON_PrintUnformatted(j);
        puts(txt);
        free(txt);
        cJSON_Delete(j);
        pg_ocr_result_fini(&r);
        pg_img_free(img);
        free(buf);
        pg_ocr_free(o);
        return 0;
    }
    if (!strcmp(argv[1], "time")) {
        int n = argc > 4 ? atoi(argv[4]) : 10;
        double ms[100];
        n = n < 1 ? 1 : n > 100 ? 100 : n;
        size_t len;
        char *buf = slurp(argv[3], &len);
        pg_img *img = NULL;
        pg_img_limits lim = pg_img_limits_default();
        if (!buf || pg_img_decode((uint8_t *)buf, len, &lim, &img, &e)) return fprintf(stderr, "cannot read %s\n", argv[3]), 2;
        for (int i = 0; i < n; i++) {
            pg_ocr_layout lay;
            double t0 = pg_mono_ms();
            if (pg_ocr_layout_run(o, img, NULL, &lay, &e)) return fprintf(stderr, "%s\n", e.message), 2;
            ms[i] = pg_mono_ms() - t0;
            if (i == 0) printf("{\"controls\":%zu,\"lines\":%zu,", lay.n_controls, lay.n_lines);
            pg_ocr_layout_fini(&lay);
        }
        qsort(ms, (size_t)n, sizeof *ms, cmp_d);
        printf("\"image\":\"%ux%u\",\"runs\":%d,\"median_ms\":%.1f,\"min_ms\":%.1f}\n", img->width, img->height, n,
               ms[n / 2], ms[0]);
        pg_img_free(img);
        free(buf);
        pg_ocr_free(o);
        return 0;
    }
    score tune = {0}, held = {0}, gtk = {0}, all = {0};
    for (int i = 3; i < argc; i++) {
        score s = {0};
        if (getenv("BENCH_VERBOSE")) fprintf(stderr, "%s\n", argv[i]);
        score_image(o, argv[i], &s);
        add(strstr(argv[i], "gtk") ? &gtk : strstr(argv[i], "heldout") ? &held : &tune, &s);
        add(&all, &s);
    }
    if (tune.images) print_score("tuning", &tune);
    if (held.images) print_score("heldout", &held);
    if (gtk.images) print_score("gtk", &gtk);
    print_score("all", &all);
    pg_ocr_free(o);
    return 0;
}
