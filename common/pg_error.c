/* SPDX-License-Identifier: MIT */
#include "pg_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The one table of outcomes: the wire name, the recovery tip a reply carries
 * when a site gives none, and for the documentation (docs/agents.md's exit
 * code table and pixelgate(1)'s EXIT STATUS, both generated from here by
 * tools/pg_gendoc) what the code means and what to do, in Markdown. */
static const struct {
    const char *name;
    const char *tip;
    const char *meaning;
    const char *action;
} err_table[] = {
    [PG_OK] = {"OK", "", "done", ""},
    [PG_E_ASSERT] = {"ASSERTION_FAILED",
                     "read the measurements on stdout; retry after the UI settles or adjust the threshold",
                     "the check ran and said no; measurements on stdout", "read them, let the UI settle, retry"},
    [PG_E_USAGE] = {"USAGE", "run 'pixelgate help COMMAND' for the accepted arguments",
                    "bad arguments, or a pattern matching several windows",
                    "`pixelgate help CMD`; narrow the pattern, `--id`, or `--first`"},
    [PG_E_POLICY] = {"POLICY_REFUSED", "the administrator's policy forbids this; ask for a policy change or an approval",
                     "the policy forbids it (not admitted, pixels not released, endpoint not allowed, window denied "
                     "or not yours), or a click on a covered point",
                     "ask for a policy change or an approval; uncover the window"},
    [PG_E_NOTFOUND] = {"NOT_FOUND", "list candidates with 'pixelgate windows' or take a fresh snapshot",
                       "no such window, text, template or token (expired, unknown, or another user's)",
                       "`pixelgate windows`; take a fresh snapshot"},
    [PG_E_UNREACHABLE] = {"BROKER_UNREACHABLE",
                          "check that pixelgated is running and that PIXELGATE_SOCKET / --socket names its socket",
                          "no answer from the screen; the message says which: no broker socket or connection "
                          "refused (not running), permission denied on its socket (this account may not use it), "
                          "the broker has no display (it runs; the display is missing or lost); an endpoint is down",
                          "follow the tip: start the broker (`systemctl start pixelgate.socket pixelgate`), join the "
                          "socket's group or get admitted in the policy, or give the broker its display "
                          "(`xhost +SI:localuser:pixelgate`)"},
    [PG_E_TIMEOUT] = {"TIMEOUT", "raise --timeout or check that the window is still responding",
                      "a wait ran out (the last frame is in the output)", "raise `--timeout`; is the app responding?"},
    [PG_E_UNSUPPORTED] = {"UNSUPPORTED", "run 'pixelgate caps' to see what this backend can do",
                          "this platform backend cannot do it", "`pixelgate caps`"},
    [PG_E_BADINPUT] = {"BAD_INPUT", "check the file is a valid image or config within the documented limits",
                       "corrupt/oversized image, a point outside the window, an unknown key name, a malformed "
                       "request or one of another protocol major version",
                       "fix the input"},
    [PG_E_INTERNAL] = {"INTERNAL", "this is a pixelgate bug or resource failure; see the broker log",
                       "a pixelgate bug or resource failure (e.g. disk full, audit log unwritable)",
                       "report it with the broker log"},
    [PG_E_BLOCKED] = {"BLOCKED", "not a defect of the app: fix the environment, the baseline or the rules, then retry",
                      "a check could not decide: the screen never settled, the baseline is for another "
                      "environment, a mask covers everything or nothing; the outcome is on stdout",
                      "not a defect of the app: fix the environment or ask for new rules; do not loosen thresholds"},
    [PG_E_NEEDS_APPROVAL] = {"NEEDS_APPROVAL", "a human approver must approve the prepared candidate first",
                             "no approved baseline for the case: a candidate was prepared; the outcome is on stdout",
                             "ask an approver to review and approve the candidate"},
    [PG_E_BUSY] = {"BUSY",
                   "the broker is at capacity and did nothing: retry in a few seconds, with fewer parallel clients",
                   "the broker is at capacity (every worker busy and the wait queue full or its deadline passed, "
                   "your connection limit, or the pixel budget): nothing was done",
                   "retry in a few seconds; run fewer clients in parallel"},
    [PG_E_STOPPED] = {"STOPPED",
                      "a person stopped the agents: wait for them to re-arm (the stop key again, or "
                      "`pixelgate resume` by root or an approver); nothing was done",
                      "a person pressed the stop key, or the keyboard was disabled, removed or re-flagged: "
                      "every operation but ping, caps, help and drop is refused, waits end, held input is "
                      "released; nothing was done",
                      "stop and tell the person; `pixelgate ping` says when a person has re-armed"},
    [PG_E_HUMAN] = {"HUMAN_ACTIVE",
                    "a person is using the machine: `pixelgate wait-for --human-idle`, then retry",
                    "a person is using the keyboard or mouse: agent input and captures are refused (not "
                    "queued) until the quiet period after their last input ends; the message says how long",
                    "`pixelgate wait-for --human-idle`, then retry; do not fight the person"},
    [PG_E_TARGET_CHANGED] = {"TARGET_CHANGED",
                             "take a fresh snapshot and look again before acting",
                             "--if-unchanged: the region around the target no longer looks as it did in the "
                             "token, or another window is on top there; nothing was sent",
                             "snapshot again and decide again; the screen changed under the pointer"},
};
_Static_assert(sizeof err_table / sizeof *err_table == PG_ERR_LAST + 1, "every code has its row");

static int code_valid(pg_err code) { return (int)code >= 0 && (int)code <= (int)PG_ERR_LAST; }

const char *pg_err_name(pg_err code) { return code_valid(code) ? err_table[code].name : "INTERNAL"; }

pg_err pg_err_from_name(const char *name) {
    if (!name) return PG_E_INTERNAL;
    for (int i = 0; i <= (int)PG_ERR_LAST; i++)
        if (strcmp(err_table[i].name, name) == 0) return (pg_err)i;
    return PG_E_INTERNAL;
}

const char *pg_err_default_tip(pg_err code) { return code_valid(code) ? err_table[code].tip : ""; }

const char *pg_err_meaning(pg_err code) { return code_valid(code) ? err_table[code].meaning : ""; }

const char *pg_err_action(pg_err code) { return code_valid(code) ? err_table[code].action : ""; }

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
