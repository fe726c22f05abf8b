/* Image arguments and derived images, shared by the comparison ops.
 * An image argument is {"token": "cap:..."} (a capture of the caller's) or
 * {"attachment": N} (bytes the client read from its own file). The broker
 * never opens a path a client names. Decoding is capped by the caller's
 * policy (input bytes, decoded pixels) before any pixel is allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img_codec.h"
#include "pg_ops.h"

pg_err pg_image_from_token(pg_call *c, const char *token, pg_img **out, char label[64], pg_tok_meta *meta,
                           pg_error *e) {
    pg_tok_meta m;
    uint8_t *px = NULL;
    pg_err rc = pg_tok_load(c->b->tokens, token, (uint32_t)c->peer->uid, &m, &px, e);
    if (rc) return rc;
    rc = pg_img_wrap(out, px, m.width, m.height, (size_t)m.width * 4, e);
    if (rc) free(px);
    pg_tok_redact(m.token, label);
    if (!c->audit.image_sha256[0]) memcpy(c->audit.image_sha256, m.sha256, sizeof c->audit.image_sha256);
    if (!c->audit.token[0]) memcpy(c->audit.token, m.token, sizeof c->audit.token);
    if (!rc && meta) *meta = m;
    return rc;
}

static pg_err from_attachment(pg_call *c, int64_t idx, pg_img **out, char label[64], pg_error *e) {
    if (idx < 0 || (size_t)idx >= c->msg->n_att)
        return pg_error_set(e, PG_E_USAGE, NULL, "image refers to attachment %lld, the request has %zu", (long long)idx,
                            c->msg->n_att);
    const pg_blob *b = &c->msg->att[idx];
    pg_img_limits lim = {(size_t)c->view->max_input_bytes, c->view->max_pixels};
    if (b->len > lim.max_input_bytes)
        return pg_error_set(e, PG_E_BADINPUT, "send a smaller image (images.max_input_bytes in the policy)",
                            "image of %zu bytes is over the limit of %zu", b->len, lim.max_input_bytes);
    snprintf(label, 64, "file #%lld", (long long)idx);
    return pg_img_decode(b->data, b->len, &lim, out, e);
}

pg_err pg_image_arg(pg_call *c, const char *name, pg_img **out, char label[64], pg_error *e) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(c->req->args, name);
    static const pg_arg_spec spec[] = {{"token", PG_ARG_STRING, false}, {"attachment", PG_ARG_INT, false}};
    if (!cJSON_IsObject(o)) return pg_error_set(e, PG_E_USAGE, NULL, "missing image argument \"%s\"", name);
    pg_err rc = pg_args_check(o, spec, 2, e);
    if (rc) return rc;
    const char *token = pg_args_str(o, "token", NULL);
    bool has_att = cJSON_GetObjectItemCaseSensitive(o, "attachment") != NULL;
    if (!!token == has_att)
        return pg_error_set(e, PG_E_USAGE, NULL, "image \"%s\" needs exactly one of token or attachment", name);
    return token ? pg_image_from_token(c, token, out, label, NULL, e) : from_attachment(c, pg_args_int(o, "attachment", -1), out, label, e);
}

pg_err pg_rect_arg(const cJSON *args, const char *name, pg_img_rect *r, bool *has, pg_error *e) {
    pg_rect pr;
    pg_err rc = pg_region_arg(args, name, &pr, has, e);
    if (rc || !*has) return rc;
    if (pr.x < 0 || pr.y < 0)
        return pg_error_set(e, PG_E_USAGE, NULL, "%s must lie inside the image (x, y >= 0)", name);
    *r = (pg_img_rect){(uint32_t)pr.x, (uint32_t)pr.y, pr.w, pr.h};
    return PG_OK;
}

pg_err pg_store_image(pg_call *c, pg_img *img, pg_tok_meta *m, pg_error *e) {
    if (img->stride != (size_t)img->width * 4) { /* the store holds tight rows */
        pg_img *tight = NULL;
        pg_err rc = pg_img_clone(img, &tight, e);
        pg_img_free(img);
        if (rc) return rc;
        img = tight;
    }
    m->uid = (uint32_t)c->peer->uid;
    m->width = img->width;
    m->height = img->height;
    uint8_t *px = img->px; /* the store takes the pixels over */
    img->px = NULL;
    pg_img_free(img);
    return pg_tok_put(c->b->tokens, m, px, c->view->token_ttl_s, c->view->spool_quota_bytes, e);
}

pg_err pg_derived_token(pg_call *c, pg_img *img, const char *method, cJSON *into, const char *field, pg_error *e) {
    pg_tok_meta m;
    memset(&m, 0, sizeof m);
    m.source_width = img->width;
    m.source_height = img->height;
    snprintf(m.method, sizeof m.method, "%s", method);
    pg_err rc = pg_store_image(c, img, &m, e);
    if (rc) return rc;
    cJSON_AddStringToObject(into, field, m.token);
    return PG_OK;
}
