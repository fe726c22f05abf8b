# SPDX-License-Identifier: MIT
# Every handler and the dispatch path through pg_dispatch, against the fake
# desktop (broker/platform/fake): no root, no X, no Wine.
if(NOT WIN32)
  add_library(pg_broker_fixture STATIC pg_broker_fixture.c)
  target_link_libraries(pg_broker_fixture PUBLIC pg_ops pg_platform_fake pg_test_main)
  # test_dispatch and every test_op_*.c: a new operation's test needs no line here
  file(GLOB pg_op_tests CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/test_op_*.c)
  list(TRANSFORM pg_op_tests REPLACE "\\.c$" "")
  foreach(t test_dispatch test_server ${pg_op_tests})
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
