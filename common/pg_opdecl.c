/* SPDX-License-Identifier: MIT */
/* The operation table built from pg_ops.def, and the one check of a
 * request's arguments against it. */
#include "pg_opdecl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables ---- */

#define PG_OP(id, ...) static const pg_argdecl args_##id[] = {
#define PG_ARG(op, nm, ty, ...)                                                                         \
    {.name = #nm, .type = PG_T_##ty, .offset = offsetof(pg_args_##op, nm),                             \
     .has_offset = offsetof(pg_args_##op, has_##nm), __VA_ARGS__},
#define PG_END(id) {.name = NULL}};
#include "pg_ops.def"
#undef PG_OP
#undef PG_ARG
#undef PG_END

#define PG_OP(id, ...) static const pg_fielddecl fields_##id[] = {
#define PG_ARG(op, nm, ty, ...)
#define PG_FIELD(op, nm, ty, cl, doc_) {.name = #nm, .types = PG_JT_##ty, .cls = PG_DC_##cl, .doc = doc_},
#define PG_END(id) {.name = NULL}};
#include "pg_ops.def"
#undef PG_OP
#undef PG_ARG
#undef PG_FIELD
#undef PG_END

#define PG_OP(op_, ...)                                                                                   \
    [PG_OPI_##op_] = {.id = #op_, .args = args_##op_, .n_args = sizeof args_##op_ / sizeof args_##op_[0] - 1, \
                      .args_size = sizeof(pg_args_##op_), .fields = fields_##op_,                           \
                      .n_fields = sizeof fields_##op_ / sizeof fields_##op_[0] - 1, __VA_ARGS__},
#define PG_ARG(op, name, type, ...)
#define PG_END(id)
const pg_opdecl pg_opdecls[PG_OPI_COUNT] = {
#include "pg_ops.def"
};
#undef PG_OP
#undef PG_ARG
#undef PG_END

const pg_opdecl *pg_opdecl_find(const char *wire_name) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++)
        if (!strcmp(pg_opdecls[i].id, wire_name)) return &pg_opdecls[i];
    return NULL;
}

const pg_opdecl *pg_opdecl_find_cli(const char *cli) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++)
        if (!strcmp(pg_opdecls[i].cli, cli)) return &pg_opdecls[i];
    return NULL;
}

const pg_argdecl *pg_opdecl_arg(const pg_opdecl *d, const char *wire_name) {
    for (size_t i = 0; i < d->n_args; i++)
        if (!strcmp(d->args[i].name, wire_name)) return &d->args[i];
    return NULL;
}

const pg_fielddecl *pg_opdecl_field(const pg_opdecl *d, const char *name) {
    for (size_t i = 0; i < d->n_fields; i++)
        if (!strcmp(d->fields[i].name, name)) return &d->fields[i];
    return NULL;
}

/* ---- reply fields ---- */

const char *pg_disclosure_name(pg_disclosure cls) {
    switch (cls) {
    case PG_DC_NONE: return "none";
    case PG_DC_RELEASED: return "released";
    case PG_DC_QUANTISED: return "quantised";
    case PG_DC_CHARGED: return "charged";
    default: return "(no class)";
    }
}

static const struct {
    unsigned bit;
    const char *name;
} jtype_names[] = {{PG_J_BOOL, "bool"},   {PG_J_INT, "integer"}, {PG_J_NUM, "number"}, {PG_J_STRING, "string"},
                   {PG_J_ARRAY, "array"}, {PG_J_OBJECT, "object"}, {PG_J_NULL, "null"}};

void pg_jtypes_text(unsigned types, char *out, size_t n) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof jtype_names / sizeof *jtype_names; i++)
        if ((types & jtype_names[i].bit) && used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " or " : "", jtype_names[i].name);
}

/* The JSON type of v as a PG_J_* bit. A raw item (pg_jnum's fixed-decimal
 * numbers) is a number when it reads as one; "null" is null. */
