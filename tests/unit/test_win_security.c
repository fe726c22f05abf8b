/* SPDX-License-Identifier: MIT */
/* The Windows security rules Wine cannot enforce, tested as pure functions
 * (common/pg_win_sid.h, common/pg_win_acl.h, and the pipe's SDDL from
 * broker/os/win/pg_win_pipe_server.h): SID validation and comparison, the
 * admin/SYSTEM membership rule over a token's groups, the SDDL of the
 * broker's pipe (parsed back by
 * Windows and inspected ACE by ACE), and the policy file's ACL check over
 * many SDDL strings. Wine parses SDDL and compares SIDs like Windows does; it
 * only fails to enforce DACLs, which these tests never rely on.
 * Windows only (mingw build, runs under Wine).
 */
#include <windows.h>

#include <sddl.h>
#include <stdint.h>

#include "pg_test.h"
#include "pg_win_acl.h"
#include "pg_win_pipe_server.h"
#include "pg_win_sid.h"

#define USER_SID "S-1-5-21-1004336348-1177238915-682003330-1001"
#define SVC_SID "S-1-5-80-1913148863-3492339771-4165695881-2087618961-4109116736"
#define GOOD_FILE "O:BAG:SYD:PAI(A;;FA;;;SY)(A;;FA;;;BA)(A;;0x1200a9;;;BU)"
#define POLICY "C:\\ProgramData\\pixelgate\\policy.json"

/* --- SIDs --------------------------------------------------------------- */

PG_TEST(valid_sids_pass) {
    pg_error e;
    CHECK_EQ_INT(pg_win_sid_check(PG_WIN_SID_SYSTEM, &e), PG_OK);
    CHECK_EQ_INT(pg_win_sid_check(PG_WIN_SID_ADMINS, &e), PG_OK);
    CHECK_EQ_INT(pg_win_sid_check(PG_WIN_SID_TRUSTED_INSTALLER, &e), PG_OK);
    CHECK_EQ_INT(pg_win_sid_check(USER_SID, &e), PG_OK);
}

PG_TEST(junk_sids_are_badinput) {
    static const char *const junk[] = {"", "S-1-", "S-1-5-", "S-1--5", "WD", "BA", "SY", "s-1-5-18",
                                       "S-1-5-18)(A;;GA;;;WD", "S-1-5-18;", "hello", " S-1-5-18",
                                       "S-1-5-18 ", "S-2-5-18", "S-1-5-x"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        pg_error e = {0};
        pg_err rc = pg_win_sid_check(junk[i], &e);
        if (rc != PG_E_BADINPUT) fprintf(stderr, "accepted junk SID \"%s\"\n", junk[i]);
        CHECK_EQ_INT(rc, PG_E_BADINPUT);
        CHECK(e.message[0] != '\0');
    }
    pg_error e;
    CHECK_EQ_INT(pg_win_sid_check(NULL, &e), PG_E_BADINPUT);
}

PG_TEST(sid_format_round_trips) {
    PSID p = NULL;
    pg_error e;
    REQUIRE(pg_win_sid_parse(USER_SID, &p, &e) == PG_OK);
    char out[PG_WIN_SID_STR_MAX];
    CHECK_EQ_INT(pg_win_sid_format(p, out, &e), PG_OK);
    CHECK_STR(out, USER_SID);
    LocalFree(p);
}

PG_TEST(sid_equality) {
    CHECK(pg_win_sid_str_equal(PG_WIN_SID_SYSTEM, "S-1-5-18"));
    CHECK(pg_win_sid_str_equal(USER_SID, USER_SID));
    CHECK(!pg_win_sid_str_equal(USER_SID, "S-1-5-21-1004336348-1177238915-682003330-1002"));
    CHECK(!pg_win_sid_str_equal(PG_WIN_SID_SYSTEM, PG_WIN_SID_ADMINS));
    CHECK(!pg_win_sid_str_equal("junk", "junk"));
    CHECK(!pg_win_sid_str_equal(NULL, PG_WIN_SID_SYSTEM));
    PSID a = NULL, b = NULL;
    REQUIRE(pg_win_sid_parse(PG_WIN_SID_ADMINS, &a, NULL) == PG_OK);
    REQUIRE(pg_win_sid_parse(PG_WIN_SID_ADMINS, &b, NULL) == PG_OK);
    CHECK(pg_win_sid_equal(a, b));
    CHECK(!pg_win_sid_equal(a, NULL));
    CHECK(pg_win_sid_is_trusted_writer(a));
    LocalFree(a);
    LocalFree(b);
    REQUIRE(pg_win_sid_parse(USER_SID, &a, NULL) == PG_OK);
    CHECK(!pg_win_sid_is_trusted_writer(a));
    LocalFree(a);
}

