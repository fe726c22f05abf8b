/* SPDX-License-Identifier: MIT */
/* pg_window_json.c - see pg_window_json.h. */
#include "pg_window_json.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_ID 9007199254740991.0 /* 2^53 - 1 */
#define MAX_DPI 9600

static const char *const KINDS[] = {"normal", "dialog", "popup"};
#define N_KINDS (sizeof KINDS / sizeof KINDS[0])

const char *pg_window_kind_name(pg_window_kind k) { return (unsigned)k < N_KINDS ? KINDS[k] : "normal"; }

/* A frame equal to the content (no decorations) is not written. */
static bool frame_differs(const pg_window *w) {
    return w->frame.w && (w->frame.x != w->x || w->frame.y != w->y || w->frame.w != w->width ||
                          w->frame.h != w->height);
}

cJSON *pg_window_json(const pg_window *w) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "id", (double)w->id);
    cJSON_AddStringToObject(o, "title", w->title);
    cJSON_AddStringToObject(o, "class", w->class_name);
    cJSON_AddStringToObject(o, "instance", w->instance);
    if (w->pid >= 0) cJSON_AddNumberToObject(o, "pid", (double)w->pid);
    else cJSON_AddNullToObject(o, "pid");
    cJSON_AddNumberToObject(o, "x", w->x);
    cJSON_AddNumberToObject(o, "y", w->y);
    cJSON_AddNumberToObject(o, "width", w->width);
    cJSON_AddNumberToObject(o, "height", w->height);
    cJSON_AddBoolToObject(o, "visible", w->visible);
    cJSON_AddBoolToObject(o, "focused", w->focused);
    if (w->minimized) cJSON_AddBoolToObject(o, "minimized", true); /* Windows: listed, not visible */
    if (w->dpi) { /* Windows: the window's DPI and scale (1 = 96 DPI); coordinates stay physical */
        cJSON_AddNumberToObject(o, "dpi", w->dpi);
        cJSON_AddNumberToObject(o, "scale", w->dpi / 96.0);
    }
    cJSON_AddStringToObject(o, "kind", pg_window_kind_name(w->kind));
    if (w->parent) cJSON_AddNumberToObject(o, "parent", (double)w->parent);
    else cJSON_AddNullToObject(o, "parent");
    if (frame_differs(w)) {
        cJSON *f = cJSON_AddObjectToObject(o, "frame");
        cJSON_AddNumberToObject(f, "x", w->frame.x);
        cJSON_AddNumberToObject(f, "y", w->frame.y);
        cJSON_AddNumberToObject(f, "width", w->frame.w);
        cJSON_AddNumberToObject(f, "height", w->frame.h);
    }
    if (w->title_cut) cJSON_AddBoolToObject(o, "title_cut", true);
    return o;
}

/* ---------------------------------------------------------------- decode */

typedef enum { F_INT, F_PID, F_STRING, F_BOOL, F_TRUE, F_NUMBER, F_OBJECT } field_type;

static const struct {
    const char *name;
    field_type type;
    bool required;
} FIELDS[] = {
    {"id", F_INT, true},        {"title", F_STRING, true},  {"class", F_STRING, true},
    {"instance", F_STRING, true}, {"pid", F_PID, true},     {"x", F_INT, true},
    {"y", F_INT, true},         {"width", F_INT, true},     {"height", F_INT, true},
    {"visible", F_BOOL, true},  {"focused", F_BOOL, true},  {"minimized", F_TRUE, false},
    {"dpi", F_INT, false},      {"scale", F_NUMBER, false}, {"kind", F_STRING, true},
    {"parent", F_PID, true},    {"frame", F_OBJECT, false}, {"title_cut", F_TRUE, false},
};
#define N_FIELDS (sizeof FIELDS / sizeof FIELDS[0])

static pg_err bad(pg_error *e, const char *field, const char *why) {
    return pg_error_set(e, PG_E_BADINPUT, NULL, "window field \"%s\" %s", field, why);
}

static bool type_ok(const cJSON *j, field_type t) {
    switch (t) {
    case F_INT:
    case F_NUMBER: return cJSON_IsNumber(j);
    case F_PID: return cJSON_IsNumber(j) || cJSON_IsNull(j);
    case F_STRING: return cJSON_IsString(j);
    case F_BOOL: return cJSON_IsBool(j);
    case F_OBJECT: return cJSON_IsObject(j);
    default: return cJSON_IsTrue(j);
    }
}

/* Every member known, of its type and given once; every required one there. */
static pg_err check_fields(const cJSON *o, pg_error *e) {
    if (!cJSON_IsObject(o)) return pg_error_set(e, PG_E_BADINPUT, NULL, "a window is not an object");
    bool seen[N_FIELDS] = {false};
    for (const cJSON *f = o->child; f; f = f->next) {
        size_t i = 0;
        while (i < N_FIELDS && strcmp(FIELDS[i].name, f->string) != 0) i++;
        if (i == N_FIELDS) return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown window field \"%.64s\"", f->string);
        if (seen[i]) return bad(e, f->string, "given twice");
        if (!type_ok(f, FIELDS[i].type)) return bad(e, f->string, "has the wrong type");
        seen[i] = true;
    }
    for (size_t i = 0; i < N_FIELDS; i++)
        if (FIELDS[i].required && !seen[i]) return bad(e, FIELDS[i].name, "is missing");
    return PG_OK;
}

/* An integral number in lo..hi. */
static bool int_in(const cJSON *o, const char *name, double lo, double hi, int64_t *v) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(j)) return false;
    double d = j->valuedouble;
    if (!(d >= lo && d <= hi) || d != floor(d)) return false;
    *v = (int64_t)d;
    return true;
}

