/* SPDX-License-Identifier: MIT */
/* The baseline store; see pg_baseline.h. */
#include "pg_baseline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <io.h>
#else
#include <unistd.h>
#endif

#include "pg_crypto.h"

#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0 /* Windows: the state dir's ACL keeps others out; there are no symlinks to follow */
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_BINARY
#define O_BINARY 0
#endif

struct pg_baselines {
    pthread_mutex_t lock;
    char dir[1024];
};

static int make_dir(const char *path) {
#ifdef _WIN32
    int r = _mkdir(path);
#else
    int r = mkdir(path, 0700);
#endif
    return r == 0 || errno == EEXIST ? 0 : -1;
}

bool pg_baseline_name_ok(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > PG_BASELINE_NAME_MAX || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

static bool id_ok(const char *id) {
    if (!id || strncmp(id, "cand:", 5) || strlen(id) != PG_BASELINE_ID_LEN) return false;
    for (const char *p = id + 5; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-'))
            return false;
    return true;
}

pg_err pg_baseline_open(pg_baselines **out, const char *dir, pg_error *e) {
    pg_baselines *s = calloc(1, sizeof *s);
    if (!s) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    char sub[1100];
    int bad = make_dir(dir);
    snprintf(sub, sizeof sub, "%s/candidates", dir);
    bad |= make_dir(sub);
    snprintf(sub, sizeof sub, "%s/owners", dir);
    bad |= make_dir(sub);
#ifndef _WIN32
    if (!bad) bad = chmod(dir, 0700); /* an older dir made with another umask */
#endif
    if (bad) {
        free(s);
        return pg_error_set(e, PG_E_INTERNAL, "the broker's state dir must be its own and writable",
                            "cannot create the baseline store %s: %s", dir, strerror(errno));
    }
    pthread_mutex_init(&s->lock, NULL);
    *out = s;
    return PG_OK;
}

void pg_baseline_close(pg_baselines *s) {
    if (!s) return;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---- files ---- */

/* What a message may call the file at path: its name inside the store
 * ("cases/<case>/<variant>/<env>.png", "candidates/<id>.json"), never the
 * broker's state path, which messages carry to agents. */
static const char *entry_name(const char *path) {
    const char *best = NULL;
    static const char *const roots[] = {"/owners/", "/cases/", "/candidates/"};
    for (size_t i = 0; i < 3; i++)
        for (const char *p = strstr(path, roots[i]); p; p = strstr(p + 1, roots[i]))
            if (!best || p > best) best = p;
    return best ? best + 1 : "an entry of the baseline store";
}

static pg_err write_file(const char *path, const void *data, size_t len, pg_error *e) {
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    remove(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_BINARY, 0600);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create %s: %s", entry_name(tmp), strerror(errno));
    const uint8_t *p = data;
    size_t done = 0;
    while (done < len) {
        long w = (long)write(fd, p + done, (unsigned)(len - done > (1u << 30) ? (1u << 30) : len - done));
        if (w <= 0) break;
        done += (size_t)w;
    }
#ifdef _WIN32
    bool ok = done == len && _commit(fd) == 0;
#else
    bool ok = done == len && fsync(fd) == 0;
#endif
    if (close(fd) != 0) ok = false;
#ifdef _WIN32
    if (ok) remove(path); /* rename does not replace on Windows */
#endif
    if (!ok || rename(tmp, path) != 0) {
        int err = errno;
        remove(tmp);
        return pg_error_set(e, PG_E_INTERNAL, "free some space in the broker's state dir", "writing %s failed: %s",
                            entry_name(path), strerror(err));
    }
    return PG_OK;
}

static pg_err read_file(const char *path, size_t max, uint8_t **out, size_t *len, pg_error *e) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_BINARY);
    if (fd < 0)
        return errno == ENOENT ? pg_error_set(e, PG_E_NOTFOUND, NULL, "not in the baseline store")
                               : pg_error_set(e, PG_E_BLOCKED, "the administrator must check the baseline store",
                                              "cannot open %s: %s", entry_name(path), strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        close(fd);
        return pg_error_set(e, PG_E_BLOCKED, "the administrator must check the baseline store",
                            "%s is not a regular file of at most %zu bytes", entry_name(path), max);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = malloc(n + 1);
    size_t got = 0;
    while (buf && got < n) {
        long r = (long)read(fd, buf + got, (unsigned)(n - got));
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf || got != n) {
        free(buf);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "reading %s failed", entry_name(path));
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return PG_OK;
}

static void sha_hex(const uint8_t *p, size_t n, char out[65]) {
    uint8_t d[PG_SHA256_LEN];
    if (pg_sha256(p, n, d, NULL) != PG_OK) memset(d, 0, sizeof d);
    pg_hex(d, sizeof d, out);
}

/* Writes base.png then base.json (the manifest last: an entry exists once its manifest does). */
static pg_err put_entry(const char *base, cJSON *manifest, const uint8_t *png, size_t len, pg_error *e) {
    char path[1200], hex[65];
    sha_hex(png, len, hex);
    cJSON_DeleteItemFromObjectCaseSensitive(manifest, "png_sha256");
    cJSON_AddStringToObject(manifest, "png_sha256", hex);
    snprintf(path, sizeof path, "%s.png", base);
    pg_err rc = write_file(path, png, len, e);
    char *text = rc ? NULL : cJSON_PrintUnformatted(manifest);
    if (!rc && !text) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    snprintf(path, sizeof path, "%s.json", base);
    if (!rc) rc = write_file(path, text, strlen(text), e);
    free(text);
    return rc;
}

/* Reads base.json and (png non-NULL) base.png, checking the PNG's digest. */
static pg_err get_entry(const char *base, cJSON **manifest, uint8_t **png, size_t *len, pg_error *e) {
    char path[1200];
    snprintf(path, sizeof path, "%s.json", base);
    uint8_t *text = NULL;
    size_t n = 0;
    pg_err rc = read_file(path, 1u << 20, &text, &n, e);
    if (rc) return rc;
    cJSON *m = cJSON_ParseWithLength((const char *)text, n);
    free(text);
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(m, "png_sha256");
    if (!cJSON_IsString(want)) {
        cJSON_Delete(m);
        return pg_error_set(e, PG_E_BLOCKED, "the administrator must check the baseline store",
                            "baseline integrity: %s is not a manifest", entry_name(path));
    }
    if (png) {
        snprintf(path, sizeof path, "%s.png", base);
        rc = read_file(path, PG_BASELINE_MAX_PNG, png, len, e);
        char hex[65];
        if (!rc) sha_hex(*png, *len, hex);
        if (!rc && strcmp(hex, want->valuestring)) {
            free(*png);
            *png = NULL;
            rc = pg_error_set(e, PG_E_BLOCKED, "the administrator must check the baseline store",
                              "baseline integrity: %s does not match its manifest's digest", entry_name(path));
        }
        if (rc == PG_E_NOTFOUND) rc = pg_error_set(e, PG_E_BLOCKED, NULL, "baseline integrity: %s is missing", entry_name(path));
        if (rc) {
            cJSON_Delete(m);
            return rc;
        }
    }
    *manifest = m;
    return PG_OK;
}

/* ---- candidates ---- */

static void cand_base(const pg_baselines *s, const char *id, char out[1200]) {
    snprintf(out, 1200, "%s/candidates/%s", s->dir, id + 5);
}

/* The manifests of the *.json files of dir, into arr. */
static void list_dir(const char *dir, cJSON *arr, size_t max) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) && (size_t)cJSON_GetArraySize(arr) < max) {
        size_t n = strlen(de->d_name);
        if (n < 6 || de->d_name[0] == '.' || strcmp(de->d_name + n - 5, ".json")) continue;
        char base[1200];
        snprintf(base, sizeof base, "%s/%.*s", dir, (int)(n - 5), de->d_name);
        cJSON *m = NULL;
        pg_error ignored;
        if (get_entry(base, &m, NULL, NULL, &ignored) == PG_OK) cJSON_AddItemToArray(arr, m);
    }
    closedir(d);
}

