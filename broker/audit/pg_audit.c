/* SPDX-License-Identifier: MIT */
/* pg_audit.c - the hash-chained audit log; see pg_audit.h and docs/audit.md. */
#include "pg_audit.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "pg_audit_fs.h" /* every file operation, per platform */
#include "pg_audit_journal.h"
#include "pg_crypto.h"
#include "pg_time.h"

#define NAME_LEN 256   /* file names inside the log's directory */
#define PATH_LEN 4096  /* paths as given (Windows' MAX_PATH is too short) */
#define OP_MAX 64
#define STR_MAX 256
#define TITLE_MAX 1024
#define EXE_MAX 4096
#define OP_ROTATE "audit.rotate"
#define OP_REPAIR "audit.repair"

struct pg_audit {
    pthread_mutex_t mu;
    pg_audit_fs_dir *dir;
    pg_audit_fs_file fd;         /* the live file, appended to, locked */
    char path[PATH_LEN];    /* as given, for messages */
    char base[NAME_LEN];    /* live file's name in dir */
    uint64_t rotate_bytes;
    uint64_t size;          /* bytes of whole records in the live file */
    uint64_t seq;           /* seq of the last record; 0: none yet */
    uint8_t last[PG_SHA256_LEN]; /* hash of the last record; genesis: zeros */
    bool need_header;       /* live file is new: its audit.rotate record is due */
    cJSON *evicted;         /* the rotated file about to be dropped, for the next header */
    bool pending_create;    /* rotated away, but the new live file is not created yet */
    bool broken;            /* a failed write could not be cut back yet */
    uint64_t reserved_to;   /* the live file's blocks are reserved up to here (pg_audit_reserve) */
    pg_audit_fs_self self;       /* the broker itself, principal of the audit.* records */
    pg_journal *journal;    /* a copy of each record once it is on disk, or NULL */
    bool journal_titles;    /* ...with window titles and free text */
    uint64_t journal_failures;
    int journal_errno;      /* of the last failed send */
    /* Group commit (pg_audit_set_flush): records that may wait are written
     * at once and fdatasync'd by the flusher within flush_ms. */
    uint32_t flush_ms;      /* 0: every record is fdatasync'd before append returns */
    bool dirty;             /* written since the last fdatasync */
    double dirty_since;     /* pg_mono_ms of the oldest record not yet synced */
    int flush_errno;        /* the flusher's fdatasync failed: appends are refused until one succeeds */
    uint64_t syncs;         /* fdatasyncs of appended records so far (pg_audit_sync_count) */
    bool flusher_on, flusher_stop;
    pthread_t flusher;
    pthread_cond_t flush_cv; /* dirty became true, or stop */
};

/* ---- small helpers ---------------------------------------------------- */

static bool is_hex64(const char *s) {
    if (!s) return false;
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return s[64] == 0;
}

/* Splits PATH into directory and base name. */
static pg_err split_path(const char *path, char *dir, size_t dn, char *base, size_t bn, pg_error *e) {
    if (!path || !*path) return pg_error_set(e, PG_E_USAGE, NULL, "no audit log path given");
    const char *slash = strrchr(path, '/');
#ifdef _WIN32
    const char *bs = strrchr(path, '\\'); /* either separator */
    if (bs && (!slash || bs > slash)) slash = bs;
#endif
    const char *b = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 1;
    if (slash && dlen == 0) dlen = 1; /* "/file" */
    /* room for ".torn.<seq>.<n>" after the base name */
    if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0 || strlen(b) + 32 >= bn || dlen >= dn)
        return pg_error_set(e, PG_E_USAGE, "give a file path such as /var/lib/pixelgate/audit.jsonl",
                            "audit log path %s does not name a file (or is too long)", path);
    if (slash) {
        memcpy(dir, path, dlen);
        dir[dlen] = 0;
    } else {
        strcpy(dir, ".");
    }
    snprintf(base, bn, "%s", b);
    return PG_OK;
}

static void rotated_name(char *out, size_t n, const char *base, int i) { snprintf(out, n, "%s.%d", base, i); }

/* Messages of a failed request reach its client: they name a file of the
 * log by its name alone, never the broker's state path (the administrator
 * knows the directory; the broker logs it at start). */
static const char *file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static pg_err sys_err(pg_error *e, pg_err code, const char *what, const char *name, int err) {
    return pg_error_set(e, code, NULL, "audit log: %s %s: %s", what, file_name(name), strerror(err));
}

static pg_err pread_all(pg_audit_fs_file f, void *buf, size_t n, uint64_t off, pg_error *e) {
    int err = pg_audit_fs_pread(f, buf, n, off);
    if (err) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: read failed: %s", err == EIO ? "short file" : strerror(err));
    return PG_OK;
}

/* The last '\n' in buf[0..n), or NULL (memrchr is a GNU extension). */
static char *last_nl(char *buf, size_t n) {
    while (n--)
        if (buf[n] == '\n') return buf + n;
    return NULL;
}

/* Code points that change or hide what a reader of the log sees: C1
 * controls and DEL (a terminal may act on them), bidirectional embeddings,
 * overrides, isolates and marks (they reorder the text around them),
 * line and paragraph separators (a new line inside one record), and the
 * other invisible format characters (zero-width spaces and joiners, word
 * joiner, BOM, interlinear annotation, tags). C0 controls are left to
 * cJSON, which writes them as JSON escapes. */
static bool misleading(uint32_t cp) {
    static const uint32_t ranges[][2] = {
        {0x007F, 0x009F}, {0x00AD, 0x00AD}, {0x0600, 0x0605}, {0x061C, 0x061C}, {0x06DD, 0x06DD},
        {0x070F, 0x070F}, {0x0890, 0x0891}, {0x08E2, 0x08E2}, {0x180E, 0x180E}, {0x200B, 0x200F},
        {0x2028, 0x202E}, {0x2060, 0x2064}, {0x2066, 0x206F}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB},
        {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},
        {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1]) return true;
    return false;
}

/* Length of the valid UTF-8 sequence at p and its code point, or 0. */
static size_t utf8_at(const unsigned char *p, uint32_t *cp) {
    unsigned c = p[0];
    size_t len = 0;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3;
    else if (c >= 0xF0 && c <= 0xF4) len = 4;
    if (len == 0) return 0;
    if (len == 1) {
        *cp = c;
        return 1;
    }
    unsigned lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    else if (c == 0xED) hi = 0x9F;
    else if (c == 0xF0) lo = 0x90;
    else if (c == 0xF4) hi = 0x8F;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t k = 2; k < len; k++)
        if (p[k] < 0x80 || p[k] > 0xBF) return 0;
    uint32_t v = c & (0xFFu >> (len + 1));
    for (size_t k = 1; k < len; k++) v = v << 6 | (p[k] & 0x3Fu);
    *cp = v;
    return len;
}

/* Copy of s as valid UTF-8 of at most max bytes: invalid bytes become U+FFFD,
 * misleading() characters become the visible text "<U+XXXX>", the cut falls
 * on a character boundary. */
