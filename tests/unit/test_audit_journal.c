/* SPDX-License-Identifier: MIT */
/* Audit records copied to the systemd journal: against a fake journald that
 * reads the native protocol from its own datagram socket. The copy carries
 * the record's seq, hash and prev (so it can be checked against the chained
 * file), no window title unless asked, and a journald that is gone costs
 * nothing but a counted failure. Windows: the setting is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "pg_audit.h"
#include "pg_crypto.h"
#include "pg_test.h"

#ifdef _WIN32
#include <windows.h>

PG_TEST(on_windows_journal_copies_are_refused_as_unsupported) {
    char base[MAX_PATH], dir[MAX_PATH + 64], log[MAX_PATH + 96];
    REQUIRE(GetTempPathA(sizeof base, base) > 0);
    snprintf(dir, sizeof dir, "%spg_journal_%lx", base, (unsigned long)GetCurrentProcessId());
    REQUIRE(CreateDirectoryA(dir, NULL));
    snprintf(log, sizeof log, "%s\\audit.jsonl", dir);
    pg_audit *a = NULL;
    pg_error e;
    REQUIRE(pg_audit_open(&a, log, 0, &e) == PG_OK);
    CHECK_EQ_INT(pg_audit_set_journal(a, true, NULL, false, &e), PG_E_UNSUPPORTED);
    CHECK_EQ_INT(pg_audit_set_journal(a, false, NULL, false, &e), PG_OK); /* off is always fine */
    pg_audit_close(a);
    DeleteFileA(log);
    RemoveDirectoryA(dir);
}
#endif

#ifndef _WIN32
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>

typedef struct {
    char dir[64], log[96], sock[96];
    int fd; /* the fake journald's socket */
    pg_audit *audit;
} fx;

static int fx_init(fx *f) {
    snprintf(f->dir, sizeof f->dir, "/tmp/pg_journal_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->log, sizeof f->log, "%s/audit.jsonl", f->dir);
    snprintf(f->sock, sizeof f->sock, "%s/journal.sock", f->dir);
    f->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", f->sock);
    if (f->fd < 0 || bind(f->fd, (struct sockaddr *)&sa, sizeof sa) != 0) return -1;
    pg_error e;
    return pg_audit_open(&f->audit, f->log, 0, &e) == PG_OK ? 0 : -1;
}

static void fx_fini(fx *f) {
    pg_audit_close(f->audit);
    close(f->fd);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", f->dir);
}

/* One datagram from the fake journald, parsed as journald parses the native
 * protocol into {KEY: value}; NULL when nothing came or it is malformed. */
static cJSON *receive(fx *f) {
    static char buf[1 << 17];
    ssize_t n = recv(f->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) return NULL;
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < (size_t)n;) {
        size_t k = i;
        while (k < (size_t)n && buf[k] != '=' && buf[k] != '\n') k++;
        if (k == (size_t)n) goto bad;
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(k - i), buf + i);
        for (const char *c = key; *c; c++)
            if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_') || key[0] == '_') goto bad;
        if (cJSON_GetObjectItemCaseSensitive(o, key)) goto bad; /* one of each, here */
        if (buf[k] == '=') {
            char *nl = memchr(buf + k + 1, '\n', (size_t)n - k - 1);
            if (!nl) goto bad;
            char *v = strndup(buf + k + 1, (size_t)(nl - buf - k - 1));
            cJSON_AddStringToObject(o, key, v);
            free(v);
            i = (size_t)(nl - buf) + 1;
        } else {
            if (k + 9 > (size_t)n) goto bad;
            uint64_t len = 0;
            for (int b = 7; b >= 0; b--) len = len << 8 | (uint8_t)buf[k + 1 + b];
            if (k + 9 + len + 1 > (size_t)n || buf[k + 9 + len] != '\n') goto bad;
            char *v = strndup(buf + k + 9, len);
            cJSON_AddStringToObject(o, key, v);
            cJSON_AddBoolToObject(o, "_binary_form", true); /* (a test marker, not a journald field) */
            free(v);
            i = k + 9 + len + 1;
        }
    }
    return o;
