/* SPDX-License-Identifier: MIT */
/* analyze and judge: a capture goes to an endpoint the administrator named in
 * the policy - chosen by the agent by name, never by URL - and only text
 * comes back. The relay resolves, checks and pins the destination itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_call.h"
#include "relay/pg_relay.h"

/* An endpoint as the relay wants it, filled from the policy's description. */
typedef struct {
    pg_endpoint ep;
    pg_dest_policy dest;
    const char *origin[1];
    char api_key[512];
} relay_target;

/* Reads the admin's API key file (first line). */
static pg_err read_api_key(const char *path, char *out, size_t n, pg_error *e) {
    FILE *f = fopen(path, "re");
    if (!f) return pg_error_set(e, PG_E_INTERNAL, "the administrator must make the key file readable by pixelgate",
                                "cannot read the endpoint's api_key_file");
    out[0] = '\0';
    if (fgets(out, (int)n, f)) out[strcspn(out, "\r\n")] = '\0';
    fclose(f);
    return PG_OK;
}

static pg_err target_for(pg_call *c, const char *name, relay_target *t, pg_error *e) {
    const pg_policy_endpoint *pe = NULL;
    pg_err rc = pg_policy_endpoint_find(c->view, name, &pe, e);
    if (rc) return rc;
    memset(t, 0, sizeof *t);
    snprintf(c->audit.endpoint, sizeof c->audit.endpoint, "%s", pe->name);
    t->ep.name = pe->name;
    t->ep.kind = pe->kind == PG_ENDPOINT_OPENAI ? PG_EP_OPENAI : PG_EP_COMMAND;
    t->ep.url = pe->url;
    t->ep.model = pe->model;
    t->ep.unix_socket = pe->unix_socket;
    t->ep.argv = pe->argv;
    t->ep.timeout_s = pe->timeout_s;
    t->ep.max_response_bytes = (size_t)pe->max_response_bytes;
    if (pe->api_key_file) {
        rc = read_api_key(pe->api_key_file, t->api_key, sizeof t->api_key, e);
        if (rc) return rc;
        t->ep.api_key = t->api_key;
    }
    /* The policy already refused any endpoint whose origin is not allowlisted. */
    t->origin[0] = pe->origin;
    t->dest.mode = c->view->analysis_mode == PG_ANALYSIS_ALLOWLIST ? PG_DEST_ALLOWLIST : PG_DEST_LOCAL_ONLY;
    t->dest.allow_origins = t->origin;
    t->dest.n_allow_origins = pe->origin ? 1 : 0;
    return PG_OK;
}

/* The token's pixels as PNG, for the endpoint; records the token for audit. */
static pg_err token_png(pg_call *c, const char *token, uint8_t **png, size_t *len, pg_tok_meta *m, pg_error *e) {
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_token_image(c, token, &img, label, m, e);
    if (rc) return rc;
    pg_call_audit_token(c, m);
    rc = pg_img_encode_png(img, NULL, png, len, e);
    pg_img_free(img);
    return rc;
}

/* What analyze and judge both start with: the endpoint the policy names, and
 * the token's pixels as PNG (*png owned by the caller, NULL on failure). */
static pg_err prepare(pg_call *c, const char *endpoint, const char *token, relay_target *t, uint8_t **png,
                      size_t *len, pg_tok_meta *m, pg_error *e) {
    *png = NULL;
    *len = 0;
    pg_err rc = target_for(c, endpoint, t, e);
    return rc ? rc : token_png(c, token, png, len, m, e);
}

pg_err pg_op_analyze(pg_call *c, const pg_args_analyze *a, pg_error *e) {
    c->audit.kind = "analyze";
    relay_target t;
    pg_tok_meta m;
    uint8_t *png;
    size_t len;
    pg_err rc = prepare(c, a->endpoint, a->token, &t, &png, &len, &m, e);
    char *answer = NULL;
    if (!rc) rc = pg_call_intent(c, e); /* the image leaves for the endpoint: on record first */
    if (!rc) rc = pg_relay_analyze(&t.ep, &t.dest, png, len, a->prompt, &answer, e);
    free(png);
    if (rc) return rc;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "answer", answer);
    cJSON_AddStringToObject(r, "endpoint", t.ep.name);
    cJSON_AddStringToObject(r, "token", m.token);
    free(answer);
    c->result = r;
    return PG_OK;
}

