/* pg_mem.h - buffers the size of whole frames, allocated so that filling
 * them is cheap.
 *
 * Why: a capture or a decoded image is a fresh buffer of megabytes (8 MB for
 * a 1080p frame) that the token store then keeps, so it cannot be reused.
 * From malloc it is mapped page by page as it is first written: 2048 faults,
 * about 4.4 ms for 8 MB on this machine (docs/performance.md), more than
 * converting its pixels. On Linux a buffer of 4 MiB or more is aligned to
 * 2 MiB and its whole 2 MiB pages advised MADV_HUGEPAGE, so the kernel maps
 * it with a few huge pages (0.8 ms for the same 8 MB, zeroing included)
 * where transparent huge pages are enabled (Debian's default: madvise);
 * the tail keeps small pages, so it holds no more memory than asked.
 * Elsewhere, and for smaller buffers, it is malloc.
 * Contract: free the result with free(); NULL when out of memory.
 */
#ifndef PG_MEM_H
#define PG_MEM_H

#include <stddef.h>

/* n bytes, uninitialised. */
void *pg_mem_frame(size_t n);
/* n bytes, zeroed (as calloc(n, 1)). */
void *pg_mem_frame_zero(size_t n);

#endif
