# Engine image loaders (broker/engine) through the decode caps; seeds in
# corpus/<target>/ (tiny files from tests/data).
pg_fuzz_target(fuzz_png SOURCES fuzz_png.c LIBS pg_engine)
pg_fuzz_target(fuzz_jpeg SOURCES fuzz_jpeg.c LIBS pg_engine)
pg_fuzz_target(fuzz_webp SOURCES fuzz_webp.c LIBS pg_engine)
