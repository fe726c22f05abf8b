/* SPDX-License-Identifier: MIT */
/* relay_testcmd_win.c - the fake analysis commands of tests/relay (the .sh files), as one
 * Windows program for the relay's command endpoints under Wine (test_relay.c,
 * Windows section). The first argument picks the behaviour:
 *   analyze          read stdin; answer "sha256=HEX endpoint=.. prompt=.. cwd=..
 *                    env=NAME,NAME,..," after a diagnostic line and blank lines
 *   say TEXT         read stdin; print TEXT
 *   exit N           read stdin; "the model server is down" on stderr; exit N
 *   silent           read stdin; print only blank lines
 *   flood            read stdin; print 5,000,000 'x' and a newline
 *   noread           print a verdict without reading stdin
 *   grandchild FILE  start "sleep" as a child, write its pid to FILE, sleep
 *   sleep            sleep for a minute
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"

static size_t slurp_stdin(uint8_t **out) {
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    size_t n = 0, cap = 65536;
    uint8_t *b = malloc(cap);
    DWORD r;
    while (b && ReadFile(in, b + n, (DWORD)(cap - n), &r, NULL) && r > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) break;
            b = nb;
            cap *= 2;
        }
    }
    *out = b;
    return n;
}

static void drain_stdin(void) {
    uint8_t *b;
    slurp_stdin(&b);
    free(b);
}

static const char *env_or_empty(const char *name) {
    const char *v = getenv(name);
    return v ? v : "";
}

/* Names of the whole environment, in the order the C runtime has them. */
static void print_env_names(void) {
    for (char **v = _environ; v && *v; v++) {
        const char *s = *v, *eq = strchr(s + 1, '='); /* "=C:=C:\" entries start with '=' */
        printf("%.*s,", eq ? (int)(eq - s) : (int)strlen(s), s);
    }
}

static int analyze(void) {
    uint8_t *b, d[PG_SHA256_LEN];
    size_t n = slurp_stdin(&b);
    char hex[2 * PG_SHA256_LEN + 1], cwd[MAX_PATH] = "?";
    pg_sha256(b, n, d, NULL);
    pg_hex(d, sizeof d, hex);
    GetCurrentDirectoryA(sizeof cwd, cwd);
    printf("diagnostic line that is not the answer\n");
    printf("sha256=%s endpoint=%s prompt=%s cwd=%s env=", hex, env_or_empty("PIXELGATE_ENDPOINT"),
           env_or_empty("PIXELGATE_PROMPT"), cwd);
    print_env_names();
    printf("\n   \n\n");
    free(b);
    return 0;
}

static int grandchild(const char *pidfile) {
    wchar_t self[MAX_PATH], cmd[MAX_PATH + 16];
    GetModuleFileNameW(NULL, self, MAX_PATH);
    swprintf(cmd, MAX_PATH + 16, L"\"%ls\" sleep", self);
    STARTUPINFOW si = {.cb = sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(self, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) return 2;
    FILE *f = fopen(pidfile, "w");
    if (f) {
        fprintf(f, "%lu\n", (unsigned long)pi.dwProcessId);
        fclose(f);
    }
    Sleep(60000);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "analyze")) return analyze();
    if (!strcmp(mode, "say") && argc > 2) {
        drain_stdin();
        printf("%s\n", argv[2]);
        return 0;
    }
    if (!strcmp(mode, "exit") && argc > 2) {
        drain_stdin();
        fprintf(stderr, "the model server is down\n");
        return atoi(argv[2]);
    }
    if (!strcmp(mode, "silent")) {
        drain_stdin();
        printf("\n  \n");
        return 0;
    }
    if (!strcmp(mode, "flood")) {
        drain_stdin();
        for (int i = 0; i < 5000; i++) printf("%01000d", 0);
        printf("\n");
        return 0;
    }
    if (!strcmp(mode, "noread")) {
        printf("VERDICT: MATCH - did not even look\n");
        return 0;
    }
    if (!strcmp(mode, "grandchild") && argc > 2) return grandchild(argv[2]);
    if (!strcmp(mode, "sleep")) {
        Sleep(60000);
        return 0;
    }
    fprintf(stderr, "relay_testcmd: unknown mode '%s'\n", mode);
    return 64;
}