pg_err pg_baseline_candidate_put(pg_baselines *s, cJSON *manifest, const uint8_t *png, size_t len,
                                 char id_out[PG_BASELINE_ID_LEN + 1], pg_error *e) {
    uint8_t rnd[8];
    pg_err rc = pg_random_bytes(rnd, sizeof rnd, e);
    if (rc) return rc;
    memcpy(id_out, "cand:", 5);
    pg_b64url_encode(rnd, sizeof rnd, id_out + 5);
    cJSON_DeleteItemFromObjectCaseSensitive(manifest, "id");
    cJSON_AddStringToObject(manifest, "id", id_out);
    char dir[1100], base[1200];
    snprintf(dir, sizeof dir, "%s/candidates", s->dir);
    pthread_mutex_lock(&s->lock);
    cJSON *all = cJSON_CreateArray();
    list_dir(dir, all, PG_BASELINE_MAX_CANDIDATES);
    bool full = cJSON_GetArraySize(all) >= PG_BASELINE_MAX_CANDIDATES;
    cJSON_Delete(all);
    cand_base(s, id_out, base);
    rc = full ? pg_error_set(e, PG_E_POLICY, "an approver must approve or reject pending candidates",
                             "%d candidates are pending", PG_BASELINE_MAX_CANDIDATES)
              : put_entry(base, manifest, png, len, e);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

pg_err pg_baseline_candidate_get(pg_baselines *s, const char *id, cJSON **manifest, uint8_t **png, size_t *len,
                                 pg_error *e) {
    if (!id_ok(id))
        return pg_error_set(e, PG_E_NOTFOUND, "'pixelgate baseline list' shows the pending candidates",
                            "no candidate %.20s", id ? id : "");
    char base[1200];
    cand_base(s, id, base);
    pthread_mutex_lock(&s->lock);
    pg_err rc = get_entry(base, manifest, png, len, e);
    pthread_mutex_unlock(&s->lock);
    if (rc == PG_E_NOTFOUND)
        pg_error_set(e, PG_E_NOTFOUND, "'pixelgate baseline list' shows the pending candidates",
                     "no candidate %s (unknown, approved or rejected)", id);
    return rc;
}

pg_err pg_baseline_candidate_drop(pg_baselines *s, const char *id, pg_error *e) {
    if (!id_ok(id)) return pg_error_set(e, PG_E_NOTFOUND, NULL, "no candidate %.20s", id ? id : "");
    char base[1200], path[1300];
    cand_base(s, id, base);
    pthread_mutex_lock(&s->lock);
    snprintf(path, sizeof path, "%s.json", base);
    int r = remove(path); /* the manifest first: without it the entry no longer exists */
    snprintf(path, sizeof path, "%s.png", base);
    remove(path);
    pthread_mutex_unlock(&s->lock);
    return r == 0 ? PG_OK : pg_error_set(e, PG_E_NOTFOUND, NULL, "no candidate %s", id);
}

pg_err pg_baseline_candidates(pg_baselines *s, cJSON **out, pg_error *e) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/candidates", s->dir);
    *out = cJSON_CreateArray();
    if (!*out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pthread_mutex_lock(&s->lock);
    list_dir(dir, *out, PG_BASELINE_MAX_CANDIDATES);
    pthread_mutex_unlock(&s->lock);
    return PG_OK;
}

/* ---- approved baselines ---- */

static pg_err names_ok(const char *case_id, const char *variant, const char *env_key, pg_error *e) {
    if (!pg_baseline_name_ok(case_id) || !pg_baseline_name_ok(variant) || !pg_baseline_name_ok(env_key))
        return pg_error_set(e, PG_E_USAGE, "names are 1..64 of A-Z a-z 0-9 . _ - and do not start with '.'",
                            "bad case, variant or environment name");
    return PG_OK;
}

/* The directory of owner's case (legacy: the layout before owners, where
 * every case was everyone's). */
static void case_dir(const pg_baselines *s, const char *owner, const char *case_id, char out[1200]) {
    if (owner) snprintf(out, 1200, "%s/owners/%s/%s", s->dir, owner, case_id);
    else snprintf(out, 1200, "%s/cases/%s", s->dir, case_id);
}

pg_err pg_baseline_put(pg_baselines *s, const char *owner, const char *case_id, const char *variant,
                       const char *env_key, cJSON *manifest, const uint8_t *png, size_t len, pg_error *e) {
    pg_err rc = names_ok(case_id, variant, env_key, e);
    if (!rc && !pg_baseline_name_ok(owner)) rc = pg_error_set(e, PG_E_USAGE, NULL, "bad baseline owner");
    if (rc) return rc;
    char dir[1200], base[1300];
    pthread_mutex_lock(&s->lock);
    snprintf(dir, sizeof dir, "%s/owners/%s", s->dir, owner);
    int bad = make_dir(dir);
    case_dir(s, owner, case_id, dir);
    bad |= make_dir(dir);
    snprintf(base, sizeof base, "%s/%s", dir, variant);
    bad |= make_dir(base);
    snprintf(base, sizeof base, "%s/%s/%s", dir, variant, env_key);
    cJSON_DeleteItemFromObjectCaseSensitive(manifest, "owner");
    cJSON_AddStringToObject(manifest, "owner", owner);
    rc = bad ? pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create %s: %s", entry_name(dir), strerror(errno))
             : put_entry(base, manifest, png, len, e);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* A legacy entry is owner's when its manifest says owner prepared it
 * ("u<uid>" against prepared_by.uid); a shared case has no legacy entries. */
static bool legacy_is(const cJSON *m, const char *owner) {
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "prepared_by"), "uid");
    char want[24];
    if (!cJSON_IsNumber(uid)) return false;
    snprintf(want, sizeof want, "u%.0f", uid->valuedouble);
    return !strcmp(want, owner);
}

