/* SPDX-License-Identifier: MIT */
/* OCR (broker/ocr): Tesseract reads what was drawn, boxes land on the ink,
 * phrases are found, limits and bad input are errors, nothing is printed.
 *
 * Fixtures are made at test time: text images by ImageMagick's `convert`, and
 * a capture of the Tk demo app (tests/apps/pg_demo.tcl) under a private Xvfb
 * with wish and xwd. A missing tool FAILS the test that needs it, loudly.
 * OMP_THREAD_LIMIT=1 comes from ctest (ENVIRONMENT); run by hand, the binary
 * re-execs itself with it (pg_ocr_ensure_single_thread, from a constructor).
 * Set PG_OCR_BENCH=1 to print init and per-call medians (docs/ocr.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_ocr.h"
#include "pg_test.h"
#include "pg_time.h"

/* glibc passes argc, argv, envp to ELF constructors. */
__attribute__((constructor)) static void single_thread_first(int argc, char **argv, char **envp) {
    (void)argc, (void)envp;
    pg_error e;
    if (pg_ocr_ensure_single_thread(argv, &e) != PG_OK) fprintf(stderr, "test_ocr: %s\n", e.message);
}

/* ---------------------------------------------------------------- helpers */

static int have_tool(const char *name) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    int rc = system(cmd);
    if (rc != 0) fprintf(stderr, "test_ocr: REQUIRED TOOL MISSING: %s (install it; this test cannot run)\n", name);
    return rc == 0;
}

/* Run a shell command and collect its stdout. */
static uint8_t *run_capture(const char *cmd, size_t *n) {
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + len, 1, cap - len, p)) > 0) {
        len += k;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    int st = pclose(p);
    if (!buf || st != 0 || len == 0) {
        fprintf(stderr, "test_ocr: command failed (status %d, %zu bytes): %s\n", st, len, cmd);
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

static pg_img *decode(uint8_t *png, size_t n) {
    pg_img *img = NULL;
    pg_error e;
    if (!png) return NULL;
    if (pg_img_decode(png, n, NULL, &img, &e) != PG_OK) fprintf(stderr, "test_ocr: decode: %s\n", e.message);
    free(png);
    return img;
}

/* An image drawn by ImageMagick: "convert -size WxH xc:BG <draw> png:-". */
static pg_img *render(const char *size, const char *bg, const char *draw) {
    if (!have_tool("convert")) return NULL;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "convert -size %s xc:'%s' %s png:- 2>/dev/null", size, bg, draw);
    size_t n = 0;
    uint8_t *png = run_capture(cmd, &n);
    return decode(png, n);
}

static pg_ocr *engine(void) {
    static pg_ocr *o;
    pg_error e;
    if (!o && pg_ocr_new(&o, "eng", NULL, &e) != PG_OK) fprintf(stderr, "test_ocr: pg_ocr_new: %s\n", e.message);
    return o;
}

static uint8_t luma(const pg_img *img, uint32_t x, uint32_t y) {
    const uint8_t *p = pg_img_row(img, y) + 4 * (size_t)x;
    return (uint8_t)((77u * p[0] + 150u * p[1] + 29u * p[2] + 128u) >> 8);
}

/* The box lies inside the image and holds ink: both a dark and a light pixel
 * (contrast > 100), so it sits on a glyph, not on empty background. */
static int box_on_ink(const pg_img *img, int x, int y, int w, int h) {
    if (x < 0 || y < 0 || w < 1 || h < 1 || (uint64_t)x + (uint64_t)w > img->width ||
        (uint64_t)y + (uint64_t)h > img->height)
        return 0;
    int lo = 255, hi = 0;
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++) {
            int l = luma(img, (uint32_t)i, (uint32_t)j);
            lo = l < lo ? l : lo;
            hi = l > hi ? l : hi;
        }
    return hi - lo > 100;
}

static const pg_ocr_word *word(const pg_ocr_result *r, const char *text) {
    for (size_t i = 0; i < r->n_words; i++)
        if (strcmp(r->words[i].text, text) == 0) return &r->words[i];
    return NULL;
}

/* ----------------------------------------------------- the Tk app capture */

typedef struct {
    pg_img *img;           /* the 480x260 window */
    int press[4];          /* the button, window-relative, from the app's state file */
    int ok;
} tk_fixture;

static void stop(pid_t pid) {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 50; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) return;
        pg_sleep_ms(20);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Read a line from fd within ms into buf; 0 on timeout/EOF. */
static int read_line(int fd, char *buf, size_t n, int ms) {
    size_t len = 0;
    double end = pg_mono_ms() + ms;
    while (len + 1 < n) {
        int left = (int)(end - pg_mono_ms());
        if (left <= 0) break;
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, left) <= 0) break;
        ssize_t k = read(fd, buf + len, 1);
        if (k <= 0) break;
        if (buf[len] == '\n') {
            buf[len] = 0;
            return 1;
        }
        len++;
    }
    buf[len] = 0;
    return 0;
}

/* Start Xvfb on a free display and the demo app at +40+40, capture the
 * window, stop both. Done once per process. */
