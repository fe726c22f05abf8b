/* SPDX-License-Identifier: MIT */
/* pg_gendoc.h - what pg_gendoc's parts share: a growing string, file and
 * command reading, and the man pages (pg_gendoc_man.c) written from the
 * declarations, the real binaries' --help and docs/policy.md.
 * Never: installed; a build tool. Out of memory ends the tool (exit 9). */
#ifndef PG_GENDOC_H
#define PG_GENDOC_H

#include <stddef.h>

typedef struct {
    char *s;
    size_t n, cap;
} pg_gendoc_buf;

#if defined(__MINGW32__)
#define PG_GENDOC_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define PG_GENDOC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
void pg_gendoc_put(pg_gendoc_buf *b, const char *fmt, ...) PG_GENDOC_PRINTF(2, 3);
/* A whole file, NUL-terminated (malloc'd), or NULL. */
char *pg_gendoc_slurp(const char *path);
/* What a shell command prints on stdout (malloc'd), or NULL when it fails. */
char *pg_gendoc_run(const char *cmd);

/* pixelgate(1): every operation from its declaration, the client's own
 * commands and global options, exit codes from the error table. */
void pg_gendoc_man_client(pg_gendoc_buf *b);
/* pixelgated(8): the options as `pixelgated --help` prints them (help). */
void pg_gendoc_man_broker(pg_gendoc_buf *b, const char *help);
/* pixelgate-policy(5): docs/policy.md (its text) in roff. */
void pg_gendoc_man_policy(pg_gendoc_buf *b, const char *policy_md);
/* bash completion for pixelgate (pg_gendoc_completion.c). */
void pg_gendoc_completion_bash(pg_gendoc_buf *b);
/* zsh (share/zsh/vendor-completions/_pixelgate) and fish
 * (share/fish/vendor_completions.d/pixelgate.fish) completions, from the same declarations. */
void pg_gendoc_completion_zsh(pg_gendoc_buf *b);
void pg_gendoc_completion_fish(pg_gendoc_buf *b);

#endif
