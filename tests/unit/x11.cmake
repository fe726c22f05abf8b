# SPDX-License-Identifier: MIT
# x11 backend: drives a real Tk app on its own Xvfb (and again under openbox).
# Needs Xvfb, wish and openbox on PATH; fails (never skips) without them.
find_package(PkgConfig REQUIRED)
pkg_check_modules(PG_TEST_XCB REQUIRED IMPORTED_TARGET xcb)
pg_unit_test(test_x11 SOURCES test_x11.c LIBS pg_platform_x11 pg_platform_decl PkgConfig::PG_TEST_XCB)
target_compile_definitions(test_x11 PRIVATE PG_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
set_tests_properties(unit.test_x11 PROPERTIES LABELS "x11" TIMEOUT 120) # its own Xvfb: not "unit"
# indicate(): the sign that an agent drives, on its own Xvfb (:220..:229), with and without openbox.
pkg_check_modules(PG_TEST_XCB_SIGN REQUIRED IMPORTED_TARGET xcb xcb-shape xcb-xtest)
pg_unit_test(test_x11_indicator SOURCES test_x11_indicator.c LIBS pg_platform_x11 PkgConfig::PG_TEST_XCB_SIGN)
set_tests_properties(unit.test_x11_indicator PROPERTIES LABELS "x11" TIMEOUT 180) # its own Xvfb: not "unit"
# The pixel conversion alone (no server): two threads on large frames.
pg_unit_test(test_x11_convert SOURCES test_x11_convert.c LIBS pg_platform_x11)
# The package's display grant at login (installer/linux/40pixelgate_xhost,
# pixelgate-xhost.desktop) against its own Xvfb; as root it may make the
# account pixelgate, which the X server needs to exist.
add_test(NAME unit.xsession_xhost COMMAND bash ${PROJECT_SOURCE_DIR}/tests/package/xsession_xhost.sh)
set_tests_properties(unit.xsession_xhost PROPERTIES LABELS "x11;package" TIMEOUT 60)
# --if-unchanged's guard (x11_guard.c) on its own Xvfb (:230-:239), with and without openbox.
pg_unit_test(test_x11_guard SOURCES test_x11_guard.c LIBS pg_platform_x11 PkgConfig::PG_TEST_XCB)
set_tests_properties(unit.test_x11_guard PROPERTIES LABELS "x11" TIMEOUT 120)
# watch_person (broker/platform/x11/x11_person.c): a person's keys and mouse
# through Xephyr nested in its own Xvfb (:210..:219), the agent's through
# XTEST. Needs Xvfb, Xephyr and xinput on PATH; fails (never skips) without them.
pkg_check_modules(PG_TEST_XI REQUIRED IMPORTED_TARGET xcb-xtest xcb-xinput)
pg_unit_test(test_x11_person SOURCES test_x11_person.c LIBS pg_platform_x11 pg_person pg_platform_decl PkgConfig::PG_TEST_XCB
             PkgConfig::PG_TEST_XI)
set_tests_properties(unit.test_x11_person PROPERTIES LABELS "x11" TIMEOUT 180) # its own servers: not "unit"
