/* SPDX-License-Identifier: MIT */
/* pg_spec.h - static image specifications: the header facts of a PNG, JPEG
 * or WebP file (format, size, EXIF orientation, DPI, animation) and the
 * checks a user asks of them.
 *
 * Parsers (each bounds-checked against the buffer, never reading past it,
 * never allocating, fuzzed by tests/fuzz/fuzz_spec.c):
 *   pg_exif_parse  a TIFF-structured EXIF block (II or MM): IFD0's
 *                  Orientation (0x0112), XResolution/YResolution
 *                  (0x011A/0x011B, RATIONAL) and ResolutionUnit (0x0128:
 *                  2 inch, 3 centimetre);
 *   pg_spec_probe  the container: PNG chunks (IHDR first, IEND last, acTL:
 *                  animated, pHYs: pixels per metre when its unit is 1,
 *                  eXIf), JPEG segments up to SOS (SOFn size, APP0 JFIF
 *                  density, APP1 Exif), WebP RIFF chunks (VP8/VP8L/VP8X
 *                  size, VP8X animation flag, ANIM/ANMF, EXIF).
 * DPI: PNG pHYs (unit metre) or EXIF; JPEG JFIF density (dpi or dpcm),
 * else EXIF; WebP EXIF. None of these: no DPI (a DPI rule then fails with
 * DPI_MISSING: unknown is not compliant).
 * Dimensions are reported after EXIF orientation (5..8 swap width and
 * height).
 *
 * Checks (pg_spec_check): every rule asked is one check with a reason code;
 * a check that fails is repairable (the file can be fixed) unless its code
 * says the broker could not judge (DEPENDENCY_MISSING: no decoder here;
 * RESOURCE_LIMIT: over the policy's image limits), which blocks.
 * Never: reads a file, scales, or keeps state.
 */
#ifndef PG_SPEC_H
#define PG_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"
#include "pg_img_codec.h"

typedef struct {
    uint16_t orientation;  /* 1..8; 0: not given */
    double x_res, y_res;   /* as written; 0: not given */
    uint16_t res_unit;     /* 2 inch (default), 3 cm; 0: not given */
} pg_exif;

/* PG_OK, or PG_E_BADINPUT when the block is not a TIFF structure. Tags it
 * cannot read are left unset. */
pg_err pg_exif_parse(const uint8_t *tiff, size_t n, pg_exif *out, pg_error *e);

typedef struct {
    pg_img_format format;
    uint32_t raw_width, raw_height; /* as stored */
    uint32_t width, height;         /* after orientation */
    uint16_t orientation;           /* 1..8 (1 when none) */
    bool has_dpi;
    double dpi_x, dpi_y;
    const char *dpi_source;         /* "pHYs", "JFIF", "EXIF", NULL */
    bool animated;
    bool alpha_channel;             /* the format stores alpha (PNG colour type 4/6 or tRNS, WebP alpha) */
} pg_spec_info;

/* Header facts of buf. PG_E_BADINPUT (a corrupt or truncated container,
 * naming what) or PG_E_UNSUPPORTED (not PNG, JPEG or WebP). */
pg_err pg_spec_probe(const uint8_t *buf, size_t n, pg_spec_info *info, pg_error *e);

/* ---- the checks ---- */

typedef struct {
    bool set;
    double min, max; /* exact: min == max */
} pg_spec_range;

/* "1200" (exact), "1000..1400", "1000.." or "..1400"; false when malformed. */
bool pg_spec_range_parse(const char *s, pg_spec_range *out);

#define PG_SPEC_FMT_PNG 1u
#define PG_SPEC_FMT_JPEG 2u
#define PG_SPEC_FMT_WEBP 4u

typedef enum { PG_SPEC_ANY = 0, PG_SPEC_TRANSPARENT = 1, PG_SPEC_OPAQUE = 2 } pg_spec_alpha;

typedef struct {
    unsigned formats;          /* PG_SPEC_FMT_*; 0: any of the three */
    const char *file_name;     /* for the extension check; NULL: not known */
    pg_spec_range width, height, aspect_ratio, file_size, dpi;
    pg_spec_alpha transparency;
    unsigned decoders;         /* PG_SPEC_FMT_* this broker decodes; 0: what pg_img_codec_has says */
} pg_spec_rules;

#define PG_SPEC_MAX_CHECKS 16

typedef struct {
    const char *rule;   /* "format", "extension", "static", "decode", "width", ... */
    const char *code;   /* "PASSED" or the reason */
    bool passed;
    bool blocking;      /* the broker could not judge: not the file's fault */
    char detail[160];
} pg_spec_check_result;

typedef struct {
    pg_spec_info info;
    uint64_t file_size;
    bool transparent;   /* some decoded pixel has alpha < 255 */
    bool decoded;
    size_t n;
    pg_spec_check_result checks[PG_SPEC_MAX_CHECKS];
} pg_spec_report;

/* Every check of a file's bytes (the structural ones always: format,
 * extension when the name is known, static, complete decode; then those
 * the rules ask). PG_OK whatever the verdicts; see pg_spec_passed. */
pg_err pg_spec_check_file(const uint8_t *buf, size_t n, const pg_img_limits *lim, const pg_spec_rules *rules,
                          pg_spec_report *out, pg_error *e);
/* The checks that apply to pixels alone (width, height, aspect ratio,
 * transparency), for a capture. */
void pg_spec_check_pixels(const pg_img *img, const pg_spec_rules *rules, pg_spec_report *out);

/* All passed? *blocked: a blocking check failed. */
bool pg_spec_passed(const pg_spec_report *r, bool *blocked);

#endif
