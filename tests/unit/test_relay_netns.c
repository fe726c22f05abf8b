/* SPDX-License-Identifier: MIT */
/* Relay tests over the network. Run ONLY inside a network namespace that has
 * nothing but loopback (ctest: `unshare -n sh -c 'ip link set lo up; exec
 * test_relay_netns'`), so no packet can leave even if a check were wrong; the
 * first test fails loudly when that is not so.
 *
 * The fake server (tests/relay/fake_openai.py) decodes the PNG it receives and
 * answers from its pixels ("size: 64x48", "dominant colour: red"), so a right
 * answer proves the image arrived intact. Refusals are shown to happen before
 * any connection by the server's hit counters. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pg_relay.h"
#include "pg_test.h"
#include "pg_time.h"
#include "test_relay_util.h"

static const uint8_t RED[3] = {230, 20, 20}, BLUE[3] = {20, 20, 230};

static trl_server g_srv = {.pid = -1, .stdin_fd = -1};
static char g_sock[64];
static uint8_t *g_red, *g_blue;
static size_t g_red_len, g_blue_len;

static void stop_all(void) {
    trl_server_stop(&g_srv);
    if (g_sock[0]) unlink(g_sock);
}

static unsigned port(void) {
    if (g_srv.pid < 0) {
        snprintf(g_sock, sizeof g_sock, "/tmp/pg-relay-%d.sock", (int)getpid());
        if (trl_server_start(&g_srv, g_sock) == 0) atexit(stop_all);
        g_red = trl_make_png(64, 48, 48, RED, BLUE, 0, &g_red_len);    /* 3/4 red */
        g_blue = trl_make_png(64, 48, 16, RED, BLUE, 0, &g_blue_len);  /* 3/4 blue */
    }
    return g_srv.port;
}

static const char *url(const char *host, const char *mode) {
    static char buf[8][256];
    static int i;
    i = (i + 1) % 8;
    snprintf(buf[i], sizeof buf[i], "http://%s:%u/%s/v1/chat/completions", host, port(), mode);
    return buf[i];
}

static pg_endpoint ep_for(const char *u) {
    pg_endpoint ep = {.name = "vision", .kind = PG_EP_OPENAI, .url = u, .model = "fake-vl", .timeout_s = 10};
    return ep;
}

static const pg_dest_policy LOCAL = {.mode = PG_DEST_LOCAL_ONLY};
static const char *const NAMES[] = {"model.test=127.0.0.1", "dual.test=::1,127.0.0.1", "evil.test=10.0.0.1",
                                    "mixed.test=127.0.0.1,10.0.0.1", NULL};
static const pg_dest_policy LOCAL_FAKE_DNS = {.mode = PG_DEST_LOCAL_ONLY, .resolver = trl_resolver,
                                              .resolver_ctx = (void *)NAMES};

/* Registered first: everything below assumes it. */
PG_TEST(a_runs_in_a_network_namespace_with_only_loopback) {
    struct ifaddrs *ifs = NULL;
    REQUIRE(getifaddrs(&ifs) == 0);
    int other = 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
        if (strcmp(i->ifa_name, "lo") != 0) {
            fprintf(stderr, "interface %s exists: this binary must run under `unshare -n` (see relay.cmake)\n",
                    i->ifa_name);
            other++;
        }
    freeifaddrs(ifs);
    CHECK_EQ_INT(other, 0);
    if (other) {
        fprintf(stderr, "FATAL: not in a loopback-only network namespace; refusing to attempt refused destinations\n");
        exit(1);
    }
    REQUIRE(port() != 0);
    REQUIRE(g_red && g_blue);
}

PG_TEST(analyze_localhost_pixels_arrive_intact) {
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("localhost", "ok"));
    pg_err rc = pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "What is the dominant colour?", &a, &e);
    if (rc != PG_OK) fprintf(stderr, "%s\n", e.message);
    REQUIRE(rc == PG_OK);
    CHECK_STR(a, "size: 64x48\ndominant colour: red");
    free(a);
    REQUIRE(pg_relay_analyze(&ep, &LOCAL, g_blue, g_blue_len, "What is the dominant colour?", &a, &e) == PG_OK);
    CHECK_STR(a, "size: 64x48\ndominant colour: blue");
    free(a);
    char *stats = trl_http_get(port(), "/stats");
    REQUIRE(stats != NULL);
    CHECK(strstr(stats, "\"prompt\": \"What is the dominant colour?\"") != NULL);
    CHECK(strstr(stats, "\"model\": \"fake-vl\"") != NULL);
    CHECK(strstr(stats, "\"authorization\": \"\"") != NULL);
    free(stats);
}

