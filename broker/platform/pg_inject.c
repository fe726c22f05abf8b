/* SPDX-License-Identifier: MIT */
/* pg_inject.c - see pg_inject.h. */
#include "pg_inject.h"

pg_err pg_inject_may_send(const pg_inject_target *t, const pg_inject_now *now, size_t done, size_t total,
                          pg_error *e) {
    if (now->foreground != t->window)
        return pg_error_set(e, PG_E_POLICY, "focus the window again and send the rest",
                            "typing stopped: window %llu took the foreground from window %llu after %zu of %zu "
                            "characters; nothing more was sent",
                            (unsigned long long)now->foreground, (unsigned long long)t->window, done, total);
    bool higher = t->integrity ? now->integrity == 0 || now->integrity > t->integrity : now->integrity != 0;
    if (higher)
        return pg_error_set(e, PG_E_POLICY, "the window's program was restarted at another integrity level",
                            "typing stopped: window %llu now runs at integrity level 0x%x, not 0x%x as checked, "
                            "after %zu of %zu characters; nothing more was sent",
                            (unsigned long long)t->window, (unsigned)now->integrity, (unsigned)t->integrity, done,
                            total);
    return PG_OK;
}

/* How many whole units from unit u fit into max events (at least one). */
static size_t units_that_fit(const size_t *start, size_t n_units, size_t u, size_t max) {
    size_t k = 1;
    while (u + k < n_units && start[u + k + 1] - start[u] <= max) k++;
    return k;
}

pg_err pg_inject_send(const pg_inject_io *io, const size_t *start, size_t n_units, size_t max_events, size_t *done,
                      pg_error *e) {
    *done = 0;
    for (size_t u = 0; u < n_units;) {
        pg_err rc = io->check(io->ctx, u, n_units, e);
        if (rc) return rc;
        size_t k = units_that_fit(start, n_units, u, max_events ? max_events : 1);
        size_t from = start[u], n = start[u + k] - from;
        size_t took = n ? io->send(io->ctx, from, n) : 0; /* a unit may have no events (the CR of a CRLF) */
        if (took != n) {
            while (*done < n_units && start[*done + 1] <= from + took) (*done)++;
            return pg_error_set(e, PG_E_POLICY, "the target may run elevated (UIPI) or the desktop is locked",
                                "the system took %zu of %zu input events; %zu of %zu characters were sent",
                                from + took, start[n_units], *done, n_units);
        }
        u += k;
        *done = u;
    }
    return PG_OK;
}

int32_t pg_abs_norm(int64_t p, int64_t origin, int64_t extent) {
    if (extent <= 0) return 0;
    int64_t n = ((p - origin) * 65536 + extent - 1) / extent;
    return (int32_t)(n < 0 ? 0 : n > 65535 ? 65535 : n);
}

int64_t pg_abs_denorm(int32_t n, int64_t origin, int64_t extent) { return origin + (int64_t)n * extent / 65536; }