/* RFC 3629 UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool utf8_valid(const unsigned char *s) {
    while (*s) {
        unsigned c = *s, n;
        if (c < 0x80) n = 0;
        else if (c >= 0xc2 && c <= 0xdf) n = 1;
        else if ((c & 0xf0) == 0xe0) n = 2;
        else if (c >= 0xf0 && c <= 0xf4) n = 3;
        else return false;
        uint32_t cp = n ? c & (0x3fu >> n) : c;
        for (unsigned k = 1; k <= n; k++) {
            if ((s[k] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[k] & 0x3fu);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        s += n + 1;
    }
    return true;
}

static bool str_into(const cJSON *o, const char *name, char *out, size_t cap) {
    const char *s = cJSON_GetObjectItemCaseSensitive(o, name)->valuestring;
    size_t n = strlen(s);
    if (n >= cap || !utf8_valid((const unsigned char *)s)) return false;
    memcpy(out, s, n + 1);
    return true;
}

static pg_err decode_numbers(const cJSON *o, pg_window *w, pg_error *e) {
    int64_t id, x, y, wd, ht, pid = -1, dpi = 0;
    if (!int_in(o, "id", 1, MAX_ID, &id)) return bad(e, "id", "is not an integer in 1..2^53-1");
    if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "pid")) && !int_in(o, "pid", 0, UINT32_MAX, &pid))
        return bad(e, "pid", "is neither null nor an integer in 0..2^32-1");
    if (!int_in(o, "x", INT32_MIN, INT32_MAX, &x) || !int_in(o, "y", INT32_MIN, INT32_MAX, &y))
        return bad(e, "x/y", "is not a 32-bit integer");
    if (!int_in(o, "width", 0, INT32_MAX, &wd) || !int_in(o, "height", 0, INT32_MAX, &ht))
        return bad(e, "width/height", "is not an integer in 0..2^31-1");
    const cJSON *scale = cJSON_GetObjectItemCaseSensitive(o, "scale");
    bool has_dpi = cJSON_GetObjectItemCaseSensitive(o, "dpi") != NULL;
    if (has_dpi != (scale != NULL)) return bad(e, has_dpi ? "scale" : "dpi", "is missing (dpi and scale go together)");
    if (has_dpi && !int_in(o, "dpi", 1, MAX_DPI, &dpi)) return bad(e, "dpi", "is not an integer in 1..9600");
    if (has_dpi && scale->valuedouble != (double)dpi / 96.0) return bad(e, "scale", "is not dpi/96");
    w->id = (uint64_t)id;
    w->pid = pid;
    w->x = (int32_t)x, w->y = (int32_t)y;
    w->width = (uint32_t)wd, w->height = (uint32_t)ht;
    w->dpi = (uint32_t)dpi;
    return PG_OK;
}

/* kind, parent and the optional frame (exactly x, y, width, height). */
static pg_err decode_owner(const cJSON *o, pg_window *w, pg_error *e) {
    const char *kind = cJSON_GetObjectItemCaseSensitive(o, "kind")->valuestring;
    size_t k = 0;
    while (k < N_KINDS && strcmp(KINDS[k], kind) != 0) k++;
    if (k == N_KINDS) return bad(e, "kind", "is not normal, dialog or popup");
    w->kind = (pg_window_kind)k;
    int64_t parent = 0;
    if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "parent")) && !int_in(o, "parent", 1, MAX_ID, &parent))
        return bad(e, "parent", "is neither null nor an integer in 1..2^53-1");
    w->parent = (uint64_t)parent;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "frame");
    if (!f) {
        w->frame = (pg_rect){w->x, w->y, w->width, w->height};
        return PG_OK;
    }
    int64_t x, y, wd, ht;
    if (cJSON_GetArraySize(f) != 4 || !int_in(f, "x", INT32_MIN, INT32_MAX, &x) ||
        !int_in(f, "y", INT32_MIN, INT32_MAX, &y) || !int_in(f, "width", 1, INT32_MAX, &wd) ||
        !int_in(f, "height", 1, INT32_MAX, &ht))
        return bad(e, "frame", "is not {x, y, width, height} of 32-bit integers with a positive size");
    w->frame = (pg_rect){(int32_t)x, (int32_t)y, (uint32_t)wd, (uint32_t)ht};
    if (!frame_differs(w)) return bad(e, "frame", "equals the content (the encoder leaves it out)");
    return PG_OK;
}

pg_err pg_window_json_decode(const cJSON *o, pg_window *w, pg_error *e) {
    memset(w, 0, sizeof *w);
    pg_err rc = check_fields(o, e);
    if (rc == PG_OK) rc = decode_numbers(o, w, e);
    if (rc == PG_OK) rc = decode_owner(o, w, e);
    if (rc != PG_OK) return rc;
    if (!str_into(o, "title", w->title, sizeof w->title)) return bad(e, "title", "is too long or not UTF-8");
    if (!str_into(o, "class", w->class_name, sizeof w->class_name)) return bad(e, "class", "is too long or not UTF-8");
    if (!str_into(o, "instance", w->instance, sizeof w->instance))
        return bad(e, "instance", "is too long or not UTF-8");
    w->visible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "visible"));
    w->focused = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "focused"));
    w->minimized = cJSON_GetObjectItemCaseSensitive(o, "minimized") != NULL; /* only ever true */
    w->title_cut = cJSON_GetObjectItemCaseSensitive(o, "title_cut") != NULL;  /* only ever true */
    return PG_OK;
}
