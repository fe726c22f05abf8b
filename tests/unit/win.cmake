# SPDX-License-Identifier: MIT
# Windows-only unit tests (mingw build, run under Wine by ctest through
# CMAKE_CROSSCOMPILING_EMULATOR). Included from tests/unit/CMakeLists.txt
# inside if(WIN32).
pg_unit_test(test_transport_win SOURCES test_transport_win.c LIBS pg_common)
# Win32 platform backend (broker/platform/win32) against tests/apps/win32_testapp.c,
# which the test starts from its own directory.
add_executable(win32_testapp WIN32 ${CMAKE_SOURCE_DIR}/tests/apps/win32_testapp.c)
target_link_libraries(win32_testapp PRIVATE user32 gdi32 shell32)
# win_testapp.c: starting, reading and stopping the test app, shared by the tests that drive it.
add_library(pg_win_testapp STATIC win_testapp.c)
target_include_directories(pg_win_testapp PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_include_directories(pg_win_testapp PUBLIC ${CMAKE_SOURCE_DIR}/broker/platform)
target_link_libraries(pg_win_testapp PUBLIC pg_common user32)
pg_unit_test(test_win32 SOURCES test_win32.c LIBS pg_platform_win32 pg_platform_decl pg_win_testapp user32 gdi32)
add_dependencies(test_win32 win32_testapp)
set_tests_properties(unit.test_win32 PROPERTIES LABELS "unit;win32" TIMEOUT 120)
# Windows security rules: pure SID and ACL functions (common/pg_win_sid.h,
# pg_win_acl.h), the pipe's SDDL and the named-pipe server with client
# identity (broker/os/win). Wine enforces no DACL: denial is not tested here
# (docs/windows.md).
pg_unit_test(test_win_security SOURCES test_win_security.c LIBS pg_win_pipe)
pg_unit_test(test_win_pipe_server SOURCES test_win_pipe_server.c LIBS pg_win_pipe)
# The service's session helper through its proxy (broker/os/win/pg_win_helper.h); drives win32_testapp.
pg_unit_test(test_win_helper SOURCES test_win_helper.c LIBS pg_win_helper pg_win_testapp shell32 user32)
add_dependencies(test_win_helper win32_testapp)
# Windows principals of the broker core (SID -> uid, policy names, integrity rule).
pg_unit_test(test_win_peer SOURCES test_win_peer.c LIBS pg_shell)
# The person's controls of the Win32 backend (broker/platform/win32/win_person.c):
# the low-level hooks against SendInput, the indicator window around win32_testapp.
pg_unit_test(test_win_person SOURCES test_win_person.c LIBS pg_platform_win32 pg_win_person_rules pg_win_testapp user32 wtsapi32 advapi32)
add_dependencies(test_win_person win32_testapp)
set_tests_properties(unit.test_win_person PROPERTIES LABELS "unit;win32" TIMEOUT 120)
# Not a unit test: the program tests/windows/person_physical.sh drives with X input (windows.person_physical).
add_executable(person_physical ${CMAKE_SOURCE_DIR}/tests/windows/person_physical.c)
target_link_libraries(person_physical PRIVATE pg_platform_win32 user32 gdi32)
