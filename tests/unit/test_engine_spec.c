/* SPDX-License-Identifier: MIT */
/* Image spec checks against images made here: every rule and every reason
 * code, PNG pHYs and eXIf, JPEG JFIF and EXIF, WebP VP8X/EXIF/animation,
 * EXIF orientation, and the header parsers' refusals of broken input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img_codec.h"
#include "pg_spec.h"
#include "pg_test.h"

typedef struct {
    uint8_t *p;
    size_t n;
} bytes;

static void cat(bytes *b, const void *p, size_t n) {
    b->p = realloc(b->p, b->n + n);
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static void be32_to(uint8_t *p, uint32_t v) { p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = (uint8_t)v; }
static void le32_to(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24; }

static void png_chunk(bytes *b, const char *type, const uint8_t *d, uint32_t n) {
    uint8_t h[8];
    be32_to(h, n);
    memcpy(h + 4, type, 4);
    cat(b, h, 8);
    uint8_t *td = malloc(n + 4);
    memcpy(td, type, 4);
    if (n) memcpy(td + 4, d, n);
    cat(b, d, n);
    uint8_t crc[4];
    be32_to(crc, crc32_of(td, n + 4));
    cat(b, crc, 4);
    free(td);
}

/* A w x h PNG (alpha 255, or one translucent pixel), with an extra chunk after IHDR. */
static bytes png_with(uint32_t w, uint32_t h, bool translucent, const char *type, const uint8_t *d, uint32_t n) {
    pg_img *img = NULL;
    pg_img_new(&img, w, h, NULL);
    memset(img->px, 200, img->stride * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) pg_img_row(img, y)[4 * x + 3] = 255;
    if (translucent) img->px[3] = 10;
    uint8_t *png = NULL;
    size_t len = 0;
    pg_img_encode_png(img, NULL, &png, &len, NULL);
    pg_img_free(img);
    bytes b = {0};
    cat(&b, png, 33); /* signature and IHDR */
    if (type) png_chunk(&b, type, d, n);
    cat(&b, png + 33, len - 33);
    free(png);
    return b;
}

/* A TIFF block: orientation, then (res > 0) X/YResolution res/1 in unit. */
static bytes exif_block(uint16_t orientation, uint32_t res, uint16_t unit) {
    uint8_t t[128] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    int n = res ? 4 : 1;
    t[8] = (uint8_t)n;
    uint8_t *e = t + 10;
    uint8_t ent[4][12] = {{0x12, 0x01, 3, 0, 1, 0, 0, 0, (uint8_t)orientation, 0, 0, 0},
                          {0x1A, 0x01, 5, 0, 1, 0, 0, 0, 80, 0, 0, 0},
                          {0x1B, 0x01, 5, 0, 1, 0, 0, 0, 88, 0, 0, 0},
                          {0x28, 0x01, 3, 0, 1, 0, 0, 0, (uint8_t)unit, 0, 0, 0}};
    memcpy(e, ent, (size_t)n * 12);
    le32_to(t + 80, res), le32_to(t + 84, 1), le32_to(t + 88, res), le32_to(t + 92, 1);
    bytes b = {0};
    cat(&b, t, 96);
    return b;
}

static bytes file_of(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PG_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    bytes b = {0};
    if (!f) return b;
    uint8_t buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cat(&b, buf, n);
    return b;
}

/* engine_photo.jpg (64x48) without its APP0, with the segment given instead. */
static bytes jpeg_with(uint8_t marker, const uint8_t *d, uint16_t n) {
    bytes src = file_of("engine_photo.jpg"), b = {0};
    cat(&b, src.p, 2);
    uint8_t h[4] = {0xff, marker, (uint8_t)((n + 2) >> 8), (uint8_t)(n + 2)};
    if (d) {
        cat(&b, h, 4);
        cat(&b, d, n);
    }
    size_t app0 = 4 + ((size_t)src.p[4] << 8 | src.p[5]); /* SOI, then APP0 */
    cat(&b, src.p + app0, src.n - app0);
    free(src.p);
    return b;
}

static bytes jfif(uint8_t units, uint16_t x, uint16_t y) {
    uint8_t d[14] = {'J', 'F', 'I', 'F', 0, 1, 1, units, (uint8_t)(x >> 8), (uint8_t)x, (uint8_t)(y >> 8), (uint8_t)y, 0, 0};
    return jpeg_with(0xE0, d, 14);
}

