/* SPDX-License-Identifier: MIT */
/* pg_framebuf.h - capture buffers whose pages are already there.
 *
 * Why: a capture converts into a fresh buffer that the token store then
 * keeps, and on these VMs the first touch of fresh memory is most of a
 * screen capture: faulting in the 8 MB of a 1080p frame costs 4-7 ms
 * (page faults, zeroing, the memory cgroup's charge), more than the SHA-256
 * of it. The buffer cannot be reused (the store keeps it), so the faults are
 * moved instead: after a capture of a given size takes its buffer, a thread
 * at idle priority allocates the next one of that size and touches every
 * page: a window-sized one at once, one of PG_FRAMEBUF_LATE_BYTES or more
 * (a screen) PG_FRAMEBUF_REFILL_MS after the take, not beside the capture
 * and its client, whom its faults would slow (they contend for the memory
 * bus and the kernel's page locks), but while the broker waits for the
 * agent's next call.
 *
 * Contract: pg_framebuf_alloc(bytes) returns memory the caller owns and
 * frees with free(), exactly as malloc(bytes) would: a ready spare of that
 * exact size when there is one, else malloc. It never waits for the
 * thread, and never blocks on a lock the idle thread holds (an idle-priority
 * thread preempted inside it could stall a request: it uses trylock and
 * falls back to malloc). Spares are kept for the PG_FRAMEBUF_SLOTS most
 * recent sizes of at least PG_FRAMEBUF_MIN_BYTES and at most
 * PG_FRAMEBUF_MAX_BYTES; a smaller or larger request is plain malloc. The
 * spares are the broker's own memory, not a token's: --memory-budget does
 * not count them (docs/performance.md).
 * pg_framebuf_retain / pg_framebuf_release: each user (a display handle)
 * holds the pool; the last release stops the thread and frees the spares,
 * so a broker that exits leaves nothing behind (valgrind).
 * Never: hands out a buffer the thread is still touching, or one twice.
 */
#ifndef PG_FRAMEBUF_H
#define PG_FRAMEBUF_H

#include <stdbool.h>
#include <stddef.h>

#define PG_FRAMEBUF_SLOTS 3
#define PG_FRAMEBUF_MIN_BYTES ((size_t)64 << 10)
#define PG_FRAMEBUF_MAX_BYTES ((size_t)64 << 20)
#define PG_FRAMEBUF_LATE_BYTES ((size_t)4 << 20)
#define PG_FRAMEBUF_REFILL_MS 20

void pg_framebuf_retain(void);
void pg_framebuf_release(void);
void *pg_framebuf_alloc(size_t bytes);

/* For tests: how many allocations were served by a ready spare since the
 * process started, and waits (at most timeout_ms) until a spare of bytes is
 * ready; true when one is. */
unsigned long pg_framebuf_spares_served(void);
bool pg_framebuf_wait_ready(size_t bytes, unsigned timeout_ms);

#endif
