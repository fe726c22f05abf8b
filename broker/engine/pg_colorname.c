/* SPDX-License-Identifier: MIT */
/* pg_colorname.c - see pg_colorname.h. */
#include "pg_colorname.h"

#include <stdbool.h>
#include <string.h>

static const struct {
    const char *name;
    uint8_t rgb[3];
} table[] = {
    {"black", {0, 0, 0}},         {"silver", {192, 192, 192}}, {"gray", {128, 128, 128}},
    {"grey", {128, 128, 128}},    {"white", {255, 255, 255}},  {"maroon", {128, 0, 0}},
    {"red", {255, 0, 0}},         {"purple", {128, 0, 128}},   {"fuchsia", {255, 0, 255}},
    {"magenta", {255, 0, 255}},   {"green", {0, 128, 0}},      {"lime", {0, 255, 0}},
    {"olive", {128, 128, 0}},     {"yellow", {255, 255, 0}},   {"navy", {0, 0, 128}},
    {"blue", {0, 0, 255}},        {"teal", {0, 128, 128}},     {"aqua", {0, 255, 255}},
    {"cyan", {0, 255, 255}},      {"orange", {255, 165, 0}},
};

const char *pg_colorname_at(size_t i, uint8_t rgb[3]) {
    if (i >= sizeof table / sizeof *table) return NULL;
    memcpy(rgb, table[i].rgb, 3);
    return table[i].name;
}

/* ASCII case-insensitive equality (locale-free, and the same on mingw). */
static bool same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b) return false;
    }
    return *a == *b;
}

static int hex_digit(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static pg_err parse_hex(const char *text, uint8_t rgb[3], pg_error *e) {
    int d[6];
    bool ok = strlen(text) == 7;
    for (int i = 0; ok && i < 6; i++) ok = (d[i] = hex_digit(text[1 + i])) >= 0;
    if (!ok)
        return pg_error_set(e, PG_E_USAGE, "write a colour as #RRGGBB (six hex digits) or a name: pixelgate help assert color",
                            "\"%.40s\" is not a #RRGGBB colour", text);
    for (int k = 0; k < 3; k++) rgb[k] = (uint8_t)(d[2 * k] * 16 + d[2 * k + 1]);
    return PG_OK;
}

pg_err pg_colorname_parse(const char *text, uint8_t rgb[3], pg_error *e) {
    if (!text || !text[0]) return pg_error_set(e, PG_E_USAGE, "give #RRGGBB or a colour name", "no colour given");
    if (text[0] == '#') return parse_hex(text, rgb, e);
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (same_name(text, table[i].name)) {
            memcpy(rgb, table[i].rgb, 3);
            return PG_OK;
        }
    return pg_error_set(e, PG_E_USAGE,
                        "use #RRGGBB or a CSS basic name (black, silver, gray/grey, white, maroon, red, purple, "
                        "fuchsia/magenta, green, lime, olive, yellow, navy, blue, teal, aqua/cyan, orange)",
                        "unknown colour name \"%.40s\"", text);
}
