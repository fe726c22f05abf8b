/* SPDX-License-Identifier: MIT */
/* The audit log: records chain, verify finds the first edited, deleted,
 * reordered or (against an anchor) truncated record, a torn tail is repaired,
 * rotation keeps the chain, appends are thread-safe, write failures surface.
 * Runs natively and under Wine (mingw build); the tests that need POSIX
 * tools (RLIMIT_FSIZE, fork + setuid, chmod, symlink, mkfifo) are POSIX only,
 * and the Windows build checks its own lock and link handling instead. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#endif
#ifndef O_BINARY
#define O_BINARY 0 /* Windows' CRT would turn \n into \r\n without it */
#endif

#include <cJSON.h>

#include "pg_audit.h"
#include "pg_crypto.h"
#include "pg_test.h"
#include "pg_time.h"

#define TOKEN "cap:AbCdEfGhIjKlMnOpQrStUv"
#define IMG "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* ---- helpers ---------------------------------------------------------- */

static void tmp_dir(char dir[64]) {
#ifdef _WIN32
    char base[MAX_PATH];
    DWORD n = GetTempPathA(sizeof base, base);
    if (n == 0 || n + 24 >= 64) abort(); /* the tests' path buffers assume a short temp dir */
    for (unsigned k = 0; k < 100; k++) {
        snprintf(dir, 64, "%spg_audit_%lx_%u", base, (unsigned long)GetCurrentProcessId(), k);
        if (CreateDirectoryA(dir, NULL)) return;
    }
    abort();
#else
    snprintf(dir, 64, "/tmp/pg_audit_XXXXXX");
    if (!mkdtemp(dir)) abort();
#endif
}

static void rm_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char path[640];
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

/* rename(2) semantics (replace an existing target) on both platforms. */
static int move_over(const char *from, const char *to) {
#ifdef _WIN32
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
#else
    return rename(from, to);
#endif
}

static char *slurp(const char *path, size_t *n) {
    if (n) *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) buf = realloc(buf, cap = (cap + 4096) * 2);
        size_t r = fread(buf + len, 1, 4096, f);
        len += r;
        if (r == 0) break;
    }
    fclose(f);
    buf[len] = 0;
    if (n) *n = len;
    return buf;
}

/* Rewrites in place (keeps the inode and its 0600 mode). */
static void spit(const char *path, const char *data, size_t n) {
    int fd = open(path, O_WRONLY | O_TRUNC | O_BINARY);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n) abort();
    close(fd);
}

#define MAXL 4096
typedef struct {
    char *buf;
    size_t n;
    char *l[MAXL];
    size_t len[MAXL];
    size_t count;
} lines_t;

static void read_lines(const char *path, lines_t *L) {
    memset(L, 0, sizeof *L);
    L->buf = slurp(path, &L->n);
    if (!L->buf) abort();
    char *p = L->buf, *end = L->buf + L->n;
    while (p < end && L->count < MAXL) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        L->l[L->count] = p;
        L->len[L->count++] = len;
        p += len + 1;
    }
}

static void write_lines(const char *path, const lines_t *L) {
    size_t total = 0;
    for (size_t i = 0; i < L->count; i++) total += L->len[i] + 1;
    char *out = malloc(total + 1), *o = out;
    for (size_t i = 0; i < L->count; i++) {
        memcpy(o, L->l[i], L->len[i]);
        o += L->len[i];
        *o++ = '\n';
    }
    spit(path, out, total);
    free(out);
}

static pg_audit_event sample(int i) {
    static const pg_audit_window w = {.id = 0x3a00007, .title = "Terminal \xE2\x80\x94 bash", .cls = "xterm"};
    pg_audit_event ev = {
        .principal = {.uid = 1000, .user = "agent", .pid = 4242, .comm = "pixelgate"},
        .op = "snapshot",
        .window = &w,
        .image_sha256 = IMG,
        .disposition = {.kind = "token", .token = TOKEN},
        .outcome = PG_OK,
    };
    switch (i % 4) {
    case 1:
        ev.op = "analyze";
        ev.disposition = (pg_audit_disposition){.kind = "analyze", .token = TOKEN, .endpoint = "local-llava"};
        break;
    case 2:
        ev.op = "release";
        ev.disposition = (pg_audit_disposition){.kind = "refused", .token = TOKEN, .mode = "png",
                                                .reason = "expose_pixels is analyze-only"};
        ev.outcome = PG_E_POLICY;
        break;
    case 3:
        ev.op = "click";
        ev.image_sha256 = NULL;
        ev.disposition = (pg_audit_disposition){.kind = "input", .detail = "click 10,20"};
        break;
    }
    return ev;
}

static pg_err append_n(pg_audit *a, int from, int n) {
    for (int i = from; i < from + n; i++) {
        pg_audit_event ev = sample(i);
        pg_err rc = pg_audit_append(a, &ev, NULL);
        if (rc) return rc;
    }
    return PG_OK;
}

/* A fresh log of n records in dir; path filled. */
static pg_err make_log(const char *dir, char path[128], int n) {
    snprintf(path, 128, "%s/audit.jsonl", dir);
    pg_audit *a;
    pg_err rc = pg_audit_open(&a, path, 0, NULL);
    if (rc) return rc;
    rc = append_n(a, 0, n);
    pg_audit_close(a);
    return rc;
}

static void sha_hex(const char *s, size_t n, char out[65]) {
    uint8_t d[PG_SHA256_LEN];
    pg_sha256(s, n, d, NULL);
    pg_hex(d, sizeof d, out);
}

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* ---- tests ------------------------------------------------------------ */

PG_TEST(append_then_verify_ok) {
    char dir[64], path[128];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 50) == PG_OK);
    pg_audit_report r;
    pg_error e;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 50);
    CHECK_EQ_INT(r.first_seq, 1);
    CHECK_EQ_INT(r.last_seq, 50);
    CHECK(r.from_genesis);
    CHECK_EQ_INT(r.files, 1);
    CHECK_EQ_INT(r.first_bad_line, 0);
