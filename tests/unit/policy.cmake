# policy (policy/): parse, merge, evaluate, file-mode checks.
pg_unit_test(test_policy SOURCES test_policy.c LIBS pg_policy)
target_compile_definitions(test_policy PRIVATE PG_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
