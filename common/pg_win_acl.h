/* SPDX-License-Identifier: MIT */
/* pg_win_acl.h - the policy file's ACL check (Windows only).
 *
 * Contract: the policy is trusted only if no one but SYSTEM (S-1-5-18),
 * Administrators (S-1-5-32-544) or TrustedInstaller can change it. A security
 * descriptor fails with PG_E_BADINPUT, naming the principal and the right and
 * giving the icacls command that fixes it, when: it has no owner or the owner
 * is anyone else; it has a NULL DACL (everyone has full access) or no DACL;
 * any allow ACE that applies to the object itself (not INHERIT_ONLY_ACE) gives
 * anyone else a write right: write data/add file, append/add subdirectory,
 * delete, delete child, WRITE_DAC, WRITE_OWNER, GENERIC_WRITE, GENERIC_ALL;
 * or an ACE type it does not know appears in the DACL (fail closed). Deny ACEs
 * are fine. The check is a pure function of the descriptor, so it is tested
 * under Wine with SDDL strings even though Wine does not enforce DACLs.
 * Never: modifies the file or its ACL; trusts an ACE because of its order.
 */
#ifndef PG_WIN_ACL_H
#define PG_WIN_ACL_H

#include <windows.h>

#include "pg_error.h"

/* The rights that let a principal change a file (or a directory's entries). */
#define PG_WIN_ACL_WRITE_RIGHTS                                                                        \
    (FILE_WRITE_DATA | FILE_APPEND_DATA | DELETE | FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER |         \
     GENERIC_WRITE | GENERIC_ALL)

/* Checks a security descriptor read with OWNER and DACL information. path
 * (UTF-8) names the object in messages and in the icacls tip. */
pg_err pg_win_acl_check_sd(PSECURITY_DESCRIPTOR sd, const char *path, pg_error *e);
/* The same over an SDDL string (tests, docs); BADINPUT if it does not parse. */
pg_err pg_win_acl_check_sddl(const char *sddl, const char *path, pg_error *e);
/* Production: reads the owner and DACL of the file at path (UTF-8) with
 * GetNamedSecurityInfoW and checks them. NOTFOUND if the file is missing. */
pg_err pg_win_acl_check_file(const char *path, pg_error *e);

#endif
