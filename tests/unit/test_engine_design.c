/* SPDX-License-Identifier: MIT */
/* pg_design: the comparison on generated UI screens. Identity scores 100;
 * each degradation, step by step, lowers the dimension it hurts (blur ->
 * layout, recolour -> color, removed element -> content, shifted block ->
 * spacing, larger font -> typography); the geometric mean cannot be gamed
 * by a perfect dimension; the output is byte-identical run after run;
 * presets, weights, null dimensions, registration, aspect, ignore areas and
 * scaling behave as pg_design.h says. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>

#include "pg_design.h"
#include "pg_test.h"
#include "test_engine_ui.h"

static pg_design_result *compare_opts(const pg_img *a, const pg_img *b, const pg_design_opts *o) {
    pg_design_result *r = NULL;
    pg_error e;
    if (pg_design_compare(a, b, o, &r, &e)) fprintf(stderr, "compare: %s\n", e.message);
    return r;
}

static pg_design_result *compare(const pg_img *a, const pg_img *b) {
    pg_design_opts o;
    pg_design_opts_init(&o);
    return compare_opts(a, b, &o);
}

static double dim(const pg_design_result *r, pg_design_dim_id d) { return r->dim[d].scored ? r->dim[d].score : -1; }

static char *json_text(const pg_design_result *r) {
    cJSON *j;
    if (pg_design_result_json(r, &j, NULL)) return NULL;
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return t;
}

static const pg_design_finding *find(const pg_design_result *r, const char *type) {
    for (size_t i = 0; i < r->n_findings; i++)
        if (!strcmp(r->findings[i].type, type)) return &r->findings[i];
    return NULL;
}

/* Scores of dimension d for each variant, checked strictly decreasing. */
static void check_decreasing(int *pg_failed_, const char *what, pg_design_dim_id d, pg_img *ref, pg_img **steps,
                             int n) {
    double prev = 100.0 + 1e-9;
    for (int i = 0; i < n; i++) {
        pg_design_result *r = compare(ref, steps[i]);
        REQUIRE(r != NULL);
        double s = dim(r, d);
        if (!(s >= 0 && s < prev))
            fprintf(stderr, "%s step %d: %s %.3f, previous %.3f\n", what, i + 1, pg_design_dim_name(d), s, prev);
        CHECK(s >= 0 && s < prev);
        prev = s;
        pg_design_result_free(r);
        pg_img_free(steps[i]);
    }
}

PG_TEST(identical_images_score_100_on_every_dimension_in_both_modes) {
    ui_spec s;
    ui_default(&s);
    pg_img *a = ui_new(&s);
    REQUIRE(a != NULL);
    for (int m = 0; m < 2; m++) {
        pg_design_opts o;
        pg_design_opts_init(&o);
        o.mode = m ? PG_DESIGN_WIDGET : PG_DESIGN_SCREEN;
        pg_design_result *r = compare_opts(a, a, &o);
        REQUIRE(r != NULL);
        for (int d = 0; d < PG_DESIGN_NDIM; d++) CHECK(r->dim[d].scored && r->dim[d].score == 100.0);
        CHECK(r->overall_scored && fabs(r->overall - 100.0) < 1e-9);
        CHECK_EQ_INT(r->n_findings, 0);
        pg_design_result_free(r);
    }
    pg_img_free(a);
}

PG_TEST(blur_lowers_layout_at_every_step) {
    ui_spec s;
    ui_default(&s);
    pg_img *ref = ui_new(&s), *steps[4];
    for (int i = 0; i < 4; i++) {
        steps[i] = ui_new(&s);
        ui_blur(steps[i], 1 << i);
    }
    check_decreasing(pg_failed_, "blur", PG_DESIGN_LAYOUT, ref, steps, 4);
    pg_img_free(ref);
}

static void recolour(ui_spec *q, const ui_spec *s, int t) {
    static const uint8_t accent_to[3] = {220, 60, 60}, header_to[3] = {120, 40, 60};
    for (int k = 0; k < 3; k++) {
        q->accent[k] = (uint8_t)(s->accent[k] + (accent_to[k] - s->accent[k]) * t / 4);
        q->header[k] = (uint8_t)(s->header[k] + (header_to[k] - s->header[k]) * t / 4);
    }
}

