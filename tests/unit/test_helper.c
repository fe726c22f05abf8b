/* SPDX-License-Identifier: MIT */
/* test_helper: the session helper's protocol, both ends, on the fake desktop
 * (broker/platform/helper/pg_helper.h): the proxy over a socket pair to a
 * server thread. Primitives round-trip (windows, pixels, input); the server
 * answers only its allowlist; the proxy's window list keeps only what its
 * link trusts the helper for; a reply that breaks the protocol fails the
 * call and stops the helper; and the proxy's table agrees with
 * pg_platform.def. Windows runs the same proxy against its real helper
 * under Wine (test_win_helper). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pg_fake.h"
#include "pg_helper.h"
#include "pg_person.h"
#include "pg_platform_decl.h"
#include "pg_proto.h"
#include "pg_test.h"
#include "pg_time.h"

/* A setup step outside a test's body: its failure ends the run. */
#define MUST(cond)                                                                      \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: setup failed: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                    \
        }                                                                               \
    } while (0)

/* The link of these tests: one connection, no helper process behind it. */
typedef struct {
    pg_conn *conn;
    bool stopped;
    int64_t keep_pid; /* filter: only windows of this pid (0: all) */
} test_link;

static pg_err tl_ensure(void *ctx, pg_conn **conn, pg_error *e) {
    test_link *l = ctx;
    *conn = l->stopped ? NULL : l->conn;
    return l->stopped ? pg_error_set(e, PG_E_UNREACHABLE, "restart it", "helper stopped") : PG_OK;
}
static void tl_stop(void *ctx) { ((test_link *)ctx)->stopped = true; }
static bool tl_gone(void *ctx, char *why, size_t n) {
    snprintf(why, n, "stopped");
    return ((test_link *)ctx)->stopped;
}
static void tl_describe(void *ctx, char *out, size_t cap) {
    (void)ctx;
    snprintf(out, cap, "test link");
}
static void tl_filter(void *ctx, pg_window *w, size_t *n) {
    test_link *l = ctx;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (!l->keep_pid || w[i].pid == l->keep_pid) w[k++] = w[i];
    *n = k;
}
static void tl_free(void *ctx) {
    test_link *l = ctx;
    pg_conn_close(l->conn);
    free(l);
}
static const pg_helper_link_ops tl_ops = {tl_ensure, tl_stop, tl_gone, tl_describe, tl_filter, tl_free, "restart it"};

/* The proxy's open belongs to an OS shell; these tests make their proxies directly. */
pg_err pg_helper_link_open(pg_platform **out, const char *display, pg_error *e) {
    (void)display;
    *out = NULL;
    return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "not in this test");
}

/* The helper end: the fake desktop served until the connection closes. */
typedef struct {
    pg_conn *conn;
    pg_helper_server s;
    pthread_t thread;
} server;

static void *serve(void *arg) {
    server *sv = arg;
    pg_error e;
    while (pg_helper_serve_one(&sv->s, sv->conn, 10000, &e) == PG_OK) {}
    pg_conn_close(sv->conn);
    return NULL;
}

typedef struct {
    pg_platform *fake;
    pg_platform *proxy;
    test_link *link;
    server sv;
    uint64_t win, other;
} env;