static char *clean_str(const char *s, size_t max) {
    char *out = malloc(max + 1);
    if (!out) return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    while (*p) {
        uint32_t cp = 0;
        size_t len = utf8_at(p, &cp);
        const unsigned char *src = p;
        size_t n = len;
        char esc[16];
        if (len == 0) {
            src = (const unsigned char *)"\xEF\xBF\xBD";
            n = 3;
            len = 1;
        } else if (misleading(cp)) {
            n = (size_t)snprintf(esc, sizeof esc, "<U+%04X>", (unsigned)cp);
            src = (const unsigned char *)esc;
        }
        if (o + n > max) break;
        memcpy(out + o, src, n);
        o += n;
        p += len;
    }
    out[o] = 0;
    return out;
}

static bool add_str(cJSON *o, const char *key, const char *val, size_t max) {
    if (!val) return cJSON_AddNullToObject(o, key) != NULL;
    char *c = clean_str(val, max);
    bool ok = c && cJSON_AddStringToObject(o, key, c) != NULL;
    free(c);
    return ok;
}

static bool add_u64(cJSON *o, const char *key, uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return cJSON_AddRawToObject(o, key, buf) != NULL;
}

static bool add_i64(cJSON *o, const char *key, int64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return cJSON_AddRawToObject(o, key, buf) != NULL;
}

static void now_iso(char out[40]) {
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
#ifdef _WIN32
    gmtime_s(&tm, &ts.tv_sec);
#else
    gmtime_r(&ts.tv_sec, &tm);
#endif
    size_t n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 40 - n, ".%03uZ", (unsigned)(ts.tv_nsec / 1000000) % 1000u);
}

/* ---- record parsing (open's tail and verify) -------------------------- */

typedef struct {
    uint64_t seq;
    char prev[65];
    char op[OP_MAX];
} rec_info;

/* line is NUL-terminated at len. */
static bool parse_record(const char *line, size_t len, rec_info *ri, const char **why) {
    if (len == 0) return *why = "empty line", false;
    if (memchr(line, 0, len)) return *why = "NUL bytes in the line", false;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(line, &end, 1);
    if (!j || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return *why = "not a JSON object", false;
    }
    bool ok = false;
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(j, "seq");
    const cJSON *prev = cJSON_GetObjectItemCaseSensitive(j, "prev");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(j, "op");
    if (!cJSON_IsNumber(seq) || seq->valuedouble < 1 || seq->valuedouble > 9007199254740992.0 ||
        seq->valuedouble != (double)(uint64_t)seq->valuedouble)
        *why = "no valid \"seq\"";
    else if (!cJSON_IsString(prev) || !is_hex64(prev->valuestring))
        *why = "no valid \"prev\"";
    else if (!cJSON_IsString(op))
        *why = "no \"op\"";
    else {
        ri->seq = (uint64_t)seq->valuedouble;
        memcpy(ri->prev, prev->valuestring, 65);
        snprintf(ri->op, sizeof ri->op, "%s", op->valuestring);
        ok = true;
    }
    cJSON_Delete(j);
    return ok;
}

/* ---- open: tail recovery ---------------------------------------------- */

typedef struct {
    uint64_t size;   /* file size */
    uint64_t good;   /* end of the last whole line */
    bool have;       /* a whole record exists */
    uint64_t seq;
    uint8_t hash[PG_SHA256_LEN];
} tail_state;

static pg_err scan_tail(pg_audit_fs_file fd, const char *name, tail_state *t, pg_error *e) {
    memset(t, 0, sizeof *t);
    int err = pg_audit_fs_size(fd, &t->size);
    if (err) return sys_err(e, PG_E_INTERNAL, "cannot stat", name, err);
    if (t->size == 0) return PG_OK;
    size_t win = t->size > PG_AUDIT_LINE_MAX + 1 ? PG_AUDIT_LINE_MAX + 1 : (size_t)t->size;
    uint64_t off = t->size - win;
    char *buf = malloc(win + 1);
    if (!buf) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    pg_err rc = pread_all(fd, buf, win, off, e);
    if (rc) goto out;
    const char *tip = "check it with pixelgated --verify-audit, then move it aside to start a new log";
    char *nl = last_nl(buf, win);
    if (!nl) {
        if (off == 0) goto out; /* only a torn first line: no whole record */
        rc = pg_error_set(e, PG_E_BADINPUT, tip, "audit log %s: no line end in its last %zu bytes", name, win);
        goto out;
    }
    t->good = off + (uint64_t)(nl - buf) + 1;
    char *start = last_nl(buf, (size_t)(nl - buf));
    if (!start && off != 0) {
        rc = pg_error_set(e, PG_E_BADINPUT, tip, "audit log %s: its last record is longer than %u bytes", name,
                          PG_AUDIT_LINE_MAX);
        goto out;
    }
    start = start ? start + 1 : buf;
    size_t len = (size_t)(nl - start);
    *nl = 0;
    rec_info ri;
    const char *why = NULL;
    if (!parse_record(start, len, &ri, &why)) {
        rc = pg_error_set(e, PG_E_BADINPUT, tip, "audit log %s: its last record is unreadable (%s)", name, why);
        goto out;
    }
    rc = pg_sha256(start, len, t->hash, e);
    t->have = rc == PG_OK;
    t->seq = ri.seq;
out:
    free(buf);
    return rc;
}

/* ---- writing ---------------------------------------------------------- */

static void fsync_dir(pg_audit *a) { pg_audit_fs_dir_sync(a->dir); }

/* Cuts the live file back to its last whole record after a failed write. */
static void cut_back(pg_audit *a) {
    if (pg_audit_fs_truncate(a->fd, a->size) != 0 || pg_audit_fs_sync(a->fd) != 0) a->broken = true;
}

/* fdatasync of everything written so far; lock held. */
static int sync_locked(pg_audit *a) {
    int err = pg_audit_fs_sync(a->fd);
    a->syncs++;
    if (!err) a->dirty = false;
    a->flush_errno = err;
    return err;
}

/* One write of the whole line (with its newline) at the end of the file,
 * then fdatasync (Windows: FlushFileBuffers), unless may_wait and group
 * commit is on: then the flusher syncs it within flush_ms. */
static pg_err write_line(pg_audit *a, const char *line, size_t len, bool may_wait, pg_error *e) {
    size_t n = 0;
    int err = pg_audit_fs_append(a->fd, line, len, &n);
    if (err || n != len) {
        cut_back(a);
        return pg_error_set(e, PG_E_INTERNAL, "free space on the broker's state filesystem; the operation was refused",
                            "audit log: write failed: %s", err ? strerror(err) : "short write (disk full?)");
    }
    if (may_wait && a->flusher_on) {
        if (!a->dirty) {
            a->dirty = true;
            a->dirty_since = pg_mono_ms();
            pthread_cond_signal(&a->flush_cv);
        }
    } else if ((err = sync_locked(a)) != 0) {
        cut_back(a);
        return pg_error_set(e, PG_E_INTERNAL, "check the broker's state filesystem; the operation was refused",
                            "audit log: fdatasync failed: %s", strerror(err));
    }
    uint8_t h[PG_SHA256_LEN];
    pg_err rc = pg_sha256(line, len - 1, h, e);
    if (rc) return rc; /* cannot happen after the write; the next open recovers the state */
    a->size += len;
    a->seq++;
    memcpy(a->last, h, sizeof h);
    return PG_OK;
}