static unsigned jtype_of(const cJSON *v) {
    double d;
    if (cJSON_IsRaw(v)) {
        if (!strcmp(v->valuestring, "null")) return PG_J_NULL;
        char *end = NULL;
        d = strtod(v->valuestring, &end);
        if (end == v->valuestring || *end) return 0;
    } else if (cJSON_IsNumber(v)) {
        d = v->valuedouble;
    } else {
        return cJSON_IsNull(v) ? PG_J_NULL : cJSON_IsBool(v) ? PG_J_BOOL : cJSON_IsString(v) ? PG_J_STRING
               : cJSON_IsArray(v) ? PG_J_ARRAY : cJSON_IsObject(v) ? PG_J_OBJECT : 0;
    }
    if (!isfinite(d)) return 0;
    return d == floor(d) ? (PG_J_INT | PG_J_NUM) : PG_J_NUM;
}

/* The dispatcher's members: an array of strings, a string. */
static bool reply_wide_ok(const cJSON *m) {
    if (!strcmp(m->string, PG_REPLY_UNTRUSTED_NONCE)) return cJSON_IsString(m);
    if (!cJSON_IsArray(m)) return false;
    for (const cJSON *p = m->child; p; p = p->next)
        if (!cJSON_IsString(p)) return false;
    return true;
}

pg_err pg_opdecl_check_reply(const pg_opdecl *d, const cJSON *reply, pg_error *e) {
    if (!cJSON_IsObject(reply)) return pg_error_set(e, PG_E_INTERNAL, NULL, "%s: the reply is not an object", d->id);
    for (const cJSON *m = reply->child; m; m = m->next) {
        if (!strcmp(m->string, PG_REPLY_UNTRUSTED) || !strcmp(m->string, PG_REPLY_UNTRUSTED_NONCE)) {
            if (!reply_wide_ok(m))
                return pg_error_set(e, PG_E_INTERNAL, NULL, "%s: reply field \"%s\" is malformed", d->id, m->string);
            continue;
        }
        const pg_fielddecl *f = pg_opdecl_field(d, m->string);
        if (!f)
            return pg_error_set(e, PG_E_INTERNAL, "declare it in common/pg_ops.def (PG_FIELD)",
                                "%s: reply field \"%s\" is not declared", d->id, m->string);
        if (f->cls == PG_DC_UNSET)
            return pg_error_set(e, PG_E_INTERNAL, NULL, "%s: reply field \"%s\" has no disclosure class", d->id,
                                m->string);
        if (!(jtype_of(m) & f->types)) {
            char want[64];
            pg_jtypes_text(f->types, want, sizeof want);
            return pg_error_set(e, PG_E_INTERNAL, NULL, "%s: reply field \"%s\" is not of its declared type (%s)",
                                d->id, m->string, want);
        }
    }
    return PG_OK;
}

/* ---- enums ---- */

size_t pg_enum_count(const char *values) {
    size_t n = 1;
    for (const char *p = values; *p; p++) n += *p == '|';
    return n;
}

bool pg_enum_name(const char *values, int i, char *out, size_t n) {
    const char *p = values;
    for (int k = 0; k < i && p; k++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    if (!p || i < 0) return false;
    size_t len = strcspn(p, "|");
    if (len + 1 > n) return false;
    memcpy(out, p, len);
    out[len] = '\0';
    return true;
}

int pg_enum_index(const char *values, const char *name) {
    size_t len = strlen(name);
    int i = 0;
    for (const char *p = values; p; i++) {
        size_t l = strcspn(p, "|");
        if (l == len && !strncmp(p, name, len)) return i;
        p = strchr(p, '|');
        if (p) p++;
    }
    return -1;
}

/* ---- checking one value ---- */

#define PG_COORD_MAX 65535.0 /* widest rectangle or point any platform reports */

/* One check in progress: where errors go, and whether messages name the
 * command line's spellings (--threshold) or the wire's (threshold). */
typedef struct {
    pg_error *e;
    bool cli;
} check_ctx;

static void *field(void *out, size_t off) { return (char *)out + off; }

static const char *label(const pg_argdecl *a, bool cli) {
    if (!cli) return a->name;
    return a->cli ? a->cli : a->meta;
}

static pg_err bad(const check_ctx *x, const pg_argdecl *a, const char *what) {
    char range[96] = "", name[80]; /* two 31-char numbers and ".." fit */
    snprintf(name, sizeof name, x->cli ? "%s" : "argument \"%s\"", label(a, x->cli));
    if (pg_arg_range_text(a, range, sizeof range))
        return pg_error_set(x->e, PG_E_USAGE, NULL, "%s %s (%s)", name, what, range);
    return pg_error_set(x->e, PG_E_USAGE, NULL, "%s %s", name, what);
}

/* An integral JSON number in [lo, hi]. */
static bool json_int(const cJSON *v, double lo, double hi, int64_t *out) {
    if (!cJSON_IsNumber(v)) return false;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi) return false;
    *out = (int64_t)d;
    return true;
}

