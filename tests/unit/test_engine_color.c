/* SPDX-License-Identifier: MIT */
/* pg_color: CIEDE2000 equals the published test data of Sharma, Wu and Dalal
 * (2005) on all 34 pairs to 4 decimals (read from tests/data), sRGB ->
 * CIELAB gives the standard values, and hex formatting. */
#include <math.h>
#include <stdio.h>

#include "pg_color.h"
#include "pg_test.h"
#include "test_engine_util.h"

PG_TEST(ciede2000_matches_all_34_pairs_of_sharma_wu_dalal_to_4_decimals) {
    size_t n;
    char *text = (char *)tu_read("ciede2000-sharma-2005.tsv", &n);
    REQUIRE(text != NULL);
    text = realloc(text, n + 1);
    REQUIRE(text != NULL);
    text[n] = '\0';
    int pairs = 0, bad = 0;
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        pg_lab a, b;
        double want; /* the header line does not parse and is skipped */
        if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf", &a.L, &a.a, &a.b, &b.L, &b.a, &b.b, &want) != 7) continue;
        pairs++;
        double got = pg_color_de2000(&a, &b), back = pg_color_de2000(&b, &a);
        if (fabs(got - want) >= 0.00005 || fabs(back - want) >= 0.00005) {
            fprintf(stderr, "pair %d: got %.6f / %.6f, published %.4f\n", pairs, got, back, want);
            bad++;
        }
    }
    free(text);
    CHECK_EQ_INT(pairs, 34);
    CHECK_EQ_INT(bad, 0);
}

PG_TEST(identical_colours_differ_by_zero) {
    pg_lab a = {52.1, -13.4, 40.2};
    CHECK(pg_color_de2000(&a, &a) == 0.0);
}

PG_TEST(srgb_white_black_and_red_give_the_standard_lab_values) {
    pg_color_ctx c;
    pg_color_ctx_init(&c);
    pg_lab w = pg_color_lab(&c, 255, 255, 255), k = pg_color_lab(&c, 0, 0, 0), r = pg_color_lab(&c, 255, 0, 0);
    CHECK(fabs(w.L - 100) < 1e-3 && fabs(w.a) < 0.01 && fabs(w.b) < 0.01); /* the matrix's rounding */
    CHECK(k.L == 0 && k.a == 0 && k.b == 0);
    /* sRGB red under D65 (e.g. Lindbloom's calculator): 53.24, 80.09, 67.20 */
    CHECK(fabs(r.L - 53.24) < 0.01 && fabs(r.a - 80.09) < 0.01 && fabs(r.b - 67.20) < 0.01);
}

PG_TEST(hex_is_lower_case_with_a_hash) {
    char h[8];
    pg_color_hex(0x28, 0x78, 0xdc, h);
    CHECK_STR(h, "#2878dc");
    pg_color_hex(0, 255, 10, h);
    CHECK_STR(h, "#00ff0a");
}