PG_TEST(recolour_lowers_color_at_every_step) {
    ui_spec s;
    ui_default(&s);
    pg_img *ref = ui_new(&s), *steps[4];
    for (int t = 1; t <= 4; t++) {
        ui_spec q = s;
        recolour(&q, &s, t);
        steps[t - 1] = ui_new(&q);
    }
    check_decreasing(pg_failed_, "recolour", PG_DESIGN_COLOR, ref, steps, 4);
    pg_img_free(ref);
}

PG_TEST(a_recoloured_header_is_named_by_its_hex_colours) {
    ui_spec s, q;
    ui_default(&s);
    q = s;
    recolour(&q, &s, 4);
    pg_img *ref = ui_new(&s), *cand = ui_new(&q);
    pg_design_result *r = compare(ref, cand);
    REQUIRE(r != NULL);
    const pg_design_finding *f = find(r, "color_shift");
    REQUIRE(f != NULL);
    CHECK(f->severity == PG_DESIGN_HIGH && f->has_colors);
    /* the header (8 % of the screen) is the largest recoloured area: its pair
     * reads the drawn colours, up to antialiasing in the downsample */
    int header = 0;
    for (size_t i = 0; i < r->n_findings; i++) {
        const pg_design_finding *g = &r->findings[i];
        if (strcmp(g->type, "color_shift")) continue;
        unsigned rr, rg, rb, cr, cg, cb;
        REQUIRE(sscanf(g->ref_hex, "#%2x%2x%2x", &rr, &rg, &rb) == 3 && sscanf(g->cand_hex, "#%2x%2x%2x", &cr, &cg, &cb) == 3);
        if (abs((int)rr - 40) <= 3 && abs((int)rg - 60) <= 3 && abs((int)rb - 120) <= 3 && abs((int)cr - 120) <= 3 &&
            abs((int)cg - 40) <= 3 && abs((int)cb - 60) <= 3)
            header = 1;
    }
    CHECK(header);
    CHECK(dim(r, PG_DESIGN_LAYOUT) > 99.0 && dim(r, PG_DESIGN_CONTENT) == 100.0);
    pg_design_result_free(r);
    pg_img_free(ref), pg_img_free(cand);
}

/* A 320x200 screen in pale green (#a5d6a7) with a vivid green button
 * (#00c853); the candidate's button is red (#ff5252). CIEDE2000 is no
 * metric: green-pale plus pale-red (74.8) is less than green-red (77.7), so
 * the min-dE pairing alone paired crosswise ("move #ff5252 toward
 * #a5d6a7"); where each colour is used pairs the button's two colours. */
PG_TEST(a_recoloured_button_is_advised_back_to_its_own_colour) {
    pg_img *ref, *cand;
    REQUIRE(pg_img_new(&ref, 320, 200, NULL) == PG_OK && pg_img_new(&cand, 320, 200, NULL) == PG_OK);
    tu_fill(ref, 0xa5, 0xd6, 0xa7, 255);
    tu_fill(cand, 0xa5, 0xd6, 0xa7, 255);
    tu_rect(ref, 100, 80, 120, 40, 0x00, 0xc8, 0x53);
    tu_rect(cand, 100, 80, 120, 40, 0xff, 0x52, 0x52);
    pg_design_result *r = compare(ref, cand);
    REQUIRE(r != NULL);
    int home = 0, crosswise = 0;
    for (size_t i = 0; i < r->n_findings; i++) {
        const pg_design_finding *f = &r->findings[i];
        if (strcmp(f->type, "color_shift")) continue;
        unsigned rr, rg, rb, cr, cg, cb;
        REQUIRE(sscanf(f->ref_hex, "#%2x%2x%2x", &rr, &rg, &rb) == 3 && sscanf(f->cand_hex, "#%2x%2x%2x", &cr, &cg, &cb) == 3);
        bool red = abs((int)cr - 0xff) <= 8 && abs((int)cg - 0x52) <= 8 && abs((int)cb - 0x52) <= 8;
        bool green = abs((int)rr - 0x00) <= 8 && abs((int)rg - 0xc8) <= 8 && abs((int)rb - 0x53) <= 8;
        bool pale = abs((int)rr - 0xa5) <= 8 && abs((int)rg - 0xd6) <= 8 && abs((int)rb - 0xa7) <= 8;
        home += red && green;
        crosswise += red && pale;
    }
    CHECK_EQ_INT(home, 1);
    CHECK_EQ_INT(crosswise, 0);
    pg_design_result_free(r);
    pg_img_free(ref), pg_img_free(cand);
}

