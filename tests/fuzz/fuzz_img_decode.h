/* SPDX-License-Identifier: MIT */
/* fuzz_img_decode.h - the body shared by the image-loader fuzz targets: decode
 * through the caps (small ones, so the fuzzer explores instead of allocating),
 * touch every decoded pixel, and probe the header. Any crash, leak, hang or
 * sanitizer report is a bug; every outcome other than PG_OK must be a clean
 * PG_E_BADINPUT (or PG_E_UNSUPPORTED in a build without the codec). */
#ifndef FUZZ_IMG_DECODE_H
#define FUZZ_IMG_DECODE_H

#include <stdint.h>
#include <stdlib.h>

#include "pg_fingerprint.h"
#include "pg_img_codec.h"

typedef pg_err (*fuzz_decoder)(const uint8_t *, size_t, const pg_img_limits *, pg_img **, pg_error *);

static int fuzz_decode(const uint8_t *data, size_t size, fuzz_decoder decode) {
    pg_img_limits lim = {(size_t)1 << 20, (uint64_t)1 << 22};
    pg_img *img = NULL;
    pg_error e;
    pg_err rc = decode(data, size, &lim, &img, &e);
    if (rc == PG_OK) {
        uint64_t h;
        if (pg_fingerprint_dhash(img, NULL, &h, &e) != PG_OK) abort();
        pg_img_free(img);
    } else if (rc != PG_E_BADINPUT && rc != PG_E_UNSUPPORTED) {
        abort();
    }
    pg_img_format f;
    uint32_t w, hh;
    (void)pg_img_probe(data, size, &f, &w, &hh, &e);
    return 0;
}

#endif
