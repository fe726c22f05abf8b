; SPDX-License-Identifier: MIT
; pixelgate.nsi - the Windows installer (NSIS 3, 64-bit, Unicode).
;
; Build (makensis changes into this file's directory, so give ABSOLUTE paths):
;   makensis -DBINDIR=$PWD/build/mingw -DOUTFILE=$PWD/build/mingw/pixelgate-setup.exe \
;            -DVERSION=0.1.0 installer/windows/pixelgate.nsi
; Defines:
;   BINDIR     the cmake build dir holding broker/pixelgated.exe and client/pixelgate.exe
;   BROKER_EXE, CLIENT_EXE  override the two binaries one by one (default from BINDIR)
;   WINPATH_EXE  the system Path editor run at install and uninstall (default BINDIR/installer/pg_winpath.exe)
;   SRCDIR     the source tree, for docs/ (default: two levels above this file)
;   POLICY     the default policy (default: policy.json next to this file)
;   OUTFILE    the installer to write (default pixelgate-setup.exe)
;   VERSION    x.y.z (default 0.0.0)
;
; What it does, in order (details: installer/windows/README.md):
;   1. if a previous install is there, `pixelgated.exe uninstall` stops and removes its service
;      so the binaries can be replaced;
;   2. copies pixelgated.exe, pixelgate.exe, policy.default.json and docs to $INSTDIR;
;   3. makes %ProgramData%\pixelgate owned by Administrators with a protected ACL (SYSTEM and
;      Administrators only), refusing a directory or policy that someone else owns; resets the
;      ACLs below it (icacls) so nothing planted there keeps other rights;
;   4. writes policy.json there ONLY if there is none (an admin's policy is never overwritten);
;      owner Administrators; Users may read it, only SYSTEM and Administrators may change it;
;   5. `pixelgated.exe install` (spool/audit ACLs, service registration); on failure the
;      program files are removed again and setup fails with the broker's exit code in the message;
;   6. adds $INSTDIR (where pixelgate.exe is) to the system Path (pg_winpath.exe, run from the
;      plugins directory: NSIS strings are too short for a real Path), so a new cmd.exe and an
;      MCP host's `pixelgate mcp` find it; on failure setup rolls back as in 5;
;   7. writes uninstall.exe and the Add/Remove Programs entry; starts the service unless /NOSTART.
; Uninstall: `pixelgated.exe uninstall`, $INSTDIR out of the system Path, then the program
; files and the spool; the policy and
; the audit log stay unless /PURGE is given (then all of %ProgramData%\pixelgate goes).
; Silent: pixelgate-setup.exe /S [/NOSTART] [/D=DIR]; uninstall.exe /S [/PURGE].
; Exit codes: 0 done, 1 cancelled, 2 failed (the reason is shown, or suppressed under /S).

Unicode true
Target amd64-unicode
RequestExecutionLevel admin
ManifestSupportedOS all
SetCompressor /SOLID lzma

!include x64.nsh
!include LogicLib.nsh
!include FileFunc.nsh

!ifndef BROKER_EXE
  !ifndef BINDIR
    !error "define BINDIR (the cmake build dir, e.g. -DBINDIR=build/mingw) or BROKER_EXE"
  !endif
  !define BROKER_EXE "${BINDIR}/broker/pixelgated.exe"
!endif
!ifndef CLIENT_EXE
  !ifndef BINDIR
    !error "define BINDIR (the cmake build dir, e.g. -DBINDIR=build/mingw) or CLIENT_EXE"
  !endif
  !define CLIENT_EXE "${BINDIR}/client/pixelgate.exe"
!endif
!ifndef WINPATH_EXE
  !ifndef BINDIR
    !error "define BINDIR (the cmake build dir, e.g. -DBINDIR=build/mingw) or WINPATH_EXE"
  !endif
  !define WINPATH_EXE "${BINDIR}/installer/pg_winpath.exe"
!endif
!ifndef SRCDIR
  !define SRCDIR "../.."
!endif
!ifndef POLICY
  !define POLICY "policy.json"
!endif
; Tesseract's English language data, read by the broker's OCR from <INSTDIR>\tessdata
; (Debian: tesseract-ocr-eng).
!ifndef TESSDATA
  !define TESSDATA "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata"
!endif
!ifndef OUTFILE
  !define OUTFILE "pixelgate-setup.exe"
!endif
!ifndef VERSION
  !define VERSION "0.0.0"
!endif

!define SERVICE "pixelgate"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\pixelgate"
; Owner Administrators and a protected DACL (nothing inherited from above), inherited by
; everything below. Data: SYSTEM and Administrators only. Program files: also read/execute for
; Users and AppContainers (S-1-15-2-1), as in Program Files; the service runs these binaries
; as SYSTEM, so no one else may change them, even in a custom /D= directory.
!define DATA_SDDL "O:BAD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
!define POLICY_SDDL "O:BAD:PAI(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;BU)"
!define PROG_SDDL "O:BAD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)(A;OICI;0x1200a9;;;S-1-15-2-1)"

Name "pixelgate ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\pixelgate"
InstallDirRegKey HKLM "${UNINST_KEY}" "InstallLocation"
ShowInstDetails show
ShowUninstDetails show

VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "pixelgate"
VIAddVersionKey "FileDescription" "pixelgate installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "Copyright (c) 2026 The pixelgate authors (MIT)"

; The licence page: the MIT licence (LICENSE at the top of the source tree), which
; setup also installs as LICENSE.txt; the libraries linked into the binaries are listed
; with their licences in debian/copyright's header.
LicenseText "pixelgate is free software under the MIT licence. Please read it before installing." "I &Agree"
LicenseData "${SRCDIR}/LICENSE"
Page license
Page directory
Page instfiles
UninstPage uninstConfirm
UninstPage instfiles

; $APPDATA is C:\ProgramData under SetShellVarContext all (NSIS has no $COMMONAPPDATA).
Var DataDir
Var LogH

; ---------------------------------------------------------------------------
; Shared helpers (installer and uninstaller)

!macro RequireAdmin
  UserInfo::GetAccountType
  Pop $0
  ${If} $0 != "Admin"
    MessageBox MB_ICONSTOP "pixelgate must be installed and removed by an administrator (run this elevated)." /SD IDOK
    SetErrorLevel 2
    Quit
  ${EndIf}
!macroend

; A line in the details view and in the log file ($TEMP\pixelgate-setup.log or
; $TEMP\pixelgate-uninstall.log: the only trace a silent run leaves).
!macro Log MSG
  DetailPrint `${MSG}`
  ${If} $LogH != ""
    FileWriteUTF16LE $LogH `${MSG}$\r$\n`
  ${EndIf}
!macroend

!macro OpenLog NAME
  ClearErrors
  FileOpen $LogH "$TEMP\${NAME}" w
  ${If} ${Errors}
    StrCpy $LogH ""
  ${Else}
    FileWriteWord $LogH 0xFEFF ; UTF-16LE byte-order mark
  ${EndIf}
!macroend

!macro CloseLog
  ${If} $LogH != ""
    FileClose $LogH
    StrCpy $LogH ""
  ${EndIf}
!macroend

; Runs a command line hidden; its exit code ("error" if it could not be started) is left in $0
; and its output (first 1 KiB) is logged.
!macro Exec CMDLINE
  !insertmacro Log `run: ${CMDLINE}`
  nsExec::ExecToStack `${CMDLINE}`
  Pop $0
  Exch $1
  ; "error": the process could not be started at all (seen once under Wine on a
  ; loaded machine); one retry after a second, logged.
  ${If} $0 == "error"
    Pop $1
    !insertmacro Log `could not start it; retrying in 1 s`
    Sleep 1000
    nsExec::ExecToStack `${CMDLINE}`
    Pop $0
    Exch $1
  ${EndIf}
  !insertmacro Log `exit code $0: $1`
  Pop $1
!macroend

; pg_winpath.exe OP (add or remove) on $INSTDIR, the directory of pixelgate.exe: the system
; Path; its exit code in $0 (0 done or nothing to do). Carried inside setup and uninstall.exe.
!macro WinPath OP
  InitPluginsDir
  SetOverwrite on
  File "/oname=$PLUGINSDIR\pg_winpath.exe" "${WINPATH_EXE}"
  !insertmacro Exec '"$PLUGINSDIR\pg_winpath.exe" ${OP} "$INSTDIR"'
!macroend

; Fails setup: message (suppressed under /S), exit code 2.
!macro Fail MSG
  !insertmacro Log "error: ${MSG}"
  !insertmacro CloseLog
  MessageBox MB_ICONSTOP "${MSG}" /SD IDOK
  SetErrorLevel 2
  Abort "${MSG}"
!macroend

; ---------------------------------------------------------------------------
; Installer

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "pixelgate needs 64-bit Windows." /SD IDOK
    SetErrorLevel 2
    Quit
  ${EndIf}
  SetRegView 64
  SetShellVarContext all
  !insertmacro RequireAdmin
FunctionEnd

; Is the owner of the path on the stack trusted (SYSTEM, Administrators, or the account running
; setup, which is an administrator)? Pushes "" if so, else the reason.
Function OwnerCheck
  Exch $1
  Push $2
  Push $3
  Push $4
  Push $5
  Push $6
  Push $7
  Push $8
  StrCpy $8 ""
  ; GetNamedSecurityInfoW(path, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, ..., &sd)
  System::Call 'advapi32::GetNamedSecurityInfoW(w r1, i 1, i 1, *p .r2, p 0, p 0, p 0, *p .r3) i .r4'
  ${If} $4 != 0
    StrCpy $8 "cannot read the owner of $1 (error $4)"
  ${Else}
    System::Call 'advapi32::IsWellKnownSid(p r2, i 22) i .r5' ; WinLocalSystemSid
    System::Call 'advapi32::IsWellKnownSid(p r2, i 26) i .r6' ; WinBuiltinAdministratorsSid
    ${If} $5 = 0
    ${AndIf} $6 = 0
      ; The account running setup (TokenUser).
      StrCpy $7 0
      System::Call 'advapi32::OpenProcessToken(p -1, i 8, *p .r4) i .r5'
      ${If} $5 <> 0
        System::Alloc 512
        Pop $6
        System::Call 'advapi32::GetTokenInformation(p r4, i 1, p r6, i 512, *i .r5) i .r5'
        ${If} $5 <> 0
          System::Call '*$6(p .r5)'
          System::Call 'advapi32::EqualSid(p r2, p r5) i .r7'
        ${EndIf}
        System::Free $6
        System::Call 'kernel32::CloseHandle(p r4)'
      ${EndIf}
      ${If} $7 = 0
        StrCpy $6 "?"
        System::Call 'advapi32::ConvertSidToStringSidW(p r2, *p .r5) i .r4'
        ${If} $4 <> 0
          System::Call 'kernel32::lstrcpynW(w .r6, p r5, i 200)'
          System::Call 'kernel32::LocalFree(p r5)'
        ${EndIf}
        StrCpy $8 "$1 is owned by $6, not by SYSTEM or Administrators: someone else may have created it. Inspect it, then remove it or take ownership (takeown /a /r /f $\"$1$\"), and run setup again."
      ${EndIf}
    ${EndIf}
    System::Call 'kernel32::LocalFree(p r3)'
  ${EndIf}
  StrCpy $1 $8
  Pop $8
  Pop $7
  Pop $6
  Pop $5
  Pop $4
  Pop $3
  Pop $2
  Exch $1
FunctionEnd

; SecureDir: applies the owner and protected DACL of SDDL $R9 to the existing file or
; directory $R8.
; $0 = Windows error code (0 ok).
Function SecureDir
  System::Call 'advapi32::ConvertStringSecurityDescriptorToSecurityDescriptorW(w R9, i 1, *p .r1, p 0) i .r0 ? e'
  Pop $2
  ${If} $0 = 0
    StrCpy $0 $2
    Return
  ${EndIf}
  System::Call 'advapi32::GetSecurityDescriptorOwner(p r1, *p .r2, *i .r3)'
  System::Call 'advapi32::GetSecurityDescriptorDacl(p r1, *i .r3, *p .r4, *i .r3)'
  ; OWNER | DACL | PROTECTED_DACL = 0x80000005
  System::Call 'advapi32::SetNamedSecurityInfoW(w R8, i 1, i 0x80000005, p r2, p 0, p r4, p 0) i .r0'
  System::Call 'kernel32::LocalFree(p r1)'
FunctionEnd

; CreateSecureDir: creates directory $R8 with SDDL $R9 from the start, so there is no moment
; with inherited rights. $0 = Windows error code (0 ok).
Function CreateSecureDir
  System::Call 'advapi32::ConvertStringSecurityDescriptorToSecurityDescriptorW(w R9, i 1, *p .r1, p 0) i .r0 ? e'
  Pop $2
  ${If} $0 = 0
    StrCpy $0 $2
    Return
  ${EndIf}
  ; SECURITY_ATTRIBUTES { DWORD nLength; LPVOID sd; BOOL inherit } (24 bytes on x64)
  System::Call '*(i 24, p r1, i 0) p .r2'
  System::Call 'kernel32::CreateDirectoryW(w R8, p r2) i .r0 ? e'
  Pop $3
  ${If} $0 = 0
    StrCpy $0 $3
  ${Else}
    StrCpy $0 0
  ${EndIf}
  System::Free $2
  System::Call 'kernel32::LocalFree(p r1)'
FunctionEnd

; Pushes 1 if directory $R8 holds any entry, else 0 (clobbers $0).
Function DirHasChildren
  Push $1
  Push $2
  StrCpy $2 0
  FindFirst $0 $1 "$R8\*"
  ${DoWhile} $1 != ""
    ${If} $1 != "."
    ${AndIf} $1 != ".."
      StrCpy $2 1
      ${Break}
    ${EndIf}
    FindNext $0 $1
  ${Loop}
  FindClose $0
  StrCpy $0 $2
  Pop $2
  Pop $1
  Push $0
FunctionEnd

; PrepareSecureDir: makes directory $R8 owned by Administrators with SDDL $R9, refusing an
; existing one that someone else owns; everything already below it gets Administrators as
; owner and only inherited ACEs (icacls), so nothing planted there keeps rights of its own.
; $R7 = "" on success, else the reason. Clobbers $0-$3.
Function PrepareSecureDir
  StrCpy $R7 ""
  ${If} ${FileExists} "$R8\*.*"
    Push $R8
    Call OwnerCheck
    Pop $R7
    ${If} $R7 != ""
      Return
    ${EndIf}
    Call SecureDir
    ${If} $0 != 0
      StrCpy $R7 "Could not set the owner and ACL of $R8 (error $0)."
      Return
    ${EndIf}
  ${Else}
    ${GetParent} "$R8" $1
    CreateDirectory "$1"
    Call CreateSecureDir
    ${If} $0 != 0
      StrCpy $R7 "Could not create $R8 (error $0)."
      Return
    ${EndIf}
  ${EndIf}
  StrCpy $2 "$SYSDIR\icacls.exe"
  ${IfNot} ${FileExists} "$2"
    !insertmacro Log "warning: $2 not found; the ACLs below $R8 were not reset"
    Return
  ${EndIf}
  Call DirHasChildren
  Pop $3
  ${If} $3 = 1
    !insertmacro Exec '"$2" "$R8\*" /setowner *S-1-5-32-544 /T /C /Q'
    StrCpy $3 $0
    !insertmacro Exec '"$2" "$R8\*" /reset /T /C /Q'
    ${If} $0 != 0
    ${OrIf} $3 != 0
      StrCpy $R7 "Could not reset the owners and ACLs below $R8 with icacls (exit codes $3, $0)."
    ${EndIf}
  ${EndIf}
FunctionEnd

; After a failure: removes the program files, the uninstaller and the Add/Remove Programs entry
; (on an upgrade the previous version's service is already gone, so nothing is installed any
; more). %ProgramData%\pixelgate (policy, audit log) is kept.
Function RollBackFiles
  !insertmacro WinPath remove
  SetOutPath "$TEMP" ; $INSTDIR must not be the current directory when it is removed
  Delete "$INSTDIR\pixelgated.exe"
  Delete "$INSTDIR\pixelgate.exe"
  Delete "$INSTDIR\policy.default.json"
  Delete "$INSTDIR\LICENSE.txt"
  Delete "$INSTDIR\uninstall.exe"
  RMDir /r "$INSTDIR\docs"
  RMDir /r "$INSTDIR\tessdata"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINST_KEY}"
FunctionEnd

Section "pixelgate" SecMain
  SectionIn RO
  !insertmacro OpenLog "pixelgate-setup.log"
  !insertmacro Log "pixelgate ${VERSION} setup: $INSTDIR"
  SetRegView 64
  SetShellVarContext all
  StrCpy $DataDir "$APPDATA\pixelgate"

  ; 1. An upgrade: stop and remove the running service so its binary can be replaced.
  ${If} ${FileExists} "$INSTDIR\pixelgated.exe"
    !insertmacro Exec '"$INSTDIR\pixelgated.exe" uninstall'
    ${If} $0 != 0
      !insertmacro Fail "The installed pixelgate service could not be stopped and removed ($\"$INSTDIR\pixelgated.exe$\" uninstall exited with $0). Stop it (sc stop ${SERVICE}) and run setup again."
    ${EndIf}
  ${EndIf}

  ; 2. Program files, in a directory only administrators can change.
  StrCpy $R8 "$INSTDIR"
  StrCpy $R9 "${PROG_SDDL}"
  Call PrepareSecureDir
  ${If} $R7 != ""
    !insertmacro Fail "$R7"
  ${EndIf}
  SetOverwrite on
  SetOutPath "$INSTDIR"
  File "/oname=pixelgated.exe" "${BROKER_EXE}"
  File "/oname=pixelgate.exe" "${CLIENT_EXE}"
  File "/oname=policy.default.json" "${POLICY}"
  File "/oname=LICENSE.txt" "${SRCDIR}/LICENSE"
  SetOutPath "$INSTDIR\tessdata"
  File "/oname=eng.traineddata" "${TESSDATA}"
  SetOutPath "$INSTDIR\docs"
  File "/oname=windows.md" "${SRCDIR}/docs/windows.md"
  File "/oname=policy.md" "${SRCDIR}/docs/policy.md"
  File "/oname=agents.md" "${SRCDIR}/docs/agents.md"
  File "/oname=mcp.md" "${SRCDIR}/docs/mcp.md"
  File "/oname=privacy.md" "${SRCDIR}/docs/privacy.md"
  File "/oname=installer.md" "README.md"
  SetOutPath "$INSTDIR"

  ; 3. %ProgramData%\pixelgate: trusted owner, SYSTEM + Administrators only. A policy that
  ; someone else owns (planted before setup) is refused, not adopted.
  ${If} ${FileExists} "$DataDir\policy.json"
    Push "$DataDir\policy.json"
    Call OwnerCheck
    Pop $1
    ${If} $1 != ""
      Call RollBackFiles
      !insertmacro Fail "$1"
    ${EndIf}
  ${EndIf}
  StrCpy $R8 "$DataDir"
  StrCpy $R9 "${DATA_SDDL}"
  Call PrepareSecureDir
  ${If} $R7 != ""
    Call RollBackFiles
    !insertmacro Fail "$R7"
  ${EndIf}

  ; 4. The default policy, only if the administrator has none.
  ${If} ${FileExists} "$DataDir\policy.json"
    !insertmacro Log "keeping the existing policy $DataDir\policy.json"
  ${Else}
    SetOverwrite off
    SetOutPath "$DataDir"
    File "/oname=policy.json" "${POLICY}"
    SetOutPath "$INSTDIR"
    SetOverwrite on
    !insertmacro Log "wrote the default policy $DataDir\policy.json (admits nobody until you list accounts)"
  ${EndIf}
  ; Owner Administrators (the broker refuses a policy anyone else owns: an owner can rewrite
  ; the ACL), SYSTEM and Administrators full control, Users read (as 0644 on Linux).
  StrCpy $R8 "$DataDir\policy.json"
  StrCpy $R9 "${POLICY_SDDL}"
  Call SecureDir
  ${If} $0 != 0
    Call RollBackFiles
    !insertmacro Fail "Could not set the owner and ACL of $R8 (error $0)."
  ${EndIf}

  ; 5. The broker: directories, ACLs, service registration.
  !insertmacro Exec '"$INSTDIR\pixelgated.exe" install'
  ${If} $0 != 0
    StrCpy $1 $0
    !insertmacro Exec '"$INSTDIR\pixelgated.exe" uninstall'
    Call RollBackFiles
    !insertmacro Fail "$\"$INSTDIR\pixelgated.exe$\" install failed with exit code $1 (2 usage, 3 refused e.g. not elevated, 8 bad input, 9 internal; its output is in $TEMP\pixelgate-setup.log). pixelgate is not installed now; the policy and audit log in $DataDir are kept."
  ${EndIf}

  ; 6. pixelgate.exe on the system Path, for new command prompts and MCP hosts.
  !insertmacro WinPath add
  ${If} $0 != 0
    StrCpy $1 $0
    !insertmacro Exec '"$INSTDIR\pixelgated.exe" uninstall'
    Call RollBackFiles
    !insertmacro Fail "Could not add $INSTDIR to the system Path (pg_winpath exited with $1; see $TEMP\pixelgate-setup.log). pixelgate is not installed now; the policy and audit log in $DataDir are kept."
  ${EndIf}

  ; 7. Uninstaller, Add/Remove Programs, service start.
  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayName" "pixelgate"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINST_KEY}" "Publisher" "pixelgate"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\pixelgated.exe"
  WriteRegStr HKLM "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKLM "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKLM "${UNINST_KEY}" "EstimatedSize" "$0"

  ${GetParameters} $1
  ClearErrors
  ${GetOptions} $1 "/NOSTART" $2
  ${If} ${Errors}
    !insertmacro Exec '"$SYSDIR\sc.exe" start ${SERVICE}'
    ${If} $0 != 0
      !insertmacro Log "warning: the service did not start now (sc start exit code $0); it starts at boot"
    ${EndIf}
  ${Else}
    !insertmacro Log "/NOSTART: the service starts at boot, or with: sc start ${SERVICE}"
  ${EndIf}
  !insertmacro Log "done"
  !insertmacro CloseLog
SectionEnd

; ---------------------------------------------------------------------------
; Uninstaller

Function un.onInit
  SetRegView 64
  SetShellVarContext all
  !insertmacro RequireAdmin
FunctionEnd

Section "Uninstall"
  !insertmacro OpenLog "pixelgate-uninstall.log"
  !insertmacro Log "pixelgate ${VERSION} uninstall: $INSTDIR"
  SetRegView 64
  SetShellVarContext all
  StrCpy $DataDir "$APPDATA\pixelgate"
  ${GetParameters} $1
  ClearErrors
  ${GetOptions} $1 "/PURGE" $2
  ${If} ${Errors}
    StrCpy $9 0
  ${Else}
    StrCpy $9 1
  ${EndIf}

  ${If} ${FileExists} "$INSTDIR\pixelgated.exe"
    !insertmacro Exec '"$INSTDIR\pixelgated.exe" uninstall'
    ${If} $0 != 0
      !insertmacro Fail "The pixelgate service could not be stopped and removed ($\"$INSTDIR\pixelgated.exe$\" uninstall exited with $0); nothing was removed."
    ${EndIf}
  ${Else}
    !insertmacro Log "warning: $INSTDIR\pixelgated.exe is missing; removing the service with sc"
    !insertmacro Exec '"$SYSDIR\sc.exe" stop ${SERVICE}'
    !insertmacro Exec '"$SYSDIR\sc.exe" delete ${SERVICE}'
  ${EndIf}

  ; pixelgate.exe leaves the system Path; a failure is logged, the rest goes on.
  !insertmacro WinPath remove
  ${If} $0 != 0
    !insertmacro Log "warning: $INSTDIR is still in the system Path (pg_winpath exited with $0): remove it by hand"
  ${EndIf}

  Delete "$INSTDIR\pixelgated.exe"
  Delete "$INSTDIR\pixelgate.exe"
  Delete "$INSTDIR\policy.default.json"
  Delete "$INSTDIR\LICENSE.txt"
  RMDir /r "$INSTDIR\docs"
  RMDir /r "$INSTDIR\tessdata"
  Delete "$INSTDIR\uninstall.exe"
  SetOutPath "$TEMP"
  RMDir "$INSTDIR" ; stays when run with _?=$INSTDIR (the uninstaller itself is there)
  DeleteRegKey HKLM "${UNINST_KEY}"

  ; Held captures are not kept; the policy and the audit log are, unless /PURGE.
  RMDir /r "$DataDir\spool"
  ${If} $9 = 1
    !insertmacro Log "/PURGE: removing $DataDir (policy and audit log)"
    RMDir /r "$DataDir"
  ${Else}
    !insertmacro Log "kept $DataDir (policy.json and the audit log); uninstall.exe /PURGE removes them"
  ${EndIf}
  !insertmacro Log "done"
  !insertmacro CloseLog
SectionEnd