/* Stamps obj with the next seq, the time and prev, and prints it as a line. */
static pg_err stamp(pg_audit *a, cJSON *obj, char **line, size_t *len, pg_error *e) {
    char seq[24], t[40], prev[65];
    snprintf(seq, sizeof seq, "%" PRIu64, a->seq + 1);
    now_iso(t);
    pg_hex(a->last, sizeof a->last, prev);
    if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, "seq", cJSON_CreateRaw(seq)) ||
        !cJSON_ReplaceItemInObjectCaseSensitive(obj, "time", cJSON_CreateString(t)) ||
        !cJSON_ReplaceItemInObjectCaseSensitive(obj, "prev", cJSON_CreateString(prev)))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    char *s = cJSON_PrintUnformatted(obj);
    if (!s) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    size_t n = strlen(s);
    char *l = realloc(s, n + 2);
    if (!l) {
        free(s);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    }
    l[n] = '\n';
    l[n + 1] = 0;
    *line = l;
    *len = n + 1;
    return PG_OK;
}

/* A record skeleton in the fixed key order; seq, time and prev are stamped
 * at write time. Takes ownership of principal, window and disposition (NULL
 * principal or disposition: out of memory). */
static cJSON *record_obj(cJSON *principal, const char *op, cJSON *window, const char *image, cJSON *disposition,
                         const char *outcome) {
    cJSON *o = cJSON_CreateObject();
    bool ok = o && principal && disposition && cJSON_AddRawToObject(o, "seq", "0") &&
              cJSON_AddStringToObject(o, "time", "");
    if (ok && (ok = cJSON_AddItemToObject(o, "principal", principal))) principal = NULL;
    ok = ok && add_str(o, "op", op, OP_MAX);
    if (ok && window) {
        if ((ok = cJSON_AddItemToObject(o, "window", window))) window = NULL;
    } else if (ok) {
        ok = cJSON_AddNullToObject(o, "window") != NULL;
    }
    ok = ok && add_str(o, "image_sha256", image, 64);
    if (ok && (ok = cJSON_AddItemToObject(o, "disposition", disposition))) disposition = NULL;
    ok = ok && cJSON_AddStringToObject(o, "outcome", outcome) &&
         cJSON_AddStringToObject(o, "prev", PG_AUDIT_GENESIS);
    cJSON_Delete(principal);
    cJSON_Delete(window);
    cJSON_Delete(disposition);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *self_principal(const pg_audit *a) {
    cJSON *p = cJSON_CreateObject();
    if (p && add_u64(p, "uid", a->self.uid) && (!a->self.sid[0] || add_str(p, "sid", a->self.sid, STR_MAX)) &&
        add_str(p, "user", a->self.user, STR_MAX) && add_i64(p, "pid", a->self.pid) &&
        add_str(p, "exe", a->self.exe, EXE_MAX))
        return p;
    cJSON_Delete(p);
    return NULL;
}

static pg_err write_obj_locked(pg_audit *a, cJSON *obj, bool may_rotate, bool may_wait, pg_error *e);

/* Writes an audit.* record of the broker itself; takes disposition. */
static pg_err write_internal(pg_audit *a, const char *op, cJSON *disposition, pg_error *e) {
    cJSON *obj = record_obj(self_principal(a), op, NULL, NULL, disposition, "OK");
    if (!obj) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    pg_err rc = write_obj_locked(a, obj, false, false, e);
    cJSON_Delete(obj);
    return rc;
}

static pg_err write_header(pg_audit *a, pg_error *e) {
    char from[NAME_LEN + 8];
    rotated_name(from, sizeof from, a->base, 1);
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "kind", "rotate") || !add_str(d, "rotated_from", from, STR_MAX) ||
        !add_u64(d, "last_seq", a->seq)) {
        cJSON_Delete(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    }
    if (a->evicted) { /* history that left the box: said in the chain, never silently */
        cJSON_AddItemToObject(d, "evicted", a->evicted);
        a->evicted = NULL;
    }
    pg_err rc = write_internal(a, OP_ROTATE, d, e);
    if (rc == PG_OK) a->need_header = false;
    return rc;
}

/* The "seq" of one record line, 0 when it has none. */
static uint64_t line_seq(const char *line, size_t len) {
    const char *k = len > 7 && !strncmp(line, "{\"seq\":", 7) ? line + 7 : NULL;
    return k ? strtoull(k, NULL, 10) : 0;
}

/* The seq of the last record of f (size bytes, ending in a newline). */
static uint64_t last_record_seq(pg_audit_fs_file f, uint64_t size) {
    size_t n = size > PG_AUDIT_LINE_MAX + 1 ? PG_AUDIT_LINE_MAX + 1 : (size_t)size;
    char *tail = n ? malloc(n) : NULL;
    uint64_t seq = 0;
    if (tail && pg_audit_fs_pread(f, tail, n, size - n) == 0) {
        size_t i = n - 1; /* the final newline */
        while (i > 0 && tail[i - 1] != '\n') i--;
        seq = line_seq(tail + i, n - i);
    }
    free(tail);
    return seq;
}

/* What the oldest rotated file holds (its name, bytes, SHA-256, first and
 * last seq), read before rotation deletes it, for the new file's header. */
static cJSON *describe_evicted(pg_audit *a, const char *name) {
    pg_audit_fs_file f;
    if (pg_audit_fs_open(a->dir, name, PG_AUDIT_FS_READ, &f) != 0) return NULL;
    pg_sha256_ctx *h = NULL;
    pg_error e;
    uint8_t digest[PG_SHA256_LEN];
    char buf[65536], hex[65];
    uint64_t bytes = 0, first_seq = 0;
    size_t got = 0;
    bool ok = pg_sha256_new(&h, &e) == PG_OK;
    while (ok && pg_audit_fs_read(f, buf, sizeof buf, &got) == 0 && got > 0) {
        ok = pg_sha256_update(h, buf, got, &e) == PG_OK;
        if (bytes == 0) first_seq = line_seq(buf, got);
        bytes += got;
    }
    uint64_t last_seq = ok ? last_record_seq(f, bytes) : 0;
    pg_audit_fs_close(&f);
    if (!ok) pg_sha256_free(h);
    if (!ok || pg_sha256_final(h, digest, &e) != PG_OK) return NULL;
    pg_hex(digest, sizeof digest, hex);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", name);
    add_u64(o, "bytes", bytes);
    add_u64(o, "first_seq", first_seq);
    add_u64(o, "last_seq", last_seq);
    cJSON_AddStringToObject(o, "sha256", hex);
    return o;
}

