/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the PNG decoder's libdeflate fast path against libpng
 * (broker/engine/pg_img_png_fast.c). Whatever the bytes, the decoder and
 * libpng alone give the same answer: the same error, or the same pixels; a
 * difference is a bug of the fast path. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_img_codec_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pg_img_limits lim = {(size_t)1 << 20, (uint64_t)1 << 22};
    pg_img *a = NULL, *b = NULL;
    pg_error e;
    pg_err ra = pg_img_decode_png(data, size, &lim, &a, &e), rb = pg_img_decode_png_libpng(data, size, &lim, &b, &e);
    if (ra != rb) abort();
    if (ra == PG_OK) {
        if (a->width != b->width || a->height != b->height) abort();
        for (uint32_t y = 0; y < a->height; y++)
            if (memcmp(pg_img_row(a, y), pg_img_row(b, y), (size_t)a->width * 4) != 0) abort();
    }
    pg_img_free(a);
    pg_img_free(b);
    return 0;
}
