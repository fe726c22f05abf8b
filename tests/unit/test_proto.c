/* SPDX-License-Identifier: MIT */
/* Wire protocol: framing round trips, caps enforced before allocation,
 * strict request shapes, truncated and malformed frames rejected. */
#include "pg_proto.h"
#include "pg_test.h"

static void limits(pg_proto_limits *l) { pg_proto_limits_default(l); }

static uint8_t *frame_of(const char *json, const pg_blob *att, size_t n, size_t *len) {
    cJSON *h = cJSON_Parse(json);
    uint8_t *buf = NULL;
    if (h) pg_proto_encode(h, att, n, &buf, len, NULL);
    cJSON_Delete(h);
    return buf;
}

PG_TEST(frame_round_trip_with_attachments) {
    pg_blob att[2] = {{(uint8_t *)"hello", 5}, {(uint8_t *)"", 0}};
    size_t len;
    uint8_t *buf = frame_of("{\"v\":1,\"id\":7,\"op\":\"ping\"}", att, 2, &len);
    REQUIRE(buf);
    pg_proto_limits l;
    limits(&l);
    pg_msg m;
    CHECK_EQ_INT(pg_proto_decode(buf, len, &l, &m, NULL), PG_OK);
    CHECK_EQ_INT(m.n_att, 2);
    CHECK(m.att[0].len == 5 && memcmp(m.att[0].data, "hello", 5) == 0);
    CHECK_EQ_INT(m.att[1].len, 0);
    pg_request r;
    CHECK_EQ_INT(pg_proto_parse_request(m.header, &r, NULL), PG_OK);
    CHECK_STR(r.op, "ping");
    CHECK_EQ_INT(r.id, 7);
    CHECK(cJSON_IsObject(r.args));
    pg_msg_fini(&m);
    free(buf);
}

PG_TEST(every_truncation_is_rejected_cleanly) {
    pg_blob att[1] = {{(uint8_t *)"abcdef", 6}};
    size_t len;
    uint8_t *buf = frame_of("{\"v\":1,\"id\":1,\"op\":\"x\",\"args\":{}}", att, 1, &len);
    REQUIRE(buf);
    pg_proto_limits l;
    limits(&l);
    for (size_t cut = 0; cut < len; cut++) {
        pg_msg m;
        pg_error e;
        pg_err rc = pg_proto_decode(buf, cut, &l, &m, &e);
        CHECK(rc != PG_OK);
        CHECK(m.header == NULL && m.n_att == 0);
    }
    pg_msg m;
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    CHECK_EQ_INT(pg_proto_decode(longer, len + 1, &l, &m, NULL), PG_E_BADINPUT);
    free(longer);
    free(buf);
}

PG_TEST(sizes_are_capped_before_allocation) {
    pg_proto_limits l;
    limits(&l);
    pg_msg m;
    pg_error e;
    /* A header claiming 4 GiB: refused from the 12-byte prefix alone. */
    uint8_t huge_header[12] = {'P', 'G', 'F', '1', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    CHECK_EQ_INT(pg_proto_decode(huge_header, 12, &l, &m, &e), PG_E_BADINPUT);
    uint8_t many_att[12] = {'P', 'G', 'F', '1', 0, 0, 0, 2, 0, 0, 0, 99};
    CHECK_EQ_INT(pg_proto_decode(many_att, 12, &l, &m, &e), PG_E_BADINPUT);
    uint8_t zero_header[12] = {'P', 'G', 'F', '1', 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(pg_proto_decode(zero_header, 12, &l, &m, &e), PG_E_BADINPUT);
    /* An attachment length over the cap, with no body behind it. */
    uint8_t att_over[12 + 2 + 4] = {'P', 'G', 'F', '1', 0, 0, 0, 2, 0, 0, 0, 1, '{', '}', 0xff, 0xff, 0xff, 0xff};
    CHECK_EQ_INT(pg_proto_decode(att_over, sizeof att_over, &l, &m, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "over the limit") != NULL);
    l.max_header = 10;
    size_t len;
    uint8_t *buf = frame_of("{\"v\":1,\"id\":1,\"op\":\"ping\"}", NULL, 0, &len);
    CHECK_EQ_INT(pg_proto_decode(buf, len, &l, &m, &e), PG_E_BADINPUT);
    free(buf);
}

PG_TEST(bad_magic_and_non_object_headers_rejected) {
    pg_proto_limits l;
    limits(&l);
    pg_msg m;
    uint8_t bad[14] = {'X', 'G', 'F', '1', 0, 0, 0, 2, 0, 0, 0, 0, '{', '}'};
    CHECK_EQ_INT(pg_proto_decode(bad, sizeof bad, &l, &m, NULL), PG_E_USAGE);
    uint8_t arr[14] = {'P', 'G', 'F', '1', 0, 0, 0, 2, 0, 0, 0, 0, '[', ']'};
    CHECK_EQ_INT(pg_proto_decode(arr, sizeof arr, &l, &m, NULL), PG_E_USAGE);
    uint8_t nul[14] = {'P', 'G', 'F', '1', 0, 0, 0, 2, 0, 0, 0, 0, '{', 0};
    CHECK_EQ_INT(pg_proto_decode(nul, sizeof nul, &l, &m, NULL), PG_E_USAGE);
}

/* The request parser on one header; e gets its message. */
static pg_err parse_req(const char *json, pg_error *e) {
    pg_request r;
    cJSON *h = cJSON_Parse(json);
    pg_error_clear(e);
    if (!h) return PG_E_INTERNAL; /* the test's own JSON is wrong: no case expects this */
    pg_err rc = pg_proto_parse_request(h, &r, e);
    cJSON_Delete(h);
    return rc;
}

PG_TEST(request_shape_is_strict) {
    pg_error e;
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"ping\",\"extra\":1}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":-1,\"op\":\"ping\"}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1.5,\"op\":\"ping\"}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"\"}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":7}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"ping\",\"args\":[]}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"id\":1,\"op\":\"ping\"}", &e), PG_E_USAGE);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":3,\"op\":\"caps\",\"args\":{\"a\":1}}", &e), PG_OK);
}

