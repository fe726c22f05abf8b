/* SPDX-License-Identifier: MIT */
/* pg_utf8.h - SHIM: UTF-8 at the edges of the Windows API (command line,
 * file names, wide strings); plain pass-through on POSIX.
 *
 * Contract: on POSIX, pg_args_utf8 leaves argc/argv as they are (the bytes
 * the caller was given). On Windows, main()'s argv is in the ANSI code page,
 * which loses any character outside it (typed text, window titles), so it
 * rebuilds argv from GetCommandLineW as UTF-8 (CommandLineToArgvW's
 * quoting rules). The new vector lives until the process exits.
 * pg_fopen_utf8 opens a UTF-8 path (_wfopen on Windows, fopen elsewhere).
 * Returns 0, or -1 if the conversion failed (argv is then unchanged).
 */
#ifndef PG_UTF8_H
#define PG_UTF8_H

#include <stddef.h>
#include <stdio.h>
#include <wchar.h>

int pg_args_utf8(int *argc, char ***argv);
FILE *pg_fopen_utf8(const char *path, const char *mode);

#ifdef _WIN32
/* UTF-8 -> malloc'd UTF-16 with room for `extra` more wchar_ts after the
 * NUL-terminated string; *len (may be NULL) gets its length without the NUL.
 * NULL for invalid UTF-8 or no memory. */
wchar_t *pg_utf8_to_wide(const char *s, size_t extra, size_t *len);
/* UTF-16 -> malloc'd UTF-8; NULL on failure. */
char *pg_wide_to_utf8(const wchar_t *w);
#endif

#endif
