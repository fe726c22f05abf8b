/* SPDX-License-Identifier: MIT */
/* tess_smoke.c - proves that the Tesseract C API (tesseract/capi.h), linked
 * statically from scripts/mingw-tesseract.sh's prefix, recognises text in a
 * Windows process (under Wine), the way broker/ocr/pg_ocr.c uses it: an
 * engine from TessBaseAPIInit2(OEM_LSTM_ONLY), raw 8-bit pixels through
 * TessBaseAPISetImage, GetUTF8Text, then a word-level result iterator.
 *
 * Usage: tess_smoke IMAGE.png TESSDATA_DIR EXPECTED [REPEAT]
 * Prints the Tesseract version, the text, the words with confidence and box,
 * and timings (engine init, first recognition, mean of REPEAT more);
 * exits 0 when the text contains EXPECTED, 1 when it does not, 2 on errors.
 * Builds natively too (Linux, host libtesseract-dev) for a timing baseline. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

#include <leptonica/allheaders.h>
#include <tesseract/capi.h>

static double now_ms(void) {
#ifdef _WIN32
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1e3 / (double)f.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
#endif
}

/* The broker hands Tesseract raw gray pixels, not a Pix: do the same. */
static unsigned char *gray_bytes(PIX *pix, int *w, int *h) {
    PIX *g = pixConvertTo8(pix, 0);
    if (!g) return NULL;
    *w = (int)pixGetWidth(g);
    *h = (int)pixGetHeight(g);
    unsigned char *buf = malloc((size_t)*w * (size_t)*h);
    if (buf) {
        l_uint32 *data = pixGetData(g);
        int wpl = pixGetWpl(g);
        for (int y = 0; y < *h; y++)
            for (int x = 0; x < *w; x++) buf[(size_t)y * *w + x] = (unsigned char)GET_DATA_BYTE(data + y * wpl, x);
    }
    pixDestroy(&g);
    return buf;
}

static char *recognise(TessBaseAPI *api, const unsigned char *px, int w, int h, double *ms) {
    double t0 = now_ms();
    TessBaseAPISetImage(api, px, w, h, 1, w);
    char *text = TessBaseAPIRecognize(api, NULL) == 0 ? TessBaseAPIGetUTF8Text(api) : NULL;
    *ms = now_ms() - t0;
    return text;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s IMAGE.png TESSDATA_DIR EXPECTED [REPEAT]\n", argv[0]);
        return 2;
    }
    const char *image = argv[1], *datapath = argv[2], *expected = argv[3];
    int repeat = argc > 4 ? atoi(argv[4]) : 3;
    printf("tesseract %s, leptonica: %s\n", TessVersion(), getLeptonicaVersion());

    PIX *pix = pixRead(image);
    if (!pix) {
        fprintf(stderr, "pixRead(%s) failed\n", image);
        return 2;
    }
    int w, h;
    unsigned char *px = gray_bytes(pix, &w, &h);
    pixDestroy(&pix);
    if (!px) return 2;

    double t0 = now_ms();
    TessBaseAPI *api = TessBaseAPICreate();
    /* As pg_ocr.c does: tprintf output nowhere (Tesseract maps /dev/null to
     * nul on Windows itself). */
    TessBaseAPISetVariable(api, "debug_file", "/dev/null");
    if (!api || TessBaseAPIInit2(api, datapath, "eng", OEM_LSTM_ONLY) != 0) {
        fprintf(stderr, "TessBaseAPIInit2(datapath=%s, eng) failed\n", datapath);
        return 2;
    }
    double init_ms = now_ms() - t0;
    TessBaseAPISetVariable(api, "classify_enable_learning", "0");
    TessBaseAPISetPageSegMode(api, PSM_SINGLE_BLOCK);

    double first_ms;
    char *text = recognise(api, px, w, h, &first_ms);
    if (!text) {
        fprintf(stderr, "recognition failed\n");
        return 2;
    }
    printf("text: %s", text);

    TessResultIterator *it = TessBaseAPIGetIterator(api);
    int words = 0;
    if (it) {
        TessPageIterator *pit = TessResultIteratorGetPageIterator(it);
        do {
            char *word = TessResultIteratorGetUTF8Text(it, RIL_WORD);
            int x0, y0, x1, y1;
            if (word && TessPageIteratorBoundingBox(pit, RIL_WORD, &x0, &y0, &x1, &y1)) {
                printf("word %d: \"%s\" conf %.1f box %d,%d-%d,%d\n", ++words, word,
                       TessResultIteratorConfidence(it, RIL_WORD), x0, y0, x1, y1);
            }
            TessDeleteText(word);
        } while (TessResultIteratorNext(it, RIL_WORD));
        TessResultIteratorDelete(it);
    }

    double sum = 0;
    for (int i = 0; i < repeat; i++) {
        double ms;
        char *again = recognise(api, px, w, h, &ms);
        if (!again || strcmp(again, text) != 0) {
            fprintf(stderr, "repeat %d gave a different text: %s", i, again ? again : "(none)\n");
            return 1;
        }
        TessDeleteText(again);
        sum += ms;
    }
    printf("timing: init %.1f ms, first recognition %.1f ms, mean of %d more %.1f ms (%dx%d px)\n", init_ms,
           first_ms, repeat, repeat ? sum / repeat : 0.0, w, h);

    int ok = strstr(text, expected) != NULL && words > 0;
    printf("%s: \"%s\" %s the text\n", ok ? "PASS" : "FAIL", expected, ok ? "is in" : "is NOT in");
    TessDeleteText(text);
    free(px);
    TessBaseAPIEnd(api);
    TessBaseAPIDelete(api);
    return ok ? 0 : 1;
}
