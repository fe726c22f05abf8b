/* SPDX-License-Identifier: MIT */
/* Image spec checks and the header parsers they need; see pg_spec.h. */
#include "pg_spec.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte readers: every read is checked against the end first ---- */

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[1] << 8 | p[0]); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static uint32_t le24(const uint8_t *p) { return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }

/* ---- EXIF (TIFF structure) ---- */

typedef struct {
    const uint8_t *p;
    size_t n;
    bool le;
} tiff;

static bool t16(const tiff *t, size_t off, uint16_t *v) {
    if (off > t->n || t->n - off < 2) return false;
    *v = t->le ? le16(t->p + off) : be16(t->p + off);
    return true;
}

static bool t32(const tiff *t, size_t off, uint32_t *v) {
    if (off > t->n || t->n - off < 4) return false;
    *v = t->le ? le32(t->p + off) : be32(t->p + off);
    return true;
}

/* A RATIONAL's value: two LONGs at the offset the entry holds. */
static bool rational(const tiff *t, size_t entry, double *out) {
    uint32_t off, num, den;
    if (!t32(t, entry + 8, &off) || !t32(t, off, &num) || !t32(t, (size_t)off + 4, &den) || den == 0) return false;
    *out = (double)num / (double)den;
    return true;
}

pg_err pg_exif_parse(const uint8_t *p, size_t n, pg_exif *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    if (n < 8 || !((p[0] == 'I' && p[1] == 'I') || (p[0] == 'M' && p[1] == 'M')))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "EXIF: no TIFF header");
    tiff t = {p, n, p[0] == 'I'};
    uint16_t magic, count;
    uint32_t ifd;
    if (!t16(&t, 2, &magic) || magic != 42 || !t32(&t, 4, &ifd) || !t16(&t, ifd, &count))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "EXIF: bad TIFF header or IFD0 offset");
    if (count > 512) count = 512; /* IFD0 never needs more; bounds the walk */
    for (uint32_t i = 0; i < count; i++) {
        size_t ent = (size_t)ifd + 2 + 12 * (size_t)i;
        uint16_t tag, type, v16;
        uint32_t cnt;
        if (!t16(&t, ent, &tag) || !t16(&t, ent + 2, &type) || !t32(&t, ent + 4, &cnt)) break;
        if (tag == 0x0112 && type == 3 && cnt == 1 && t16(&t, ent + 8, &v16) && v16 >= 1 && v16 <= 8)
            out->orientation = v16;
        else if (tag == 0x011A && type == 5) rational(&t, ent, &out->x_res);
        else if (tag == 0x011B && type == 5) rational(&t, ent, &out->y_res);
        else if (tag == 0x0128 && type == 3 && t16(&t, ent + 8, &v16) && (v16 == 2 || v16 == 3)) out->res_unit = v16;
    }
    return PG_OK;
}

/* EXIF resolution as dots per inch; false when absent. */
static bool exif_dpi(const pg_exif *x, double *dx, double *dy) {
    if (x->x_res <= 0 || x->y_res <= 0) return false;
    double k = x->res_unit == 3 ? 2.54 : 1.0; /* unit 2 (inch) is the default */
    *dx = x->x_res * k;
    *dy = x->y_res * k;
    return true;
}

static void take_exif(const uint8_t *p, size_t n, pg_spec_info *info, bool dpi_from_exif) {
    pg_exif x;
    if (pg_exif_parse(p, n, &x, NULL) != PG_OK) return;
    if (x.orientation) info->orientation = x.orientation;
    if (dpi_from_exif && !info->has_dpi && exif_dpi(&x, &info->dpi_x, &info->dpi_y)) {
        info->has_dpi = true;
        info->dpi_source = "EXIF";
    }
}

/* ---- PNG ---- */