static const char *status_of(pg_content_status s) {
    switch (s) {
    case PG_CONTENT_MATCH: return "passed";
    case PG_CONTENT_MISMATCH: return "failed";
    case PG_CONTENT_UNCERTAIN: return "uncertain";
    default: return "blocked";
    }
}

static cJSON *judge_json(const pg_judge_result *j, const char *endpoint, const char *token, bool blocking) {
    cJSON *r = cJSON_CreateObject();
    bool blocked = j->status == PG_CONTENT_BLOCKED;
    cJSON_AddStringToObject(r, "outcome", blocked && j->reason_code ? j->reason_code : pg_content_status_name(j->status));
    cJSON_AddStringToObject(r, "status", status_of(j->status));
    cJSON_AddBoolToObject(r, "blocking", blocking);
    cJSON_AddStringToObject(r, "reason_code", j->reason_code ? j->reason_code : "");
    cJSON *v = cJSON_AddObjectToObject(r, "votes");
    cJSON_AddNumberToObject(v, "match", j->votes_match);
    cJSON_AddNumberToObject(v, "mismatch", j->votes_mismatch);
    cJSON_AddNumberToObject(v, "uncertain", j->votes_uncertain);
    cJSON *arr = cJSON_AddArrayToObject(r, "samples");
    for (unsigned i = 0; i < j->completed && i < 9; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "verdict", pg_verdict_name(j->sample[i].verdict));
        cJSON_AddStringToObject(s, "reason", j->sample[i].reason);
        cJSON_AddItemToArray(arr, s);
    }
    cJSON_AddBoolToObject(r, "cached", j->cached);
    if (blocked) cJSON_AddStringToObject(r, "error", j->error.message);
    cJSON_AddStringToObject(r, "endpoint", endpoint);
    cJSON_AddStringToObject(r, "token", token);
    if (j->status == PG_CONTENT_UNCERTAIN)
        cJSON_AddStringToObject(r, "warning", "AI content judgement uncertain (warning only): it never changes the verdict");
    else if (j->status != PG_CONTENT_MATCH && !blocking)
        cJSON_AddStringToObject(r, "warning", "AI content judgement did not pass (warning only, does not affect the "
                                              "conclusion); do not fake artifacts or relax checks to silence it");
    return r;
}

pg_err pg_op_judge(pg_call *c, const pg_args_judge *a, pg_error *e) {
    c->audit.kind = "judge";
    relay_target t;
    pg_tok_meta m;
    uint8_t *png;
    size_t len;
    pg_err rc = prepare(c, a->endpoint, a->token, &t, &png, &len, &m, e);
    if (rc) return rc; /* refused or no such token: not a judgement */
    pg_judge_result j;
    memset(&j, 0, sizeof j);
    rc = pg_call_intent(c, e);
    if (!rc)
        rc = pg_relay_judge(&t.ep, &t.dest, c->b->judge_cache, (uint32_t)c->peer->uid, png, len, a->expect,
                            (unsigned)a->samples, &j, e);
    free(png);
    if (rc && j.status != PG_CONTENT_BLOCKED) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s (%s) %u/%u/%u%s%s", pg_content_status_name(j.status),
             j.reason_code ? j.reason_code : "", j.votes_match, j.votes_mismatch, j.votes_uncertain,
             j.cached ? " cached" : "", a->blocking ? " blocking" : " warning-only");
    cJSON *r = judge_json(&j, t.ep.name, m.token, a->blocking);
    bool fails = a->blocking && (j.status == PG_CONTENT_MISMATCH || j.status == PG_CONTENT_BLOCKED);
    if (!fails) {
        c->result = r;
        return PG_OK;
    }
    /* The check ran and said no, or could not run: the outcome on stdout. */
    c->details = r;
    if (j.status == PG_CONTENT_BLOCKED)
        return pg_error_set(e, PG_E_BLOCKED, "the endpoint failed: fix it, then judge again (never cached)",
                            "content judgement blocked: %s", j.reason_code ? j.reason_code : "");
    return pg_error_set(e, PG_E_ASSERT, "look at the samples' reasons; retry when the screen shows what you expect",
                        "content judgement: %s", pg_content_status_name(j.status));
}
