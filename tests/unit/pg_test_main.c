/* SPDX-License-Identifier: MIT */
/* Runner shared by every unit-test binary; see pg_test.h. */
#include <stdbool.h>

#include "pg_test.h"

pg_test_case pg_tests[PG_MAX_TESTS];
int pg_test_count;
int pg_test_side_failures;

/* argv[1], if given: run only the tests whose name contains it, or with a
 * leading '!', only those whose name does not (how one binary is split
 * between the unit label and one that needs root: tests/unit/policy.cmake). */
int main(int argc, char **argv) {
    const char *filter = argc > 1 ? argv[1] : NULL;
    bool exclude = filter && filter[0] == '!';
    if (exclude) filter++;
    int passed = 0, failed = 0;
    for (int i = 0; i < pg_test_count; i++) {
        if (filter && (strstr(pg_tests[i].name, filter) != NULL) == exclude) continue;
        int f = 0, side = pg_test_side_failures;
        pg_tests[i].fn(&f);
        if (pg_test_side_failures != side) f = 1;
        if (f) {
            failed++;
            fprintf(stderr, "FAIL %s\n", pg_tests[i].name);
        } else {
            passed++;
            printf("ok   %s\n", pg_tests[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return (failed == 0 && passed > 0) ? 0 : 1;
}
