/* One-off releases: requested, approved by someone else, consumed once. */
#include "pg_approval.h"
#include "pg_test.h"

static const char *TOK = "cap:AAAAAAAAAAAAAAAAAAAAAA";

PG_TEST(approval_is_one_off_and_never_by_the_requester) {
    pg_approvals *a;
    REQUIRE(pg_approval_new(&a, NULL) == PG_OK);
    char id[PG_APPROVAL_ID_LEN + 1], id2[PG_APPROVAL_ID_LEN + 1], who[64], red[16];
    bool ok;
    REQUIRE(pg_approval_check(a, TOK, 1000, "agent", id, &ok, NULL) == PG_OK);
    CHECK(!ok);
    CHECK(strncmp(id, "rel:", 4) == 0 && strlen(id) == PG_APPROVAL_ID_LEN);
    REQUIRE(pg_approval_check(a, TOK, 1000, "agent", id2, &ok, NULL) == PG_OK);
    CHECK(!ok);
    CHECK_STR(id2, id); /* asking again keeps the same request */
    pg_error e;
    CHECK_EQ_INT(pg_approval_approve(a, id, 1000, who, red, &e), PG_E_POLICY); /* own request */
    CHECK_EQ_INT(pg_approval_approve(a, "rel:nope", 0, who, red, &e), PG_E_NOTFOUND);
    REQUIRE(pg_approval_check(a, TOK, 1001, "other", id2, &ok, NULL) == PG_OK); /* another uid: own request */
    CHECK(!ok);
    CHECK(strcmp(id2, id) != 0);
    REQUIRE(pg_approval_approve(a, id, 0, who, red, &e) == PG_OK);
    CHECK_STR(who, "agent");
    CHECK(strstr(red, "cap:") == red && strlen(red) < 16);
    REQUIRE(pg_approval_check(a, TOK, 1001, "other", id2, &ok, NULL) == PG_OK);
    CHECK(!ok); /* approval was for uid 1000 only */
    REQUIRE(pg_approval_check(a, TOK, 1000, "agent", id2, &ok, NULL) == PG_OK);
    CHECK(ok);
    REQUIRE(pg_approval_check(a, TOK, 1000, "agent", id2, &ok, NULL) == PG_OK);
    CHECK(!ok); /* consumed */
    pg_approval_free(a);
}