bad:
    fprintf(stderr, "malformed native-protocol datagram\n");
    cJSON_Delete(o);
    return NULL;
}

static const char *fld(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static pg_err append(fx *f, const char *title, pg_err outcome) {
    pg_audit_window w = {.id = 4242, .title = title, .cls = "Tk"};
    pg_audit_event ev = {
        .principal = {.uid = 1001, .user = "agent", .pid = 77, .comm = "pixelgate"},
        .op = "snapshot",
        .window = &w,
        .image_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        .disposition = {.kind = outcome ? "refused" : "token", .token = "cap:AbCdEfGhIjKlMnOpQrStUv",
                        .reason = outcome ? "window \"Secret Title\" is denied" : NULL},
        .outcome = outcome,
    };
    pg_error e;
    return pg_audit_append(f->audit, &ev, &e);
}

/* Line n (1-based) of the chained file and its SHA-256 in hex. */
static bool file_line(fx *f, int n, char *line, size_t cap, char hash[65]) {
    FILE *fp = fopen(f->log, "rb");
    if (!fp) return false;
    bool ok = false;
    for (int i = 1; fgets(line, (int)cap, fp); i++)
        if (i == n) {
            line[strcspn(line, "\n")] = '\0';
            uint8_t h[PG_SHA256_LEN];
            pg_error e;
            ok = pg_sha256(line, strlen(line), h, &e) == PG_OK;
            pg_hex(h, sizeof h, hash);
            break;
        }
    fclose(fp);
    return ok;
}

PG_TEST(a_journal_copy_carries_seq_hash_prev_principal_op_disposition_and_no_title) {
    fx f;
    REQUIRE(fx_init(&f) == 0);
    pg_error e;
    REQUIRE(append(&f, "before the setting", PG_OK) == PG_OK);
    CHECK(receive(&f) == NULL); /* off by default: nothing sent */
    REQUIRE(pg_audit_set_journal(f.audit, true, f.sock, false, &e) == PG_OK);
    REQUIRE(append(&f, "Secret Title", PG_E_POLICY) == PG_OK);
    cJSON *j = receive(&f);
    REQUIRE(j != NULL);
    char line[4096], hash[65], prev_hash[65];
    REQUIRE(file_line(&f, 2, line, sizeof line, hash));
    cJSON *rec = cJSON_Parse(line);
    CHECK_STR(fld(j, "PIXELGATE_AUDIT_SEQ"), "2");
    CHECK_STR(fld(j, "PIXELGATE_AUDIT_HASH"), hash); /* the record's own hash: the anchor 2:HASH */
    REQUIRE(file_line(&f, 1, line, sizeof line, prev_hash));
    CHECK_STR(fld(j, "PIXELGATE_AUDIT_PREV"), prev_hash);
    CHECK_STR(fld(j, "PIXELGATE_AUDIT_TIME"), cJSON_GetObjectItem(rec, "time")->valuestring);
    CHECK_STR(fld(j, "PIXELGATE_UID"), "1001");
    CHECK_STR(fld(j, "PIXELGATE_USER"), "agent");
    CHECK_STR(fld(j, "PIXELGATE_PID"), "77");
    CHECK_STR(fld(j, "PIXELGATE_COMM"), "pixelgate");
    CHECK_STR(fld(j, "PIXELGATE_OP"), "snapshot");
    CHECK_STR(fld(j, "PIXELGATE_WINDOW_ID"), "4242");
    CHECK_STR(fld(j, "PIXELGATE_WINDOW_CLASS"), "Tk");
    CHECK_STR(fld(j, "PIXELGATE_DISPOSITION"), "refused");
    CHECK_STR(fld(j, "PIXELGATE_TOKEN_PREFIX"), "cap:AbCd");
    CHECK_STR(fld(j, "PIXELGATE_OUTCOME"), "POLICY_REFUSED");
    CHECK_STR(fld(j, "PRIORITY"), "5");
    CHECK_STR(fld(j, "SYSLOG_IDENTIFIER"), "pixelgated");
    CHECK(fld(j, "MESSAGE_ID") && strlen(fld(j, "MESSAGE_ID")) == 32);
    CHECK(fld(j, "MESSAGE") && strstr(fld(j, "MESSAGE"), "snapshot by agent -> POLICY_REFUSED"));
    /* no title, and no free text that could quote one */
    CHECK(fld(j, "PIXELGATE_WINDOW_TITLE") == NULL);
    CHECK(fld(j, "PIXELGATE_REASON") == NULL);
    char *all = cJSON_PrintUnformatted(j);
    CHECK(strstr(all, "Secret Title") == NULL);
    free(all);
    cJSON_Delete(rec);
    cJSON_Delete(j);
    fx_fini(&f);
}

PG_TEST(with_titles_a_title_holding_a_newline_goes_in_the_length_prefixed_form) {
    fx f;
    REQUIRE(fx_init(&f) == 0);
    pg_error e;
    REQUIRE(pg_audit_set_journal(f.audit, true, f.sock, true, &e) == PG_OK);
    REQUIRE(append(&f, "Secret Title\nsecond line \xff", PG_E_POLICY) == PG_OK);
    cJSON *j = receive(&f);
    REQUIRE(j != NULL);
    /* the title as the file has it: cleaned to UTF-8, the newline kept */
    CHECK_STR(fld(j, "PIXELGATE_WINDOW_TITLE"), "Secret Title\nsecond line \xEF\xBF\xBD");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "_binary_form")));
    CHECK_STR(fld(j, "PIXELGATE_REASON"), "window \"Secret Title\" is denied");
    cJSON_Delete(j);
    fx_fini(&f);
}