PG_TEST(version_major_refused_minor_accepted) {
    pg_error e;
    /* the same major: the integer every 1.x client sends, and any minor */
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"ping\"}", &e), PG_OK);
    CHECK_EQ_INT(parse_req("{\"v\":\"1.0\",\"id\":1,\"op\":\"ping\"}", &e), PG_OK);
    CHECK_EQ_INT(parse_req("{\"v\":\"1.1\",\"id\":1,\"op\":\"ping\"}", &e), PG_OK);
    CHECK_EQ_INT(parse_req("{\"v\":\"1.42\",\"id\":1,\"op\":\"ping\"}", &e), PG_OK);
    /* another major: BAD_INPUT naming the request's version and the broker's */
    CHECK_EQ_INT(parse_req("{\"v\":2,\"id\":1,\"op\":\"ping\"}", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "protocol 2.0") != NULL);
    CHECK(strstr(e.message, "1.1") != NULL);
    CHECK_EQ_INT(parse_req("{\"v\":\"2.3\",\"id\":1,\"op\":\"ping\"}", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "protocol 2.3") != NULL);
    CHECK(strstr(e.message, "speaks 1.1") != NULL);
    CHECK_EQ_INT(parse_req("{\"v\":0,\"id\":1,\"op\":\"ping\"}", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(parse_req("{\"v\":\"0.9\",\"id\":1,\"op\":\"ping\"}", &e), PG_E_BADINPUT);
    /* not a version at all: the request's shape is wrong */
    const char *bad[] = {"1.5", "\"1\"", "\"1.\"", "\".1\"", "\"1.x\"", "\"1.2.3\"", "\"\"", "\"+1.0\"",
                         "\"1.0 \"", "\"1234567890.0\"", "-1", "true", "null", "[1]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char json[96];
        snprintf(json, sizeof json, "{\"v\":%s,\"id\":1,\"op\":\"ping\"}", bad[i]);
        CHECK_EQ_INT(parse_req(json, &e), PG_E_USAGE);
        CHECK(strstr(e.message, "\"v\"") != NULL);
    }
}

PG_TEST(duplicate_keys_anywhere_are_bad_input) {
    pg_error e;
    CHECK_EQ_INT(parse_req("{\"v\":1,\"v\":1,\"id\":1,\"op\":\"ping\"}", &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "\"v\" twice in its header") != NULL);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"ping\",\"op\":\"caps\"}", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"snapshot\",\"args\":{\"window\":\"a\",\"window\":\"b\"}}", &e),
                 PG_E_BADINPUT);
    CHECK(strstr(e.message, "\"window\" twice in \"args\"") != NULL);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"snapshot\",\"args\":{\"region\":{\"x\":1,\"y\":2,\"x\":3}}}",
                             &e),
                 PG_E_BADINPUT);
    CHECK(strstr(e.message, "\"x\" twice in \"region\"") != NULL);
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"diff\",\"args\":{\"mask\":[{\"x\":1},{\"w\":1,\"w\":2}]}}", &e),
                 PG_E_BADINPUT);
    /* the same key in two different objects is no duplicate */
    CHECK_EQ_INT(parse_req("{\"v\":1,\"id\":1,\"op\":\"diff\",\"args\":{\"x\":{\"x\":1},\"mask\":[{\"x\":1},{\"x\":1}]}}",
                             &e),
                 PG_OK);
    /* a large object: sorted, not compared pairwise; one repeat among 5000 keys is found */
    size_t cap = 5000 * 16 + 128, n = 0;
    char *json = malloc(cap);
    CHECK(json != NULL);
    n += (size_t)snprintf(json + n, cap - n, "{\"v\":1,\"id\":1,\"op\":\"caps\",\"args\":{");
    for (int i = 0; i < 5000; i++) n += (size_t)snprintf(json + n, cap - n, "%s\"k%d\":1", i ? "," : "", i);
    snprintf(json + n, cap - n, "}}");
    CHECK_EQ_INT(parse_req(json, &e), PG_OK);
    snprintf(json + n, cap - n, ",\"k4321\":2}}");
    CHECK_EQ_INT(parse_req(json, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "\"k4321\" twice") != NULL);
    free(json);
}

