/* SPDX-License-Identifier: MIT */
/* Every reply field is declared (common/pg_ops.def: name, JSON type,
 * disclosure class), and pg_opdecl_check_reply, which the broker fixture runs
 * on every reply the handler tests get, refuses a reply that strays from the
 * declaration: an undeclared field, a field of another JSON type, a field
 * declared without a class. */
#include <string.h>

#include "pg_broker_fixture.h"
#include "pg_jnum.h"
#include "pg_opdecl.h"
#include "pg_test.h"

/* A declaration of its own, so the checker is tested apart from pg_ops.def. */
static const pg_fielddecl toy_fields[] = {
    {.name = "count", .types = PG_J_INT, .cls = PG_DC_NONE, .doc = "how many"},
    {.name = "score", .types = PG_J_NUM | PG_J_NULL, .cls = PG_DC_QUANTISED, .doc = "to 0.01"},
    {.name = "text", .types = PG_J_STRING, .cls = PG_DC_RELEASED, .doc = "OCR text"},
    {.name = "box", .types = PG_J_OBJECT, .cls = PG_DC_CHARGED, .doc = "x, y, w, h"},
    {.name = "unclassed", .types = PG_J_BOOL, .cls = PG_DC_UNSET, .doc = "a declaration that forgot its class"},
};
static const pg_opdecl toy = {.id = "toy", .fields = toy_fields, .n_fields = sizeof toy_fields / sizeof *toy_fields};

/* pg_opdecl_check_reply of reply (JSON text) against toy; *why gets its message. */
static pg_err check_toy(const char *reply, char why[PG_ERR_MSG_MAX]) {
    cJSON *j = cJSON_Parse(reply);
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = j ? pg_opdecl_check_reply(&toy, j, &e) : PG_E_USAGE;
    snprintf(why, PG_ERR_MSG_MAX, "%s", e.message);
    cJSON_Delete(j);
    return rc;
}

PG_TEST(a_reply_of_declared_fields_of_their_types_passes) {
    char why[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(check_toy("{\"count\":3,\"score\":0.25,\"text\":\"OK\",\"box\":{\"x\":8}}", why), PG_OK);
    CHECK_EQ_INT(check_toy("{\"score\":null}", why), PG_OK);
    CHECK_EQ_INT(check_toy("{}", why), PG_OK); /* fields are optional: most appear only sometimes */
    CHECK_EQ_INT(check_toy("{\"score\":1}", why), PG_OK); /* an integer is a number */
}

PG_TEST(an_undeclared_field_fails_the_check_by_name) {
    char why[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(check_toy("{\"count\":1,\"inverted\":true}", why), PG_E_INTERNAL);
    CHECK(strstr(why, "\"inverted\"") && strstr(why, "not declared"));
}

PG_TEST(a_field_of_another_json_type_fails_the_check) {
    char why[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(check_toy("{\"count\":\"3\"}", why), PG_E_INTERNAL);
    CHECK(strstr(why, "\"count\"") && strstr(why, "(integer)"));
    CHECK_EQ_INT(check_toy("{\"count\":2.5}", why), PG_E_INTERNAL); /* INT: no fraction */
    CHECK_EQ_INT(check_toy("{\"count\":null}", why), PG_E_INTERNAL); /* null only where declared */
    CHECK_EQ_INT(check_toy("{\"box\":[1,2]}", why), PG_E_INTERNAL);
    CHECK(strstr(why, "(object)") != NULL);
    CHECK_EQ_INT(check_toy("[1]", why), PG_E_INTERNAL); /* a reply is an object */
}

PG_TEST(a_field_declared_without_a_class_fails_the_check) {
    char why[PG_ERR_MSG_MAX];
    CHECK_EQ_INT(check_toy("{\"unclassed\":true}", why), PG_E_INTERNAL);
    CHECK(strstr(why, "\"unclassed\"") && strstr(why, "no disclosure class"));
}

PG_TEST(fixed_decimal_numbers_count_as_numbers) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "score", pg_jnum(0.4567, 2)); /* raw "0.46", as motion and compare write them */
    cJSON_AddItemToObject(j, "count", pg_jnum(7, 0));
    pg_error e;
    CHECK_EQ_INT(pg_opdecl_check_reply(&toy, j, &e), PG_OK);
    cJSON_ReplaceItemInObject(j, "count", pg_jnum(7.5, 1));
    CHECK_EQ_INT(pg_opdecl_check_reply(&toy, j, &e), PG_E_INTERNAL);
    cJSON_Delete(j);
}

/* The table itself: every field of every operation has a type, a class and
 * a doc line, once. (pg_gendoc check says the same for the docs.) */
PG_TEST(every_declared_reply_field_has_a_type_a_class_and_a_doc_once) {
    size_t total = 0;
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        const pg_opdecl *d = &pg_opdecls[i];
        if (d->n_fields == 0) fprintf(stderr, "%s declares no reply field\n", d->id);
        CHECK(d->n_fields > 0);
        for (size_t k = 0; k < d->n_fields; k++) {
            const pg_fielddecl *f = &d->fields[k];
            total++;
            if (f->cls == PG_DC_UNSET || !f->types || !f->doc || !f->doc[0] || pg_opdecl_field(d, f->name) != f)
                fprintf(stderr, "%s.%s: class, type, doc or uniqueness wrong\n", d->id, f->name);
            CHECK(f->cls != PG_DC_UNSET && f->types && f->doc && f->doc[0]);
            CHECK(pg_opdecl_field(d, f->name) == f); /* the first of its name: no duplicate */
        }
    }
    CHECK(total > 300);
}

/* Through the fixture, as every handler test: a real reply is checked and
 * passes, and the counter the harness reads stays where it was. */
PG_TEST(the_fixture_checks_every_reply_against_its_declaration) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    int before = pg_test_side_failures;
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "ping", NULL, NULL, 0, &r) == PG_OK);
    pg_error e;
    CHECK_EQ_INT(pg_opdecl_check_reply(pg_opdecl_find("ping"), r.result, &e), PG_OK);
    cJSON_AddBoolToObject(r.result, "inverted", true); /* what issue 27's oracle looked like */
    CHECK_EQ_INT(pg_opdecl_check_reply(pg_opdecl_find("ping"), r.result, &e), PG_E_INTERNAL);
    CHECK_EQ_INT(pg_test_side_failures, before);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
