/* SPDX-License-Identifier: MIT */
/* pg_win_acl.c - the policy file's ACL check (see pg_win_acl.h).
 *
 * Why a pure function over a descriptor: Wine neither enforces nor faithfully
 * reports file DACLs, so the rule itself is tested with SDDL strings and the
 * thin GetNamedSecurityInfoW wrapper is the only part left to a real Windows
 * machine. Why the parent directory too: whoever may add or delete entries
 * in the directory can replace the file, whatever the file's own ACL says.
 * Never: passes a descriptor it could not fully read (fail closed).
 */
#include <windows.h>

#include <aclapi.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "pg_win_acl.h"
#include "pg_win_sid.h"

#define FIX_GRANTS "/grant:r *S-1-5-18:F *S-1-5-32-544:F"

/* "DOMAIN\name (S-1-...)", or the SID alone when it has no local name. */
static void principal_name(PSID sid, char *out, size_t cap) {
    char sid_s[PG_WIN_SID_STR_MAX];
    if (pg_win_sid_format(sid, sid_s, NULL)) snprintf(sid_s, sizeof sid_s, "(invalid SID)");
    wchar_t name[128], dom[128];
    DWORD nn = 128, dn = 128;
    SID_NAME_USE use;
    char nm[256], dm[256];
    if (LookupAccountSidW(NULL, sid, name, &nn, dom, &dn, &use) &&
        WideCharToMultiByte(CP_UTF8, 0, name, -1, nm, sizeof nm, NULL, NULL) > 0 &&
        WideCharToMultiByte(CP_UTF8, 0, dom, -1, dm, sizeof dm, NULL, NULL) > 0)
        snprintf(out, cap, "%s%s%s (%s)", dm, dm[0] ? "\\" : "", nm, sid_s);
    else
        snprintf(out, cap, "%s", sid_s);
}

/* Names of the write rights in mask, comma separated. */
static void rights_names(ACCESS_MASK mask, char *out, size_t cap) {
    static const struct {
        ACCESS_MASK bit;
        const char *name;
    } names[] = {{GENERIC_ALL, "GENERIC_ALL"},         {GENERIC_WRITE, "GENERIC_WRITE"},
                 {WRITE_DAC, "WRITE_DAC"},             {WRITE_OWNER, "WRITE_OWNER"},
                 {DELETE, "DELETE"},                   {FILE_WRITE_DATA, "write data/add file"},
                 {FILE_APPEND_DATA, "append/add subdirectory"}, {FILE_DELETE_CHILD, "delete child"}};
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(mask & names[i].bit) || len >= cap) continue;
        int n = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", names[i].name);
        if (n > 0) len += (size_t)n;
    }
}

static pg_err check_owner(PSECURITY_DESCRIPTOR sd, const char *path, pg_error *e) {
    PSID owner = NULL;
    BOOL defaulted;
    if (!GetSecurityDescriptorOwner(sd, &owner, &defaulted) || !owner)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%s has no owner; it must be owned by Administrators or SYSTEM",
                            path);
    if (pg_win_sid_is_trusted_writer(owner)) return PG_OK;
    char who[400], tip[PG_ERR_TIP_MAX];
    principal_name(owner, who, sizeof who);
    snprintf(tip, sizeof tip, "as administrator: icacls \"%s\" /setowner *S-1-5-32-544", path);
    return pg_error_set(e, PG_E_BADINPUT, tip,
                        "%s is owned by %s, who can rewrite its ACL; the owner must be Administrators, SYSTEM or "
                        "TrustedInstaller",
                        path, who);
}

/* Refuses one allow ACE whose write rights reach an untrusted principal. */
static pg_err check_allow(ACCESS_ALLOWED_ACE *ace, const char *path, pg_error *e) {
    PSID sid = (PSID)&ace->SidStart;
    ACCESS_MASK bad = ace->Mask & PG_WIN_ACL_WRITE_RIGHTS;
    if (!bad || pg_win_sid_is_trusted_writer(sid)) return PG_OK;
    char who[400], rights[200], sid_s[PG_WIN_SID_STR_MAX], tip[PG_ERR_TIP_MAX];
    principal_name(sid, who, sizeof who);
    rights_names(bad, rights, sizeof rights);
    if (pg_win_sid_format(sid, sid_s, NULL)) snprintf(sid_s, sizeof sid_s, "?");
    snprintf(tip, sizeof tip, "as administrator: icacls \"%s\" /inheritance:r " FIX_GRANTS " /remove:g *%s", path,
             sid_s);
    return pg_error_set(e, PG_E_BADINPUT, tip,
                        "%s can be changed by %s (%s%s); only SYSTEM, Administrators and TrustedInstaller may "
                        "write it",
                        path, who, rights, (ace->Header.AceFlags & INHERITED_ACE) ? ", inherited" : "");
}

