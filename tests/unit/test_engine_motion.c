/* SPDX-License-Identifier: MIT */
/* pg_motion: signatures are the mean grey change per frame pair, a moving
 * series against a static one scores 0 with no correlation, the same
 * animation at another phase scores high, steady motion has no correlation,
 * bad series are refused, and plot and JSON are deterministic. */
#include <cJSON.h>
#include <math.h>

#include "pg_motion.h"
#include "pg_test.h"
#include "test_engine_util.h"

#define N 24

/* A 16x16 square moving on a 96x64 canvas; speed follows a pulse, so the
 * signature has a temporal profile; phase shifts the pulse. */
static void animate(pg_img **f, int n, int phase, int still) {
    int x = 4;
    for (int i = 0; i < n; i++) {
        if (pg_img_new(&f[i], 96, 64, NULL)) return;
        tu_fill(f[i], 240, 240, 240, 255);
        tu_rect(f[i], (uint32_t)x, 24, 16, 16, 30, 90, 200);
        int speed = ((i + phase) % 6) < 3 ? 1 : 4;
        if (!still) x = (x + speed) % 72;
    }
}

static void free_frames(pg_img **f, int n) {
    for (int i = 0; i < n; i++) pg_img_free(f[i]);
}

PG_TEST(alternating_black_and_white_frames_change_by_one) {
    pg_img *f[3];
    for (int i = 0; i < 3; i++) {
        REQUIRE(pg_img_new(&f[i], 5, 3, NULL) == PG_OK);
        tu_fill(f[i], i % 2 ? 255 : 0, i % 2 ? 255 : 0, i % 2 ? 255 : 0, 255);
    }
    double sig[2];
    REQUIRE(pg_motion_signature((const pg_img *const *)f, 3, sig, NULL) == PG_OK);
    CHECK(sig[0] == 1.0 && sig[1] == 1.0);
    /* one of 15 pixels going 0 -> 51 (grey 51): 51 / (255 * 15) */
    tu_set(f[1], 2, 1, 51, 51, 51, 255);
    tu_fill(f[0], 0, 0, 0, 255);
    tu_fill(f[1], 0, 0, 0, 255);
    tu_set(f[1], 2, 1, 51, 51, 51, 255);
    REQUIRE(pg_motion_signature((const pg_img *const *)f, 2, sig, NULL) == PG_OK);
    CHECK(fabs(sig[0] - 51.0 / (255.0 * 15)) < 1e-15);
    free_frames(f, 3);
}

PG_TEST(moving_against_static_scores_zero_and_has_no_correlation) {
    pg_img *a[N], *b[N];
    animate(a, N, 0, 0);
    animate(b, N, 0, 1);
    static pg_motion_result r;
    REQUIRE(pg_motion_compare((const pg_img *const *)a, N, (const pg_img *const *)b, N, &r, NULL) == PG_OK);
    CHECK(r.ref_moving && !r.cand_moving && r.cand_energy == 0);
    CHECK(r.motion_score == 0 && r.energy_ratio == 0);
    CHECK(!r.corr_defined && r.note[0]);
    free_frames(a, N), free_frames(b, N);
}

PG_TEST(the_same_animation_at_another_phase_scores_high) {
    pg_img *a[N], *b[N];
    animate(a, N, 0, 0);
    animate(b, N, 3, 0);
    static pg_motion_result same, shifted;
    REQUIRE(pg_motion_compare((const pg_img *const *)a, N, (const pg_img *const *)a, N, &same, NULL) == PG_OK);
    CHECK(same.motion_score == 100 && same.corr_defined && fabs(same.temporal_corr - 1) < 1e-12);
    REQUIRE(pg_motion_compare((const pg_img *const *)a, N, (const pg_img *const *)b, N, &shifted, NULL) == PG_OK);
    CHECK(shifted.ref_moving && shifted.cand_moving && shifted.motion_score > 80);
    CHECK(shifted.corr_defined && shifted.temporal_corr < 0); /* half a period apart: anti-correlated */
    free_frames(a, N), free_frames(b, N);
}

PG_TEST(both_static_agree_and_steady_motion_has_no_correlation) {
    pg_img *a[N], *b[N];
    animate(a, N, 0, 1);
    animate(b, N, 0, 1);
    static pg_motion_result r;
    REQUIRE(pg_motion_compare((const pg_img *const *)a, N, (const pg_img *const *)b, N, &r, NULL) == PG_OK);
    CHECK(r.motion_score == 100 && !r.corr_defined && r.energy_ratio == 1);
    free_frames(a, N), free_frames(b, N);
    /* constant speed: every frame pair changes the same amount */
    for (int i = 0; i < N; i++) {
        REQUIRE(pg_img_new(&a[i], 64, 8, NULL) == PG_OK);
        tu_fill(a[i], 0, 0, 0, 255);
        tu_rect(a[i], (uint32_t)(2 * i), 0, 8, 8, 255, 255, 255);
    }
    REQUIRE(pg_motion_compare((const pg_img *const *)a, N, (const pg_img *const *)a, N, &r, NULL) == PG_OK);
    CHECK(r.ref_moving && r.motion_score == 100 && !r.corr_defined);
    free_frames(a, N);
}

PG_TEST(short_and_mixed_size_series_are_refused) {
    pg_img *f[2];
    REQUIRE(pg_img_new(&f[0], 8, 8, NULL) == PG_OK && pg_img_new(&f[1], 8, 9, NULL) == PG_OK);
    double sig[1];
    pg_error e;
    CHECK_EQ_INT(pg_motion_signature((const pg_img *const *)f, 1, sig, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_motion_signature((const pg_img *const *)f, 2, sig, &e), PG_E_BADINPUT);
    free_frames(f, 2);
}

PG_TEST(plot_and_json_are_deterministic) {
    pg_img *a[N], *b[N];
    animate(a, N, 0, 0);
    animate(b, N, 2, 0);
    static pg_motion_result r;
    REQUIRE(pg_motion_compare((const pg_img *const *)a, N, (const pg_img *const *)b, 12, &r, NULL) == PG_OK);
    CHECK_EQ_INT(r.corr_len, 11);
    pg_img *p1, *p2;
    REQUIRE(pg_motion_plot(&r, &p1, NULL) == PG_OK && pg_motion_plot(&r, &p2, NULL) == PG_OK);
    CHECK(p1->width == PG_MOTION_PLOT_W && p1->height == PG_MOTION_PLOT_H && tu_same_pixels(p1, p2));
    cJSON *j1, *j2;
    REQUIRE(pg_motion_result_json(&r, &j1, NULL) == PG_OK && pg_motion_result_json(&r, &j2, NULL) == PG_OK);
    char *t1 = cJSON_PrintUnformatted(j1), *t2 = cJSON_PrintUnformatted(j2);
    CHECK_STR(t1, t2);
    CHECK(strstr(t1, "\"static_threshold\":0.0008") != NULL);
    cJSON *sig = cJSON_GetObjectItem(j1, "cand_signature");
    CHECK(sig && cJSON_GetArraySize(sig) == 11);
    free(t1), free(t2);
    cJSON_Delete(j1), cJSON_Delete(j2);
    pg_img_free(p1), pg_img_free(p2);
    free_frames(a, N), free_frames(b, N);
}
