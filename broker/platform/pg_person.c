/* SPDX-License-Identifier: MIT */
/* pg_person.c - the person's input as reported, counted under one lock (pg_person.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_person.h"

struct pg_person {
    pthread_mutex_t lock;
    pg_person_seen seen;
    pg_person_notify_fn notify;
    void *ctx;
};

pg_person *pg_person_new(pg_person_notify_fn notify, void *ctx) {
    pg_person *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    pthread_mutex_init(&p->lock, NULL);
    snprintf(p->seen.why_not, sizeof p->seen.why_not, "the display is not open yet");
    p->notify = notify;
    p->ctx = ctx;
    return p;
}

void pg_person_free(pg_person *p) {
    if (!p) return;
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static void notify(pg_person *p) {
    if (p->notify) p->notify(p->ctx);
}

void pg_person_set_watching(pg_person *p, bool on, const char *stop_key, const char *why_not) {
    pthread_mutex_lock(&p->lock);
    p->seen.watching = on;
    snprintf(p->seen.stop_key, sizeof p->seen.stop_key, "%s", stop_key ? stop_key : "");
    snprintf(p->seen.why_not, sizeof p->seen.why_not, "%s", on || !why_not ? "" : why_not);
    pthread_mutex_unlock(&p->lock);
}

void pg_person_stop_key(pg_person *p, int64_t now_us) {
    pthread_mutex_lock(&p->lock);
    p->seen.stop_presses++;
    p->seen.human_events++;
    p->seen.last_human_us = now_us;
    pthread_mutex_unlock(&p->lock);
    notify(p);
}

void pg_person_tamper(pg_person *p, const char *why) {
    pthread_mutex_lock(&p->lock);
    p->seen.tampers++;
    snprintf(p->seen.tamper_why, sizeof p->seen.tamper_why, "%s", why ? why : "the keyboard was tampered with");
    pthread_mutex_unlock(&p->lock);
    notify(p);
}

void pg_person_activity(pg_person *p, int64_t now_us) {
    pthread_mutex_lock(&p->lock);
    bool first = p->seen.last_human_us == 0 || now_us - p->seen.last_human_us > 100000; /* wake at most 10/s */
    p->seen.human_events++;
    p->seen.last_human_us = now_us;
    pthread_mutex_unlock(&p->lock);
    if (first) notify(p);
}

void pg_person_read(pg_person *p, pg_person_seen *out) {
    pthread_mutex_lock(&p->lock);
    *out = p->seen;
    pthread_mutex_unlock(&p->lock);
}
