/* SPDX-License-Identifier: MIT */
/* The server's capacity rules (broker/core/pg_server.h) over socket pairs, with
 * a whole broker on the fake desktop behind it: busy is BUSY with the
 * request's own id and a clean end of stream, waiters are served when a
 * worker frees, per-user and outsider limits, one deadline per request, and
 * attachments only after admission. Nothing here asserts a duration. */
#include <sys/socket.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_server.h"
#include "pg_test.h"
#include "pg_time.h"

static const char *two_users =
    "{\"version\":1,\"clients\":{\"users\":[\"agent\",\"agent2\"]},\"expose_pixels\":\"analyze-only\"}";

/* Waits (bounded) until the server holds nothing: the previous test's workers are gone. */
static int server_idle(void) {
    for (int i = 0; i < 2000; i++) {
        pg_server_stats s;
        pg_server_get_stats(&s);
        if (!s.served && !s.waiting && !s.refusing) return 1;
        pg_sleep_ms(5);
    }
    return 0;
}

static void limits(unsigned max_conns, unsigned queue, uint32_t wait_ms, unsigned uid_served, unsigned outsiders) {
    pg_server_limits l;
    pg_server_limits_default(&l, max_conns);
    l.queue_max = queue;
    l.queue_wait_ms = wait_ms;
    l.uid_served_max = uid_served;
    l.uid_max = uid_served + queue;
    l.outsider_max = outsiders;
    l.io_timeout_ms = 2000;
    pg_server_configure(&l);
}

/* A client connection handed to the server as peer; returns the client end. */
static pg_conn *connect_as(pg_fx *fx, const char *user, uint32_t uid) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return NULL;
    pg_conn *server = NULL, *client = NULL;
    pg_error e;
    pg_conn_from_fd(&server, sv[0], 10000, &e);
    pg_conn_from_fd(&client, sv[1], 10000, &e);
    pg_peer p = fx->peer;
    snprintf(p.user, sizeof p.user, "%s", user);
    p.uid = uid;
    pg_server_start_worker(&fx->b, server, &p, 1);
    return client;
}

static pg_err send_req(pg_conn *c, uint64_t id, const char *op, size_t n_att) {
    cJSON *h = pg_proto_request_new(id, op, NULL);
    pg_blob att[2] = {{(uint8_t *)"ab", 2}, {(uint8_t *)"cd", 2}};
    pg_error e;
    pg_err rc = pg_proto_write(c, h, att, n_att, &e);
    cJSON_Delete(h);
    return rc;
}

/* Reads one answer: its code (PG_OK for a result), id and message. */
static pg_err answer(pg_conn *c, uint64_t *id, char msg[PG_ERR_MSG_MAX]) {
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    pg_msg m;
    pg_error e;
    msg[0] = 0;
    pg_err rc = pg_proto_read(c, &lim, &m, &e);
    if (rc) {
        snprintf(msg, PG_ERR_MSG_MAX, "%s", e.message);
        return rc == PG_E_UNREACHABLE ? (pg_err)-1 : rc; /* -1: end of stream */
    }
    const cJSON *jid = cJSON_GetObjectItem(m.header, "id");
    *id = cJSON_IsNumber(jid) ? (uint64_t)jid->valuedouble : 999999;
    const cJSON *res, *det;
    rc = pg_proto_parse_response(m.header, *id, &res, &det, &e);
    if (rc) snprintf(msg, PG_ERR_MSG_MAX, "%s", e.message);
    pg_msg_fini(&m);
    return rc;
}

static int at_eof(pg_conn *c) {
    uint64_t id;
    char msg[PG_ERR_MSG_MAX];
    return answer(c, &id, msg) == (pg_err)-1;
}

