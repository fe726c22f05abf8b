/* pg_args.h - SHIM: the command line as UTF-8 on every platform.
 *
 * Contract: on POSIX, pg_args_utf8 leaves argc/argv as they are (the bytes
 * the caller was given). On Windows, main()'s argv is in the ANSI code page,
 * which loses any character outside it (typed text, window titles), so it
 * rebuilds argv from GetCommandLineW as UTF-8 (CommandLineToArgvW's
 * quoting rules). The new vector lives until the process exits.
 * pg_fopen_utf8 opens a UTF-8 path (_wfopen on Windows, fopen elsewhere).
 * Returns 0, or -1 if the conversion failed (argv is then unchanged).
 */
#ifndef PG_ARGS_H
#define PG_ARGS_H

#include <stdio.h>

int pg_args_utf8(int *argc, char ***argv);
FILE *pg_fopen_utf8(const char *path, const char *mode);

#endif
