# SPDX-License-Identifier: MIT
# Engine benchmarks (run by bench/run_engine.sh, never by ctest): the same
# small CLI the oracle tests use, with its time-* commands.
add_executable(bench_engine ${PROJECT_SOURCE_DIR}/tests/oracle/pg_engine_tool.c)
target_link_libraries(bench_engine PRIVATE pg_engine)
# PNG encoder settings side by side on one image (bench/run_png.sh).
add_executable(bench_png bench_png.c)
target_link_libraries(bench_png PRIVATE pg_engine pg_common)
