/* SPDX-License-Identifier: MIT */
/* One-off releases: requested, approved by someone else, consumed once;
 * shown to the approver as what they are; capped per user. */
#include <stdio.h>

#include "pg_approval.h"
#include "pg_test.h"

static pg_tok_meta meta(const char *token) {
    pg_tok_meta m = {.width = 640, .height = 480, .created_ms = 1700000000123LL, .window_id = 42};
    snprintf(m.token, sizeof m.token, "%s", token);
    snprintf(m.window_title, sizeof m.window_title, "Invoice - Mail");
    snprintf(m.sha256, sizeof m.sha256, "%064d", 7);
    return m;
}

PG_TEST(approval_is_one_off_and_never_by_the_requester) {
    pg_approvals *a;
    REQUIRE(pg_approval_new(&a, NULL) == PG_OK);
    pg_tok_meta m = meta("cap:AAAAAAAAAAAAAAAAAAAAAA");
    char id[PG_APPROVAL_ID_LEN + 1], id2[PG_APPROVAL_ID_LEN + 1];
    pg_approval_info info;
    bool ok;
    REQUIRE(pg_approval_check(a, &m, 1000, "agent", id, &ok, NULL) == PG_OK);
    CHECK(!ok);
    CHECK(strncmp(id, "rel:", 4) == 0 && strlen(id) == PG_APPROVAL_ID_LEN);
    REQUIRE(pg_approval_check(a, &m, 1000, "agent", id2, &ok, NULL) == PG_OK);
    CHECK(!ok);
    CHECK_STR(id2, id); /* asking again keeps the same request */
    pg_error e;
    CHECK_EQ_INT(pg_approval_approve(a, id, 1000, &info, &e), PG_E_POLICY); /* own request */
    CHECK_EQ_INT(pg_approval_approve(a, "rel:nope", 0, &info, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(pg_approval_get(a, "rel:nope", &info, &e), PG_E_NOTFOUND);
    REQUIRE(pg_approval_check(a, &m, 1001, "other", id2, &ok, NULL) == PG_OK); /* another uid: own request */
    CHECK(!ok);
    CHECK(strcmp(id2, id) != 0);
    /* what the approver is shown: who asked and what the capture is */
    REQUIRE(pg_approval_get(a, id, &info, &e) == PG_OK);
    CHECK_STR(info.user, "agent");
    CHECK_STR(info.subject.window_title, "Invoice - Mail");
    CHECK_EQ_INT(info.subject.width, 640);
    CHECK_EQ_INT(info.subject.created_ms, 1700000000123LL);
    CHECK(!info.approved);
    REQUIRE(pg_approval_approve(a, id, 0, &info, &e) == PG_OK);
    CHECK_STR(info.user, "agent");
    CHECK_STR(info.subject.sha256, m.sha256);
    REQUIRE(pg_approval_check(a, &m, 1001, "other", id2, &ok, NULL) == PG_OK);
    CHECK(!ok); /* approval was for uid 1000 only */
    REQUIRE(pg_approval_check(a, &m, 1000, "agent", id2, &ok, NULL) == PG_OK);
    CHECK(ok);
    REQUIRE(pg_approval_check(a, &m, 1000, "agent", id2, &ok, NULL) == PG_OK);
    CHECK(!ok); /* consumed */
    pg_approval_free(a);
}

PG_TEST(one_user_holds_at_most_eight_pending_requests_and_others_are_not_blocked) {
    pg_approvals *a;
    REQUIRE(pg_approval_new(&a, NULL) == PG_OK);
    char id[PG_APPROVAL_ID_LEN + 1], tok[32];
    bool ok;
    pg_error e;
    for (int i = 0; i < PG_APPROVAL_MAX_PER_UID; i++) {
        snprintf(tok, sizeof tok, "cap:%022d", i);
        pg_tok_meta m = meta(tok);
        CHECK_EQ_INT(pg_approval_check(a, &m, 1000, "agent", id, &ok, &e), PG_OK);
    }
    pg_tok_meta m = meta("cap:BBBBBBBBBBBBBBBBBBBBBB");
    CHECK_EQ_INT(pg_approval_check(a, &m, 1000, "agent", id, &ok, &e), PG_E_POLICY);
    CHECK(strstr(e.message, "pending") != NULL);
    snprintf(tok, sizeof tok, "cap:%022d", 3); /* an existing request is still answered */
    pg_tok_meta old = meta(tok);
    CHECK_EQ_INT(pg_approval_check(a, &old, 1000, "agent", id, &ok, &e), PG_OK);
    CHECK_EQ_INT(pg_approval_check(a, &m, 1001, "other", id, &ok, &e), PG_OK);
    pg_approval_free(a);
}
