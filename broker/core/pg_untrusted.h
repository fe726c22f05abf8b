/* SPDX-License-Identifier: MIT */
/* pg_untrusted.h - which text of a reply came from the screen, said in the
 * reply itself, so that an agent (and pixelgate mcp, which wraps it between
 * delimiters) can hold it as data and never as instructions.
 *
 * What counts as screen text: every string a window's program or the
 * pixels chose: window titles, classes and instances wherever a window
 * object appears (any object with "id" and "title"), window_title and
 * window_class, OCR text and words, the closest run and the text read of a
 * text search, field reads and labels of layout and assert control, the
 * answer of analyze and the endpoint's words in judge. The rules are one
 * table in pg_untrusted.c, per operation or for every one; a rule is a
 * pattern of reference tokens where "*" is any one member (array index or
 * name) and "**" any run of members, none included.
 *
 * Contract: pg_untrusted_mark adds to a reply object (a result, or the
 * details of a failed call) the member "untrusted", the JSON Pointers (RFC
 * 6901, relative to that object) of each string the rules match, in
 * document order, and "untrusted_nonce", 32 lower-case hex digits (128 bits)
 * drawn from the OS CSPRNG for this reply alone, which the MCP front end puts
 * into the delimiters around that text. A reply with no screen text gets
 * neither member. The values themselves are never changed.
 * Never: marks a number, a boolean or null; reuses a nonce; adds members
 * when the random source fails (PG_E_INTERNAL: the dispatcher then answers
 * that, rather than unmarked screen text).
 */
#ifndef PG_UNTRUSTED_H
#define PG_UNTRUSTED_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>
#include "pg_error.h"

/* Adds "untrusted" and "untrusted_nonce" to reply (an object; anything else
 * is left alone) for the operation op (its wire name). */
pg_err pg_untrusted_mark(const char *op, cJSON *reply, pg_error *e);

/* Does the rule pattern (as in the table, where a token "*" is any one
 * member and "**" any run of them) match the pointer's tokens? For the
 * tests. n_tok tokens, unescaped. */
bool pg_untrusted_match(const char *pattern, const char *const *tok, size_t n_tok);

#endif
