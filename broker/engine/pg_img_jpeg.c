/* SPDX-License-Identifier: MIT */
/* JPEG decode with libjpeg(-turbo). Strict: any corrupt-data warning (for
 * example a truncated file that libjpeg would pad with grey) is an error, and
 * progressive files may not have more scans than PG_JPEG_MAX_SCANS (a
 * known CPU bomb). Without PG_HAVE_JPEG every entry point is UNSUPPORTED. */
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img_codec.h"
#include "pg_img_codec_private.h"

#ifdef PG_HAVE_JPEG
#include <jpeglib.h>

#define PG_JPEG_MAX_SCANS 256

typedef struct {
    struct jpeg_error_mgr pub;
    struct jpeg_progress_mgr progress;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX];
} jpeg_ctx;

static void jpeg_on_error(j_common_ptr c) {
    jpeg_ctx *x = (jpeg_ctx *)c->err;
    (*c->err->format_message)(c, x->msg);
    longjmp(x->jb, 1);
}

static void jpeg_on_message(j_common_ptr c, int level) {
    if (level < 0) jpeg_on_error(c); /* corrupt-data warning: refuse */
}

static void jpeg_on_progress(j_common_ptr c) {
    jpeg_ctx *x = (jpeg_ctx *)c->err;
    if (c->is_decompressor && ((j_decompress_ptr)c)->input_scan_number > PG_JPEG_MAX_SCANS) {
        snprintf(x->msg, sizeof x->msg, "more than %d progressive scans", PG_JPEG_MAX_SCANS);
        longjmp(x->jb, 1);
    }
}

static void jpeg_ctx_init(jpeg_ctx *x, struct jpeg_decompress_struct *cinfo) {
    cinfo->err = jpeg_std_error(&x->pub);
    x->pub.error_exit = jpeg_on_error;
    x->pub.emit_message = jpeg_on_message;
    x->msg[0] = 0;
    x->progress.progress_monitor = jpeg_on_progress;
}

bool pg_img_jpeg_available(void) { return true; }

/* Expand one decoded scanline of `comps` components to RGBA. CMYK from
 * Adobe files is stored inverted, so R = C*K/255 with the stored values. */
static void jpeg_row_to_rgba(const uint8_t *in, int comps, J_COLOR_SPACE cs, uint32_t w, uint8_t *out) {
    for (uint32_t x = 0; x < w; x++) {
        const uint8_t *p = in + (size_t)x * comps;
        uint8_t *q = out + (size_t)x * 4;
        if (cs == JCS_CMYK) {
            q[0] = (uint8_t)((p[0] * p[3] + 127) / 255);
            q[1] = (uint8_t)((p[1] * p[3] + 127) / 255);
            q[2] = (uint8_t)((p[2] * p[3] + 127) / 255);
        } else if (comps == 1) {
            q[0] = q[1] = q[2] = p[0];
        } else {
            q[0] = p[0];
            q[1] = p[1];
            q[2] = p[2];
        }
        q[3] = 255;
    }
}

static void jpeg_pick_output(struct jpeg_decompress_struct *c) {
    if (c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK)
        c->out_color_space = JCS_CMYK;
    else if (c->jpeg_color_space == JCS_GRAYSCALE)
        c->out_color_space = JCS_GRAYSCALE;
    else
#ifdef JCS_EXTENSIONS
        c->out_color_space = JCS_EXT_RGBA; /* libjpeg-turbo: straight into our rows */
#else
        c->out_color_space = JCS_RGB;
#endif
}

typedef struct {
    struct jpeg_decompress_struct cinfo;
    jpeg_ctx err;
    pg_img *img;
    uint8_t *line;
} jpeg_dec;