PG_TEST(removing_elements_lowers_content_at_every_step) {
    static const unsigned hide[3] = {UI_CTA, UI_CTA | UI_CARD3, UI_CTA | UI_CARD3 | UI_CARD2};
    ui_spec s;
    ui_default(&s);
    pg_img *ref = ui_new(&s), *steps[3];
    for (int i = 0; i < 3; i++) {
        ui_spec q = s;
        q.hide = hide[i];
        steps[i] = ui_new(&q);
    }
    check_decreasing(pg_failed_, "remove", PG_DESIGN_CONTENT, ref, steps, 3);
    pg_img_free(ref);
}

PG_TEST(a_removed_button_is_a_missing_region_with_its_box) {
    ui_spec s, q;
    ui_default(&s);
    q = s;
    q.hide = UI_CTA;
    pg_img *ref = ui_new(&s), *cand = ui_new(&q);
    pg_design_result *r = compare(ref, cand);
    REQUIRE(r != NULL);
    const pg_design_finding *f = find(r, "missing_region");
    REQUIRE(f != NULL && f->has_box);
    /* the button is drawn at 32,480 200x48; its edge may add a pixel */
    CHECK(abs((int)f->box.x - 32) <= 2 && abs((int)f->box.y - 480) <= 2);
    CHECK(abs((int)f->box.w - 200) <= 3 && abs((int)f->box.h - 48) <= 3);
    CHECK(f->severity == PG_DESIGN_MEDIUM || f->severity == PG_DESIGN_HIGH);
    CHECK_EQ_INT(r->content.missing, 1);
    pg_design_result_free(r);
    pg_img_free(ref), pg_img_free(cand);
}

PG_TEST(shifting_a_block_lowers_spacing_at_every_step) {
    ui_spec s;
    ui_default(&s);
    pg_img *ref = ui_new(&s), *steps[3];
    for (int i = 0; i < 3; i++) {
        ui_spec q = s;
        q.shift_cta = 16 * (i + 1);
        steps[i] = ui_new(&q);
    }
    check_decreasing(pg_failed_, "shift", PG_DESIGN_SPACING, ref, steps, 3);
    pg_img_free(ref);
}

PG_TEST(a_larger_font_lowers_typography_at_every_step) {
    ui_spec s;
    ui_default(&s);
    pg_img *ref = ui_new(&s), *steps[3];
    for (int i = 0; i < 3; i++) {
        ui_spec q = s;
        q.glyph = 3 + i;
        steps[i] = ui_new(&q);
    }
    check_decreasing(pg_failed_, "font", PG_DESIGN_TYPOGRAPHY, ref, steps, 3);
    pg_img_free(ref);
}

PG_TEST(geometric_mean_cannot_be_gamed_by_perfect_dimensions) {
    double w[PG_DESIGN_NDIM], eff[PG_DESIGN_NDIM], g;
    pg_design_preset_weights(PG_DESIGN_PRESET_DEFAULT, w);
    bool all[PG_DESIGN_NDIM] = {true, true, true, true, true};
    /* seed 002's example: layout and typography broken, the rest perfect */
    double gamed[PG_DESIGN_NDIM] = {12, 100, 100, 12, 100};
    REQUIRE(pg_design_aggregate(gamed, all, w, &g, eff));
    double arith = 0;
    for (int d = 0; d < PG_DESIGN_NDIM; d++) arith += w[d] * gamed[d];
    CHECK(fabs(arith - 56.0) < 1e-9);
    CHECK(fabs(g - sqrt(12.0 * 100.0)) < 1e-9); /* 12^0.5 * 100^0.5 = 34.64 */
    /* one broken dimension caps the score whatever the others do */
    double one[PG_DESIGN_NDIM] = {12, 100, 100, 100, 100};
    REQUIRE(pg_design_aggregate(one, all, w, &g, eff));
    CHECK(g < 48.0 && g < 0.35 * 12 + 0.65 * 100 - 20);
    /* a zero counts as 1, not as -infinity */
    double zero[PG_DESIGN_NDIM] = {0, 100, 100, 100, 100};
    REQUIRE(pg_design_aggregate(zero, all, w, &g, eff));
    CHECK(fabs(g - pow(100.0, 0.65)) < 1e-9);
}

