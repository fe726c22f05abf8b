/* SPDX-License-Identifier: MIT */
/* release and approve: the only way pixels reach a client, and only where the
 * administrator's policy says so (expose_pixels), or once after a human
 * approver - another OS user, identified by the kernel - said yes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_call.h"

/* Decides whether this release may go ahead; fills the mode it goes under. */
static pg_err decide(pg_call *c, const pg_tok_meta *m, const char **mode, pg_error *e) {
    if (pg_policy_check_release(c->view, false, e) == PG_OK) {
        *mode = "allow";
        return PG_OK;
    }
    if (c->view->expose_pixels != PG_EXPOSE_ANALYZE_ONLY) return e->code; /* never: the message says so */
    char id[PG_APPROVAL_ID_LEN + 1];
    bool approved = false;
    pg_err rc = pg_approval_check(c->b->approvals, m, (uint32_t)c->peer->uid, c->peer->user, id, &approved, e);
    if (rc) return rc;
    snprintf(c->audit.request_id, sizeof c->audit.request_id, "%s", id);
    if (approved && pg_policy_check_release(c->view, true, e) == PG_OK) {
        *mode = "approved";
        return PG_OK;
    }
    c->details = cJSON_CreateObject();
    cJSON_AddStringToObject(c->details, "request_id", id);
    return pg_error_set(e, PG_E_POLICY, "ask an approver to run: pixelgate approve <request_id>, then release again",
                        "release needs an approver under expose_pixels analyze-only (request %s)", id);
}

/* The released image smaller than the token when max_size asks for it: only
 * the downscaled pixels are encoded, so only they leave the broker. */
static pg_err shrink(pg_call *c, const pg_args_release *a, pg_img **img, pg_error *e) {
    if (!a->has_max_size || ((*img)->width <= a->max_size.w && (*img)->height <= a->max_size.h)) return PG_OK;
    pg_img *small = NULL;
    pg_err rc = pg_img_downscale_fit(*img, a->max_size.w, a->max_size.h, &small, e);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "downscaled %ux%u -> %ux%u", (*img)->width, (*img)->height,
             small->width, small->height);
    pg_img_free(*img);
    *img = small;
    return PG_OK;
}

pg_err pg_op_release(pg_call *c, const pg_args_release *a, pg_error *e) {
    c->audit.kind = "release";
    pg_tok_meta m;
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_token_image(c, a->token, &img, label, &m, e);
    if (rc) return rc;
    pg_call_audit_token(c, &m);
    const char *mode = NULL;
    rc = decide(c, &m, &mode, e);
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    snprintf(c->audit.mode, sizeof c->audit.mode, "%s", mode);
    rc = shrink(c, a, &img, e);
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    uint32_t out_w = img->width, out_h = img->height;
    uint8_t *png = NULL;
    size_t png_len = 0;
    pg_png_opts popts = pg_png_opts_release(); /* what leaves is kept: smaller at the same cost */
    rc = pg_img_encode_png(img, &popts, &png, &png_len, e);
    pg_img_free(img);
    if (!rc) rc = pg_call_intent(c, e); /* the pixels leave with the reply: on record first */
    if (rc) {
        free(png);
        return rc;
    }
    c->reply_att = (pg_blob){png, png_len};
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "token", m.token);
    cJSON_AddNumberToObject(r, "width", m.width);
    cJSON_AddNumberToObject(r, "height", m.height);
    cJSON_AddStringToObject(r, "sha256", m.sha256);
    cJSON_AddStringToObject(r, "mode", mode);
    cJSON_AddStringToObject(r, "format", "png");
    cJSON_AddNumberToObject(r, "released_width", out_w);
    cJSON_AddNumberToObject(r, "released_height", out_h);
    /* released / stored, along the long side: what a caller multiplies a
     * point in the released image by to get back to the token's pixels */
    cJSON_AddNumberToObject(r, "scale", m.width >= m.height ? (double)out_w / m.width : (double)out_h / m.height);
    c->result = r;
    return PG_OK;
}

/* What the approver is shown of a request: who asked, and what the capture
 * is - so an agent cannot pass off a full-screen capture as "the dialog". */
static cJSON *request_json(const pg_approval_info *in, const char *state_key) {
    const pg_tok_meta *m = &in->subject;
    char token[16], captured[40];
    pg_tok_redact(m->token, token);
    pg_iso_time(m->created_ms, captured);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, state_key, in->id);
    cJSON_AddStringToObject(r, "requester", in->user);
    cJSON_AddStringToObject(r, "token", token);
    if (m->screen) {
        cJSON_AddStringToObject(r, "source", "screen");
    } else if (m->window_id) {
        cJSON_AddStringToObject(r, "source", "window");
        cJSON_AddNumberToObject(r, "window_id", (double)m->window_id);
        cJSON_AddStringToObject(r, "window_title", m->window_title);
        cJSON_AddStringToObject(r, "window_class", m->window_class);
        /* whose window it shows: an agent may have captured another user's */
        if (m->window_owner[0]) cJSON_AddStringToObject(r, "window_owner", m->window_owner);
        else cJSON_AddNullToObject(r, "window_owner");
    } else {
        cJSON_AddStringToObject(r, "source", "derived"); /* a diff heatmap, a crop, ... */
        cJSON_AddStringToObject(r, "method", m->method);
        if (m->source[0]) cJSON_AddStringToObject(r, "derived_from", m->source);
        else cJSON_AddNullToObject(r, "derived_from");
    }
    cJSON_AddNumberToObject(r, "width", m->width);
    cJSON_AddNumberToObject(r, "height", m->height);
    pg_call_region_json(m, r);
    cJSON_AddStringToObject(r, "captured_at", captured);
    cJSON_AddStringToObject(r, "sha256", m->sha256);
    return r;
}

pg_err pg_op_approve(pg_call *c, const pg_args_approve *a, pg_error *e) {
    c->audit.kind = "approve";
    const char *id = a->request;
    snprintf(c->audit.request_id, sizeof c->audit.request_id, "%.31s", id);
    pg_approval_info info;
    pg_err rc = pg_approval_get(c->b->approvals, id, &info, e);
    if (rc) return rc;
    const char *g1[64];
    char b1[4096];
    pg_principal approver, requester;
    pg_identity_principal(c->peer, &approver, g1, 64, b1, sizeof b1);
    approver.remote = pg_identity_remote(c->peer);
    pg_principal_start(&requester, info.uid, info.user, NULL); /* only who it is: uid and name */
    rc = pg_policy_may_approve(c->policy, &approver, &requester, e);
    if (!rc && !a->show) rc = pg_approval_approve(c->b->approvals, id, (uint32_t)c->peer->uid, &info, e);
    if (rc) return rc;
    char token[16];
    pg_tok_redact(info.subject.token, token);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s release of %s for %s (%ux%u, sha256 %.16s...)",
             a->show ? "shown" : "approved", token, info.user, (unsigned)info.subject.width,
             (unsigned)info.subject.height, info.subject.sha256);
    memcpy(c->audit.image_sha256, info.subject.sha256, sizeof c->audit.image_sha256);
    c->result = request_json(&info, a->show ? "pending" : "approved");
    return PG_OK;
}
