/* SPDX-License-Identifier: MIT */
/* Token store: uid binding, expiry, quota, memory budget and spill, load. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "pg_test.h"
#include "pg_token.h"

/* A fresh private directory (caller frees the string). No shell: the same
 * code runs natively and under Wine. */
static char *make_spool(void) {
#ifdef _WIN32
    char base[MAX_PATH], path[MAX_PATH + 64];
    DWORD n = GetTempPathA(sizeof base, base);
    if (n == 0 || n >= sizeof base) return NULL;
    for (unsigned k = 0; k < 100; k++) {
        snprintf(path, sizeof path, "%spg-token-test.%lu.%lu.%u", base, (unsigned long)GetCurrentProcessId(),
                 (unsigned long)GetTickCount(), k);
        if (CreateDirectoryA(path, NULL)) return strdup(path);
    }
    return NULL;
#else
    char tmpl[] = "/tmp/pg-token-test.XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
#endif
}

static uint8_t *pixels(uint32_t w, uint32_t h, uint8_t v) {
    uint8_t *p = malloc((size_t)w * h * 4);
    memset(p, v, (size_t)w * h * 4);
    return p;
}

static pg_tok_meta meta_for(uint32_t uid, uint32_t w, uint32_t h) {
    pg_tok_meta m;
    memset(&m, 0, sizeof m);
    m.uid = uid;
    m.width = w;
    m.height = h;
    return m;
}

static unsigned spool_files(const char *dir) {
    DIR *d = opendir(dir);
    unsigned n = 0;
    if (!d) return 999; /* a missing directory is a failure, never "empty" */
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void rm_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char path[512];
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
        closedir(d);
    }
    if (rmdir(dir) != 0) fprintf(stderr, "cleanup of %s failed\n", dir);
}