PG_TEST(analyze_content_parts_and_api_key) {
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("127.0.0.1", "parts"));
    REQUIRE(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e) == PG_OK);
    CHECK_STR(a, "size: 64x48\ndominant colour: red"); /* the image part is dropped: only text comes back */
    free(a);
    ep = ep_for(url("127.0.0.1", "auth"));
    ep.api_key = "sekrit";
    REQUIRE(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e) == PG_OK);
    free(a);
    ep.api_key = "wrong";
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_UNREACHABLE);
    CHECK(strstr(e.message, "HTTP 401") && strstr(e.message, "bad api key"));
    ep.api_key = "a\r\nX-Injected: 1";
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
}

PG_TEST(analyze_over_a_unix_socket) {
    char *a = NULL;
    pg_error e;
    port();
    pg_endpoint ep = ep_for("http://localhost/ok/v1/chat/completions");
    ep.unix_socket = g_sock;
    pg_err rc = pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e);
    if (rc != PG_OK) fprintf(stderr, "%s\n", e.message);
    REQUIRE(rc == PG_OK);
    CHECK_STR(a, "size: 64x48\ndominant colour: red");
    free(a);
}

PG_TEST(refused_destinations_are_refused_before_connecting) {
    char *a = NULL;
    pg_error e;
    int before = trl_server_hits(port(), "ok");
    REQUIRE(before >= 0);
    /* local-only + a non-loopback literal */
    pg_endpoint ep = ep_for("http://10.0.0.1:8000/v1/chat/completions");
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "10.0.0.1") && strstr(e.message, "local-only"));
    CHECK(a == NULL);
    /* local-only + a name that resolves to a non-loopback address (injected
     * resolver: the DNS trick without DNS); the URL's port is our server's */
    ep = ep_for(url("evil.test", "ok"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL_FAKE_DNS, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    ep = ep_for(url("mixed.test", "ok"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL_FAKE_DNS, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    /* allowlist mode, origin not listed - although it is our live server */
    const char *allow[] = {"https://api.example.com"};
    pg_dest_policy al = {.mode = PG_DEST_ALLOWLIST, .allow_origins = allow, .n_allow_origins = 1};
    ep = ep_for(url("127.0.0.1", "ok"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &al, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "not on the allowlist") != NULL);
    /* allowlist names the origin by host name; the name is loopback: refused */
    char origin[64];
    snprintf(origin, sizeof origin, "http://localhost:%u", port());
    const char *allow_name[] = {origin};
    al.allow_origins = allow_name;
    ep = ep_for(url("localhost", "ok"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &al, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "literally") != NULL);
    /* other schemes are refused outright */
    ep = ep_for("ftp://127.0.0.1/x");
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    CHECK_EQ_INT(trl_server_hits(port(), "ok"), before); /* nothing reached the server */

    /* allowlist naming the loopback literal is honoured */
    snprintf(origin, sizeof origin, "http://127.0.0.1:%u", port());
    ep = ep_for(url("127.0.0.1", "ok"));
    REQUIRE(pg_relay_analyze(&ep, &al, g_red, g_red_len, "p", &a, &e) == PG_OK);
    CHECK(strstr(a, "dominant colour: red") != NULL);
    free(a);
}

PG_TEST(unresolvable_names_are_unreachable_without_a_connection) {
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for("http://pixelgate-relay-test.invalid:8000/v1/chat/completions");
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_UNREACHABLE);
    CHECK(strstr(e.message, "does not resolve") != NULL);
}

PG_TEST(connection_is_pinned_to_the_checked_address) {
    /* "model.test" does not resolve here; only our check's resolver knows it.
     * The request succeeds only if libcurl uses the address we checked. */
    struct addrinfo *res = NULL;
    CHECK(getaddrinfo("model.test", NULL, NULL, &res) != 0);
    if (res) freeaddrinfo(res);
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("model.test", "ok"));
    pg_err rc = pg_relay_analyze(&ep, &LOCAL_FAKE_DNS, g_red, g_red_len, "p", &a, &e);
    if (rc != PG_OK) fprintf(stderr, "%s\n", e.message);
    REQUIRE(rc == PG_OK);
    CHECK_STR(a, "size: 64x48\ndominant colour: red");
    free(a);
    /* every checked address is handed to libcurl (IPv6 in brackets): the
     * server listens on 127.0.0.1 only, so ::1 is refused and 127.0.0.1 works */
    ep = ep_for(url("dual.test", "ok"));
    rc = pg_relay_analyze(&ep, &LOCAL_FAKE_DNS, g_red, g_red_len, "p", &a, &e);
    if (rc != PG_OK) fprintf(stderr, "%s\n", e.message);
    CHECK_EQ_INT(rc, PG_OK);
    free(a);
}

PG_TEST(redirects_are_never_followed) {
    char *a = NULL;
    pg_error e;
    int trap = trl_server_hits(port(), "trap");
    pg_endpoint ep = ep_for(url("127.0.0.1", "redirect"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "HTTP 307") && strstr(e.message, "not followed"));
    CHECK(a == NULL);
    CHECK_EQ_INT(trl_server_hits(port(), "trap"), trap);
}

PG_TEST(response_size_cap_aborts_the_transfer) {
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("127.0.0.1", "huge"));
    ep.max_response_bytes = 65536;
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "65536-byte cap") != NULL);
    /* no Content-Length: the write callback must stop it */
    double t0 = pg_mono_ms();
    ep = ep_for(url("127.0.0.1", "hugestream"));
    ep.max_response_bytes = 100000;
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "100000-byte cap") != NULL);
    CHECK(pg_mono_ms() - t0 < 5000);
    /* default cap (1 MiB) against the 4 MiB body */
    ep = ep_for(url("127.0.0.1", "huge"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
    CHECK(a == NULL);
}

PG_TEST(slow_endpoint_times_out) {
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("127.0.0.1", "slow"));
    ep.timeout_s = 1;
    double t0 = pg_mono_ms();
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_TIMEOUT);
    double dt = pg_mono_ms() - t0;
    CHECK(dt >= 900 && dt < 5000);
    CHECK(strstr(e.message, "within 1 s") != NULL);
}