#ifndef _WIN32 /* Windows: the directory's DACL, set by the broker */
    struct stat st;
    REQUIRE(stat(path, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
#endif

    lines_t L;
    read_lines(path, &L);
    REQUIRE(L.count == 50);
    char h[65], want[80];
    /* genesis, then each prev is the hash of the previous line's exact bytes */
    CHECK(strstr(L.l[0], "\"prev\":\"" PG_AUDIT_GENESIS "\"}") != NULL);
    for (size_t i = 1; i < L.count; i++) {
        sha_hex(L.l[i - 1], L.len[i - 1], h);
        snprintf(want, sizeof want, "\"prev\":\"%s\"}", h);
        CHECK(L.len[i] > strlen(want) && memcmp(L.l[i] + L.len[i] - strlen(want), want, strlen(want)) == 0);
    }
    /* the whole token never appears; its first 8 chars do */
    CHECK(strstr(L.buf, TOKEN) == NULL);
    CHECK(strstr(L.buf, "\"token_prefix\":\"cap:AbCd\"") != NULL);
    free(L.buf);
    rm_tree(dir);
}

PG_TEST(record_has_fixed_fields_in_fixed_order) {
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    pg_audit_event ev = sample(2);
    pg_audit_window w = {.id = 77, .title = "bad \xFF utf8", .cls = NULL};
    ev.window = &w;
    ev.principal.exe = "/usr/bin/python3";
    REQUIRE(pg_audit_append(a, &ev, NULL) == PG_OK);
    ev = sample(3);
    ev.window = NULL;
    REQUIRE(pg_audit_append(a, &ev, NULL) == PG_OK);
    char anchor[PG_AUDIT_ANCHOR_MAX];
    pg_audit_anchor(a, anchor);
    pg_audit_close(a);

    lines_t L;
    read_lines(path, &L);
    REQUIRE(L.count == 2);
    printf("     record: %.*s\n", (int)L.len[0], L.l[0]);
    const char *keys[] = {"seq", "time", "principal", "op", "window", "image_sha256", "disposition", "outcome", "prev"};
    cJSON *j = cJSON_Parse(L.l[0]);
    REQUIRE(j);
    int k = 0;
    for (cJSON *it = j->child; it; it = it->next, k++) CHECK(k < 9 && strcmp(it->string, keys[k]) == 0);
    CHECK_EQ_INT(k, 9);
    CHECK_EQ_INT(cJSON_GetObjectItem(j, "seq")->valuedouble, 1);
    const char *t = cJSON_GetObjectItem(j, "time")->valuestring;
    CHECK(strlen(t) == 24 && t[10] == 'T' && t[19] == '.' && t[23] == 'Z');
    cJSON *p = cJSON_GetObjectItem(j, "principal");
    CHECK_EQ_INT(cJSON_GetObjectItem(p, "uid")->valuedouble, 1000);
    CHECK_STR(cJSON_GetObjectItem(p, "user")->valuestring, "agent");
    CHECK_EQ_INT(cJSON_GetObjectItem(p, "pid")->valuedouble, 4242);
    CHECK_STR(cJSON_GetObjectItem(p, "exe")->valuestring, "/usr/bin/python3");
    CHECK_STR(cJSON_GetObjectItem(j, "op")->valuestring, "release");
    cJSON *wj = cJSON_GetObjectItem(j, "window");
    CHECK_EQ_INT(cJSON_GetObjectItem(wj, "id")->valuedouble, 77);
    CHECK_STR(cJSON_GetObjectItem(wj, "title")->valuestring, "bad \xEF\xBF\xBD utf8");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(wj, "class")));
    CHECK_STR(cJSON_GetObjectItem(j, "image_sha256")->valuestring, IMG);
    cJSON *d = cJSON_GetObjectItem(j, "disposition");
    CHECK_STR(cJSON_GetObjectItem(d, "kind")->valuestring, "refused");
    CHECK_STR(cJSON_GetObjectItem(d, "token_prefix")->valuestring, "cap:AbCd");
    CHECK_STR(cJSON_GetObjectItem(d, "mode")->valuestring, "png");
    CHECK_STR(cJSON_GetObjectItem(d, "reason")->valuestring, "expose_pixels is analyze-only");
    CHECK(cJSON_GetObjectItem(d, "endpoint") == NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "outcome")->valuestring, "POLICY_REFUSED");
    cJSON_Delete(j);

    j = cJSON_Parse(L.l[1]);
    REQUIRE(j);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "window")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "image_sha256")));
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "principal"), "comm")->valuestring, "pixelgate");
    CHECK_STR(cJSON_GetObjectItem(j, "outcome")->valuestring, "OK");
    cJSON_Delete(j);
    /* the anchor is seq:hash of the last line */
    char h[65], want[PG_AUDIT_ANCHOR_MAX];
    sha_hex(L.l[1], L.len[1], h);
    snprintf(want, sizeof want, "2:%s", h);
    CHECK_STR(anchor, want);
    free(L.buf);
    rm_tree(dir);
}

static bool has_bytes(const char *hay, size_t n, const char *needle) {
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0) return true;
    return false;
}

/* Titles and the peer's comm are chosen by others. Characters that reorder
 * or hide text when an administrator reads the log (tail, less, a terminal)
 * are written as visible escapes: bidi overrides and isolates, line and
 * paragraph separators, C1 controls, zero-width and other format characters.
 * The record stays valid JSON, the chain verifies, ordinary text is kept. */
