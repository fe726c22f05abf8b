/* SPDX-License-Identifier: MIT */
/* The in-process broker of pg_broker_fixture.h. */
#include "pg_broker_fixture.h"
#include "pg_handlers.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_jsonptr.h"
#include "pg_policy.h"
#include "pg_proto.h"
#include "pg_test.h"

static const char *default_policy =
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\","
    "\"capture\":{\"deny_windows\":[\"^secret vault$\"]}}";

/* A process of another uid: root starts a child as nobody; anyone else uses
 * init (pid 1, root's). */
static int64_t foreign_process(void) {
    if (getuid() != 0) return 1;
    int ready[2];
    if (pipe(ready) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR); /* hold no pipe of the test runner's */
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(1);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* after setuid, which clears it: dies with the test */
        if (getppid() == 1) _exit(0);
        close(ready[0]);
        close(ready[1]); /* the parent reads EOF: the uid is dropped */
        pause();
        _exit(0);
    }
    close(ready[1]);
    char c;
    while (pid > 0 && read(ready[0], &c, 1) > 0) {
    }
    close(ready[0]);
    return pid > 0 ? pid : -1;
}

uint64_t pg_fx_noise_window(pg_fx *fx, uint32_t w, uint32_t h, uint8_t **px_out) {
    uint8_t *px = malloc((size_t)w * h * 4);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        px[4 * i] = (uint8_t)(s >> 56), px[4 * i + 1] = (uint8_t)(s >> 48), px[4 * i + 2] = (uint8_t)(s >> 40);
        px[4 * i + 3] = 255;
    }
    uint64_t id = pg_fake_add_window(fx->fake, "noise", "Noise", getpid(), 0, 0, w, h, 0xffffffff);
    pg_fake_set_pixels(fx->fake, id, px);
    *px_out = px;
    return id;
}

int64_t pg_fx_foreign_pid(pg_fx *fx) {
    if (fx->foreign_pid == 0) fx->foreign_pid = foreign_process();
    return fx->foreign_pid;
}

bool pg_fx_pid_user(int64_t pid, char out[64]) {
    char path[64], line[256];
    unsigned uid = 0;
    bool found = false;
    snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    while (!found && fgets(line, sizeof line, f)) found = sscanf(line, "Uid: %u", &uid) == 1;
    fclose(f);
    struct passwd *pw = found ? getpwuid(uid) : NULL;
    if (pw) snprintf(out, 64, "%s", pw->pw_name);
    return pw != NULL;
}

/* policy_json with every @SELF@ replaced by the account this process runs
 * as (malloc'd; NULL when out of memory or the account has no name). */
static char *with_self(const char *policy_json) {
    char self[64];
    if (!pg_fx_pid_user(getpid(), self)) return NULL;
    size_t n = 0;
    for (const char *q = policy_json; (q = strstr(q, "@SELF@")); q += 6) n++;
    char *out = malloc(strlen(policy_json) + n * strlen(self) + 1);
    if (!out) return NULL;
    char *w = out;
    for (const char *q = policy_json, *hit; *q; q = hit + 6) {
        if (!(hit = strstr(q, "@SELF@"))) hit = q + strlen(q);
        memcpy(w, q, (size_t)(hit - q)), w += hit - q;
        if (!*hit) break;
        w += sprintf(w, "%s", self);
    }
    *w = '\0';
    return out;
}

