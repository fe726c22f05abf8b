/* SPDX-License-Identifier: MIT */
/* --report DIR: the client writes report.json and report.md from the
 * broker's answer (text it already has) and report.html when the broker
 * released the page (pixels, only where the policy allows). All three are
 * written here, as the client's user; the broker never sees the path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <wchar.h>
#else
#include <unistd.h>
#endif

#include "pg_cli.h"
#include "pg_utf8.h"

static pg_err write_text(const char *dir, const char *name, const void *data, size_t len, cJSON *files, pg_error *e) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
#ifdef _WIN32
    FILE *f = pg_fopen_utf8(path, "wb");
#else
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f && fd >= 0) close(fd);
#endif
    if (!f) return pg_error_set(e, PG_E_BADINPUT, NULL, "cannot write %s: %s", path, strerror(errno));
    size_t w = fwrite(data, 1, len, f);
    if (fclose(f) != 0 || w != len) return pg_error_set(e, PG_E_INTERNAL, NULL, "writing %s failed", path);
    cJSON_AddItemToArray(files, cJSON_CreateString(path));
    return PG_OK;
}

/* A growing string. */
typedef struct {
    char *p;
    size_t len, cap;
} md;

static void md_add(md *m, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#include <stdarg.h>
static void md_add(md *m, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        size_t room = m->cap - m->len;
        va_start(ap, fmt);
        int n = vsnprintf(m->p ? m->p + m->len : NULL, m->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (m->p && (size_t)n < room) {
            m->len += (size_t)n;
            return;
        }
        size_t cap = m->cap ? m->cap * 2 : 4096;
        while (cap < m->len + (size_t)n + 1) cap *= 2;
        char *np = realloc(m->p, cap);
        if (!np) return;
        m->p = np;
        m->cap = cap;
    }
}

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Markdown of an accept result or a baseline review: text only. */
static void markdown(md *m, const cJSON *b) {
    const cJSON *cand = cJSON_GetObjectItemCaseSensitive(b, "candidate");
    if (cJSON_IsObject(cand)) { /* baseline show --report */
        md_add(m, "# pixelgate baseline review\n\n- candidate: `%s`\n- case: %s / %s\n- digest: `%s`\n- kind: %s\n",
               str(cand, "id"), str(cand, "case"), str(cand, "variant"), str(b, "digest"), str(cand, "kind"));
        char *rules = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(cand, "rules"));
        char *env = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(cand, "environment"));
        md_add(m, "- rules: `%s`\n- environment: `%s`\n\nApprove with: `pixelgate baseline approve %s --digest %s "
                  "--note TEXT`\n",
               rules ? rules : "", env ? env : "", str(cand, "id"), str(b, "digest"));
        free(rules);
        free(env);
        return;
    }
    md_add(m, "# pixelgate acceptance\n\n| case | variant | outcome | reason |\n|---|---|---|---|\n| %s | %s | **%s** | %s |\n\n",
           str(b, "case"), str(b, "variant"), str(b, "outcome"), str(b, "reason_code"));
    md_add(m, "%s\n\n", str(b, "message"));
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(b, "metrics"), *it;
    if (cJSON_IsObject(mt)) {
        md_add(m, "## Metrics\n\n| metric | value |\n|---|---|\n");
        cJSON_ArrayForEach(it, mt) {
            char *v = cJSON_PrintUnformatted(it);
            md_add(m, "| %s | %s |\n", it->string, v ? v : "");
            free(v);
        }
        md_add(m, "\n");
    }
    const cJSON *bd = cJSON_GetObjectItemCaseSensitive(b, "bounds");
    if (cJSON_IsObject(bd))
        md_add(m, "Bounds: x %d, y %d, w %d, h %d\n\n", cJSON_GetObjectItem(bd, "x")->valueint,
               cJSON_GetObjectItem(bd, "y")->valueint, cJSON_GetObjectItem(bd, "w")->valueint,
               cJSON_GetObjectItem(bd, "h")->valueint);
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(b, "regions");
    if (cJSON_GetArraySize(rg) > 0) {
        md_add(m, "## Regions\n\n| # | x | y | w | h | pixels |\n|---|---|---|---|---|---|\n");
        int i = 0;
        cJSON_ArrayForEach(it, rg) {
            md_add(m, "| %d | %d | %d | %d | %d | %d |\n", ++i, cJSON_GetObjectItem(it, "x")->valueint,
                   cJSON_GetObjectItem(it, "y")->valueint, cJSON_GetObjectItem(it, "w")->valueint,
                   cJSON_GetObjectItem(it, "h")->valueint, cJSON_GetObjectItem(it, "pixels")->valueint);
        }
        md_add(m, "\n");
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(b, "stability");
    char *s = cJSON_PrintUnformatted(st);
    char *env = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(b, "environment"));
    md_add(m, "## Stability\n\n`%s`\n\n## Environment\n\n`%s`\n\n", s ? s : "", env ? env : "");
    free(s);
    free(env);
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(b, "diff_token");
    if (cJSON_IsString(tok))
        md_add(m, "Diff image: token `%s`; overlay: token `%s`.\n", tok->valuestring, str(b, "overlay_token"));
}

pg_err pg_cli_report(const char *dir, cJSON *body, const pg_blob *html, pg_error *e) {
#ifdef _WIN32
    wchar_t *w = pg_utf8_to_wide(dir, 0, NULL);
    if (w) _wmkdir(w); /* an existing one is fine */
    free(w);
#else
    mkdir(dir, 0700);
#endif
    cJSON *rep = cJSON_GetObjectItemCaseSensitive(body, "report");
    if (!cJSON_IsObject(rep)) rep = cJSON_AddObjectToObject(body, "report");
    cJSON *files = cJSON_AddArrayToObject(rep, "files");
    pg_err rc = PG_OK;
    if (html && html->data) rc = write_text(dir, "report.html", html->data, html->len, files, e);
    md m = {0};
    markdown(&m, body);
    if (!rc) rc = write_text(dir, "report.md", m.p ? m.p : "", m.len, files, e);
    free(m.p);
    char *json = rc ? NULL : cJSON_Print(body); /* as printed on stdout, with the files named */
    if (!rc && json) rc = write_text(dir, "report.json", json, strlen(json), files, e);
    free(json);
    return rc;
}