pg_err pg_baseline_get(pg_baselines *s, const char *owner, const char *case_id, const char *variant,
                       const char *env_key, cJSON **manifest, uint8_t **png, size_t *len, pg_error *e) {
    pg_err rc = names_ok(case_id, variant, env_key, e);
    if (!rc && !pg_baseline_name_ok(owner)) rc = pg_error_set(e, PG_E_USAGE, NULL, "bad baseline owner");
    if (rc) return rc;
    char dir[1200], base[1300];
    case_dir(s, owner, case_id, dir);
    snprintf(base, sizeof base, "%s/%s/%s", dir, variant, env_key);
    pthread_mutex_lock(&s->lock);
    rc = get_entry(base, manifest, png, len, e);
    if (rc == PG_E_NOTFOUND) { /* approved before baselines had owners */
        case_dir(s, NULL, case_id, dir);
        snprintf(base, sizeof base, "%s/%s/%s", dir, variant, env_key);
        rc = get_entry(base, manifest, png, len, e);
        if (!rc && !legacy_is(*manifest, owner)) {
            cJSON_Delete(*manifest), *manifest = NULL;
            if (png) free(*png), *png = NULL;
            rc = pg_error_set(e, PG_E_NOTFOUND, NULL, "not in the baseline store");
        }
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Every variant directory of one case's directory, each manifest marked
 * with its owner (a legacy one with the owner its manifest names). */
static void list_case(const char *dir, const char *owner, cJSON *arr) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!pg_baseline_name_ok(de->d_name)) continue;
        char sub[1300];
        snprintf(sub, sizeof sub, "%s/%.64s", dir, de->d_name);
        int from = cJSON_GetArraySize(arr);
        list_dir(sub, arr, 4096);
        for (int i = from; i < cJSON_GetArraySize(arr); i++) {
            cJSON *m = cJSON_GetArrayItem(arr, i);
            if (owner && !cJSON_GetObjectItemCaseSensitive(m, "owner")) cJSON_AddStringToObject(m, "owner", owner);
        }
    }
    closedir(d);
}