/* Opens the live file (creating it 0600 with create) and locks it. */
static pg_err open_live(pg_audit *a, bool exclusive, pg_error *e) {
    pg_audit_fs_file fd;
    int err = pg_audit_fs_open(a->dir, a->base, exclusive ? PG_AUDIT_FS_LIVE_NEW : PG_AUDIT_FS_LIVE, &fd);
    if (err == ELOOP)
        return pg_error_set(e, PG_E_BADINPUT, "replace the symlink by the log file itself",
                            "audit log %s is a symlink; it is never followed", file_name(a->path));
    if (err == EBUSY) /* Windows: another process has it open for writing */
        return pg_error_set(e, PG_E_BADINPUT, "stop the other broker, or give this one its own --state-dir",
                            "audit log %s is in use by another process (%s)", file_name(a->path), strerror(err));
    if (err == EINVAL) return pg_error_set(e, PG_E_BADINPUT, NULL, "audit log %s is not a regular file", file_name(a->path));
    if (err) return sys_err(e, err == EACCES || err == EROFS ? PG_E_BADINPUT : PG_E_INTERNAL, "cannot open", a->path, err);
    const char *bad = pg_audit_fs_file_unsafe(fd);
    if (bad) {
        pg_audit_fs_close(&fd);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "audit log %s %s", file_name(a->path), bad);
    }
    if ((err = pg_audit_fs_lock(fd)) != 0) {
        pg_audit_fs_close(&fd);
        return pg_error_set(e, PG_E_BADINPUT, "stop the other broker, or give this one its own --state-dir",
                            "audit log %s is in use by another process (%s)", file_name(a->path), strerror(err));
    }
    pg_audit_fs_close(&a->fd);
    a->fd = fd;
    return PG_OK;
}

/* Rotation: PATH.9 -> PATH.10 (dropping the old .10) ... PATH -> PATH.1, then
 * a new PATH whose first record (audit.rotate) chains from PATH.1's last. */
static pg_err rotate_locked(pg_audit *a, pg_error *e) {
    char from[NAME_LEN + 8], to[NAME_LEN + 8];
    if (!a->pending_create) {
        if (a->dirty && sync_locked(a) != 0)
            return pg_error_set(e, PG_E_INTERNAL, "check the broker's state filesystem",
                                "audit log: fdatasync before rotation failed: %s", strerror(a->flush_errno));
        if (a->reserved_to) pg_audit_fs_truncate(a->fd, a->size); /* hand back the blocks reserved past its end */
        rotated_name(to, sizeof to, a->base, PG_AUDIT_KEEP);
        if (pg_audit_fs_exists(a->dir, to)) {
            cJSON_Delete(a->evicted);
            a->evicted = describe_evicted(a, to);
            if (!a->evicted) return pg_error_set(e, PG_E_INTERNAL, "check the state filesystem",
                                                 "audit log: cannot read %s before it is evicted", to);
        }
        int err = pg_audit_fs_unlink(a->dir, to);
        if (err && err != ENOENT) return sys_err(e, PG_E_INTERNAL, "cannot remove", to, err);
        for (int i = PG_AUDIT_KEEP - 1; i >= 1; i--) {
            rotated_name(from, sizeof from, a->base, i);
            rotated_name(to, sizeof to, a->base, i + 1);
            if ((err = pg_audit_fs_rename(a->dir, from, to)) != 0 && err != ENOENT)
                return sys_err(e, PG_E_INTERNAL, "cannot rotate", from, err);
        }
        rotated_name(to, sizeof to, a->base, 1);
        if ((err = pg_audit_fs_rename(a->dir, a->base, to)) != 0) return sys_err(e, PG_E_INTERNAL, "cannot rotate", a->path, err);
        fsync_dir(a);
        a->pending_create = true; /* from here the old fd is PATH.1: no more records into it */
    }
    pg_err rc = open_live(a, true, e);
    if (rc) return rc;
    fsync_dir(a);
    a->pending_create = false;
    a->size = 0;
    a->reserved_to = 0; /* a new file: nothing reserved in it yet */
    a->need_header = true;
    return write_header(a, e);
}

/* Brings the log to a writable state after an earlier failure. */
static pg_err ready_locked(pg_audit *a, pg_error *e) {
    if (a->flush_errno && sync_locked(a) != 0) /* records already answered may not be on disk: stop here */
        return pg_error_set(e, PG_E_INTERNAL, "check the broker's state filesystem; the operation was refused",
                            "audit log: fdatasync failed: %s", strerror(a->flush_errno));
    if (a->broken) {
        int err = pg_audit_fs_truncate(a->fd, a->size);
        if (!err) err = pg_audit_fs_sync(a->fd);
        if (err)
            return pg_error_set(e, PG_E_INTERNAL, "check the broker's state filesystem",
                                "audit log: cannot cut back a failed write: %s", strerror(err));
        a->broken = false;
    }
    if (a->pending_create) return rotate_locked(a, e);
    if (a->need_header) return write_header(a, e);
    return PG_OK;
}

/* The journal copy of the record just written (obj, stamped; its hash is
 * a->last). Best effort: the file is the record of truth, so a failed send
 * is counted, never an error. */
static void copy_to_journal(pg_audit *a, const cJSON *obj) {
    char hex[65], *dg = NULL;
    size_t n = 0;
    pg_error e;
    pg_hex(a->last, sizeof a->last, hex);
    int err = pg_journal_encode(obj, hex, a->journal_titles, &dg, &n, &e) ? ENOMEM : pg_journal_send(a->journal, dg, n);
    free(dg);
    if (err) {
        a->journal_failures++;
        a->journal_errno = err;
    }
}

static pg_err write_obj_locked(pg_audit *a, cJSON *obj, bool may_rotate, bool may_wait, pg_error *e) {
    char *line = NULL;
    size_t len = 0;
    pg_err rc = stamp(a, obj, &line, &len, e);
    if (rc) return rc;
    if (may_rotate && a->rotate_bytes && a->size > 0 && a->size + len > a->rotate_bytes) {
        free(line);
        line = NULL;
        rc = rotate_locked(a, e);
        if (rc == PG_OK) rc = stamp(a, obj, &line, &len, e);
    }
    if (rc == PG_OK) rc = write_line(a, line, len, may_wait, e);
    free(line);
    if (rc == PG_OK && a->journal) copy_to_journal(a, obj);
    return rc;
}

/* ---- open ------------------------------------------------------------- */

/* Saves the torn bytes next to the log, cuts them off, records the repair. */
static pg_err repair_locked(pg_audit *a, const tail_state *t, pg_error *e) {
    size_t torn = (size_t)(t->size - t->good);
    char *buf = malloc(torn);
    if (!buf) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    uint8_t h[PG_SHA256_LEN];
    char hex[65], name[NAME_LEN + 48];
    pg_err rc = pread_all(a->fd, buf, torn, t->good, e);
    if (rc == PG_OK) rc = pg_sha256(buf, torn, h, e);
    pg_audit_fs_file fd = PG_AUDIT_FS_CLOSED;
    for (int k = 0; rc == PG_OK && fd.h == -1 && k < 100; k++) {
        if (k == 0) snprintf(name, sizeof name, "%s.torn.%" PRIu64, a->base, a->seq + 1);
        else snprintf(name, sizeof name, "%s.torn.%" PRIu64 ".%d", a->base, a->seq + 1, k);
        int err = pg_audit_fs_open(a->dir, name, PG_AUDIT_FS_NEW, &fd);
        if (err && err != EEXIST) rc = sys_err(e, PG_E_INTERNAL, "cannot save the torn tail to", name, err);
    }
    if (rc == PG_OK && fd.h == -1) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: no free name to save the torn tail");
    if (rc == PG_OK) {
        size_t n = 0;
        int err = pg_audit_fs_append(fd, buf, torn, &n);
        if (!err && n != torn) err = EIO;
        if (!err) err = pg_audit_fs_sync(fd);
        if (err) rc = sys_err(e, PG_E_INTERNAL, "cannot save the torn tail to", name, err);
    }
    pg_audit_fs_close(&fd);
    free(buf);
    if (rc) return rc;
    fsync_dir(a);
    int err = pg_audit_fs_truncate(a->fd, t->good);
    if (!err) err = pg_audit_fs_sync(a->fd);
    if (err) return sys_err(e, PG_E_INTERNAL, "cannot cut the torn tail off", a->path, err);
    a->size = t->good;
    if (a->need_header && (rc = write_header(a, e))) return rc;
    pg_hex(h, sizeof h, hex);
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "kind", "repair") || !add_u64(d, "torn_bytes", torn) ||
        !cJSON_AddStringToObject(d, "torn_sha256", hex) || !add_str(d, "saved_as", name, STR_MAX)) {
        cJSON_Delete(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    }
    return write_internal(a, OP_REPAIR, d, e);
}

