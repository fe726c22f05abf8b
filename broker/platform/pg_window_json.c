/* pg_window_json.c - see pg_window_json.h. */
#include "pg_window_json.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_ID 9007199254740991.0 /* 2^53 - 1 */
#define MAX_DPI 9600

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
    return o;
}

/* ---------------------------------------------------------------- decode */

typedef enum { F_INT, F_PID, F_STRING, F_BOOL, F_TRUE, F_NUMBER } field_type;

static const struct {
    const char *name;
    field_type type;
    bool required;
} FIELDS[] = {
    {"id", F_INT, true},        {"title", F_STRING, true},  {"class", F_STRING, true},
    {"instance", F_STRING, true}, {"pid", F_PID, true},     {"x", F_INT, true},
    {"y", F_INT, true},         {"width", F_INT, true},     {"height", F_INT, true},
    {"visible", F_BOOL, true},  {"focused", F_BOOL, true},  {"minimized", F_TRUE, false},
    {"dpi", F_INT, false},      {"scale", F_NUMBER, false},
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

pg_err pg_window_json_decode(const cJSON *o, pg_window *w, pg_error *e) {
    memset(w, 0, sizeof *w);
    pg_err rc = check_fields(o, e);
    if (rc == PG_OK) rc = decode_numbers(o, w, e);
    if (rc != PG_OK) return rc;
    if (!str_into(o, "title", w->title, sizeof w->title)) return bad(e, "title", "is too long or not UTF-8");
    if (!str_into(o, "class", w->class_name, sizeof w->class_name)) return bad(e, "class", "is too long or not UTF-8");
    if (!str_into(o, "instance", w->instance, sizeof w->instance))
        return bad(e, "instance", "is too long or not UTF-8");
    w->visible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "visible"));
    w->focused = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "focused"));
    w->minimized = cJSON_GetObjectItemCaseSensitive(o, "minimized") != NULL; /* only ever true */
    return PG_OK;
}