int pg_fx_init(pg_fx *fx, const char *policy_json) {
    memset(fx, 0, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/pg-fx.XXXXXX");
    if (!mkdtemp(fx->dir)) return perror("mkdtemp"), -1;
    char spool[300];
    snprintf(spool, sizeof spool, "%s/spool", fx->dir);
    mkdir(spool, 0700);
    snprintf(fx->audit_path, sizeof fx->audit_path, "%s/audit.jsonl", fx->dir);
    char *text = with_self(policy_json ? policy_json : default_policy);
    if (!text) return fprintf(stderr, "fixture policy: no name for this process's account\n"), -1;
    pg_policy *p = NULL;
    pg_error e;
    pg_err prc = pg_policy_parse(text, strlen(text), &p, &e);
    free(text);
    if (prc) return fprintf(stderr, "fixture policy: %s\n", e.message), -1;
    pg_broker_config cfg = {.policy = p, .policy_path = "(memory)", .state_dir = fx->dir, .spool_dir = spool,
                            .display = ":fake", .plat_ops = &pg_fake_ops, .handlers = pg_op_handlers, .memory_budget = 64u << 20,
                            .ttl_s = 3600, .self_uid = (uint32_t)getuid(), .self_pid = getpid()};
    if (pg_broker_init(&fx->b, &cfg, &e)) return fprintf(stderr, "fixture broker: %s\n", e.message), -1;
    pg_broker_open_platform(&fx->b);
    fx->fake = (pg_fake *)fx->b.plat;
    fx->peer = (pg_peer){.uid = (uint32_t)getuid(), .gid = (uint32_t)getgid(), .pid = getpid()};
    snprintf(fx->peer.user, sizeof fx->peer.user, "agent");
    snprintf(fx->peer.comm, sizeof fx->peer.comm, "test");
    return fx->fake ? 0 : -1;
}

void pg_fx_fini(pg_fx *fx) {
    pg_broker_fini(&fx->b);
    if (fx->foreign_pid > 1) {
        kill((pid_t)fx->foreign_pid, SIGKILL);
        waitpid((pid_t)fx->foreign_pid, NULL, 0);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", fx->dir);
}

/* Holds what the agent would see of a reply to the operation's field
 * declarations (common/pg_ops.def): the result, and the details the client
 * prints on stdout for a verdict or a timeout. Every handler test runs it, so
 * a field a handler adds without declaring it (name, JSON type, disclosure
 * class) fails the test that saw it. */
static void check_reply(const char *op, const pg_fx_reply *r) {
    const pg_opdecl *d = pg_opdecl_find(op);
    const cJSON *shown = r->result;
    if (!shown && (PG_ERR_IS_VERDICT(r->rc) || r->rc == PG_E_TIMEOUT)) shown = r->details;
    if (!d || !shown) return;
    pg_error e;
    if (pg_opdecl_check_reply(d, shown, &e) == PG_OK) return;
    fprintf(stderr, "reply check: %s\n", e.message);
    pg_test_side_failures++;
}

/* Keys whose string values are screen text wherever they occur in the
 * replies the tests see: a second opinion on broker/core/pg_untrusted.c's
 * rules, by name rather than by path, so a new reply (or a new place) that
 * carries such a value unmarked fails the test that saw it. */
static const char *const SCREEN_KEYS[] = {"title", "class", "instance", "text", "label", "answer", "closest",
                                          "text_read", "selected_text", "window_title", "window_class"};

static bool is_marked(const cJSON *reply, const char *ptr) {
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(reply, PG_REPLY_UNTRUSTED);
    for (const cJSON *p = u ? u->child : NULL; p; p = p->next)
        if (cJSON_IsString(p) && !strcmp(p->valuestring, ptr)) return true;
    return false;
}

static void check_marks_under(const char *op, const cJSON *reply, const cJSON *node, char *ptr, size_t n) {
    size_t keep = strlen(ptr), i = 0;
    for (const cJSON *m = node->child; m; m = m->next, i++) {
        bool ok = cJSON_IsArray(node) ? pg_jsonptr_push_index(ptr, n, i) : pg_jsonptr_push(ptr, n, m->string);
        if (!ok) continue;
        bool echo = m->string && !strcmp(m->string, "expect"); /* the caller's own words (assert control) */
        if ((cJSON_IsObject(m) || cJSON_IsArray(m)) && !echo) check_marks_under(op, reply, m, ptr, n);
        for (size_t k = 0; cJSON_IsString(m) && m->string && k < sizeof SCREEN_KEYS / sizeof *SCREEN_KEYS; k++)
            if (!strcmp(m->string, SCREEN_KEYS[k]) && !is_marked(reply, ptr)) {
                fprintf(stderr, "untrusted check: %s: %s (\"%s\") is not marked\n", op, ptr, m->valuestring);
                pg_test_side_failures++;
            }
        ptr[keep] = '\0';
    }
}

static void check_untrusted(const char *op, const pg_fx_reply *r) {
    char ptr[1024] = "";
    if (r->result) check_marks_under(op, r->result, r->result, ptr, sizeof ptr);
    if (r->details) check_marks_under(op, r->details, r->details, ptr, sizeof ptr);
}

pg_err pg_fx_call(pg_fx *fx, const char *op, const char *args_json, const pg_blob *att, size_t n_att,
                  pg_fx_reply *out) {
    memset(out, 0, sizeof *out);
    pg_error_clear(&out->e);
    cJSON *args = args_json ? cJSON_Parse(args_json) : NULL;
    if (args_json && !args) return out->rc = pg_error_set(&out->e, PG_E_USAGE, NULL, "test bug: bad JSON %s", args_json);
    cJSON *hdr = pg_proto_request_new(1, op, args);
    pg_msg msg = {.header = hdr};
    for (size_t i = 0; i < n_att && i < PG_PROTO_MAX_ATTACH; i++) msg.att[i] = att[i];
    msg.n_att = n_att;
    pg_request req;
    pg_call c = {.b = &fx->b, .peer = &fx->peer, .req = &req, .msg = &msg, .conn = fx->conn,
                 .policy = pg_broker_policy(&fx->b)};
    out->rc = pg_proto_parse_request(hdr, &req, &out->e);
    if (!out->rc) out->rc = pg_dispatch(&c, &out->e);
    pg_policy_free(c.policy);
    if (out->rc) cJSON_Delete(c.result);
    else out->result = c.result;
    if (out->rc) out->details = c.details;
    else cJSON_Delete(c.details);
    out->reply = c.reply_att;
    cJSON_Delete(hdr);
    check_reply(op, out);
    check_untrusted(op, out);
    return out->rc;
}

void pg_fx_reply_fini(pg_fx_reply *r) {
    cJSON_Delete(r->result);
    cJSON_Delete(r->details);
    free(r->reply.data);
    memset(r, 0, sizeof *r);
}

static const cJSON *body(const pg_fx_reply *r) { return r->result ? r->result : r->details; }

const char *pg_fx_str(const pg_fx_reply *r, const char *field) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body(r), field);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

double pg_fx_num(const pg_fx_reply *r, const char *field) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body(r), field);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

