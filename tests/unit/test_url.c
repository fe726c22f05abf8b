/* SPDX-License-Identifier: MIT */
/* pg_url.h: the one URL grammar of the policy and the relay. What it
 * accepts is what both accept; what it returns is what the relay dials. */
#include <stdio.h>
#include <string.h>

#include "pg_test.h"
#include "pg_url.h"

static bool parses(const char *s, pg_url *u) {
    pg_error e;
    return pg_url_parse(s, u, &e) == PG_OK;
}

PG_TEST(scheme_host_and_default_ports_come_out_canonical) {
    pg_url u;
    REQUIRE(parses("HTTP://LocalHost/v1/chat/completions", &u));
    CHECK_STR(u.host, "localhost");
    CHECK_EQ_INT(u.port, 80);
    CHECK(!u.https && u.kind == PG_URL_NAME);
    CHECK_STR(pg_url_scheme(&u), "http");
    CHECK_STR(u.origin, "http://localhost:80");
    CHECK_STR(u.path, "/v1/chat/completions");
    REQUIRE(parses("https://api.example.com", &u));
    CHECK_EQ_INT(u.port, 443);
    CHECK_STR(u.path, "/");
    CHECK_STR(u.origin, "https://api.example.com:443");
    REQUIRE(parses("http://[::1]:8080?x=1", &u));
    CHECK_STR(u.host, "::1");
    CHECK(u.kind == PG_URL_IPV6);
    CHECK_STR(u.origin, "http://[::1]:8080");
    CHECK_STR(u.path, "/?x=1");
    REQUIRE(parses("http://127.0.0.1:11434/v1/chat/completions", &u));
    CHECK(u.kind == PG_URL_IPV4);
    CHECK_EQ_INT(u.port, 11434);
    CHECK(u.addr[0] == 127 && u.addr[1] == 0 && u.addr[2] == 0 && u.addr[3] == 1);
}