PG_TEST(null_dimensions_leave_the_aggregate_and_weights_renormalise) {
    double w[PG_DESIGN_NDIM], eff[PG_DESIGN_NDIM], g;
    pg_design_preset_weights(PG_DESIGN_PRESET_DEFAULT, w);
    bool some[PG_DESIGN_NDIM] = {true, true, true, false, true};
    double s[PG_DESIGN_NDIM] = {100, 100, 100, 0, 100};
    REQUIRE(pg_design_aggregate(s, some, w, &g, eff));
    CHECK(fabs(g - 100.0) < 1e-9);
    CHECK(eff[PG_DESIGN_TYPOGRAPHY] == 0 && fabs(eff[PG_DESIGN_LAYOUT] - 0.35 / 0.85) < 1e-12);
    pg_design_preset_weights(PG_DESIGN_PRESET_DARK_UI, w);
    bool only[PG_DESIGN_NDIM] = {false, false, true, false, true}; /* dark-ui weighs neither */
    CHECK(!pg_design_aggregate(s, only, w, &g, eff));
}

PG_TEST(the_whole_comparison_is_byte_identical_across_runs) {
    ui_spec s, q;
    ui_default(&s);
    q = s;
    recolour(&q, &s, 2);
    q.hide = UI_CARD3;
    q.glyph = 3;
    pg_img *ref = ui_new(&s), *cand = ui_new(&q);
    ui_blur(cand, 1);
    pg_design_result *a = compare(ref, cand), *b = compare(ref, cand);
    REQUIRE(a && b);
    char *ja = json_text(a), *jb = json_text(b);
    REQUIRE(ja && jb);
    CHECK_STR(ja, jb);
    CHECK(tu_same_pixels(a->overlay, b->overlay) && tu_same_pixels(a->heatmap, b->heatmap));
    CHECK(tu_same_pixels(a->regions, b->regions) && tu_same_pixels(a->side_by_side, b->side_by_side));
    CHECK(a->overall == b->overall && a->color.mean_de == b->color.mean_de);
    free(ja), free(jb);
    pg_design_result_free(a), pg_design_result_free(b);
    pg_img_free(ref), pg_img_free(cand);
}

