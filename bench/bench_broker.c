/* SPDX-License-Identifier: MIT */
/* bench_broker - round trips through a running broker, from one client
 * connection, so process start-up is excluded (the CLI's whole-process cost
 * is measured separately by run_snapshot.sh with hyperfine).
 *   bench_broker SOCKET N OP [JSON_ARGS]   e.g. bench_broker /run/pixelgate/broker.sock 200 ping
 * Prints {"op":..,"n":..,"median_ms":..,"p10_ms":..,"p90_ms":..}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_proto.h"
#include "pg_time.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_broker SOCKET N OP [JSON_ARGS]\n");
        return 2;
    }
    int n = atoi(argv[2]);
    if (n < 1) return 2;
    pg_conn *c;
    pg_error e;
    if (pg_conn_connect(&c, argv[1], 30000, &e)) {
        fprintf(stderr, "bench_broker: %s\n", e.message);
        return 5;
    }
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    double *t = malloc(sizeof *t * (size_t)n);
    for (int i = 0; i < n; i++) {
        cJSON *args = argc > 4 ? cJSON_Parse(argv[4]) : cJSON_CreateObject();
        cJSON *req = pg_proto_request_new((uint64_t)i + 1, argv[3], args);
        double t0 = pg_mono_ms();
        pg_msg m;
        const cJSON *res;
        if (pg_proto_write(c, req, NULL, 0, &e) || pg_proto_read(c, &lim, &m, &e) ||
            pg_proto_parse_response(m.header, (uint64_t)i + 1, &res, NULL, &e)) {
            fprintf(stderr, "bench_broker: %s: %s\n", pg_err_name(e.code), e.message);
            return e.code;
        }
        t[i] = pg_mono_ms() - t0;
        pg_msg_fini(&m);
        cJSON_Delete(req);
    }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    printf("{\"op\":\"%s\",\"n\":%d,\"median_ms\":%.3f,\"p10_ms\":%.3f,\"p90_ms\":%.3f}\n", argv[3], n, t[n / 2],
           t[n / 10], t[n * 9 / 10]);
    free(t);
    pg_conn_close(c);
    return 0;
}
