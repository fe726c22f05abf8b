/* SPDX-License-Identifier: MIT */
/* pg_ocr_unavailable.c - pg_ocr for a build without Tesseract (PG_HAVE_TESSERACT
 * is 0: the mingw-w64 build, where no Tesseract is packaged). Every call that
 * would read text answers PG_E_UNSUPPORTED with one message that names the
 * cause and the fix, so an agent sees "not in this build" rather than "no
 * text found". Compiled instead of pg_ocr.c; see broker/ocr/CMakeLists.txt. */
#include "pg_ocr.h"

#include <string.h>

#if PG_HAVE_TESSERACT
#error "pg_ocr_unavailable.c is for builds without Tesseract"
#endif

static pg_err unavailable(pg_error *e) {
    return pg_error_set(e, PG_E_UNSUPPORTED, "use a Linux broker for OCR, or build this one with Tesseract",
                        "%s", PG_OCR_UNAVAILABLE_MESSAGE);
}

pg_err pg_ocr_new(pg_ocr **out, const char *lang, const char *datapath, pg_error *e) {
    *out = NULL;
    return unavailable(e);
}

void pg_ocr_free(pg_ocr *o) { (void)o; /* pg_ocr_new never made one */ }

pg_err pg_ocr_run(pg_ocr *o, const pg_img *img, const pg_img_rect *region, pg_ocr_result *out, pg_error *e) {
    return pg_ocr_run_opts(o, img, region, NULL, out, e);
}

pg_err pg_ocr_run_opts(pg_ocr *o, const pg_img *img, const pg_img_rect *region, const pg_ocr_opts *opts,
                       pg_ocr_result *out, pg_error *e) {
    memset(out, 0, sizeof *out); /* the contract: empty on error, safe to fini */
    return unavailable(e);
}

void pg_ocr_result_fini(pg_ocr_result *r) {
    if (r) memset(r, 0, sizeof *r); /* only empty results exist in this build */
}

pg_err pg_ocr_find(const pg_ocr_result *r, const char *phrase, unsigned flags, size_t start_word, pg_ocr_match *m,
                   pg_error *e) {
    memset(m, 0, sizeof *m);
    return unavailable(e);
}

pg_err pg_ocr_nearest(const pg_ocr_result *r, const char *phrase, unsigned flags, pg_ocr_near *n, pg_error *e) {
    memset(n, 0, sizeof *n);
    return unavailable(e);
}

char *pg_ocr_normalize(const char *s, pg_error *e) {
    unavailable(e);
    return NULL;
}

bool pg_ocr_can_normalize(void) { return false; }

int pg_ocr_thread_limit(void) { return 0; /* no OpenMP runtime is loaded */ }

pg_err pg_ocr_ensure_single_thread(char *const argv[], pg_error *e) { return PG_OK; /* nothing to limit */ }

const char *pg_ocr_tesseract_version(void) { return "none (built without Tesseract)"; }

void pg_ocr_bind_cache(pg_ocr *o, pg_ocr_cache *c, uint32_t uid) {
    (void)o, (void)c, (void)uid; /* nothing is read, so nothing is cached */
}

bool pg_ocr_auto_inverts(const pg_img *img, const pg_img_rect *region) {
    (void)img, (void)region;
    return false;
}

pg_err pg_ocr_result_order(pg_ocr_word *words, size_t n, const pg_img_rect *reg, pg_ocr_result *out, pg_error *e) {
    (void)words, (void)n, (void)reg;
    memset(out, 0, sizeof *out);
    return unavailable(e);
}

pg_err pg_ocr_clean_cuts(const pg_img *img, bool inv, bool *clean, pg_error *e) {
    (void)img, (void)inv, (void)clean;
    return unavailable(e);
}
