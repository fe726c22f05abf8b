/* SPDX-License-Identifier: MIT */
#include "pg_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *tip;
} err_table[] = {
    [PG_OK] = {"OK", ""},
    [PG_E_ASSERT] = {"ASSERTION_FAILED",
                     "read the measurements on stdout; retry after the UI settles or adjust the threshold"},
    [PG_E_USAGE] = {"USAGE", "run 'pixelgate help COMMAND' for the accepted arguments"},
    [PG_E_POLICY] = {"POLICY_REFUSED", "the administrator's policy forbids this; ask for a policy change or an approval"},
    [PG_E_NOTFOUND] = {"NOT_FOUND", "list candidates with 'pixelgate windows' or take a fresh snapshot"},
    [PG_E_UNREACHABLE] = {"BROKER_UNREACHABLE",
                          "check that pixelgated is running and that PIXELGATE_SOCKET / --socket names its socket"},
    [PG_E_TIMEOUT] = {"TIMEOUT", "raise --timeout or check that the window is still responding"},
    [PG_E_UNSUPPORTED] = {"UNSUPPORTED", "run 'pixelgate caps' to see what this backend can do"},
    [PG_E_BADINPUT] = {"BAD_INPUT", "check the file is a valid image or config within the documented limits"},
    [PG_E_INTERNAL] = {"INTERNAL", "this is a pixelgate bug or resource failure; see the broker log"},
    [PG_E_BLOCKED] = {"BLOCKED", "not a defect of the app: fix the environment, the baseline or the rules, then retry"},
    [PG_E_NEEDS_APPROVAL] = {"NEEDS_APPROVAL", "a human approver must approve the prepared candidate first"},
    [PG_E_BUSY] = {"BUSY", "the broker is at capacity and did nothing: retry in a few seconds, with fewer "
                           "parallel clients"},
};

static int code_valid(pg_err code) { return (int)code >= 0 && (int)code <= (int)PG_ERR_LAST; }

const char *pg_err_name(pg_err code) { return code_valid(code) ? err_table[code].name : "INTERNAL"; }

pg_err pg_err_from_name(const char *name) {
    if (!name) return PG_E_INTERNAL;
    for (int i = 0; i <= (int)PG_ERR_LAST; i++)
        if (strcmp(err_table[i].name, name) == 0) return (pg_err)i;
    return PG_E_INTERNAL;
}

const char *pg_err_default_tip(pg_err code) { return code_valid(code) ? err_table[code].tip : ""; }

pg_err pg_error_set(pg_error *e, pg_err code, const char *tip, const char *fmt, ...) {
    if (!e) return code;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    snprintf(e->recovery_tip, sizeof e->recovery_tip, "%s", tip ? tip : "");
    return code;
}

void pg_error_clear(pg_error *e) {
    if (!e) return;
    e->code = PG_OK;
    e->message[0] = '\0';
    e->recovery_tip[0] = '\0';
}
