pg_unit_test(test_audit SOURCES test_audit.c LIBS pg_audit)
