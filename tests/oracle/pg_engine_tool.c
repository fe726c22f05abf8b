/* SPDX-License-Identifier: MIT */
/* pg_engine_tool - a test-only CLI over pg_engine for the oracle tests and
 * benchmarks: reads image files, runs one engine operation, prints one JSON
 * object on stdout. Not shipped; the broker is the real user of the engine.
 *
 *   pg_engine_tool diff A B [--threshold T] [--include-aa] [--no-checkerboard]
 *                  [--metric yiq|oklab] [--window-size N]
 *                  [--region X,Y,W,H] [--mask X,Y,W,H]... [--out DIFF.png]
 *   pg_engine_tool template IMAGE TEMPLATE [--threshold T] [--all] [--region R] [--fft|--direct]
 *   pg_engine_tool grey IMAGE OUT.raw                (OpenCV-compatible grey bytes)
 *   pg_engine_tool ssim A B [REPS] [--win N]         (and its median ms)
 *   pg_engine_tool compare A B [compare options]     (pg_design_compare's JSON)
 *   pg_engine_tool time-compare A B REPS [compare options]  (median ms of the call only)
 *       options: --mode screen|widget --preset default|dark-ui --weight NAME=V
 *                --ignore X,Y,W,H --no-visuals --visuals DIR (PNG files)
 *   pg_engine_tool motion --ref F... --cand F... [--plot OUT.png]
 *   pg_engine_tool colour < LINES   (per line "lab R G B" or "de L a b L a b";
 *                                    prints the values, one line each)
 *   pg_engine_tool hash IMAGE [--region X,Y,W,H]
 *   pg_engine_tool time-diff A B REPS [diff options]  (median ms of the call only)
 *   pg_engine_tool cbrt < LINES     ("XBITS YBITS" hex per line: is cbrt(x) = y? prints the mismatches)
 *   pg_engine_tool time-template IMAGE TEMPLATE REPS
 *   pg_engine_tool time-hash IMAGE REPS
 *   pg_engine_tool time-png IMAGE REPS                (encode, fast and level 6)
 * Exit status: the pg_err of the operation (0 ok).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "pg_color.h"
#include "pg_crypto.h"
#include "pg_design.h"
#include "pg_motion.h"
#include "pg_diff.h"
#include "pg_fingerprint.h"
#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_oklab.h"
#include "pg_ssim.h"
#include "pg_template.h"

static pg_img *load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(4);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) exit(9);
    fclose(f);
    pg_img *img;
    pg_error e;
    pg_img_limits lim = pg_img_limits_default();
    lim.max_input_bytes = (size_t)512 << 20;
    if (pg_img_decode(buf, (size_t)n, &lim, &img, &e)) {
        fprintf(stderr, "%s: %s\n", path, e.message);
        exit(e.code);
    }
    free(buf);
    return img;
}

static pg_img_rect parse_rect(const char *s) {
    unsigned x, y, w, h;
    if (sscanf(s, "%u,%u,%u,%u", &x, &y, &w, &h) != 4) {
        fprintf(stderr, "bad rect %s\n", s);
        exit(2);
    }
    return (pg_img_rect){x, y, w, h};
}

static double now_ms(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int fail(const pg_error *e) {
    printf("{\"error\":\"%s\",\"message\":\"%s\"}\n", pg_err_name(e->code), e->message);
    return e->code;
}

typedef struct {
    pg_diff_opts o;
    pg_img_rect region, masks[PG_DIFF_MAX_MASKS];
    const char *out;
} diff_args;

static void parse_diff_args(int argc, char **argv, int i, diff_args *d) {
    pg_diff_opts_init(&d->o);
    d->out = NULL;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--threshold") && i + 1 < argc) d->o.threshold = atof(argv[++i]);
        else if (!strcmp(argv[i], "--include-aa")) d->o.include_aa = true;
        else if (!strcmp(argv[i], "--checkerboard")) d->o.checkerboard = true;
        else if (!strcmp(argv[i], "--no-checkerboard")) d->o.checkerboard = false;
        else if (!strcmp(argv[i], "--metric") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "yiq")) d->o.metric = PG_DIFF_YIQ;
            else if (!strcmp(argv[i], "oklab")) d->o.metric = PG_DIFF_OKLAB;
            else {
                fprintf(stderr, "unknown metric %s\n", argv[i]);
                exit(2);
            }
        } else if (!strcmp(argv[i], "--window-size") && i + 1 < argc) {
            d->o.window_size = (uint32_t)strtoul(argv[++i], NULL, 10);
        }
        else if (!strcmp(argv[i], "--region") && i + 1 < argc) {
            d->region = parse_rect(argv[++i]);
            d->o.region = &d->region;
        } else if (!strcmp(argv[i], "--mask") && i + 1 < argc && d->o.n_masks < PG_DIFF_MAX_MASKS) {
            d->masks[d->o.n_masks++] = parse_rect(argv[++i]);
            d->o.masks = d->masks;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) d->out = argv[++i];
        else {
            fprintf(stderr, "unknown diff option %s\n", argv[i]);
            exit(2);
        }
    }
}

static void write_png(const pg_img *img, const char *path) {
    uint8_t *png;
    size_t n;
    pg_png_opts o = pg_png_opts_default();
    o.keep_alpha = true;
    if (pg_img_encode_png(img, &o, &png, &n, NULL)) exit(9);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(png, 1, n, f) != n) exit(9);
    fclose(f);
    free(png);
}

static int cmd_diff(int argc, char **argv) {
    static diff_args d;
    parse_diff_args(argc, argv, 4, &d);
    pg_img *a = load(argv[2]), *b = load(argv[3]), *out = NULL;
    static pg_diff_result r;
    pg_error e;
    pg_err rc = pg_diff(a, b, &d.o, &r, d.out ? &out : NULL, &e);
    if (rc && !(rc == PG_E_ASSERT && !r.sizes_match)) return fail(&e);
    printf("{\"sizes_match\":%s,\"pixels_changed\":%llu,\"pixels_aa\":%llu,\"total_pixels\":%llu,"
           "\"changed_pct\":%.6f,\"window_size\":%u,\"max_window_changed\":%llu,\"region_count\":%llu,\"regions\":[",
           r.sizes_match ? "true" : "false", (unsigned long long)r.pixels_changed, (unsigned long long)r.pixels_aa,
           (unsigned long long)r.total_pixels, r.changed_pct, r.window_size, (unsigned long long)r.max_window_changed,
           (unsigned long long)r.region_count);
    for (size_t i = 0; i < r.regions_len; i++)
        printf("%s[%u,%u,%u,%u,%llu]", i ? "," : "", r.regions[i].box.x, r.regions[i].box.y, r.regions[i].box.w,
               r.regions[i].box.h, (unsigned long long)r.regions[i].pixels);
    printf("],\"bounds\":[%u,%u,%u,%u]}\n", r.bounds.x, r.bounds.y, r.bounds.w, r.bounds.h);
    if (out) write_png(out, d.out);
    pg_img_free(a);
    pg_img_free(b);
    pg_img_free(out);
    return rc;
}

static int cmd_time_diff(int argc, char **argv) {
    static diff_args d;
    int reps = atoi(argv[4]);
    parse_diff_args(argc, argv, 5, &d);
    pg_img *a = load(argv[2]), *b = load(argv[3]);
    double *t = malloc(sizeof *t * (size_t)reps);
    static pg_diff_result r;
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        pg_diff(a, b, &d.o, &r, NULL, NULL);
        t[i] = now_ms() - t0;
    }
    printf("{\"median_ms\":%.4f,\"pixels_changed\":%llu}\n", median(t, reps), (unsigned long long)r.pixels_changed);
    free(t);
    pg_img_free(a);
    pg_img_free(b);
    return 0;
}

static int cmd_hash(int argc, char **argv) {
    pg_img *img = load(argv[2]);
    pg_img_rect reg, *rp = NULL;
    if (argc > 4 && !strcmp(argv[3], "--region")) {
        reg = parse_rect(argv[4]);
        rp = &reg;
    }
    uint8_t d[32];
    char hex[65], dh[17];
    uint64_t h;
    pg_error e;
    if (pg_fingerprint_sha256(img, rp, d, &e) || pg_fingerprint_dhash(img, rp, &h, &e)) return fail(&e);
    pg_hex(d, 32, hex);
    pg_fingerprint_dhash_hex(h, dh);
    printf("{\"sha256\":\"%s\",\"dhash\":\"%s\",\"width\":%u,\"height\":%u}\n", hex, dh, img->width, img->height);
    pg_img_free(img);
    return 0;
}

static int cmd_time_hash(int argc, char **argv) {
    pg_img *img = load(argv[2]);
    int reps = atoi(argv[3]);
    double *ts = malloc(sizeof *ts * (size_t)reps), *td = malloc(sizeof *td * (size_t)reps);
    uint8_t d[32];
    uint64_t h = 0;
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        pg_fingerprint_sha256(img, NULL, d, NULL);
        double t1 = now_ms();
        pg_fingerprint_dhash(img, NULL, &h, NULL);
        ts[i] = t1 - t0;
        td[i] = now_ms() - t1;
    }
    printf("{\"sha256_ms\":%.4f,\"dhash_ms\":%.4f}\n", median(ts, reps), median(td, reps));
    pg_img_free(img);
    free(ts);
    free(td);
    return 0;
}

static int cmd_time_png(int argc, char **argv) {
    pg_img *img = load(argv[2]);
    int reps = atoi(argv[3]);
    double *tf = malloc(sizeof *tf * (size_t)reps), *t6 = malloc(sizeof *t6 * (size_t)reps),
           *td = malloc(sizeof *td * (size_t)reps);
    pg_png_opts slow = {6, PG_PNG_FILTER_ALL, false, false};
    size_t nf = 0, n6 = 0;
    for (int i = 0; i < reps; i++) {
        uint8_t *p;
        double t0 = now_ms();
        pg_img_encode_png(img, NULL, &p, &nf, NULL);
        double t1 = now_ms();
        pg_img *back;
        pg_img_decode_png(p, nf, NULL, &back, NULL);
        double t2 = now_ms();
        pg_img_free(back);
        free(p);
        pg_img_encode_png(img, &slow, &p, &n6, NULL);
        t6[i] = now_ms() - t2;
        free(p);
        tf[i] = t1 - t0;
        td[i] = t2 - t1;
    }
    printf("{\"encode_fast_ms\":%.3f,\"fast_bytes\":%llu,\"decode_fast_ms\":%.3f,\"encode_l6_ms\":%.3f,"
           "\"l6_bytes\":%llu}\n",
           median(tf, reps), (unsigned long long)nf, median(td, reps), median(t6, reps), (unsigned long long)n6);
    pg_img_free(img);
    free(tf);
    free(t6);
    free(td);
    return 0;
}

static void parse_tmpl_args(int argc, char **argv, int i, pg_template_opts *o, pg_img_rect *region) {
    pg_template_opts_init(o);
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--threshold") && i + 1 < argc) o->threshold = atof(argv[++i]);
        else if (!strcmp(argv[i], "--all")) o->all = true;
        else if (!strcmp(argv[i], "--fft")) o->method = PG_TEMPLATE_FFT;
        else if (!strcmp(argv[i], "--direct")) o->method = PG_TEMPLATE_DIRECT;
        else if (!strcmp(argv[i], "--region") && i + 1 < argc) {
            *region = parse_rect(argv[++i]);
            o->region = region;
        } else {
            fprintf(stderr, "unknown template option %s\n", argv[i]);
            exit(2);
        }
    }
}

static int cmd_template(int argc, char **argv) {
    pg_template_opts o;
    pg_img_rect region;
    parse_tmpl_args(argc, argv, 4, &o, &region);
    pg_img *img = load(argv[2]), *t = load(argv[3]);
    static pg_template_result r;
    pg_error e;
    if (pg_template_match(img, t, &o, &r, &e)) return fail(&e);
    printf("{\"found\":%s,\"x\":%u,\"y\":%u,\"score\":%.9f,\"verified\":%llu,\"matches\":[", r.found ? "true" : "false",
           r.best.box.x, r.best.box.y, r.best.score, (unsigned long long)r.verified);
    for (size_t i = 0; i < r.n_matches; i++)
        printf("%s[%u,%u,%.9f]", i ? "," : "", r.matches[i].box.x, r.matches[i].box.y, r.matches[i].score);
    printf("]}\n");
    pg_img_free(img);
    pg_img_free(t);
    return 0;
}

static int cmd_time_template(int argc, char **argv) {
    pg_template_opts o;
    pg_img_rect region;
    int reps = atoi(argv[4]);
    parse_tmpl_args(argc, argv, 5, &o, &region);
    pg_img *img = load(argv[2]), *t = load(argv[3]);
    double *ts = malloc(sizeof *ts * (size_t)reps), *tw = malloc(sizeof *tw * (size_t)reps);
    static pg_template_result r;
    pg_template_ws *ws;
    if (pg_template_ws_new(&ws, NULL)) return 9;
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        pg_template_match(img, t, &o, &r, NULL);
        double t1 = now_ms();
        pg_template_match_ws(ws, img, t, &o, &r, NULL);
        ts[i] = t1 - t0;
        tw[i] = now_ms() - t1;
    }
    printf("{\"median_ms\":%.3f,\"median_ws_ms\":%.3f,\"x\":%u,\"y\":%u,\"score\":%.9f}\n", median(ts, reps),
           median(tw, reps), r.best.box.x, r.best.box.y, r.best.score);
    pg_template_ws_free(ws);
    free(ts);
    free(tw);
    pg_img_free(img);
    pg_img_free(t);
    return 0;
}

static int cmd_grey(int argc, char **argv) {
    pg_img *img = load(argv[2]);
    uint8_t *g = malloc((size_t)img->width * img->height);
    pg_template_grey(img, g);
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(g, 1, (size_t)img->width * img->height, f) != (size_t)img->width * img->height) return 9;
    fclose(f);
    free(g);
    pg_img_free(img);
    return 0;
}

static int cmd_ssim(int argc, char **argv) {
    pg_img *a = load(argv[2]), *b = load(argv[3]);
    double s;
    pg_error e;
    int reps = 0;
    uint32_t win = PG_SSIM_WIN;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--win") && i + 1 < argc) win = (uint32_t)atoi(argv[++i]);
        else reps = atoi(argv[i]);
    }
    if (pg_ssim_win(a, b, NULL, win, &s, &e)) return fail(&e);
    double *t = malloc(sizeof *t * (size_t)(reps > 0 ? reps : 1));
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        pg_ssim_win(a, b, NULL, win, &s, NULL);
        t[i] = now_ms() - t0;
    }
    printf("{\"ssim\":%.12f,\"median_ms\":%.3f}\n", s, reps > 0 ? median(t, reps) : 0.0);
    free(t);
    pg_img_free(a);
    pg_img_free(b);
    return 0;
}

/* The engine's cube root against bit patterns produced by another one
 * (node's Math.cbrt in the oracle test). */