static pg_err probe_png(const uint8_t *b, size_t n, pg_spec_info *info, pg_error *e) {
    size_t off = 8;
    bool ihdr = false, iend = false;
    while (!iend) {
        if (n - off < 12) return pg_error_set(e, PG_E_BADINPUT, NULL, "PNG: truncated before IEND");
        uint32_t len = be32(b + off);
        const uint8_t *type = b + off + 4, *d = b + off + 8;
        if (len > n - off - 12) return pg_error_set(e, PG_E_BADINPUT, NULL, "PNG: chunk %.4s runs past the end", type);
        if (!ihdr && memcmp(type, "IHDR", 4)) return pg_error_set(e, PG_E_BADINPUT, NULL, "PNG: IHDR is not first");
        if (!memcmp(type, "IHDR", 4)) {
            if (len != 13 || ihdr) return pg_error_set(e, PG_E_BADINPUT, NULL, "PNG: bad IHDR");
            ihdr = true;
            info->raw_width = be32(d);
            info->raw_height = be32(d + 4);
            info->alpha_channel = d[9] == 4 || d[9] == 6;
        } else if (!memcmp(type, "tRNS", 4)) {
            info->alpha_channel = true;
        } else if (!memcmp(type, "acTL", 4)) {
            info->animated = true;
        } else if (!memcmp(type, "pHYs", 4) && len == 9) {
            uint32_t px = be32(d), py = be32(d + 4);
            if (d[8] == 1 && px && py) { /* unit: metre; 0 means an aspect ratio only */
                info->has_dpi = true;
                info->dpi_x = px * 0.0254;
                info->dpi_y = py * 0.0254;
                info->dpi_source = "pHYs";
            }
        } else if (!memcmp(type, "eXIf", 4)) {
            take_exif(d, len, info, true);
        } else if (!memcmp(type, "IEND", 4)) {
            iend = true;
        }
        off += 12 + (size_t)len;
    }
    return PG_OK;
}

/* ---- JPEG ---- */

static bool is_sof(uint8_t m) { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC; }

static pg_err probe_jpeg(const uint8_t *b, size_t n, pg_spec_info *info, pg_error *e) {
    size_t off = 2;
    bool sof = false;
    const uint8_t *exif = NULL;
    size_t exif_len = 0;
    for (;;) {
        while (off < n && b[off] == 0xFF && off + 1 < n && b[off + 1] == 0xFF) off++; /* fill bytes */
        if (n - off < 4 || b[off] != 0xFF) return pg_error_set(e, PG_E_BADINPUT, NULL, "JPEG: truncated or bad marker");
        uint8_t m = b[off + 1];
        if (m == 0xD9 || m == 0xDA) break; /* EOI, SOS: the headers are over */
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
            off += 2;
            continue;
        }
        uint16_t len = be16(b + off + 2);
        if (len < 2 || len > n - off - 2) return pg_error_set(e, PG_E_BADINPUT, NULL, "JPEG: segment runs past the end");
        const uint8_t *d = b + off + 4;
        size_t dl = len - 2u;
        if (is_sof(m) && dl >= 5) {
            info->raw_height = be16(d + 1);
            info->raw_width = be16(d + 3);
            sof = true;
        } else if (m == 0xE0 && dl >= 12 && !memcmp(d, "JFIF\0", 5)) {
            uint16_t xd = be16(d + 8), yd = be16(d + 10);
            if ((d[7] == 1 || d[7] == 2) && xd && yd) { /* 1: per inch, 2: per cm; 0: aspect only */
                double k = d[7] == 2 ? 2.54 : 1.0;
                info->has_dpi = true;
                info->dpi_x = xd * k;
                info->dpi_y = yd * k;
                info->dpi_source = "JFIF";
            }
        } else if (m == 0xE1 && dl >= 6 && !memcmp(d, "Exif\0\0", 6) && !exif) {
            exif = d + 6;
            exif_len = dl - 6;
        }
        off += 2 + (size_t)len;
    }
    if (!sof) return pg_error_set(e, PG_E_BADINPUT, NULL, "JPEG: no frame header (SOF) before the scan");
    if (exif) take_exif(exif, exif_len, info, true); /* JFIF density first, EXIF otherwise */
    return PG_OK;
}

/* ---- WebP ---- */

