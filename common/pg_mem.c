/* pg_mem.c - frame-sized buffers on huge pages where the system has them (pg_mem.h). */
#include "pg_mem.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#define HUGE_PAGE ((size_t)2 << 20)

/* Only the whole huge pages inside the buffer are advised, so the tail
 * takes small pages and the buffer holds no more memory than n (plus the
 * alignment's untouched slack); below 4 MiB it is plain malloc. */
void *pg_mem_frame(size_t n) {
    if (n < 2 * HUGE_PAGE) return malloc(n ? n : 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, n) != 0) return NULL;
    (void)madvise(p, n / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE); /* advice: refused, the pages are small, no worse */
    return p;
}
#else
void *pg_mem_frame(size_t n) { return malloc(n ? n : 1); }
#endif

void *pg_mem_frame_zero(size_t n) {
    void *p = pg_mem_frame(n);
    if (p) memset(p, 0, n);
    return p;
}
