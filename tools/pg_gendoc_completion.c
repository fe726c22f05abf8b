/* SPDX-License-Identifier: MIT */
/* pg_gendoc completion-bash|zsh|fish: pixelgate's completions, from the same
 * declarations as its command line (common/pg_ops.def) and its own commands
 * and global options (client/pg_help.c), so it cannot offer what the client
 * would refuse. Completes: global options; command names (both words of
 * "assert changed"); each command's options; the values of enum options and
 * enum positionals (scroll's direction); file names where an argument names
 * a file (an image argument, or a meta of FILE, PATH or DIR); nothing where
 * the value is the user's to type (a regex, a token, a number). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pg_cli.h"
#include "pg_gendoc.h"
#include "pg_mcp.h"
#include "pg_opdecl.h"

/* An argument whose value is a file name the client reads or writes. */
static bool names_file(const pg_argdecl *a) {
    return a->type == PG_T_IMAGE ||
           (a->meta && (strstr(a->meta, "FILE") || strstr(a->meta, "PATH") || strstr(a->meta, "DIR")));
}

/* "left|middle|right" -> "left middle right" */
static void words_of(pg_gendoc_buf *b, const char *values) {
    for (const char *p = values; *p; p++) pg_gendoc_put(b, "%c", *p == '|' ? ' ' : *p);
}

/* The option words of a synopsis such as "--help, -h" or "--socket PATH". */
static void option_words(pg_gendoc_buf *b, const char *syn) {
    for (const char *p = syn; *p;) {
        size_t n = strcspn(p, " ,");
        if (*p == '-') pg_gendoc_put(b, " %.*s", (int)n, p);
        p += n;
        p += strspn(p, " ,");
    }
}

/* Is operation i the first whose command starts with its first word (so
 * "assert changed" stands for the assert family)? */
static bool first_of_its_word(size_t i) {
    const char *cli = pg_opdecls[i].cli;
    size_t n = strcspn(cli, " ");
    for (size_t j = 0; j < i; j++)
        if (strcspn(pg_opdecls[j].cli, " ") == n && !strncmp(pg_opdecls[j].cli, cli, n)) return false;
    return true;
}

/* Every command's first word, once ("assert" for the assert family), then
 * the client's own commands (run, mcp, help). */
static void first_words(pg_gendoc_buf *b) {
    for (size_t i = 0; i < PG_OPI_COUNT; i++)
        if (first_of_its_word(i))
            pg_gendoc_put(b, "%s%.*s", i ? " " : "", (int)strcspn(pg_opdecls[i].cli, " "), pg_opdecls[i].cli);
    for (size_t i = 0; i < pg_cli_n_extras; i++) {
        const char *w = pg_cli_extras[i].synopsis + strlen("pixelgate ");
        pg_gendoc_put(b, " %.*s", (int)strcspn(w, " "), w);
    }
}

/* The case branch of one operation: its options, then what a value or a
 * positional word completes to. */
static void op_branch(pg_gendoc_buf *b, const pg_opdecl *d) {
    pg_gendoc_put(b, "    \"%s\")\n        case $prev in\n", d->cli);
    for (size_t k = 0; k < d->n_args; k++) {
        const pg_argdecl *a = &d->args[k];
        if (!a->cli || a->type == PG_T_BOOL) continue;
        if (a->type == PG_T_ENUM && a->values) {
            pg_gendoc_put(b, "            %s) _pixelgate_words \"", a->cli);
            words_of(b, a->values);
            pg_gendoc_put(b, "\"; return ;;\n");
        } else if (names_file(a)) {
            pg_gendoc_put(b, "            %s) _pixelgate_files; return ;;\n", a->cli);
        } else {
            pg_gendoc_put(b, "            %s) return ;;\n", a->cli);
        }
    }
    pg_gendoc_put(b, "        esac\n        opts=\"--help");
    for (size_t k = 0; k < d->n_args; k++)
        if (d->args[k].cli) pg_gendoc_put(b, " %s", d->args[k].cli);
    pg_gendoc_put(b, "\"\n        vals=\"");
    bool files = false, first = true;
    for (size_t k = 0; k < d->n_args; k++) {
        const pg_argdecl *a = &d->args[k];
        if (a->cli) continue;
        if (a->type == PG_T_ENUM && a->values) {
            if (!first) pg_gendoc_put(b, " ");
            words_of(b, a->values);
            first = false;
        }
        files |= names_file(a);
    }
    pg_gendoc_put(b, "\"\n        files=%d\n        ;;\n", files ? 1 : 0);
}

