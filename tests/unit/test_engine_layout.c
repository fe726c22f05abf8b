/* SPDX-License-Identifier: MIT */
/* pg_layout (controls from pixels) and pg_palette (dominant colours) on
 * images drawn here, pixel by pixel, so every expectation follows from the
 * drawing; the real forms are scored in test_op_layout and bench/. */
#include <stdio.h>
#include <string.h>

#include "pg_layout.h"
#include "pg_palette.h"
#include "pg_test.h"

static pg_img *canvas(uint32_t w, uint32_t h, uint32_t rgb) {
    pg_img *img = NULL;
    pg_error e;
    if (pg_img_new(&img, w, h, &e)) return NULL;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = pg_img_row(img, y) + 4 * x;
            p[0] = (uint8_t)(rgb >> 16), p[1] = (uint8_t)(rgb >> 8), p[2] = (uint8_t)rgb, p[3] = 255;
        }
    return img;
}

static void fill(pg_img *img, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint32_t rgb) {
    for (uint32_t y = y0; y < y0 + h; y++)
        for (uint32_t x = x0; x < x0 + w; x++) {
            uint8_t *p = pg_img_row(img, y) + 4 * x;
            p[0] = (uint8_t)(rgb >> 16), p[1] = (uint8_t)(rgb >> 8), p[2] = (uint8_t)rgb;
        }
}

/* A framed box: a 1 px frame of colour f around an inside of colour in. */
static void framed(pg_img *img, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t f, uint32_t in) {
    fill(img, x, y, w, h, f);
    fill(img, x + 1, y + 1, w - 2, h - 2, in);
}

/* A disc of radius r (centre cx, cy), frame 1 px. */
static void disc(pg_img *img, int cx, int cy, int r, uint32_t f, uint32_t in) {
    for (int y = cy - r; y <= cy + r; y++)
        for (int x = cx - r; x <= cx + r; x++) {
            int d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            if (d2 <= r * r) fill(img, (uint32_t)x, (uint32_t)y, 1, 1, d2 >= (r - 2) * (r - 2) ? f : in);
        }
}

static const pg_layout_control *find_kind(const pg_layout_result *r, pg_ctl_kind k, int nth) {
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].kind == k && nth-- == 0) return &r->v[i];
    return NULL;
}

