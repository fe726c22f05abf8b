/* SPDX-License-Identifier: MIT */
/* caps: what the backend can do here, every operation, and what this
 * user's policy lets out of the broker (names and limits, no URLs). */
#include "pg_call.h"

static void add_caps(cJSON *o, const pg_caps *k) {
    cJSON_AddBoolToObject(o, "list_windows", k->list_windows);
    cJSON_AddBoolToObject(o, "capture_window", k->capture_window);
    cJSON_AddBoolToObject(o, "capture_covered", k->capture_covered);
    cJSON_AddBoolToObject(o, "capture_screen", k->capture_screen);
    cJSON_AddBoolToObject(o, "input_pointer", k->input_pointer);
    cJSON_AddBoolToObject(o, "input_keys", k->input_keys);
    cJSON_AddBoolToObject(o, "input_text_unicode", k->input_text_unicode);
    cJSON_AddBoolToObject(o, "settle", k->settle);
    cJSON_AddBoolToObject(o, "window_manager", k->window_manager);
}

/* What the agent can verify with: the pixels themselves (expose_pixels
 * allow), OCR plus an approved vision endpoint, OCR and the engine's
 * answers only, or nothing that reads text ("none": OCR off, no endpoint). */
static const char *caps_perception(const pg_policy_view *v) {
    if (v->expose_pixels == PG_EXPOSE_ALLOW) return "pixels";
    bool vision = v->expose_pixels != PG_EXPOSE_NEVER && v->n_endpoints > 0;
    if (vision) return v->ocr ? "ocr+vision" : "vision";
    return v->ocr ? "ocr-only" : "none";
}

/* What an agent cannot do here, said once: caps answers it and
 * docs/agents.md quotes that answer. Keep it short and true. */
static const char *const cannot[] = {
    ("hold a key or a button for long: what key-down and mouse-down hold is let go of when the call, the run "
     "script or the MCP session that pressed it ends, after input.hold_idle_s (10 s) without input from you, "
     "and after input.hold_max_s (60 s) in all"),
    "paste what another user's program or a denied one put on the clipboard (ctrl+v, shift+Insert, middle click)",
    "aim pointer verbs in a --with-popups snapshot (it maps to several windows: aim in the popup's own snapshot)",
    "read the accessibility tree: what you learn comes from pixels (OCR, layout) and window metadata",
    "drive Wayland-only windows: X11 (and XWayland) on Linux, Win32 on Windows",
    "drive another user's windows unless the policy says input.other_users, and never an approver's",
    "see or capture another user's windows unless the policy names that user in capture.other_users",
};

pg_err pg_op_caps(pg_call *c, const pg_args_caps *a, pg_error *e) {
    (void)a;
    pg_caps k = {0};
    pg_err rc = pg_call_plat_input(c, e);
    if (rc) { /* no display: the reason, and its state for a health check */
        c->details = cJSON_CreateObject();
        cJSON_AddItemToObject(c->details, "display", pg_broker_display_json(c->b));
        return rc;
    }
    rc = c->b->plat_ops->caps(c->plat, &k, e);
    pg_call_plat_done(c);
    if (rc) return rc;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "backend", k.backend);
    cJSON_AddStringToObject(r, "display", c->b->display);
    cJSON_AddStringToObject(r, "via", pg_call_display_source(c));
    cJSON_AddItemToObject(r, "display_state", pg_broker_display_json(c->b));
    add_caps(cJSON_AddObjectToObject(r, "capabilities"), &k);
    cJSON_AddStringToObject(r, "detail", k.detail);
    cJSON *ops = cJSON_AddArrayToObject(r, "operations");
    for (size_t i = 0; i < PG_OPI_COUNT; i++) cJSON_AddItemToArray(ops, cJSON_CreateString(pg_opdecls[i].id));
    cJSON *pol = pg_policy_view_to_json(c->view);
    if (pg_disclose_protected(c->view)) /* the caller's own budget left now, coarse (pg_disclose.h) */
        cJSON_AddNumberToObject(pol, "disclosure_balance_bits",
                                pg_disclose_balance(c->b->disclose, c->view, (uint32_t)c->peer->uid));
    cJSON_AddItemToObject(r, "policy", pol);
    cJSON_AddStringToObject(r, "perception", caps_perception(c->view));
    cJSON_AddItemToObject(r, "person", pg_broker_person_json(c->b));
    cJSON *no = cJSON_AddArrayToObject(r, "cannot");
    for (size_t i = 0; i < sizeof cannot / sizeof cannot[0]; i++) cJSON_AddItemToArray(no, cJSON_CreateString(cannot[i]));
    c->result = r;
    return PG_OK;
}