PG_TEST(audit_strings_escape_bidi_separators_and_invisible_characters) {
    static const char *const raw[] = {
        "\xE2\x80\xAE", /* U+202E RIGHT-TO-LEFT OVERRIDE */
        "\xE2\x80\xAA", /* U+202A */
        "\xE2\x81\xA6", /* U+2066 LEFT-TO-RIGHT ISOLATE */
        "\xE2\x81\xA9", /* U+2069 POP DIRECTIONAL ISOLATE */
        "\xE2\x80\x8F", /* U+200F RIGHT-TO-LEFT MARK */
        "\xE2\x80\xA8", /* U+2028 LINE SEPARATOR */
        "\xE2\x80\xA9", /* U+2029 PARAGRAPH SEPARATOR */
        "\xC2\x9B",     /* U+009B CSI, a C1 control */
        "\xC2\x85",     /* U+0085 NEXT LINE */
        "\xE2\x80\x8B", /* U+200B ZERO WIDTH SPACE */
        "\xEF\xBB\xBF", /* U+FEFF */
        "\xF3\xA0\x81\x81", /* U+E0041 TAG LATIN CAPITAL LETTER A */
        "\x7F",         /* DEL */
    };
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    pg_audit_event ev = sample(0);
    pg_audit_window w = {.id = 5, .title = "invoice\xE2\x80\xAE" "fdp.exe \xE2\x80\x94 caf\xC3\xA9", .cls = "x\xE2\x80\xA8y"};
    ev.window = &w;
    ev.principal.comm = "sshd\xE2\x81\xA6\xC2\x9B\xE2\x80\x8B\xEF\xBB\xBF\xF3\xA0\x81\x81\x7F";
    ev.disposition.detail = "a\xE2\x80\xAA\xE2\x81\xA9\xE2\x80\x8F\xE2\x80\xA9\xC2\x85z";
    REQUIRE(pg_audit_append(a, &ev, NULL) == PG_OK);
    REQUIRE(pg_audit_append(a, &ev, NULL) == PG_OK);
    pg_audit_close(a);
    lines_t L;
    read_lines(path, &L);
    REQUIRE(L.count == 2);
    printf("     record: %.*s\n", (int)L.len[0], L.l[0]);
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
        bool found = has_bytes(L.l[0], L.len[0], raw[i]);
        CHECK(!found);
        if (found) printf("     raw character %zu is in the record\n", i);
    }
    cJSON *j = cJSON_Parse(L.l[0]);
    REQUIRE(j);
    cJSON *wj = cJSON_GetObjectItem(j, "window");
    CHECK_STR(cJSON_GetObjectItem(wj, "title")->valuestring, "invoice<U+202E>fdp.exe \xE2\x80\x94 caf\xC3\xA9");
    CHECK_STR(cJSON_GetObjectItem(wj, "class")->valuestring, "x<U+2028>y");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "principal"), "comm")->valuestring,
              "sshd<U+2066><U+009B><U+200B><U+FEFF><U+E0041><U+007F>");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "disposition"), "detail")->valuestring,
              "a<U+202A><U+2069><U+200F><U+2029><U+0085>z");
    cJSON_Delete(j);
    free(L.buf);
    pg_audit_report r;
    pg_error e;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 2);
    rm_tree(dir);
}

PG_TEST(edited_record_is_reported_at_its_line) {
    char dir[64], path[128];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 20) == PG_OK);
    char *orig;
    size_t n;
    REQUIRE((orig = slurp(path, &n)) != NULL);
    pg_audit_report r;
    pg_error e;

    /* a byte of the title of line 10 (still valid JSON) */
    lines_t L;
    read_lines(path, &L);
    char *t = strstr(L.l[9], "Terminal");
    REQUIRE(t && t < L.l[9] + L.len[9]);
    t[0] = 't';
    write_lines(path, &L);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 10);
    CHECK_EQ_INT(r.first_bad_seq, 10);
    CHECK_EQ_INT(r.records, 9);
    CHECK_EQ_INT(r.last_seq, 9);
    CHECK(strstr(r.bad_file, "audit.jsonl") != NULL);
    CHECK(strstr(e.message, "line 10") != NULL);
    free(L.buf);

    /* a byte of the prev field of line 12 */
    spit(path, orig, n);
    read_lines(path, &L);
    char *p = strstr(L.l[11], "\"prev\":\"");
    REQUIRE(p);
    p[8] = p[8] == 'a' ? 'b' : 'a';
    write_lines(path, &L);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 12);
    free(L.buf);

    /* an edit that breaks the JSON of line 7 */
    spit(path, orig, n);
    read_lines(path, &L);
    L.l[6][0] = '[';
    write_lines(path, &L);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 7);
    CHECK(strstr(r.reason, "not a valid record") != NULL);
    free(L.buf);

    /* the seq of line 3 */
    spit(path, orig, n);
    read_lines(path, &L);
    REQUIRE(memcmp(L.l[2], "{\"seq\":3,", 9) == 0);
    L.l[2][7] = '9';
    write_lines(path, &L);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 3);
    free(L.buf);

    spit(path, orig, n);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    free(orig);
    rm_tree(dir);
}

PG_TEST(deleted_record_is_reported) {
    char dir[64], path[128];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 20) == PG_OK);
    lines_t L;
    read_lines(path, &L);
    memmove(&L.l[7], &L.l[8], (L.count - 8) * sizeof L.l[0]);
    memmove(&L.len[7], &L.len[8], (L.count - 8) * sizeof L.len[0]);
    L.count--;
    write_lines(path, &L);
    pg_audit_report r;
    pg_error e;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 8);
    CHECK_EQ_INT(r.first_bad_seq, 8);
    CHECK_EQ_INT(r.records, 7);
    CHECK(strstr(r.reason, "missing") != NULL);
    free(L.buf);

    /* the first line removed: the log does not start at genesis */
    rm_tree(dir);
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 5) == PG_OK);
    read_lines(path, &L);
    memmove(&L.l[0], &L.l[1], (L.count - 1) * sizeof L.l[0]);
    memmove(&L.len[0], &L.len[1], (L.count - 1) * sizeof L.len[0]);
    L.count--;
    write_lines(path, &L);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 1);
    free(L.buf);
    rm_tree(dir);
}

PG_TEST(reordered_records_are_reported) {
    char dir[64], path[128];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 20) == PG_OK);
    lines_t L;
    read_lines(path, &L);
    char *tl = L.l[4];
    size_t tn = L.len[4];
    L.l[4] = L.l[5];
    L.len[4] = L.len[5];
    L.l[5] = tl;
    L.len[5] = tn;
    write_lines(path, &L);
    pg_audit_report r;
    pg_error e;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 5);
    CHECK_EQ_INT(r.records, 4);
    free(L.buf);
    rm_tree(dir);
}

