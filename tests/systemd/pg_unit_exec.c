/* SPDX-License-Identifier: MIT */
/* pg_unit_exec - runs a command under the seccomp restrictions a systemd
 * unit would put on it, for a test machine where systemd is not PID 1
 * (tests/systemd/unit_sandbox.sh does the mounts, the user and the network
 * namespace; this does what needs seccomp):
 *
 *   pg_unit_exec [--families AF_UNIX,AF_INET,...]   RestrictAddressFamilies=
 *                [--syscalls FILE]                   SystemCallFilter= (allow list, one name a line)
 *                [--mdwe]                            MemoryDenyWriteExecute=yes
 *                [--probe-socket FAMILY]             instead of a command: try socket(FAMILY),
 *                                                    print "ok" or the errno name, exit 0 / 1
 *                -- CMD ARGS...
 *
 * The rules are systemd's (src/shared/seccomp-util.c, as documented in
 * systemd.exec(5)): socket() of a family not listed fails with
 * EAFNOSUPPORT; a system call outside the allow list fails with EPERM
 * (SystemCallErrorNumber's default is to kill; EPERM keeps a failure
 * readable in the test log); mmap of memory both writable and executable,
 * mprotect/pkey_mprotect adding PROT_EXEC and shmat with SHM_EXEC fail with
 * EPERM; other architectures' system calls are killed
 * (SystemCallArchitectures=native). NoNewPrivileges is set, as seccomp for
 * an unprivileged process requires and the unit says.
 * Never: a test of its own; it only applies what it is told.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <unistd.h>

static const struct {
    const char *name;
    int af;
} families[] = {{"AF_UNIX", AF_UNIX},       {"AF_INET", AF_INET},         {"AF_INET6", AF_INET6},
                {"AF_NETLINK", AF_NETLINK}, {"AF_PACKET", AF_PACKET},     {"AF_BLUETOOTH", AF_BLUETOOTH},
                {"AF_ALG", AF_ALG},         {"AF_VSOCK", AF_VSOCK},       {"AF_KEY", AF_KEY},
                {"AF_APPLETALK", AF_APPLETALK}};

static int family(const char *name) {
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (!strcmp(families[i].name, name)) return families[i].af;
    fprintf(stderr, "pg_unit_exec: unknown family %s\n", name);
    exit(2);
}

/* One rule with one comparison on argument arg (designated, so every field is set). */
static int rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg, enum scmp_compare op, scmp_datum_t a,
                scmp_datum_t b) {
    const struct scmp_arg_cmp c = {.arg = arg, .op = op, .datum_a = a, .datum_b = b};
    return seccomp_rule_add_array(ctx, action, nr, 1, &c);
}

/* RestrictAddressFamilies=LIST: every other family's socket() fails. */
static void restrict_families(scmp_filter_ctx ctx, const char *list) {
    bool allowed[AF_MAX] = {false};
    char *copy = strdup(list);
    for (char *t = strtok(copy, ", "); t; t = strtok(NULL, ", ")) allowed[family(t)] = true;
    free(copy);
    for (int af = 0; af < AF_MAX; af++)
        if (!allowed[af] && rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 0, SCMP_CMP_EQ, (scmp_datum_t)af, 0))
            exit(9);
    if (rule(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 0, SCMP_CMP_GE, AF_MAX, 0)) exit(9);
}

/* MemoryDenyWriteExecute=yes. */
static void deny_write_execute(scmp_filter_ctx ctx) {
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    if (rule(ctx, deny, SCMP_SYS(mmap), 2, SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC | PROT_WRITE) ||
        rule(ctx, deny, SCMP_SYS(mprotect), 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC) ||
        rule(ctx, deny, SCMP_SYS(pkey_mprotect), 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC) ||
        rule(ctx, deny, SCMP_SYS(shmat), 2, SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC))
        exit(9);
}

/* SystemCallFilter= as an allow list of names (unknown names are skipped,
 * as systemd skips what this kernel or architecture lacks). */
static void allow_only(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) exit(9);
    char name[128];
    int n = 0;
    while (fscanf(f, "%127s", name) == 1) {
        int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) continue;
        if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) == 0) n++;
    }
    fclose(f);
    if (n < 50 || seccomp_load(ctx) != 0) {
        fprintf(stderr, "pg_unit_exec: system call filter not loaded (%d names)\n", n);
        exit(9);
    }
    seccomp_release(ctx);
}

int main(int argc, char **argv) {
    const char *fams = NULL, *syscalls = NULL, *probe = NULL;
    bool mdwe = false;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--families") && i + 1 < argc) fams = argv[++i];
        else if (!strcmp(argv[i], "--syscalls") && i + 1 < argc) syscalls = argv[++i];
        else if (!strcmp(argv[i], "--probe-socket") && i + 1 < argc) probe = argv[++i];
        else if (!strcmp(argv[i], "--mdwe")) mdwe = true;
        else {
            fprintf(stderr, "usage: pg_unit_exec [--families LIST] [--syscalls FILE] [--mdwe] "
                            "(--probe-socket FAMILY | -- CMD ARGS...)\n");
            return 2;
        }
    }
    if (!probe && i + 1 >= argc) {
        fprintf(stderr, "pg_unit_exec: no command\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) { /* NoNewPrivileges=yes */
        perror("pg_unit_exec: PR_SET_NO_NEW_PRIVS");
        return 9;
    }
    /* Two filters, as systemd installs several: the strictest answer wins. */
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return 9;
    if (fams) restrict_families(ctx, fams);
    if (mdwe) deny_write_execute(ctx);
    if (seccomp_load(ctx) != 0) {
        fprintf(stderr, "pg_unit_exec: seccomp_load failed\n");
        return 9;
    }
    seccomp_release(ctx);
    if (syscalls) allow_only(syscalls);
    if (probe) {
        int fd = socket(family(probe), SOCK_DGRAM, 0);
        if (fd < 0 && errno == EPROTONOSUPPORT) fd = socket(family(probe), SOCK_STREAM, 0);
        int err = errno;
        printf("%s\n", fd >= 0 ? "ok" : err == EAFNOSUPPORT ? "EAFNOSUPPORT" : strerror(err));
        fflush(stdout);
        return fd >= 0 ? 0 : 1;
    }
    execvp(argv[i + 1], argv + i + 1);
    perror(argv[i + 1]);
    return 127;
}