PG_TEST(args_unknown_wrong_type_missing_duplicate) {
    static const pg_arg_spec spec[] = {
        {"window", PG_ARG_STRING, true}, {"x", PG_ARG_INT, false}, {"first", PG_ARG_BOOL, false}};
    const char *cases[][2] = {
        {"{\"window\":\"a\"}", "ok"},
        {"{\"window\":\"a\",\"x\":3,\"first\":true}", "ok"},
        {"{\"window\":\"a\",\"bogus\":1}", "unknown"},
        {"{\"window\":1}", "must be"},
        {"{\"window\":\"a\",\"x\":1.5}", "must be"},
        {"{\"x\":1}", "missing"},
        {"{\"window\":\"a\",\"window\":\"b\"}", "twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *a = cJSON_Parse(cases[i][0]);
        pg_error e;
        pg_err rc = pg_args_check(a, spec, 3, &e);
        if (!strcmp(cases[i][1], "ok")) CHECK_EQ_INT(rc, PG_OK);
        else {
            CHECK_EQ_INT(rc, PG_E_USAGE);
            CHECK(strstr(e.message, cases[i][1]) != NULL);
        }
        cJSON_Delete(a);
    }
}

PG_TEST(responses_round_trip) {
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "token", "cap:x");
    cJSON *ok = pg_proto_response_ok(5, res);
    const cJSON *out;
    CHECK_EQ_INT(pg_proto_parse_response(ok, 5, &out, NULL, NULL), PG_OK);
    CHECK_STR(cJSON_GetObjectItem(out, "token")->valuestring, "cap:x");
    CHECK_EQ_INT(pg_proto_parse_response(ok, 6, &out, NULL, NULL), PG_E_INTERNAL);
    cJSON_Delete(ok);
    pg_error e;
    pg_error_set(&e, PG_E_NOTFOUND, "look again", "no window matches \"%s\"", "foo");
    cJSON *err = pg_proto_response_err(9, &e, NULL);
    pg_error got;
    CHECK_EQ_INT(pg_proto_parse_response(err, 9, &out, NULL, &got), PG_E_NOTFOUND);
    CHECK_STR(got.message, "no window matches \"foo\"");
    CHECK_STR(got.recovery_tip, "look again");
    cJSON_Delete(err);
}

#ifndef _WIN32
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pg_time.h"

/* A slow-drip client: one valid frame (header and two attachments) sent in
 * seven parts, 300 ms apart. Each part alone comes well within the
 * connection's 1000 ms timeout; the frame as a whole takes 1800 ms. */
typedef struct {
    int fd;
    uint8_t *frame;
    size_t len;
} drip;

static void *drip_main(void *arg) {
    drip *d = arg;
    size_t hlen = (size_t)d->frame[4] << 24 | (size_t)d->frame[5] << 16 | (size_t)d->frame[6] << 8 | d->frame[7];
    size_t cut[] = {12, 12 + hlen, 16 + hlen, 21 + hlen, 25 + hlen, 27 + hlen, d->len};
    size_t from = 0;
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        if (i) pg_sleep_ms(300);
        if (send(d->fd, d->frame + from, cut[i] - from, MSG_NOSIGNAL) < 0) break;
        from = cut[i];
    }
    return NULL;
}

PG_TEST(a_slow_drip_client_cannot_stretch_one_frame_past_the_timeout) {
    pg_blob att[2] = {{(uint8_t *)"hello", 5}, {(uint8_t *)"world", 5}};
    drip d = {0};
    d.frame = frame_of("{\"v\":1,\"id\":9,\"op\":\"ping\"}", att, 2, &d.len);
    REQUIRE(d.frame);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    d.fd = sv[1];
    pg_conn *c = NULL;
    REQUIRE(pg_conn_from_fd(&c, sv[0], 1000, NULL) == PG_OK);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, drip_main, &d) == 0);
    pg_proto_limits l;
    limits(&l);
    pg_msg m;
    pg_error e;
    double t0 = pg_mono_ms();
    pg_err rc = pg_proto_read(c, &l, &m, &e);
    double dt = pg_mono_ms() - t0;
    CHECK_EQ_INT(rc, PG_E_TIMEOUT); /* one deadline for the whole frame */
    CHECK(dt < 1700);
    if (rc == PG_OK) pg_msg_fini(&m);
    pg_conn_close(c);
    pthread_join(t, NULL);
    close(sv[1]);
    free(d.frame);
}
#endif