static int cmd_cbrt(void) {
    char xs[32], ys[32];
    unsigned long long n = 0, bad = 0;
    while (scanf("%31s %31s", xs, ys) == 2) {
        uint64_t xb = strtoull(xs, NULL, 16), yb = strtoull(ys, NULL, 16), got;
        double x;
        memcpy(&x, &xb, 8);
        double y = pg_oklab_cbrt(x);
        memcpy(&got, &y, 8);
        n++;
        if (got != yb && bad++ < 5)
            fprintf(stderr, "cbrt(%a): %a, expected bits %016llx\n", x, y, (unsigned long long)yb);
    }
    printf("{\"values\":%llu,\"mismatches\":%llu}\n", n, bad);
    return bad ? 1 : 0;
}

typedef struct {
    pg_design_opts o;
    const char *visuals_dir;
} compare_args;

static void parse_compare_args(int argc, char **argv, int i, compare_args *c) {
    pg_design_opts_init(&c->o);
    c->visuals_dir = NULL;
    pg_error e;
    for (; i < argc; i++) {
        int bad = 0;
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) bad = pg_design_mode_parse(argv[++i], &c->o.mode, &e) != PG_OK;
        else if (!strcmp(argv[i], "--preset") && i + 1 < argc)
            bad = pg_design_preset_parse(argv[++i], &c->o.preset, &e) != PG_OK;
        else if (!strcmp(argv[i], "--weight") && i + 1 < argc) {
            char name[32];
            double v;
            bad = sscanf(argv[++i], "%31[a-z]=%lf", name, &v) != 2 || pg_design_set_weight(&c->o, name, v, &e);
        } else if (!strcmp(argv[i], "--ignore") && i + 1 < argc && c->o.n_ignore < PG_DESIGN_MAX_IGNORE)
            c->o.ignore[c->o.n_ignore++] = parse_rect(argv[++i]);
        else if (!strcmp(argv[i], "--no-visuals")) c->o.visuals = false;
        else if (!strcmp(argv[i], "--visuals") && i + 1 < argc) c->visuals_dir = argv[++i];
        else bad = 1;
        if (bad) {
            fprintf(stderr, "bad compare option %s\n", argv[i]);
            exit(2);
        }
    }
}

