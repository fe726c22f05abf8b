/* SPDX-License-Identifier: MIT */
/* motion: do two frame series change with the same energy and rhythm
 * (broker/engine/pg_motion.h)? A series is a frame-set token (frames.c) or a
 * file of the caller's with its frames stacked top to bottom. The signature
 * of a protected series (a token under analyze-only or never) is reported on
 * a logarithmic scale and charged per value; everything else in the answer
 * is then computed from the reported signatures, so it tells nothing more
 * (docs/threat-model.md, "motion"). The plot becomes a token. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_motion.h"
#include "pg_call.h"

typedef struct {
    pg_img *img;                              /* the whole strip */
    pg_img view[PG_MOTION_MAX_FRAMES];        /* its frames, borrowed */
    const pg_img *frame[PG_MOTION_MAX_FRAMES];
    size_t n;
    bool prot;
    char label[64];
} side;

/* Loads one series and cuts it into frames. */
static pg_err load(pg_call *c, const pg_image_ref *ref, const char *name, int64_t file_frames, side *s, pg_error *e) {
    pg_tok_meta m;
    bool is_token = false;
    pg_err rc = pg_call_image(c, ref, &s->img, s->label, &m, &is_token, e);
    if (rc) return rc;
    s->prot = is_token && pg_disclose_protected(c->view);
    if (is_token && m.frames < 2)
        return pg_error_set(e, PG_E_USAGE, "capture a series with 'pixelgate frames'",
                            "%s %s is one image, not a frame set", name, s->label);
    if (!is_token && file_frames < 2)
        return pg_error_set(e, PG_E_USAGE, "say how many frames the file stacks: --file-frames N",
                            "%s is a file: its frame count is not known", name);
    s->n = is_token ? m.frames : (size_t)file_frames;
    uint32_t h = s->img->height / (uint32_t)s->n;
    if (h == 0 || (uint64_t)h * s->n != s->img->height)
        return pg_error_set(e, PG_E_BADINPUT, "stack frames of one size, top to bottom",
                            "%s is %u rows tall: not %zu frames of equal height", name, s->img->height, s->n);
    for (size_t i = 0; i < s->n; i++) {
        pg_img_rect r = {0, (uint32_t)i * h, s->img->width, h};
        if ((rc = pg_img_view(s->img, &r, &s->view[i], e))) return rc;
        s->frame[i] = &s->view[i];
    }
    return PG_OK;
}

/* A protected series' signature on the logarithmic scale; *bits gets its cost. */
static pg_err coarsen(pg_call *c, const side *s, double *sig, const char *what, double *bits, pg_error *e) {
    if (!s->prot) return PG_OK;
    pg_err rc = pg_disclose_area(c->view, (uint64_t)s->frame[0]->width * s->frame[0]->height, what, e);
    for (size_t i = 0; !rc && i + 1 < s->n; i++) sig[i] = pg_disclose_log(sig[i], bits);
    return rc;
}

static pg_err answer(pg_call *c, side *ref, side *cand, pg_motion_result *r, cJSON **out, pg_error *e) {
    pg_err rc = pg_motion_compare(ref->frame, ref->n, cand->frame, cand->n, r, e);
    double bits = 0;
    if (!rc) rc = coarsen(c, ref, r->ref_sig, "motion of REF frames", &bits, e);
    if (!rc) rc = coarsen(c, cand, r->cand_sig, "motion of CAND frames", &bits, e);
    if (rc) return rc;
    if (ref->prot || cand->prot) pg_motion_summarise(r); /* every number from the reported signatures */
    if ((rc = pg_motion_result_json(r, out, e))) return rc;
    if (ref->prot || cand->prot) {
        cJSON_AddStringToObject(*out, "resolution",
                                "coarse: signatures of pixels you may not have, within 4.4 % (docs/threat-model.md)");
        cJSON_AddNumberToObject(*out, "disclosed_bits", (double)(long long)(bits * 10 + 0.5) / 10);
    }
    rc = pg_call_disclose(c, bits, e);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

pg_err pg_op_motion(pg_call *c, const pg_args_motion *a, pg_error *e) {
    c->audit.kind = "motion";
    int64_t ff = a->has_file_frames ? a->file_frames : 0;
    side *ref = calloc(1, sizeof *ref), *cand = calloc(1, sizeof *cand);
    pg_motion_result *r = calloc(1, sizeof *r);
    pg_err rc = (!ref || !cand || !r) ? pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory") : PG_OK;
    if (!rc) rc = load(c, &a->ref, "REF", ff, ref, e);
    if (!rc) rc = load(c, &a->cand, "CAND", ff, cand, e);
    cJSON *j = NULL;
    if (!rc) rc = answer(c, ref, cand, r, &j, e);
    if (!rc) {
        pg_img *plot = NULL;
        pg_error pe;
        if (pg_motion_plot(r, &plot, &pe) == PG_OK) pg_call_derived_token(c, plot, "motion-plot", j, "plot_token", &pe);
        cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
        cJSON_AddStringToObject(ev, "reference", ref->label);
        cJSON_AddStringToObject(ev, "candidate", cand->label);
        snprintf(c->audit.detail, sizeof c->audit.detail, "motion_score %.2f over %zu and %zu frames%s", r->motion_score,
                 ref->n, cand->n, ref->prot || cand->prot ? ", coarse" : "");
        c->result = j;
    }
    if (ref) pg_img_free(ref->img);
    if (cand) pg_img_free(cand->img);
    free(ref), free(cand), free(r);
    return rc;
}
