/* SPDX-License-Identifier: MIT */
/* pg_token.h - the token store: opaque capture tokens and the private spool.
 *
 * A token is "cap:" + 128 random bits in base64url (22 chars). It names a
 * capture; it is not derived from, and never reveals, where the pixels live.
 * Pixels stay in the broker's memory while a memory budget allows (the fast
 * path: no copy, no disk); beyond it they are written to the spool directory
 * (mode 0700, owned by the broker) in files with independent random names
 * (0600). Metadata stays in memory, so tokens do not survive a broker restart
 * (the spool is emptied at start-up). Memory and spool both count towards the
 * quota.
 * Spool files, per platform (pg_spool_fs.h): on POSIX openat/unlinkat on a
 * directory fd (O_EXCL|O_NOFOLLOW, 0600); on Windows CreateFileW on the spool
 * directory's path with CREATE_NEW, FILE_ATTRIBUTE_TEMPORARY, share mode 0
 * while writing and FILE_FLAG_OPEN_REPARSE_POINT (a planted link is refused,
 * not followed), DeleteFileW, and FindFirstFileW for the start-up cleanup; the
 * directory is held open without FILE_SHARE_DELETE so it cannot be swapped.
 * On Windows the files inherit the directory's DACL: the broker must create
 * the spool directory with a protected DACL (service account, SYSTEM only).
 * Every lookup is bound to the uid that created the token: another uid, an
 * expired token and an unknown token all answer PG_E_NOTFOUND alike.
 * The store enforces a total-bytes quota, a per-user quota and a per-user
 * count (expired tokens are purged first; then the new capture is refused
 * with PG_E_POLICY saying how much is held and how to free it - nothing is
 * evicted). Each token counts its pixels plus PG_TOK_OVERHEAD (its metadata,
 * index and the spool file's last block), so a million 1x1 tokens cost what
 * they really cost. A user frees tokens with pg_tok_drop_mine/_all.
 * Lookups, inserts and drops are O(1) (a keyed hash index), a sweep is
 * O(expired log n) (an expiry heap).
 * Thread-safe. Never: returns a spool path, logs a whole token.
 */
#ifndef PG_TOKEN_H
#define PG_TOKEN_H

#include <stdbool.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_TOKEN_LEN 26 /* "cap:" + 22 */
#define PG_TOK_OVERHEAD 4096u          /* counted per token beside its pixels */
#define PG_TOK_UID_MAX_DEFAULT 10000u  /* tokens one user may hold at once */

typedef struct {
    char token[PG_TOKEN_LEN + 1];
    uint32_t uid;             /* owner */
    int64_t created_ms;       /* unix epoch ms */
    int64_t expires_ms;
    uint32_t width, height;   /* stored pixels (after crop/downscale) */
    uint32_t source_width, source_height; /* as captured, before downscale */
    char method[32];          /* capture path that ran */
    char sha256[65];          /* of the stored RGBA rows */
    bool screen;              /* whole-screen capture */
    uint64_t window_id;
    char window_title[256];
    char window_class[128];
    char window_owner[64];    /* the account the window's program ran as at capture ("" unknown),
                                 for the approver (pg_call_meta_window) */
    int32_t region_x, region_y; /* region applied, window/screen relative */
    uint32_t region_w, region_h; /* 0 = none */
    uint32_t frames;          /* a frame set (pixelgate frames): this many frames of
                                 height / frames rows each, stacked top to bottom;
                                 0 for one image */
    char source[48];          /* where the pixels came from, for the disclosure ledger
                                 (pg_disclose.h): "window:ID", "screen"; derived images
                                 inherit their input's; "" for the caller's own files */
} pg_tok_meta;

typedef struct pg_tok_store pg_tok_store;

/* spool_dir must exist, owned by us, mode 0700 (Windows: protected DACL; the
 * caller checks either), and may not be a link. Files
 * already in it are removed (orphans of an earlier run). */
pg_err pg_tok_store_new(pg_tok_store **out, const char *spool_dir, uint64_t quota_bytes, uint64_t memory_budget,
                        uint32_t ttl_s, pg_error *e);
void pg_tok_store_free(pg_tok_store *s);
/* Limits set after creation: the whole store's quota (0: unchanged), a
 * ceiling over every TTL asked for (0: none; the command line's, see
 * pg_broker.h), tokens per user (0: unchanged). */
void pg_tok_store_limits(pg_tok_store *s, uint64_t quota_bytes, uint32_t ttl_cap_s, unsigned uid_max_tokens);
/* The TTL a token asked for with ttl_s (0: the store's) gets. */
uint32_t pg_tok_effective_ttl(pg_tok_store *s, uint32_t ttl_s);

/* Stores tightly packed RGBA rows (width*4 bytes each), taking ownership of
 * the malloc'd rgba in every case (kept, or written to the spool and freed).
 * Fills meta->token, created_ms, expires_ms, sha256. */
/* ttl_s 0: the store's TTL. uid_quota 0: no per-user limit; otherwise the
 * owner's tokens together may hold at most that many bytes (PG_E_POLICY). */
pg_err pg_tok_put(pg_tok_store *s, pg_tok_meta *meta, uint8_t *rgba, uint32_t ttl_s, uint64_t uid_quota, pg_error *e);
/* pg_tok_put for pixels whose SHA-256 the caller computed as it produced them
 * (sha256: PG_SHA256_LEN bytes over exactly the rows stored; NULL: hash here).
 * The store trusts it: it is the broker's own, never a client's. */
pg_err pg_tok_put_hashed(pg_tok_store *s, pg_tok_meta *meta, uint8_t *rgba, const uint8_t *sha256, uint32_t ttl_s,
                         uint64_t uid_quota, pg_error *e);
pg_err pg_tok_get(pg_tok_store *s, const char *token, uint32_t uid, pg_tok_meta *out, pg_error *e);
/* *rgba is malloc'd tightly packed pixels; caller frees. */
pg_err pg_tok_load(pg_tok_store *s, const char *token, uint32_t uid, pg_tok_meta *meta, uint8_t **rgba, pg_error *e);
/* Removes one token (whoever owns it) and its pixels; no-op when unknown. */
void pg_tok_drop(pg_tok_store *s, const char *token);
/* A user's drop: removes the token if it is uid's and live, adding what it
 * counted to *freed (may be NULL); false for an unknown, expired or foreign
 * token alike (nothing is said about which). */
bool pg_tok_drop_mine(pg_tok_store *s, const char *token, uint32_t uid, uint64_t *freed);
/* Removes every token of uid; returns how many. */
unsigned pg_tok_drop_all(pg_tok_store *s, uint32_t uid, uint64_t *freed);
/* What uid holds: bytes counted against its quota, and tokens. */
void pg_tok_uid_usage(pg_tok_store *s, uint32_t uid, uint64_t *bytes, unsigned *count);
/* Removes expired tokens and their files; returns how many. */
unsigned pg_tok_sweep(pg_tok_store *s);
/* Bytes counted against the quota (pixels in memory and spool, and each
 * token's overhead), pixel bytes in memory, and tokens held. */
void pg_tok_usage(pg_tok_store *s, uint64_t *bytes, uint64_t *in_memory, unsigned *count);
/* "cap:AbCd…" - first 8 chars, for logs. */
void pg_tok_redact(const char *token, char out[16]);

#endif
