/* SPDX-License-Identifier: MIT */
/* spec through pg_dispatch: a file the agent sent (its bytes and name) gets
 * every check, exactly; a token only the pixel checks, and says so. */
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_img_codec.h"
#include "pg_test.h"

static pg_blob png_of(uint32_t w, uint32_t h) {
    pg_img *img = NULL;
    pg_img_new(&img, w, h, NULL);
    memset(img->px, 255, img->stride * h);
    uint8_t *png = NULL;
    size_t len = 0;
    pg_img_encode_png(img, NULL, &png, &len, NULL);
    pg_img_free(img);
    return (pg_blob){png, len};
}

PG_TEST(spec_of_a_file_checks_format_name_and_size_and_exits_1_on_a_repairable_failure) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    pg_blob f = png_of(1200, 630);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "spec", "{\"image\":{\"attachment\":0},\"file_name\":\"og.png\",\"formats\":[\"png\"],"
                                         "\"width\":\"1200\",\"height\":\"630\",\"aspect_ratio\":\"1.905\"}",
                            &f, 1, &r),
                 PG_OK);
    CHECK_STR(pg_fx_str(&r, "status"), "passed");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "spec", "{\"image\":{\"attachment\":0},\"file_name\":\"og.jpg\",\"dpi\":\"72\"}", &f,
                            1, &r),
                 PG_E_ASSERT);
    CHECK_STR(pg_fx_str(&r, "status"), "failed");
    char *s = cJSON_PrintUnformatted(r.details);
    CHECK(strstr(s, "EXTENSION_MISMATCH") && strstr(s, "DPI_MISSING") && strstr(s, "\"repairable\":true"));
    free(s);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "spec", "{\"image\":{\"attachment\":0},\"width\":\"wide\"}", &f, 1, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    free(f.data);
    pg_fx_fini(&fx);
}

PG_TEST(spec_of_a_token_runs_only_the_pixel_checks_and_says_so) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 120, 80, 0xffffffff);
    char tok[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"width\":\"120\",\"transparency\":\"opaque\",\"dpi\":\"72\"}",
             tok);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "spec", args, NULL, 0, &r), PG_OK);
    const cJSON *na = cJSON_GetObjectItem(r.result, "not_applicable");
    CHECK(cJSON_GetArraySize(na) >= 5);
    CHECK(pg_fx_str(&r, "note") != NULL);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "checks")), 2); /* width, transparency */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(spec_of_a_file_over_the_input_limit_blocks) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"images\":{\"max_input_bytes\":1024}}") ==
            0);
    pg_blob f = png_of(300, 300);
    uint8_t *big = calloc(1, 4096);
    memcpy(big, f.data, f.len < 4096 ? f.len : 4096);
    pg_blob b = {big, 4096};
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "spec", "{\"image\":{\"attachment\":0}}", &b, 1, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "status"), "blocked");
    pg_fx_reply_fini(&r);
    free(big);
    free(f.data);
    pg_fx_fini(&fx);
}
