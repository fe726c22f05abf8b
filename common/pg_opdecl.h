/* SPDX-License-Identifier: MIT */
/* pg_opdecl.h - every operation, declared once (common/pg_ops.def).
 *
 * What it does
 *   pg_ops.def names each operation once: its wire name, CLI spelling, flags
 *   (audited, needs the display, captures, takes tokens, has an effect
 *   outside the broker, ...), what it discloses (its class in
 *   docs/threat-model.md), a one-line summary, a description written for a
 *   model, what it prints, and every argument with its type, range, default,
 *   CLI spelling and help line. From that one list this header derives:
 *     - pg_args_<op>: a typed struct per operation (a field and a has_ flag
 *       per argument), which the broker's handler receives already checked;
 *     - pg_opdecls[]: the table the broker's dispatch, the client's command
 *       line, `pixelgate help`, the MCP tool list, the man pages and the
 *       generated doc sections are all built from.
 *   pg_opdecl_parse checks a request's JSON args against a declaration
 *   (unknown, duplicate, wrong type, out of range, missing required, groups
 *   of which exactly one must be given) and fills the typed struct, with
 *   defaults for what is absent. The client runs the same table over argv.
 *
 * What it never does
 *   No I/O, no allocation in pg_opdecl_parse (strings point into the JSON,
 *   which must outlive the struct), no knowledge of handlers or of pixels.
 *
 *   Every field of a reply is declared too (PG_FIELD: name, JSON type,
 *   disclosure class); pg_opdecl_check_reply holds a reply to them.
 *
 * Adding an operation: one PG_OP block in pg_ops.def, its handler
 * broker/ops/<op>.c, its unit test, and the doc lines the agreement test
 * (unit.doc_agreement: tools/pg_gendoc) asks for. See
 * docs/architecture.md "Adding an operation".
 */
#ifndef PG_OPDECL_H
#define PG_OPDECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_error.h"
#include "pg_geom.h"

/* ---- argument types and their C types in pg_args_<op> ---- */
typedef enum {
    PG_T_STRING, /* const char *; max = longest accepted, in bytes */
    PG_T_INT,    /* int64_t in [min, max] */
    PG_T_NUM,    /* double in [min, max] */
    PG_T_BOOL,   /* bool; CLI: a flag (PG_AF_NEGATE: the flag sets false) */
    PG_T_ENUM,   /* int: index into values "a|b|c"; wire and CLI: the name */
    PG_T_RECT,   /* pg_rect; wire {x,y,w,h}; CLI X,Y,W,H */
    PG_T_SIZE,   /* pg_size; wire {w,h}; CLI WxH */
    PG_T_POINT,  /* pg_point; wire {x,y}; CLI X,Y */
    PG_T_IMAGE,  /* pg_image_ref; wire {token} or {attachment}; CLI a token or a file */
    PG_T_RECTS,  /* pg_rect_list; wire [ {x,y,w,h}, ... ]; CLI the option repeated */
    PG_T_STRINGS /* pg_string_list; wire [ "...", ... ]; CLI the option repeated */
} pg_argtype;

#define PG_LIST_MAX 64 /* longest RECTS / STRINGS list any operation takes */

typedef struct {
    const char *token;  /* "cap:..." or NULL */
    int64_t attachment; /* index into the request's attachments, or -1 */
} pg_image_ref;

typedef struct {
    pg_rect v[PG_LIST_MAX];
    size_t n;
} pg_rect_list;

typedef struct {
    const char *v[PG_LIST_MAX];
    size_t n;
} pg_string_list;

#define PG_CT_STRING const char *
#define PG_CT_INT int64_t
#define PG_CT_NUM double
#define PG_CT_BOOL bool
#define PG_CT_ENUM int
#define PG_CT_RECT pg_rect
#define PG_CT_SIZE pg_size
#define PG_CT_POINT pg_point
#define PG_CT_IMAGE pg_image_ref
#define PG_CT_RECTS pg_rect_list
#define PG_CT_STRINGS pg_string_list

/* ---- argument flags ---- */
#define PG_AF_REQUIRED 0x01u   /* must be given */
#define PG_AF_POSITIONAL 0x02u /* CLI: a bare word, in declaration order */
#define PG_AF_NEGATE 0x04u     /* BOOL: the CLI flag sets false (--no-settle) */
#define PG_AF_LOCAL 0x08u      /* CLI only, never sent (release --png PATH) */
#define PG_AF_SIGNED 0x10u     /* RECT/POINT: x, y may be negative (screen coordinates) */