PG_TEST(torn_tail_is_repaired_at_open) {
    char dir[64], path[128];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 10) == PG_OK);
    size_t n;
    char *orig = slurp(path, &n);
    REQUIRE(orig);
    const char torn[] = "{\"seq\":11,\"time\":\"2025-01-0";
    char *buf = malloc(n + sizeof torn);
    memcpy(buf, orig, n);
    memcpy(buf + n, torn, sizeof torn - 1);
    spit(path, buf, n + sizeof torn - 1);

    /* before the broker restarts: whole records verify, the tail is reported */
    pg_audit_report r;
    pg_error e;
    char text[1024];
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 10);
    CHECK_EQ_INT(r.torn_tail_bytes, sizeof torn - 1);
    pg_audit_report_format(&r, PG_OK, text, sizeof text);
    CHECK(strstr(text, "unterminated") != NULL);

    /* open cuts it off, saves it, and records the repair as seq 11 */
    pg_audit *a;
    REQUIRE(pg_audit_open(&a, path, 0, &e) == PG_OK);
    REQUIRE(append_n(a, 0, 1) == PG_OK);
    pg_audit_close(a);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 12);
    CHECK_EQ_INT(r.repairs, 1);
    CHECK_EQ_INT(r.torn_tail_bytes, 0);
    pg_audit_report_format(&r, PG_OK, text, sizeof text);
    CHECK(strstr(text, "1 torn tail cut off") != NULL);
    lines_t L;
    read_lines(path, &L);
    REQUIRE(L.count == 12);
    CHECK(memcmp(L.buf, orig, n) == 0); /* whole records untouched */
    CHECK(strstr(L.l[10], "\"op\":\"audit.repair\"") != NULL);
    char want[128], h[65];
    sha_hex(torn, sizeof torn - 1, h);
    snprintf(want, sizeof want, "\"torn_sha256\":\"%s\"", h);
    CHECK(strstr(L.l[10], want) != NULL);
    CHECK(strstr(L.l[10], "\"torn_bytes\":27") != NULL);
    free(L.buf);
    char saved[160];
    snprintf(saved, sizeof saved, "%s.torn.11", path);
    size_t sn;
    char *s = slurp(saved, &sn);
    CHECK(s && sn == sizeof torn - 1 && memcmp(s, torn, sn) == 0);
    free(s);

    /* a crash during the very first write: chain starts from genesis */
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_BINARY, 0600);
    REQUIRE(fd >= 0 && write(fd, torn, 5) == 5);
    close(fd);
    REQUIRE(pg_audit_open(&a, path, 0, &e) == PG_OK);
    pg_audit_close(a);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 1);
    CHECK_EQ_INT(r.repairs, 1);
    CHECK(r.from_genesis);
    free(orig);
    free(buf);
    rm_tree(dir);
}

PG_TEST(rotation_keeps_the_chain) {
    char dir[64], path[128], name[160];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    const uint64_t rot = 2000;
    pg_audit *a;
    pg_error e;
    REQUIRE(pg_audit_open(&a, path, rot, &e) == PG_OK);
    REQUIRE(append_n(a, 0, 30) == PG_OK);
    char anchor[PG_AUDIT_ANCHOR_MAX];
    pg_audit_anchor(a, anchor);
    pg_audit_close(a);

    snprintf(name, sizeof name, "%s.1", path);
    CHECK(file_size(name) > 0 && file_size(name) <= rot);
    CHECK(file_size(path) <= rot);
    /* the new file's first record chains from the last of .1 */
    lines_t L1, L;
    read_lines(name, &L1);
    read_lines(path, &L);
    REQUIRE(L1.count > 0 && L.count > 0);
    char h[65];
    sha_hex(L1.l[L1.count - 1], L1.len[L1.count - 1], h);
    CHECK(strstr(L.l[0], "\"op\":\"audit.rotate\"") != NULL);
    CHECK(strstr(L.l[0], "\"rotated_from\":\"audit.jsonl.1\"") != NULL);
    CHECK(strstr(L.l[0], h) != NULL);
    free(L1.buf);
    free(L.buf);

    pg_audit_report r;
    pg_audit_verify_opts o = {.anchor = anchor};
    CHECK_EQ_INT(pg_audit_verify(path, &o, &r, &e), PG_OK);
    CHECK(r.files > 2);
    CHECK(r.from_genesis);
    CHECK(r.anchor_checked);
    CHECK_EQ_INT(r.records, r.last_seq);
    CHECK_EQ_INT(r.records, 30 + r.files - 1); /* plus one header per new file */
    /* the live file alone verifies from its header */
    pg_audit_verify_opts single = {.single_file = true};
    CHECK_EQ_INT(pg_audit_verify(path, &single, &r, &e), PG_OK);
    CHECK(!r.from_genesis);
    CHECK_EQ_INT(r.files, 1);

    /* a reopen continues the sequence */
    REQUIRE(pg_audit_open(&a, path, rot, &e) == PG_OK);
    REQUIRE(append_n(a, 0, 100) == PG_OK);
    pg_audit_close(a);
    snprintf(name, sizeof name, "%s.%d", path, PG_AUDIT_KEEP + 1);
    CHECK(access(name, F_OK) != 0); /* at most PG_AUDIT_KEEP rotated files */
    snprintf(name, sizeof name, "%s.%d", path, PG_AUDIT_KEEP);
    CHECK(access(name, F_OK) == 0);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.files, PG_AUDIT_KEEP + 1);
    CHECK(!r.from_genesis); /* the oldest files were rotated out */
    CHECK(r.first_seq > 1);
    uint64_t last = r.last_seq;
    /* an anchor older than the oldest record kept cannot be compared */
    CHECK_EQ_INT(pg_audit_verify(path, &o, &r, &e), PG_OK);
    CHECK(r.anchor_given && !r.anchor_checked);

    /* a crash between renaming the live file and writing the new one */
    snprintf(name, sizeof name, "%s.1", path);
    char n2[160];
    for (int i = PG_AUDIT_KEEP - 1; i >= 1; i--) {
        char f[160], t[160];
        snprintf(f, sizeof f, "%s.%d", path, i);
        snprintf(t, sizeof t, "%s.%d", path, i + 1);
        REQUIRE(move_over(f, t) == 0);
    }
    REQUIRE(move_over(path, name) == 0);
    REQUIRE(pg_audit_open(&a, path, rot, &e) == PG_OK);
    REQUIRE(append_n(a, 0, 1) == PG_OK);
    pg_audit_close(a);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.last_seq, last + 2); /* header + record */

    /* a whole rotated file removed from the middle */
    snprintf(n2, sizeof n2, "%s.3", path);
    REQUIRE(unlink(n2) == 0);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK(strstr(r.bad_file, "audit.jsonl.2") != NULL);
    CHECK_EQ_INT(r.first_bad_line, 1);

    /* an edit inside a rotated file names that file and line */
    snprintf(n2, sizeof n2, "%s.5", path);
    read_lines(n2, &L);
    REQUIRE(L.count > 3);
    char *t = strstr(L.l[2], "agent");
    REQUIRE(t);
    t[0] = 'A';
    write_lines(n2, &L);
    free(L.buf);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_ASSERT);
    CHECK(strstr(r.bad_file, "audit.jsonl.5") != NULL);
    CHECK_EQ_INT(r.first_bad_line, 3);
    rm_tree(dir);
}

