/* SPDX-License-Identifier: MIT */
/* The named-pipe transport (common/pg_transport_win.c) keeps pg_transport.h's
 * contract on Windows: exact round trips, UNREACHABLE for a missing pipe or a
 * vanished peer, TIMEOUT for a silent peer or a busy pipe, USAGE for a name
 * that is not a local pipe. Each test runs its own pipe server in a thread
 * (CreateNamedPipeW, blocking I/O) under a name unique to the process.
 * Windows only (mingw build, runs under Wine).
 */
#include <windows.h>

#include <stdint.h>

#include "pg_proto.h"
#include "pg_test.h"
#include "pg_time.h"
#include "pg_transport.h"

enum srv_mode { SRV_ECHO, SRV_SILENT, SRV_CLOSE_AFTER_3, SRV_DRIP };

typedef struct {
    HANDLE pipe;
    HANDLE thread;
    HANDLE release; /* set by the test: a silent server may go */
    enum srv_mode mode;
    size_t n; /* bytes the echo server reads, then sends back */
    uint8_t *frame; /* SRV_DRIP: a frame sent in parts, 300 ms apart */
    size_t frame_len;
    char name[128]; /* UTF-8, for the client */
} srv;

/* A pipe name unique to this process and call; tag may be non-ASCII UTF-8. */
static void unique_name(char *out, size_t cap, const char *tag) {
    static LONG counter;
    snprintf(out, cap, "\\\\.\\pipe\\pixelgate-test-%s-%lu-%ld", tag, (unsigned long)GetCurrentProcessId(),
             (long)InterlockedIncrement(&counter));
}

/* Blocking read or write of exactly n bytes on the server's end. */
static int srv_io(HANDLE h, int write, uint8_t *p, size_t n) {
    while (n > 0) {
        DWORD got = 0;
        BOOL ok = write ? WriteFile(h, p, (DWORD)n, &got, NULL) : ReadFile(h, p, (DWORD)n, &got, NULL);
        if (!ok) return 0;
        p += got;
        n -= got;
    }
    return 1;
}

static void srv_echo(srv *s) {
    uint8_t *buf = malloc(s->n);
    if (buf && srv_io(s->pipe, 0, buf, s->n) && srv_io(s->pipe, 1, buf, s->n)) {
        FlushFileBuffers(s->pipe);
        uint8_t b;
        srv_io(s->pipe, 0, &b, 1); /* returns when the client closes */
    }
    free(buf);
}

/* One frame (header and two attachments) in seven parts: each part alone
 * comes well within the client's timeout, the frame as a whole does not. */
static void srv_drip(srv *s) {
    size_t hlen = (size_t)s->frame[4] << 24 | (size_t)s->frame[5] << 16 | (size_t)s->frame[6] << 8 | s->frame[7];
    size_t cut[] = {12, 12 + hlen, 16 + hlen, 21 + hlen, 25 + hlen, 27 + hlen, s->frame_len};
    size_t from = 0;
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        if (i && WaitForSingleObject(s->release, 300) == WAIT_OBJECT_0) return;
        if (!srv_io(s->pipe, 1, s->frame + from, cut[i] - from)) return;
        from = cut[i];
    }
    WaitForSingleObject(s->release, 30000);
}

static DWORD WINAPI srv_main(LPVOID arg) {
    srv *s = arg;
    if (!ConnectNamedPipe(s->pipe, NULL) && GetLastError() != ERROR_PIPE_CONNECTED) return 1;
    if (s->mode == SRV_ECHO) srv_echo(s);
    if (s->mode == SRV_SILENT) WaitForSingleObject(s->release, 30000);
    if (s->mode == SRV_DRIP) srv_drip(s);
    if (s->mode == SRV_CLOSE_AFTER_3) {
        uint8_t three[3] = {1, 2, 3};
        srv_io(s->pipe, 1, three, 3);
        FlushFileBuffers(s->pipe);
    }
    DisconnectNamedPipe(s->pipe);
    return 0;
}

/* Creates a one-instance byte pipe and starts serving it. */
static int srv_start(srv *s, const char *tag, enum srv_mode mode, size_t n) {
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->n = n;
    unique_name(s->name, sizeof s->name, tag);
    wchar_t w[128];
    if (!MultiByteToWideChar(CP_UTF8, 0, s->name, -1, w, 128)) return 0;
    s->pipe = CreateNamedPipeW(w, PIPE_ACCESS_DUPLEX, PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
                               PIPE_REJECT_REMOTE_CLIENTS, 1, 65536, 65536, 0, NULL);
    if (s->pipe == INVALID_HANDLE_VALUE) return 0;
    s->release = CreateEventW(NULL, TRUE, FALSE, NULL);
    s->thread = CreateThread(NULL, 0, srv_main, s, 0, NULL);
    return s->release && s->thread;
}

static void srv_stop(srv *s) {
    if (s->release) SetEvent(s->release);
    if (s->thread && WaitForSingleObject(s->thread, 10000) != WAIT_OBJECT_0) {
        fprintf(stderr, "pipe server thread stuck; terminating it\n");
        TerminateThread(s->thread, 1);
    }
    if (s->thread) CloseHandle(s->thread);
    if (s->release) CloseHandle(s->release);
    if (s->pipe && s->pipe != INVALID_HANDLE_VALUE) CloseHandle(s->pipe);
}

PG_TEST(default_address_is_the_pixelgate_pipe) {
    CHECK_STR(pg_transport_default_address(), "\\\\.\\pipe\\pixelgate");
}