static const tk_fixture *tk_capture(void) {
    static tk_fixture fx;
    static int tried;
    if (tried) return fx.ok ? &fx : NULL;
    tried = 1;
    if (!have_tool("Xvfb") || !have_tool("wish") || !have_tool("xwd") || !have_tool("convert")) return NULL;
    char dir[] = "/tmp/pg-test-ocr.XXXXXX";
    if (!mkdtemp(dir)) return NULL;
    int dfd[2], afd[2];
    if (pipe(dfd) != 0 || pipe(afd) != 0) return NULL;
    pid_t xvfb = fork();
    if (xvfb == 0) {
        char fdarg[16];
        snprintf(fdarg, sizeof fdarg, "%d", dfd[1]);
        close(dfd[0]);
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
        execlp("Xvfb", "Xvfb", "-displayfd", fdarg, "-screen", "0", "800x600x24", "-nolisten", "tcp", (char *)NULL);
        _exit(127);
    }
    close(dfd[1]);
    char disp[32] = "";
    pid_t app = -1;
    if (!read_line(dfd[0], disp, sizeof disp, 20000) || !disp[0]) {
        fprintf(stderr, "test_ocr: Xvfb did not report a display\n");
        goto out;
    }
    char dispenv[40], state[128];
    snprintf(dispenv, sizeof dispenv, ":%s", disp);
    snprintf(state, sizeof state, "%s/state.json", dir);
    app = fork();
    if (app == 0) {
        setenv("DISPLAY", dispenv, 1);
        close(afd[0]);
        dup2(afd[1], 1);
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0), dup2(nul, 2);
        execlp("wish", "wish", PG_DEMO_TCL, state, "480x260+40+40", (char *)NULL);
        _exit(127);
    }
    close(afd[1]);
    char line[64];
    if (!read_line(afd[0], line, sizeof line, 20000) || strcmp(line, "READY") != 0) {
        fprintf(stderr, "test_ocr: the Tk demo app did not say READY (got \"%s\")\n", line);
        goto out;
    }
    pg_sleep_ms(300); /* let the first paint settle */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "xwd -root -silent -display %s | convert xwd:- png:-", dispenv);
    size_t n = 0;
    uint8_t *png = run_capture(cmd, &n);
    pg_img *root = decode(png, n);
    if (!root) goto out;
    pg_img_rect win = {40, 40, 480, 260};
    pg_error e;
    if (pg_img_crop(root, &win, &fx.img, &e) != PG_OK) fprintf(stderr, "test_ocr: crop: %s\n", e.message);
    pg_img_free(root);
    FILE *f = fopen(state, "r");
    char js[1024] = "";
    if (f) {
        size_t k = fread(js, 1, sizeof js - 1, f);
        js[k] = 0;
        fclose(f);
    }
    const char *p = strstr(js, "\"press\"");
    if (!p || sscanf(p, "\"press\": {\"x\": %d, \"y\": %d, \"w\": %d, \"h\": %d}", &fx.press[0], &fx.press[1],
                     &fx.press[2], &fx.press[3]) != 4) {
        fprintf(stderr, "test_ocr: no button geometry in the app's state file: %s\n", js);
        goto out;
    }
    fx.ok = fx.img != NULL;
out:
    stop(app);
    stop(xvfb);
    close(dfd[0]);
    close(afd[0]);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "test_ocr: could not remove %s\n", dir);
    return fx.ok ? &fx : NULL;
}

/* ------------------------------------------------------------ environment */

PG_TEST(openmp_runs_one_thread) {
    int lim = pg_ocr_thread_limit();
    if (lim > 1) fprintf(stderr, "OpenMP thread limit is %d: start with OMP_THREAD_LIMIT=1\n", lim);
    CHECK(lim == 1 || lim == 0);
    pg_error e;
    CHECK_EQ_INT(pg_ocr_ensure_single_thread(NULL, &e), PG_OK); /* already 1: nothing to do */
    CHECK(strncmp(pg_ocr_tesseract_version(), "5.", 2) == 0);
}

PG_TEST(new_rejects_malformed_language_names) {
    pg_ocr *o = (pg_ocr *)1;
    pg_error e;
    const char *bad[] = {"", "../../etc/passwd", "eng deu", "eng++deu", "+eng", "eng/", "e\nng"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(pg_ocr_new(&o, bad[i], NULL, &e), PG_E_BADINPUT);
        CHECK(o == NULL);
    }
}

PG_TEST(new_reports_missing_language_data_as_not_found) {
    pg_ocr *o;
    pg_error e;
    CHECK_EQ_INT(pg_ocr_new(&o, "qqq", NULL, &e), PG_E_NOTFOUND);
    CHECK(o == NULL);
    CHECK(strstr(e.message, "qqq") != NULL);
    CHECK_EQ_INT(pg_ocr_new(&o, "eng", "/nonexistent/tessdata", &e), PG_E_NOTFOUND);
    CHECK(o == NULL);
}

