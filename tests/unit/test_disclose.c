/* SPDX-License-Identifier: MIT */
/* pg_disclose.h's ledger on its injectable clock: what is charged per tile
 * content and question, the continuous refill, the refusal's wait, the
 * per-user tables, and the busy agent of tests/integration/busy_agent.sh
 * replayed over two simulated hours under the shipped policy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_policy.h"
#include "pg_test.h"

typedef struct {
    double now;
} test_clock;

static double test_now(void *ctx) { return ((test_clock *)ctx)->now; }

/* The shipped policy's view (the defaults: no disclosure section). */
static const pg_policy_view *shipped(pg_policy **p) {
    static const char json[] = "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\"}";
    pg_error e;
    if (pg_policy_parse(json, sizeof json - 1, p, &e)) return NULL;
    return pg_policy_view_for(*p, "agent");
}

/* A tile content named by a number: a stand-in for a digest, as uniform as
 * one (splitmix64 of the number, the number itself after it). */
static pg_disclose_tile tile(uint64_t n) {
    uint64_t z = n + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    pg_disclose_tile t;
    memset(&t, 0, sizeof t);
    memcpy(t.b, &z, sizeof z);
    memcpy(t.b + 8, &n, sizeof n);
    return t;
}

PG_TEST(the_shipped_budgets_are_the_documented_ones) {
    pg_policy *p = NULL;
    const pg_policy_view *v = shipped(&p);
    REQUIRE(v);
    CHECK_EQ_INT(v->bits_per_tile_hour, 128);
    CHECK_EQ_INT(v->bits_per_user_hour, 8388608);
    pg_policy_free(p);
}

PG_TEST(a_question_asked_again_about_the_same_content_charges_nothing_and_new_content_only_its_tiles) {
    pg_policy *p = NULL;
    const pg_policy_view *v = shipped(&p);
    REQUIRE(v);
    pg_disclose *d = NULL;
    REQUIRE(pg_disclose_new(&d, NULL) == PG_OK);
    test_clock clk = {1000};
    pg_disclose_set_clock(d, test_now, &clk);
    pg_disclose_tile t[10];
    for (int i = 0; i < 10; i++) t[i] = tile((uint64_t)i);
    pg_disclose_receipt r;
    pg_error e;
    REQUIRE(pg_disclose_charge(d, v, 7, t, 10, 1, 100, &r, &e) == PG_OK);
    CHECK(fabs(r.charged - 100) < 1e-9); /* all new: the whole answer */
    REQUIRE(pg_disclose_charge(d, v, 7, t, 10, 1, 100, &r, &e) == PG_OK);
    CHECK(r.charged == 0 && r.n_new == 0); /* the same question, the same content */
    t[9] = tile(99);                       /* a caret blinked: one tile is new */
    REQUIRE(pg_disclose_charge(d, v, 7, t, 10, 1, 100, &r, &e) == PG_OK);
    CHECK(fabs(r.charged - 10) < 1e-9 && r.n_new == 1);
    REQUIRE(pg_disclose_charge(d, v, 7, t, 10, 2, 100, &r, &e) == PG_OK);
    CHECK(fabs(r.charged - 100) < 1e-9); /* another question about it is charged in full */
    CHECK(fabs(pg_disclose_tile_booked(d, v, 7, &t[0]) - 20) < 1e-9);
    CHECK(pg_disclose_used(d, 7) > 209.9 && pg_disclose_used(d, 8) == 0);
    pg_disclose_free(d);
    pg_policy_free(p);
}

PG_TEST(repeated_new_questions_about_one_content_stop_at_its_cap_and_the_refusal_says_when) {
    pg_policy *p = NULL;
    const pg_policy_view *v = shipped(&p);
    REQUIRE(v);
    pg_disclose *d = NULL;
    REQUIRE(pg_disclose_new(&d, NULL) == PG_OK);
    test_clock clk = {0};
    pg_disclose_set_clock(d, test_now, &clk);
    pg_disclose_tile t[4] = {tile(1), tile(2), tile(3), tile(4)};
    pg_disclose_receipt r;
    pg_error e;
    double told = 0;
    uint64_t q = 1;
    for (; q < 1000; q++) { /* fresh captures of the same pixels are the same tiles: no reset */
        if (pg_disclose_charge(d, v, 7, t, 4, q, 64, &r, &e) != PG_OK) break;
        told += 64;
    }
    CHECK(told <= 4 * 128.0 + 1e-9); /* each of the 4 tiles holds at most 128 bits an hour */
    CHECK(r.retry_s > 0 && r.retry_s <= 3600);
    CHECK(strstr(e.message, "enough is back in") != NULL);
    clk.now += r.retry_s; /* refilled continuously: the same question is answered then */
    CHECK(pg_disclose_charge(d, v, 7, t, 4, q, 64, &r, &e) == PG_OK);
    pg_disclose_free(d);
    pg_policy_free(p);
}

