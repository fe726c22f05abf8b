/* SPDX-License-Identifier: MIT */
/* pg_fingerprint.h - image fingerprints: exact (SHA-256) and perceptual (dHash).
 *
 * Does:
 *  - pg_fingerprint_sha256: SHA-256 of the raw RGBA rows, top to bottom, each row
 *    exactly 4*width bytes (R,G,B,A per pixel; stride padding is never
 *    hashed), so equal pixels give equal digests whatever the stride or the
 *    parent image of a region. Width and height are NOT hashed: a 2x1 and a
 *    1x2 image with the same bytes share a digest.
 *  - pg_fingerprint_dhash: 64-bit difference hash, defined exactly as:
 *      1. grey value of each pixel composited over white:
 *         c' = (c*a + 255*(255-a) + 127) / 255 (integer division; c' = c
 *         when a = 255) for c in R,G,B, then Y = 4899*R' + 9617*G' + 1868*B'
 *         (BT.601 luma in 14-bit fixed point, kept unrounded: no ties are
         rounded away before the comparison);
 *      2. reduce to 9 columns x 8 rows by exact area averaging (each cell the
 *         mean of the source area it covers, fractional pixels weighted by
 *         coverage; computed in integers, no rounding);
 *      3. for row r = 0..7 and column c = 0..7, bit (63 - (8*r + c)) is set
 *         iff cell[r][c] < cell[r][c+1] (brightness rises to the right).
 *    Row-major with the first cell in the most significant bit, as
 *    imagehash's dhash; hex is 16 lower-case digits, most significant first.
 *  - pg_fingerprint_hamming: number of differing bits (0..64); "same" for stability
 *    checks is distance <= PG_FINGERPRINT_DHASH_SAME (5) unless configured.
 * An optional region (image coordinates) restricts either fingerprint to
 * that rectangle; it must lie inside the image (PG_E_USAGE otherwise).
 * Never: allocates more than a few rows, keeps state, touches the platform.
 */
#ifndef PG_FINGERPRINT_H
#define PG_FINGERPRINT_H

#include <stdint.h>

#include "pg_crypto.h"
#include "pg_error.h"
#include "pg_img.h"

#define PG_FINGERPRINT_DHASH_SAME 5

/* out: 32 raw digest bytes (pg_hex() for text). region NULL: whole image. */
pg_err pg_fingerprint_sha256(const pg_img *img, const pg_img_rect *region, uint8_t out[PG_SHA256_LEN], pg_error *e);

pg_err pg_fingerprint_dhash(const pg_img *img, const pg_img_rect *region, uint64_t *out, pg_error *e);

/* 16 hex digits and a NUL. */
void pg_fingerprint_dhash_hex(uint64_t h, char out[17]);
/* Parses exactly 16 hex digits; PG_E_USAGE otherwise. */
pg_err pg_fingerprint_dhash_parse(const char *hex, uint64_t *out, pg_error *e);

int pg_fingerprint_hamming(uint64_t a, uint64_t b);

#endif