/* ---- operation flags ---- */
#define PG_OPF_AUDIT 0x001u    /* every outcome is audited (refusals always are) */
#define PG_OPF_DISPLAY 0x002u  /* needs the platform backend */
#define PG_OPF_CAPTURES 0x004u /* reads live pixels (the deny rules apply) */
#define PG_OPF_TOKENS 0x008u   /* reads the caller's tokens */
#define PG_OPF_EFFECT 0x010u   /* has an effect outside the broker (input, release, relay):
                                  its record is durable before the effect */
#define PG_OPF_APPROVER 0x020u /* admitted as an approver, not as a client */
#define PG_OPF_LONG 0x040u     /* may run for seconds (waits): MCP reports progress */
#define PG_OPF_PIXELS 0x080u   /* may answer with pixels (release), as the policy allows */
#define PG_OPF_ASSERT 0x100u   /* a check: exit 1 with the measurements when it says no */
#define PG_OPF_STATE 0x200u    /* leaves state in the broker beyond its answer (a baseline candidate,
                                  tokens gone): a host must not take it for read-only */
#define PG_OPF_DESTROYS 0x400u /* deletes or replaces what exists (tokens, a candidate): a host asks first */
#define PG_OPF_IDEMPOTENT 0x800u /* the same call again changes nothing more (MCP idempotentHint) */
#define PG_OPF_CORE 0x1000u    /* in MCP's default profile: what checking a form needs, within the
                                  token budget of tests/mcp (docs/mcp.md "Profiles") */
#define PG_OPF_WHILE_STOPPED 0x2000u /* still answered to an agent while a person's stop holds (ping, caps,
                                        drop): every other operation is refused STOPPED */

typedef struct {
    const char *name;   /* wire name */
    pg_argtype type;
    unsigned flags;     /* PG_AF_* */
    const char *cli;    /* "--window"; NULL for positional words */
    const char *meta;   /* what the value looks like: "REGEX", "X,Y,W,H" */
    char one_of;        /* args sharing a letter: exactly one of them must be given */
    double min, max;    /* INT/NUM: range; STRING: max bytes; lists: max entries */
    double def;         /* INT/NUM/BOOL default (BOOL: 0 or 1) */
    const char *values; /* ENUM: "left|middle|right"; the default is values[def] */
    const char *help;   /* one line */
    size_t offset;      /* of the value in pg_args_<op> */
    size_t has_offset;  /* of its has_<name> flag */
} pg_argdecl;

/* ---- reply fields ----
 * Every top-level field an operation's reply can carry (its result, and the
 * details a verdict or a timeout prints on stdout) is declared with its JSON
 * type and its disclosure class (docs/threat-model.md, "Every reply field has
 * a class"). pg_opdecl_check_reply holds a reply to that list. */
#define PG_J_NULL 0x01u
#define PG_J_BOOL 0x02u
#define PG_J_INT 0x04u    /* a number without a fraction */
#define PG_J_NUM 0x08u    /* any finite number (integers too) */
#define PG_J_STRING 0x10u
#define PG_J_ARRAY 0x20u
#define PG_J_OBJECT 0x40u

/* The spellings pg_ops.def uses (PG_FIELD's type), pasted onto PG_JT_. */
#define PG_JT_BOOL PG_J_BOOL
#define PG_JT_INT PG_J_INT
#define PG_JT_NUM PG_J_NUM
#define PG_JT_STRING PG_J_STRING
#define PG_JT_ARRAY PG_J_ARRAY
#define PG_JT_OBJECT PG_J_OBJECT
#define PG_JT_BOOL_OR_NULL (PG_J_BOOL | PG_J_NULL)
#define PG_JT_INT_OR_NULL (PG_J_INT | PG_J_NULL)
#define PG_JT_NUM_OR_NULL (PG_J_NUM | PG_J_NULL)
#define PG_JT_STRING_OR_NULL (PG_J_STRING | PG_J_NULL)
#define PG_JT_OBJECT_OR_NULL (PG_J_OBJECT | PG_J_NULL)

/* What a field tells about protected pixels (pixels the caller may not
 * have). 0 is "no class": a declaration without one is refused too. */
typedef enum {
    PG_DC_UNSET = 0,
    PG_DC_NONE,      /* not computed from protected pixels: ids, sizes, times, tokens, metadata, echoes */
    PG_DC_RELEASED,  /* the policy releases it: OCR text (analysis.ocr), an endpoint's answer, the pixels */
    PG_DC_QUANTISED, /* coarsened to what docs/threat-model.md states (and charged for that) */
    PG_DC_CHARGED    /* booked on the disclosure budget as it is */
} pg_disclosure;

typedef struct {
    const char *name;  /* the member's key */
    unsigned types;    /* PG_J_* accepted */
    pg_disclosure cls;
    const char *doc;   /* one line; for an object, its members */
} pg_fielddecl;

