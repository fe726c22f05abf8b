/* SPDX-License-Identifier: MIT */
/* pg_time.h: deadlines, the same on every platform (the clock is per OS). */
#include "pg_time.h"

pg_deadline pg_deadline_in_ms(double ms) {
    return (pg_deadline){pg_mono_us() + (int64_t)(ms * 1000.0)};
}

uint32_t pg_deadline_left_ms(pg_deadline d) {
    int64_t left_us = d.us - pg_mono_us();
    if (left_us <= 0) return 0;
    int64_t ms = (left_us + 999) / 1000;
    return ms > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)ms;
}

bool pg_deadline_passed(pg_deadline d) { return pg_deadline_left_ms(d) == 0; }