/* The chain state from PATH.1, for a live file without records. */
static pg_err state_from_rotated(pg_audit *a, bool *found, pg_error *e) {
    char name[NAME_LEN + 8];
    rotated_name(name, sizeof name, a->base, 1);
    *found = false;
    pg_audit_fs_file fd;
    int err = pg_audit_fs_open(a->dir, name, PG_AUDIT_FS_READ, &fd);
    if (err == ENOENT) return PG_OK;
    if (err == EINVAL) return pg_error_set(e, PG_E_BADINPUT, NULL, "audit log %s is not a regular file", name);
    if (err) return sys_err(e, PG_E_BADINPUT, "cannot open", name, err);
    tail_state t;
    pg_err rc = scan_tail(fd, name, &t, e);
    pg_audit_fs_close(&fd);
    if (rc) return rc;
    if (!t.have)
        return pg_error_set(e, PG_E_BADINPUT, "check it with pixelgated --verify-audit",
                            "audit log %s (the newest rotated file) holds no whole record", name);
    a->seq = t.seq;
    memcpy(a->last, t.hash, sizeof a->last);
    *found = true;
    return PG_OK;
}

pg_err pg_audit_open(pg_audit **out, const char *path, uint64_t rotate_bytes, pg_error *e) {
    *out = NULL;
    pg_audit *a = calloc(1, sizeof *a);
    if (!a) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    a->fd = PG_AUDIT_FS_CLOSED;
    a->rotate_bytes = rotate_bytes;
    char dir[PATH_LEN];
    pg_err rc = split_path(path, dir, sizeof dir, a->base, sizeof a->base, e);
    if (rc) goto fail;
    snprintf(a->path, sizeof a->path, "%s", path);
    int err = pg_audit_fs_dir_open(dir, true, &a->dir);
    if (err) {
        rc = err == ENOENT ? pg_error_set(e, PG_E_NOTFOUND, "create the broker's state directory (mode 0700)",
                                          "audit log directory %s does not exist", dir)
                           : sys_err(e, PG_E_BADINPUT, "cannot open the directory", dir, err);
        goto fail;
    }
    pg_audit_fs_self_get(&a->self);
    char why[128];
    if (pg_audit_fs_dir_unsafe(a->dir, why, sizeof why)) {
        rc = pg_error_set(e, PG_E_BADINPUT, "chown it to the broker's user and chmod 0700 it",
                          "audit log directory %s must be owned by uid %u and not writable by others (%s)", dir,
                          (unsigned)a->self.uid, why);
        goto fail;
    }
    if ((rc = open_live(a, false, e))) goto fail;
    tail_state t;
    if ((rc = scan_tail(a->fd, a->path, &t, e))) goto fail;
    if (t.have) {
        a->seq = t.seq;
        memcpy(a->last, t.hash, sizeof a->last);
    } else {
        bool found;
        if ((rc = state_from_rotated(a, &found, e))) goto fail;
        a->need_header = found;
    }
    a->size = t.size;
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: cannot create its mutex");
        goto fail;
    }
    if (pthread_cond_init(&a->flush_cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: cannot create its condition variable");
        goto fail;
    }
    if (t.good < t.size) rc = repair_locked(a, &t, e);
    else if (a->need_header) rc = write_header(a, e);
    if (rc) {
        pthread_cond_destroy(&a->flush_cv);
        pthread_mutex_destroy(&a->mu);
        goto fail;
    }
    *out = a;
    return PG_OK;
fail:
    pg_audit_fs_close(&a->fd);
    pg_audit_fs_dir_close(a->dir);
    free(a);
    return rc;
}

/* ---- append ----------------------------------------------------------- */

