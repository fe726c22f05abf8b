/* SPDX-License-Identifier: MIT */
/* Windows principals of the broker core (broker/os/win/pg_win_peer.c and the
 * pipe DACL's principals in pg_win_listener.c): policy names, the SID ->
 * uid table, groups as the policy sees them (each connection's own), the integrity rule for input,
 * and the process-token queries on this very process. Windows only (runs
 * under Wine, where every process has the same SID; the rule for other
 * users and higher integrity is exercised through the pure functions). */
#include <windows.h>

#include <string.h>

#include "pg_broker.h"
#include "pg_policy.h"
#include "pg_test.h"
#include "pg_win_listener.h"
#include "pg_win_peer.h"
#include "pg_win_sid.h"

#define USER_A "S-1-5-21-1004336348-1177238915-682003330-1001"
#define USER_B "S-1-5-21-1004336348-1177238915-682003330-1002"
#define USER_C "S-1-5-21-1004336348-1177238915-682003330-1003"

PG_TEST(policy_names_drop_only_local_domains) {
    char out[128];
    pg_win_policy_name("PC1\\agent", "PC1", out, sizeof out);
    CHECK_STR(out, "agent");
    pg_win_policy_name("pc1\\agent", "PC1", out, sizeof out); /* Windows names ignore case */
    CHECK_STR(out, "agent");
    pg_win_policy_name("BUILTIN\\Administrators", "PC1", out, sizeof out);
    CHECK_STR(out, "Administrators");
    pg_win_policy_name("NT AUTHORITY\\SYSTEM", "PC1", out, sizeof out);
    CHECK_STR(out, "SYSTEM");
    /* A domain account keeps its domain: it must never pass for local "agent". */
    pg_win_policy_name("CORP\\agent", "PC1", out, sizeof out);
    CHECK_STR(out, "CORP\\agent");
    pg_win_policy_name("PC10\\agent", "PC1", out, sizeof out);
    CHECK_STR(out, "PC10\\agent");
    pg_win_policy_name("agent", "PC1", out, sizeof out);
    CHECK_STR(out, "agent");
}

PG_TEST(integrity_rule_refuses_higher_and_unknown) {
    CHECK(pg_win_integrity_allows(0x2000, 0x2000));  /* medium -> medium */
    CHECK(pg_win_integrity_allows(0x3000, 0x2000));  /* high -> medium */
    CHECK(!pg_win_integrity_allows(0x2000, 0x3000)); /* medium -> high (an elevated app) */
    CHECK(!pg_win_integrity_allows(0x2000, 0x4000)); /* medium -> SYSTEM */
    CHECK(!pg_win_integrity_allows(0x1000, 0x2000)); /* low -> medium */
    CHECK(!pg_win_integrity_allows(0x2000, 0));      /* target level unreadable */
}

static pg_win_client_id client(const char *sid, const char *account, pg_win_group *groups, size_t n, uint32_t rid) {
    pg_win_client_id id = {.pid = GetCurrentProcessId(), .groups = groups, .n_groups = n, .integrity_rid = rid};
    snprintf(id.user_sid, sizeof id.user_sid, "%s", sid);
    snprintf(id.account, sizeof id.account, "%s", account);
    return id;
}

PG_TEST(one_uid_per_sid_and_groups_from_the_connections_token) {
    pg_win_group admins_enabled = {PG_WIN_SID_ADMINS, SE_GROUP_ENABLED};
    pg_win_group admins_deny_only = {PG_WIN_SID_ADMINS, SE_GROUP_USE_FOR_DENY_ONLY};
    pg_win_client_id a = client(USER_A, "CORP\\alice", &admins_deny_only, 1, 0x2000);
    pg_win_client_id b = client(USER_B, "CORP\\bob", &admins_enabled, 1, 0x3000);
    pg_peer pa, pb, pa2;
    pg_error e;
    CHECK_EQ_INT(pg_win_peer_from_client(&a, &pa, &e), PG_OK);
    CHECK_EQ_INT(pg_win_peer_from_client(&b, &pb, &e), PG_OK);
    CHECK_EQ_INT(pg_win_peer_from_client(&a, &pa2, &e), PG_OK);
    CHECK(pa.uid != pb.uid);
    CHECK_EQ_INT(pa.uid, pa2.uid);
    CHECK_STR(pa.user, "CORP\\alice");
    CHECK_STR(pa.sid, USER_A);
    CHECK_EQ_INT(pa.integrity_rid, 0x2000);
    /* A UAC-filtered administrator (deny-only Administrators) is not one. */
    CHECK(!pa.admin);
    CHECK(pb.admin);
    const char *groups[8];
    char buf[512];
    pg_principal p;
    pg_identity_principal(&pb, &p, groups, 8, buf, sizeof buf);
    CHECK(p.admin);
    CHECK_EQ_INT(p.n_groups, 1);
    if (p.n_groups == 1) CHECK_STR(p.groups[0], "Administrators");
    pg_identity_principal(&pa, &p, groups, 8, buf, sizeof buf);
    CHECK(!p.admin);
    CHECK_EQ_INT(p.n_groups, 0); /* deny-only groups never admit */
}

/* Two connections of one account, one through a UAC-filtered token
 * (Administrators deny-only) and one elevated: each is judged by its own
 * token. A filtered process must not pass for an administrator because an
 * elevated process of the same SID connected just before, nor an elevated
 * one lose its rights because a filtered one connected after. */
