# Every handler and the dispatch path through pg_dispatch, against the fake
# desktop (broker/platform/fake): no root, no X, no Wine.
if(NOT WIN32)
  add_library(pg_broker_fixture STATIC pg_broker_fixture.c)
  target_link_libraries(pg_broker_fixture PUBLIC pg_broker_core pg_platform_fake pg_test_main)
  foreach(t test_dispatch test_op_snapshot test_op_input test_op_compare test_op_release test_op_wait test_op_read
            test_op_layout)
    pg_unit_test(${t} SOURCES ${t}.c LIBS pg_broker_fixture)
    target_compile_definitions(${t} PRIVATE PG_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    set_tests_properties(unit.${t} PROPERTIES LABELS "unit;ops")
  endforeach()
endif()
# layout, color and field OCR read Tesseract: one OpenMP thread (libgomp reads
# the limit at load time, so it comes from the environment).
if(TARGET test_op_layout)
  set_tests_properties(unit.test_op_layout PROPERTIES ENVIRONMENT "OMP_THREAD_LIMIT=1" TIMEOUT 300)
endif()
