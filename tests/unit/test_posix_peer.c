/* SPDX-License-Identifier: MIT */
/* Who a POSIX peer is (broker/os/posix/pg_posix_peer.c): whether it is a
 * remote driver, decided from what the peer cannot set, and whether a
 * window's process is the peer's. The rules run against a fake /proc and
 * session directory built here (the env), and once against this very
 * process and a child that renames itself; the account cache against a
 * driven clock and stamp, and once against the real databases. Linux only;
 * no root. */
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pg_posix_accounts.h"
#include "pg_posix_peer.h"
#include "pg_test.h"

#define NOSESSION 4294967295u

typedef struct {
    char root[64];
    char proc[96];
    char sessions[96];
    pg_posix_env env;
} fake;

static void fake_init(fake *f) {
    snprintf(f->root, sizeof f->root, "/tmp/pg-peer.XXXXXX");
    if (!mkdtemp(f->root)) abort();
    snprintf(f->proc, sizeof f->proc, "%s/proc", f->root);
    snprintf(f->sessions, sizeof f->sessions, "%s/sessions", f->root);
    mkdir(f->proc, 0755);
    mkdir(f->sessions, 0755);
    f->env = (pg_posix_env){f->proc, f->sessions, (uint32_t)getuid(), NULL};
}

static void fake_fini(fake *f) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", f->root);
}

static void put(const char *path, const char *text, mode_t mode) {
    unlink(path); /* a test may rewrite a 0444 file: only root could open it for writing */
    FILE *fp = fopen(path, "w");
    if (!fp) abort();
    fputs(text, fp);
    fclose(fp);
    chmod(path, mode);
}

/* One process as /proc shows it: stat (ppid, start time), status (the four
 * uids), comm, sessionid, cgroup. */
typedef struct {
    int pid, ppid;
    const char *comm;
    unsigned uid[4];
    unsigned sessionid;
    const char *cgroup;
    unsigned long long start; /* clock ticks after boot */
} proc_entry;

static void add_proc(fake *f, const proc_entry *p) {
    char dir[160], path[200], text[1024];
    snprintf(dir, sizeof dir, "%s/%d", f->proc, p->pid);
    mkdir(dir, 0755);
    int o = snprintf(text, sizeof text, "%d (%s) S %d", p->pid, p->comm, p->ppid);
    for (int i = 5; i <= 21; i++) o += snprintf(text + o, sizeof text - o, " 0");
    o += snprintf(text + o, sizeof text - o, " %llu", p->start);
    for (int i = 23; i <= 52; i++) o += snprintf(text + o, sizeof text - o, " 0");
    snprintf(text + o, sizeof text - o, "\n");
    snprintf(path, sizeof path, "%s/stat", dir);
    put(path, text, 0444);
    snprintf(text, sizeof text, "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nPPid:\t%d\nUid:\t%u\t%u\t%u\t%u\n",
             p->comm, p->ppid, p->uid[0], p->uid[1], p->uid[2], p->uid[3]);
    snprintf(path, sizeof path, "%s/status", dir);
    put(path, text, 0444);
    snprintf(text, sizeof text, "%s\n", p->comm);
    snprintf(path, sizeof path, "%s/comm", dir);
    put(path, text, 0644);
    snprintf(text, sizeof text, "%u", p->sessionid);
    snprintf(path, sizeof path, "%s/sessionid", dir);
    put(path, text, 0444);
    snprintf(path, sizeof path, "%s/cgroup", dir);
    put(path, p->cgroup ? p->cgroup : "0::/\n", 0444);
}

static void add_session(fake *f, unsigned id, const char *text, mode_t mode) {
    char path[160];
    snprintf(path, sizeof path, "%s/%u", f->sessions, id);
    put(path, text, mode);
}

#define ROOT_ALL(f) {(f)->env.trusted_uid, (f)->env.trusted_uid, (f)->env.trusted_uid, (f)->env.trusted_uid}
#define USER_ALL {51000, 51000, 51000, 51000}

/* pid 1 and a listening sshd, as on a host where init started sshd. */
static void base_tree(fake *f) {
    add_proc(f, &(proc_entry){1, 0, "systemd", ROOT_ALL(f), NOSESSION, NULL, 1});
    add_proc(f, &(proc_entry){300, 1, "sshd", ROOT_ALL(f), NOSESSION, NULL, 500});
}

static bool remote(fake *f, int pid) {
    char why[128] = "";
    bool r = pg_posix_remote(&f->env, pid, why, sizeof why);
    printf("     pid %d: %s (%s)\n", pid, r ? "remote" : "local", why);
    return r;
}