static void save_visual(const char *dir, const char *name, const pg_img *img) {
    if (!img) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    write_png(img, path);
}

static int cmd_compare(int argc, char **argv) {
    static compare_args c;
    parse_compare_args(argc, argv, 4, &c);
    pg_img *a = load(argv[2]), *b = load(argv[3]);
    pg_design_result *r;
    cJSON *j;
    pg_error e;
    if (pg_design_compare(a, b, &c.o, &r, &e) || pg_design_result_json(r, &j, &e)) return fail(&e);
    char *text = cJSON_PrintUnformatted(j);
    puts(text);
    if (c.visuals_dir) {
        save_visual(c.visuals_dir, "overlay", r->overlay);
        save_visual(c.visuals_dir, "heatmap", r->heatmap);
        save_visual(c.visuals_dir, "regions", r->regions);
        save_visual(c.visuals_dir, "side_by_side", r->side_by_side);
    }
    free(text);
    cJSON_Delete(j);
    pg_design_result_free(r);
    pg_img_free(a);
    pg_img_free(b);
    return 0;
}

static int cmd_time_compare(int argc, char **argv) {
    static compare_args c;
    int reps = atoi(argv[4]);
    parse_compare_args(argc, argv, 5, &c);
    pg_img *a = load(argv[2]), *b = load(argv[3]);
    double *t = malloc(sizeof *t * (size_t)(reps > 0 ? reps : 1)), overall = 0;
    for (int i = 0; i < reps; i++) {
        pg_design_result *r;
        double t0 = now_ms();
        pg_err rc = pg_design_compare(a, b, &c.o, &r, NULL);
        t[i] = now_ms() - t0;
        if (rc) return rc;
        overall = r->overall;
        pg_design_result_free(r);
    }
    printf("{\"median_ms\":%.3f,\"overall\":%.2f}\n", median(t, reps), overall);
    free(t);
    pg_img_free(a);
    pg_img_free(b);
    return 0;
}