static void env_up(env *v, const char *const *allow, size_t n_allow) {
    pg_error e;
    memset(v, 0, sizeof *v);
    MUST(pg_fake_ops.open(&v->fake, NULL, &e) == PG_OK);
    v->win = pg_fake_add_window(v->fake, "Form", "tk", 4242, 10, 10, 40, 30, 0x336699ff);
    v->other = pg_fake_add_window(v->fake, "Someone else's", "xterm", 777, 80, 10, 20, 20, 0xff0000ff);
    int sp[2];
    MUST(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
    v->link = calloc(1, sizeof *v->link);
    MUST(v->link && pg_conn_from_fd(&v->link->conn, sp[0], 10000, &e) == PG_OK);
    MUST(pg_conn_from_fd(&v->sv.conn, sp[1], 10000, &e) == PG_OK);
    v->sv.s = (pg_helper_server){.ops = &pg_fake_ops, .p = v->fake, .allow = allow, .n_allow = n_allow};
    MUST(pthread_create(&v->sv.thread, NULL, serve, &v->sv) == 0);
    MUST(pg_helper_proxy_new(&v->proxy, &tl_ops, v->link, 5000, &e) == PG_OK);
}

static void env_down(env *v) {
    pg_helper_ops()->close(v->proxy); /* closes our end: the server's read ends */
    pthread_join(v->sv.thread, NULL);
    pg_fake_ops.close(v->fake);
}

PG_TEST(proxy_table_agrees_with_the_declaration) {
    char why[2048];
    size_t n = pg_platform_conform(pg_helper_ops(), PG_BK_HELPER, NULL, why, sizeof why);
    if (n) printf("%s", why);
    CHECK_EQ_INT(n, 0);
}

PG_TEST(windows_pixels_and_input_round_trip) {
    env v;
    env_up(&v, NULL, 0);
    const pg_platform_ops *ops = pg_helper_ops();
    pg_error e;
    pg_window *w = NULL;
    size_t n = 0;
    REQUIRE(ops->list_windows(v.proxy, &w, &n, &e) == PG_OK);
    CHECK_EQ_INT(n, 2);
    free(w);
    pg_capture c;
    REQUIRE(ops->capture_window(v.proxy, v.win, NULL, &c, &e) == PG_OK);
    CHECK_EQ_INT(c.width, 40);
    CHECK_EQ_INT(c.height, 30);
    CHECK(c.rgba[0] == 0x33 && c.rgba[1] == 0x66 && c.rgba[2] == 0x99);
    free(c.rgba);
    CHECK_EQ_INT(ops->click(v.proxy, v.win, 5, 6, PG_BTN_LEFT, 1, &e), PG_OK);
    CHECK_EQ_INT(ops->key(v.proxy, v.win, "ctrl+a", &e), PG_OK);
    CHECK_EQ_INT(pg_fake_input_count(v.fake), 2);
    CHECK(strstr(pg_fake_input(v.fake, 0), "click") != NULL);
    CHECK_EQ_INT(ops->focus(v.proxy, 99999, &e), PG_E_NOTFOUND); /* the helper's error, as it is */
    CHECK(!v.link->stopped);                                      /* an error reply is no reason to stop it */
    env_down(&v);
}

PG_TEST(lists_keep_only_what_the_link_trusts) {
    env v;
    env_up(&v, NULL, 0);
    v.link->keep_pid = 4242;
    pg_error e;
    pg_window *w = NULL;
    size_t n = 0;
    REQUIRE(pg_helper_ops()->list_windows(v.proxy, &w, &n, &e) == PG_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(w[0].title, "Form");
    free(w);
    env_down(&v);
}

PG_TEST(the_server_answers_only_its_allowlist) {
    static const char *const allow[] = {"caps", "list_windows"};
    env v;
    env_up(&v, allow, 2);
    const pg_platform_ops *ops = pg_helper_ops();
    pg_error e;
    pg_window *w = NULL;
    size_t n = 0;
    CHECK_EQ_INT(ops->list_windows(v.proxy, &w, &n, &e), PG_OK);
    free(w);
    CHECK_EQ_INT(ops->click(v.proxy, v.win, 5, 6, PG_BTN_LEFT, 1, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "allowlist") != NULL);
    CHECK_EQ_INT(ops->type_text(v.proxy, v.win, "secret", &e), PG_E_POLICY);
    CHECK_EQ_INT(pg_fake_input_count(v.fake), 0); /* nothing reached the desktop */
    env_down(&v);
}

PG_TEST(unknown_and_malformed_requests_are_refused) {
    pg_error e;
    pg_platform *fake;
    REQUIRE(pg_fake_ops.open(&fake, NULL, &e) == PG_OK);
    pg_helper_server s = {.ops = &pg_fake_ops, .p = fake};
    static const char *const bad[] = {
        "{\"v\":1,\"id\":1,\"op\":\"exec\",\"args\":{}}",
        "{\"v\":1,\"id\":2,\"op\":\"click\",\"args\":{\"id\":1000}}",
        "{\"v\":1,\"id\":3,\"op\":\"capture_window\",\"args\":{\"id\":-1}}",
        "{\"v\":1,\"id\":4,\"op\":\"key\",\"args\":{\"id\":1000,\"chord\":7}}",
        "{\"v\":1,\"id\":5,\"op\":\"caps\",\"args\":{\"extra\":true}}",
        "{\"v\":1,\"op\":\"caps\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *req = cJSON_Parse(bad[i]);
        REQUIRE(req);
        pg_blob att;
        cJSON *reply = pg_helper_answer(&s, req, &att);
        REQUIRE(reply);
        CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(reply, "ok")));
        CHECK(att.data == NULL);
        cJSON_Delete(reply);
        cJSON_Delete(req);
    }
    CHECK_EQ_INT(pg_fake_input_count(fake), 0);
    pg_fake_ops.close(fake);
}