static pg_err parse_rect_obj(const check_ctx *x, const pg_argdecl *a, const cJSON *v, pg_rect *r) {
    static const char *keys[] = {"x", "y", "w", "h"};
    int64_t n[4];
    if (!cJSON_IsObject(v)) return bad(x, a, "must be a rectangle X,Y,W,H");
    size_t seen = 0;
    for (const cJSON *m = v->child; m; m = m->next, seen++) {
        int k = 0;
        while (k < 4 && strcmp(m->string, keys[k])) k++;
        if (k == 4) return bad(x, a, "takes only x, y, w and h");
    }
    double lo = (a->flags & PG_AF_SIGNED) ? -PG_COORD_MAX : 0;
    for (int k = 0; k < 4; k++) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(v, keys[k]);
        if (!json_int(f, k < 2 ? lo : 1, PG_COORD_MAX, &n[k]))
            return bad(x, a, k < 2 ? (lo < 0 ? "needs integer x, y in -65535..65535"
                                             : "needs integer x, y in 0..65535 (inside the image)")
                                   : "needs integer w, h in 1..65535");
    }
    if (seen != 4) return bad(x, a, "needs each of x, y, w, h once");
    *r = (pg_rect){(int32_t)n[0], (int32_t)n[1], (uint32_t)n[2], (uint32_t)n[3]};
    return PG_OK;
}

static pg_err parse_pair(const check_ctx *x, const pg_argdecl *a, const cJSON *v, const char *k0, const char *k1,
                         double lo, double hi, int64_t out[2]) {
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 2) return bad(x, a, "must be a pair of integers");
    const char *k[2] = {k0, k1};
    for (int i = 0; i < 2; i++)
        if (!json_int(cJSON_GetObjectItemCaseSensitive(v, k[i]), lo, hi, &out[i]))
            return bad(x, a, lo < 0 ? "needs integers in -65535..65535" : "needs integers in range");
    return PG_OK;
}

static pg_err parse_image(const check_ctx *x, const pg_argdecl *a, const cJSON *v, pg_image_ref *out) {
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 1)
        return bad(x, a, "must be {\"token\":...} or {\"attachment\":N}");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(v, "token");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(v, "attachment");
    int64_t idx;
    if (cJSON_IsString(t) && strlen(t->valuestring) <= 64) *out = (pg_image_ref){t->valuestring, -1};
    else if (n && json_int(n, 0, 63, &idx)) *out = (pg_image_ref){NULL, idx};
    else return bad(x, a, "must be {\"token\":\"cap:...\"} or {\"attachment\":N}");
    return PG_OK;
}

static pg_err parse_list(const check_ctx *x, const pg_argdecl *a, const cJSON *v, void *dst) {
    if (!cJSON_IsArray(v)) return bad(x, a, "must be a list");
    size_t n = (size_t)cJSON_GetArraySize(v);
    if (n == 0 || (double)n > a->max || n > PG_LIST_MAX) return bad(x, a, "has too few or too many entries");
    size_t i = 0;
    for (const cJSON *m = v->child; m; m = m->next, i++) {
        if (a->type == PG_T_RECTS) {
            pg_err rc = parse_rect_obj(x, a, m, &((pg_rect_list *)dst)->v[i]);
            if (rc) return rc;
        } else {
            if (!cJSON_IsString(m) || strlen(m->valuestring) > 4096) return bad(x, a, "takes strings");
            ((pg_string_list *)dst)->v[i] = m->valuestring;
        }
    }
    if (a->type == PG_T_RECTS) ((pg_rect_list *)dst)->n = n;
    else ((pg_string_list *)dst)->n = n;
    return PG_OK;
}

