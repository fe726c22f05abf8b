# SPDX-License-Identifier: MIT
# policy (policy/): parse, merge, evaluate, file checks. Runs natively and, in
# the mingw build, under Wine (the Windows file checks and PCRE2 patterns).
if(WIN32)
  pg_unit_test(test_policy SOURCES test_policy.c LIBS pg_policy)
else()
  # The POSIX file checks (file_*) make root-owned files: their own test, label root.
  pg_unit_test(test_policy SOURCES test_policy.c LIBS pg_policy ARGS "!file_")
  add_test(NAME unit.test_policy_files COMMAND test_policy file_)
  set_tests_properties(unit.test_policy_files PROPERTIES LABELS "root;policy" TIMEOUT 300)
endif()
target_compile_definitions(test_policy PRIVATE PG_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
if(WIN32)
  # Wine reports a Unix symlink to a directory as a reparse point: make one
  # here (the build host is Linux) for the test to find behind Z:.
  set(_pg_link_target ${CMAKE_CURRENT_BINARY_DIR}/policy_link_target)
  set(_pg_link ${CMAKE_CURRENT_BINARY_DIR}/policy_link)
  file(MAKE_DIRECTORY ${_pg_link_target})
  file(WRITE ${_pg_link_target}/policy.json "{\"version\":1}\n")
  file(REMOVE ${_pg_link})
  file(CREATE_LINK ${_pg_link_target} ${_pg_link} SYMBOLIC)
  target_compile_definitions(test_policy PRIVATE PG_POLICY_TEST_LINK_UNIX="${_pg_link}")
endif()
