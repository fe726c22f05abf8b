/* SPDX-License-Identifier: MIT */
/* win_settle.c - wait until a window stops repainting.
 *
 * Contract: Windows has no DAMAGE-like notification another process may
 * subscribe to, so settle() compares captures (capture_window, the same
 * path a snapshot takes) taken every min(quiet_ms/4, 50) ms (at least 5)
 * and calls the window quiet when they stayed byte-identical for quiet_ms.
 * It returns PG_E_TIMEOUT if that did not happen within timeout_ms, and the
 * capture's own error (PG_E_NOTFOUND when the window went away, PG_E_BADINPUT
 * when minimized, PG_E_POLICY when covered and unrenderable) as soon as one
 * happens. A change that reverts between two samples goes unseen (sampling,
 * not events).
 * Never: waits longer than timeout_ms plus one capture.
 */
#include <stdlib.h>
#include <string.h>

#include "win_private.h"

static bool same(const pg_capture *a, const pg_capture *b) {
    return a->width == b->width && a->height == b->height && a->stride == b->stride &&
           memcmp(a->rgba, b->rgba, a->stride * a->height) == 0;
}

pg_err win_settle(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms,
                  pg_error *e) {
    uint32_t step = quiet_ms / 4 < 50 ? quiet_ms / 4 : 50;
    if (step < 5) step = 5;
    double start = pg_mono_ms();
    pg_capture prev, cur;
    pg_err rc = win_capture_window(p, id, NULL, &prev, e);
    if (rc != PG_OK) return rc;
    double quiet_since = pg_mono_ms();
    for (;;) {
        double now = pg_mono_ms();
        if (now - quiet_since >= quiet_ms) break;
        if (now - start >= timeout_ms) {
            free(prev.rgba);
            return pg_error_set(e, PG_E_TIMEOUT, "the window keeps repainting (animation, caret?)",
                                "window %llu was not quiet for %u ms within %u ms",
                                (unsigned long long)id, quiet_ms, timeout_ms);
        }
        pg_sleep_ms(step);
        if ((rc = win_capture_window(p, id, NULL, &cur, e)) != PG_OK) {
            free(prev.rgba);
            return rc;
        }
        if (!same(&prev, &cur)) quiet_since = pg_mono_ms();
        free(prev.rgba);
        prev = cur;
    }
    free(prev.rgba);
    return PG_OK;
}

pg_err win_responding(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e) {
    (void)p;
    (void)max_ms; /* Windows itself decides: no message handled for 5 s is hung */
    HWND h;
    pg_err rc = win_resolve(id, &h, e);
    if (rc) return rc;
    *out = IsHungAppWindow(h) ? PG_RESPONDING_NO : PG_RESPONDING_YES;
    return PG_OK;
}