/* --- admin / SYSTEM membership over a token's groups --------------------- */

PG_TEST(system_user_is_admin_or_system) { CHECK(pg_win_sid_is_admin_or_system(PG_WIN_SID_SYSTEM, NULL, 0)); }

PG_TEST(enabled_administrators_group_counts) {
    pg_win_group g[] = {{"S-1-1-0", SE_GROUP_ENABLED | SE_GROUP_MANDATORY},
                        {PG_WIN_SID_ADMINS, SE_GROUP_ENABLED | SE_GROUP_ENABLED_BY_DEFAULT | SE_GROUP_OWNER}};
    CHECK(pg_win_sid_is_admin_or_system(USER_SID, g, 2));
}

PG_TEST(deny_only_administrators_group_does_not_count) {
    /* A UAC-filtered (non-elevated) admin token carries Administrators as
     * deny-only: that user is not an administrator right now. */
    pg_win_group g[] = {{PG_WIN_SID_ADMINS, SE_GROUP_USE_FOR_DENY_ONLY},
                        {"S-1-5-32-545", SE_GROUP_ENABLED | SE_GROUP_MANDATORY}};
    CHECK(!pg_win_sid_is_admin_or_system(USER_SID, g, 2));
    pg_win_group disabled[] = {{PG_WIN_SID_ADMINS, 0}};
    CHECK(!pg_win_sid_is_admin_or_system(USER_SID, disabled, 1));
}

PG_TEST(plain_user_is_not_admin) {
    pg_win_group g[] = {{"S-1-5-32-545", SE_GROUP_ENABLED}, {"S-1-5-11", SE_GROUP_ENABLED}, {"junk", SE_GROUP_ENABLED}};
    CHECK(!pg_win_sid_is_admin_or_system(USER_SID, g, 3));
    CHECK(!pg_win_sid_is_admin_or_system(NULL, NULL, 0));
}

/* --- the pipe's SDDL ------------------------------------------------------ */

/* Parses sddl and returns the DACL's ACE count, the rights granted to sid
 * (by allow ACEs) and whether NETWORK is denied first; -1 if it does not parse. */
static int inspect(const char *sddl, const char *sid, ACCESS_MASK *granted, int *network_denied_first, int *protected_) {
    wchar_t w[4096];
    PSECURITY_DESCRIPTOR sd = NULL;
    if (!MultiByteToWideChar(CP_UTF8, 0, sddl, -1, w, 4096) ||
        !ConvertStringSecurityDescriptorToSecurityDescriptorW(w, SDDL_REVISION_1, &sd, NULL))
        return -1;
    BOOL present, defaulted;
    PACL dacl = NULL;
    PSID want = NULL, nu = NULL;
    pg_win_sid_parse(sid, &want, NULL);
    pg_win_sid_parse("S-1-5-2", &nu, NULL);
    GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted);
    SECURITY_DESCRIPTOR_CONTROL ctl = 0;
    DWORD rev;
    GetSecurityDescriptorControl(sd, &ctl, &rev);
    *protected_ = (ctl & SE_DACL_PROTECTED) != 0;
    *granted = 0;
    *network_denied_first = 0;
    int count = dacl ? (int)dacl->AceCount : 0;
    for (int i = 0; i < count; i++) {
        ACCESS_ALLOWED_ACE *ace;
        GetAce(dacl, (DWORD)i, (void **)&ace);
        PSID s = (PSID)&ace->SidStart;
        if (i == 0 && ace->Header.AceType == ACCESS_DENIED_ACE_TYPE && EqualSid(s, nu)) *network_denied_first = 1;
        if (ace->Header.AceType == ACCESS_ALLOWED_ACE_TYPE && want && EqualSid(s, want)) *granted |= ace->Mask;
    }
    LocalFree(want);
    LocalFree(nu);
    LocalFree(sd);
    return count;
}