static pg_err event_obj(const pg_audit_event *ev, cJSON **out, pg_error *e) {
    *out = NULL;
    if (!ev->op || !*ev->op || !ev->disposition.kind || !*ev->disposition.kind)
        return pg_error_set(e, PG_E_USAGE, NULL, "audit event without op or disposition kind");
    if (strncmp(ev->op, "audit.", 6) == 0)
        return pg_error_set(e, PG_E_USAGE, NULL, "audit op %s is reserved for the log itself", ev->op);
    if (ev->image_sha256 && !is_hex64(ev->image_sha256))
        return pg_error_set(e, PG_E_USAGE, NULL, "audit event: image_sha256 is not 64 lower-case hex digits");
    const pg_audit_principal *p = &ev->principal;
    cJSON *pr = cJSON_CreateObject(), *w = NULL, *d = cJSON_CreateObject();
    bool ok = pr && d && add_u64(pr, "uid", p->uid) && (!p->sid || add_str(pr, "sid", p->sid, STR_MAX)) &&
              add_str(pr, "user", p->user, STR_MAX) &&
              add_i64(pr, "pid", p->pid) &&
              (p->exe || !p->comm ? add_str(pr, "exe", p->exe, EXE_MAX) : add_str(pr, "comm", p->comm, STR_MAX));
    if (ok && ev->window) {
        w = cJSON_CreateObject();
        ok = w && add_u64(w, "id", ev->window->id) && add_str(w, "title", ev->window->title, TITLE_MAX) &&
             add_str(w, "class", ev->window->cls, STR_MAX);
    }
    const pg_audit_disposition *ds = &ev->disposition;
    ok = ok && add_str(d, "kind", ds->kind, OP_MAX);
    if (ok && ds->token) ok = add_str(d, "token_prefix", ds->token, PG_AUDIT_TOKEN_PREFIX);
    if (ok && ds->endpoint) ok = add_str(d, "endpoint", ds->endpoint, STR_MAX);
    if (ok && ds->mode) ok = add_str(d, "mode", ds->mode, STR_MAX);
    if (ok && ds->request_id) ok = add_str(d, "request_id", ds->request_id, STR_MAX);
    if (ok && ds->reason) ok = add_str(d, "reason", ds->reason, TITLE_MAX);
    if (ok && ds->detail) ok = add_str(d, "detail", ds->detail, TITLE_MAX);
    if (ok && ds->intent) ok = add_str(d, "intent", ds->intent, PG_AUDIT_ANCHOR_MAX);
    if (!ok) {
        cJSON_Delete(pr);
        cJSON_Delete(w);
        cJSON_Delete(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
    }
    *out = record_obj(pr, ev->op, w, ev->image_sha256, d, ev->intent ? "INTENT" : pg_err_name(ev->outcome));
    return *out ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: out of memory");
}

static void anchor_locked(pg_audit *a, char out[PG_AUDIT_ANCHOR_MAX]) {
    char hex[65];
    pg_hex(a->last, sizeof a->last, hex);
    snprintf(out, PG_AUDIT_ANCHOR_MAX, "%" PRIu64 ":%s", a->seq, hex);
}

pg_err pg_audit_append_at(pg_audit *a, const pg_audit_event *ev, char at[PG_AUDIT_ANCHOR_MAX], pg_error *e) {
    if (!a || !ev) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log is not open");
    cJSON *obj;
    pg_err rc = event_obj(ev, &obj, e);
    if (rc) return rc;
    pthread_mutex_lock(&a->mu);
    rc = ready_locked(a, e);
    if (rc == PG_OK) rc = write_obj_locked(a, obj, true, !ev->intent, e); /* intent: on disk before the effect */
    if (rc == PG_OK && at) anchor_locked(a, at);
    pthread_mutex_unlock(&a->mu);
    cJSON_Delete(obj);
    return rc;
}

pg_err pg_audit_append(pg_audit *a, const pg_audit_event *ev, pg_error *e) { return pg_audit_append_at(a, ev, NULL, e); }

pg_err pg_audit_reserve(pg_audit *a, uint64_t bytes, pg_error *e) {
    if (!a) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log is not open");
    pthread_mutex_lock(&a->mu);
    pg_err rc = ready_locked(a, e);
    /* Records that would pass the rotation size go to the next file: rotate now, while nothing depends on it. */
    if (rc == PG_OK && a->rotate_bytes && a->size > 0 && a->size + bytes > a->rotate_bytes) rc = rotate_locked(a, e);
    if (rc == PG_OK && a->reserved_to < a->size + bytes) {
        uint64_t len = bytes * 4; /* ahead by a few records: one fallocate serves several */
        int err = pg_audit_fs_reserve(a->fd, a->size, len);
        if (err)
            rc = pg_error_set(e, PG_E_INTERNAL, "free space on the broker's state filesystem; nothing was done",
                              "audit log: no room for the next records (%s)",
                              err == EFBIG ? "file size limit" : strerror(err));
        else
            a->reserved_to = a->size + len;
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

void pg_audit_anchor(pg_audit *a, char out[PG_AUDIT_ANCHOR_MAX]) {
    char hex[65];
    pthread_mutex_lock(&a->mu);
    uint64_t seq = a->seq;
    pg_hex(a->last, sizeof a->last, hex);
    pthread_mutex_unlock(&a->mu);
    snprintf(out, PG_AUDIT_ANCHOR_MAX, "%" PRIu64 ":%s", seq, hex);
}

pg_err pg_audit_set_journal(pg_audit *a, bool enable, const char *socket_path, bool with_titles, pg_error *e) {
    pg_journal *j = NULL;
    if (enable) {
        pg_err rc = pg_journal_new(&j, socket_path ? socket_path : PG_JOURNAL_SOCKET, e);
        if (rc) return rc;
    }
    pthread_mutex_lock(&a->mu);
    pg_journal *old = a->journal;
    a->journal = j;
    a->journal_titles = with_titles;
    pthread_mutex_unlock(&a->mu);
    pg_journal_free(old);
    return PG_OK;
}

uint64_t pg_audit_journal_failures(pg_audit *a, int *last_errno) {
    pthread_mutex_lock(&a->mu);
    uint64_t n = a->journal_failures;
    if (last_errno) *last_errno = a->journal_errno;
    pthread_mutex_unlock(&a->mu);
    return n;
}

/* The flusher: syncs the records that may wait, flush_ms after the oldest
 * of them was written (group commit: one fdatasync for all that came since). */
static void *flusher_main(void *arg) {
    pg_audit *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->flusher_stop) {
        if (!a->dirty) {
            pthread_cond_wait(&a->flush_cv, &a->mu);
            continue;
        }
        double left = a->dirty_since + a->flush_ms - pg_mono_ms();
        if (left > 0) { /* a plain sleep: portable, and appends go on meanwhile */
            pthread_mutex_unlock(&a->mu);
            pg_sleep_ms(left);
            pthread_mutex_lock(&a->mu);
            continue;
        }
        if (sync_locked(a) != 0) a->dirty = false; /* flush_errno refuses the next append, which retries */
    }
    if (a->dirty) (void)sync_locked(a);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

static void stop_flusher(pg_audit *a) {
    pthread_mutex_lock(&a->mu);
    bool on = a->flusher_on;
    a->flusher_stop = true;
    pthread_cond_signal(&a->flush_cv);
    pthread_mutex_unlock(&a->mu);
    if (on) pthread_join(a->flusher, NULL);
    pthread_mutex_lock(&a->mu);
    a->flusher_on = false;
    a->flusher_stop = false;
    if (a->dirty) (void)sync_locked(a);
    pthread_mutex_unlock(&a->mu);
}

pg_err pg_audit_set_flush(pg_audit *a, uint32_t group_ms, pg_error *e) {
    if (!a) return pg_error_set(e, PG_E_INTERNAL, NULL, "audit log is not open");
    if (group_ms > PG_AUDIT_FLUSH_MAX_MS)
        return pg_error_set(e, PG_E_USAGE, NULL, "audit flush interval %u ms is above %u", (unsigned)group_ms,
                            (unsigned)PG_AUDIT_FLUSH_MAX_MS);
    stop_flusher(a);
    pthread_mutex_lock(&a->mu);
    a->flush_ms = group_ms;
    pg_err rc = PG_OK;
    if (group_ms) {
        if (pthread_create(&a->flusher, NULL, flusher_main, a) == 0) a->flusher_on = true;
        else rc = pg_error_set(e, PG_E_INTERNAL, NULL, "audit log: cannot start its flusher thread");
    }
    pthread_mutex_unlock(&a->mu);
    return rc;
}

uint64_t pg_audit_sync_count(pg_audit *a) {
    pthread_mutex_lock(&a->mu);
    uint64_t n = a->syncs;
    pthread_mutex_unlock(&a->mu);
    return n;
}

void pg_audit_close(pg_audit *a) {
    if (!a) return;
    stop_flusher(a);
    pthread_cond_destroy(&a->flush_cv);
    pg_journal_free(a->journal);
    pthread_mutex_destroy(&a->mu);
    pg_audit_fs_close(&a->fd);
    pg_audit_fs_dir_close(a->dir);
    cJSON_Delete(a->evicted);
    free(a);
}

/* ---- verify ----------------------------------------------------------- */

typedef struct {
    pg_audit_fs_file fd;
    char *buf;       /* PG_AUDIT_LINE_MAX + 2 */
    size_t beg, end;
    bool eof;
} lreader;

/* 1: a line (NUL-terminated in place), 0: end, -1: read error, -2: too long. */
static int lr_next(lreader *r, char **line, size_t *len, bool *terminated) {
    const size_t cap = PG_AUDIT_LINE_MAX + 2;
    for (;;) {
        char *nl = memchr(r->buf + r->beg, '\n', r->end - r->beg);
        if (nl) {
            *line = r->buf + r->beg;
            *len = (size_t)(nl - *line);
            *nl = 0;
            *terminated = true;
            r->beg = (size_t)(nl - r->buf) + 1;
            return 1;
        }
        if (r->end - r->beg > PG_AUDIT_LINE_MAX) return -2;
        if (r->eof) {
            if (r->beg == r->end) return 0;
            *line = r->buf + r->beg;
            *len = r->end - r->beg;
            r->buf[r->end] = 0;
            *terminated = false;
            r->beg = r->end;
            return 1;
        }
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->beg = 0;
        size_t n = 0;
        int err = pg_audit_fs_read(r->fd, r->buf + r->end, cap - 1 - r->end, &n);
        if (err) {
            errno = err;
            return -1;
        }
        if (n == 0) r->eof = true;
        r->end += n;
    }
}

typedef struct {
    char *s;
    size_t len;
    bool terminated;
    int file;
    uint64_t lineno;
} vline;

typedef struct {
    pg_audit_fs_dir *dir;
    char names[PG_AUDIT_KEEP + 1][NAME_LEN + 8];
    int nfiles, cur;
    uint64_t lineno;
    lreader lr;
    int err;   /* errno of a failed read */
} chain_iter;

/* 1: a line, 0: end of the last file, -1: read error, -2: line too long,
 * -3: cannot open a file (it->err). */
static int it_next(chain_iter *it, vline *v) {
    for (;;) {
        if (it->lr.fd.h == -1) {
            if (it->cur >= it->nfiles) return 0;
            it->err = pg_audit_fs_open(it->dir, it->names[it->cur], PG_AUDIT_FS_READ, &it->lr.fd);
            if (it->err) return -3;
            it->lr.beg = it->lr.end = 0;
            it->lr.eof = false;
            it->lineno = 0;
        }
        int rc = lr_next(&it->lr, &v->s, &v->len, &v->terminated);
        if (rc == 0) {
            pg_audit_fs_close(&it->lr.fd);
            it->cur++;
            continue;
        }
        it->lineno++;
        v->file = it->cur;
        v->lineno = it->lineno;
        if (rc == -1) it->err = errno;
        return rc;
    }
}

typedef struct {
    int file;
    uint64_t lineno, seq;
    uint8_t hash[PG_SHA256_LEN];
} vpos;

static pg_err fail_at(pg_audit_report *r, const char *dir, const chain_iter *it, int file, uint64_t lineno,
                      uint64_t seq, pg_error *e, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

static pg_err fail_at(pg_audit_report *r, const char *dir, const chain_iter *it, int file, uint64_t lineno,
                      uint64_t seq, pg_error *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    size_t dl = strlen(dir);
    bool sep = dir[dl - 1] == '/' || dir[dl - 1] == PG_AUDIT_FS_SEP;
    if (strcmp(dir, ".") == 0)
        snprintf(r->bad_file, sizeof r->bad_file, "%s", it->names[file]);
    else
        snprintf(r->bad_file, sizeof r->bad_file, "%s%s%s", dir, sep ? "" : (char[]){PG_AUDIT_FS_SEP, 0},
                 it->names[file]);
    r->first_bad_line = lineno;
    r->first_bad_seq = seq;
    return pg_error_set(e, PG_E_ASSERT, "compare with a backup or the journal's audit anchors; the records before it hold",
                        "audit log broken at %s line %" PRIu64 " (seq %" PRIu64 "): %s", r->bad_file, lineno, seq,
                        r->reason);
}

static pg_err parse_anchor(const char *s, uint64_t *seq, char hex[65], pg_error *e) {
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end != ':' || s[0] == '-' || strlen(end + 1) != 64)
        return pg_error_set(e, PG_E_USAGE, "an anchor is SEQ:HASH as the broker logs it", "malformed audit anchor \"%s\"", s);
    for (int i = 0; i < 64; i++) {
        char c = end[1 + i];
        if (c >= 'A' && c <= 'F') c = (char)(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return pg_error_set(e, PG_E_USAGE, "an anchor is SEQ:HASH as the broker logs it", "malformed audit anchor \"%s\"", s);
        hex[i] = c;
    }
    hex[64] = 0;
    *seq = v;
    return PG_OK;
}

pg_err pg_audit_verify(const char *path, const pg_audit_verify_opts *o, pg_audit_report *r, pg_error *e) {
    static const pg_audit_verify_opts defaults = {0};
    if (!o) o = &defaults;
    memset(r, 0, sizeof *r);
    char dir[PATH_LEN], base[NAME_LEN];
    pg_err rc = split_path(path, dir, sizeof dir, base, sizeof base, e);
    if (rc) return rc;
    uint64_t anchor_seq = 0;
    char anchor_hex[65] = "";
    if (o->anchor && (rc = parse_anchor(o->anchor, &anchor_seq, anchor_hex, e))) return rc;
    if (o->anchor && anchor_seq == 0 && strcmp(anchor_hex, PG_AUDIT_GENESIS) != 0)
        return pg_error_set(e, PG_E_USAGE, NULL, "audit anchor 0 must carry the genesis value");
    r->anchor_given = o->anchor != NULL;

    chain_iter it = {.lr = {.fd = PG_AUDIT_FS_CLOSED}};
    int derr = pg_audit_fs_dir_open(dir, false, &it.dir);
    if (derr)
        return derr == ENOENT ? pg_error_set(e, PG_E_NOTFOUND, NULL, "no audit log at %s", path)
                              : sys_err(e, PG_E_INTERNAL, "cannot open the directory", dir, derr);
    for (int i = o->single_file ? 0 : PG_AUDIT_KEEP; i >= 1; i--) {
        rotated_name(it.names[it.nfiles], sizeof it.names[0], base, i);
        if (pg_audit_fs_exists(it.dir, it.names[it.nfiles])) it.nfiles++;
    }
    if (pg_audit_fs_exists(it.dir, base) || o->single_file)
        snprintf(it.names[it.nfiles++], sizeof it.names[0], "%s", base);
    if (it.nfiles == 0) {
        pg_audit_fs_dir_close(it.dir);
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "no audit log at %s", path);
    }
    it.lr.buf = malloc(PG_AUDIT_LINE_MAX + 2);
    if (!it.lr.buf) {
        pg_audit_fs_dir_close(it.dir);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "audit verify: out of memory");
    }

    bool have = false;
    uint64_t expect = 1;
    vpos prev = {0}, prev2 = {0}; /* the last two records that verified */
    vline v;
    int got;
    while ((got = it_next(&it, &v)) == 1) {
        bool last_file = v.file == it.nfiles - 1;
        if (!v.terminated) {
            if (last_file) {
                r->torn_tail_bytes = v.len;
                break;
            }
            rc = fail_at(r, dir, &it, v.file, v.lineno, expect, e, "unterminated line in a rotated file");
            goto done;
        }
        rec_info ri;
        const char *why = NULL;
        if (!parse_record(v.s, v.len, &ri, &why)) {
            rc = fail_at(r, dir, &it, v.file, v.lineno, expect, e, "not a valid record (%s)", why);
            goto done;
        }
        uint8_t h[PG_SHA256_LEN];
        char want[65];
        if ((rc = pg_sha256(v.s, v.len, h, e))) goto done;
        if (!have) {
            if (ri.seq == 1) {
                if (strcmp(ri.prev, PG_AUDIT_GENESIS) != 0) {
                    rc = fail_at(r, dir, &it, v.file, v.lineno, 1, e, "record 1 does not chain from the genesis value");
                    goto done;
                }
                r->from_genesis = true;
            } else if (strcmp(ri.op, OP_ROTATE) != 0) {
                rc = fail_at(r, dir, &it, v.file, v.lineno, ri.seq, e,
                             "the log starts at seq %" PRIu64 " without a rotation header: the records before it were removed",
                             ri.seq);
                goto done;
            }
            r->first_seq = ri.seq;
        } else {
            if (ri.seq != expect) {
                if (ri.seq > expect)
                    rc = fail_at(r, dir, &it, v.file, v.lineno, expect, e,
                                 "seq jumps from %" PRIu64 " to %" PRIu64 ": record %" PRIu64 "%s missing (deleted or moved)",
                                 expect - 1, ri.seq, expect, ri.seq - expect > 1 ? " and following" : "");
                else
                    rc = fail_at(r, dir, &it, v.file, v.lineno, expect, e,
                                 "seq %" PRIu64 " where %" PRIu64 " was due: records reordered or duplicated", ri.seq, expect);
                goto done;
            }
            pg_hex(prev.hash, sizeof prev.hash, want);
            if (strcmp(ri.prev, want) != 0) {
                /* Which one changed: if the next record chains from this one,
                 * this one is intact and the record before it was edited. */
                char mine[65];
                pg_hex(h, sizeof h, mine);
                vpos cur = {v.file, v.lineno, ri.seq, {0}};
                vline nx;
                rec_info nri;
                int g2 = it_next(&it, &nx);
                bool next_ok = g2 == 1 && nx.terminated && parse_record(nx.s, nx.len, &nri, &why);
                if (next_ok && strcmp(nri.prev, mine) != 0) {
                    rc = fail_at(r, dir, &it, cur.file, cur.lineno, cur.seq, e,
                                 "its prev does not match the record before it: this record was altered");
                    goto done;
                }
                rc = fail_at(r, dir, &it, prev.file, prev.lineno, prev.seq, e,
                             next_ok ? "this record was altered: its hash no longer matches the prev of the next record"
                                     : "this record, or the prev of the next (last) record, was altered");
                /* the culprit is the previous record: it does not count */
                r->records--;
                r->last_seq = prev2.seq;
                if (prev2.seq) pg_hex(prev2.hash, sizeof prev2.hash, r->last_hash);
                else r->last_hash[0] = 0;
                if (r->records == 0) r->first_seq = 0;
                goto done;
            }
        }
        if (anchor_seq && ri.seq == anchor_seq) {
            pg_hex(h, sizeof h, want);
            if (strcmp(want, anchor_hex) != 0) {
                rc = fail_at(r, dir, &it, v.file, v.lineno, ri.seq, e,
                             "record %" PRIu64 " differs from the anchor (the log was rewritten from here or earlier)", ri.seq);
                goto done;
            }
            r->anchor_checked = true;
        }
        if (strcmp(ri.op, OP_REPAIR) == 0) r->repairs++;
        have = true;
        r->records++;
        r->last_seq = ri.seq;
        pg_hex(h, sizeof h, r->last_hash);
        prev2 = prev;
        prev = (vpos){v.file, v.lineno, ri.seq, {0}};
        memcpy(prev.hash, h, sizeof h);
        expect = ri.seq + 1;
    }
    if (got == -3) {
        rc = it.err == ELOOP || it.err == EINVAL
                 ? pg_error_set(e, PG_E_BADINPUT, NULL, "audit log %s is a symlink or not a regular file", it.names[it.cur])
                 : it.err == ENOENT ? pg_error_set(e, PG_E_NOTFOUND, NULL, "no audit log at %s", path)
                                    : sys_err(e, PG_E_INTERNAL, "cannot open", it.names[it.cur], it.err);
        goto done;
    }
    if (got == -2) {
        rc = fail_at(r, dir, &it, it.cur, it.lineno, expect, e, "line longer than %u bytes", PG_AUDIT_LINE_MAX);
        goto done;
    }
    if (got == -1) {
        rc = sys_err(e, PG_E_INTERNAL, "cannot read", it.names[it.cur], it.err);
        goto done;
    }
    if (anchor_seq) {
        if (anchor_seq > r->last_seq) {
            int lastf = it.nfiles - 1;
            rc = fail_at(r, dir, &it, lastf, prev.file == lastf ? prev.lineno + 1 : 1, r->last_seq + 1, e,
                         "the log ends at seq %" PRIu64 " but the anchor names seq %" PRIu64
                         ": records were cut from the end",
                         r->last_seq, anchor_seq);
            goto done;
        }
    } else if (o->anchor) {
        r->anchor_checked = true; /* "0:genesis" holds for any log */
    }
    rc = PG_OK;
done:
    pg_audit_fs_close(&it.lr.fd);
    free(it.lr.buf);
    pg_audit_fs_dir_close(it.dir);
    r->files = (unsigned)it.nfiles;
    return rc;
}

pg_err pg_audit_verify_file(const char *path, pg_audit_report *r, pg_error *e) { return pg_audit_verify(path, NULL, r, e); }

void pg_audit_report_format(const pg_audit_report *r, pg_err rc, char *buf, size_t n) {
    if (!n) return;
    buf[0] = 0;
    size_t o = 0;
#define OUT(...)                                                                  \
    do {                                                                          \
        if (o < n) {                                                              \
            int k_ = snprintf(buf + o, n - o, __VA_ARGS__);                       \
            if (k_ > 0) o += (size_t)k_;                                          \
        }                                                                         \
    } while (0)
    if (rc == PG_OK) OUT("audit log intact: ");
    else if (rc == PG_E_ASSERT) OUT("audit log BROKEN at %s line %" PRIu64 " (seq %" PRIu64 "): %s.\n", r->bad_file,
                                    r->first_bad_line, r->first_bad_seq, r->reason);
    else {
        OUT("audit log not verified (%s)", pg_err_name(rc));
        return;
    }
    if (r->records)
        OUT("%s%" PRIu64 " record%s (seq %" PRIu64 "..%" PRIu64 ") in %u file%s%s; last %" PRIu64 ":%s", rc ? "Before it, " : "",
            r->records, r->records == 1 ? "" : "s", r->first_seq, r->last_seq, r->files, r->files == 1 ? "" : "s",
            r->from_genesis ? " from genesis" : " (older records rotated out)", r->last_seq, r->last_hash);
    else
        OUT("%sno records", rc ? "Before it, " : "");
    if (r->anchor_checked) OUT("; anchor matches");
    else if (r->anchor_given && rc == PG_OK) OUT("; the anchor names a record older than the oldest kept (not compared)");
    if (r->repairs) OUT("; %" PRIu64 " torn tail%s cut off at broker start (audit.repair)", r->repairs, r->repairs == 1 ? "" : "s");
    if (r->torn_tail_bytes)
        OUT("; %" PRIu64 " unterminated bytes at the end (a write cut short; the broker sets them aside at its next start)",
            r->torn_tail_bytes);
    OUT(rc ? "\n" : ".\n");
#undef OUT
}