static int cmd_motion(int argc, char **argv) {
    static const pg_img *ref[PG_MOTION_MAX_FRAMES], *cand[PG_MOTION_MAX_FRAMES];
    static pg_motion_result r;
    size_t nr = 0, nc = 0;
    int side = 0;
    const char *plot = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--ref")) side = 1;
        else if (!strcmp(argv[i], "--cand")) side = 2;
        else if (!strcmp(argv[i], "--plot") && i + 1 < argc) plot = argv[++i];
        else if (side == 1 && nr < PG_MOTION_MAX_FRAMES) ref[nr++] = load(argv[i]);
        else if (side == 2 && nc < PG_MOTION_MAX_FRAMES) cand[nc++] = load(argv[i]);
        else return 2;
    }
    pg_error e;
    cJSON *j;
    if (pg_motion_compare(ref, nr, cand, nc, &r, &e) || pg_motion_result_json(&r, &j, &e)) return fail(&e);
    char *text = cJSON_PrintUnformatted(j);
    puts(text);
    free(text);
    cJSON_Delete(j);
    if (plot) {
        pg_img *p;
        if (pg_motion_plot(&r, &p, &e)) return fail(&e);
        write_png(p, plot);
        pg_img_free(p);
    }
    for (size_t i = 0; i < nr; i++) pg_img_free((pg_img *)ref[i]);
    for (size_t i = 0; i < nc; i++) pg_img_free((pg_img *)cand[i]);
    return 0;
}