PG_TEST(pipe_sddl_admits_system_service_and_principals_only) {
    const char *p[] = {USER_SID, "S-1-5-32-545"};
    char sddl[2048];
    pg_error e;
    REQUIRE(pg_win_pipe_server_sddl(SVC_SID, p, 2, sddl, sizeof sddl, &e) == PG_OK);
    CHECK(strncmp(sddl, "O:SYD:P(D;;GA;;;NU)", 19) == 0);
    ACCESS_MASK m;
    int nd, prot;
    CHECK_EQ_INT(inspect(sddl, PG_WIN_SID_SYSTEM, &m, &nd, &prot), 5); /* deny NU + SY + service + 2 */
    CHECK(nd && prot);
    CHECK_EQ_INT(m, PG_WIN_PIPE_SERVER_RIGHTS);
    CHECK_EQ_INT(inspect(sddl, SVC_SID, &m, &nd, &prot), 5);
    CHECK_EQ_INT(m, PG_WIN_PIPE_SERVER_RIGHTS);
    CHECK_EQ_INT(inspect(sddl, USER_SID, &m, &nd, &prot), 5);
    CHECK_EQ_INT(m, FILE_GENERIC_READ | (FILE_GENERIC_WRITE & ~FILE_CREATE_PIPE_INSTANCE));
    CHECK((m & FILE_CREATE_PIPE_INSTANCE) == 0); /* a client can never add a rogue server instance */
    CHECK_EQ_INT(inspect(sddl, "S-1-1-0", &m, &nd, &prot), 5);
    CHECK_EQ_INT(m, 0); /* Everyone: nothing */
    CHECK_EQ_INT(inspect(sddl, "S-1-5-7", &m, &nd, &prot), 5);
    CHECK_EQ_INT(m, 0); /* Anonymous: nothing */
}

PG_TEST(pipe_sddl_without_service_or_principals) {
    char sddl[256];
    pg_error e;
    REQUIRE(pg_win_pipe_server_sddl(NULL, NULL, 0, sddl, sizeof sddl, &e) == PG_OK);
    CHECK_STR(sddl, "O:SYD:P(D;;GA;;;NU)(A;;0x12019f;;;SY)");
}

PG_TEST(pipe_sddl_refuses_junk_and_catch_all_principals) {
    static const char *const bad[] = {"WD", "S-1-1-0", "S-1-5-7", "S-1-5-2", "S-1-5-18)(A;;GA;;;WD", "", "AU"};
    char sddl[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pg_error e = {0};
        const char *p[] = {USER_SID, bad[i]};
        CHECK_EQ_INT(pg_win_pipe_server_sddl(SVC_SID, p, 2, sddl, sizeof sddl, &e), PG_E_BADINPUT);
        CHECK(sddl[0] == '\0');
        CHECK_EQ_INT(pg_win_pipe_server_sddl(bad[i], NULL, 0, sddl, sizeof sddl, &e), PG_E_BADINPUT);
    }
    pg_error e;
    const char *p[] = {"S-1-1-0"};
    pg_win_pipe_server_sddl(NULL, p, 1, sddl, sizeof sddl, &e);
    CHECK(strstr(e.message, "Everyone") != NULL);
}

PG_TEST(pipe_sddl_too_small_buffer_is_internal) {
    char sddl[24];
    pg_error e;
    const char *p[] = {USER_SID};
    CHECK_EQ_INT(pg_win_pipe_server_sddl(SVC_SID, p, 1, sddl, sizeof sddl, &e), PG_E_INTERNAL);
    CHECK(sddl[0] == '\0');
}

/* --- the policy file's ACL ------------------------------------------------- */

static pg_err acl(const char *sddl, pg_error *e) { return pg_win_acl_check_sddl(sddl, POLICY, e); }