PG_TEST(ipv6_literals_come_out_in_rfc5952_text_with_their_bytes) {
    static const struct {
        const char *in, *host;
    } cases[] = {
        {"http://[0:0:0:0:0:0:0:1]/", "::1"},
        {"http://[0::1]:8080/", "::1"},
        {"http://[2001:DB8:0:0:1:0:0:1]/", "2001:db8::1:0:0:1"}, /* the first of two equal runs */
        {"http://[2001:db8:0:1:1:1:1:1]/", "2001:db8:0:1:1:1:1:1"}, /* one zero word is not "::" */
        {"http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"},
        {"http://[::ffff:7f00:1]/", "::ffff:127.0.0.1"},
        {"http://[64:ff9b::10.0.0.1]/", "64:ff9b::a00:1"},
        {"http://[::]/", "::"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pg_url u;
        REQUIRE(parses(cases[i].in, &u));
        CHECK(u.kind == PG_URL_IPV6);
        CHECK_STR(u.host, cases[i].host);
    }
    pg_url u;
    REQUIRE(parses("http://[fd00::5]/", &u));
    static const uint8_t want[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    CHECK(memcmp(u.addr, want, 16) == 0);
}

/* Each is read another way by some parser in the chain, or is not a URL. */
PG_TEST(what_another_parser_could_read_differently_is_refused_with_a_reason) {
    static const struct {
        const char *url, *why;
    } cases[] = {
        {"ftp://127.0.0.1/", "scheme must be http or https"},
        {"file:///etc/passwd", "scheme must be http or https"},
        {"gopher://127.0.0.1:70/", "http or https"},
        {"127.0.0.1:11434/v1", "expected scheme://host"},
        {"http://user:pw@127.0.0.1/", "userinfo"},
        {"http://127.0.0.1@evil.example/", "userinfo"},
        {"http://127.0.0.1/#frag", "fragment"},
        {"http://127.0.0.1 /", "printable ASCII"},
        {"http://127.0.0.1\\@evil.example/", "backslash"},
        {"http://ex\xc3\xa4mple.com/", "printable ASCII"},
        {"http://%31%32%37.0.0.1/", "percent-encoding"},
        {"http://loc%61lhost/", "percent-encoding"},
        {"http://2130706433/", "dotted-quad"}, /* numeric forms inet_aton would take */
        {"http://127.1/", "dotted-quad"},
        {"http://0x7f.0.0.1/", "dotted-quad"},
        {"http://0x7f000001/", "dotted-quad"},
        {"http://0177.0.0.1/", "dotted-quad"},
        {"http://127.000.0.1/", "dotted-quad"},
        {"http://evil.example.0x1/", "dotted-quad"},
        {"http://[fe80::1%25eth0]/", "zone"},
        {"http://[::1/", "unterminated IPv6"},
        {"http://[::1]x/", "after the IPv6 literal"},
        {"http://[1:2:3:4:5:6:7:8:9]/", "invalid IPv6"},
        {"http://[1:2:3:4:5:6:7::8]/", "invalid IPv6"}, /* "::" standing for no group */
        {"http://[::ffff:01.2.3.4]/", "invalid IPv6"},
        {"http://[]/", "invalid IPv6"},
        {"http://localhost./", "trailing dot"},
        {"http://a..b/", "empty or over-long label"},
        {"http://-a.example/", "start or end with '-'"},
        {"http://a-.example/", "start or end with '-'"},
        {"http://my_box.example/", "letters, digits, '-' and '.'"},
        {"http://127.0.0.1:0/", "port must be a number 1..65535"},
        {"http://127.0.0.1:65536/", "port must be a number 1..65535"},
        {"http://127.0.0.1:/", "port must be a number"},
        {"http://127.0.0.1:80a/", "port must be a number"},
        {"http://[::1]:/", "port must be a number"},
        {"http:///v1", "no host"},
        {"http://", "no host"},
        {"http://:80/", "no host"},
        {"", "1..2047 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pg_url u;
        pg_error e;
        pg_err rc = pg_url_parse(cases[i].url, &u, &e);
        bool ok = rc == PG_E_BADINPUT && strstr(e.message, cases[i].why) != NULL;
        if (!ok) fprintf(stderr, "  '%s' -> %d \"%s\", expected \"%s\"\n", cases[i].url, (int)rc, rc ? e.message : "", cases[i].why);
        CHECK(ok);
    }
}

/* Where the policy's and the relay's parsers used to differ, the stricter
 * rule is the one rule: a 2048-character URL (the relay's limit), '_' and
 * a label edge '-' (the policy's host rules). */
PG_TEST(the_stricter_of_the_two_former_rules_holds) {
    char url[2100];
    int n = snprintf(url, sizeof url, "http://a/");
    memset(url + n, 'x', 2047 - (size_t)n);
    url[2047] = '\0';
    pg_url u;
    CHECK(parses(url, &u));
    CHECK_EQ_INT(strlen(u.path), 2047 - 8);
    url[2047] = 'x';
    url[2048] = '\0';
    CHECK(!parses(url, &u));
    CHECK(!parses("http://a_b.example/", &u));
    CHECK(!parses("http://a.-b.example/", &u));
    CHECK(parses("http://a-b.example/", &u));
}

PG_TEST(an_origin_is_a_url_with_nothing_after_its_port_but_one_slash) {
    pg_url u;
    REQUIRE(parses("https://x.example", &u));
    CHECK(pg_url_is_origin(&u));
    REQUIRE(parses("https://x.example:8443/", &u));
    CHECK(pg_url_is_origin(&u));
    REQUIRE(parses("https://x.example/v1", &u));
    CHECK(!pg_url_is_origin(&u));
    REQUIRE(parses("https://x.example?q", &u));
    CHECK(!pg_url_is_origin(&u));
    CHECK_STR(u.path, "/?q");
}

PG_TEST(loopback_is_127_8_the_v6_loopback_its_mapped_form_and_localhost_only) {
    static const char *const yes[] = {"http://127.0.0.1/", "http://127.9.8.7/", "http://[::1]/",
                                      "http://[::ffff:127.0.0.1]/", "http://LOCALHOST:8080/"};
    static const char *const no[] = {"http://10.0.0.1/", "http://[::2]/", "http://[::ffff:10.0.0.1]/",
                                     "http://[::127.0.0.1]/", "http://0.0.0.0/", "http://localhost.example.com/",
                                     "http://[64:ff9b::7f00:1]/"};
    pg_url u;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        REQUIRE(parses(yes[i], &u));
        if (!pg_url_is_loopback(&u)) fprintf(stderr, "  not loopback: %s\n", yes[i]);
        CHECK(pg_url_is_loopback(&u));
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        REQUIRE(parses(no[i], &u));
        if (pg_url_is_loopback(&u)) fprintf(stderr, "  loopback: %s\n", no[i]);
        CHECK(!pg_url_is_loopback(&u));
    }
}

/* What the relay dials (origin + path) reads back as the same URL. */
PG_TEST(the_canonical_form_parses_to_itself) {
    static const char *const in[] = {"HTTPS://Vision.Example.com/v1/chat/completions?x=1", "http://[0:0::1]:8080",
                                     "http://127.0.0.1?q", "https://[2001:DB8::1]/a/b"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        pg_url a, b;
        char canon[sizeof a.origin + sizeof a.path];
        REQUIRE(parses(in[i], &a));
        snprintf(canon, sizeof canon, "%s%s", a.origin, a.path);
        REQUIRE(parses(canon, &b));
        CHECK_STR(b.origin, a.origin);
        CHECK_STR(b.path, a.path);
        CHECK_STR(b.host, a.host);
    }
}