/* A "helper" that answers every request with the same reply. */
typedef struct {
    pg_conn *conn;
    const char *reply;
    size_t att_len;
} liar;

static void *lie(void *arg) {
    liar *l = arg;
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    pg_msg m;
    pg_error e;
    while (pg_proto_read(l->conn, &lim, &m, &e) == PG_OK) {
        pg_msg_fini(&m);
        cJSON *r = cJSON_Parse(l->reply);
        uint8_t *px = l->att_len ? calloc(1, l->att_len) : NULL;
        pg_blob att = {px, l->att_len};
        pg_proto_write(l->conn, r, &att, px ? 1 : 0, &e);
        free(px);
        cJSON_Delete(r);
    }
    pg_conn_close(l->conn);
    return NULL;
}

static pg_err against_liar(const char *reply, size_t att_len, bool *stopped, pg_error *e) {
    int sp[2];
    MUST(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == 0);
    test_link *tl = calloc(1, sizeof *tl);
    liar l = {.reply = reply, .att_len = att_len};
    MUST(tl && pg_conn_from_fd(&tl->conn, sp[0], 5000, e) == PG_OK);
    MUST(pg_conn_from_fd(&l.conn, sp[1], 5000, e) == PG_OK);
    pthread_t t;
    MUST(pthread_create(&t, NULL, lie, &l) == 0);
    pg_platform *p;
    MUST(pg_helper_proxy_new(&p, &tl_ops, tl, 5000, e) == PG_OK);
    pg_capture c = {0};
    pg_err rc = pg_helper_ops()->capture_window(p, 1000, NULL, &c, e);
    free(c.rgba);
    *stopped = tl->stopped;
    pg_helper_ops()->close(p);
    pthread_join(t, NULL);
    return rc;
}

PG_TEST(a_reply_that_breaks_the_protocol_stops_the_helper) {
    static const struct {
        const char *reply;
        size_t att;
    } lies[] = {
        /* stride * height is not the attachment's size */
        {"{\"v\":1,\"id\":1,\"ok\":true,\"result\":{\"width\":2,\"height\":2,\"stride\":8,\"method\":\"m\","
         "\"fallback\":\"\",\"origin_x\":0,\"origin_y\":0}}", 64},
        /* a side over the limit */
        {"{\"v\":1,\"id\":1,\"ok\":true,\"result\":{\"width\":99999,\"height\":1,\"stride\":399996,\"method\":\"m\","
         "\"fallback\":\"\",\"origin_x\":0,\"origin_y\":0}}", 16},
        /* another request's id */
        {"{\"v\":1,\"id\":7,\"ok\":true,\"result\":{}}", 0},
        /* invalid UTF-8 in a string */
        {"{\"v\":1,\"id\":1,\"ok\":true,\"result\":{\"width\":1,\"height\":1,\"stride\":4,\"method\":\"m\","
         "\"fallback\":\"\xc3\x28\",\"origin_x\":0,\"origin_y\":0}}", 4},
        /* an error code that does not exist */
        {"{\"v\":1,\"id\":1,\"ok\":false,\"error\":{\"code\":\"PWNED\",\"message\":\"x\"}}", 0},
    };
    for (size_t i = 0; i < sizeof lies / sizeof *lies; i++) {
        pg_error e;
        bool stopped = false;
        CHECK_EQ_INT(against_liar(lies[i].reply, lies[i].att, &stopped, &e), PG_E_INTERNAL);
        CHECK(stopped);
    }
}

