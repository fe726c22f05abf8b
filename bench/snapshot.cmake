# SPDX-License-Identifier: MIT
# Broker benchmarks (run by bench/run_snapshot.sh, never by ctest).
add_executable(bench_broker ${CMAKE_CURRENT_LIST_DIR}/bench_broker.c)
target_link_libraries(bench_broker PRIVATE pg_common)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PG_BENCH_XCB REQUIRED IMPORTED_TARGET xcb xcb-shm)
add_executable(bench_xshm ${CMAKE_CURRENT_LIST_DIR}/bench_xshm.c)
target_link_libraries(bench_xshm PRIVATE PkgConfig::PG_BENCH_XCB pg_common)
