/* SPDX-License-Identifier: MIT */
/* pg_store.h - the broker's stores, one library (pg_store): what the broker
 * keeps between requests, and nothing of how a request is served.
 *
 *   pg_token.h     opaque capture tokens; pixels in memory or in the private
 *                  spool (pg_spool_fs.h: the one per-OS part)
 *   pg_approval.h  one-off pixel releases a human approved
 *   pg_baseline.h  visual baselines: candidates and approved ones
 *   pg_log.h       the broker's own log lines (stderr, the journal)
 *
 * Contract: every store is thread-safe, keeps its files under a directory
 * the broker made (mode 0700, files 0600, its own account) and gives out
 * names, never paths. Layer: above common/ and the platform's types, below
 * the core (broker/core/): a store never includes the core, a handler, the
 * policy or an image codec, and checks nobody's identity (the core does,
 * pg_identity.h, and passes uids).
 * Never: opens a path a client names, or reveals a spool path in a token.
 */
#ifndef PG_STORE_H
#define PG_STORE_H

#include "pg_approval.h"
#include "pg_baseline.h"
#include "pg_log.h"
#include "pg_token.h"

#endif