static pg_err probe_webp(const uint8_t *b, size_t n, pg_spec_info *info, pg_error *e) {
    uint32_t riff = le32(b + 4);
    if (riff < 4 || riff > n - 8) return pg_error_set(e, PG_E_BADINPUT, NULL, "WebP: RIFF size runs past the end");
    size_t end = 8 + (size_t)riff, off = 12;
    bool image = false;
    while (end - off >= 8) {
        const uint8_t *type = b + off, *d = b + off + 8;
        uint32_t len = le32(b + off + 4);
        if (len > end - off - 8) return pg_error_set(e, PG_E_BADINPUT, NULL, "WebP: chunk %.4s runs past the end", type);
        if (!memcmp(type, "VP8X", 4) && len >= 10) {
            info->animated |= (d[0] & 0x02) != 0;
            info->alpha_channel |= (d[0] & 0x10) != 0;
            info->raw_width = le24(d + 4) + 1;
            info->raw_height = le24(d + 7) + 1;
            image = true;
        } else if (!memcmp(type, "VP8 ", 4) && len >= 10) {
            if (d[3] != 0x9d || d[4] != 0x01 || d[5] != 0x2a) return pg_error_set(e, PG_E_BADINPUT, NULL, "WebP: bad VP8 frame");
            if (!info->raw_width) {
                info->raw_width = le16(d + 6) & 0x3fff;
                info->raw_height = le16(d + 8) & 0x3fff;
            }
            image = true;
        } else if (!memcmp(type, "VP8L", 4) && len >= 5) {
            if (d[0] != 0x2f) return pg_error_set(e, PG_E_BADINPUT, NULL, "WebP: bad VP8L signature");
            uint32_t bits = le32(d + 1);
            if (!info->raw_width) {
                info->raw_width = (bits & 0x3fff) + 1;
                info->raw_height = ((bits >> 14) & 0x3fff) + 1;
            }
            info->alpha_channel |= (bits >> 28) & 1;
            image = true;
        } else if (!memcmp(type, "ANIM", 4) || !memcmp(type, "ANMF", 4)) {
            info->animated = true;
        } else if (!memcmp(type, "EXIF", 4)) {
            size_t skip = len >= 6 && !memcmp(d, "Exif\0\0", 6) ? 6 : 0; /* some writers keep the JPEG prefix */
            take_exif(d + skip, len - skip, info, true);
        }
        off += 8 + (size_t)len + (len & 1); /* chunks are padded to even sizes */
        if (off > end) break;
    }
    if (!image) return pg_error_set(e, PG_E_BADINPUT, NULL, "WebP: no image chunk");
    return PG_OK;
}

pg_err pg_spec_probe(const uint8_t *buf, size_t n, pg_spec_info *info, pg_error *e) {
    memset(info, 0, sizeof *info);
    info->format = pg_img_sniff(buf, n);
    pg_err rc;
    switch (info->format) {
    case PG_IMG_FMT_PNG: rc = probe_png(buf, n, info, e); break;
    case PG_IMG_FMT_JPEG: rc = probe_jpeg(buf, n, info, e); break;
    case PG_IMG_FMT_WEBP: rc = probe_webp(buf, n, info, e); break;
    default: return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "not a PNG, JPEG or WebP file");
    }
    if (!rc && (info->raw_width == 0 || info->raw_height == 0))
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "%s: zero width or height", pg_img_format_name(info->format));
    if (!info->orientation) info->orientation = 1;
    bool swap = info->orientation >= 5;
    info->width = swap ? info->raw_height : info->raw_width;
    info->height = swap ? info->raw_width : info->raw_height;
    return rc;
}

/* ---- the checks ---- */

bool pg_spec_range_parse(const char *s, pg_spec_range *out) {
    memset(out, 0, sizeof *out);
    if (!s || !*s) return false;
    const char *dots = strstr(s, "..");
    char *end;
    if (!dots) {
        out->min = out->max = strtod(s, &end);
        out->set = *end == 0 && end != s && out->min >= 0;
        return out->set;
    }
    out->min = 0;
    out->max = HUGE_VAL;
    if (dots != s) { /* strtod would read "10." of "10..20": parse a copy of the left side */
        char left[64];
        size_t n = (size_t)(dots - s);
        if (n >= sizeof left) return false;
        memcpy(left, s, n);
        left[n] = 0;
        out->min = strtod(left, &end);
        if (*end) return false;
    }
    if (dots[2]) {
        out->max = strtod(dots + 2, &end);
        if (*end) return false;
    }
    out->set = out->min >= 0 && out->max >= out->min && (dots != s || dots[2]);
    return out->set;
}

