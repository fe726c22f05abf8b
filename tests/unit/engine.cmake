# engine (broker/engine): one binary per engine module.
pg_unit_test(test_engine_img SOURCES test_engine_img.c LIBS pg_engine)
target_compile_definitions(test_engine_img PRIVATE PG_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
pg_unit_test(test_engine_fingerprint SOURCES test_engine_fingerprint.c LIBS pg_engine)
pg_unit_test(test_engine_fft SOURCES test_engine_fft.c LIBS pg_engine m)
pg_unit_test(test_engine_template SOURCES test_engine_template.c LIBS pg_engine m)
pg_unit_test(test_engine_diff SOURCES test_engine_diff.c LIBS pg_engine)
pg_unit_test(test_engine_ssim SOURCES test_engine_ssim.c LIBS pg_engine m)