/* The part bash and zsh share (zsh runs it under `emulate -L ksh`, with
 * COMP_WORDS and COMP_CWORD made from its words and CURRENT): which command
 * the line names, then what its current word completes to, through
 * _pixelgate_words WORDS and _pixelgate_files, each shell's own. */
static void shared_body(pg_gendoc_buf *b) {
    pg_gendoc_put(b, "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
                     "    local i=1 cmd opts vals files\n"
                     "    # the global options before the command\n"
                     "    while [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
                     "        case ${COMP_WORDS[i]} in\n"
                     "            --socket | --timeout) i=$((i + 2)) ;;\n"
                     "            -*) i=$((i + 1)) ;;\n"
                     "            *) break ;;\n"
                     "        esac\n"
                     "    done\n"
                     "    if [ \"$i\" -ge \"$COMP_CWORD\" ]; then\n"
                     "        case $prev in\n"
                     "            --socket) _pixelgate_files; return ;;\n"
                     "            --timeout) return ;;\n"
                     "        esac\n"
                     "        if [[ $cur == -* ]]; then _pixelgate_words \"");
    for (size_t i = 0; i < pg_cli_n_globals; i++) option_words(b, pg_cli_globals[i].synopsis);
    pg_gendoc_put(b, "\"; return; fi\n        _pixelgate_words \"");
    first_words(b);
    pg_gendoc_put(b, "\"\n        return\n    fi\n"
                     "    cmd=${COMP_WORDS[i]}\n"
                     "    case $cmd in\n");
    /* two-word groups: the second word, then the pair names the command */
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const char *cli = pg_opdecls[i].cli, *sp = strchr(cli, ' ');
        if (!sp) continue;
        size_t n = (size_t)(sp - cli);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strncmp(pg_opdecls[j].cli, cli, n) && pg_opdecls[j].cli[n] == ' ';
        if (seen) continue;
        pg_gendoc_put(b, "        %.*s)\n            if [ $((i + 1)) -eq \"$COMP_CWORD\" ]; then _pixelgate_words \"", (int)n,
                      cli);
        bool firstw = true;
        for (size_t j = i; j < PG_OPI_COUNT; j++)
            if (!strncmp(pg_opdecls[j].cli, cli, n) && pg_opdecls[j].cli[n] == ' ') {
                pg_gendoc_put(b, "%s%s", firstw ? "" : " ", pg_opdecls[j].cli + n + 1);
                firstw = false;
            }
        pg_gendoc_put(b, "\"; return; fi\n            cmd=\"%.*s ${COMP_WORDS[i + 1]}\" ;;\n", (int)n, cli);
    }
    pg_gendoc_put(b, "        help) _pixelgate_words \"");
    first_words(b);
    pg_gendoc_put(b, "\"; return ;;\n"
                     "    esac\n"
                     "    case $cmd in\n");
    for (size_t i = 0; i < PG_OPI_COUNT; i++) op_branch(b, &pg_opdecls[i]);
    pg_gendoc_put(b, "    run) opts=\"--help --check\" vals=\"-\" files=1 ;;\n"
                     "    mcp)\n        case $prev in --max-image | --tools | --exclude-tools) return ;; esac\n"
                     "        if [ \"$prev\" = --profile ]; then _pixelgate_words \"" PG_MCP_PROFILE_WORDS "\"; return; fi\n"
                     "        opts=\"--help --max-image --profile --tools --exclude-tools\" vals=\"\" files=0\n        ;;\n"
                     "    *) return ;;\n"
                     "    esac\n"
                     "    if [[ $cur == -* ]]; then _pixelgate_words \"$opts\"; return; fi\n"
                     "    if [ \"$files\" = 1 ]; then\n"
                     "        _pixelgate_files\n"
                     "        [ -n \"$vals\" ] && _pixelgate_words \"$vals\"\n"
                     "    elif [ -n \"$vals\" ]; then\n"
                     "        _pixelgate_words \"$vals\"\n"
                     "    fi\n"
                     "    return 0\n");
}

void pg_gendoc_completion_bash(pg_gendoc_buf *b) {
    pg_gendoc_put(b, "# SPDX-License-Identifier: MIT\n"
                     "# bash completion for pixelgate(1). Generated by tools/pg_gendoc (completion-bash) from\n"
                     "# common/pg_ops.def and client/pg_help.c; do not edit.\n\n"
                     "# Each adds its candidates to COMPREPLY.\n"
                     "_pixelgate_words() { mapfile -t -O \"${#COMPREPLY[@]}\" COMPREPLY < <(compgen -W \"$1\" -- \"$cur\"); }\n"
                     "_pixelgate_files() {\n"
                     "    compopt -o filenames 2>/dev/null\n"
                     "    mapfile -t -O \"${#COMPREPLY[@]}\" COMPREPLY < <(compgen -f -- \"$cur\")\n"
                     "}\n\n"
                     "_pixelgate() {\n"
                     "    COMPREPLY=()\n");
    shared_body(b);
    pg_gendoc_put(b, "}\n"
                     "complete -F _pixelgate pixelgate\n");
}