PG_TEST(a_refused_connection_reads_busy_with_its_own_request_id_then_a_clean_end) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    REQUIRE(server_idle());
    limits(1, 0, 1000, 1, 1);
    pg_conn *a = connect_as(&fx, "agent", fx.peer.uid); /* holds the only worker: sends nothing yet */
    pg_conn *b = connect_as(&fx, "agent", fx.peer.uid + 1);
    REQUIRE(a && b);
    CHECK_EQ_INT(send_req(b, 77, "ping", 0), PG_OK);
    uint64_t id = 0;
    char msg[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(answer(b, &id, msg), PG_E_BUSY);
    CHECK_EQ_INT(id, 77);
    CHECK(strstr(msg, "busy") != NULL);
    CHECK(at_eof(b)); /* shut down cleanly: end of stream, not a reset */
    CHECK_EQ_INT(send_req(a, 1, "ping", 0), PG_OK); /* the served one is unaffected */
    CHECK_EQ_INT(answer(a, &id, msg), PG_OK);
    pg_conn_close(a);
    pg_conn_close(b);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

PG_TEST(a_waiting_connection_is_served_when_a_worker_frees) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, two_users) == 0);
    REQUIRE(server_idle());
    limits(1, 4, 60000, 1, 1);
    pg_conn *a = connect_as(&fx, "agent", fx.peer.uid);
    pg_conn *b = connect_as(&fx, "agent2", fx.peer.uid + 1);
    REQUIRE(a && b);
    pg_server_stats s;
    pg_server_get_stats(&s);
    CHECK_EQ_INT(s.waiting, 1);
    CHECK_EQ_INT(send_req(b, 5, "ping", 0), PG_OK); /* written while it waits */
    uint64_t id;
    char msg[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(send_req(a, 1, "ping", 0), PG_OK);
    CHECK_EQ_INT(answer(a, &id, msg), PG_OK);
    pg_conn_close(a); /* frees the worker: it takes b */
    CHECK_EQ_INT(answer(b, &id, msg), PG_OK);
    CHECK_EQ_INT(id, 5);
    pg_conn_close(b);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

PG_TEST(a_waiter_past_its_deadline_is_answered_busy) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    REQUIRE(server_idle());
    limits(1, 4, 50, 1, 1);
    pg_conn *a = connect_as(&fx, "agent", fx.peer.uid);
    pg_conn *b = connect_as(&fx, "agent", fx.peer.uid + 1);
    REQUIRE(a && b);
    CHECK_EQ_INT(send_req(b, 9, "ping", 0), PG_OK);
    uint64_t id = 0;
    char msg[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(answer(b, &id, msg), PG_E_BUSY); /* a never frees its worker */
    CHECK_EQ_INT(id, 9);
    CHECK(strstr(msg, "may wait") != NULL);
    pg_conn_close(a);
    pg_conn_close(b);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

PG_TEST(one_user_cannot_take_every_worker_from_another) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, two_users) == 0);
    REQUIRE(server_idle());
    limits(2, 4, 60000, 1, 1);
    pg_conn *a1 = connect_as(&fx, "agent", fx.peer.uid);
    pg_conn *a2 = connect_as(&fx, "agent", fx.peer.uid); /* waits: agent is at its limit of one worker */
    pg_conn *b = connect_as(&fx, "agent2", fx.peer.uid + 1);
    REQUIRE(a1 && a2 && b);
    uint64_t id;
    char msg[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(send_req(b, 3, "ping", 0), PG_OK); /* served at once by the second worker */
    CHECK_EQ_INT(answer(b, &id, msg), PG_OK);
    pg_server_stats s;
    pg_server_get_stats(&s);
    CHECK_EQ_INT(s.waiting, 1);
    pg_conn_close(a1);
    CHECK_EQ_INT(send_req(a2, 4, "ping", 0), PG_OK);
    CHECK_EQ_INT(answer(a2, &id, msg), PG_OK);
    pg_conn_close(a2);
    pg_conn_close(b);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

PG_TEST(an_outsider_is_closed_after_its_refusal_and_outsiders_share_few_workers) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    REQUIRE(server_idle());
    limits(4, 4, 60000, 4, 1);
    pg_conn *o1 = connect_as(&fx, "outsider", fx.peer.uid + 4242);
    pg_conn *o2 = connect_as(&fx, "outsider2", fx.peer.uid + 4243); /* over the outsiders' share */
    REQUIRE(o1 && o2);
    uint64_t id;
    char msg[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(send_req(o2, 2, "ping", 0), PG_OK);
    CHECK_EQ_INT(answer(o2, &id, msg), PG_E_BUSY);
    CHECK(strstr(msg, "does not admit") != NULL);
    CHECK_EQ_INT(send_req(o1, 1, "ping", 1), PG_OK); /* an attachment it may not send: never read */
    CHECK_EQ_INT(answer(o1, &id, msg), PG_E_POLICY);
    CHECK(at_eof(o1)); /* closed after the admission refusal */
    pg_conn *a = connect_as(&fx, "agent", fx.peer.uid); /* an admitted user still gets a worker */
    CHECK_EQ_INT(send_req(a, 1, "ping", 0), PG_OK);
    CHECK_EQ_INT(answer(a, &id, msg), PG_OK);
    pg_conn_close(a);
    pg_conn_close(o1);
    pg_conn_close(o2);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

PG_TEST(attachments_are_read_only_for_image_arguments_of_an_admitted_request) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    REQUIRE(server_idle());
    limits(2, 2, 60000, 2, 1);
    pg_conn *a = connect_as(&fx, "agent", fx.peer.uid);
    uint64_t id;
    char msg[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(send_req(a, 6, "ping", 1), PG_OK); /* ping takes no image */
    CHECK_EQ_INT(answer(a, &id, msg), PG_E_BADINPUT);
    CHECK(strstr(msg, "limit 0") != NULL);
    CHECK(at_eof(a));
    pg_conn_close(a);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

/* A request header written as given (a repeated key survives: cJSON would keep only one). */
static pg_err send_raw(pg_conn *c, const char *json) {
    size_t n = strlen(json);
    uint8_t *f = malloc(12 + n);
    if (!f) return PG_E_INTERNAL;
    memcpy(f, "PGF1", 4);
    f[4] = (uint8_t)(n >> 24), f[5] = (uint8_t)(n >> 16), f[6] = (uint8_t)(n >> 8), f[7] = (uint8_t)n;
    memset(f + 8, 0, 4);
    memcpy(f + 12, json, n);
    pg_error e;
    pg_err rc = pg_conn_write_full(c, f, 12 + n, &e);
    free(f);
    return rc;
}

PG_TEST(the_server_refuses_repeated_keys_and_another_major_and_serves_a_newer_minor) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    REQUIRE(server_idle());
    limits(2, 2, 60000, 2, 1);
    static const struct {
        const char *json, *says;
        pg_err want;
    } cases[] = {
        {"{\"v\":\"1.9\",\"id\":1,\"op\":\"ping\"}", NULL, PG_OK},
        {"{\"v\":1,\"id\":2,\"op\":\"ping\",\"args\":{}}", NULL, PG_OK},
        {"{\"v\":2,\"id\":3,\"op\":\"ping\"}", "speaks protocol 2.0; this broker speaks 1.1", PG_E_BADINPUT},
        {"{\"v\":1,\"id\":4,\"op\":\"caps\",\"op\":\"ping\"}", "\"op\" twice in its header", PG_E_BADINPUT},
        {"{\"v\":1,\"id\":5,\"op\":\"snapshot\",\"args\":{\"screen\":true,\"region\":{\"x\":0,\"y\":0,"
         "\"w\":4,\"h\":4,\"w\":8}}}",
         "\"w\" twice in \"region\"", PG_E_BADINPUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pg_conn *a = connect_as(&fx, "agent", fx.peer.uid);
        REQUIRE(a != NULL);
        uint64_t id;
        char msg[PG_ERR_MSG_MAX];
        CHECK_EQ_INT(send_raw(a, cases[i].json), PG_OK);
        CHECK_EQ_INT(answer(a, &id, msg), cases[i].want);
        if (cases[i].says) CHECK(strstr(msg, cases[i].says) != NULL);
        pg_conn_close(a);
    }
    CHECK(server_idle());
    pg_fx_fini(&fx);
}

PG_TEST(a_request_that_stalls_midway_is_cut_off_by_its_one_deadline) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    REQUIRE(server_idle());
    limits(2, 2, 60000, 2, 1);
    pg_conn *a = connect_as(&fx, "agent", fx.peer.uid);
    REQUIRE(a);
    pg_error e;
    /* a prefix announcing 100 header bytes, then only 3 of them */
    const uint8_t part[] = {'P', 'G', 'F', '1', 0, 0, 0, 100, 0, 0, 0, 0, '{', '"', 'v'};
    CHECK_EQ_INT(pg_conn_write_full(a, part, sizeof part, &e), PG_OK);
    CHECK(at_eof(a)); /* the server gave up on it (io_timeout 2 s) and closed */
    pg_conn_close(a);
    CHECK(server_idle());
    pg_fx_fini(&fx);
}