PG_TEST(acl_good_descriptors_pass) {
    static const char *const good[] = {
        GOOD_FILE,
        "O:SYG:SYD:PAI(A;;FA;;;SY)(A;;FA;;;BA)",
        /* ProgramData-like, inherited: CREATOR OWNER and Users' write are inherit-only (children). */
        "O:BAD:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;0x1200a9;;;BU)(A;OICIIOID;GA;;;CO)(A;OICIIOID;GW;;;BU)",
        /* inherit-only write for Users is not a right on this object */
        "O:BAD:P(A;;FA;;;SY)(A;;FA;;;BA)(A;OICIIO;0x100116;;;BU)",
        /* TrustedInstaller owner, deny ACE for Everyone */
        "O:" PG_WIN_SID_TRUSTED_INSTALLER "D:P(D;;FA;;;WD)(A;;FA;;;" PG_WIN_SID_TRUSTED_INSTALLER ")(A;;FR;;;WD)",
        /* read and execute for Authenticated Users */
        "O:SYD:P(A;;FA;;;SY)(A;;FRFX;;;AU)",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        pg_error e = {0};
        pg_err rc = acl(good[i], &e);
        if (rc) fprintf(stderr, "refused good ACL %s: %s\n", good[i], e.message);
        CHECK_EQ_INT(rc, PG_OK);
    }
}

/* Expects BADINPUT with all the words in the message. */
static int refused(const char *sddl, const char *w1, const char *w2) {
    pg_error e = {0};
    pg_err rc = acl(sddl, &e);
    int ok = rc == PG_E_BADINPUT && strstr(e.message, POLICY) && (!w1 || strstr(e.message, w1)) &&
             (!w2 || strstr(e.message, w2)) && strstr(e.recovery_tip, "icacls");
    if (!ok) fprintf(stderr, "%s -> %d: %s | %s\n", sddl, (int)rc, e.message, e.recovery_tip);
    return ok;
}

PG_TEST(acl_users_write_is_refused_naming_principal_and_right) {
    CHECK(refused(GOOD_FILE "(A;;0x100116;;;BU)", "S-1-5-32-545", "write data"));
    CHECK(refused(GOOD_FILE "(A;;FW;;;BU)", "S-1-5-32-545", "append"));
}

PG_TEST(acl_everyone_full_is_refused) { CHECK(refused(GOOD_FILE "(A;;FA;;;WD)", "S-1-1-0", "WRITE_DAC")); }

PG_TEST(acl_authenticated_users_modify_is_refused) {
    CHECK(refused(GOOD_FILE "(A;;0x1301bf;;;AU)", "S-1-5-11", "DELETE"));
}

PG_TEST(acl_single_dangerous_rights_are_refused) {
    CHECK(refused(GOOD_FILE "(A;;WD;;;BU)", "S-1-5-32-545", "WRITE_DAC"));
    CHECK(refused(GOOD_FILE "(A;;WO;;;BU)", "S-1-5-32-545", "WRITE_OWNER"));
    CHECK(refused(GOOD_FILE "(A;;SD;;;BU)", "S-1-5-32-545", "DELETE"));
    CHECK(refused(GOOD_FILE "(A;;GW;;;BU)", "S-1-5-32-545", "GENERIC_WRITE"));
    CHECK(refused(GOOD_FILE "(A;;GA;;;BU)", "S-1-5-32-545", "GENERIC_ALL"));
    CHECK(refused(GOOD_FILE "(A;;0x4;;;BU)", "S-1-5-32-545", "append"));
    CHECK(refused(GOOD_FILE "(A;;0x40;;;BU)", "S-1-5-32-545", "delete child"));
    CHECK(refused(GOOD_FILE "(A;;FA;;;" USER_SID ")", USER_SID, NULL));
}

PG_TEST(acl_inherited_write_is_refused_and_says_inherited) {
    CHECK(refused("O:BAD:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;0x100116;;;BU)", "inherited", "S-1-5-32-545"));
    /* container-inherit (applies to this object too) is not inherit-only */
    CHECK(refused("O:BAD:(A;;FA;;;SY)(A;CI;0x100116;;;BU)", "S-1-5-32-545", NULL));
}

/* A descriptor with owner Administrators and the given DACL (NULL: a NULL
 * DACL), built in binary: Wine's SDDL parser turns "D:NO_ACCESS_CONTROL" into
 * an empty DACL instead of a NULL one, so the string is not used here. */
