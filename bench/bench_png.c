/* SPDX-License-Identifier: MIT */
/* bench_png IMAGE.png REPS - the PNG encoder's settings side by side on one
 * image (bench/run_png.sh makes a 1080p text screen): for the old release
 * setting (level 1, SUB, Z_RLE) and zlib's default strategy at levels 1-9
 * (filter SUB, and libpng's adaptive choice of all filters at 6), the median
 * encode time of REPS runs and the size. Prints a markdown table. Never run
 * by ctest. */
#include <stdio.h>
#include <stdlib.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_time.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_png IMAGE.png REPS\n");
        return 2;
    }
    int reps = atoi(argv[2]);
    if (reps < 1 || reps > 1000) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 4;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) return 9;
    fclose(f);
    pg_img *img;
    pg_error e;
    if (pg_img_decode_png(buf, (size_t)n, NULL, &img, &e)) {
        fprintf(stderr, "bench_png: %s\n", e.message);
        return 8;
    }
    free(buf);
    struct {
        const char *name;
        pg_png_opts o;
    } cfg[] = {
        {"level 1, SUB, Z_RLE (the old release setting)", {1, PG_PNG_FILTER_SUB, true, false}},
        {"level 1, SUB, default strategy", {1, PG_PNG_FILTER_SUB, false, false}},
        {"level 2, SUB, default strategy", {2, PG_PNG_FILTER_SUB, false, false}},
        {"level 3, SUB, default strategy", {3, PG_PNG_FILTER_SUB, false, false}},
        {"level 4, SUB, default strategy", {4, PG_PNG_FILTER_SUB, false, false}},
        {"level 5, SUB, default strategy", {5, PG_PNG_FILTER_SUB, false, false}},
        {"level 6, SUB, default strategy", {6, PG_PNG_FILTER_SUB, false, false}},
        {"level 9, SUB, default strategy", {9, PG_PNG_FILTER_SUB, false, false}},
        {"level 6, all filters, default strategy (libpng's defaults)", {6, PG_PNG_FILTER_ALL, false, false}},
        {"release (pg_png_opts_release)", pg_png_opts_release()},
    };
    printf("%ux%u, %d runs each, median encode time\n\n| setting | encode ms | bytes |\n|---|---:|---:|\n",
           (unsigned)img->width, (unsigned)img->height, reps);
    double *t = malloc(sizeof *t * (size_t)reps);
    if (!t) return 9;
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        size_t len = 0;
        for (int r = 0; r < reps; r++) {
            uint8_t *png;
            int64_t t0 = pg_mono_us();
            if (pg_img_encode_png(img, &cfg[c].o, &png, &len, &e)) {
                fprintf(stderr, "bench_png: %s\n", e.message);
                return 9;
            }
            t[r] = (double)(pg_mono_us() - t0) / 1000.0;
            free(png);
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        printf("| %s | %.1f | %zu |\n", cfg[c].name, t[reps / 2], len);
    }
    free(t);
    pg_img_free(img);
    return 0;
}
