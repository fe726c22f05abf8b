/* SPDX-License-Identifier: MIT */
/* pg_framebuf.h: a capture of a size seen before gets a spare the idle
 * thread made, sizes outside the pool's range and calls with no user are
 * plain malloc, more sizes than slots turn the least recently used slot
 * over, and the last release leaves nothing behind (ASan and valgrind see
 * every spare freed). Nothing here measures speed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_framebuf.h"
#include "pg_test.h"

#define FRAME ((size_t)1920 * 1080 * 4)
/* The maker runs at idle priority: on a machine whose cores are busy with
 * other tests (CI runs them in parallel, under ASan) it may wait seconds
 * for a turn. Waits return as soon as the spare is there. */
#define READY_MS 60000

/* Writes every byte and frees: the buffer is the caller's, whole. */
static bool usable(void *p, size_t bytes) {
    if (!p) return false;
    memset(p, 0x5a, bytes);
    free(p);
    return true;
}

PG_TEST(a_size_seen_before_gets_a_spare_made_ahead) {
    pg_framebuf_retain();
    unsigned long before = pg_framebuf_spares_served();
    CHECK(usable(pg_framebuf_alloc(FRAME), FRAME)); /* the first of its size: malloc, and a spare is wanted */
    CHECK(pg_framebuf_spares_served() == before);
    CHECK(pg_framebuf_wait_ready(FRAME, READY_MS));
    CHECK(usable(pg_framebuf_alloc(FRAME), FRAME));
    CHECK(pg_framebuf_spares_served() == before + 1);
    CHECK(pg_framebuf_wait_ready(FRAME, READY_MS)); /* and the next one is made after it */
    pg_framebuf_release();
}

PG_TEST(sizes_outside_the_range_and_calls_without_a_user_are_malloc) {
    pg_framebuf_retain();
    unsigned long before = pg_framebuf_spares_served();
    size_t small = PG_FRAMEBUF_MIN_BYTES - 1, big = PG_FRAMEBUF_MAX_BYTES + 1;
    for (int i = 0; i < 3; i++) {
        CHECK(usable(pg_framebuf_alloc(small), small));
        CHECK(usable(pg_framebuf_alloc(big), big));
    }
    CHECK(!pg_framebuf_wait_ready(small, 50) && !pg_framebuf_wait_ready(big, 50));
    pg_framebuf_release();
    CHECK(usable(pg_framebuf_alloc(FRAME), FRAME)); /* no user: no thread, no spare */
    CHECK(usable(pg_framebuf_alloc(FRAME), FRAME));
    CHECK(pg_framebuf_spares_served() == before);
}

PG_TEST(more_sizes_than_slots_turn_the_oldest_slot_over) {
    pg_framebuf_retain();
    size_t sizes[PG_FRAMEBUF_SLOTS + 1];
    for (int i = 0; i <= PG_FRAMEBUF_SLOTS; i++) {
        sizes[i] = PG_FRAMEBUF_MIN_BYTES * (size_t)(i + 1);
        CHECK(usable(pg_framebuf_alloc(sizes[i]), sizes[i]));
        if (i < PG_FRAMEBUF_SLOTS) CHECK(pg_framebuf_wait_ready(sizes[i], READY_MS));
    }
    CHECK(pg_framebuf_wait_ready(sizes[PG_FRAMEBUF_SLOTS], READY_MS));
    CHECK(!pg_framebuf_wait_ready(sizes[0], 50)); /* the least recently used size gave its slot up */
    for (int i = 1; i <= PG_FRAMEBUF_SLOTS; i++) CHECK(pg_framebuf_wait_ready(sizes[i], 50));
    pg_framebuf_retain(); /* two users: the first release keeps the pool */
    pg_framebuf_release();
    unsigned long before = pg_framebuf_spares_served();
    CHECK(usable(pg_framebuf_alloc(sizes[1]), sizes[1]));
    CHECK(pg_framebuf_spares_served() == before + 1);
    pg_framebuf_release();
}
