# SPDX-License-Identifier: MIT
# OCR (broker/ocr). With Tesseract (Linux, PG_HAVE_TESSERACT=1): test_ocr needs
# Tesseract with eng data at build and run time, and at test time
# ImageMagick's convert (text images), Xvfb, wish and xwd (the Tk demo app
# captured as a fixture); the test fails loudly when one is missing.
# OMP_THREAD_LIMIT must be in the environment when the process starts (libgomp
# reads it at load time), hence ENVIRONMENT rather than setenv in main.
# Without Tesseract (the mingw build): test_ocr_unavailable checks that every
# reading call says UNSUPPORTED with the documented message, so the absence is
# tested, not hidden.
if(TARGET pg_ocr)
  get_target_property(_pg_ocr_defs pg_ocr INTERFACE_COMPILE_DEFINITIONS)
  if("PG_HAVE_TESSERACT=0" IN_LIST _pg_ocr_defs)
    pg_unit_test(test_ocr_unavailable SOURCES test_ocr_unavailable.c LIBS pg_ocr pg_engine)
  elseif(NOT WIN32)
    pg_unit_test(test_ocr SOURCES test_ocr.c LIBS pg_ocr pg_engine)
    target_compile_definitions(test_ocr PRIVATE
      PG_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
      PG_DEMO_TCL="${PROJECT_SOURCE_DIR}/tests/apps/pg_demo.tcl")
    set_tests_properties(unit.test_ocr PROPERTIES ENVIRONMENT "OMP_THREAD_LIMIT=1" TIMEOUT 600)
    # The cache: hits, per-uid partitions, and partial reads held to full reads
    # on the labelled forms (PG_OCR_TESTSET_DIR: the whole of bench/ocr_testset.sh's set).
    pg_unit_test(test_ocr_cache SOURCES test_ocr_cache.c LIBS pg_ocr pg_engine pg_common)
    target_compile_definitions(test_ocr_cache PRIVATE PG_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    set_tests_properties(unit.test_ocr_cache PROPERTIES ENVIRONMENT "OMP_THREAD_LIMIT=1" TIMEOUT 900)
  endif()
endif()