void pg_gendoc_completion_zsh(pg_gendoc_buf *b) {
    pg_gendoc_put(b, "#compdef pixelgate\n"
                     "# SPDX-License-Identifier: MIT\n"
                     "# zsh completion for pixelgate(1). Generated by tools/pg_gendoc (completion-zsh) from\n"
                     "# common/pg_ops.def and client/pg_help.c; do not edit. The same logic as the bash\n"
                     "# completion, run under ksh emulation; compadd and _files give the candidates.\n\n"
                     "_pixelgate_words() { emulate -L zsh; compadd -- ${=1}; }\n"
                     "_pixelgate_files() { emulate -L zsh; setopt $_comp_options; _files; }\n\n"
                     "_pixelgate() {\n"
                     "    emulate -L ksh\n"
                     "    local -a COMP_WORDS\n"
                     "    COMP_WORDS=(\"${words[@]}\")\n"
                     "    local COMP_CWORD=$((CURRENT - 1))\n");
    shared_body(b);
    pg_gendoc_put(b, "}\n\n"
                     "_pixelgate \"$@\"\n");
}

/* A fish single-quoted string: \ and ' escaped. */
static void fish_quoted(pg_gendoc_buf *b, const char *s) {
    pg_gendoc_put(b, "'");
    for (const char *p = s; *p; p++) pg_gendoc_put(b, "%s%c", (*p == '\\' || *p == '\'') ? "\\" : "", *p);
    pg_gendoc_put(b, "'");
}

/* One option of one command (cond: its -n condition) as a fish line. */
static void fish_option(pg_gendoc_buf *b, const char *cond, const pg_argdecl *a) {
    const char *name = a->cli;
    pg_gendoc_put(b, "complete -c pixelgate -n %s %s %s", cond, name[1] == '-' ? "-l" : "-s",
                  name + (name[1] == '-' ? 2 : 1));
    if (a->type == PG_T_BOOL) {
        /* a flag: no value */
    } else if (a->type == PG_T_ENUM && a->values) {
        pg_gendoc_put(b, " -x -a '");
        words_of(b, a->values);
        pg_gendoc_put(b, "'");
    } else if (names_file(a)) {
        pg_gendoc_put(b, " -r -F");
    } else {
        pg_gendoc_put(b, " -x");
    }
    if (a->help) {
        pg_gendoc_put(b, " -d ");
        fish_quoted(b, a->help);
    }
    pg_gendoc_put(b, "\n");
}