static pg_err parse_value(const check_ctx *x, const pg_argdecl *a, const cJSON *v, void *out) {
    void *dst = field(out, a->offset);
    int64_t n2[2];
    switch (a->type) {
    case PG_T_STRING:
        if (!cJSON_IsString(v)) return bad(x, a, "must be a string");
        if ((double)strlen(v->valuestring) > a->max) return bad(x, a, "is too long");
        *(const char **)dst = v->valuestring;
        return PG_OK;
    case PG_T_INT:
        if (!json_int(v, a->min, a->max, (int64_t *)dst)) return bad(x, a, "must be an integer in range");
        return PG_OK;
    case PG_T_NUM:
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < a->min || v->valuedouble > a->max)
            return bad(x, a, "must be a number in range");
        *(double *)dst = v->valuedouble;
        return PG_OK;
    case PG_T_BOOL:
        if (!cJSON_IsBool(v)) return bad(x, a, "must be true or false");
        *(bool *)dst = cJSON_IsTrue(v);
        return PG_OK;
    case PG_T_ENUM: {
        int i = cJSON_IsString(v) ? pg_enum_index(a->values, v->valuestring) : -1;
        if (i < 0) return bad(x, a, "must be one of its values");
        *(int *)dst = i;
        return PG_OK;
    }
    case PG_T_RECT:
        return parse_rect_obj(x, a, v, (pg_rect *)dst);
    case PG_T_SIZE: {
        pg_err rc = parse_pair(x, a, v, "w", "h", 1, PG_COORD_MAX, n2);
        if (!rc) *(pg_size *)dst = (pg_size){(uint32_t)n2[0], (uint32_t)n2[1]};
        return rc;
    }
    case PG_T_POINT: {
        double lo = (a->flags & PG_AF_SIGNED) ? -PG_COORD_MAX : 0;
        pg_err rc = parse_pair(x, a, v, "x", "y", lo, PG_COORD_MAX, n2);
        if (!rc) *(pg_point *)dst = (pg_point){(int32_t)n2[0], (int32_t)n2[1]};
        return rc;
    }
    case PG_T_IMAGE:
        return parse_image(x, a, v, (pg_image_ref *)dst);
    case PG_T_RECTS:
    case PG_T_STRINGS:
        return parse_list(x, a, v, dst);
    }
    return pg_error_set(x->e, PG_E_INTERNAL, NULL, "argument \"%s\" has an unknown type", a->name);
}

static void set_default(const pg_argdecl *a, void *out) {
    void *dst = field(out, a->offset);
    switch (a->type) {
    case PG_T_INT: *(int64_t *)dst = (int64_t)a->def; break;
    case PG_T_NUM: *(double *)dst = a->def; break;
    case PG_T_BOOL: *(bool *)dst = a->def != 0; break;
    case PG_T_ENUM: *(int *)dst = (int)a->def; break;
    case PG_T_IMAGE: ((pg_image_ref *)dst)->attachment = -1; break;
    default: break; /* zero: NULL strings, empty rectangles and lists */
    }
}

bool pg_arg_given(const pg_argdecl *a, const void *parsed) { return *(const bool *)((const char *)parsed + a->has_offset); }

