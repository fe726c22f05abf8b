/* SPDX-License-Identifier: MIT */
#include "pg_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static pg_log_level min_level = PG_LOG_INFO;

static FILE *sink;

void pg_log_set_level(pg_log_level min) { min_level = min; }
void pg_log_set_file(FILE *f) { sink = f; }

void pg_log(pg_log_level lvl, const char *fmt, ...) {
    static const char *names[] = {"debug", "info", "warn", "error"};
    if (lvl < min_level) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
#ifdef _WIN32
    gmtime_s(&tm, &ts.tv_sec); /* mingw-w64 has no gmtime_r in strict C17 */
#else
    gmtime_r(&ts.tv_sec, &tm);
#endif
    fprintf(sink ? sink : stderr, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ pixelgated[%s] %s\n", tm.tm_year + 1900, tm.tm_mon + 1,
            tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, names[lvl], line);
}