PG_TEST(each_connection_keeps_its_own_groups_not_the_latest_of_its_sid) {
    pg_win_group admins_enabled = {PG_WIN_SID_ADMINS, SE_GROUP_ENABLED};
    pg_win_group admins_deny_only = {PG_WIN_SID_ADMINS, SE_GROUP_USE_FOR_DENY_ONLY};
    pg_win_client_id filtered = client(USER_C, "CORP\\carol", &admins_deny_only, 1, 0x2000);
    pg_win_client_id elevated = client(USER_C, "CORP\\carol", &admins_enabled, 1, 0x3000);
    pg_peer pf, pe;
    pg_error e;
    REQUIRE(pg_win_peer_from_client(&filtered, &pf, &e) == PG_OK);
    REQUIRE(pg_win_peer_from_client(&elevated, &pe, &e) == PG_OK); /* connects after the filtered one */
    CHECK_EQ_INT(pf.uid, pe.uid); /* one account, one uid: tokens and approvals are shared */
    const char *groups[8];
    char buf[512];
    pg_principal p;
    pg_identity_principal(&pf, &p, groups, 8, buf, sizeof buf);
    CHECK(!p.admin);
    CHECK_EQ_INT(p.n_groups, 0);
    pg_peer pf2;
    REQUIRE(pg_win_peer_from_client(&filtered, &pf2, &e) == PG_OK); /* and another filtered one after */
    pg_identity_principal(&pe, &p, groups, 8, buf, sizeof buf);
    CHECK(p.admin);
    CHECK_EQ_INT(p.n_groups, 1);
}

PG_TEST(own_process_identity_and_ownership) {
    char sid[PG_WIN_SID_STR_MAX];
    uint32_t rid = 0;
    pg_error e;
    CHECK_EQ_INT(pg_win_process_identity(GetCurrentProcessId(), sid, &rid, &e), PG_OK);
    CHECK_EQ_INT(pg_win_sid_check(sid, &e), PG_OK);
    printf("this process: %s, integrity 0x%x\n", sid, (unsigned)rid);
    pg_win_client_id me = client(sid, "", NULL, 0, rid);
    pg_win_client_id other = client(USER_B, "CORP\\bob", NULL, 0, rid);
    pg_peer pme, pother;
    CHECK_EQ_INT(pg_win_peer_from_client(&me, &pme, &e), PG_OK);
    CHECK_EQ_INT(pg_win_peer_from_client(&other, &pother, &e), PG_OK);
    bool same = false;
    CHECK_EQ_INT(pg_identity_input_target(&(pg_window){.pid = GetCurrentProcessId()}, &pme, &same, &e), PG_OK);
    CHECK(same);
    CHECK_EQ_INT(pg_identity_input_target(&(pg_window){.pid = GetCurrentProcessId()}, &pother, &same, &e), PG_OK);
    CHECK(!same); /* another user's process */
    pg_peer nobody = pme;
    nobody.sid[0] = '\0'; /* a peer whose SID is unknown owns nothing */
    CHECK_EQ_INT(pg_identity_input_target(&(pg_window){.pid = GetCurrentProcessId()}, &nobody, &same, &e), PG_OK);
    CHECK(!same);
    /* A requester below the target's integrity is refused whatever the policy says. */
    pg_peer low = pme;
    low.integrity_rid = rid > 0x1000 ? 0x1000 : 0;
    if (rid > 0x1000) {
        CHECK_EQ_INT(pg_identity_input_target(&(pg_window){.pid = GetCurrentProcessId()}, &low, &same, &e), PG_E_POLICY);
        CHECK(strstr(e.message, "integrity") != NULL);
    }
}

PG_TEST(vanished_process_is_not_found) {
    char sid[PG_WIN_SID_STR_MAX];
    uint32_t rid;
    pg_error e;
    CHECK_EQ_INT(pg_win_process_identity(0x7ffffff0, sid, &rid, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_win_process_identity(-1, sid, &rid, &e), PG_E_NOTFOUND);
    pg_peer someone = {.uid = 0x10000, .integrity_rid = 0x3000};
    snprintf(someone.sid, sizeof someone.sid, "%s", USER_A);
    bool same = true;
    CHECK_EQ_INT(pg_identity_input_target(&(pg_window){.pid = 0x7ffffff0}, &someone, &same, &e), PG_E_NOTFOUND);
    CHECK(!same);
}

PG_TEST(pipe_dacl_principals_from_the_policy) {
    static const char text[] = "{\"version\":1,\"clients\":{\"users\":[\"*\",\"no-such-account-xyz\"],"
                               "\"groups\":[\"Administrators\"]},\"approvers\":[\"SYSTEM\"]}";
    pg_policy *p = NULL;
    pg_error e;
    CHECK_EQ_INT(pg_policy_parse(text, sizeof text - 1, &p, &e), PG_OK);
    if (!p) return;
    char sids[8][192];
    size_t n = 0;
    pg_win_listener_principals(p, sids, 8, &n);
    /* "*" -> Authenticated Users; the unknown account is left out (logged). */
    CHECK(n >= 2);
    bool au = false, ba = false;
    for (size_t i = 0; i < n; i++) {
        au |= !strcmp(sids[i], "S-1-5-11");
        ba |= !strcmp(sids[i], PG_WIN_SID_ADMINS);
        CHECK(strcmp(sids[i], "S-1-1-0") != 0); /* never Everyone */
    }
    CHECK(au);
    CHECK(ba);
    pg_policy_free(p);
}