PG_TEST(check_boxes_radio_buttons_and_their_states_are_read_from_shapes) {
    pg_img *img = canvas(200, 80, 0xd9d9d9);
    REQUIRE(img);
    framed(img, 10, 10, 13, 13, 0x828282, 0xffffff);  /* unchecked check box */
    framed(img, 60, 10, 13, 13, 0x828282, 0xffffff);  /* checked: a mark in the middle */
    fill(img, 63, 14, 7, 5, 0x000000);
    framed(img, 110, 10, 13, 13, 0x828282, 0x4a6984); /* checked: a dark fill */
    disc(img, 16, 55, 7, 0x828282, 0xffffff);          /* radio off */
    disc(img, 66, 55, 7, 0x828282, 0xffffff);          /* radio on: a dot */
    fill(img, 64, 53, 5, 5, 0x000000);
    pg_layout_result r;
    pg_error e;
    REQUIRE(pg_layout_detect(img, NULL, &r, &e) == PG_OK);
    const pg_layout_control *c0 = find_kind(&r, PG_CTL_CHECK, 0), *c1 = find_kind(&r, PG_CTL_CHECK, 1),
                            *c2 = find_kind(&r, PG_CTL_CHECK, 2);
    REQUIRE(c0 && c1 && c2);
    CHECK(!c0->on);
    CHECK(c1->on);
    CHECK(c2->on);
    CHECK_EQ_INT(c0->box.x, 10);
    CHECK_EQ_INT(c0->box.w, 13);
    const pg_layout_control *r0 = find_kind(&r, PG_CTL_RADIO, 0), *r1 = find_kind(&r, PG_CTL_RADIO, 1);
    REQUIRE(r0 && r1);
    CHECK(!r0->on);
    CHECK(r1->on);
    CHECK(find_kind(&r, PG_CTL_CHECK, 3) == NULL); /* the dot and the mark are not controls */
    pg_layout_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(an_entry_a_list_with_its_selected_band_a_button_and_a_slider) {
    pg_img *img = canvas(400, 200, 0xd9d9d9);
    REQUIRE(img);
    framed(img, 20, 10, 200, 22, 0x828282, 0xffffff); /* entry */
    fill(img, 30, 15, 2, 12, 0x000000);               /* a glyph in it */
    framed(img, 20, 50, 150, 76, 0x828282, 0xffffff); /* list */
    fill(img, 21, 87, 148, 18, 0xc3c3c3);              /* its selected band */
    framed(img, 250, 50, 90, 30, 0x828282, 0xd9d9d9); /* button: centred ink (glyph stems) */
    for (uint32_t x = 280; x < 310; x += 5) fill(img, x, 60, 2, 10, 0x000000);
    fill(img, 20, 150, 200, 15, 0xb3b3b3);             /* slider trough */
    framed(img, 70, 150, 30, 15, 0x828282, 0xd9d9d9);  /* its thumb at 50/170 */
    pg_layout_result r;
    pg_error e;
    REQUIRE(pg_layout_detect(img, NULL, &r, &e) == PG_OK);
    const pg_layout_control *en = find_kind(&r, PG_CTL_ENTRY, 0), *li = find_kind(&r, PG_CTL_LIST, 0),
                            *bu = find_kind(&r, PG_CTL_BUTTON, 0), *sl = find_kind(&r, PG_CTL_SLIDER, 0);
    REQUIRE(en && li && bu && sl);
    CHECK_EQ_INT(en->box.x, 20);
    CHECK_EQ_INT(en->box.w, 200);
    CHECK_EQ_INT(li->band.y, 87);
    CHECK_EQ_INT(li->band.h, 18);
    CHECK_EQ_INT(bu->box.x, 250);
    if (!(sl->first > 0.25 && sl->first < 0.35)) fprintf(stderr, "slider %u,%u %ux%u thumb %u,%u %ux%u first %f\n", sl->box.x, sl->box.y, sl->box.w, sl->box.h, sl->thumb.x, sl->thumb.y, sl->thumb.w, sl->thumb.h, sl->first);
    CHECK(sl->first > 0.25 && sl->first < 0.35); /* (70 - 20) / (200 - 30) */
    /* Labels: the text left of the entry on its row, not the one above. */
    pg_layout_text t[2] = {{{100, 0, 40, 8}}, {{0, 14, 16, 12}}};
    CHECK_EQ_INT(pg_layout_label(en, t, 2, 400), 1);
    pg_layout_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(layout_is_deterministic_and_refuses_what_it_cannot_take) {
    pg_img *img = canvas(64, 64, 0xffffff);
    REQUIRE(img);
    framed(img, 5, 5, 12, 12, 0x000000, 0xeeeeee);
    pg_layout_result a, b;
    pg_error e;
    REQUIRE(pg_layout_detect(img, NULL, &a, &e) == PG_OK);
    REQUIRE(pg_layout_detect(img, NULL, &b, &e) == PG_OK);
    CHECK_EQ_INT(a.n, b.n);
    CHECK(a.n == 0 || memcmp(a.v, b.v, a.n * sizeof *a.v) == 0);
    pg_layout_result_fini(&a);
    pg_layout_result_fini(&b);
    pg_img_rect out = {60, 60, 10, 10};
    CHECK_EQ_INT(pg_layout_detect(img, &out, &a, &e), PG_E_USAGE);
    pg_img empty = {0};
    CHECK_EQ_INT(pg_layout_detect(&empty, NULL, &a, &e), PG_E_BADINPUT);
    pg_img_free(img);
}

PG_TEST(palette_names_the_colours_and_their_fractions) {
    pg_img *img = canvas(100, 10, 0xd9d9d9);
    REQUIRE(img);
    fill(img, 0, 0, 25, 10, 0xd32f2f); /* a quarter red */
    pg_palette_color c[4];
    unsigned n = 0;
    pg_error e;
    REQUIRE(pg_palette_dominant(img, NULL, 4, c, &n, &e) == PG_OK);
    REQUIRE(n == 2);
    CHECK_STR(c[0].name, "light gray");
    CHECK_STR(c[1].name, "red");
    CHECK(c[1].fraction > 0.249 && c[1].fraction < 0.251);
    CHECK_EQ_INT(c[1].rgb[0], 0xd3);
    uint8_t blue[3] = {30, 80, 220}, black[3] = {5, 5, 5};
    CHECK_STR(pg_palette_name(blue), "blue");
    CHECK_STR(pg_palette_name(black), "black");
    CHECK_EQ_INT(pg_palette_dominant(img, NULL, 0, c, &n, &e), PG_E_USAGE);
    pg_img_free(img);
}