typedef struct {
    pg_audit *a;
    int id;
    int fails;
} worker_arg;

static void *worker(void *p) {
    worker_arg *w = p;
    for (int i = 0; i < 100; i++) {
        pg_audit_event ev = sample(i);
        ev.principal.pid = 1000 + w->id;
        if (pg_audit_append(w->a, &ev, NULL) != PG_OK) w->fails++;
    }
    return NULL;
}

PG_TEST(concurrent_appends_keep_one_chain) {
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    REQUIRE(pg_audit_open(&a, path, 32768, NULL) == PG_OK);
    pthread_t th[4];
    worker_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (worker_arg){a, i, 0};
        REQUIRE(pthread_create(&th[i], NULL, worker, &args[i]) == 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    pg_audit_close(a);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(args[i].fails, 0);
    pg_audit_report r;
    pg_error e;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    /* verify demands seq 1, 2, 3 ... without gap or repeat: seqs are unique */
    CHECK_EQ_INT(r.records, r.last_seq);
    CHECK_EQ_INT(r.records, 400 + r.files - 1);
    /* every thread's 100 records are there */
    int per[4] = {0};
    for (unsigned f = 0; f < r.files; f++) {
        char name[160];
        if (f + 1 == r.files) snprintf(name, sizeof name, "%s", path);
        else snprintf(name, sizeof name, "%s.%u", path, r.files - 1 - f);
        lines_t L;
        read_lines(name, &L);
        for (size_t i = 0; i < L.count; i++) {
            /* The log's own records (audit.rotate) carry this process's pid,
             * which can be one of the workers' (Wine numbers processes from
             * 1000 up): they are not a worker's. */
            const char *own = strstr(L.l[i], "\"op\":\"audit.");
            if (own && own < L.l[i] + L.len[i]) continue;
            for (int k = 0; k < 4; k++) {
                char pid[32];
                snprintf(pid, sizeof pid, "\"pid\":%d,", 1000 + k);
                if (strstr(L.l[i], pid) && strstr(L.l[i], pid) < L.l[i] + L.len[i]) per[k]++;
            }
        }
        free(L.buf);
    }
    for (int k = 0; k < 4; k++) CHECK_EQ_INT(per[k], 100);
    rm_tree(dir);
}

PG_TEST(anchor_catches_cut_records) {
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    REQUIRE(append_n(a, 0, 10) == PG_OK);
    char mid[PG_AUDIT_ANCHOR_MAX], end[PG_AUDIT_ANCHOR_MAX];
    pg_audit_anchor(a, mid);
    REQUIRE(append_n(a, 10, 10) == PG_OK);
    pg_audit_anchor(a, end);
    pg_audit_close(a);
    CHECK(strncmp(mid, "10:", 3) == 0);
    CHECK(strncmp(end, "20:", 3) == 0);

    pg_audit_report r;
    pg_error e;
    pg_audit_verify_opts o = {.anchor = end};
    CHECK_EQ_INT(pg_audit_verify(path, &o, &r, &e), PG_OK);
    CHECK(r.anchor_checked);
    size_t n;
    char *orig = slurp(path, &n);

    /* cut the last three whole records: the chain alone cannot tell */
    lines_t L;
    read_lines(path, &L);
    L.count -= 3;
    write_lines(path, &L);
    free(L.buf);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 17);
    CHECK_EQ_INT(pg_audit_verify(path, &o, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_seq, 18);
    CHECK_EQ_INT(r.first_bad_line, 18);
    CHECK(strstr(r.reason, "cut from the end") != NULL);
    /* an older anchor still holds for what is left */
    pg_audit_verify_opts om = {.anchor = mid};
    CHECK_EQ_INT(pg_audit_verify(path, &om, &r, &e), PG_OK);
    CHECK(r.anchor_checked);

    /* an edit of the last record: only the anchor can see it */
    spit(path, orig, n);
    read_lines(path, &L);
    char *t = strstr(L.l[19], "agent");
    REQUIRE(t);
    t[0] = 'A';
    write_lines(path, &L);
    free(L.buf);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(pg_audit_verify(path, &o, &r, &e), PG_E_ASSERT);
    CHECK_EQ_INT(r.first_bad_line, 20);

    pg_audit_verify_opts zero = {.anchor = "0:" PG_AUDIT_GENESIS};
    spit(path, orig, n);
    CHECK_EQ_INT(pg_audit_verify(path, &zero, &r, &e), PG_OK);
    pg_audit_verify_opts bad = {.anchor = "0:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"};
    CHECK_EQ_INT(pg_audit_verify(path, &bad, &r, &e), PG_E_USAGE);
    bad.anchor = "12:xyz";
    CHECK_EQ_INT(pg_audit_verify(path, &bad, &r, &e), PG_E_USAGE);
    bad.anchor = "abc";
    CHECK_EQ_INT(pg_audit_verify(path, &bad, &r, &e), PG_E_USAGE);
    free(orig);
    rm_tree(dir);
}

#ifndef _WIN32 /* RLIMIT_FSIZE, fork and setuid are POSIX; Windows has no way to make a write fail here */
PG_TEST(write_failure_is_an_error_and_leaves_no_torn_line) {
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    pg_error e;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    REQUIRE(append_n(a, 0, 3) == PG_OK);
    uint64_t before = file_size(path);
    /* the filesystem is "full" 100 bytes on: the record is cut short */
    struct rlimit old, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = before + 100;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    pg_audit_event ev = sample(0);
    pg_err rc = pg_audit_append(a, &ev, &e);
    lim.rlim_cur = before; /* and now with no room at all */
    setrlimit(RLIMIT_FSIZE, &lim);
    pg_err rc2 = pg_audit_append(a, &ev, NULL);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, oldsig);
    CHECK_EQ_INT(rc, PG_E_INTERNAL);
    CHECK_EQ_INT(rc2, PG_E_INTERNAL);
    CHECK(strstr(e.message, "write failed") != NULL);
    CHECK_EQ_INT(file_size(path), before); /* cut back to the last whole record */
    /* with space again the chain goes on where it was */
    REQUIRE(append_n(a, 0, 1) == PG_OK);
    char anchor[PG_AUDIT_ANCHOR_MAX];
    pg_audit_anchor(a, anchor);
    pg_audit_close(a);
    CHECK(strncmp(anchor, "4:", 2) == 0);
    pg_audit_report r;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 4);
    CHECK_EQ_INT(r.torn_tail_bytes, 0);
    rm_tree(dir);
}

