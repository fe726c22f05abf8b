/* SPDX-License-Identifier: MIT */
/* Fuzz the script-mode line splitter (quotes, escapes, variables). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > PG_SCRIPT_MAX_LINE) return 0;
    char *line = malloc(size + 1);
    if (!line) return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    pg_script_line l;
    pg_error e;
    /* Odd sizes: with variables bound (the longest value, the shortest name). */
    pg_script_vars vars = {.n = 0};
    pg_script_bind(&vars, "last", "cap:AAAAAAAAAAAAAAAAAAAAAA", &e);
    pg_script_bind(&vars, "a", "cap:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", &e);
    if (pg_script_split(line, (size & 1) ? &vars : NULL, &l, &e) == PG_OK) {
        for (int i = 0; i < l.n; i++)
            if (strlen(l.words[i]) > PG_SCRIPT_MAX_LINE * (size_t)(PG_SCRIPT_MAX_VALUE / 2)) abort();
        pg_script_line_fini(&l);
    }
    free(line);
    return 0;
}
