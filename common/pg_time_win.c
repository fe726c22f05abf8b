/* SPDX-License-Identifier: MIT */
/* pg_time.h on Windows: QueryPerformanceCounter and Sleep. */
#include "pg_time.h"

#include <windows.h>

static double ticks_per_ms(void) {
    static double per_ms; /* set once; a benign race writes the same value */
    if (per_ms == 0) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        per_ms = (double)f.QuadPart / 1000.0;
    }
    return per_ms;
}

double pg_mono_ms(void) {
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / ticks_per_ms();
}

int64_t pg_mono_us(void) { return (int64_t)(pg_mono_ms() * 1000.0); }

void pg_sleep_ms(double ms) {
    if (ms > 0) Sleep((DWORD)(ms + 0.5));
}