PG_TEST(a_peer_that_names_itself_sshd_stays_local) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    add_proc(&f, &(proc_entry){1000, 1, "bash", USER_ALL, NOSESSION, NULL, 900});
    add_proc(&f, &(proc_entry){1001, 1000, "sshd", USER_ALL, NOSESSION, NULL, 901});
    add_proc(&f, &(proc_entry){1002, 1000, "sshd-session", USER_ALL, NOSESSION, NULL, 902});
    CHECK(!remote(&f, 1001));
    CHECK(!remote(&f, 1002));
    /* a process named sshd whose uids are not all root's is not sshd either
     * (a setuid program started through a link named sshd) */
    add_proc(&f, &(proc_entry){1003, 1, "sshd", {51000, 0, 0, 0}, NOSESSION, NULL, 903});
    add_proc(&f, &(proc_entry){1004, 1003, "socat", USER_ALL, NOSESSION, NULL, 904});
    CHECK(!remote(&f, 1004));
    fake_fini(&f);
}

PG_TEST(a_client_under_a_root_sshd_is_remote) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    /* sshd [priv] (root) -> sshd: user@pts/0 (the user) -> bash -> socat */
    add_proc(&f, &(proc_entry){400, 300, "sshd", ROOT_ALL(&f), 7, NULL, 600});
    add_proc(&f, &(proc_entry){401, 400, "sshd", USER_ALL, 7, NULL, 601});
    add_proc(&f, &(proc_entry){402, 401, "bash", USER_ALL, 7, NULL, 602});
    add_proc(&f, &(proc_entry){403, 402, "socat", USER_ALL, 7, NULL, 603});
    CHECK(remote(&f, 403));
    CHECK(remote(&f, 401)); /* ssh -L: the user's sshd process itself connects */
    fake_fini(&f);
}

PG_TEST(a_client_that_left_the_sshd_tree_is_remote_by_its_login_session) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    add_proc(&f, &(proc_entry){400, 300, "sshd", ROOT_ALL(&f), 7, NULL, 600});
    add_proc(&f, &(proc_entry){401, 400, "sshd", USER_ALL, 7, NULL, 601});
    /* setsid socat ... & : reparented to init, its audit session stays 7 */
    add_proc(&f, &(proc_entry){410, 1, "socat", USER_ALL, 7, NULL, 700});
    CHECK(remote(&f, 410));
    /* OpenSSH 9.8+: the per-connection process is sshd-session */
    add_proc(&f, &(proc_entry){500, 300, "sshd-session", ROOT_ALL(&f), 8, NULL, 800});
    add_proc(&f, &(proc_entry){510, 1, "socat", USER_ALL, 8, NULL, 801});
    CHECK(remote(&f, 510));
    fake_fini(&f);
}

PG_TEST(an_sshd_started_from_a_local_session_does_not_make_that_session_remote) {
    fake f;
    fake_init(&f);
    add_proc(&f, &(proc_entry){1, 0, "systemd", ROOT_ALL(&f), NOSESSION, NULL, 1});
    /* root started the listener from local login session 5: it carries 5 */
    add_proc(&f, &(proc_entry){200, 1, "bash", ROOT_ALL(&f), 5, NULL, 100});
    add_proc(&f, &(proc_entry){300, 200, "sshd", ROOT_ALL(&f), 5, NULL, 500});
    /* a connection being authenticated: not a login session yet */
    add_proc(&f, &(proc_entry){301, 300, "sshd", ROOT_ALL(&f), 5, NULL, 501});
    add_proc(&f, &(proc_entry){600, 1, "pixelgate", USER_ALL, 5, NULL, 900});
    CHECK(!remote(&f, 600));
    fake_fini(&f);
}

PG_TEST(logind_records_decide_a_session_by_its_remote_flag) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    add_session(&f, 9, "UID=51000\nREMOTE=1\nSERVICE=sshd\nSCOPE=session-9.scope\n", 0644);
    add_session(&f, 10, "UID=51000\nREMOTE=0\nSERVICE=gdm-password\nSCOPE=session-10.scope\n", 0644);
    add_session(&f, 11, "UID=51000\nREMOTE=1\nSERVICE=sshd\n", 0666); /* writable by others: not believed */
    add_session(&f, 12, "UID=51000\nREMOTE=1\nSERVICE=sshd\nSCOPE=session-12.scope\n", 0644);
    add_proc(&f, &(proc_entry){700, 1, "socat", USER_ALL, 9, NULL, 900});
    add_proc(&f, &(proc_entry){701, 1, "pixelgate", USER_ALL, 10, NULL, 901});
    add_proc(&f, &(proc_entry){702, 1, "pixelgate", USER_ALL, 11, NULL, 902});
    /* no audit session (a kernel without audit), but in logind's scope 12 */
    add_proc(&f, &(proc_entry){703, 1, "socat", USER_ALL, NOSESSION,
                               "0::/user.slice/user-51000.slice/session-12.scope\n", 903});
    CHECK(remote(&f, 700));
    CHECK(!remote(&f, 701));
    CHECK(!remote(&f, 702));
    CHECK(remote(&f, 703));
    fake_fini(&f);
}