PG_TEST(with_no_journald_the_record_is_still_written_and_the_lost_copy_counted) {
    fx f;
    REQUIRE(fx_init(&f) == 0);
    pg_error e;
    REQUIRE(pg_audit_set_journal(f.audit, true, f.sock, false, &e) == PG_OK);
    close(f.fd);
    unlink(f.sock); /* journald gone */
    f.fd = -1;
    CHECK_EQ_INT(append(&f, "x", PG_OK), PG_OK);
    CHECK_EQ_INT(append(&f, "x", PG_OK), PG_OK);
    int err = 0;
    CHECK_EQ_INT(pg_audit_journal_failures(f.audit, &err), 2);
    CHECK(err == ENOENT || err == ECONNREFUSED);
    pg_audit_report r;
    CHECK_EQ_INT(pg_audit_verify_file(f.log, &r, &e), PG_OK);
    CHECK_EQ_INT(r.records, 2);
    REQUIRE(pg_audit_set_journal(f.audit, false, NULL, false, &e) == PG_OK); /* off again */
    CHECK_EQ_INT(append(&f, "x", PG_OK), PG_OK);
    CHECK_EQ_INT(pg_audit_journal_failures(f.audit, NULL), 2);
    fx_fini(&f);
}

PG_TEST(a_copy_chains_to_the_one_before_so_the_forwarded_stream_shows_a_gap) {
    fx f;
    REQUIRE(fx_init(&f) == 0);
    pg_error e;
    REQUIRE(pg_audit_set_journal(f.audit, true, f.sock, false, &e) == PG_OK);
    char last_hash[65] = "";
    for (int i = 0; i < 5; i++) {
        REQUIRE(append(&f, "t", PG_OK) == PG_OK);
        cJSON *j = receive(&f);
        REQUIRE(j != NULL);
        if (i) CHECK_STR(fld(j, "PIXELGATE_AUDIT_PREV"), last_hash);
        const char *h = fld(j, "PIXELGATE_AUDIT_HASH");
        CHECK(h != NULL);
        snprintf(last_hash, sizeof last_hash, "%s", h ? h : "");
        cJSON_Delete(j);
    }
    /* the last copy's SEQ:HASH is an anchor the file is checked against */
    char anchor[PG_AUDIT_ANCHOR_MAX];
    snprintf(anchor, sizeof anchor, "5:%s", last_hash);
    pg_audit_verify_opts o = {.anchor = anchor};
    pg_audit_report r;
    CHECK_EQ_INT(pg_audit_verify(f.log, &o, &r, &e), PG_OK);
    CHECK(r.anchor_checked);
    fx_fini(&f);
}
#endif