PG_TEST(reserving_room_refuses_when_the_next_records_would_not_fit) {
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    pg_error e;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    REQUIRE(append_n(a, 0, 2) == PG_OK);
    uint64_t before = file_size(path);
    CHECK_EQ_INT(pg_audit_reserve(a, 2 * PG_AUDIT_RECORD_MAX, &e), PG_OK);
    CHECK_EQ_INT(file_size(path), before); /* reserved past the end: the size is the records' */
    struct rlimit old, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = before + 1000; /* room for one small record, not for what is asked */
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    pg_audit_close(a);
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK); /* a fresh handle: nothing reserved yet */
    pg_err rc = pg_audit_reserve(a, 2 * PG_AUDIT_RECORD_MAX, &e);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, oldsig);
    CHECK_EQ_INT(rc, PG_E_INTERNAL);
    CHECK(strstr(e.message, "no room") != NULL);
    CHECK_EQ_INT(file_size(path), before); /* nothing written */
    pg_audit_close(a);
    rm_tree(dir);
}

/* As an unprivileged user (root drops to nobody in a child): a log whose
 * directory and file were made unwritable cannot be opened - an error code,
 * not a crash and not a silent success. */
PG_TEST(unwritable_log_is_an_error) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
        char dir[64], path[128];
        tmp_dir(dir);
        if (make_log(dir, path, 2) != PG_OK) _exit(11);
        chmod(path, 0400);
        chmod(dir, 0500);
        pg_audit *a = NULL;
        pg_error e;
        pg_err rc = pg_audit_open(&a, path, 0, &e);
        int bad = rc == PG_OK || !strstr(e.message, "Permission denied");
        char other[160];
        snprintf(other, sizeof other, "%s/other.jsonl", dir); /* cannot be created */
        int bad2 = pg_audit_open(&a, other, 0, &e) == PG_OK;
        chmod(dir, 0700);
        rm_tree(dir);
        _exit(bad ? 12 : bad2 ? 13 : 0);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK_EQ_INT(WEXITSTATUS(st), 0);
}
#endif

PG_TEST(reserving_room_rotates_first_when_the_records_would_pass_the_rotation_size) {
    char dir[64], path[128], p1[160];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    snprintf(p1, sizeof p1, "%s.1", path);
    pg_audit *a;
    pg_error e;
    REQUIRE(pg_audit_open(&a, path, 4 * PG_AUDIT_RECORD_MAX, NULL) == PG_OK);
    REQUIRE(append_n(a, 0, 3) == PG_OK);
    CHECK_EQ_INT(file_size(p1), 0);
    CHECK_EQ_INT(pg_audit_reserve(a, 4 * PG_AUDIT_RECORD_MAX, &e), PG_OK);
    CHECK(file_size(p1) > 0); /* the old file rotated away before anything relied on room in it */
    REQUIRE(append_n(a, 3, 2) == PG_OK);
    pg_audit_close(a);
    pg_audit_report r;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.last_seq, 6); /* 5 records and the rotation header */
    rm_tree(dir);
}

PG_TEST(a_record_of_intent_says_so_and_its_outcome_names_it) {
    char dir[64], path[128], at[PG_AUDIT_ANCHOR_MAX];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    pg_audit_event ev = sample(3);
    ev.intent = true;
    REQUIRE(pg_audit_append_at(a, &ev, at, NULL) == PG_OK);
    CHECK(strncmp(at, "1:", 2) == 0);
    ev.intent = false;
    ev.disposition.intent = at;
    REQUIRE(pg_audit_append(a, &ev, NULL) == PG_OK);
    pg_audit_close(a);
    lines_t L;
    read_lines(path, &L);
    REQUIRE(L.count == 2);
    CHECK(strstr(L.l[0], "\"outcome\":\"INTENT\"") != NULL);
    char hex[65], want[160];
    sha_hex(L.l[0], L.len[0], hex);
    snprintf(want, sizeof want, "\"intent\":\"1:%s\"", hex);
    CHECK(strstr(L.l[1], want) != NULL);
    free(L.buf);
    rm_tree(dir);
}


