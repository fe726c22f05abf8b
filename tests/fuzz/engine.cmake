# SPDX-License-Identifier: MIT
# Engine parsers (broker/engine): the image loaders through the decode caps
# (seeds: tiny files from tests/data) and the design weights; seeds in
# corpus/<target>/.
pg_fuzz_target(fuzz_png SOURCES fuzz_png.c LIBS pg_engine)
pg_fuzz_target(fuzz_jpeg SOURCES fuzz_jpeg.c LIBS pg_engine)
pg_fuzz_target(fuzz_webp SOURCES fuzz_webp.c LIBS pg_engine)
pg_fuzz_target(fuzz_design_weights SOURCES fuzz_design_weights.c LIBS pg_engine)
pg_fuzz_target(fuzz_spec SOURCES fuzz_spec.c LIBS pg_engine) # the spec header parsers (pg_spec.h)