PG_TEST(http_errors_and_malformed_answers_are_errors) {
    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("127.0.0.1", "error500"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_UNREACHABLE);
    CHECK(strstr(e.message, "HTTP 500") && strstr(e.message, "model exploded"));
    ep = ep_for(url("127.0.0.1", "badjson"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "malformed JSON") != NULL);
    ep = ep_for(url("127.0.0.1", "notext"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "I cannot look at that") != NULL);
    ep = ep_for(url("127.0.0.1", "nosuchmode"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_UNREACHABLE);
    CHECK(strstr(e.message, "HTTP 404") != NULL);
    ep = ep_for(url("127.0.0.1", "ok"));
    ep.model = NULL;
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_BADINPUT);
    /* nothing listening: a closed loopback port */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    REQUIRE(bind(s, (struct sockaddr *)&sa, sizeof sa) == 0 && getsockname(s, (struct sockaddr *)&sa, &sl) == 0);
    close(s);
    char u[128];
    snprintf(u, sizeof u, "http://127.0.0.1:%u/v1/chat/completions", (unsigned)ntohs(sa.sin_port));
    ep = ep_for(u);
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_E_UNREACHABLE);
    CHECK(a == NULL);
}

/* ---- environment proxies ---------------------------------------------------------------- */

static const char *const PROXY_VARS[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                         "ALL_PROXY", NULL};

static int pending_connections(int lfd) {
    int n = 0;
    for (;;) {
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        if (poll(&p, 1, n == 0 ? 300 : 0) <= 0) break;
        int c = accept(lfd, NULL, NULL);
        if (c < 0) break;
        close(c);
        n++;
    }
    return n;
}

static size_t discard(char *d, size_t s, size_t n, void *u) {
    (void)d;
    (void)u;
    return s * n;
}

PG_TEST(environment_proxies_receive_nothing) {
    port();
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    REQUIRE(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 16) == 0 &&
            getsockname(lfd, (struct sockaddr *)&sa, &sl) == 0);
    char proxy[64];
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    for (int i = 0; PROXY_VARS[i]; i++) setenv(PROXY_VARS[i], proxy, 1);
    unsetenv("no_proxy");
    unsetenv("NO_PROXY");

    char *a = NULL;
    pg_error e;
    pg_endpoint ep = ep_for(url("model.test", "ok"));
    pg_err rc = pg_relay_analyze(&ep, &LOCAL_FAKE_DNS, g_red, g_red_len, "p", &a, &e);
    CHECK_EQ_INT(rc, PG_OK);
    free(a);
    ep = ep_for(url("localhost", "ok"));
    CHECK_EQ_INT(pg_relay_analyze(&ep, &LOCAL, g_red, g_red_len, "p", &a, &e), PG_OK);
    free(a);
    CHECK_EQ_INT(pending_connections(lfd), 0);

    /* Control: a plain libcurl request in the same environment does go to the
     * proxy, so the check above was able to fail. */
    CURL *h = curl_easy_init();
    REQUIRE(h != NULL);
    curl_easy_setopt(h, CURLOPT_URL, url("model.test", "ok"));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 500L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_perform(h);
    curl_easy_cleanup(h);
    CHECK(pending_connections(lfd) >= 1);

    for (int i = 0; PROXY_VARS[i]; i++) unsetenv(PROXY_VARS[i]);
    close(lfd);
}

/* ---- content judgement over HTTP -------------------------------------------------------- */