static pg_spec_check_result *add(pg_spec_report *r, const char *rule) {
    if (r->n == PG_SPEC_MAX_CHECKS) r->n--; /* never happens: the checks are fewer */
    pg_spec_check_result *c = &r->checks[r->n++];
    memset(c, 0, sizeof *c);
    c->rule = rule;
    c->code = "PASSED";
    c->passed = true;
    return c;
}

static void fail(pg_spec_check_result *c, const char *code, bool blocking, const char *why) {
    c->passed = false;
    c->code = code;
    c->blocking = blocking;
    snprintf(c->detail, sizeof c->detail, "%s", why);
}

static bool in_range(const pg_spec_range *g, double v, double tol) { return v >= g->min - tol && v <= g->max + tol; }

static void range_check(pg_spec_report *r, const char *rule, const char *code, const pg_spec_range *g, double v,
                        double tol) {
    if (!g->set) return;
    pg_spec_check_result *c = add(r, rule);
    if (in_range(g, v, tol)) return;
    fail(c, code, false, "");
    if (g->max < HUGE_VAL) snprintf(c->detail, sizeof c->detail, "%g is outside %g..%g", v, g->min, g->max);
    else snprintf(c->detail, sizeof c->detail, "%g is under %g", v, g->min);
}

/* Width, height and aspect ratio of w x h, and transparency. */
static void pixel_checks(pg_spec_report *r, const pg_spec_rules *rules, uint32_t w, uint32_t h, bool transparent,
                         bool know_alpha) {
    range_check(r, "width", "WIDTH_MISMATCH", &rules->width, w, 0);
    range_check(r, "height", "HEIGHT_MISMATCH", &rules->height, h, 0);
    range_check(r, "aspect_ratio", "ASPECT_RATIO_MISMATCH", &rules->aspect_ratio, h ? (double)w / h : 0, 0.005);
    if (rules->transparency != PG_SPEC_ANY) {
        pg_spec_check_result *c = add(r, "transparency");
        bool want = rules->transparency == PG_SPEC_TRANSPARENT;
        if (!know_alpha) fail(c, "IMAGE_CORRUPT", false, "not decoded: transparency unknown");
        else if (transparent != want)
            fail(c, "TRANSPARENCY_MISMATCH", false, want ? "no pixel is transparent" : "some pixels are transparent");
    }
}

static bool any_transparent(const pg_img *img) {
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *row = pg_img_row(img, y);
        for (uint32_t x = 0; x < img->width; x++)
            if (row[4 * x + 3] != 255) return true;
    }
    return false;
}

static unsigned fmt_bit(pg_img_format f) {
    return f == PG_IMG_FMT_PNG ? PG_SPEC_FMT_PNG : f == PG_IMG_FMT_JPEG ? PG_SPEC_FMT_JPEG
                                                 : f == PG_IMG_FMT_WEBP ? PG_SPEC_FMT_WEBP : 0;
}

/* Does the file name's extension name this format? */
static bool extension_fits(const char *name, pg_img_format f) {
    const char *dot = strrchr(name, '.');
    if (!dot) return false;
    char ext[8];
    size_t i = 0;
    for (dot++; *dot && i < sizeof ext - 1; dot++) ext[i++] = (char)tolower((unsigned char)*dot);
    ext[i] = 0;
    if (*dot) return false;
    if (f == PG_IMG_FMT_PNG) return !strcmp(ext, "png");
    if (f == PG_IMG_FMT_JPEG) return !strcmp(ext, "jpg") || !strcmp(ext, "jpeg");
    return f == PG_IMG_FMT_WEBP && !strcmp(ext, "webp");
}

/* Structure: the container parses, is a format asked for, named by its
 * extension, and static. False when nothing more can be judged. */