/* engine_photo.webp's VP8 frame inside a VP8X file with the given flags and an extra chunk. */
static bytes webp_ext(uint8_t flags, const char *type, const uint8_t *d, uint32_t n) {
    bytes src = file_of("engine_photo.webp"), body = {0};
    uint8_t x[18] = {'V', 'P', '8', 'X', 10, 0, 0, 0, flags, 0, 0, 0, 63, 0, 0, 47, 0, 0};
    cat(&body, "WEBP", 4);
    cat(&body, x, 18);
    if (type) {
        uint8_t h[8];
        memcpy(h, type, 4);
        le32_to(h + 4, n);
        cat(&body, h, 8);
        cat(&body, d, n);
        if (n & 1) cat(&body, "", 1);
    }
    cat(&body, src.p + 12, src.n - 12);
    bytes b = {0};
    uint8_t riff[8] = {'R', 'I', 'F', 'F'};
    le32_to(riff + 4, (uint32_t)body.n);
    cat(&b, riff, 8);
    cat(&b, body.p, body.n);
    free(body.p);
    free(src.p);
    return b;
}

static const pg_spec_check_result *check(const pg_spec_report *r, const char *rule) {
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->checks[i].rule, rule)) return &r->checks[i];
    return NULL;
}

static const char *code(const pg_spec_report *r, const char *rule) {
    const pg_spec_check_result *c = check(r, rule);
    return c ? c->code : "(no such check)";
}

static pg_spec_report run(const bytes *b, const pg_spec_rules *rules) {
    pg_spec_report r;
    pg_img_limits lim = pg_img_limits_default();
    pg_spec_check_file(b->p, b->n, &lim, rules, &r, NULL);
    return r;
}

/* What a file's decode check gives in this build: a build without the
 * format's decoder (the Windows build has PNG only) blocks the whole report
 * with DEPENDENCY_MISSING instead of passing; the header facts the tests
 * check (DPI, orientation, animation) are read either way. */
static const char *decoded(pg_img_format f) { return pg_img_codec_has(f) ? "PASSED" : "DEPENDENCY_MISSING"; }
#define CHECK_PASSED_IF_DECODABLE(r, f)                              \
    do {                                                             \
        bool blocked_;                                               \
        CHECK(pg_spec_passed(r, &blocked_) == pg_img_codec_has(f)); \
        CHECK(blocked_ == !pg_img_codec_has(f));                     \
        CHECK_STR(code(r, "decode"), decoded(f));                    \
    } while (0)


static pg_spec_rules rules_none(void) {
    pg_spec_rules r;
    memset(&r, 0, sizeof r);
    return r;
}

PG_TEST(a_plain_png_passes_format_static_decode_and_its_size_rules) {
    bytes b = png_with(120, 63, false, NULL, NULL, 0);
    pg_spec_rules ru = rules_none();
    ru.formats = PG_SPEC_FMT_PNG;
    ru.file_name = "cover.PNG";
    pg_spec_range_parse("120", &ru.width);
    pg_spec_range_parse("60..70", &ru.height);
    pg_spec_range_parse("1.905", &ru.aspect_ratio);
    pg_spec_range_parse("..100000", &ru.file_size);
    ru.transparency = PG_SPEC_OPAQUE;
    pg_spec_report r = run(&b, &ru);
    bool blocked;
    CHECK(pg_spec_passed(&r, &blocked));
    CHECK_STR(code(&r, "format"), "PASSED");
    CHECK_STR(code(&r, "extension"), "PASSED");
    CHECK_STR(code(&r, "static"), "PASSED");
    CHECK_STR(code(&r, "decode"), "PASSED");
    CHECK_STR(code(&r, "width"), "PASSED");
    CHECK_STR(code(&r, "height"), "PASSED");
    CHECK_STR(code(&r, "aspect_ratio"), "PASSED");
    CHECK_STR(code(&r, "file_size"), "PASSED");
    CHECK_STR(code(&r, "transparency"), "PASSED");
    free(b.p);
}

PG_TEST(every_size_rule_fails_with_its_own_repairable_code) {
    bytes b = png_with(120, 63, false, NULL, NULL, 0);
    pg_spec_rules ru = rules_none();
    pg_spec_range_parse("1200", &ru.width);
    pg_spec_range_parse("630..", &ru.height);
    pg_spec_range_parse("1..1.5", &ru.aspect_ratio);
    pg_spec_range_parse("..10", &ru.file_size);
    ru.transparency = PG_SPEC_TRANSPARENT;
    pg_spec_report r = run(&b, &ru);
    bool blocked;
    CHECK(!pg_spec_passed(&r, &blocked));
    CHECK(!blocked);
    CHECK_STR(code(&r, "width"), "WIDTH_MISMATCH");
    CHECK_STR(code(&r, "height"), "HEIGHT_MISMATCH");
    CHECK_STR(code(&r, "aspect_ratio"), "ASPECT_RATIO_MISMATCH");
    CHECK_STR(code(&r, "file_size"), "FILE_SIZE_MISMATCH");
    CHECK_STR(code(&r, "transparency"), "TRANSPARENCY_MISMATCH");
    free(b.p);
    b = png_with(10, 10, true, NULL, NULL, 0);
    ru = rules_none();
    ru.transparency = PG_SPEC_OPAQUE;
    r = run(&b, &ru);
    CHECK_STR(code(&r, "transparency"), "TRANSPARENCY_MISMATCH");
    ru.transparency = PG_SPEC_TRANSPARENT;
    r = run(&b, &ru);
    CHECK_STR(code(&r, "transparency"), "PASSED");
    free(b.p);
}

