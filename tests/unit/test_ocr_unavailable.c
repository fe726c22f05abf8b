/* SPDX-License-Identifier: MIT */
/* pg_ocr in a build without Tesseract (the mingw build): every reading call
 * answers UNSUPPORTED with the documented message, and nothing else breaks.
 * The absence of OCR is a tested behaviour, not a silent gap. */
#include <stdint.h>

#include "pg_ocr.h"
#include "pg_test.h"

static const char *WANT =
    "OCR is not available in this build: pixelgate was built without Tesseract (docs/windows.md says how to "
    "build with it)";

PG_TEST(build_says_it_has_no_tesseract) {
    CHECK_EQ_INT(PG_HAVE_TESSERACT, 0);
    CHECK_STR(PG_OCR_UNAVAILABLE_MESSAGE, WANT);
    CHECK(strstr(pg_ocr_tesseract_version(), "without Tesseract") != NULL);
    CHECK_EQ_INT(pg_ocr_thread_limit(), 0);
    pg_error e;
    CHECK_EQ_INT(pg_ocr_ensure_single_thread(NULL, &e), PG_OK);
}

PG_TEST(new_is_unsupported_with_the_message) {
    pg_ocr *o = (pg_ocr *)&o; /* must be reset to NULL */
    pg_error e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(pg_ocr_new(&o, "eng", NULL, &e), PG_E_UNSUPPORTED);
    CHECK(o == NULL);
    CHECK_EQ_INT(e.code, PG_E_UNSUPPORTED);
    CHECK_STR(e.message, WANT);
    CHECK_STR(pg_err_name(e.code), "UNSUPPORTED");
    pg_ocr_free(o);
}

PG_TEST(run_and_find_are_unsupported_and_leave_empty_results) {
    uint8_t px[4 * 4 * 4] = {0};
    pg_img img = {.width = 4, .height = 4, .stride = 16, .px = px};
    pg_ocr_result r;
    memset(&r, 0xAB, sizeof r);
    pg_error e;
    CHECK_EQ_INT(pg_ocr_run(NULL, &img, NULL, &r, &e), PG_E_UNSUPPORTED);
    CHECK_STR(e.message, WANT);
    CHECK(r.text == NULL && r.words == NULL && r.n_words == 0); /* safe to fini */
    pg_ocr_opts opts = {.scale = 1};
    CHECK_EQ_INT(pg_ocr_run_opts(NULL, &img, NULL, &opts, &r, &e), PG_E_UNSUPPORTED);
    CHECK_STR(e.message, WANT);
    pg_ocr_match m;
    CHECK_EQ_INT(pg_ocr_find(&r, "Save", 0, 0, &m, &e), PG_E_UNSUPPORTED);
    CHECK_STR(e.message, WANT);
    CHECK(m.n_words == 0);
    pg_ocr_result_fini(&r);
}