PG_TEST(tesseract_prints_nothing_on_stdout_or_stderr) {
    pg_img *text = render("300x60", "white", "-font DejaVu-Sans -pointsize 20 -draw \"text 10,40 'Quiet please'\"");
    REQUIRE(text);
    pg_img *blank = NULL, *dot = NULL;
    pg_error e;
    REQUIRE(pg_img_new(&blank, 200, 100, &e) == PG_OK); /* transparent: white after compositing */
    REQUIRE(pg_img_new(&dot, 1, 1, &e) == PG_OK);
    char path[] = "/tmp/pg-test-ocr-out.XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    pg_ocr *o = NULL, *bad = NULL;
    pg_ocr_result r = {0};
    int rc_new = pg_ocr_new(&o, "eng", NULL, &e);
    int rc_bad = pg_ocr_new(&bad, "qqq", NULL, &e);
    int rc1 = o ? (int)pg_ocr_run(o, text, NULL, &r, &e) : -1;
    pg_ocr_result_fini(&r);
    int rc2 = o ? (int)pg_ocr_run(o, blank, NULL, &r, &e) : -1; /* Tesseract says "Empty page" here if it may */
    pg_ocr_result_fini(&r);
    int rc3 = o ? (int)pg_ocr_run(o, dot, NULL, &r, &e) : -1;
    pg_ocr_result_fini(&r);
    pg_ocr_free(o);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so), close(se);
    struct stat st;
    fstat(fd, &st);
    if (st.st_size) {
        char buf[512] = "";
        ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
        buf[k > 0 ? k : 0] = 0;
        fprintf(stderr, "printed: %s\n", buf);
    }
    close(fd);
    unlink(path);
    CHECK_EQ_INT(rc_new, PG_OK);
    CHECK_EQ_INT(rc_bad, PG_E_NOTFOUND);
    CHECK_EQ_INT(rc1, PG_OK);
    CHECK_EQ_INT(rc2, PG_OK);
    CHECK_EQ_INT(rc3, PG_OK);
    CHECK_EQ_INT(st.st_size, 0);
    pg_img_free(text);
    pg_img_free(blank);
    pg_img_free(dot);
}

/* --------------------------------------------------------------- reading */