/* Group commit: the other records are in the file at once and synced
 * together by the flusher; a record of intent is synced before it returns
 * (and with it every record before it); 0 syncs each record. */
PG_TEST(group_commit_syncs_intent_at_once_and_the_rest_together) {
    char dir[64], path[128];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    pg_audit *a;
    pg_error e;
    REQUIRE(pg_audit_open(&a, path, 0, NULL) == PG_OK);
    uint64_t s0 = pg_audit_sync_count(a);
    REQUIRE(append_n(a, 0, 3) == PG_OK);
    CHECK_EQ_INT((int)(pg_audit_sync_count(a) - s0), 3); /* the default: one each */
    CHECK_EQ_INT(pg_audit_set_flush(a, PG_AUDIT_FLUSH_MAX_MS + 1, &e), PG_E_USAGE);
    REQUIRE(pg_audit_set_flush(a, 300, &e) == PG_OK);
    s0 = pg_audit_sync_count(a);
    REQUIRE(append_n(a, 0, 4) == PG_OK);
    CHECK_EQ_INT((int)(pg_audit_sync_count(a) - s0), 0); /* written, not yet synced */
    lines_t L;
    read_lines(path, &L);
    CHECK_EQ_INT((int)L.count, 7); /* ...but in the file before append returned */
    free(L.buf);
    pg_audit_event ev = sample(3);
    ev.intent = true;
    REQUIRE(pg_audit_append(a, &ev, NULL) == PG_OK);
    CHECK_EQ_INT((int)(pg_audit_sync_count(a) - s0), 1); /* intent: on disk now, the 4 before with it */
    s0 = pg_audit_sync_count(a);
    REQUIRE(append_n(a, 0, 5) == PG_OK);
    for (double t0 = pg_mono_ms(); pg_audit_sync_count(a) == s0 && pg_mono_ms() - t0 < 5000;) pg_sleep_ms(10);
    CHECK_EQ_INT((int)(pg_audit_sync_count(a) - s0), 1); /* five records, one fdatasync */
    REQUIRE(pg_audit_set_flush(a, 0, &e) == PG_OK);
    s0 = pg_audit_sync_count(a);
    REQUIRE(append_n(a, 0, 2) == PG_OK);
    CHECK_EQ_INT((int)(pg_audit_sync_count(a) - s0), 2);
    REQUIRE(pg_audit_set_flush(a, 1000, &e) == PG_OK);
    REQUIRE(append_n(a, 0, 2) == PG_OK);
    pg_audit_close(a); /* syncs what is left */
    pg_audit_report r;
    REQUIRE(pg_audit_verify_file(path, &r, &e) == PG_OK);
    CHECK_EQ_INT((int)r.last_seq, 17);
    rm_tree(dir);
}


#ifdef _WIN32
/* A symbolic link in place of the log is opened as itself and refused. Making
 * one needs SeCreateSymbolicLinkPrivilege or developer mode on Windows, and
 * Wine may not support it: then the check is reported as skipped, not passed. */
static void try_windows_link_(const char *path, const char *link, int *pg_failed_) {
    if (!CreateSymbolicLinkA(link, path, SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE) ||
        !(GetFileAttributesA(link) & FILE_ATTRIBUTE_REPARSE_POINT) ||
        GetFileAttributesA(link) == INVALID_FILE_ATTRIBUTES) {
        printf("     SKIPPED: cannot create a symbolic link here (error %lu): link refusal not exercised\n",
               (unsigned long)GetLastError());
        DeleteFileA(link);
        return;
    }
    pg_audit *a;
    pg_error e;
    pg_audit_report r;
    CHECK_EQ_INT(pg_audit_open(&a, link, 0, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "symlink") != NULL);
    CHECK_EQ_INT(pg_audit_verify_file(link, &r, &e), PG_E_BADINPUT);
    DeleteFileA(link);
}
#define try_windows_link(p, l) try_windows_link_(p, l, pg_failed_)

/* While the broker holds the log: another handle may read it (verify, an
 * administrator's copy), may not write it, and the LockFileEx byte is taken. */
static void windows_lock_and_sharing_(const char *path, int *pg_failed_) {
    HANDLE w = CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, 0, NULL);
    CHECK(w == INVALID_HANDLE_VALUE && GetLastError() == ERROR_SHARING_VIOLATION);
    if (w != INVALID_HANDLE_VALUE) CloseHandle(w);
    HANDLE rd = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_EXISTING, 0, NULL);
    REQUIRE(rd != INVALID_HANDLE_VALUE);
    char buf[16];
    DWORD got = 0;
    CHECK(ReadFile(rd, buf, sizeof buf, &got, NULL) && got == sizeof buf); /* not blocked by the lock */
    OVERLAPPED ov = {0};
    ov.Offset = (DWORD)(PG_AUDIT_LOCK_OFFSET & 0xFFFFFFFFu);
    ov.OffsetHigh = (DWORD)(PG_AUDIT_LOCK_OFFSET >> 32);
    BOOL locked = LockFileEx(rd, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov);
    CHECK(!locked && GetLastError() == ERROR_LOCK_VIOLATION);
    if (locked) UnlockFileEx(rd, 0, 1, 0, &ov);
    CloseHandle(rd);
}
#define windows_lock_and_sharing(p) windows_lock_and_sharing_(p, pg_failed_)
#endif

PG_TEST(unsafe_paths_and_events_are_refused) {
    char dir[64], path[128], link[160];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 2) == PG_OK);
    pg_audit *a, *b;
    pg_error e;
    pg_audit_report r;
    /* symlinks are never followed, neither by open nor by verify */
    snprintf(link, sizeof link, "%s/link.jsonl", dir);
#ifdef _WIN32
    try_windows_link(path, link);
#else
    REQUIRE(symlink(path, link) == 0);
    CHECK_EQ_INT(pg_audit_open(&a, link, 0, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "symlink") != NULL);
    CHECK_EQ_INT(pg_audit_verify_file(link, &r, &e), PG_E_BADINPUT);
    /* a log others may read */
    chmod(path, 0644);
    CHECK_EQ_INT(pg_audit_open(&a, path, 0, &e), PG_E_BADINPUT);
    chmod(path, 0600);
    /* a directory others may write */
    chmod(dir, 0777);
    CHECK_EQ_INT(pg_audit_open(&a, path, 0, &e), PG_E_BADINPUT);
    chmod(dir, 0700);