static void jpeg_read_pixels(jpeg_dec *d) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    bool direct = c->output_components == 4 && c->out_color_space != JCS_CMYK;
    while (c->output_scanline < c->output_height) {
        uint8_t *row = pg_img_row(d->img, c->output_scanline);
        JSAMPROW target = direct ? row : d->line;
        if (jpeg_read_scanlines(c, &target, 1) != 1) {
            snprintf(d->err.msg, sizeof d->err.msg, "scanline could not be read");
            longjmp(d->err.jb, 1);
        }
        if (!direct) jpeg_row_to_rgba(d->line, c->output_components, c->out_color_space, d->img->width, row);
    }
}

pg_err pg_img_decode_jpeg(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_JPEG, e);
    if (rc) return rc;
    if (n > ULONG_MAX) /* libjpeg takes an unsigned long (32 bits on Windows) */
        return pg_error_set(e, PG_E_BADINPUT, NULL, "JPEG data too large for libjpeg");
    /* On the heap: everything here must survive longjmp unchanged-or-read. */
    jpeg_dec *d = calloc(1, sizeof *d);
    if (!d) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    jpeg_ctx_init(&d->err, &d->cinfo);
    if (setjmp(d->err.jb)) {
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "corrupt JPEG: %s", d->err.msg);
        goto done;
    }
    jpeg_create_decompress(&d->cinfo);
    d->cinfo.progress = &d->err.progress;
    jpeg_mem_src(&d->cinfo, buf, (unsigned long)n);
    jpeg_read_header(&d->cinfo, TRUE);
    rc = pg_img_limits_check(lim, d->cinfo.image_width, d->cinfo.image_height, e);
    if (rc) goto done;
    jpeg_pick_output(&d->cinfo);
    jpeg_start_decompress(&d->cinfo);
    rc = pg_img_new(&d->img, d->cinfo.output_width, d->cinfo.output_height, e);
    if (!rc && !(d->line = malloc((size_t)d->cinfo.output_width * d->cinfo.output_components)))
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (rc) goto done;
    jpeg_read_pixels(d);
    jpeg_finish_decompress(&d->cinfo);
    *out = d->img;
    d->img = NULL;
done:
    jpeg_destroy_decompress(&d->cinfo);
    pg_img_free(d->img);
    free(d->line);
    free(d);
    return rc;
}

pg_err pg_img_probe_jpeg(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e) {
    if (n > ULONG_MAX) return pg_error_set(e, PG_E_BADINPUT, NULL, "JPEG data too large for libjpeg");
    jpeg_dec *d = calloc(1, sizeof *d);
    if (!d) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_err rc = PG_OK;
    jpeg_ctx_init(&d->err, &d->cinfo);
    if (setjmp(d->err.jb)) {
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "corrupt JPEG: %s", d->err.msg);
    } else {
        jpeg_create_decompress(&d->cinfo);
        jpeg_mem_src(&d->cinfo, buf, (unsigned long)n);
        jpeg_read_header(&d->cinfo, TRUE);
        *w = d->cinfo.image_width;
        *h = d->cinfo.image_height;
    }
    jpeg_destroy_decompress(&d->cinfo);
    free(d);
    return rc;
}

#else /* !PG_HAVE_JPEG */

bool pg_img_jpeg_available(void) { return false; }

static pg_err jpeg_missing(pg_error *e) {
    return pg_error_set(e, PG_E_UNSUPPORTED, "send PNG instead; this build has no JPEG decoder",
                        "JPEG support was not compiled into this build (libjpeg missing)");
}

pg_err pg_img_decode_jpeg(const uint8_t *buf, size_t n, const pg_img_limits *lim, pg_img **out, pg_error *e) {
    *out = NULL;
    pg_err rc = pg_img_check_input(buf, n, lim, PG_IMG_FMT_JPEG, e);
    return rc ? rc : jpeg_missing(e);
}

pg_err pg_img_probe_jpeg(const uint8_t *buf, size_t n, uint32_t *w, uint32_t *h, pg_error *e) {
    return jpeg_missing(e);
}

#endif