/* Every one_of group has exactly one member given. */
static pg_err check_groups(const check_ctx *x, const pg_opdecl *d, const void *out) {
    for (size_t i = 0; i < d->n_args; i++) {
        char g = d->args[i].one_of;
        if (!g || ((d->args[i].flags & PG_AF_LOCAL) && !x->cli)) continue;
        bool first_of_group = true;
        for (size_t j = 0; j < i; j++) first_of_group &= d->args[j].one_of != g;
        if (!first_of_group) continue;
        size_t given = 0;
        char names[256] = "";
        for (size_t j = i; j < d->n_args; j++) {
            if (d->args[j].one_of != g) continue;
            given += pg_arg_given(&d->args[j], out);
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", label(&d->args[j], x->cli));
        }
        if (given != 1)
            return pg_error_set(x->e, PG_E_USAGE, NULL, "%s takes exactly one of %s (%zu given)", x->cli ? d->cli : d->id,
                                names, given);
    }
    return PG_OK;
}

pg_err pg_opdecl_check(const pg_opdecl *d, const cJSON *args, void *out, bool cli, pg_error *e) {
    check_ctx x = {e, cli};
    memset(out, 0, d->args_size);
    for (size_t i = 0; i < d->n_args; i++) set_default(&d->args[i], out);
    if (args && !cJSON_IsObject(args)) return pg_error_set(e, PG_E_USAGE, NULL, "args must be an object");
    for (const cJSON *m = args ? args->child : NULL; m; m = m->next) {
        const pg_argdecl *a = pg_opdecl_arg(d, m->string);
        if (!a || ((a->flags & PG_AF_LOCAL) && !cli))
            return pg_error_set(e, PG_E_USAGE, "see 'pixelgate help' for the operation's arguments",
                                "unknown argument \"%s\" for %s", m->string, d->id);
        bool *has = field(out, a->has_offset);
        if (*has) return bad(&x, a, "given twice");
        pg_err rc = parse_value(&x, a, m, out);
        if (rc) return rc;
        *has = true;
    }
    for (size_t i = 0; i < d->n_args; i++) {
        const pg_argdecl *a = &d->args[i];
        if ((a->flags & PG_AF_REQUIRED) && (cli || !(a->flags & PG_AF_LOCAL)) && !pg_arg_given(a, out))
            return pg_error_set(e, PG_E_USAGE, cli ? NULL : "see 'pixelgate help' for the operation's arguments",
                                "%s needs %s%s%s", cli ? d->cli : d->id, cli ? "" : "argument \"", label(a, cli),
                                cli ? "" : "\"");
    }
    return check_groups(&x, d, out);
}

pg_err pg_opdecl_parse(const pg_opdecl *d, const cJSON *args, void *out, pg_error *e) {
    return pg_opdecl_check(d, args, out, false, e);
}

/* ---- text for help and docs ---- */

static void fmt_num(double v, char *out, size_t n) {
    if (v == floor(v) && fabs(v) < 1e16) snprintf(out, n, "%.0f", v);
    else snprintf(out, n, "%g", v);
}

bool pg_arg_default_text(const pg_argdecl *a, char *out, size_t n) {
    if (a->flags & PG_AF_REQUIRED) return false; /* never absent: no default to tell */
    switch (a->type) {
    case PG_T_INT:
    case PG_T_NUM:
        if (a->def == 0 && a->min <= 0) return false; /* "no default": absent means not given */
        fmt_num(a->def, out, n);
        return true;
    case PG_T_BOOL: return false; /* a flag's help says what giving it does */
    case PG_T_ENUM: return pg_enum_name(a->values, (int)a->def, out, n);
    default: return false;
    }
}

bool pg_arg_range_text(const pg_argdecl *a, char *out, size_t n) {
    char lo[32], hi[32];
    switch (a->type) {
    case PG_T_INT:
    case PG_T_NUM:
        fmt_num(a->min, lo, sizeof lo);
        fmt_num(a->max, hi, sizeof hi);
        snprintf(out, n, "%s..%s", lo, hi);
        return true;
    case PG_T_STRING:
        snprintf(out, n, "<= %.0f bytes", a->max);
        return true;
    case PG_T_ENUM: snprintf(out, n, "%s", a->values); return true;
    case PG_T_RECTS:
    case PG_T_STRINGS: snprintf(out, n, "<= %.0f", a->max); return true;
    default: return false;
    }
}