PG_TEST(a_peer_that_cannot_be_examined_counts_as_remote) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    CHECK(remote(&f, 4242)); /* no /proc entry: fail closed */
    fake_fini(&f);
}

/* ---- whose window is it ---- */

/* A process counts as the peer's only when all four uids are the peer's: a
 * setuid-root program the agent started (real uid the agent's, effective
 * root's) is not the agent's to drive. */
PG_TEST(a_process_is_the_peers_only_when_real_effective_saved_and_fs_uids_agree) {
    fake f;
    fake_init(&f);
    add_proc(&f, &(proc_entry){800, 1, "xterm", USER_ALL, NOSESSION, NULL, 10});
    add_proc(&f, &(proc_entry){801, 1, "setuid-gui", {51000, 0, 0, 0}, NOSESSION, NULL, 10});
    add_proc(&f, &(proc_entry){802, 1, "fsuid", {51000, 51000, 51000, 0}, NOSESSION, NULL, 10});
    add_proc(&f, &(proc_entry){803, 1, "dropped", {0, 51000, 51000, 51000}, NOSESSION, NULL, 10});
    CHECK(pg_posix_window_owned(&f.env, 0x4000001, 800, 51000));
    CHECK(!pg_posix_window_owned(&f.env, 0x4000002, 801, 51000));
    CHECK(!pg_posix_window_owned(&f.env, 0x4000003, 802, 51000));
    CHECK(!pg_posix_window_owned(&f.env, 0x4000004, 803, 51000));
    CHECK(!pg_posix_window_owned(&f.env, 0x4000005, 804, 51000)); /* no such process */
    fake_fini(&f);
}

static unsigned long long now_ticks(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    long hz = sysconf(_SC_CLK_TCK);
    return (unsigned long long)ts.tv_sec * (unsigned long long)hz + (unsigned long long)ts.tv_nsec / (1000000000ull / (unsigned long long)hz);
}

/* The display server remembers the pid that connected; if that process
 * exited and the agent got its pid, the window would pass for the agent's.
 * A process that started after the broker first saw the window (with that
 * pid) cannot be the one that made it. */
PG_TEST(a_reused_pid_does_not_inherit_a_window_seen_before_it_started) {
    fake f;
    fake_init(&f);
    add_proc(&f, &(proc_entry){900, 1, "victim-app", USER_ALL, NOSESSION, NULL, 50});
    CHECK(pg_posix_window_owned(&f.env, 0x5000001, 900, 51000)); /* first sight of the window */
    /* the victim's process exits; the agent's new process gets pid 900 */
    add_proc(&f, &(proc_entry){900, 1, "agent-tool", USER_ALL, NOSESSION, NULL, now_ticks() + 100000});
    CHECK(!pg_posix_window_owned(&f.env, 0x5000001, 900, 51000));
    /* the same window id from a new client with a new pid (an app restarted,
     * the server reusing its ids) is a new sighting, not a reuse */
    add_proc(&f, &(proc_entry){901, 1, "app-again", USER_ALL, NOSESSION, NULL, 60});
    CHECK(pg_posix_window_owned(&f.env, 0x5000001, 901, 51000));
    fake_fini(&f);
}

/* The real thing: a child of this process (not root's) renames itself
 * "sshd" with prctl(PR_SET_NAME) and connects; the broker's answer must be the one it
 * gives for this process itself (local here, unless the test runs inside
 * an SSH login, where both are remote). */
