/* SPDX-License-Identifier: MIT */
/* design_xcheck - prints, for a fixed set of generated comparisons and one
 * motion pair, the JSON, the raw scores in hexadecimal floating point and a
 * checksum of every diagnostic image. Built against the gcc, clang and
 * mingw-w64 engines by bench/run_design_xcheck.sh, whose outputs must be
 * byte-identical: the engine's cross-build determinism claim, checked. */
#include <cJSON.h>
#include <stdio.h>

#include "pg_design.h"
#include "pg_motion.h"
#include "test_engine_ui.h"

static uint64_t fnv(const pg_img *img) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t y = 0; img && y < img->height; y++) {
        const uint8_t *p = pg_img_row(img, y);
        for (size_t i = 0; i < 4 * (size_t)img->width; i++) h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

static void print_json(cJSON *j) {
    char *t = cJSON_PrintUnformatted(j);
    puts(t ? t : "JSON FAILED");
    free(t);
    cJSON_Delete(j);
}

static void compare(const pg_img *a, const pg_img *b, int widget) {
    pg_design_opts o;
    pg_design_opts_init(&o);
    o.mode = widget ? PG_DESIGN_WIDGET : PG_DESIGN_SCREEN;
    pg_design_result *r;
    cJSON *j;
    if (pg_design_compare(a, b, &o, &r, NULL) || pg_design_result_json(r, &j, NULL)) {
        puts("COMPARE FAILED");
        return;
    }
    print_json(j);
    printf("raw %a %a %a %a %a %a\n", r->overall, r->dim[0].score, r->dim[1].score, r->dim[2].score, r->dim[3].score,
           r->dim[4].score);
    printf("images %016llx %016llx %016llx %016llx\n", (unsigned long long)fnv(r->overlay),
           (unsigned long long)fnv(r->heatmap), (unsigned long long)fnv(r->regions),
           (unsigned long long)fnv(r->side_by_side));
    pg_design_result_free(r);
}

static void motion(void) {
    enum { N = 20 };
    pg_img *fa[N], *fb[N];
    for (int i = 0; i < N; i++) {
        if (pg_img_new(&fa[i], 80, 40, NULL) || pg_img_new(&fb[i], 80, 40, NULL)) return;
        tu_fill(fa[i], 250, 250, 250, 255);
        tu_fill(fb[i], 250, 250, 250, 255);
        tu_rect(fa[i], (uint32_t)(i * 3 % 60), 10, 12, 12, 20, 20, 200);
        tu_rect(fb[i], (uint32_t)(i * i % 60), 12, 10, 10, 200, 20, 20);
    }
    static pg_motion_result m;
    cJSON *j;
    pg_img *plot;
    if (pg_motion_compare((const pg_img *const *)fa, N, (const pg_img *const *)fb, N, &m, NULL) ||
        pg_motion_result_json(&m, &j, NULL) || pg_motion_plot(&m, &plot, NULL)) {
        puts("MOTION FAILED");
        return;
    }
    print_json(j);
    printf("raw %a %a plot %016llx\n", m.temporal_corr, m.motion_score, (unsigned long long)fnv(plot));
    pg_img_free(plot);
    for (int i = 0; i < N; i++) pg_img_free(fa[i]), pg_img_free(fb[i]);
}

int main(void) {
    ui_spec s;
    ui_default(&s);
    pg_img *ref = ui_new(&s);
    for (int v = 0; ref && v < 12; v++) {
        ui_spec q = s;
        switch (v % 6) {
        case 1: q.glyph = 3; break;
        case 2: q.hide = UI_CTA | UI_CARD3; break;
        case 3: q.shift_cta = 30, q.accent[0] = 200; break;
        case 4: q.h = 700, q.header[1] = 90; break;
        case 5: q.w = 1000, q.glyph = 4; break;
        default: break;
        }
        pg_img *c = ui_new(&q);
        if (!c) return 1;
        if (v >= 6) ui_blur(c, v - 5);
        compare(ref, c, v % 2);
        pg_img_free(c);
    }
    motion();
    pg_img_free(ref);
    return 0;
}
