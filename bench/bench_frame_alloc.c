/* bench_frame_alloc - what filling a fresh frame-sized buffer costs, from
 * malloc (with the broker's M_MMAP_THRESHOLD, so every frame is a fresh
 * mapping) and from pg_mem_frame (huge pages where the kernel has them).
 *   build/default/bench/bench_frame_alloc [WIDTH HEIGHT [ROUNDS]]
 * Prints the median of ROUNDS (default 31) per allocator, in ms. Not a test. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_mem.h"
#include "pg_time.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_fill(void *(*get)(size_t), size_t n, int rounds) {
    double t[101];
    for (int r = 0; r < rounds; r++) {
        double t0 = pg_mono_ms();
        unsigned char *p = get(n);
        if (!p) return -1;
        memset(p, r, n); /* what the conversion does: write every byte once */
        t[r] = pg_mono_ms() - t0;
        free(p);
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp);
    return t[rounds / 2];
}

static void *plain(size_t n) { return malloc(n); }

int main(int argc, char **argv) {
    size_t w = argc > 2 ? strtoul(argv[1], NULL, 10) : 1920, h = argc > 2 ? strtoul(argv[2], NULL, 10) : 1080;
    int rounds = argc > 3 ? atoi(argv[3]) : 31;
    if (rounds < 1 || rounds > 101) rounds = 31;
    mallopt(M_MMAP_THRESHOLD, 128 * 1024); /* as pixelgated sets it */
    size_t n = w * h * 4;
    printf("{\"bytes\":%zu,\"malloc_ms\":%.3f,\"pg_mem_frame_ms\":%.3f}\n", n, median_fill(plain, n, rounds),
           median_fill(pg_mem_frame, n, rounds));
    return 0;
}