PG_TEST(reads_rendered_words_exactly_with_boxes_on_the_ink) {
    pg_img *img = render("600x200", "white",
                         "-font DejaVu-Sans -pointsize 24 -draw \"text 20,50 'Status: idle'\""
                         " -draw \"text 20,130 'Invoice 2024-031 saved'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, img, NULL, &r, &e) == PG_OK);
    CHECK_STR(r.text, "Status: idle\nInvoice 2024-031 saved");
    CHECK_EQ_INT(r.n_words, 5);
    CHECK_EQ_INT(r.n_lines, 2);
    CHECK_EQ_INT(r.scale, 2); /* 600x200 is under the upscale cap */
    CHECK(!r.inverted);
    CHECK_EQ_INT(r.psm, PG_OCR_PSM_SPARSE_TEXT);
    CHECK(r.mean_conf > 80);
    for (size_t i = 0; i < r.n_words; i++) {
        const pg_ocr_word *w = &r.words[i];
        CHECK(box_on_ink(img, w->x, w->y, w->w, w->h));
        CHECK(w->conf > 50 && w->conf <= 100);
        CHECK_EQ_INT(w->line, i < 2 ? 0 : 1);
    }
    /* Text drawn at x=20 with baseline 50, 24 px DejaVu: cap height ~17 px. */
    const pg_ocr_word *st = word(&r, "Status:");
    REQUIRE(st);
    CHECK(st->x >= 18 && st->x <= 24);
    CHECK(st->y >= 28 && st->y <= 36);
    CHECK(st->y + st->h >= 49 && st->y + st->h <= 53);
    const pg_ocr_word *idle = word(&r, "idle");
    REQUIRE(idle);
    CHECK(idle->x > st->x + st->w);
    pg_ocr_result_fini(&r);
    CHECK(r.words == NULL && r.n_words == 0 && r.text == NULL);
    pg_ocr_result_fini(&r); /* twice is fine */
    pg_img_free(img);
}

PG_TEST(small_9pt_text_is_read_after_the_2x_upscale) {
    /* 12 px = 9 pt at 96 dpi, grey on white, as in a status bar. */
    pg_img *img = render("420x70", "white",
                         "-font DejaVu-Sans -pointsize 12 -fill '#555555'"
                         " -draw \"text 8,22 'Connected to server at 10.0.0.12'\""
                         " -draw \"text 8,52 'Last saved 3 minutes ago'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, img, NULL, &r, &e) == PG_OK);
    CHECK_EQ_INT(r.scale, 2);
    CHECK_STR(r.text, "Connected to server at 10.0.0.12\nLast saved 3 minutes ago");
    for (size_t i = 0; i < r.n_words; i++)
        CHECK(box_on_ink(img, r.words[i].x, r.words[i].y, r.words[i].w, r.words[i].h));
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(region_restricts_reading_and_boxes_stay_in_image_coordinates) {
    pg_img *img = render("500x200", "white",
                         "-font DejaVu-Sans -pointsize 20 -draw \"text 20,40 'Top line here'\""
                         " -draw \"text 200,150 'Bottom words'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    pg_img_rect reg = {180, 110, 300, 70};
    REQUIRE(pg_ocr_run(o, img, &reg, &r, &e) == PG_OK);
    CHECK_STR(r.text, "Bottom words");
    CHECK(r.region.x == 180 && r.region.y == 110 && r.region.w == 300 && r.region.h == 70);
    for (size_t i = 0; i < r.n_words; i++) {
        const pg_ocr_word *w = &r.words[i];
        CHECK(w->x >= 180 && w->y >= 110 && w->x + w->w <= 480 && w->y + w->h <= 180);
        CHECK(box_on_ink(img, w->x, w->y, w->w, w->h));
    }
    const pg_ocr_word *b = word(&r, "Bottom");
    REQUIRE(b);
    CHECK(b->x >= 198 && b->x <= 204); /* drawn at x=200 in the full image */
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(empty_region_gives_no_words_not_an_error) {
    pg_img *img = render("400x200", "white", "-font DejaVu-Sans -pointsize 20 -draw \"text 10,30 'Some text'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    pg_img_rect reg = {0, 100, 400, 100}; /* all white */
    CHECK_EQ_INT(pg_ocr_run(o, img, &reg, &r, &e), PG_OK);
    CHECK_EQ_INT(r.n_words, 0);
    CHECK_EQ_INT(r.n_lines, 0);
    CHECK_STR(r.text, "");
    CHECK(r.mean_conf == 0.0);
    pg_ocr_result_fini(&r);
    pg_img_rect px = {399, 199, 1, 1}; /* one pixel */
    CHECK_EQ_INT(pg_ocr_run(o, img, &px, &r, &e), PG_OK);
    CHECK_EQ_INT(r.n_words, 0);
    pg_ocr_result_fini(&r);
    pg_img *black = NULL;
    REQUIRE(pg_img_new(&black, 64, 64, &e) == PG_OK);
    for (size_t i = 0; i < 64 * 64; i++) black->px[4 * i + 3] = 255; /* opaque black */
    CHECK_EQ_INT(pg_ocr_run(o, black, NULL, &r, &e), PG_OK);
    CHECK_EQ_INT(r.n_words, 0);
    CHECK(r.inverted);
    pg_ocr_result_fini(&r);
    pg_img_free(black);
    pg_img_free(img);
}

PG_TEST(light_text_on_a_dark_background_is_inverted_and_read) {
    pg_img *img = render("500x120", "#1e1e1e",
                         "-font DejaVu-Sans -pointsize 18 -fill '#e0e0e0' -draw \"text 16,40 'Build succeeded'\""
                         " -draw \"text 16,90 'Warnings: 0'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, img, NULL, &r, &e) == PG_OK);
    CHECK(r.inverted);
    CHECK_STR(r.text, "Build succeeded\nWarnings: 0");
    for (size_t i = 0; i < r.n_words; i++)
        CHECK(box_on_ink(img, r.words[i].x, r.words[i].y, r.words[i].w, r.words[i].h));
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(widget_frames_and_check_boxes_do_not_become_characters) {
    /* An entry frame 4 px from its text and check boxes beside labels: raw
     * Tesseract reads "'Ada Lovelace", "(0 Send weekly report". */
    pg_img *img = render("420x120", "white",
                         "-font DejaVu-Sans -pointsize 12 -fill black -draw \"text 10,30 'Display name:'\""
                         " -fill none -stroke '#999999' -draw 'rectangle 108,14 300,36'"
                         " -draw 'rectangle 10,62 20,72' -draw 'rectangle 10,88 20,98' -stroke none -fill black"
                         " -draw \"text 112,30 'Ada Lovelace'\" -draw \"text 26,72 'Send weekly report'\""
                         " -draw \"text 26,98 'Enable two-factor login'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, img, NULL, &r, &e) == PG_OK);
    CHECK_STR(r.text, "Display name: Ada Lovelace\nSend weekly report\nEnable two-factor login");
    const pg_ocr_word *ada = word(&r, "Ada");
    REQUIRE(ada);
    CHECK(ada->x >= 110 && ada->y >= 16 && ada->y + ada->h <= 35); /* inside the frame, not on it */
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(pale_and_dim_text_is_read_beside_black_text) {
    pg_img *img = render("500x120", "white",
                         "-font DejaVu-Sans -pointsize 14 -fill black -draw \"text 10,30 'Primary label text'\""
                         " -fill '#999999' -draw \"text 10,70 'Secondary hint in grey'\""
                         " -fill '#bbbbbb' -draw \"text 10,100 'Disabled option here'\"");
    pg_img *dark = render("500x90", "#1e1e1e",
                          "-font DejaVu-Sans -pointsize 14 -fill '#e0e0e0' -draw \"text 10,30 'Build succeeded'\""
                          " -fill '#666666' -draw \"text 10,70 'Last run 3 minutes ago'\"");
    pg_ocr *o = engine();
    REQUIRE(img && dark && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, img, NULL, &r, &e) == PG_OK);
    CHECK_STR(r.text, "Primary label text\nSecondary hint in grey\nDisabled option here");
    pg_ocr_result_fini(&r);
    REQUIRE(pg_ocr_run(o, dark, NULL, &r, &e) == PG_OK);
    CHECK(r.inverted);
    CHECK_STR(r.text, "Build succeeded\nLast run 3 minutes ago");
    pg_ocr_result_fini(&r);
    pg_img_free(img);
    pg_img_free(dark);
}

PG_TEST(white_text_on_coloured_buttons_is_read_with_the_page) {
    /* A light page with dark text, a blue and a green button with white
     * labels, and a grey bar: one global threshold cannot read all of it. */
    pg_img *img = render("520x220", "#f4f4f4",
                         "-font DejaVu-Sans -pointsize 16"
                         " -fill '#d0d0d0' -draw 'rectangle 0,0 519,40'"
                         " -fill black -draw \"text 12,28 'File Edit View'\""
                         " -draw \"text 20,90 'Discard unsaved changes?'\""
                         " -fill '#1565c0' -draw 'rectangle 250,140 400,180'"
                         " -fill '#2e7d32' -draw 'rectangle 60,140 200,180'"
                         " -fill white -draw \"text 270,167 'Save changes'\" -draw \"text 90,167 'Discard'\"");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, img, NULL, &r, &e) == PG_OK);
    CHECK_STR(r.text, "File Edit View\nDiscard unsaved changes?\nDiscard Save changes");
    CHECK(r.panels >= 2);
    pg_ocr_match m;
    REQUIRE(pg_ocr_find(&r, "save changes", 0, 0, &m, &e) == PG_OK);
    CHECK(m.box.x >= 250 && m.box.y >= 140 && m.box.x + m.box.w <= 401 && m.box.y + m.box.h <= 181);
    for (size_t i = 0; i < r.n_words; i++)
        CHECK(box_on_ink(img, r.words[i].x, r.words[i].y, r.words[i].w, r.words[i].h));
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(tk_demo_window_reads_its_labels_and_button) {
    const tk_fixture *fx = tk_capture();
    pg_ocr *o = engine();
    REQUIRE(fx && o);
    pg_ocr_result r;
    pg_error e;
    REQUIRE(pg_ocr_run(o, fx->img, NULL, &r, &e) == PG_OK);
    CHECK_STR(r.text, "pixelgate demo\nStatus: idle\nPress me");
    pg_ocr_match m;
    /* click --text "Press me": the box lies on the button the app reports. */
    REQUIRE(pg_ocr_find(&r, "Press me", 0, 0, &m, &e) == PG_OK);
    int cx = (int)(m.box.x + m.box.w / 2), cy = (int)(m.box.y + m.box.h / 2);
    CHECK(cx >= fx->press[0] && cx < fx->press[0] + fx->press[2]);
    CHECK(cy >= fx->press[1] && cy < fx->press[1] + fx->press[3]);
    CHECK((int)m.box.x >= fx->press[0] && (int)(m.box.x + m.box.w) <= fx->press[0] + fx->press[2]);
    REQUIRE(pg_ocr_find(&r, "Status: idle", PG_OCR_FIND_WORDS | PG_OCR_FIND_CASE, 0, &m, &e) == PG_OK);
    CHECK_EQ_INT(m.n_words, 2);
    CHECK(box_on_ink(fx->img, (int)m.box.x, (int)m.box.y, (int)m.box.w, (int)m.box.h));
    /* assert text --exact over the status label's region */
    pg_ocr_result lab;
    pg_img_rect reg = {m.box.x - 10, m.box.y - 6, m.box.w + 20, m.box.h + 12};
    REQUIRE(pg_ocr_run(o, fx->img, &reg, &lab, &e) == PG_OK);
    CHECK_EQ_INT(pg_ocr_find(&lab, "Status: idle", PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE, 0, &m, &e), PG_OK);
    CHECK_EQ_INT(pg_ocr_find(&lab, "Status: busy", PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE, 0, &m, &e), PG_E_NOTFOUND);
    pg_ocr_result_fini(&lab);
    for (size_t i = 0; i < r.n_words; i++)
        CHECK(box_on_ink(fx->img, r.words[i].x, r.words[i].y, r.words[i].w, r.words[i].h));
    pg_ocr_result_fini(&r);
}

PG_TEST(same_pixels_give_the_same_result_every_time) {
    pg_img *img =
        render("400x100", "white", "-font DejaVu-Sans -pointsize 14 -draw \"text 10,30 'Repeatable output 42'\"");
    pg_ocr *o = engine(), *o2 = NULL;
    pg_error e;
    REQUIRE(img && o);
    REQUIRE(pg_ocr_new(&o2, "eng", NULL, &e) == PG_OK);
    pg_ocr_result a, b, c;
    REQUIRE(pg_ocr_run(o, img, NULL, &a, &e) == PG_OK);
    REQUIRE(pg_ocr_run(o, img, NULL, &b, &e) == PG_OK);
    REQUIRE(pg_ocr_run(o2, img, NULL, &c, &e) == PG_OK);
    CHECK_STR(a.text, "Repeatable output 42");
    CHECK_STR(b.text, a.text);
    CHECK_STR(c.text, a.text);
    REQUIRE(a.n_words == b.n_words && a.n_words == c.n_words);
    for (size_t i = 0; i < a.n_words; i++) {
        CHECK(a.words[i].x == b.words[i].x && a.words[i].y == b.words[i].y && a.words[i].w == c.words[i].w &&
              a.words[i].h == c.words[i].h);
        CHECK(a.words[i].conf == b.words[i].conf && a.words[i].conf == c.words[i].conf);
    }
    pg_ocr_result_fini(&a);
    pg_ocr_result_fini(&b);
    pg_ocr_result_fini(&c);
    pg_ocr_free(o2);
    pg_img_free(img);
}

/* ------------------------------------------------------ limits and errors */

PG_TEST(bad_images_regions_and_options_are_errors) {
    pg_ocr *o = engine();
    REQUIRE(o);
    pg_ocr_result r;
    pg_error e;
    uint8_t px[64 * 4] = {0};
    pg_img img = {8, 8, 32, px};
    pg_img nopx = {8, 8, 32, NULL};
    CHECK_EQ_INT(pg_ocr_run(o, &nopx, NULL, &r, &e), PG_E_BADINPUT);
    pg_img narrow = {8, 8, 16, px}; /* stride < 4*width */
    CHECK_EQ_INT(pg_ocr_run(o, &narrow, NULL, &r, &e), PG_E_BADINPUT);
    pg_img zero = {0, 8, 32, px};
    CHECK_EQ_INT(pg_ocr_run(o, &zero, NULL, &r, &e), PG_E_BADINPUT);
    CHECK(r.text == NULL && r.n_words == 0);
    pg_img_rect out = {4, 4, 8, 8}, empty = {0, 0, 0, 4}, far = {UINT32_MAX, 0, 2, 2};
    CHECK_EQ_INT(pg_ocr_run(o, &img, &out, &r, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_run(o, &img, &empty, &r, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_run(o, &img, &far, &r, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_run(NULL, &img, NULL, &r, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_run(o, NULL, NULL, &r, &e), PG_E_USAGE);
    pg_ocr_opts bad[] = {{.scale = 5}, {.scale = -1}, {.psm = 4}, {.psm = 13}, {.invert = 2},
                         {.timeout_ms = -2}, {.min_conf = 101}, {.min_conf = -2}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_EQ_INT(pg_ocr_run_opts(o, &img, NULL, &bad[i], &r, &e), PG_E_USAGE);
    CHECK(r.text == NULL);
}

PG_TEST(oversized_images_are_refused_before_any_work) {
    pg_ocr *o = engine();
    REQUIRE(o);
    pg_ocr_result r;
    pg_error e;
    /* A 5000x4000 header over a tiny buffer: the cap must trip before a
     * single pixel is read (reading would crash). */
    uint8_t px[16] = {0};
    pg_img big = {5000, 4000, 20000, px};
    CHECK_EQ_INT(pg_ocr_run(o, &big, NULL, &r, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "20000000") != NULL);
    pg_img tall = {1, 40000, 4, px}; /* 40000 px: under the cap, over Tesseract's side */
    pg_ocr_opts one = {.scale = 1};
    CHECK_EQ_INT(pg_ocr_run_opts(o, &tall, NULL, &one, &r, &e), PG_E_BADINPUT);
    pg_img wide = {4000, 3000, 16000, px}; /* 12 Mpx: fits at scale 1, not at a forced 2 */
    pg_ocr_opts two = {.scale = 2};
    CHECK_EQ_INT(pg_ocr_run_opts(o, &wide, NULL, &two, &r, &e), PG_E_BADINPUT);
    pg_img *img = NULL;
    REQUIRE(pg_img_new(&img, 100, 100, &e) == PG_OK);
    pg_ocr_opts cap = {.max_pixels = 9999};
    CHECK_EQ_INT(pg_ocr_run_opts(o, img, NULL, &cap, &r, &e), PG_E_BADINPUT);
    pg_img_rect small = {0, 0, 99, 100}; /* 9900 px: fits */
    CHECK_EQ_INT(pg_ocr_run_opts(o, img, &small, &cap, &r, &e), PG_OK);
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

PG_TEST(corrupt_and_truncated_image_bytes_are_errors_before_ocr) {
    /* The broker decodes untrusted bytes, then OCRs: corrupt input stops at
     * the decoder with BADINPUT. */
    pg_img *img = render("200x50", "white", "-font DejaVu-Sans -pointsize 16 -draw \"text 5,30 'x'\"");
    REQUIRE(img);
    uint8_t *png = NULL;
    size_t n = 0;
    pg_error e;
    REQUIRE(pg_img_encode_png(img, NULL, &png, &n, &e) == PG_OK);
    pg_img *dec = NULL;
    CHECK_EQ_INT(pg_img_decode(png, n / 2, NULL, &dec, &e), PG_E_BADINPUT);
    CHECK(dec == NULL);
    png[20] ^= 0x01; /* inside IHDR: its CRC no longer matches */
    CHECK_EQ_INT(pg_img_decode(png, n, NULL, &dec, &e), PG_E_BADINPUT);
    CHECK(dec == NULL);
    const uint8_t junk[] = "not an image at all";
    CHECK_EQ_INT(pg_img_decode(junk, sizeof junk, NULL, &dec, &e), PG_E_BADINPUT);
    free(png);
    pg_img_free(img);
}

PG_TEST(timeout_stops_a_long_read) {
    pg_img *img = render("800x300", "white",
                         "-font DejaVu-Sans -pointsize 14 -interline-spacing 6 -annotate +10+20 "
                         "'the quick brown fox jumps over the lazy dog again and again\\n"
                         "the quick brown fox jumps over the lazy dog again and again\\n"
                         "the quick brown fox jumps over the lazy dog again and again\\n"
                         "the quick brown fox jumps over the lazy dog again and again'");
    pg_ocr *o = engine();
    REQUIRE(img && o);
    pg_ocr_result r;
    pg_error e;
    pg_ocr_opts t = {.timeout_ms = 1};
    CHECK_EQ_INT(pg_ocr_run_opts(o, img, NULL, &t, &r, &e), PG_E_TIMEOUT);
    CHECK(r.text == NULL);
    /* The engine is still usable afterwards. */
    CHECK_EQ_INT(pg_ocr_run(o, img, NULL, &r, &e), PG_OK);
    CHECK(r.n_words >= 40);
    pg_ocr_result_fini(&r);
    pg_img_free(img);
}

/* ------------------------------------------------------------------ find */

static pg_ocr_result fake(const char *const *texts, size_t n) {
    pg_ocr_result r = {0};
    r.words = calloc(n, sizeof *r.words);
    r.n_words = n;
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        r.words[i].text = strdup(texts[i]);
        r.words[i].x = (int)(i * 50);
        r.words[i].y = (int)(i / 3) * 20;
        r.words[i].w = 40;
        r.words[i].h = 12 + (int)i;
        r.words[i].line = (int)(i / 3);
        len += strlen(texts[i]) + 1;
    }
    r.text = calloc(len, 1);
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(r.text, r.words[i].line != r.words[i - 1].line ? "\n" : " ");
        strcat(r.text, texts[i]);
    }
    return r;
}

PG_TEST(find_substring_is_case_insensitive_and_whitespace_normalised) {
    const char *w[] = {"Status:", "idle", "now", "Press", "me", "OK"};
    pg_ocr_result r = fake(w, 6);
    pg_ocr_match m;
    pg_error e;
    CHECK_EQ_INT(pg_ocr_find(&r, "status: IDLE", 0, 0, &m, &e), PG_OK);
    CHECK(m.first_word == 0 && m.n_words == 2);
    CHECK(m.box.x == 0 && m.box.y == 0 && m.box.w == 90 && m.box.h == 13);
    CHECK_EQ_INT(pg_ocr_find(&r, "  status:\t\n idle ", 0, 0, &m, &e), PG_OK);
    CHECK_EQ_INT(pg_ocr_find(&r, "atus: id", 0, 0, &m, &e), PG_OK); /* inside words */
    CHECK(m.first_word == 0 && m.n_words == 2);
    CHECK_EQ_INT(pg_ocr_find(&r, "now press", 0, 0, &m, &e), PG_OK); /* across rows */
    CHECK(m.first_word == 2 && m.n_words == 2);
    CHECK(m.box.x == 100 && m.box.y == 0 && m.box.w == 90 && m.box.h == 35);
    CHECK_EQ_INT(pg_ocr_find(&r, "status:  idle", PG_OCR_FIND_CASE, 0, &m, &e), PG_E_NOTFOUND);
    CHECK(m.n_words == 0 && m.box.w == 0);
    CHECK(strstr(e.message, "Status: idle now Press me OK") != NULL); /* what was read */
    CHECK_EQ_INT(pg_ocr_find(&r, "Status:  idle", PG_OCR_FIND_CASE, 0, &m, &e), PG_OK);
    CHECK_EQ_INT(pg_ocr_find(&r, "idlenow", 0, 0, &m, &e), PG_E_NOTFOUND);
    pg_ocr_result_fini(&r);
}

PG_TEST(find_whole_words_exact_and_start_word) {
    const char *w[] = {"OK", "Cancel", "OK", "Status:", "okay"};
    pg_ocr_result r = fake(w, 5);
    pg_ocr_match m;
    pg_error e;
    CHECK_EQ_INT(pg_ocr_find(&r, "Status", PG_OCR_FIND_WORDS, 0, &m, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_ocr_find(&r, "status:", PG_OCR_FIND_WORDS, 0, &m, &e), PG_OK);
    CHECK(m.first_word == 3 && m.n_words == 1);
    CHECK_EQ_INT(pg_ocr_find(&r, "ok", PG_OCR_FIND_WORDS, 0, &m, &e), PG_OK);
    CHECK_EQ_INT(m.first_word, 0);
    CHECK_EQ_INT(pg_ocr_find(&r, "ok", PG_OCR_FIND_WORDS, 1, &m, &e), PG_OK);
    CHECK_EQ_INT(m.first_word, 2);
    CHECK_EQ_INT(pg_ocr_find(&r, "ok", PG_OCR_FIND_WORDS, 3, &m, &e), PG_E_NOTFOUND); /* "okay" is not "ok" */
    CHECK_EQ_INT(pg_ocr_find(&r, "ok", 0, 3, &m, &e), PG_OK);                          /* but contains it */
    CHECK_EQ_INT(m.first_word, 4);
    CHECK_EQ_INT(pg_ocr_find(&r, "ok", 0, 5, &m, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_ocr_find(&r, "OK Cancel OK Status: okay", PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE, 0, &m, &e), PG_OK);
    CHECK(m.first_word == 0 && m.n_words == 5);
    CHECK(m.box.x == 0 && m.box.w == 240);
    CHECK_EQ_INT(pg_ocr_find(&r, "ok cancel ok status: okay", PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE, 0, &m, &e),
                 PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_ocr_find(&r, "ok cancel ok status: okay", PG_OCR_FIND_EXACT, 0, &m, &e), PG_OK);
    CHECK_EQ_INT(pg_ocr_find(&r, "OK Cancel", PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE, 0, &m, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_ocr_find(&r, "OK Cancel OK Status: okay", PG_OCR_FIND_EXACT, 1, &m, &e), PG_E_USAGE);
    pg_ocr_result_fini(&r);
}

PG_TEST(find_folds_typographic_quotes_dashes_and_latin1_case) {
    const char *w[] = {"Don\xe2\x80\x99t", "save", "\xe2\x80\x9c" "draft" "\xe2\x80\x9d", "\xe2\x80\x94", "CAF\xc3\x89",
                       "Loading\xe2\x80\xa6"};
    pg_ocr_result r = fake(w, 6);
    pg_ocr_match m;
    pg_error e;
    CHECK_EQ_INT(pg_ocr_find(&r, "don't save \"draft\" - caf\xc3\xa9", 0, 0, &m, &e), PG_OK);
    CHECK(m.first_word == 0 && m.n_words == 5);
    CHECK_EQ_INT(pg_ocr_find(&r, "Loading...", PG_OCR_FIND_CASE, 0, &m, &e), PG_OK);
    CHECK_EQ_INT(m.first_word, 5);
    CHECK_EQ_INT(pg_ocr_find(&r, "caf\xc3\xa9", PG_OCR_FIND_CASE, 0, &m, &e), PG_E_NOTFOUND);
    pg_ocr_result_fini(&r);
}

PG_TEST(find_rejects_empty_and_invalid_phrases) {
    const char *w[] = {"text"};
    pg_ocr_result r = fake(w, 1), none = {0};
    pg_ocr_match m;
    pg_error e;
    CHECK_EQ_INT(pg_ocr_find(&r, "", 0, 0, &m, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_find(&r, " \t\n", 0, 0, &m, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_find(&r, "te\xff", 0, 0, &m, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_find(&r, "\xc0\xaf", 0, 0, &m, &e), PG_E_USAGE); /* overlong '/' */
    CHECK_EQ_INT(pg_ocr_find(&r, "text", 16, 0, &m, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_find(&r, NULL, 0, 0, &m, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ocr_find(&none, "text", 0, 0, &m, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_ocr_find(&none, "text", PG_OCR_FIND_EXACT, 0, &m, &e), PG_E_NOTFOUND);
    pg_ocr_result_fini(&r);
}

/* ----------------------------------------------------------- measurement */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_run(pg_ocr *o, const pg_img *img, int reps, size_t *words) {
    double t[32];
    pg_error e;
    for (int i = 0; i < reps; i++) {
        pg_ocr_result r;
        double t0 = pg_mono_ms();
        if (pg_ocr_run(o, img, NULL, &r, &e) != PG_OK) return -1;
        t[i] = pg_mono_ms() - t0;
        *words = r.n_words;
        pg_ocr_result_fini(&r);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

PG_TEST(measure_init_and_call_times_when_PG_OCR_BENCH_is_set) {
    if (!getenv("PG_OCR_BENCH")) {
        printf("     (set PG_OCR_BENCH=1 to measure)\n");
        return;
    }
    const int reps = 10;
    double t[10];
    for (int i = 0; i < reps; i++) {
        pg_ocr *o = NULL;
        pg_error e;
        double t0 = pg_mono_ms();
        REQUIRE(pg_ocr_new(&o, "eng", NULL, &e) == PG_OK);
        t[i] = pg_mono_ms() - t0;
        pg_ocr_free(o);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    printf("bench: pg_ocr_new median %.1f ms (min %.1f, max %.1f)\n", t[reps / 2], t[0], t[reps - 1]);
    pg_ocr *o = engine();
    REQUIRE(o);
    const tk_fixture *fx = tk_capture();
    REQUIRE(fx);
    size_t nw = 0;
    double tk = median_run(o, fx->img, reps, &nw);
    printf("bench: Tk window 480x260: median %.1f ms, %zu words\n", tk, nw);
    /* 800x600 dense text: 22 lines of 7 words, 14 px DejaVu Sans. */
    char draw[4096] = "-font DejaVu-Sans -pointsize 14 -interline-spacing 6 -annotate +10+22 '";
    const char *vocab[] = {"window", "button", "status", "broker", "record", "display", "capture", "pixel",
                           "policy", "engine", "search", "export", "network", "settings", "message", "image"};
    unsigned seed = 7;
    for (int l = 0; l < 22; l++) {
        for (int k = 0; k < 7; k++) {
            seed = seed * 1103515245u + 12345u;
            strcat(draw, vocab[(seed >> 16) % 16]);
            strcat(draw, k < 6 ? " " : "");
        }
        strcat(draw, l < 21 ? "\\n" : "'");
    }
    pg_img *dense = render("800x600", "white", draw);
    REQUIRE(dense);
    double dn = median_run(o, dense, reps, &nw);
    printf("bench: dense text 800x600: median %.1f ms, %zu words\n", dn, nw);
    pg_ocr_opts one = {.scale = 1};
    double t1[10];
    for (int i = 0; i < reps; i++) {
        pg_ocr_result r;
        pg_error e;
        double t0 = pg_mono_ms();
        REQUIRE(pg_ocr_run_opts(o, dense, NULL, &one, &r, &e) == PG_OK);
        t1[i] = pg_mono_ms() - t0;
        nw = r.n_words;
        pg_ocr_result_fini(&r);
    }
    qsort(t1, (size_t)reps, sizeof *t1, cmp_double);
    printf("bench: dense text 800x600 at scale 1: median %.1f ms, %zu words\n", t1[reps / 2], nw);
    pg_img_free(dense);
}
