/* SPDX-License-Identifier: MIT */
/* The broker's named-pipe server (broker/os/win/pg_win_pipe_server.c) under
 * Wine: a server thread accepts, the test's client (pg_conn_connect, which
 * opens with SECURITY_IDENTIFICATION) connects, and the server reports the
 * client's pid and token user SID from the kernel; bytes round-trip through
 * the wrapped pg_conn; a squatted name is refused; a stop event and a timeout
 * end a waiting accept in time.
 * What this cannot show: Wine does not enforce the pipe's DACL and gives
 * every process the same SID, so denial of an unadmitted user is NOT tested
 * here (see docs/windows.md for the check on a real Windows machine). The
 * user SID is compared with this process's own token user, which is what
 * Windows would report too for a client in the same process.
 * Windows only (mingw build, runs under Wine).
 */
#include <windows.h>

#include <stdint.h>

#include "pg_test.h"
#include "pg_time.h"
#include "pg_transport.h"
#include "pg_win_pipe_server.h"

typedef struct {
    pg_win_pipe_server *srv;
    HANDLE stop;
    uint32_t timeout_ms;
    pg_err rc;
    pg_error e;
    pg_conn *conn;
    pg_win_client_id id;
    double took_ms;
} acceptor;

static void unique_name(char *out, size_t cap, const char *tag) {
    static LONG counter;
    snprintf(out, cap, "\\\\.\\pipe\\pixelgate-srvtest-%s-%lu-%ld", tag, (unsigned long)GetCurrentProcessId(),
             (long)InterlockedIncrement(&counter));
}

/* The SDDL the broker would use, admitting this process's own user. */
static pg_err sddl_for_me(char *out, size_t cap, char *my_sid) {
    HANDLE tok;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) return PG_E_INTERNAL;
    union {
        TOKEN_USER tu;
        uint8_t raw[512];
    } u;
    DWORD n;
    BOOL ok = GetTokenInformation(tok, TokenUser, &u, sizeof u, &n);
    CloseHandle(tok);
    if (!ok || pg_win_sid_format(u.tu.User.Sid, my_sid, NULL)) return PG_E_INTERNAL;
    const char *p[] = {my_sid};
    return pg_win_pipe_server_sddl(NULL, p, 1, out, cap, NULL);
}

static DWORD WINAPI accept_main(LPVOID arg) {
    acceptor *a = arg;
    double t0 = pg_mono_ms();
    a->rc = pg_win_pipe_server_accept(a->srv, a->stop, a->timeout_ms, 5000, &a->conn, &a->id, &a->e);
    a->took_ms = pg_mono_ms() - t0;
    return 0;
}

static HANDLE start_accept(acceptor *a) { return CreateThread(NULL, 0, accept_main, a, 0, NULL); }

static int join(HANDLE th) {
    int ok = th && WaitForSingleObject(th, 15000) == WAIT_OBJECT_0;
    if (th) CloseHandle(th);
    return ok;
}

