/* SPDX-License-Identifier: MIT */
/* bench_xshm - the floor for a capture: XShmGetImage of a window or the root
 * into a memfd segment (MIT-SHM 1.2), no conversion, as the broker's own user
 * would do it. Compare with XGetImage (the fallback).
 *   bench_xshm N [WINDOW_ID]   (DISPLAY from the environment)
 * Prints {"shm_median_ms":..,"getimage_median_ms":..,"width":..,"height":..}. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xcb/shm.h>
#include <xcb/xcb.h>

#include "pg_time.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    xcb_connection_t *c = xcb_connect(NULL, NULL);
    if (n < 1 || xcb_connection_has_error(c)) {
        fprintf(stderr, "bench_xshm: cannot open display\n");
        return 5;
    }
    xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    xcb_drawable_t d = argc > 2 ? (xcb_drawable_t)strtoul(argv[2], NULL, 0) : s->root;
    xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, xcb_get_geometry(c, d), NULL);
    if (!g) return 4;
    size_t bytes = (size_t)g->width * g->height * 4;
    int fd = memfd_create("bench_xshm", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) return 9;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    xcb_shm_seg_t seg = xcb_generate_id(c);
    xcb_generic_error_t *err = xcb_request_check(c, xcb_shm_attach_fd_checked(c, seg, fd, 0));
    if (err || mem == MAP_FAILED) {
        fprintf(stderr, "bench_xshm: shm_attach_fd failed\n");
        return 7;
    }
    double *t = malloc(sizeof *t * (size_t)n);
    for (int i = 0; i < n; i++) {
        double t0 = pg_mono_ms();
        xcb_generic_error_t *ge = NULL;
        xcb_shm_get_image_reply_t *r = xcb_shm_get_image_reply(
            c, xcb_shm_get_image(c, d, 0, 0, g->width, g->height, ~0u, XCB_IMAGE_FORMAT_Z_PIXMAP, seg, 0), &ge);
        if (!r) {
            fprintf(stderr, "bench_xshm: ShmGetImage failed (error %d)\n", ge ? ge->error_code : -1);
            return 9;
        }
        free(r);
        t[i] = pg_mono_ms() - t0;
    }
    double shm = median(t, n);
    for (int i = 0; i < n; i++) {
        double t0 = pg_mono_ms();
        free(xcb_get_image_reply(c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, d, 0, 0, g->width, g->height, ~0u),
                                 NULL));
        t[i] = pg_mono_ms() - t0;
    }
    printf("{\"shm_median_ms\":%.3f,\"getimage_median_ms\":%.3f,\"width\":%u,\"height\":%u}\n", shm, median(t, n),
           g->width, g->height);
    free(t);
    free(g);
    xcb_disconnect(c);
    return 0;
}