PG_TEST(a_real_peer_renamed_sshd_is_judged_like_its_parent) {
    char dir[] = "/tmp/pg-peer-sock.XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", dir);
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(lfd >= 0);
    REQUIRE(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 1) == 0);
    chmod(dir, 0755);
    chmod(sa.sun_path, 0777);
    pid_t child = fork();
    if (child == 0) {
        /* root may name its own processes anything and be believed (only
         * hiding remoteness matters): under root the child is nobody */
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(1);
        prctl(PR_SET_NAME, "sshd", 0, 0, 0);
        int c = socket(AF_UNIX, SOCK_STREAM, 0);
        if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof sa) != 0) _exit(1);
        char b;
        (void)!read(c, &b, 1); /* until the parent has looked */
        _exit(0);
    }
    REQUIRE(child > 0);
    int fd = accept(lfd, NULL, NULL);
    REQUIRE(fd >= 0);
    pg_peer p;
    pg_error e;
    CHECK_EQ_INT(pg_posix_peer_from_socket(fd, &p, &e), PG_OK);
    CHECK_STR(p.comm, "sshd");
    char why[128];
    bool parent_remote = pg_posix_remote(&pg_posix_env_system, getpid(), why, sizeof why);
    printf("     this process: %s (%s); the renamed child: %s (%s)\n", parent_remote ? "remote" : "local", why,
           p.remote ? "remote" : "local", p.remote_why);
    CHECK_EQ_INT(p.remote, parent_remote);
    CHECK_EQ_INT(pg_identity_remote(&p), parent_remote);
    close(fd);
    waitpid(child, NULL, 0);
    close(lfd);
    unlink(sa.sun_path);
    rmdir(dir);
}

/* ---- the walk's memory of local processes ---- */

/* A process found local is not read again while it lives (only root's own
 * code could make a root process above it an sshd, and ancestors never
 * join): here the fake tree turns the remembered shell's parent into a root
 * sshd, which a broker without the memory sees and one with it does not.
 * A pid reused by a new process (another start time) is walked afresh. */
PG_TEST(a_process_found_local_is_remembered_by_pid_and_start_time) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    add_proc(&f, &(proc_entry){500, 1, "login", ROOT_ALL(&f), NOSESSION, NULL, 30});
    add_proc(&f, &(proc_entry){600, 500, "bash", USER_ALL, NOSESSION, NULL, 40});
    add_proc(&f, &(proc_entry){700, 600, "pixelgate", USER_ALL, NOSESSION, NULL, 50});
    f.env.ancestry = pg_posix_ancestry_new();
    REQUIRE(f.env.ancestry != NULL);
    CHECK(!remote(&f, 700));
    add_proc(&f, &(proc_entry){500, 1, "sshd", ROOT_ALL(&f), NOSESSION, NULL, 30});
    add_proc(&f, &(proc_entry){701, 600, "pixelgate", USER_ALL, NOSESSION, NULL, 51});
    CHECK(!remote(&f, 701)); /* stopped at the remembered shell */
    pg_posix_ancestry *memory = f.env.ancestry;
    f.env.ancestry = NULL;
    CHECK(remote(&f, 701)); /* without the memory the walk reads 500 again */
    f.env.ancestry = memory;
    /* the shell exits and its pid goes to a shell of an SSH login */
    add_proc(&f, &(proc_entry){400, 300, "sshd", ROOT_ALL(&f), NOSESSION, NULL, 44});
    add_proc(&f, &(proc_entry){600, 400, "bash", USER_ALL, NOSESSION, NULL, 45});
    add_proc(&f, &(proc_entry){702, 600, "pixelgate", USER_ALL, NOSESSION, NULL, 52});
    CHECK(remote(&f, 702));
    pg_posix_ancestry_free(f.env.ancestry);
    fake_fini(&f);
}

/* A walk that found an sshd remembers nothing: the next peer under the
 * same shell is walked again and found remote again. */
PG_TEST(a_walk_that_finds_an_sshd_remembers_nothing) {
    fake f;
    fake_init(&f);
    base_tree(&f);
    add_proc(&f, &(proc_entry){400, 300, "sshd", ROOT_ALL(&f), NOSESSION, NULL, 600});
    add_proc(&f, &(proc_entry){402, 400, "bash", USER_ALL, NOSESSION, NULL, 602});
    add_proc(&f, &(proc_entry){403, 402, "socat", USER_ALL, NOSESSION, NULL, 603});
    f.env.ancestry = pg_posix_ancestry_new();
    REQUIRE(f.env.ancestry != NULL);
    CHECK(remote(&f, 403));
    CHECK(remote(&f, 403));
    CHECK(remote(&f, 402));
    pg_posix_ancestry_free(f.env.ancestry);
    fake_fini(&f);
}

/* ---- the account cache (pg_posix_accounts.c) ---- */

static pg_account account_of(const char *name, const char *groups, size_t len, size_t n) {
    pg_account a = {.known = true, .gid = 100, .n_groups = n, .groups_len = len};
    snprintf(a.name, sizeof a.name, "%s", name);
    a.groups = malloc(len);
    memcpy(a.groups, groups, len);
    return a;
}

/* An entry holds while the files it was read from are unchanged and it is
 * younger than the lifetime; a changed file or an older entry is asked
 * again, so removing a user from a group applies to the next connection. */