PG_TEST(judge_over_http_votes_from_the_pixels) {
    pg_judge_cache *c;
    pg_error e;
    REQUIRE(pg_judge_cache_new(&c, 16, &e) == PG_OK);
    pg_endpoint ep = ep_for(url("localhost", "judge"));
    pg_judge_result r;
    int hits = trl_server_hits(port(), "judge");
    pg_err rc = pg_relay_judge(&ep, &LOCAL, c, 1000, g_red, g_red_len, "the window is mostly red", 3, &r, &e);
    if (rc != PG_OK) fprintf(stderr, "%s\n", e.message);
    REQUIRE(rc == PG_OK);
    CHECK_EQ_INT(r.status, PG_CONTENT_MATCH);
    CHECK_EQ_INT(r.votes_match, 3);
    CHECK_STR(r.sample[0].reason, "the dominant colour is red");
    CHECK_EQ_INT(trl_server_hits(port(), "judge"), hits + 3);
    REQUIRE(pg_relay_judge(&ep, &LOCAL, c, 1000, g_blue, g_blue_len, "the window is mostly red", 3, &r, &e) == PG_OK);
    CHECK_EQ_INT(r.status, PG_CONTENT_MISMATCH);
    CHECK_STR(r.reason_code, "CONTENT_MISMATCH");
    CHECK_STR(r.sample[2].reason, "expected red, saw blue");
    REQUIRE(pg_relay_judge(&ep, &LOCAL, c, 1000, g_red, g_red_len, "a friendly font", 3, &r, &e) == PG_OK);
    CHECK_EQ_INT(r.status, PG_CONTENT_UNCERTAIN);
    CHECK_EQ_INT(trl_server_hits(port(), "judge"), hits + 9);
    /* the same question again: answered from the cache, nothing sent */
    REQUIRE(pg_relay_judge(&ep, &LOCAL, c, 1000, g_red, g_red_len, "the window is mostly red", 3, &r, &e) == PG_OK);
    CHECK(r.cached);
    CHECK_EQ_INT(r.status, PG_CONTENT_MATCH);
    CHECK_EQ_INT(trl_server_hits(port(), "judge"), hits + 9);
    /* another model behind the same URL is another endpoint */
    ep.model = "fake-vl-2";
    REQUIRE(pg_relay_judge(&ep, &LOCAL, c, 1000, g_red, g_red_len, "the window is mostly red", 3, &r, &e) == PG_OK);
    CHECK(!r.cached);
    pg_judge_cache_free(c);
}

PG_TEST(judge_over_http_failures_block) {
    pg_error e;
    pg_judge_result r;
    pg_endpoint ep = ep_for(url("127.0.0.1", "error500"));
    CHECK_EQ_INT(pg_relay_judge(&ep, &LOCAL, NULL, 1000, g_red, g_red_len, "red", 3, &r, &e), PG_E_UNREACHABLE);
    CHECK_EQ_INT(r.status, PG_CONTENT_BLOCKED);
    CHECK_STR(r.reason_code, "CONTENT_ENDPOINT_FAILED");
    CHECK_EQ_INT(r.failed_sample, 1);
    ep = ep_for(url("127.0.0.1", "ok")); /* answers, but without a VERDICT line */
    CHECK_EQ_INT(pg_relay_judge(&ep, &LOCAL, NULL, 1000, g_red, g_red_len, "red", 3, &r, &e), PG_E_BADINPUT);
    CHECK_STR(r.reason_code, "CONTENT_OUTPUT_INVALID");
    ep = ep_for(url("127.0.0.1", "redirect"));
    CHECK_EQ_INT(pg_relay_judge(&ep, &LOCAL, NULL, 1000, g_red, g_red_len, "red", 3, &r, &e), PG_E_POLICY);
    CHECK_STR(r.reason_code, "CONTENT_REFUSED");
    int hits = trl_server_hits(port(), "judge");
    ep = ep_for(url("evil.test", "judge"));
    CHECK_EQ_INT(pg_relay_judge(&ep, &LOCAL_FAKE_DNS, NULL, 1000, g_red, g_red_len, "red", 3, &r, &e), PG_E_POLICY);
    CHECK_STR(r.reason_code, "CONTENT_REFUSED");
    CHECK_EQ_INT(r.status, PG_CONTENT_BLOCKED);
    CHECK_EQ_INT(trl_server_hits(port(), "judge"), hits);
    ep = ep_for(url("127.0.0.1", "slow"));
    ep.timeout_s = 1;
    CHECK_EQ_INT(pg_relay_judge(&ep, &LOCAL, NULL, 1000, g_red, g_red_len, "red", 1, &r, &e), PG_E_TIMEOUT);
    CHECK_STR(r.reason_code, "CONTENT_TIMEOUT");
}
