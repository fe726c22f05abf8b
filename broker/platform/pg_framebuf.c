/* SPDX-License-Identifier: MIT */
/* pg_framebuf.c - see pg_framebuf.h. One process-wide pool: every display
 * handle captures into the same sizes, and one spare per size is enough. */
#include "pg_framebuf.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "pg_time.h"

/* Smaller than any page size a backend runs on, so every page is touched. */
#define TOUCH_STRIDE 4096

typedef struct {
    size_t bytes;     /* the size this slot keeps a spare of; 0: unused */
    void *ready;      /* a spare with every page touched, or NULL */
    bool wanted;      /* the thread should make one */
    uint64_t used_at; /* for replacing the least recently used size */
} slot;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static slot slots[PG_FRAMEBUF_SLOTS];
static unsigned users;
static bool running, stopping;
static pthread_t maker;
static uint64_t tick;
static unsigned long served;

/* Lowest priority the OS offers a thread, where it offers one: the spare is
 * made with time nobody else wants, never in a request's way. */
static void lower_priority(void) {
#ifdef SCHED_IDLE
    struct sched_param none = {0};
    (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
#endif
}

static void touch_pages(uint8_t *p, size_t bytes) {
    for (size_t i = 0; i < bytes; i += TOUCH_STRIDE) p[i] = 0;
    if (bytes) p[bytes - 1] = 0;
}

/* The slot whose spare should be made next (lock held), smallest first (a
 * window's is made at once, a screen's waits), or -1. */
static int next_job_locked(void) {
    int best = -1;
    for (int i = 0; i < PG_FRAMEBUF_SLOTS; i++)
        if (slots[i].wanted && !slots[i].ready && slots[i].bytes && (best < 0 || slots[i].bytes < slots[best].bytes))
            best = i;
    return best;
}

/* PG_FRAMEBUF_REFILL_MS from now (lock held), or until stopped. */
static void wait_for_refill_locked(void) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); /* pthread_cond_timedwait's clock */
    until.tv_nsec += PG_FRAMEBUF_REFILL_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    while (!stopping && pthread_cond_timedwait(&pool_wake, &pool_lock, &until) == 0)
        continue; /* woken by another take: the deadline stands */
}

static void *make_spares(void *unused) {
    (void)unused;
    lower_priority();
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        int i;
        while (!stopping && (i = next_job_locked()) < 0) pthread_cond_wait(&pool_wake, &pool_lock);
        if (stopping) break;
        /* A large one not beside the capture that took it, nor beside its
         * client reading the answer and exiting: the faults of 8 MB are 4-7
         * ms of kernel time that slow whatever runs with them; a window's
         * few hundred KB are not worth a wait (docs/performance.md). */
        if (slots[i].bytes >= PG_FRAMEBUF_LATE_BYTES) {
            wait_for_refill_locked();
            if (stopping) break;
            if ((i = next_job_locked()) < 0) continue;
        }
        size_t bytes = slots[i].bytes;
        slots[i].wanted = false;
        pthread_mutex_unlock(&pool_lock);
        uint8_t *p = malloc(bytes); /* outside the lock: touching 8 MB takes milliseconds */
        if (p) touch_pages(p, bytes);
        pthread_mutex_lock(&pool_lock);
        if (p && !stopping && slots[i].bytes == bytes && !slots[i].ready) {
            slots[i].ready = p; /* still wanted at that size: keep it */
            p = NULL;
        }
        pthread_mutex_unlock(&pool_lock);
        free(p);
        pthread_mutex_lock(&pool_lock);
    }
    pthread_mutex_unlock(&pool_lock);
    return NULL;
}

void pg_framebuf_retain(void) {
    pthread_mutex_lock(&pool_lock);
    if (users++ == 0) {
        stopping = false;
        running = pthread_create(&maker, NULL, make_spares, NULL) == 0; /* without it: plain malloc */
    }
    pthread_mutex_unlock(&pool_lock);
}

void pg_framebuf_release(void) {
    pthread_mutex_lock(&pool_lock);
    bool last = users && --users == 0;
    bool join = last && running;
    if (join) {
        stopping = true;
        pthread_cond_broadcast(&pool_wake);
    }
    pthread_mutex_unlock(&pool_lock);
    if (join) pthread_join(maker, NULL);
    if (!last) return;
    pthread_mutex_lock(&pool_lock);
    running = false;
    for (int i = 0; i < PG_FRAMEBUF_SLOTS; i++) {
        free(slots[i].ready);
        slots[i] = (slot){0};
    }
    pthread_mutex_unlock(&pool_lock);
}

/* The slot that keeps bytes, else the unused or least recently used one
 * turned over to bytes (its old spare in *discard). Lock held. */
static slot *slot_for_locked(size_t bytes, void **discard) {
    slot *lru = &slots[0];
    for (int i = 0; i < PG_FRAMEBUF_SLOTS; i++) {
        if (slots[i].bytes == bytes) return &slots[i];
        if (slots[i].used_at < lru->used_at) lru = &slots[i];
    }
    *discard = lru->ready;
    *lru = (slot){.bytes = bytes};
    return lru;
}

void *pg_framebuf_alloc(size_t bytes) {
    if (bytes < PG_FRAMEBUF_MIN_BYTES || bytes > PG_FRAMEBUF_MAX_BYTES) return malloc(bytes);
    if (pthread_mutex_trylock(&pool_lock) != 0) return malloc(bytes); /* never wait on the idle thread */
    void *discard = NULL, *spare = NULL;
    if (running) {
        slot *s = slot_for_locked(bytes, &discard);
        spare = s->ready;
        s->ready = NULL;
        s->wanted = true; /* the next capture of this size gets one */
        s->used_at = ++tick;
        served += spare != NULL;
        pthread_cond_signal(&pool_wake);
    }
    pthread_mutex_unlock(&pool_lock);
    free(discard);
    return spare ? spare : malloc(bytes);
}

unsigned long pg_framebuf_spares_served(void) {
    pthread_mutex_lock(&pool_lock);
    unsigned long n = served;
    pthread_mutex_unlock(&pool_lock);
    return n;
}

bool pg_framebuf_wait_ready(size_t bytes, unsigned timeout_ms) {
    pg_deadline d = pg_deadline_in_ms(timeout_ms);
    for (;;) {
        bool ready = false;
        pthread_mutex_lock(&pool_lock);
        for (int i = 0; i < PG_FRAMEBUF_SLOTS; i++) ready |= slots[i].bytes == bytes && slots[i].ready;
        pthread_mutex_unlock(&pool_lock);
        if (ready) return true;
        if (pg_deadline_passed(d)) return false;
        pg_sleep_ms(1);
    }
}