/* Dispatches one ACE by type; unknown allow-like types fail closed. */
static pg_err check_ace(ACE_HEADER *h, const char *path, pg_error *e) {
    if (h->AceFlags & INHERIT_ONLY_ACE) return PG_OK; /* applies to children only, not to this object */
    switch (h->AceType) {
    case ACCESS_ALLOWED_ACE_TYPE:
    case ACCESS_ALLOWED_CALLBACK_ACE_TYPE: /* same layout up to SidStart */
        return check_allow((ACCESS_ALLOWED_ACE *)h, path, e);
    case ACCESS_DENIED_ACE_TYPE:
    case ACCESS_DENIED_CALLBACK_ACE_TYPE:
    case ACCESS_DENIED_OBJECT_ACE_TYPE:
    case ACCESS_DENIED_CALLBACK_OBJECT_ACE_TYPE:
        return PG_OK; /* a deny only takes rights away */
    default:
        return pg_error_set(e, PG_E_BADINPUT, "as administrator: icacls \"<file>\" /reset, then set the ACL again",
                            "%s has an ACE of unexpected type %u in its DACL; refusing to trust it", path,
                            (unsigned)h->AceType);
    }
}

static pg_err check_dacl(PSECURITY_DESCRIPTOR sd, const char *path, pg_error *e) {
    BOOL present = FALSE, defaulted;
    PACL dacl = NULL;
    char tip[PG_ERR_TIP_MAX];
    snprintf(tip, sizeof tip, "as administrator: icacls \"%s\" /inheritance:r " FIX_GRANTS, path);
    if (!GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted))
        return pg_error_set(e, PG_E_BADINPUT, tip, "cannot read the DACL of %s", path);
    if (!present || !dacl) /* no DACL or a NULL DACL: everyone has full access */
        return pg_error_set(e, PG_E_BADINPUT, tip, "%s has a NULL DACL: everyone can change it", path);
    for (DWORD i = 0; i < dacl->AceCount; i++) {
        void *ace;
        if (!GetAce(dacl, i, &ace))
            return pg_error_set(e, PG_E_BADINPUT, tip, "cannot read ACE %lu of %s", (unsigned long)i, path);
        pg_err rc = check_ace(ace, path, e);
        if (rc) return rc;
    }
    return PG_OK;
}

pg_err pg_win_acl_check_sd(PSECURITY_DESCRIPTOR sd, const char *path, pg_error *e) {
    if (!path) path = "(policy file)";
    if (!sd || !IsValidSecurityDescriptor(sd))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%s: invalid security descriptor", path);
    pg_err rc = check_owner(sd, path, e);
    return rc ? rc : check_dacl(sd, path, e);
}

pg_err pg_win_acl_check_sddl(const char *sddl, const char *path, pg_error *e) {
    int n = sddl ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, sddl, -1, NULL, 0) : 0;
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    BOOL ok = w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, sddl, -1, w, n) > 0 &&
              ConvertStringSecurityDescriptorToSecurityDescriptorW(w, SDDL_REVISION_1, &sd, NULL);
    free(w);
    if (!ok) return pg_error_set(e, PG_E_BADINPUT, NULL, "not a valid SDDL string: \"%.200s\"", sddl ? sddl : "");
    pg_err rc = pg_win_acl_check_sd(sd, path, e);
    LocalFree(sd);
    return rc;
}

/* Reads owner + DACL of one object by wide path and checks them. */
static pg_err check_object(const wchar_t *w, const char *path, pg_error *e) {
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD err = GetNamedSecurityInfoW(w, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                      NULL, NULL, NULL, NULL, &sd);
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
        return pg_error_set(e, PG_E_NOTFOUND, "the installer writes it; reinstall pixelgate", "%s does not exist",
                            path);
    if (err != ERROR_SUCCESS)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "cannot read the ACL of %s: Windows error %lu", path,
                            (unsigned long)err);
    pg_err rc = pg_win_acl_check_sd(sd, path, e);
    LocalFree(sd);
    return rc;
}

pg_err pg_win_acl_check_file(const char *path, pg_error *e) {
    int n = path ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0) : 0;
    if (n <= 1) return pg_error_set(e, PG_E_BADINPUT, NULL, "policy path is empty or not UTF-8");
    wchar_t *w = malloc((size_t)n * sizeof *w);
    char *dir = malloc(strlen(path) + 1);
    pg_err rc = PG_E_INTERNAL;
    if (!w || !dir) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        goto out;
    }
    MultiByteToWideChar(CP_UTF8, 0, path, -1, w, n);
    /* The directory holding the file: cut at the last separator. */
    wchar_t *sep = wcsrchr(w, L'\\');
    if (!sep) sep = wcsrchr(w, L'/');
    if (!sep) { /* a relative name depends on the current directory: refuse */
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "policy path must be absolute: %s", path);
        goto out;
    }
    if ((rc = check_object(w, path, e))) goto out;
    sep[sep > w && sep[-1] != L':' ? 0 : 1] = L'\0'; /* keep "C:\" for a file in a root */
    int dn = WideCharToMultiByte(CP_UTF8, 0, w, -1, dir, (int)strlen(path) + 1, NULL, NULL);
    rc = check_object(w, dn > 0 ? dir : path, e);
out:
    free(w);
    free(dir);
    return rc;
}
