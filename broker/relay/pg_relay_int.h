/* SPDX-License-Identifier: MIT */
/* pg_relay_int.h - internals shared by the relay's source files (not API). */
#ifndef PG_RELAY_INT_H
#define PG_RELAY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef _WIN32
#include <winsock2.h> /* struct sockaddr_storage (Winsock; before windows.h) */
#include <ws2tcpip.h>
#else
#include <sys/socket.h>
#endif

#include "pg_error.h"
#include "pg_relay.h"

bool pg_relay_addr_equal(const struct sockaddr *a, const struct sockaddr_storage *b);

/* PNG signature + a well-formed IHDR first chunk with non-zero size. */
pg_err pg_relay_check_png(const uint8_t *png, size_t len, pg_error *e);

/* The resolved limits of an endpoint. */
uint32_t pg_relay_timeout_s(const pg_endpoint *ep);
uint32_t pg_relay_connect_timeout_s(const pg_endpoint *ep);
size_t pg_relay_max_response(const pg_endpoint *ep);

/* Why a request failed, finer than pg_err (for the judge's reason codes). */
typedef enum {
    PG_RF_NONE = 0,
    PG_RF_CONFIG,    /* bad endpoint description or arguments */
    PG_RF_REFUSED,   /* destination refused, redirect, unchecked address */
    PG_RF_MISSING,   /* command cannot be executed */
    PG_RF_COMMAND,   /* command exited non-zero / by a signal */
    PG_RF_ENDPOINT,  /* HTTP error status, connection failure */
    PG_RF_TIMEOUT,
    PG_RF_OUTPUT     /* over the cap, malformed, no text */
} pg_relay_fail;

/* expect (may be NULL) is passed to commands as PIXELGATE_EXPECT. fail may be
 * NULL. On success the answer has been through pg_relay_sanitize_text(). */
pg_err pg_relay_analyze_ex(const pg_endpoint *ep, const pg_dest_policy *pol, const uint8_t *png, size_t png_len,
                           const char *prompt, const char *expect, char **answer_text, pg_relay_fail *fail,
                           pg_error *e);
pg_err pg_relay_http_analyze(const pg_endpoint *ep, const pg_dest_policy *pol, const uint8_t *png, size_t png_len,
                             const char *prompt, char **answer_text, pg_relay_fail *fail, pg_error *e);
pg_err pg_relay_cmd_analyze(const pg_endpoint *ep, const uint8_t *png, size_t png_len, const char *prompt,
                            const char *expect, char **answer_text, pg_relay_fail *fail, pg_error *e);

/* Last non-empty line of s[0..n) (trailing blanks cut in place; leading
 * blanks of the line skipped); NULL if there is none. */
char *pg_relay_last_line(char *s, size_t n);
/* Printable-ASCII copy of the last 200 bytes of buf, for messages. */
void pg_relay_tail_text(const char *buf, size_t n, char *out, size_t outsz);


/* In place: invalid UTF-8 -> '?', C0/C1 controls other than \n and \t -> ' '
 * (removes terminal escapes); \r\n -> \n. */
void pg_relay_sanitize_text(char *s);

#endif
