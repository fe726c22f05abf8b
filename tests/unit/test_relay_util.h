/* SPDX-License-Identifier: MIT */
/* test_relay_util.h - helpers shared by the relay tests: PNG fixtures made
 * with libpng, the fake OpenAI-compatible server (tests/relay/fake_openai.py)
 * as a child process, a test-only HTTP GET, and a scripted resolver. */
#ifndef TEST_RELAY_UTIL_H
#define TEST_RELAY_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <sys/socket.h>
#endif

/* A w x h RGB PNG: the left `split` columns are (r1,g1,b1), the rest
 * (r2,g2,b2). noise != 0 adds deterministic noise to every byte (to defeat
 * compression, for big images). malloc'd; *len set. */
uint8_t *trl_make_png(uint32_t w, uint32_t h, uint32_t split, const uint8_t c1[3], const uint8_t c2[3], int noise,
                      size_t *len);

#ifndef _WIN32
typedef struct {
    pid_t pid;
    int stdin_fd;   /* closing it stops the server */
    unsigned port;
} trl_server;

/* Starts python3 tests/relay/fake_openai.py [--unix unix_path]; 0 on success. */
int trl_server_start(trl_server *s, const char *unix_path);
void trl_server_stop(trl_server *s);
#else
/* Windows (under Wine): the fake server runs on the Linux side, started by a
 * ctest fixture (tests/unit/relay.cmake) that writes its port to the file
 * named by PG_RELAY_FAKE_PORT_FILE. The port, or 0 (reason on stderr). */
unsigned trl_server_port_from_env(void);
#endif

/* GET http://127.0.0.1:port/path with libcurl (proxies off); malloc'd body
 * or NULL. */
char *trl_http_get(unsigned port, const char *path);
/* Number in "hits" for a mode in /stats (0 if none, -1 on error). */
int trl_server_hits(unsigned port, const char *mode);

/* Resolver for pg_dest_policy: ctx is a NULL-terminated array of
 * "name=addr1,addr2" strings. Unknown names do not resolve. */
int trl_resolver(void *ctx, const char *host, struct sockaddr_storage *out, int max);

/* Path of a file in tests/relay (static buffer). */
const char *trl_path(const char *file);

#endif