cJSON *pg_fx_audit(pg_fx *fx) {
    cJSON *arr = cJSON_CreateArray();
    FILE *f = fopen(fx->audit_path, "r");
    if (!f) return arr;
    char line[16384];
    while (fgets(line, sizeof line, f)) {
        cJSON *rec = cJSON_Parse(line);
        if (rec) cJSON_AddItemToArray(arr, rec);
    }
    fclose(f);
    return arr;
}

int pg_fx_audit_count(pg_fx *fx, const char *op, const char *outcome) {
    cJSON *all = pg_fx_audit(fx);
    int n = 0;
    const cJSON *rec;
    cJSON_ArrayForEach(rec, all) {
        const cJSON *o = cJSON_GetObjectItem(rec, "op"), *x = cJSON_GetObjectItem(rec, "outcome");
        if (cJSON_IsString(o) && !strcmp(o->valuestring, op) && cJSON_IsString(x) && !strcmp(x->valuestring, outcome))
            n++;
    }
    cJSON_Delete(all);
    return n;
}

int pg_fx_snapshot(pg_fx *fx, uint64_t id, char tok[32]) {
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)id);
    pg_fx_reply r;
    int rc = pg_fx_call(fx, "snapshot", args, NULL, 0, &r);
    if (!rc) snprintf(tok, 32, "%s", pg_fx_str(&r, "token"));
    else fprintf(stderr, "snapshot failed: %s\n", r.e.message);
    pg_fx_reply_fini(&r);
    return rc;
}