void pg_gendoc_completion_fish(pg_gendoc_buf *b) {
    pg_gendoc_put(b, "# SPDX-License-Identifier: MIT\n"
                     "# fish completion for pixelgate(1). Generated by tools/pg_gendoc (completion-fish) from\n"
                     "# common/pg_ops.def and client/pg_help.c; do not edit.\n\n"
                     "# The words before the one being completed, after the global options.\n"
                     "function __pixelgate_words\n"
                     "    set -l toks (commandline -opc)\n"
                     "    set -e toks[1]\n"
                     "    while set -q toks[1]\n"
                     "        switch $toks[1]\n"
                     "            case --socket --timeout\n"
                     "                set -e toks[1]\n"
                     "                set -q toks[1]; and set -e toks[1]\n"
                     "            case '-*'\n"
                     "                set -e toks[1]\n"
                     "            case '*'\n"
                     "                break\n"
                     "        end\n"
                     "    end\n"
                     "    string join \\n -- $toks\n"
                     "end\n\n"
                     "# No command yet.\n"
                     "function __pixelgate_none\n"
                     "    set -l w (__pixelgate_words)\n"
                     "    test (count $w) -eq 0\n"
                     "end\n\n"
                     "# Only the first word of a two-word command (or help) so far.\n"
                     "function __pixelgate_group -a g\n"
                     "    set -l w (__pixelgate_words)\n"
                     "    test (count $w) -eq 1; and test \"$w[1]\" = \"$g\"\n"
                     "end\n\n"
                     "# The command is c (\"click\", \"assert changed\").\n"
                     "function __pixelgate_is -a c\n"
                     "    set -l w (__pixelgate_words)\n"
                     "    set -l n (count (string split ' ' -- $c))\n"
                     "    test (count $w) -ge $n; or return 1\n"
                     "    set -l got (string join ' ' -- $w[1..$n])\n"
                     "    test \"$got\" = \"$c\"\n"
                     "end\n\n"
                     "complete -c pixelgate -e\n"
                     "# global options, then the commands\n");
    for (size_t i = 0; i < pg_cli_n_globals; i++) {
        const char *syn = pg_cli_globals[i].synopsis;
        const char *sp = strchr(syn, ' ');
        bool value = sp && sp[1] != '-' && syn[strcspn(syn, ",")] != ',';
        for (const char *p = syn; *p;) {
            size_t n = strcspn(p, " ,");
            if (*p == '-') {
                bool lng = p[1] == '-';
                pg_gendoc_put(b, "complete -c pixelgate -n __pixelgate_none %s %.*s", lng ? "-l" : "-s",
                              (int)n - (lng ? 2 : 1), p + (lng ? 2 : 1));
                if (value) pg_gendoc_put(b, "%s", strstr(syn, "PATH") ? " -r -F" : " -x");
                pg_gendoc_put(b, " -d ");
                fish_quoted(b, pg_cli_globals[i].help);
                pg_gendoc_put(b, "\n");
            }
            p += n;
            p += strspn(p, " ,");
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: after no command; pass 1: after help */
        const char *cond = pass ? "'__pixelgate_group help'" : "__pixelgate_none";
        for (size_t i = 0; i < PG_OPI_COUNT; i++) {
            const char *cli = pg_opdecls[i].cli;
            size_t n = strcspn(cli, " ");
            if (!first_of_its_word(i)) continue;
            pg_gendoc_put(b, "complete -c pixelgate -n %s -f -a '%.*s' -d ", cond, (int)n, cli);
            fish_quoted(b, cli[n] ? "a family of commands" : pg_opdecls[i].summary);
            pg_gendoc_put(b, "\n");
        }
        for (size_t i = 0; i < pg_cli_n_extras; i++) {
            const char *w = pg_cli_extras[i].synopsis + strlen("pixelgate ");
            pg_gendoc_put(b, "complete -c pixelgate -n %s -f -a '%.*s'\n", cond, (int)strcspn(w, " "), w);
        }
    }
    pg_gendoc_put(b, "\n# the second word of two-word commands\n");
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const char *cli = pg_opdecls[i].cli, *sp = strchr(cli, ' ');
        if (!sp) continue;
        pg_gendoc_put(b, "complete -c pixelgate -n '__pixelgate_group %.*s' -f -a '%s' -d ", (int)(sp - cli), cli,
                      sp + 1);
        fish_quoted(b, pg_opdecls[i].summary);
        pg_gendoc_put(b, "\n");
    }
    pg_gendoc_put(b, "\n# each command: its options, and what its words complete to (no file names unless one "
                     "names a file)\n");
    pg_gendoc_put(b, "complete -c pixelgate -n 'not __pixelgate_none' -l help -d 'help on this command'\n");
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        char cond[96];
        snprintf(cond, sizeof cond, "'__pixelgate_is \"%s\"'", d->cli);
        bool files = false;
        for (size_t k = 0; k < d->n_args; k++) {
            const pg_argdecl *a = &d->args[k];
            if (a->cli) {
                fish_option(b, cond, a);
                continue;
            }
            files |= names_file(a);
            if (a->type == PG_T_ENUM && a->values) {
                pg_gendoc_put(b, "complete -c pixelgate -n %s -f -a '", cond);
                words_of(b, a->values);
                pg_gendoc_put(b, "'\n");
            }
        }
        if (!files) pg_gendoc_put(b, "complete -c pixelgate -n %s -f\n", cond);
    }
    pg_gendoc_put(b, "complete -c pixelgate -n '__pixelgate_is run' -l check -d 'parse and check the script, run "
                     "nothing'\n"
                     "complete -c pixelgate -n '__pixelgate_is run' -a '-' -d 'the script on stdin'\n"
                     "complete -c pixelgate -n '__pixelgate_is mcp' -l max-image -x\n"
                     "complete -c pixelgate -n '__pixelgate_is mcp' -l profile -x -a '" PG_MCP_PROFILE_WORDS "'\n"
                     "complete -c pixelgate -n '__pixelgate_is mcp' -l tools -x\n"
                     "complete -c pixelgate -n '__pixelgate_is mcp' -l exclude-tools -x\n"
                     "complete -c pixelgate -n '__pixelgate_is mcp' -f\n"
                     "complete -c pixelgate -n '__pixelgate_is help' -f\n");
}
