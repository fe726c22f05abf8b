/* SPDX-License-Identifier: MIT */
/* pg_test.h - the unit-test harness: no framework, one binary per module.
 *
 * Each test is a function registered with PG_TEST(name); the binary runs all
 * (or those whose names contain argv[1]), prints one line per failing check,
 * and ends with the plain closing line "N passed, N failed". Exit status is 0
 * only when nothing failed and at least one test ran: a binary that ran no
 * test fails.
 */
#ifndef PG_TEST_H
#define PG_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*pg_test_fn)(int *failed);
typedef struct {
    const char *name;
    pg_test_fn fn;
} pg_test_case;

#define PG_MAX_TESTS 512
extern pg_test_case pg_tests[PG_MAX_TESTS];
extern int pg_test_count;
/* Failures a helper found outside the test's own checks (the broker
 * fixture's check of every reply): the running test fails with them. */
extern int pg_test_side_failures;

#if defined(__GNUC__) || defined(__clang__)
#define PG_TEST(name)                                                                   \
    static void name(int *pg_failed_);                                                  \
    __attribute__((constructor)) static void pg_register_##name(void) {                 \
        if (pg_test_count < PG_MAX_TESTS) pg_tests[pg_test_count++] = (pg_test_case){#name, name}; \
    }                                                                                   \
    static void name(int *pg_failed_)
#else
#error "pg_test.h needs constructor attributes (gcc, clang, mingw-w64)"
#endif

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
            *pg_failed_ = 1;                                                            \
        }                                                                               \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                              \
    do {                                                                                \
        long long pg_a_ = (long long)(a), pg_b_ = (long long)(b);                       \
        if (pg_a_ != pg_b_) {                                                           \
            fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s == %lld, %s == %lld\n",     \
                    __FILE__, __LINE__, #a, pg_a_, #b, pg_b_);                          \
            *pg_failed_ = 1;                                                            \
        }                                                                               \
    } while (0)

#define CHECK_STR(a, b)                                                                 \
    do {                                                                                \
        const char *pg_a_ = (a), *pg_b_ = (b);                                          \
        if (!pg_a_ || !pg_b_ || strcmp(pg_a_, pg_b_) != 0) {                            \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s == \"%s\", expected \"%s\"\n",  \
                    __FILE__, __LINE__, #a, pg_a_ ? pg_a_ : "(null)", pg_b_ ? pg_b_ : "(null)"); \
            *pg_failed_ = 1;                                                            \
        }                                                                               \
    } while (0)

/* Stop the current test (after a failed precondition). */
#define REQUIRE(cond)                                                                   \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);  \
            *pg_failed_ = 1;                                                            \
            return;                                                                     \
        }                                                                               \
    } while (0)

#endif
