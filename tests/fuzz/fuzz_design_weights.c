/* SPDX-License-Identifier: MIT */
/* Fuzz the design comparison's weights parser (pg_design_weights_parse,
 * what `compare --weights` hands the engine): any bytes give either weights
 * in 0..100 for known dimensions, with the preset's left where no pair named
 * them, or a USAGE error with a message that leaves the options untouched -
 * never a crash or an over-read. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    pg_design_opts o, before;
    pg_design_opts_init(&o);
    pg_design_set_weight(&o, "color", 7, NULL); /* a weight set earlier must survive a refusal */
    before = o;
    pg_error e;
    pg_err rc = pg_design_weights_parse(&o, s, &e);
    if (rc != PG_OK) {
        if (rc != PG_E_USAGE || !e.message[0] || memcmp(o.weights, before.weights, sizeof o.weights) ||
            memcmp(o.weight_set, before.weight_set, sizeof o.weight_set))
            abort();
    } else {
        for (int d = 0; d < PG_DESIGN_NDIM; d++) {
            if (!o.weight_set[d]) continue;
            if (!isfinite(o.weights[d]) || o.weights[d] < 0 || o.weights[d] > PG_DESIGN_MAX_WEIGHT) abort();
        }
        if (!o.weight_set[PG_DESIGN_COLOR]) abort();
    }
    free(s);
    return 0;
}
