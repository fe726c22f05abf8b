/* Fuzz the script-mode line splitter (quotes, escapes, $last). */
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
    const char *last = (size & 1) ? "cap:AAAAAAAAAAAAAAAAAAAAAA" : NULL;
    if (pg_script_split(line, last, &l, &e) == PG_OK) pg_script_line_fini(&l);
    free(line);
    return 0;
}
