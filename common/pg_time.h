/* pg_time.h - the one monotonic clock and sleep every module uses.
 * POSIX: CLOCK_MONOTONIC and nanosleep (pg_time_posix.c); Windows:
 * QueryPerformanceCounter and Sleep (pg_time_win.c). Never: wall-clock time
 * (that is time(), for audit records and token expiry only). */
#ifndef PG_TIME_H
#define PG_TIME_H

#include <stdint.h>

/* Milliseconds since an arbitrary start, never going backwards. */
double pg_mono_ms(void);
/* The same clock in whole microseconds. */
int64_t pg_mono_us(void);
/* Sleeps about ms milliseconds (fractions allowed; 0 returns at once). */
void pg_sleep_ms(double ms);

#endif
