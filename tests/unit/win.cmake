# Windows-only unit tests (mingw build, run under Wine by ctest through
# CMAKE_CROSSCOMPILING_EMULATOR). Included from tests/unit/CMakeLists.txt
# inside if(WIN32). Owner: the Windows build work.
pg_unit_test(test_transport_win SOURCES test_transport_win.c LIBS pg_common)