PG_TEST(an_account_entry_holds_only_while_its_files_are_unchanged_and_it_is_young) {
    pg_account_cache *c = pg_account_cache_new();
    REQUIRE(c != NULL);
    pg_accounts_stamp s1 = {{1, 2, 3}}, s2 = {{1, 2, 4}};
    pg_account a = account_of("agent", "agent\0pixelgate-agents", 23, 2), got;
    CHECK(!pg_account_cache_get(c, 1001, &s1, 5000, &got));
    pg_account_cache_put(c, 1001, &s1, 5000, &a);
    pg_account_free(&a); /* the cache keeps its own copy */
    REQUIRE(pg_account_cache_get(c, 1001, &s1, 5000 + PG_ACCOUNTS_TTL_MS - 1, &got));
    CHECK_STR(got.name, "agent");
    CHECK_EQ_INT(got.n_groups, 2);
    CHECK(got.groups_len == 23 && !memcmp(got.groups, "agent\0pixelgate-agents", 23));
    pg_account_free(&got);
    CHECK(!pg_account_cache_get(c, 1001, &s2, 5001, &got));                      /* a file changed */
    CHECK(!pg_account_cache_get(c, 1001, &s1, 5000 + PG_ACCOUNTS_TTL_MS, &got)); /* too old */
    CHECK(!pg_account_cache_get(c, 1001, &s1, 4999, &got));                      /* a clock before it */
    CHECK(!pg_account_cache_get(c, 1002, &s1, 5001, &got));                      /* another uid */
    pg_account_cache_free(c);
}

PG_TEST(a_full_account_cache_forgets_its_oldest_entry_and_replaces_a_uids_own) {
    pg_account_cache *c = pg_account_cache_new();
    REQUIRE(c != NULL);
    pg_accounts_stamp s = {{7}};
    pg_account got;
    for (uint32_t uid = 0; uid < PG_ACCOUNTS_SLOTS; uid++) {
        char name[16];
        snprintf(name, sizeof name, "u%u", (unsigned)uid);
        pg_account a = account_of(name, "g", 2, 1);
        pg_account_cache_put(c, uid, &s, 100 + uid, &a);
        pg_account_free(&a);
    }
    pg_account b = account_of("newer", "h", 2, 1);
    pg_account_cache_put(c, 5, &s, 200, &b); /* uid 5 again: its own slot */
    pg_account_cache_put(c, 999, &s, 201, &b); /* a new uid: uid 0's, the oldest */
    pg_account_free(&b);
    CHECK(!pg_account_cache_get(c, 0, &s, 300, &got));
    REQUIRE(pg_account_cache_get(c, 1, &s, 300, &got));
    CHECK_STR(got.name, "u1");
    pg_account_free(&got);
    REQUIRE(pg_account_cache_get(c, 5, &s, 300, &got));
    CHECK_STR(got.name, "newer");
    pg_account_free(&got);
    REQUIRE(pg_account_cache_get(c, 999, &s, 300, &got));
    CHECK_STR(got.groups, "h");
    pg_account_free(&got);
    pg_account_cache_free(c);
}

/* The real databases: this process's uid has the name and the primary
 * group's name that getpwuid and getgrgid give; a uid no database knows
 * gets its decimal name and no groups. Asked twice, the answers agree. */
PG_TEST(the_real_account_of_this_uid_has_its_name_and_primary_group) {
    pg_account a, b;
    REQUIRE(pg_posix_account(getuid(), &a));
    struct passwd *pw = getpwuid(getuid());
    REQUIRE(pw != NULL);
    CHECK(a.known);
    CHECK_STR(a.name, pw->pw_name);
    CHECK_EQ_INT(a.gid, pw->pw_gid);
    struct group *gr = getgrgid(pw->pw_gid);
    bool primary_listed = false;
    for (const char *g = a.groups; gr && g && g < a.groups + a.groups_len; g += strlen(g) + 1)
        primary_listed |= !strcmp(g, gr->gr_name);
    CHECK(!gr || primary_listed);
    REQUIRE(pg_posix_account(getuid(), &b));
    CHECK_STR(b.name, a.name);
    CHECK(b.groups_len == a.groups_len && (!a.groups_len || !memcmp(a.groups, b.groups, a.groups_len)));
    pg_account_free(&a);
    pg_account_free(&b);
    REQUIRE(pg_posix_account(3999999999u, &a));
    CHECK(!a.known);
    CHECK_STR(a.name, "3999999999");
    CHECK_EQ_INT(a.n_groups, 0);
    pg_account_free(&a);
}