PG_TEST(png_phys_in_metres_gives_dpi_and_a_file_without_dpi_fails_a_dpi_rule) {
    uint8_t phys[9];
    be32_to(phys, 11811), be32_to(phys + 4, 11811), phys[8] = 1; /* 300 dpi */
    bytes b = png_with(20, 20, false, "pHYs", phys, 9);
    pg_spec_rules ru = rules_none();
    pg_spec_range_parse("300", &ru.dpi);
    pg_spec_report r = run(&b, &ru);
    CHECK_STR(code(&r, "dpi"), "PASSED");
    CHECK_STR(r.info.dpi_source, "pHYs");
    pg_spec_range_parse("72", &ru.dpi);
    r = run(&b, &ru);
    CHECK_STR(code(&r, "dpi"), "DPI_MISMATCH");
    free(b.p);
    phys[8] = 0; /* unit 0: an aspect ratio, no DPI */
    b = png_with(20, 20, false, "pHYs", phys, 9);
    r = run(&b, &ru);
    CHECK_STR(code(&r, "dpi"), "DPI_MISSING");
    CHECK(!r.info.has_dpi);
    free(b.p);
}

PG_TEST(exif_orientation_swaps_the_dimensions_that_are_checked) {
    bytes x = exif_block(6, 0, 0);
    bytes b = png_with(120, 63, false, "eXIf", x.p, (uint32_t)x.n);
    pg_spec_rules ru = rules_none();
    pg_spec_range_parse("63", &ru.width);
    pg_spec_range_parse("120", &ru.height);
    pg_spec_report r = run(&b, &ru);
    CHECK_EQ_INT(r.info.orientation, 6);
    CHECK_STR(code(&r, "width"), "PASSED");
    CHECK_STR(code(&r, "height"), "PASSED");
    free(b.p);
    free(x.p);
    bytes j = jpeg_with(0xE1, NULL, 0); /* no APP0 at all */
    x = exif_block(8, 150, 2);
    uint8_t app1[200] = {'E', 'x', 'i', 'f', 0, 0};
    memcpy(app1 + 6, x.p, x.n);
    free(j.p);
    j = jpeg_with(0xE1, app1, (uint16_t)(6 + x.n));
    ru = rules_none();
    pg_spec_range_parse("48", &ru.width);
    pg_spec_range_parse("150", &ru.dpi);
    r = run(&j, &ru);
    CHECK_EQ_INT(r.info.orientation, 8);
    CHECK_STR(code(&r, "width"), "PASSED");
    CHECK_STR(code(&r, "dpi"), "PASSED");
    CHECK_STR(r.info.dpi_source, "EXIF");
    CHECK_STR(code(&r, "decode"), decoded(PG_IMG_FMT_JPEG));
    free(j.p);
    free(x.p);
}

PG_TEST(jpeg_jfif_density_in_inches_or_centimetres_gives_dpi) {
    bytes j = jfif(1, 96, 96);
    pg_spec_rules ru = rules_none();
    ru.formats = PG_SPEC_FMT_JPEG;
    ru.file_name = "photo.jpeg";
    pg_spec_range_parse("96", &ru.dpi);
    pg_spec_report r = run(&j, &ru);
    CHECK_PASSED_IF_DECODABLE(&r, PG_IMG_FMT_JPEG);
    CHECK_STR(r.info.dpi_source, "JFIF");
    free(j.p);
    j = jfif(2, 118, 118); /* 118 per cm = 299.7 dpi */
    pg_spec_range_parse("299..301", &ru.dpi);
    r = run(&j, &ru);
    CHECK_STR(code(&r, "dpi"), "PASSED");
    free(j.p);
    j = jfif(0, 1, 1);
    r = run(&j, &ru);
    CHECK_STR(code(&r, "dpi"), "DPI_MISSING");
    free(j.p);
}