/* ------------------------------------------------ the person's controls */

typedef bool (*seen_pred)(const pg_person_seen *s);
static bool one_press(const pg_person_seen *s) { return s->stop_presses == 1 && s->human_events >= 2; }
static bool two_presses(const pg_person_seen *s) { return s->stop_presses == 2; }
static bool tampered(const pg_person_seen *s) { return s->tampers == 1; }
static bool not_watching(const pg_person_seen *s) { return !s->watching; }

/* Until pred holds for what the broker's person says, bounded. */
static bool wait_seen(pg_person *person, seen_pred pred, pg_person_seen *s) {
    for (pg_deadline end = pg_deadline_in_ms(3000);; pg_sleep_ms(5)) {
        pg_person_read(person, s);
        if (pred(s)) return true;
        if (pg_deadline_passed(end)) return false;
    }
}

PG_TEST(watch_person_polls_what_the_helpers_backend_counted_into_the_brokers_person) {
    env v;
    env_up(&v, NULL, 0);
    pg_person *person = pg_person_new(NULL, NULL);
    pg_error e;
    pg_person_seen s;
    REQUIRE(pg_helper_ops()->watch_person(v.proxy, person, "Pause", &e) == PG_OK);
    pg_person_read(person, &s);
    CHECK(s.watching);
    CHECK_STR(s.stop_key, "Pause");
    CHECK_STR(pg_fake_input(v.fake, 0), "watch_person Pause (polled)");
    pg_person *far = pg_fake_polled_person(v.fake); /* the helper's side */
    REQUIRE(far != NULL);
    pg_person_activity(far, pg_mono_us());
    pg_person_stop_key(far, pg_mono_us());
    CHECK(wait_seen(person, one_press, &s));
    CHECK(s.last_human_us > 0);
    pg_person_stop_key(far, pg_mono_us()); /* each press arrives: the latch toggles per press */
    CHECK(wait_seen(person, two_presses, &s));
    pg_person_tamper(far, "keyboard removed");
    CHECK(wait_seen(person, tampered, &s));
    /* The helper stops answering: the broker's person says it is not watched, and why. */
    pg_fake_fail(v.fake, "person_poll", PG_E_UNSUPPORTED, 1000000);
    CHECK(wait_seen(person, not_watching, &s));
    CHECK(strstr(s.why_not, "fake") != NULL || s.why_not[0]);
    CHECK_EQ_INT(s.stop_presses, 2); /* what was seen stays seen */
    env_down(&v); /* stops the poller, bounded */
    pg_person_free(person);
}

PG_TEST(watch_person_fails_as_the_first_poll_does_and_indicate_is_forwarded) {
    static const char *const allow[] = {"list_windows", "indicate"};
    env v;
    env_up(&v, allow, 2);
    pg_person *person = pg_person_new(NULL, NULL);
    pg_error e;
    CHECK_EQ_INT(pg_helper_ops()->watch_person(v.proxy, person, "Pause", &e), PG_E_POLICY);
    pg_person_seen s;
    pg_person_read(person, &s);
    CHECK(!s.watching);
    pg_indicator how = {.window = v.win, .mode = PG_INDICATOR_BANNER};
    snprintf(how.user, sizeof how.user, "agent");
    CHECK_EQ_INT(pg_helper_ops()->indicate(v.proxy, &how, &e), PG_OK);
    unsigned calls = 0;
    const pg_indicator *shown = pg_fake_indicated(v.fake, &calls);
    CHECK_EQ_INT(shown->window, v.win); /* forwarded whole to the helper's backend */
    CHECK_EQ_INT(shown->mode, PG_INDICATOR_BANNER);
    CHECK_STR(shown->user, "agent");
    how.window = 0;
    CHECK_EQ_INT(pg_helper_ops()->indicate(v.proxy, &how, &e), PG_OK);
    CHECK_EQ_INT(pg_fake_indicated(v.fake, &calls)->window, 0);
    CHECK_EQ_INT(calls, 2);
    CHECK_EQ_INT(pg_fake_input_count(v.fake), 0); /* the sign is not input */
    env_down(&v);
    pg_person_free(person);
}