PG_TEST(client_pid_and_sid_come_from_the_kernel_and_bytes_round_trip) {
    char name[128], sddl[1024], me[PG_WIN_SID_STR_MAX];
    unique_name(name, sizeof name, "id");
    REQUIRE(sddl_for_me(sddl, sizeof sddl, me) == PG_OK);
    acceptor a = {.timeout_ms = 10000};
    pg_error e;
    REQUIRE(pg_win_pipe_server_open(&a.srv, name, sddl, 0, &e) == PG_OK);
    HANDLE th = start_accept(&a);
    pg_conn *c = NULL;
    CHECK_EQ_INT(pg_conn_connect(&c, name, 5000, &e), PG_OK);
    REQUIRE(join(th));
    CHECK_EQ_INT(a.rc, PG_OK);
    if (a.rc) fprintf(stderr, "accept: %s\n", a.e.message);
    CHECK(a.conn != NULL);
    CHECK_EQ_INT(a.id.pid, GetCurrentProcessId());
    CHECK(strncmp(a.id.user_sid, "S-1-", 4) == 0);
    CHECK_EQ_INT(pg_win_sid_check(a.id.user_sid, &e), PG_OK);
    CHECK_STR(a.id.user_sid, me); /* under Wine every process has this SID */
    CHECK(a.id.n_groups > 0);
    for (size_t i = 0; i < a.id.n_groups; i++) CHECK_EQ_INT(pg_win_sid_check(a.id.groups[i].sid, &e), PG_OK);
    fprintf(stderr, "client: pid %u sid %s account \"%s\" groups %zu integrity 0x%x\n", a.id.pid, a.id.user_sid,
            a.id.account, a.id.n_groups, a.id.integrity_rid);
    if (c && a.conn) {
        uint8_t out[4096], in[4096];
        for (size_t i = 0; i < sizeof out; i++) out[i] = (uint8_t)(i * 7 + 1);
        CHECK_EQ_INT(pg_conn_write_full(c, out, sizeof out, &e), PG_OK);
        CHECK_EQ_INT(pg_conn_read_full(a.conn, in, sizeof in, &e), PG_OK);
        CHECK(memcmp(out, in, sizeof in) == 0);
        CHECK_EQ_INT(pg_conn_write_full(a.conn, "pong", 4, &e), PG_OK);
        char pong[4] = {0};
        CHECK_EQ_INT(pg_conn_read_full(c, pong, 4, &e), PG_OK);
        CHECK(memcmp(pong, "pong", 4) == 0);
    }
    pg_conn_close(c);
    pg_conn_close(a.conn);
    pg_win_client_id_free(&a.id);
    pg_win_pipe_server_close(a.srv);
}

PG_TEST(server_keeps_serving_a_second_client) {
    char name[128], sddl[1024], me[PG_WIN_SID_STR_MAX];
    unique_name(name, sizeof name, "two");
    REQUIRE(sddl_for_me(sddl, sizeof sddl, me) == PG_OK);
    acceptor a = {.timeout_ms = 10000};
    pg_error e;
    REQUIRE(pg_win_pipe_server_open(&a.srv, name, sddl, 0, &e) == PG_OK);
    pg_conn *c[2] = {NULL, NULL}, *s[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        HANDLE th = start_accept(&a);
        CHECK_EQ_INT(pg_conn_connect(&c[i], name, 5000, &e), PG_OK);
        REQUIRE(join(th));
        CHECK_EQ_INT(a.rc, PG_OK);
        CHECK_EQ_INT(a.id.pid, GetCurrentProcessId());
        s[i] = a.conn;
        a.conn = NULL;
        pg_win_client_id_free(&a.id);
    }
    /* each server end talks to its own client */
    for (int i = 0; i < 2; i++) {
        uint8_t b = (uint8_t)(0x40 + i), got = 0;
        if (s[i] && c[i]) {
            CHECK_EQ_INT(pg_conn_write_full(s[i], &b, 1, &e), PG_OK);
            CHECK_EQ_INT(pg_conn_read_full(c[i], &got, 1, &e), PG_OK);
        }
        CHECK_EQ_INT(got, b);
        pg_conn_close(c[i]);
        pg_conn_close(s[i]);
    }
    pg_win_pipe_server_close(a.srv);
}

PG_TEST(squatted_name_is_refused) {
    char name[128];
    unique_name(name, sizeof name, "squat");
    wchar_t w[128];
    REQUIRE(MultiByteToWideChar(CP_UTF8, 0, name, -1, w, 128) > 0);
    /* The squatter: an ordinary pipe with a permissive (default) DACL. */
    HANDLE squatter = CreateNamedPipeW(w, PIPE_ACCESS_DUPLEX, PIPE_TYPE_BYTE | PIPE_WAIT, PIPE_UNLIMITED_INSTANCES,
                                       4096, 4096, 0, NULL);
    REQUIRE(squatter != INVALID_HANDLE_VALUE);
    char sddl[1024], me[PG_WIN_SID_STR_MAX];
    REQUIRE(sddl_for_me(sddl, sizeof sddl, me) == PG_OK);
    pg_win_pipe_server *srv = NULL;
    pg_error e = {0};
    CHECK_EQ_INT(pg_win_pipe_server_open(&srv, name, sddl, 0, &e), PG_E_POLICY);
    CHECK(srv == NULL);
    CHECK(strstr(e.message, "pipe name already taken") != NULL);
    CHECK(strstr(e.message, name) != NULL);
    pg_win_pipe_server_close(srv);
    CloseHandle(squatter);
}

