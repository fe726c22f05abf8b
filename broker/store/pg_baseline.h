/* SPDX-License-Identifier: MIT */
/* pg_baseline.h - the broker's store of visual baselines: candidates an
 * agent prepared and baselines an approver approved.
 *
 * What it does
 *   Keeps, under the broker's state dir (<state>/baselines, mode 0700, files
 *   0600, the broker's own account), two kinds of entry, each a JSON
 *   manifest plus the image as PNG bytes:
 *     candidates/<id>.{json,png}       prepared, waiting for an approver
 *     owners/<owner>/<case>/<variant>/<env>.{json,png}
 *                                      approved: one per owner, case, variant
 *                                      and environment key (docs/acceptance.md)
 *   An owner is "u<uid>", the account that prepared the case, or "shared"
 *   for a case the policy gives several owners (baselines.shared_cases): a
 *   case is never everyone's. Baselines approved before owners existed
 *   (cases/<case>/...) are read as their preparer's.
 *   Manifests are whatever the caller (broker/ops/baseline.c) writes; the
 *   store adds "png_sha256" (of the PNG bytes) on write and checks it on
 *   every read, so a file changed behind the broker's back reads as
 *   PG_E_BLOCKED ("integrity"), never as a baseline. Writes go to a new
 *   temporary file, are flushed, then renamed over the old one.
 *
 * What it never does
 *   Opens a path a client named (case and variant names are checked by
 *   pg_baseline_name_ok and are the only client words in a path), follows a
 *   symlink (POSIX: O_NOFOLLOW), decodes pixels, or decides who may do what
 *   (the handlers ask the policy).
 *
 * Ownership: manifests returned are owned by the caller (cJSON_Delete), PNG
 * bytes too (free). Thread-safe: one mutex around every call.
 */
#ifndef PG_BASELINE_H
#define PG_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_error.h"

#define PG_BASELINE_ID_LEN 16      /* "cand:" + 11 base64url characters */
#define PG_BASELINE_NAME_MAX 64    /* case and variant names */
#define PG_BASELINE_MAX_CANDIDATES 1024
#define PG_BASELINE_MAX_PNG ((size_t)64 << 20)

typedef struct pg_baselines pg_baselines;

/* Opens (creating with 0700) dir and its two subdirectories. */
pg_err pg_baseline_open(pg_baselines **out, const char *dir, pg_error *e);
void pg_baseline_close(pg_baselines *s);

/* A case or variant name: 1..64 of [A-Za-z0-9._-], not starting with '.'. */
bool pg_baseline_name_ok(const char *s);

/* Stores a new candidate; the store sets manifest "id" (into id_out too). */
pg_err pg_baseline_candidate_put(pg_baselines *s, cJSON *manifest, const uint8_t *png, size_t len,
                                 char id_out[PG_BASELINE_ID_LEN + 1], pg_error *e);
/* A candidate's manifest and (png non-NULL) its PNG. PG_E_NOTFOUND. */
pg_err pg_baseline_candidate_get(pg_baselines *s, const char *id, cJSON **manifest, uint8_t **png, size_t *len,
                                 pg_error *e);
pg_err pg_baseline_candidate_drop(pg_baselines *s, const char *id, pg_error *e);
/* Every candidate's manifest, as an array (owned). */
pg_err pg_baseline_candidates(pg_baselines *s, cJSON **out, pg_error *e);

/* Stores (replacing) owner's approved baseline of case/variant/env; the
 * manifest gets "owner". */
pg_err pg_baseline_put(pg_baselines *s, const char *owner, const char *case_id, const char *variant,
                       const char *env_key, cJSON *manifest, const uint8_t *png, size_t len, pg_error *e);
/* owner's approved baseline of case/variant/env (png NULL: manifest only). PG_E_NOTFOUND. */
pg_err pg_baseline_get(pg_baselines *s, const char *owner, const char *case_id, const char *variant,
                       const char *env_key, cJSON **manifest, uint8_t **png, size_t *len, pg_error *e);
/* Manifests of the approved baselines of one owner (NULL: every owner's,
 * for approvers), of one case (case_id non-NULL) or all; each names its
 * "owner". */
pg_err pg_baseline_list(pg_baselines *s, const char *owner, const char *case_id, cJSON **out, pg_error *e);

#endif
