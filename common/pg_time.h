/* SPDX-License-Identifier: MIT */
/* pg_time.h - the one monotonic clock, sleep and deadline every module uses.
 * POSIX: CLOCK_MONOTONIC and nanosleep (pg_time_posix.c); Windows:
 * QueryPerformanceCounter and Sleep (pg_time_win.c); deadlines on top of
 * either (pg_time.c).
 * Never: wall-clock time (that is time()/CLOCK_REALTIME, for audit records,
 * token expiry and pthread_cond_timedwait only); never goes backwards. */
#ifndef PG_TIME_H
#define PG_TIME_H

#include <stdbool.h>
#include <stdint.h>

/* Milliseconds since an arbitrary start, never going backwards. */
double pg_mono_ms(void);
/* The same clock in whole microseconds. */
int64_t pg_mono_us(void);
/* Sleeps about ms milliseconds (fractions allowed; 0 returns at once). */
void pg_sleep_ms(double ms);

/* A moment on the same clock, for "wait until then": a value type, so a
 * deadline is never confused with a duration, with no wraparound and no
 * platform integer (GetTickCount64's ULONGLONG) in the code that waits. */
typedef struct {
    int64_t us;
} pg_deadline;

/* ms milliseconds from now; 0 or less is already passed. */
pg_deadline pg_deadline_in_ms(double ms);
/* Whole milliseconds left, rounded up, so a wait of that long does reach the
 * deadline; 0 once it has passed; at most INT32_MAX, so it fits poll()'s int
 * and a DWORD wait (which must never become INFINITE). */
uint32_t pg_deadline_left_ms(pg_deadline d);
/* The same as pg_deadline_left_ms(d) == 0. */
bool pg_deadline_passed(pg_deadline d);

#endif