PG_TEST(webp_vp8x_exif_is_read_and_an_animated_webp_or_apng_is_not_static) {
    bytes x = exif_block(1, 72, 2);
    bytes w = webp_ext(0x08, "EXIF", x.p, (uint32_t)x.n);
    pg_spec_rules ru = rules_none();
    ru.formats = PG_SPEC_FMT_WEBP;
    ru.file_name = "a.webp";
    pg_spec_range_parse("72", &ru.dpi);
    pg_spec_range_parse("64", &ru.width);
    pg_spec_report r = run(&w, &ru);
    CHECK_PASSED_IF_DECODABLE(&r, PG_IMG_FMT_WEBP);
    free(w.p);
    uint8_t anim[6] = {0};
    w = webp_ext(0x02, "ANIM", anim, 6);
    r = run(&w, &ru);
    CHECK_STR(code(&r, "static"), "NOT_STATIC");
    free(w.p);
    uint8_t actl[8] = {0, 0, 0, 2, 0, 0, 0, 0};
    bytes p = png_with(8, 8, false, "acTL", actl, 8);
    r = run(&p, &ru);
    CHECK_STR(code(&r, "static"), "NOT_STATIC");
    free(p.p);
    free(x.p);
}

PG_TEST(format_extension_missing_and_corrupt_files_are_named_and_repairable) {
    bytes b = png_with(8, 8, false, NULL, NULL, 0);
    pg_spec_rules ru = rules_none();
    ru.formats = PG_SPEC_FMT_JPEG;
    ru.file_name = "cover.jpg";
    pg_spec_report r = run(&b, &ru);
    CHECK_STR(code(&r, "format"), "FORMAT_MISMATCH");
    CHECK_STR(code(&r, "extension"), "EXTENSION_MISMATCH");
    bytes junk = {(uint8_t *)"hello, world", 12};
    r = run(&junk, &ru);
    CHECK_STR(code(&r, "format"), "FORMAT_MISMATCH");
    bytes empty = {NULL, 0};
    r = run(&empty, &ru);
    CHECK_STR(code(&r, "format"), "IMAGE_MISSING");
    ru = rules_none();
    bytes cut = {b.p, b.n - 12}; /* IEND gone */
    r = run(&cut, &ru);
    CHECK_STR(code(&r, "format"), "IMAGE_CORRUPT");
    b.p[45] ^= 0xff; /* inside IDAT: the structure holds, the decode does not */
    r = run(&b, &ru);
    CHECK_STR(code(&r, "decode"), "IMAGE_CORRUPT");
    bool blocked;
    CHECK(!pg_spec_passed(&r, &blocked) && !blocked);
    free(b.p);
}

PG_TEST(a_missing_decoder_and_a_resource_limit_block_instead_of_failing) {
    bytes j = jfif(1, 72, 72);
    pg_spec_rules ru = rules_none();
    ru.decoders = PG_SPEC_FMT_PNG; /* as a broker built without libjpeg */
    pg_spec_report r = run(&j, &ru);
    CHECK_STR(code(&r, "decode"), "DEPENDENCY_MISSING");
    bool blocked;
    CHECK(!pg_spec_passed(&r, &blocked) && blocked);
    free(j.p);
    bytes b = png_with(100, 100, false, NULL, NULL, 0);
    pg_img_limits lim = {1 << 20, 100};
    pg_spec_check_file(b.p, b.n, &lim, &ru, &r, NULL);
    CHECK_STR(code(&r, "decode"), "RESOURCE_LIMIT");
    CHECK(!pg_spec_passed(&r, &blocked) && blocked);
    free(b.p);
}

PG_TEST(ranges_parse_exact_bounded_and_open_and_refuse_the_rest) {
    pg_spec_range g;
    CHECK(pg_spec_range_parse("1200", &g) && g.min == 1200 && g.max == 1200);
    CHECK(pg_spec_range_parse("10..20", &g) && g.min == 10 && g.max == 20);
    CHECK(pg_spec_range_parse("10..", &g) && g.min == 10);
    CHECK(pg_spec_range_parse("..20", &g) && g.max == 20);
    CHECK(!pg_spec_range_parse("..", &g));
    CHECK(!pg_spec_range_parse("20..10", &g));
    CHECK(!pg_spec_range_parse("x", &g));
    CHECK(!pg_spec_range_parse("-5", &g));
}

PG_TEST(the_parsers_refuse_truncated_headers_without_reading_past_them) {
    bytes b = png_with(8, 8, false, NULL, NULL, 0);
    pg_spec_info info;
    for (size_t n = 0; n < b.n; n++) CHECK(pg_spec_probe(b.p, n, &info, NULL) != PG_OK);
    CHECK(pg_spec_probe(b.p, b.n, &info, NULL) == PG_OK);
    free(b.p);
    bytes j = jfif(1, 72, 72);
    for (size_t n = 0; n < 200 && n < j.n; n++) CHECK(pg_spec_probe(j.p, n, &info, NULL) != PG_OK);
    free(j.p);
    pg_exif x;
    uint8_t bad[8] = {'I', 'I', 42, 0, 0xff, 0xff, 0xff, 0x7f};
    CHECK(pg_exif_parse(bad, 8, &x, NULL) != PG_OK);
    CHECK(pg_exif_parse((const uint8_t *)"MM", 2, &x, NULL) != PG_OK);
}