static int cmd_colour(void) {
    pg_color_ctx c;
    pg_color_ctx_init(&c);
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        unsigned r, g, b;
        pg_lab x, y;
        if (sscanf(line, "lab %u %u %u", &r, &g, &b) == 3) {
            pg_lab l = pg_color_lab(&c, (uint8_t)r, (uint8_t)g, (uint8_t)b);
            printf("%.12f %.12f %.12f\n", l.L, l.a, l.b);
        } else if (sscanf(line, "de %lf %lf %lf %lf %lf %lf", &x.L, &x.a, &x.b, &y.L, &y.a, &y.b) == 6) {
            printf("%.12f\n", pg_color_de2000(&x, &y));
        } else {
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "ssim")) return cmd_ssim(argc, argv);
    if (argc >= 4 && !strcmp(argv[1], "compare")) return cmd_compare(argc, argv);
    if (argc >= 5 && !strcmp(argv[1], "time-compare")) return cmd_time_compare(argc, argv);
    if (argc >= 6 && !strcmp(argv[1], "motion")) return cmd_motion(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "colour")) return cmd_colour();
    if (argc >= 4 && !strcmp(argv[1], "template")) return cmd_template(argc, argv);
    if (argc >= 5 && !strcmp(argv[1], "time-template")) return cmd_time_template(argc, argv);
    if (argc >= 4 && !strcmp(argv[1], "grey")) return cmd_grey(argc, argv);
    if (argc >= 4 && !strcmp(argv[1], "diff")) return cmd_diff(argc, argv);
    if (argc >= 5 && !strcmp(argv[1], "time-diff")) return cmd_time_diff(argc, argv);
    if (argc >= 3 && !strcmp(argv[1], "hash")) return cmd_hash(argc, argv);
    if (argc == 2 && !strcmp(argv[1], "cbrt")) return cmd_cbrt();
    if (argc >= 4 && !strcmp(argv[1], "time-hash")) return cmd_time_hash(argc, argv);
    if (argc >= 4 && !strcmp(argv[1], "time-png")) return cmd_time_png(argc, argv);
    fprintf(stderr, "usage: see the comment at the top of pg_engine_tool.c\n");
    return 2;
}