PG_TEST(presets_and_explicit_weights_are_resolved_and_echoed) {
    ui_spec s;
    ui_default(&s);
    pg_img *a = ui_new(&s);
    pg_design_opts o;
    pg_design_opts_init(&o);
    REQUIRE(pg_design_preset_parse("dark-ui", &o.preset, NULL) == PG_OK);
    REQUIRE(pg_design_set_weight(&o, "color", 0.5, NULL) == PG_OK);
    pg_design_result *r = compare_opts(a, a, &o);
    REQUIRE(r != NULL);
    double want[PG_DESIGN_NDIM] = {0.60, 0.5, 0, 0.30, 0};
    for (int d = 0; d < PG_DESIGN_NDIM; d++) CHECK(r->weights[d] == want[d]);
    CHECK(fabs(r->effective[PG_DESIGN_COLOR] - 0.5 / 1.4) < 1e-12);
    char *j = json_text(r);
    REQUIRE(j != NULL);
    CHECK(strstr(j, "\"preset\":\"dark-ui\"") != NULL);
    CHECK(strstr(j, "\"weights\":{\"layout\":0.6,\"color\":0.5,\"content\":0,\"typography\":0.3,\"spacing\":0}") != NULL);
    free(j);
    pg_design_result_free(r);
    pg_error e;
    CHECK_EQ_INT(pg_design_set_weight(&o, "colour", 1, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_design_set_weight(&o, "layout", -0.1, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_design_set_weight(&o, "layout", NAN, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_design_preset_parse("bright", &o.preset, &e), PG_E_USAGE);
    pg_img_free(a);
}

PG_TEST(a_dimension_that_cannot_apply_is_null_and_the_others_still_count) {
    /* blocks without any text: typography has nothing to measure */
    pg_img *a, *b;
    REQUIRE(pg_img_new(&a, 400, 300, NULL) == PG_OK && pg_img_new(&b, 400, 300, NULL) == PG_OK);
    tu_fill(a, 250, 250, 250, 255);
    tu_rect(a, 20, 20, 360, 60, 40, 60, 120);
    tu_rect(a, 20, 120, 160, 150, 200, 60, 60);
    tu_rect(a, 220, 120, 160, 150, 60, 160, 60);
    memcpy(b->px, a->px, (size_t)400 * 300 * 4);
    tu_rect(b, 220, 120, 160, 150, 60, 60, 160);
    pg_design_result *r = compare(a, b);
    REQUIRE(r != NULL);
    CHECK(!r->dim[PG_DESIGN_TYPOGRAPHY].scored && r->dim[PG_DESIGN_TYPOGRAPHY].note[0]);
    CHECK(r->dim[PG_DESIGN_COLOR].scored && r->dim[PG_DESIGN_COLOR].score < 90);
    CHECK(r->overall_scored && r->effective[PG_DESIGN_TYPOGRAPHY] == 0);
    char *j = json_text(r);
    REQUIRE(j != NULL);
    CHECK(strstr(j, "\"typography\":{\"score\":null") != NULL);
    free(j);
    pg_design_result_free(r);
    pg_img_free(a), pg_img_free(b);
    /* 1000 x 2: 768 x 2 at the canonical width, too thin for a 3x3 SSIM window */
    REQUIRE(pg_img_new(&a, 1000, 2, NULL) == PG_OK);
    tu_fill(a, 10, 20, 30, 255);
    r = compare(a, a);
    REQUIRE(r != NULL);
    CHECK(!r->dim[PG_DESIGN_LAYOUT].scored && r->dim[PG_DESIGN_COLOR].scored && r->overall_scored);
    pg_design_result_free(r);
    pg_img_free(a);
}

/* The candidate's whole content moved by (dx, dy), background filling in. */
static pg_img *translated(const pg_img *src, int dx, int dy, const uint8_t bg[3]) {
    pg_img *o;
    if (pg_img_new(&o, src->width, src->height, NULL)) return NULL;
    tu_fill(o, bg[0], bg[1], bg[2], 255);
    for (int y = 0; y < (int)src->height; y++)
        for (int x = 0; x < (int)src->width; x++) {
            int sx = x - dx, sy = y - dy;
            if (sx < 0 || sy < 0 || sx >= (int)src->width || sy >= (int)src->height) continue;
            memcpy(pg_img_row(o, (uint32_t)y) + 4 * x, tu_px(src, (uint32_t)sx, (uint32_t)sy), 4);
        }
    return o;
}

PG_TEST(screen_mode_registers_a_translation_and_widget_mode_does_not) {
    ui_spec s;
    ui_default(&s);
    pg_img *a = ui_new(&s), *b = translated(a, 6, -4, s.bg);
    REQUIRE(b != NULL);
    pg_design_opts o;
    pg_design_opts_init(&o);
    pg_design_result *scr = compare_opts(a, b, &o);
    o.mode = PG_DESIGN_WIDGET;
    pg_design_result *wid = compare_opts(a, b, &o);
    REQUIRE(scr && wid);
    CHECK_STR(scr->align.method, "translation");
    CHECK(scr->align.dx == 6 && scr->align.dy == -4 && !scr->align.fallback);
    CHECK(dim(scr, PG_DESIGN_LAYOUT) > 99.0);
    CHECK(find(scr, "alignment_shift") != NULL);
    CHECK_STR(wid->align.method, "identity");
    CHECK(wid->align.dx == 0 && dim(wid, PG_DESIGN_LAYOUT) < dim(scr, PG_DESIGN_LAYOUT) - 5);
    pg_design_result_free(scr), pg_design_result_free(wid);
    pg_img_free(b);
    /* a flat candidate has nothing to register: identity, and it says so */
    REQUIRE(pg_img_new(&b, 768, 600, NULL) == PG_OK);
    tu_fill(b, 200, 200, 200, 255);
    o.mode = PG_DESIGN_SCREEN;
    scr = compare_opts(a, b, &o);
    REQUIRE(scr != NULL);
    CHECK(scr->align.fallback && !strcmp(scr->align.method, "identity") && find(scr, "alignment_fallback"));
    pg_design_result_free(scr);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(a_taller_candidate_is_an_aspect_mismatch_not_a_distortion) {
    ui_spec s, q;
    ui_default(&s);
    q = s;
    q.h = 700;
    pg_img *a = ui_new(&s), *b = ui_new(&q);
    pg_design_result *r = compare(a, b);
    REQUIRE(r != NULL);
    CHECK(r->norm.aspect_mismatch && find(r, "aspect_mismatch") != NULL);
    CHECK(r->norm.width == 768 && r->norm.height == 700 && r->norm.ref_height == 600 && r->norm.cand_height == 700);
    CHECK(dim(r, PG_DESIGN_CONTENT) == 100.0); /* same blocks at the same places */
    pg_design_result_free(r);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(an_ignored_area_leaves_every_dimension) {
    ui_spec s, q;
    ui_default(&s);
    q = s;
    q.hide = UI_CTA;
    pg_img *a = ui_new(&s), *b = ui_new(&q);
    pg_design_opts o;
    pg_design_opts_init(&o);
    o.ignore[o.n_ignore++] = (pg_img_rect){20, 470, 230, 70};
    pg_design_result *r = compare_opts(a, b, &o);
    REQUIRE(r != NULL);
    for (int d = 0; d < PG_DESIGN_NDIM; d++) CHECK(dim(r, (pg_design_dim_id)d) > 99.0);
    CHECK(find(r, "missing_region") == NULL);
    pg_design_result_free(r);
    pg_error e;
    o.ignore[0] = (pg_img_rect){700, 500, 100, 10}; /* outside the 768-wide reference */
    CHECK(pg_design_compare(a, b, &o, &r, &e) == PG_E_USAGE && r == NULL);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(a_twice_as_large_capture_of_the_same_design_scores_100) {
    ui_spec s;
    ui_default(&s);
    pg_img *a = ui_new(&s), *big;
    REQUIRE(pg_img_new(&big, 2 * a->width, 2 * a->height, NULL) == PG_OK);
    for (uint32_t y = 0; y < big->height; y++)
        for (uint32_t x = 0; x < big->width; x++) memcpy(pg_img_row(big, y) + 4 * x, tu_px(a, x / 2, y / 2), 4);
    pg_design_result *r = compare(a, big);
    REQUIRE(r != NULL);
    CHECK(r->norm.cand_scale == 0.5 && r->norm.width == 768);
    CHECK(r->overall_scored && fabs(r->overall - 100.0) < 1e-9);
    pg_design_result_free(r);
    pg_img_free(a), pg_img_free(big);
}

PG_TEST(degenerate_sizes_and_noise_give_a_result_and_never_crash) {
    static const uint32_t sz[][2] = {{1, 1}, {1, 500}, {500, 1}, {3, 3}, {7, 2}, {2000, 3}, {40, 9000}, {97, 61}};
    uint32_t seed = 99;
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
        for (size_t j = i % 2; j < sizeof sz / sizeof sz[0]; j += 4) {
            pg_img *a, *b;
            REQUIRE(pg_img_new(&a, sz[i][0], sz[i][1], NULL) == PG_OK && pg_img_new(&b, sz[j][0], sz[j][1], NULL) == PG_OK);
            tu_noise(a, tu_rand(&seed));
            if (j % 2) tu_noise(b, tu_rand(&seed));
            else tu_fill(b, 10, 200, 30, 255);
            pg_design_result *r = compare(a, b);
            CHECK(r != NULL);
            if (r) {
                CHECK(r->norm.width >= 1 && r->norm.width <= PG_DESIGN_CANON_W && r->norm.height <= PG_DESIGN_MAX_HEIGHT);
                for (int d = 0; d < PG_DESIGN_NDIM; d++)
                    CHECK(!r->dim[d].scored || (r->dim[d].score >= 0 && r->dim[d].score <= 100));
                CHECK(!r->overall_scored || (r->overall >= 1 && r->overall <= 100));
                char *t = json_text(r);
                CHECK(t != NULL);
                free(t);
            }
            pg_design_result_free(r);
            pg_img_free(a), pg_img_free(b);
        }
}