PG_TEST(a_flat_tile_is_charged_up_to_its_colour_and_then_free) {
    pg_policy *p = NULL;
    const pg_policy_view *v = shipped(&p);
    REQUIRE(v);
    pg_disclose *d = NULL;
    REQUIRE(pg_disclose_new(&d, NULL) == PG_OK);
    test_clock clk = {0};
    pg_disclose_set_clock(d, test_now, &clk);
    uint8_t px[32 * 16 * 4];
    memset(px, 0xff, sizeof px);
    for (int i = 16 * 4; i < 32 * 4; i++) px[i] = (uint8_t)i; /* the second tile's first row is not flat */
    pg_disclose_tile *t = NULL;
    size_t n = 0, cap = 0;
    pg_error e;
    REQUIRE(pg_disclose_tiles(d, px, 32, 16, 32 * 4, NULL, NULL, &t, &n, &cap, &e) == PG_OK);
    REQUIRE(n == 2);
    CHECK(t[0].flat && !t[1].flat);
    pg_disclose_receipt r;
    for (uint64_t q = 1; q < 20; q++) REQUIRE(pg_disclose_charge(d, v, 7, t, 1, q, 10, &r, &e) == PG_OK);
    CHECK(fabs(pg_disclose_tile_booked(d, v, 7, &t[0]) - PG_DISCLOSE_FLAT_BITS) < 1e-9);
    CHECK(r.charged == 0);
    free(t);
    pg_disclose_free(d);
    pg_policy_free(p);
}

PG_TEST(one_user_filling_the_ledger_never_refuses_another) {
    pg_policy *p = NULL;
    const pg_policy_view *v = shipped(&p);
    REQUIRE(v);
    pg_disclose *d = NULL;
    REQUIRE(pg_disclose_new(&d, NULL) == PG_OK);
    test_clock clk = {0};
    pg_disclose_set_clock(d, test_now, &clk);
    enum { BATCH = 4096 };
    pg_disclose_tile *t = malloc(BATCH * sizeof *t);
    REQUIRE(t);
    pg_disclose_receipt r;
    pg_error e;
    pg_err rc = PG_OK;
    for (uint64_t b = 0; b < 64 && !rc; b++) { /* 256k distinct contents, 8 bits each */
        for (uint64_t i = 0; i < BATCH; i++) t[i] = tile(b * BATCH + i);
        rc = pg_disclose_charge(d, v, 7, t, BATCH, b, 8.0 * BATCH, &r, &e);
    }
    CHECK_EQ_INT(rc, PG_E_POLICY); /* its own table is full */
    CHECK(strstr(e.message, "ledger is full") != NULL);
    pg_disclose_tile other = tile(1);
    CHECK(pg_disclose_charge(d, v, 8, &other, 1, 1, 8, &r, &e) == PG_OK);
    free(t);
    pg_disclose_free(d);
    pg_policy_free(p);
}

/* The busy agent's charges as integration.busy_agent recorded them (audit
 * records of an 800x600 desk, 1875 tile positions, about 28 % of them new
 * each step): a snapshot's 1-bit digest, a diff of about 320 bits and an OCR
 * of about 147 words at 29.3 bits, every 2 s. Replayed for two simulated
 * hours on the ledger's clock: never refused, the balance as high after two
 * hours as after one minute. */
#define DESK_TILES 1875
#define DESK_CHANGED 525

static pg_err busy_step(pg_disclose *d, const pg_policy_view *v, pg_disclose_tile *cur, pg_disclose_tile *prev,
                        uint64_t step) {
    static const double bits[3] = {1, 320, 147 * 29.3};
    for (size_t i = 0; i < DESK_CHANGED; i++) /* the list scrolled, five characters typed */
        cur[(step * 97 + i * 3) % DESK_TILES] = tile(step << 20 | i);
    pg_disclose_tile both[2 * DESK_TILES];
    memcpy(both, cur, sizeof(pg_disclose_tile) * DESK_TILES);
    memcpy(both + DESK_TILES, prev, sizeof(pg_disclose_tile) * DESK_TILES);
    pg_error e;
    pg_err rc = pg_disclose_charge(d, v, 7, cur, DESK_TILES, 1, bits[0], NULL, &e);        /* snapshot */
    if (!rc && step) rc = pg_disclose_charge(d, v, 7, both, 2 * DESK_TILES, 2, bits[1], NULL, &e); /* diff */
    if (!rc) rc = pg_disclose_charge(d, v, 7, cur, DESK_TILES, 3, bits[2], NULL, &e);          /* ocr */
    memcpy(prev, cur, sizeof(pg_disclose_tile) * DESK_TILES);
    return rc;
}

