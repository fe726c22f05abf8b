/* SPDX-License-Identifier: MIT */
/* The environment a baseline is made in (pg_call.h, pg_env): what changes
 * pixels (platform, backend, depth, scale, toolkit, fonts), so a baseline is
 * used only where it was made (docs/acceptance.md "Environments").
 * baseline prepare and accept share it. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pg_call.h"
#include "pg_crypto.h"
#include "pg_time.h"

/* Order-independent fingerprint of the font files under dir (names, sizes,
 * modification times), depth-limited: a font added, removed or upgraded
 * changes text rendering, so it changes the environment. */
static void fonts_walk(const char *dir, int depth, uint64_t *acc, unsigned *count) {
    DIR *d = depth > 4 ? NULL : opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) && *count < 20000) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            fonts_walk(path, depth + 1, acc, count);
            continue;
        }
        char line[2200];
        int n = snprintf(line, sizeof line, "%s|%lld|%lld", path, (long long)st.st_size, (long long)st.st_mtime);
        uint8_t h[PG_SHA256_LEN];
        if (n > 0 && pg_sha256(line, (size_t)n, h, NULL) == PG_OK) {
            uint64_t v;
            memcpy(&v, h, sizeof v);
            *acc += v; /* a sum: readdir's order does not matter */
            (*count)++;
        }
    }
    closedir(d);
}

static pthread_mutex_t fonts_lock = PTHREAD_MUTEX_INITIALIZER;
static char fonts_hex[17];
static int64_t fonts_at_ms = -1;

/* Recomputed at most once a minute. */
static void fonts_fingerprint(char out[17]) {
    pthread_mutex_lock(&fonts_lock);
    int64_t now = pg_mono_ms();
    if (fonts_at_ms < 0 || now - fonts_at_ms > 60000) {
        uint64_t acc = 0;
        unsigned count = 0;
#ifdef _WIN32
        const char *win = getenv("WINDIR");
        char dir[1024];
        snprintf(dir, sizeof dir, "%s\\Fonts", win ? win : "C:\\Windows");
        fonts_walk(dir, 0, &acc, &count);
#else
        static const char *const dirs[] = {"/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts"};
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) fonts_walk(dirs[i], 0, &acc, &count);
#endif
        snprintf(fonts_hex, sizeof fonts_hex, "%016llx", (unsigned long long)(acc ^ count));
        fonts_at_ms = now;
    }
    memcpy(out, fonts_hex, 17);
    pthread_mutex_unlock(&fonts_lock);
}

static void env_key(pg_env *v) {
    char text[512];
    int n = snprintf(text, sizeof text, "%s|%s|%u|%u|%s|%s", v->platform, v->backend, v->depth, v->scale_pct,
                     v->toolkit, v->fonts);
    uint8_t h[PG_SHA256_LEN];
    char hex[65];
    if (pg_sha256(text, (size_t)n, h, NULL) != PG_OK) memset(h, 0, sizeof h);
    pg_hex(h, sizeof h, hex);
    memcpy(v->key, hex, 16);
    v->key[16] = 0;
}

/* The screen depth from the backend's caps detail ("... screen WxHxD"). */
static uint32_t depth_of(const char *detail) {
    const char *p = strstr(detail, "screen ");
    unsigned w, h, d;
    return p && sscanf(p, "screen %ux%ux%u", &w, &h, &d) == 3 ? d : 0;
}

pg_err pg_call_env(pg_call *c, const char *toolkit, uint32_t dpi, pg_env *out, pg_error *e) {
    memset(out, 0, sizeof *out);
#ifdef _WIN32
    snprintf(out->platform, sizeof out->platform, "windows");
#else
    snprintf(out->platform, sizeof out->platform, "linux");
#endif
    pg_caps caps;
    memset(&caps, 0, sizeof caps);
    pg_err rc = pg_call_plat_input(c, e);
    if (rc) return rc;
    rc = c->b->plat_ops->caps(c->plat, &caps, e);
    pg_call_plat_done(c);
    if (rc) return rc;
    snprintf(out->backend, sizeof out->backend, "%s", caps.backend);
    out->depth = depth_of(caps.detail);
    out->scale_pct = dpi ? (dpi * 100 + 48) / 96 : 100; /* X11: physical pixels, no per-window scale */
    snprintf(out->toolkit, sizeof out->toolkit, "%s", toolkit && *toolkit ? toolkit : "*");
    fonts_fingerprint(out->fonts);
    env_key(out);
    return PG_OK;
}

cJSON *pg_env_json(const pg_env *v) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "platform", v->platform);
    cJSON_AddStringToObject(o, "backend", v->backend);
    cJSON_AddNumberToObject(o, "depth", v->depth);
    cJSON_AddNumberToObject(o, "scale_pct", v->scale_pct);
    cJSON_AddStringToObject(o, "toolkit", v->toolkit);
    cJSON_AddStringToObject(o, "fonts", v->fonts);
    cJSON_AddStringToObject(o, "key", v->key);
    return o;
}

bool pg_env_parse(const cJSON *j, pg_env *out) {
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(j)) return false;
    pg_json_str(j, "platform", out->platform, sizeof out->platform);
    pg_json_str(j, "backend", out->backend, sizeof out->backend);
    out->depth = (uint32_t)pg_json_num(j, "depth", 0);
    out->scale_pct = (uint32_t)pg_json_num(j, "scale_pct", 0);
    pg_json_str(j, "toolkit", out->toolkit, sizeof out->toolkit);
    pg_json_str(j, "fonts", out->fonts, sizeof out->fonts);
    env_key(out);
    return true;
}

void pg_env_any_toolkit(const pg_env *v, pg_env *out) {
    *out = *v;
    snprintf(out->toolkit, sizeof out->toolkit, "*");
    env_key(out);
}

void pg_env_diff(const pg_env *want, const pg_env *have, char *out, size_t n) {
    size_t len = 0;
    out[0] = 0;
#define FIELD(cond, fmt, ...)                                                                             \
    if ((cond) && len < n) len += (size_t)snprintf(out + len, n - len, "%s" fmt, len ? "; " : "", __VA_ARGS__)
    FIELD(strcmp(want->platform, have->platform), "platform %s, here %s", want->platform, have->platform);
    FIELD(strcmp(want->backend, have->backend), "backend %s, here %s", want->backend, have->backend);
    FIELD(want->depth != have->depth, "screen depth %u, here %u", want->depth, have->depth);
    FIELD(want->scale_pct != have->scale_pct, "scale %u%%, here %u%%", want->scale_pct, have->scale_pct);
    FIELD(strcmp(want->toolkit, "*") && strcmp(want->toolkit, have->toolkit), "toolkit %s, here %s", want->toolkit,
          have->toolkit);
    FIELD(strcmp(want->fonts, have->fonts), "fonts %s, here %s", want->fonts, have->fonts);
#undef FIELD
}