typedef struct {
    const char *id;          /* wire name: "wait_stable" */
    const char *cli;         /* CLI spelling: "wait-stable", "assert changed" */
    unsigned flags;          /* PG_OPF_* */
    const char *discloses;   /* its class in docs/threat-model.md */
    const char *summary;     /* one line */
    const char *description; /* for a model choosing a tool (MCP) */
    const char *prints;      /* the result's shape */
    const pg_argdecl *args;
    size_t n_args;
    size_t args_size;        /* sizeof(pg_args_<op>) */
    const pg_fielddecl *fields; /* what its reply can carry */
    size_t n_fields;
} pg_opdecl;

/* The typed argument struct of every operation. */
#define PG_OP(id, ...) typedef struct pg_args_##id {
#define PG_ARG(op, name, type, ...) \
    PG_CT_##type name;              \
    bool has_##name;
#define PG_FIELD(op, name, type, cls, doc)
#define PG_END(id)                                                        \
    char unused_; /* keeps an operation without arguments a valid struct */ \
    } pg_args_##id;
#include "pg_ops.def"
#undef PG_OP
#undef PG_ARG
#undef PG_FIELD
#undef PG_END

/* Operation indices: PG_OPI_<id>. */
#define PG_OP(id, ...) PG_OPI_##id,
#define PG_ARG(op, name, type, ...)
#define PG_END(id)
typedef enum {
#include "pg_ops.def"
    PG_OPI_COUNT
} pg_op_index;
#undef PG_OP
#undef PG_ARG
#undef PG_END

extern const pg_opdecl pg_opdecls[PG_OPI_COUNT];

const pg_opdecl *pg_opdecl_find(const char *wire_name);
/* By CLI spelling ("wait-stable", "assert changed"). */
const pg_opdecl *pg_opdecl_find_cli(const char *cli);
const pg_argdecl *pg_opdecl_arg(const pg_opdecl *d, const char *wire_name);
const pg_fielddecl *pg_opdecl_field(const pg_opdecl *d, const char *name);

/* "none", "released", "quantised", "charged"; "(no class)" for PG_DC_UNSET. */
const char *pg_disclosure_name(pg_disclosure cls);
/* A field's types as text ("string or null") into out. */
void pg_jtypes_text(unsigned types, char *out, size_t n);

/* Two members any reply (result or details) may carry, added by the
 * dispatcher rather than by a handler (broker/core/pg_untrusted.h): the JSON
 * Pointers of the reply's screen text, and the reply's nonce for the
 * delimiters that wrap that text in MCP results. Class NONE: they say where
 * text the reply already carries sits, and 128 random bits. */
#define PG_REPLY_UNTRUSTED "untrusted"
#define PG_REPLY_UNTRUSTED_NONCE "untrusted_nonce"

/* Holds a reply (a result, or the details of a verdict or a timeout) to d's
 * field declarations: every member declared, with a class, of a declared
 * JSON type (raw numbers, as pg_jnum writes them, count as numbers), except
 * the two above, which must be an array of strings and a string.
 * PG_E_INTERNAL naming the first member that is not. Fields a reply leaves
 * out are not missed: most are optional. */
pg_err pg_opdecl_check_reply(const pg_opdecl *d, const cJSON *reply, pg_error *e);

/* ENUM helpers: the i-th name of values into out; the index of name or -1. */
size_t pg_enum_count(const char *values);
bool pg_enum_name(const char *values, int i, char *out, size_t n);
int pg_enum_index(const char *values, const char *name);

/* Checks args (a JSON object, or NULL for none) against d and fills out, a
 * pg_args_<op> of d->args_size bytes: every field set (defaults where
 * absent), has_ flags say what was given. PG_E_USAGE naming the argument
 * otherwise. Strings point into args. */
pg_err pg_opdecl_parse(const pg_opdecl *d, const cJSON *args, void *out, pg_error *e);
/* The same check for the command line (cli true): PG_AF_LOCAL arguments are
 * accepted and checked too, and messages use the CLI spellings. */
pg_err pg_opdecl_check(const pg_opdecl *d, const cJSON *args, void *out, bool cli, pg_error *e);

/* Typed access to a parsed struct by declaration (generic code: client,
 * MCP, tests). */
bool pg_arg_given(const pg_argdecl *a, const void *parsed);

/* One value's text for help and docs: the default ("0.1", "left", "true")
 * into out, false when the argument has no default worth printing. */
bool pg_arg_default_text(const pg_argdecl *a, char *out, size_t n);
/* The range as text ("0..1", "1..9", "<= 4096 bytes"), false when none. */
bool pg_arg_range_text(const pg_argdecl *a, char *out, size_t n);

#endif