/* Every case (case_id NULL) or one case under dir, into arr. */
static void list_cases(const char *dir, const char *owner, const char *case_id, cJSON *arr) {
    char sub[1300];
    if (case_id) {
        snprintf(sub, sizeof sub, "%s/%s", dir, case_id);
        list_case(sub, owner, arr);
        return;
    }
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!pg_baseline_name_ok(de->d_name)) continue;
        snprintf(sub, sizeof sub, "%s/%.64s", dir, de->d_name);
        list_case(sub, owner, arr);
    }
    if (d) closedir(d);
}

/* Legacy entries keep only those owner prepared (all when owner is NULL). */
static void keep_legacy_of(cJSON *legacy, const char *owner, cJSON *out) {
    cJSON *m;
    while ((m = cJSON_DetachItemFromArray(legacy, 0))) {
        if (owner && !legacy_is(m, owner)) {
            cJSON_Delete(m);
            continue;
        }
        const cJSON *uid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "prepared_by"), "uid");
        char who[24];
        snprintf(who, sizeof who, "u%.0f", cJSON_IsNumber(uid) ? uid->valuedouble : 0.0);
        if (!cJSON_GetObjectItemCaseSensitive(m, "owner")) cJSON_AddStringToObject(m, "owner", who);
        cJSON_AddItemToArray(out, m);
    }
}

pg_err pg_baseline_list(pg_baselines *s, const char *owner, const char *case_id, cJSON **out, pg_error *e) {
    if (case_id && !pg_baseline_name_ok(case_id)) return pg_error_set(e, PG_E_USAGE, NULL, "bad case name");
    if (owner && !pg_baseline_name_ok(owner)) return pg_error_set(e, PG_E_USAGE, NULL, "bad baseline owner");
    *out = cJSON_CreateArray();
    cJSON *legacy = cJSON_CreateArray();
    if (!*out || !legacy) {
        cJSON_Delete(legacy);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    char dir[1200];
    pthread_mutex_lock(&s->lock);
    if (owner) {
        snprintf(dir, sizeof dir, "%s/owners/%s", s->dir, owner);
        list_cases(dir, owner, case_id, *out);
    } else {
        snprintf(dir, sizeof dir, "%s/owners", s->dir);
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (!pg_baseline_name_ok(de->d_name)) continue;
            char sub[1300];
            snprintf(sub, sizeof sub, "%s/%.64s", dir, de->d_name);
            list_cases(sub, de->d_name, case_id, *out);
        }
        if (d) closedir(d);
    }
    snprintf(dir, sizeof dir, "%s/cases", s->dir);
    list_cases(dir, NULL, case_id, legacy);
    pthread_mutex_unlock(&s->lock);
    keep_legacy_of(legacy, owner, *out);
    cJSON_Delete(legacy);
    return PG_OK;
}