#endif
    /* one writer per log */
    REQUIRE(pg_audit_open(&a, path, 0, &e) == PG_OK);
    CHECK_EQ_INT(pg_audit_open(&b, path, 0, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "in use") != NULL);
#ifdef _WIN32
    windows_lock_and_sharing(path);
#endif
    /* caller bugs */
    pg_audit_event ev = sample(0);
    ev.op = NULL;
    CHECK_EQ_INT(pg_audit_append(a, &ev, &e), PG_E_USAGE);
    ev = sample(0);
    ev.op = "audit.rotate";
    CHECK_EQ_INT(pg_audit_append(a, &ev, &e), PG_E_USAGE);
    ev = sample(0);
    ev.image_sha256 = "ABC";
    CHECK_EQ_INT(pg_audit_append(a, &ev, &e), PG_E_USAGE);
    ev = sample(0);
    ev.disposition.kind = NULL;
    CHECK_EQ_INT(pg_audit_append(a, &ev, &e), PG_E_USAGE);
    pg_audit_close(a);
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 2);
    /* missing things */
    CHECK_EQ_INT(pg_audit_open(&a, "/nonexistent-pg-dir/audit.jsonl", 0, &e), PG_E_NOTFOUND);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.jsonl", dir);
    CHECK_EQ_INT(pg_audit_verify_file(missing, &r, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_audit_open(&a, "", 0, &e), PG_E_USAGE);
    /* a FIFO (Windows: a directory) among the rotated files is refused, not waited on */
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s.1", path);
#ifdef _WIN32
    REQUIRE(CreateDirectoryA(fifo, NULL));
#else
    REQUIRE(mkfifo(fifo, 0600) == 0);
#endif
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_E_BADINPUT);
    unlink(path); /* an empty live file would chain from the FIFO: refused too */
    CHECK_EQ_INT(pg_audit_open(&a, path, 0, &e), PG_E_BADINPUT);
#ifdef _WIN32
    RemoveDirectoryA(fifo);
#endif
    rm_tree(dir);
}

PG_TEST(report_text_names_the_break) {
    char dir[64], path[128], text[1024];
    tmp_dir(dir);
    REQUIRE(make_log(dir, path, 5) == PG_OK);
    pg_audit_report r;
    pg_error e;
    REQUIRE(pg_audit_verify_file(path, &r, &e) == PG_OK);
    pg_audit_report_format(&r, PG_OK, text, sizeof text);
    printf("     %s", text);
    CHECK(strstr(text, "audit log intact: 5 records (seq 1..5) in 1 file from genesis; last 5:") == text);
    lines_t L;
    read_lines(path, &L);
    L.l[1][L.len[1] - 3] ^= 1; /* inside prev of line 2 */
    write_lines(path, &L);
    free(L.buf);
    REQUIRE(pg_audit_verify_file(path, &r, &e) == PG_E_ASSERT);
    pg_audit_report_format(&r, PG_E_ASSERT, text, sizeof text);
    printf("     %s", text);
    CHECK(strstr(text, "audit log BROKEN at ") == text);
    CHECK(strstr(text, "audit.jsonl line 2 (seq 2)") != NULL);
    CHECK(strstr(text, "Before it, 1 record (seq 1..1)") != NULL);
    /* tiny buffers are cut, never overrun */
    char small[8];
    pg_audit_report_format(&r, PG_E_ASSERT, small, sizeof small);
    CHECK_EQ_INT(strlen(small), 7);
    rm_tree(dir);
}

PG_TEST(rotation_that_drops_history_says_so_in_the_chain) {
    char dir[64], path[128], oldest[160];
    tmp_dir(dir);
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    snprintf(oldest, sizeof oldest, "%s.%d", path, PG_AUDIT_KEEP);
    pg_audit *a;
    pg_error e;
    REQUIRE(pg_audit_open(&a, path, 1500, &e) == PG_OK);
    /* fill every rotated slot, then note what the oldest holds just before it goes */
    char want_sha[65] = "";
    uint64_t want_first = 0;
    for (int i = 0; i < 400 && !want_sha[0]; i++) {
        REQUIRE(append_n(a, 0, 1) == PG_OK);
        if (access(oldest, F_OK) != 0) continue;
        /* keep appending until the oldest changes: that rotation evicted it */
        char before[65];
        FILE *f = fopen(oldest, "rb");
        REQUIRE(f);
        static char data[1 << 16];
        size_t n = fread(data, 1, sizeof data, f);
        fclose(f);
        sha_hex(data, n, before);
        want_first = strtoull(data + 7, NULL, 10);
        int guard = 0;
        char now[65];
        do {
            REQUIRE(append_n(a, 0, 1) == PG_OK);
            f = fopen(oldest, "rb");
            REQUIRE(f);
            size_t m = fread(data, 1, sizeof data, f);
            fclose(f);
            sha_hex(data, m, now);
        } while (!strcmp(now, before) && ++guard < 200);
        memcpy(want_sha, before, sizeof want_sha);
    }
    pg_audit_close(a);
    REQUIRE(want_sha[0]);
    lines_t L;
    read_lines(path, &L);
    REQUIRE(L.count > 0);
    /* the live file's header names what was evicted: its digest and first record */
    CHECK(strstr(L.l[0], "\"evicted\":{") != NULL);
    CHECK(strstr(L.l[0], want_sha) != NULL);
    char first[48];
    snprintf(first, sizeof first, "\"first_seq\":%llu", (unsigned long long)want_first);
    CHECK(strstr(L.l[0], first) != NULL);
    free(L.buf);
    pg_audit_report r;
    CHECK_EQ_INT(pg_audit_verify_file(path, &r, &e), PG_OK); /* the chain still verifies */
    rm_tree(dir);
}