PG_TEST(the_busy_agent_replayed_for_two_hours_is_never_refused_and_its_balance_is_steady) {
    pg_policy *p = NULL;
    const pg_policy_view *v = shipped(&p);
    REQUIRE(v);
    pg_disclose *d = NULL;
    REQUIRE(pg_disclose_new(&d, NULL) == PG_OK);
    test_clock clk = {0};
    pg_disclose_set_clock(d, test_now, &clk);
    static pg_disclose_tile cur[DESK_TILES], prev[DESK_TILES];
    for (size_t i = 0; i < DESK_TILES; i++) cur[i] = prev[i] = tile(0xffff00000000ull + i);
    int refused = 0;
    double at_minute = -1, low = 1e18, high = 0;
    for (uint64_t step = 0; step < 2 * 3600 / 2; step++, clk.now += 2) {
        refused += busy_step(d, v, cur, prev, step) != PG_OK;
        double b = pg_disclose_balance(d, v, 7);
        if (clk.now >= 60 && at_minute < 0) at_minute = b;
        if (clk.now >= 60) low = b < low ? b : low, high = b > high ? b : high;
    }
    CHECK_EQ_INT(refused, 0);
    CHECK(high - low <= v->bits_per_user_hour / 10.0);
    CHECK(pg_disclose_balance(d, v, 7) >= at_minute - v->bits_per_user_hour / 10.0);
    pg_disclose_free(d);
    pg_policy_free(p);
}

static bool has_tile(const pg_disclose_tile *t, size_t n, const pg_disclose_tile *x) {
    for (size_t i = 0; i < n; i++)
        if (!memcmp(t[i].b, x->b, sizeof x->b)) return true;
    return false;
}

/* A crop at another offset is no fresh content: its whole cells are the full
 * capture's tiles, and the cells it cut are keyed by their place. */
PG_TEST(a_region_capture_is_cut_on_its_windows_grid_and_its_cut_cells_by_place) {
    pg_disclose *d = NULL;
    REQUIRE(pg_disclose_new(&d, NULL) == PG_OK);
    enum { W = 64, H = 48 };
    static uint8_t full[W * H * 4];
    for (size_t i = 0; i < sizeof full; i++) full[i] = (uint8_t)(i * 2654435761u >> 13);
    pg_disclose_tile *a = NULL, *b = NULL;
    size_t na = 0, ca = 0, nb = 0, cb = 0;
    pg_error e;
    REQUIRE(pg_disclose_tiles(d, full, W, H, W * 4, NULL, NULL, &a, &na, &ca, &e) == PG_OK);
    CHECK_EQ_INT(na, 12);
    /* the crop x 5..58, y 3..44 of the window, as snapshot --region stores it */
    pg_disclose_origin o = {5, 3, "window:7"};
    REQUIRE(pg_disclose_tiles(d, full + (3 * W + 5) * 4, 54, 42, W * 4, NULL, &o, &b, &nb, &cb, &e) == PG_OK);
    size_t whole = 0, placed = 0;
    for (size_t i = 0; i < nb; i++) {
        if (b[i].placed) placed++;
        else whole += has_tile(a, na, &b[i]);
    }
    CHECK_EQ_INT(whole, 2);  /* the cells (16,16) and (32,16) lie wholly inside the crop */
    CHECK_EQ_INT(placed, nb - 2);
    pg_disclose_tile *c = NULL; /* another crop cutting the same cell elsewhere: the same place key */
    size_t nc = 0, cc = 0;
    pg_disclose_origin o2 = {9, 3, "window:7"};
    REQUIRE(pg_disclose_tiles(d, full + (3 * W + 9) * 4, 20, 20, W * 4, NULL, &o2, &c, &nc, &cc, &e) == PG_OK);
    CHECK(nc > 0 && c[0].placed && has_tile(b, nb, &c[0]));
    free(a), free(b), free(c);
    pg_disclose_free(d);
}
