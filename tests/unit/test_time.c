/* SPDX-License-Identifier: MIT */
/* pg_time.h: the one monotonic clock, its sleep and deadlines. No speed is
 * measured here; only lower bounds the contract promises (a sleep of n ms
 * lasts at least about n ms) and the deadline arithmetic. */
#include <stdint.h>

#include "pg_test.h"
#include "pg_time.h"

PG_TEST(the_clock_never_goes_backwards_and_its_two_units_agree) {
    int64_t us = pg_mono_us();
    double ms = pg_mono_ms();
    for (int i = 0; i < 100000; i++) {
        int64_t u = pg_mono_us();
        double m = pg_mono_ms();
        CHECK(u >= us && m >= ms);
        us = u;
        ms = m;
    }
    double diff = pg_mono_ms() - (double)pg_mono_us() / 1000.0;
    CHECK(diff > -50 && diff < 50); /* one clock in two units, not two clocks */
}

PG_TEST(a_sleep_lasts_at_least_its_time_and_zero_returns_at_once) {
    double t0 = pg_mono_ms();
    pg_sleep_ms(30);
    CHECK(pg_mono_ms() - t0 >= 29); /* 1 ms slack for Sleep()'s rounding */
    pg_sleep_ms(0);
    pg_sleep_ms(-5);
}

PG_TEST(a_deadline_of_zero_or_less_has_passed_and_leaves_nothing) {
    CHECK(pg_deadline_passed(pg_deadline_in_ms(0)));
    CHECK(pg_deadline_passed(pg_deadline_in_ms(-100)));
    CHECK_EQ_INT(pg_deadline_left_ms(pg_deadline_in_ms(-100)), 0);
}

PG_TEST(time_left_is_rounded_up_and_never_more_than_asked) {
    pg_deadline d = pg_deadline_in_ms(1000);
    uint32_t left = pg_deadline_left_ms(d);
    CHECK(!pg_deadline_passed(d));
    CHECK(left > 900 && left <= 1000);
    /* 10.5 ms to go is 11 ms to wait: a rounded-down wait ends before the
     * deadline (and 0.5 ms would become 0, "now"). 10 only if more than
     * 0.5 ms went by between the two lines. */
    int64_t t0 = pg_mono_us();
    pg_deadline soon = {t0 + 10500};
    uint32_t l = pg_deadline_left_ms(soon);
    CHECK(l == 11 || (l == 10 && pg_mono_us() - t0 > 500));
}

PG_TEST(a_far_deadline_fits_an_int_wait_and_is_never_infinite) {
    pg_deadline far = pg_deadline_in_ms(1e12); /* ~32 years */
    CHECK_EQ_INT(pg_deadline_left_ms(far), INT32_MAX);
    CHECK(pg_deadline_left_ms(far) != 0xffffffffu); /* INFINITE for WaitFor*Object */
}

PG_TEST(a_deadline_passes_once_its_time_has_gone_by) {
    pg_deadline d = pg_deadline_in_ms(20);
    pg_sleep_ms(25);
    CHECK(pg_deadline_passed(d));
    CHECK_EQ_INT(pg_deadline_left_ms(d), 0);
}