PG_TEST(second_broker_on_the_same_name_is_refused) {
    char name[128], sddl[1024], me[PG_WIN_SID_STR_MAX];
    unique_name(name, sizeof name, "twice");
    REQUIRE(sddl_for_me(sddl, sizeof sddl, me) == PG_OK);
    pg_win_pipe_server *one = NULL, *two = NULL;
    pg_error e = {0};
    REQUIRE(pg_win_pipe_server_open(&one, name, sddl, 0, &e) == PG_OK);
    CHECK_EQ_INT(pg_win_pipe_server_open(&two, name, sddl, 0, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "pipe name already taken") != NULL);
    pg_win_pipe_server_close(two);
    pg_win_pipe_server_close(one);
}

PG_TEST(stop_event_ends_a_waiting_accept) {
    char name[128], sddl[1024], me[PG_WIN_SID_STR_MAX];
    unique_name(name, sizeof name, "stop");
    REQUIRE(sddl_for_me(sddl, sizeof sddl, me) == PG_OK);
    acceptor a = {.timeout_ms = 20000, .stop = CreateEventW(NULL, TRUE, FALSE, NULL)};
    pg_error e;
    REQUIRE(a.stop != NULL);
    REQUIRE(pg_win_pipe_server_open(&a.srv, name, sddl, 0, &e) == PG_OK);
    HANDLE th = start_accept(&a);
    Sleep(200);
    SetEvent(a.stop);
    REQUIRE(join(th));
    CHECK_EQ_INT(a.rc, PG_OK);
    CHECK(a.conn == NULL); /* PG_OK without a connection: stopped */
    CHECK(a.took_ms < 5000);
    /* the server is still usable after a stopped accept */
    ResetEvent(a.stop);
    a.timeout_ms = 10000;
    th = start_accept(&a);
    pg_conn *c = NULL;
    CHECK_EQ_INT(pg_conn_connect(&c, name, 5000, &e), PG_OK);
    REQUIRE(join(th));
    CHECK_EQ_INT(a.rc, PG_OK);
    CHECK(a.conn != NULL);
    pg_conn_close(c);
    pg_conn_close(a.conn);
    pg_win_client_id_free(&a.id);
    pg_win_pipe_server_close(a.srv);
    CloseHandle(a.stop);
}

PG_TEST(accept_times_out_without_a_client) {
    char name[128], sddl[1024], me[PG_WIN_SID_STR_MAX];
    unique_name(name, sizeof name, "timeout");
    REQUIRE(sddl_for_me(sddl, sizeof sddl, me) == PG_OK);
    acceptor a = {.timeout_ms = 300};
    pg_error e;
    REQUIRE(pg_win_pipe_server_open(&a.srv, name, sddl, 0, &e) == PG_OK);
    accept_main(&a);
    CHECK_EQ_INT(a.rc, PG_E_TIMEOUT);
    CHECK(a.conn == NULL);
    CHECK(a.took_ms >= 250 && a.took_ms < 5000);
    pg_win_pipe_server_close(a.srv);
}

PG_TEST(bad_names_and_sddl_are_refused) {
    pg_win_pipe_server *s = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_win_pipe_server_open(&s, "pixelgate", "O:SYD:P", 0, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_pipe_server_open(&s, "\\\\host\\pipe\\pixelgate", "O:SYD:P", 0, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_pipe_server_open(&s, "\\\\.\\pipe\\", "O:SYD:P", 0, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_win_pipe_server_open(&s, "\\\\.\\pipe\\pg-bad-sddl", "not sddl", 0, &e), PG_E_BADINPUT);
    CHECK(s == NULL);
}