static pg_err check_binary(PACL dacl, BOOL present, pg_error *e) {
    SECURITY_DESCRIPTOR sd;
    PSID ba = NULL;
    pg_err rc = PG_E_INTERNAL;
    if (InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) &&
        pg_win_sid_parse(PG_WIN_SID_ADMINS, &ba, NULL) == PG_OK && SetSecurityDescriptorOwner(&sd, ba, FALSE) &&
        SetSecurityDescriptorDacl(&sd, present, dacl, FALSE))
        rc = pg_win_acl_check_sd(&sd, POLICY, e);
    LocalFree(ba);
    return rc;
}

PG_TEST(acl_null_or_missing_dacl_is_refused) {
    pg_error e = {0};
    CHECK_EQ_INT(check_binary(NULL, TRUE, &e), PG_E_BADINPUT); /* NULL DACL: everyone has full access */
    CHECK(strstr(e.message, "NULL DACL") != NULL);
    CHECK(strstr(e.recovery_tip, "icacls") != NULL);
    CHECK_EQ_INT(check_binary(NULL, FALSE, &e), PG_E_BADINPUT); /* no DACL at all: the same */
    CHECK(refused("O:BA", "NULL DACL", NULL));
}

PG_TEST(acl_untrusted_owner_is_refused) {
    CHECK(refused("O:" USER_SID "D:P(A;;FA;;;SY)(A;;FA;;;BA)", "owned by", USER_SID));
    CHECK(refused("O:BUD:P(A;;FA;;;SY)", "owned by", "S-1-5-32-545"));
    pg_error e = {0};
    CHECK_EQ_INT(acl("D:P(A;;FA;;;SY)", &e), PG_E_BADINPUT); /* no owner at all */
    CHECK(strstr(e.message, "no owner") != NULL);
}

PG_TEST(acl_empty_dacl_passes_deny_only_is_fine) {
    pg_error e;
    CHECK_EQ_INT(acl("O:SYD:P", &e), PG_OK); /* no one but the owner can do anything */
    CHECK_EQ_INT(acl("O:SYD:P(D;;FA;;;WD)(D;;FA;;;BU)", &e), PG_OK);
}

PG_TEST(acl_object_ace_fails_closed) {
    /* Object ACEs never belong on a file: an unknown allow type is refused
     * rather than skipped. Built byte by byte (header, mask, flags 0 = no
     * GUIDs, SID) because Wine's SDDL parser rejects "OA" and its
     * AddAccessAllowedObjectAce fails. */
    union {
        ACL acl;
        uint8_t raw[256];
    } a;
    union {
        ACE_HEADER h;
        uint8_t raw[128];
    } ace = {0};
    PSID bu = NULL;
    REQUIRE(pg_win_sid_parse("S-1-5-32-545", &bu, NULL) == PG_OK);
    DWORD mask = FILE_GENERIC_READ, flags = 0, sid_len = GetLengthSid(bu);
    ace.h.AceType = ACCESS_ALLOWED_OBJECT_ACE_TYPE;
    ace.h.AceSize = (WORD)(sizeof ace.h + 8 + sid_len);
    memcpy(ace.raw + sizeof ace.h, &mask, 4);
    memcpy(ace.raw + sizeof ace.h + 4, &flags, 4);
    memcpy(ace.raw + sizeof ace.h + 8, bu, sid_len);
    LocalFree(bu);
    BOOL ok = InitializeAcl(&a.acl, sizeof a, ACL_REVISION_DS) && AddAce(&a.acl, ACL_REVISION_DS, MAXDWORD, &ace, ace.h.AceSize);
    REQUIRE(ok);
    REQUIRE(a.acl.AceCount == 1);
    pg_error e = {0};
    CHECK_EQ_INT(check_binary(&a.acl, TRUE, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "unexpected type") != NULL);
}

PG_TEST(acl_junk_sddl_is_badinput) {
    pg_error e;
    CHECK_EQ_INT(acl("this is not sddl", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(acl(NULL, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_win_acl_check_sd(NULL, POLICY, &e), PG_E_BADINPUT);
}

PG_TEST(acl_check_file_missing_is_notfound_relative_is_badinput) {
    pg_error e;
    CHECK_EQ_INT(pg_win_acl_check_file("C:\\no-such-dir-pixelgate\\policy.json", &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_win_acl_check_file("policy.json", &e), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_win_acl_check_file("", &e), PG_E_BADINPUT);
}
