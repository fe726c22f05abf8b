# SPDX-License-Identifier: MIT
# mingw-w64.cmake - CMake toolchain file: cross-build pixelgate for Windows
# x86_64 with Debian's mingw-w64, and run test executables under Wine.
#
# Contract:
#   - Target is x86_64-w64-mingw32 ONLY (Wine without wine32 runs i686 .exe
#     files as silent no-ops, so a 32-bit build would "pass" without testing).
#   - Third-party libraries (cJSON, libpng) come from the sysroot that
#     scripts/mingw-deps.sh builds from Debian source packages; zlib and the
#     Windows import libraries come from /usr/x86_64-w64-mingw32. The sysroot
#     is PG_MINGW_SYSROOT (cache variable, else environment variable; else the
#     newest complete one under ${PG_CACHE:-/var/cache/pixelgate-build}).
#   - Libraries and headers are searched ONLY in those roots, never the host's;
#     programs only on the host. pkg-config sees only the target's .pc files.
#   - Executables link statically (libgcc, winpthread, zlib): a test .exe runs
#     under Wine without any DLL next to it.
#   - CMAKE_CROSSCOMPILING_EMULATOR is the 64-bit Wine loader behind
#     scripts/wine-run.sh (a run that fails before printing anything is Wine
#     not starting it: tried once more), so ctest runs the test .exe files
#     through it. The Wine environment (WINEPREFIX,
#     DISPLAY, WINEDEBUG) is the caller's: source scripts/wine-env.sh first.
# Never: downloads, builds dependencies, or falls back to host libraries.

set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(PG_MINGW_TRIPLE x86_64-w64-mingw32)

find_program(PG_MINGW_CC NAMES ${PG_MINGW_TRIPLE}-gcc REQUIRED)
find_program(PG_MINGW_RC NAMES ${PG_MINGW_TRIPLE}-windres REQUIRED)
set(CMAKE_C_COMPILER ${PG_MINGW_CC})
set(CMAKE_RC_COMPILER ${PG_MINGW_RC})

# --- the dependency sysroot -------------------------------------------------
# try_compile() projects re-read this file; hand them the resolved sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PG_MINGW_SYSROOT)

# Order: -D/cache value, environment, newest complete sysroot in the cache dir.
if(NOT IS_DIRECTORY "${PG_MINGW_SYSROOT}" AND DEFINED ENV{PG_MINGW_SYSROOT})
  set(PG_MINGW_SYSROOT "$ENV{PG_MINGW_SYSROOT}")
endif()
if(NOT IS_DIRECTORY "${PG_MINGW_SYSROOT}")
  # Convenience for a plain `cmake --preset mingw`: the newest complete sysroot.
  include(${CMAKE_CURRENT_LIST_DIR}/PgCache.cmake)
  pg_newest_in_cache(PG_MINGW_SYSROOT "mingw-sysroot-*")
endif()
if(NOT PG_MINGW_SYSROOT OR NOT IS_DIRECTORY "${PG_MINGW_SYSROOT}")
  message(FATAL_ERROR "mingw-w64: no dependency sysroot (PG_MINGW_SYSROOT='${PG_MINGW_SYSROOT}'). "
                      "Run scripts/mingw-deps.sh and pass its output as "
                      "-DPG_MINGW_SYSROOT=... (scripts/test-mingw.sh does both).")
endif()
set(PG_MINGW_SYSROOT "${PG_MINGW_SYSROOT}" CACHE PATH "mingw dependency sysroot (scripts/mingw-deps.sh)" FORCE)

# A new sysroot (new package versions) in an existing build dir: forget the
# cached find results (PATH/FILEPATH entries) that point into the old one.
set(_pg_old "$CACHE{PG_MINGW_SYSROOT_USED}")
if(_pg_old AND NOT _pg_old STREQUAL PG_MINGW_SYSROOT)
  get_cmake_property(_pg_vars CACHE_VARIABLES)
  foreach(_pg_var IN LISTS _pg_vars)
    get_property(_pg_type CACHE ${_pg_var} PROPERTY TYPE)
    get_property(_pg_val CACHE ${_pg_var} PROPERTY VALUE)
    string(FIND "${_pg_val}/" "${_pg_old}/" _pg_pos)
    if(_pg_type MATCHES "^(FILE)?PATH$" AND _pg_pos EQUAL 0 AND NOT _pg_var STREQUAL "PG_MINGW_SYSROOT")
      unset(${_pg_var} CACHE)
    endif()
  endforeach()
  message(STATUS "mingw-w64: sysroot changed; dropped cached paths into ${_pg_old}")
endif()
set(PG_MINGW_SYSROOT_USED "${PG_MINGW_SYSROOT}" CACHE INTERNAL "sysroot the cached find results came from")

set(CMAKE_FIND_ROOT_PATH "${PG_MINGW_SYSROOT}" /usr/${PG_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (if a module uses it) must never report the host's libraries.
set(ENV{PKG_CONFIG_LIBDIR} "${PG_MINGW_SYSROOT}/lib/pkgconfig:/usr/${PG_MINGW_TRIPLE}/lib/pkgconfig")
unset(ENV{PKG_CONFIG_PATH})

# FindZLIB would prefer libz.dll.a (a DLL import library); take libz.a.
set(ZLIB_USE_STATIC_LIBS ON)

# --- compile and link flags -------------------------------------------------
# C99/C17 printf family (%zu, %lld) instead of msvcrt's.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
# -static: every library resolves to its .a (libgcc, winpthread, zlib, ...);
# Windows system DLLs still come in through their import libraries.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")

# --- run target executables under Wine (64-bit loader only) ------------------
find_program(PG_WINE NAMES wine64 PATHS /usr/lib/wine NO_DEFAULT_PATH)
if(NOT PG_WINE)
  find_program(PG_WINE NAMES wine64 wine)
endif()
if(PG_WINE)
  # Through scripts/wine-run.sh: a run Wine failed to start is tried once more.
  set(CMAKE_CROSSCOMPILING_EMULATOR "/bin/bash;${CMAKE_CURRENT_LIST_DIR}/../scripts/wine-run.sh;${PG_WINE}")
else()
  message(WARNING "mingw-w64: no wine64/wine found; tests cannot run (scripts/mingw-deps.sh installs wine64)")
endif()
