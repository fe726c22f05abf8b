/* SPDX-License-Identifier: MIT */
/* Honest delivery (issue 30): an input the backend sent but could not see
 * delivered in time is a success that says "delivery": "unconfirmed", never
 * a failure with a retry tip (a retry would click twice); with
 * --expect-change the effect check decides. The fake desktop's
 * pg_fake_unconfirm stands for an X server that kept a grabbed click queued
 * past the wait. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_test.h"

static uint64_t own_window(pg_fx *fx) {
    return pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
}

/* The whole reply as the client prints it, for a look at every field. */
static bool reply_mentions(const pg_fx_reply *r, const char *word) {
    char *text = r->result ? cJSON_PrintUnformatted(r->result) : NULL;
    bool found = (text && strstr(text, word)) || strstr(r->e.message, word) || strstr(r->e.recovery_tip, word);
    free(text);
    return found;
}

PG_TEST(an_unconfirmed_click_exits_0_says_delivery_unconfirmed_and_gives_no_retry_tip) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    own_window(&fx);
    pg_fake_unconfirm(fx.fake, 1);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5}}", NULL, 0, &r), PG_OK);
    CHECK_STR(pg_fx_str(&r, "delivery"), "unconfirmed");
    CHECK_STR(r.e.recovery_tip, "");
    CHECK(!reply_mentions(&r, "retry"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1); /* sent once */
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "click", "OK"), 1);
    cJSON *all = pg_fx_audit(&fx);
    char *text = cJSON_PrintUnformatted(all);
    CHECK(strstr(text, "delivery unconfirmed") != NULL); /* the record says what the agent was told */
    free(text);
    cJSON_Delete(all);
    /* the count was read and reset: the next click is confirmed */
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5}}", NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "delivery"), "confirmed");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* Every input verb through the same path: a key, a scroll and a drag. */
PG_TEST(unconfirmed_keys_scrolls_and_drags_are_successes_too) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    own_window(&fx);
    static const char *const calls[][2] = {
        {"key", "{\"window\":\"demo\",\"chord\":\"Return\"}"},
        {"scroll", "{\"window\":\"demo\",\"direction\":\"down\"}"},
        {"drag", "{\"window\":\"demo\",\"from\":{\"x\":1,\"y\":1},\"to\":{\"x\":20,\"y\":5},\"hold_ms\":0,"
                 "\"step_ms\":0,\"steps\":2}"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        pg_fake_unconfirm(fx.fake, 1);
        pg_fx_reply r;
        CHECK_EQ_INT(pg_fx_call(&fx, calls[i][0], calls[i][1], NULL, 0, &r), PG_OK);
        CHECK_STR(pg_fx_str(&r, "delivery"), "unconfirmed");
        CHECK(!reply_mentions(&r, "retry"));
        pg_fx_reply_fini(&r);
    }
    pg_fx_fini(&fx);
}

/* --expect-change decides: nothing changed is exit 1 (the effect check's
 * verdict), whatever the delivery; a change is exit 0 and still says the
 * delivery was not confirmed when it came. */
PG_TEST(with_expect_change_the_effect_check_decides_an_unconfirmed_click) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    uint64_t id = own_window(&fx);
    pg_fake_unconfirm(fx.fake, 1);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true,"
                                          "\"timeout\":0.2}", NULL, 0, &r),
                 PG_E_ASSERT);
    CHECK(strstr(r.e.message, "no visible effect") != NULL);
    pg_fx_reply_fini(&r);
    uint8_t *px = malloc(80 * 40 * 4);
    REQUIRE(px);
    memset(px, 0xff, 80 * 40 * 4);
    for (uint32_t y = 0; y < 40; y++) memset(px + (y * 80 + 10) * 4, 0, 8 * 4); /* the click's effect: a bar */
    pg_fake_add_frame(fx.fake, id, px, false);
    free(px);
    pg_fake_unconfirm(fx.fake, 1);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true}",
                            NULL, 0, &r),
                 PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "effect"), "changed")));
    CHECK_STR(pg_fx_str(&r, "delivery"), "unconfirmed");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