PG_TEST(tokens_are_bound_to_their_uid) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1 << 20, 1 << 20, 60, NULL) == PG_OK);
    pg_tok_meta m = meta_for(1000, 4, 4);
    REQUIRE(pg_tok_put(s, &m, pixels(4, 4, 7), 0, 0, NULL) == PG_OK);
    CHECK_EQ_INT(strlen(m.token), PG_TOKEN_LEN);
    CHECK(strncmp(m.token, "cap:", 4) == 0);
    pg_tok_meta got;
    CHECK_EQ_INT(pg_tok_get(s, m.token, 1000, &got, NULL), PG_OK);
    pg_error e;
    CHECK_EQ_INT(pg_tok_get(s, m.token, 1001, &got, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_tok_get(s, "cap:AAAAAAAAAAAAAAAAAAAAAA", 1000, &got, &e), PG_E_NOTFOUND);
    CHECK(strstr(e.message, dir) == NULL); /* never names the spool */
    uint8_t *px;
    REQUIRE(pg_tok_load(s, m.token, 1000, &got, &px, NULL) == PG_OK);
    CHECK(px[0] == 7 && px[63] == 7);
    free(px);
    CHECK_EQ_INT(pg_tok_load(s, m.token, 0, &got, &px, NULL), PG_E_NOTFOUND);
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(memory_budget_then_spill_then_quota) {
    char *dir = make_spool();
    pg_tok_store *s;
    /* budget holds one 10x10 capture (400 B); quota holds two (with their overhead) */
    REQUIRE(pg_tok_store_new(&s, dir, 2 * (400 + PG_TOK_OVERHEAD), 400, 60, NULL) == PG_OK);
    pg_tok_meta a = meta_for(1, 10, 10), b = meta_for(1, 10, 10), c = meta_for(1, 10, 10);
    REQUIRE(pg_tok_put(s, &a, pixels(10, 10, 1), 0, 0, NULL) == PG_OK);
    CHECK_EQ_INT(spool_files(dir), 0);
    REQUIRE(pg_tok_put(s, &b, pixels(10, 10, 2), 0, 0, NULL) == PG_OK);
    CHECK_EQ_INT(spool_files(dir), 1);
    uint64_t bytes, mem;
    unsigned n;
    pg_tok_usage(s, &bytes, &mem, &n);
    CHECK(bytes == 2 * (400 + PG_TOK_OVERHEAD) && mem == 400 && n == 2);
    pg_error e;
    CHECK_EQ_INT(pg_tok_put(s, &c, pixels(10, 10, 3), 0, 0, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "quota") != NULL);
    CHECK_EQ_INT(spool_files(dir), 1); /* the refused capture left nothing */
    uint8_t *px;
    pg_tok_meta got;
    REQUIRE(pg_tok_load(s, b.token, 1, &got, &px, NULL) == PG_OK);
    CHECK(px[0] == 2 && px[399] == 2);
    free(px);
    pg_tok_store_free(s);
    CHECK_EQ_INT(spool_files(dir), 0); /* freeing the store removes its files */
    rm_dir(dir);
    free(dir);
}

PG_TEST(per_user_quota_and_ttl) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1 << 20, 1 << 20, 60, NULL) == PG_OK);
    pg_tok_meta a = meta_for(1, 10, 10), b = meta_for(1, 10, 10), c = meta_for(2, 10, 10);
    const uint64_t q = 400 + PG_TOK_OVERHEAD + 100; /* one token, not two */
    REQUIRE(pg_tok_put(s, &a, pixels(10, 10, 1), 5, q, NULL) == PG_OK);
    CHECK_EQ_INT(a.expires_ms - a.created_ms, 5000);
    pg_error e;
    CHECK_EQ_INT(pg_tok_put(s, &b, pixels(10, 10, 1), 0, q, &e), PG_E_POLICY); /* uid 1 over its quota */
    CHECK(strstr(e.message, "your spool quota") != NULL);
    CHECK(strstr(e.message, "you hold 1 tokens") != NULL); /* how much is held */
    CHECK(strstr(e.recovery_tip, "pixelgate drop") != NULL); /* and how to free it */
    CHECK_EQ_INT(pg_tok_put(s, &c, pixels(10, 10, 1), 0, q, NULL), PG_OK); /* uid 2 has its own */
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(expired_tokens_are_gone_and_purged) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1 << 20, 0, 1, NULL) == PG_OK); /* 1 s TTL, always spool */
    pg_tok_meta m = meta_for(5, 2, 2);
    REQUIRE(pg_tok_put(s, &m, pixels(2, 2, 9), 0, 0, NULL) == PG_OK);
    CHECK_EQ_INT(spool_files(dir), 1);
    sleep(2);
    pg_tok_meta got;
    CHECK_EQ_INT(pg_tok_get(s, m.token, 5, &got, NULL), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_tok_sweep(s), 1);
    CHECK_EQ_INT(spool_files(dir), 0);
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(startup_empties_orphaned_spool_files) {
    char *dir = make_spool();
    char path[256];
    snprintf(path, sizeof path, "%s/orphan", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("old", f);
    fclose(f);
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1 << 20, 0, 60, NULL) == PG_OK);
    CHECK_EQ_INT(spool_files(dir), 0);
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(a_user_drops_its_own_tokens_and_nobody_elses) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1 << 24, 1 << 20, 60, NULL) == PG_OK);
    pg_tok_meta a = meta_for(1, 4, 4), b = meta_for(1, 4, 4), c = meta_for(2, 4, 4);
    REQUIRE(pg_tok_put(s, &a, pixels(4, 4, 1), 0, 0, NULL) == PG_OK);
    REQUIRE(pg_tok_put(s, &b, pixels(4, 4, 2), 0, 0, NULL) == PG_OK);
    REQUIRE(pg_tok_put(s, &c, pixels(4, 4, 3), 0, 0, NULL) == PG_OK);
    uint64_t freed = 0;
    CHECK(!pg_tok_drop_mine(s, c.token, 1, &freed)); /* another user's: as if unknown */
    CHECK(!pg_tok_drop_mine(s, "cap:AAAAAAAAAAAAAAAAAAAAAA", 1, &freed));
    CHECK_EQ_INT(freed, 0);
    CHECK(pg_tok_drop_mine(s, a.token, 1, &freed));
    CHECK_EQ_INT(freed, 64 + PG_TOK_OVERHEAD);
    CHECK(!pg_tok_drop_mine(s, a.token, 1, &freed)); /* gone */
    pg_tok_meta got;
    CHECK_EQ_INT(pg_tok_get(s, a.token, 1, &got, NULL), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_tok_get(s, c.token, 2, &got, NULL), PG_OK);
    uint64_t bytes;
    unsigned n;
    pg_tok_uid_usage(s, 1, &bytes, &n);
    CHECK(n == 1 && bytes == 64 + PG_TOK_OVERHEAD);
    CHECK_EQ_INT(pg_tok_drop_all(s, 1, NULL), 1);
    pg_tok_uid_usage(s, 1, &bytes, &n);
    CHECK(n == 0 && bytes == 0);
    CHECK_EQ_INT(pg_tok_get(s, c.token, 2, &got, NULL), PG_OK); /* uid 2 untouched */
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(tiny_tokens_count_their_overhead_and_one_user_holds_a_bounded_number) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1ull << 32, 1ull << 30, 60, NULL) == PG_OK);
    pg_tok_store_limits(s, 0, 0, 300);
    pg_tok_meta m;
    for (int i = 0; i < 300; i++) {
        m = meta_for(7, 1, 1);
        REQUIRE(pg_tok_put(s, &m, pixels(1, 1, 1), 0, 0, NULL) == PG_OK);
    }
    pg_error e;
    m = meta_for(7, 1, 1);
    CHECK_EQ_INT(pg_tok_put(s, &m, pixels(1, 1, 1), 0, 0, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "you hold 300 tokens") != NULL);
    m = meta_for(8, 1, 1);
    CHECK_EQ_INT(pg_tok_put(s, &m, pixels(1, 1, 1), 0, 0, NULL), PG_OK); /* another user is not stopped */
    uint64_t bytes, mem;
    unsigned n;
    pg_tok_usage(s, &bytes, &mem, &n);
    CHECK_EQ_INT(bytes, 301ull * (4 + PG_TOK_OVERHEAD)); /* 4 pixel bytes each, and what holding one costs */
    CHECK_EQ_INT(pg_tok_drop_all(s, 7, NULL), 300);
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(many_tokens_of_several_users_are_each_found_and_only_the_expired_swept) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1ull << 32, 1ull << 30, 60, NULL) == PG_OK);
    enum { N = 3000 };
    static pg_tok_meta m[N];
    for (int i = 0; i < N; i++) { /* every third lives 1 s, the rest 60 s */
        m[i] = meta_for((uint32_t)(i % 5), 1, 1);
        REQUIRE(pg_tok_put(s, &m[i], pixels(1, 1, (uint8_t)i), i % 3 == 0 ? 1 : 60, 0, NULL) == PG_OK);
    }
    pg_tok_meta got;
    int found = 0, foreign = 0;
    for (int i = 0; i < N; i++) {
        found += pg_tok_get(s, m[i].token, (uint32_t)(i % 5), &got, NULL) == PG_OK && !strcmp(got.token, m[i].token);
        foreign += pg_tok_get(s, m[i].token, (uint32_t)(i % 5) + 1, &got, NULL) == PG_OK;
    }
    CHECK_EQ_INT(found, N);
    CHECK_EQ_INT(foreign, 0);
    sleep(2);
    CHECK_EQ_INT(pg_tok_sweep(s), N / 3);
    int left = 0;
    for (int i = 0; i < N; i++) left += pg_tok_get(s, m[i].token, (uint32_t)(i % 5), &got, NULL) == PG_OK;
    CHECK_EQ_INT(left, N - N / 3);
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}

PG_TEST(a_ttl_ceiling_shortens_every_lifetime_asked_for) {
    char *dir = make_spool();
    pg_tok_store *s;
    REQUIRE(pg_tok_store_new(&s, dir, 1 << 24, 1 << 20, 3600, NULL) == PG_OK);
    pg_tok_store_limits(s, 0, 60, 0);
    pg_tok_meta m = meta_for(1, 2, 2);
    REQUIRE(pg_tok_put(s, &m, pixels(2, 2, 1), 3600, 0, NULL) == PG_OK); /* the policy's hour */
    CHECK_EQ_INT(m.expires_ms - m.created_ms, 60000);
    CHECK_EQ_INT(pg_tok_effective_ttl(s, 30), 30); /* a shorter one stays */
    pg_tok_store_free(s);
    rm_dir(dir);
    free(dir);
}