static bool structure(const uint8_t *buf, size_t n, const pg_spec_rules *rules, pg_spec_report *r) {
    pg_spec_check_result *c = add(r, "format");
    if (n == 0) {
        fail(c, "IMAGE_MISSING", false, "the file is empty");
        return false;
    }
    pg_error pe;
    pg_err rc = pg_spec_probe(buf, n, &r->info, &pe);
    if (rc == PG_E_UNSUPPORTED) {
        fail(c, "FORMAT_MISMATCH", false, "not a PNG, JPEG or WebP file");
        return false;
    }
    if (rc) {
        fail(c, "IMAGE_CORRUPT", false, "");
        snprintf(c->detail, sizeof c->detail, "%.150s", pe.message);
        return false;
    }
    if (rules->formats && !(rules->formats & fmt_bit(r->info.format)))
        fail(c, "FORMAT_MISMATCH", false, "the content is another format than asked");
    if (rules->file_name) {
        pg_spec_check_result *x = add(r, "extension");
        if (!extension_fits(rules->file_name, r->info.format))
            fail(x, "EXTENSION_MISMATCH", false, "the name's extension does not name its content");
    }
    pg_spec_check_result *s = add(r, "static");
    if (r->info.animated) {
        fail(s, "NOT_STATIC", false, "an animated image");
        return false;
    }
    return true;
}

pg_err pg_spec_check_file(const uint8_t *buf, size_t n, const pg_img_limits *lim, const pg_spec_rules *rules,
                          pg_spec_report *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    out->file_size = n;
    bool ok = structure(buf, n, rules, out);
    if (ok) {
        pg_spec_check_result *c = add(out, "decode");
        pg_img *img = NULL;
        pg_error de;
        bool have = rules->decoders ? (rules->decoders & fmt_bit(out->info.format)) != 0
                                    : pg_img_codec_has(out->info.format);
        pg_err rc = !have ? PG_E_UNSUPPORTED : pg_img_decode(buf, n, lim, &img, &de);
        if (rc == PG_E_UNSUPPORTED)
            fail(c, "DEPENDENCY_MISSING", true, "this broker has no decoder for the format");
        else if (rc == PG_E_BADINPUT && lim && (uint64_t)out->info.raw_width * out->info.raw_height > lim->max_pixels)
            fail(c, "RESOURCE_LIMIT", true, "over the policy's decoded-pixel limit (images.max_pixels)");
        else if (rc) {
            fail(c, "IMAGE_CORRUPT", false, "");
            snprintf(c->detail, sizeof c->detail, "incomplete decode: %.130s", de.message);
        } else {
            out->decoded = true;
            out->transparent = any_transparent(img);
        }
        pg_img_free(img);
    }
    range_check(out, "file_size", "FILE_SIZE_MISMATCH", &rules->file_size, (double)n, 0);
    if (ok) pixel_checks(out, rules, out->info.width, out->info.height, out->transparent, out->decoded);
    if (ok && rules->dpi.set) {
        pg_spec_check_result *c = add(out, "dpi");
        if (!out->info.has_dpi) fail(c, "DPI_MISSING", false, "the file records no DPI: unknown");
        else if (!in_range(&rules->dpi, out->info.dpi_x, 0.5) || !in_range(&rules->dpi, out->info.dpi_y, 0.5))
        {
            fail(c, "DPI_MISMATCH", false, "");
            snprintf(c->detail, sizeof c->detail, "%g x %g dpi is outside the rule", out->info.dpi_x, out->info.dpi_y);
        }
    }
    (void)e;
    return PG_OK;
}

void pg_spec_check_pixels(const pg_img *img, const pg_spec_rules *rules, pg_spec_report *out) {
    memset(out, 0, sizeof *out);
    out->info.width = out->info.raw_width = img->width;
    out->info.height = out->info.raw_height = img->height;
    out->info.orientation = 1;
    out->decoded = true;
    out->transparent = any_transparent(img);
    pixel_checks(out, rules, img->width, img->height, out->transparent, true);
}

bool pg_spec_passed(const pg_spec_report *r, bool *blocked) {
    bool pass = true;
    *blocked = false;
    for (size_t i = 0; i < r->n; i++) {
        pass &= r->checks[i].passed;
        *blocked |= r->checks[i].blocking;
    }
    return pass;
}