PG_TEST(round_trip_of_one_mebibyte_is_exact) {
    enum { N = 1 << 20 };
    srv s;
    REQUIRE(srv_start(&s, "echo", SRV_ECHO, N));
    uint8_t *out = malloc(N), *in = malloc(N);
    uint32_t x = 12345;
    for (size_t i = 0; out && i < N; i++) out[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
    pg_conn *c = NULL;
    pg_error e;
    CHECK(out && in);
    if (out && in) CHECK_EQ_INT(pg_conn_connect(&c, s.name, 5000, &e), PG_OK);
    if (c) {
        CHECK_EQ_INT(pg_conn_write_full(c, out, N, &e), PG_OK);
        CHECK_EQ_INT(pg_conn_read_full(c, in, N, &e), PG_OK);
        CHECK(memcmp(out, in, N) == 0);
        pg_conn_close(c);
    }
    free(out);
    free(in);
    srv_stop(&s);
}

PG_TEST(utf8_pipe_name_is_converted_to_wide) {
    srv s;
    REQUIRE(srv_start(&s, "t\xc3\xa9st-\xe5\x83\x8f", SRV_CLOSE_AFTER_3, 0));
    pg_conn *c = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_conn_connect(&c, s.name, 5000, &e), PG_OK);
    uint8_t b[3] = {0};
    if (c) CHECK_EQ_INT(pg_conn_read_full(c, b, 3, &e), PG_OK);
    CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3);
    pg_conn_close(c);
    srv_stop(&s);
}

PG_TEST(missing_pipe_is_unreachable_with_a_clear_message) {
    char name[128];
    unique_name(name, sizeof name, "missing");
    pg_conn *c = NULL;
    pg_error e;
    double t0 = pg_mono_ms();
    CHECK_EQ_INT(pg_conn_connect(&c, name, 3000, &e), PG_E_UNREACHABLE);
    CHECK(pg_mono_ms() - t0 < 2000); /* no waiting for a pipe that does not exist */
    CHECK(c == NULL);
    CHECK(strstr(e.message, name) != NULL);
    CHECK(strstr(e.message, "no such pipe") != NULL);
    CHECK(e.recovery_tip[0] != '\0');
}

PG_TEST(silent_peer_read_times_out) {
    srv s;
    REQUIRE(srv_start(&s, "silent", SRV_SILENT, 0));
    pg_conn *c = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_conn_connect(&c, s.name, 200, &e), PG_OK);
    if (c) {
        uint8_t b[16];
        double t0 = pg_mono_ms();
        CHECK_EQ_INT(pg_conn_read_full(c, b, sizeof b, &e), PG_E_TIMEOUT);
        double dt = pg_mono_ms() - t0;
        CHECK(dt >= 150 && dt < 5000);
        CHECK(strstr(e.message, "200 ms") != NULL);
        pg_conn_close(c);
    }
    srv_stop(&s);
}

PG_TEST(busy_pipe_connect_times_out) {
    srv s;
    REQUIRE(srv_start(&s, "busy", SRV_SILENT, 0));
    pg_conn *first = NULL, *second = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_conn_connect(&first, s.name, 2000, &e), PG_OK);
    double t0 = pg_mono_ms();
    CHECK_EQ_INT(pg_conn_connect(&second, s.name, 300, &e), PG_E_TIMEOUT);
    CHECK(pg_mono_ms() - t0 < 5000);
    CHECK(second == NULL);
    pg_conn_close(first);
    srv_stop(&s);
}

PG_TEST(peer_closing_mid_read_is_unreachable) {
    srv s;
    REQUIRE(srv_start(&s, "close", SRV_CLOSE_AFTER_3, 0));
    pg_conn *c = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_conn_connect(&c, s.name, 5000, &e), PG_OK);
    if (c) {
        uint8_t b[10];
        CHECK_EQ_INT(pg_conn_read_full(c, b, sizeof b, &e), PG_E_UNREACHABLE);
        WaitForSingleObject(s.thread, 5000);
        CHECK_EQ_INT(pg_conn_write_full(c, b, sizeof b, &e), PG_E_UNREACHABLE);
        pg_conn_close(c);
    }
    srv_stop(&s);
}

PG_TEST(non_pipe_addresses_are_usage_errors) {
    pg_conn *c = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_conn_connect(&c, "/run/pixelgate/broker.sock", 100, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_conn_connect(&c, "\\\\otherhost\\pipe\\pixelgate", 100, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_conn_connect(&c, "\\\\.\\pipe\\", 100, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_conn_connect(&c, "\\\\.\\pipe\\bad\xff", 100, &e), PG_E_USAGE);
    CHECK(c == NULL);
}

PG_TEST(a_slow_drip_peer_cannot_stretch_one_frame_past_the_timeout) {
    pg_blob att[2] = {{(uint8_t *)"hello", 5}, {(uint8_t *)"world", 5}};
    cJSON *h = cJSON_Parse("{\"v\":1,\"id\":9,\"op\":\"ping\"}");
    uint8_t *frame = NULL;
    size_t len = 0;
    REQUIRE(h && pg_proto_encode(h, att, 2, &frame, &len, NULL) == PG_OK);
    cJSON_Delete(h);
    srv s;
    REQUIRE(srv_start(&s, "drip", SRV_DRIP, 0));
    s.frame = frame;
    s.frame_len = len;
    pg_conn *c = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_conn_connect(&c, s.name, 1000, &e), PG_OK);
    if (c) {
        pg_proto_limits l;
        pg_proto_limits_default(&l);
        pg_msg m;
        double t0 = pg_mono_ms();
        pg_err rc = pg_proto_read(c, &l, &m, &e);
        CHECK_EQ_INT(rc, PG_E_TIMEOUT); /* one deadline for the whole frame */
        CHECK(pg_mono_ms() - t0 < 1700);
        if (rc == PG_OK) pg_msg_fini(&m);
        pg_conn_close(c);
    }
    srv_stop(&s);
    free(frame);
}
