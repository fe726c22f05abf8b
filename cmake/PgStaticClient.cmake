# SPDX-License-Identifier: MIT
# Whether the client `pixelgate` links statically (static-pie).
#
# An agent starts one client process per operation, and on the VMs we measure
# a dynamically linked process spends 0.5-0.7 ms more in the loader and in
# page faults than a static one (docs/performance.md, "The client links
# statically"). The broker and the tests stay dynamic.
#
#   PG_STATIC_CLIENT = AUTO (default) | ON | OFF
#     AUTO: static when everything below holds, else dynamic (the reason is
#           printed); ON: the same, but a missing piece is a configure error;
#           OFF: dynamic (debian/rules: Debian links against shared libraries).
#   Needs: not Windows (mingw links its sysroot statically already), no
#   sanitizers or fuzzing (their runtimes are shared objects), a compiler that
#   links -static-pie, and a static cJSON whose header is the same version as
#   the one the rest of the build compiles against. Debian ships no libcjson.a:
#   scripts/static-deps.sh builds one from Debian's source package (deps.sh
#   runs it), and it is found as PG_STATIC_CJSON_PREFIX (cache variable, else
#   environment variable, else the newest complete
#   ${PG_CACHE:-/var/cache/pixelgate-build}/native-cjson-*).
#
# Result: PG_CLIENT_STATIC (ON/OFF). A target links its third-party libraries
# statically when its property PG_STATIC_LINK is true (cmake/PgDeps.cmake
# chooses per target); client/CMakeLists.txt sets it on `pixelgate`.

include(${CMAKE_CURRENT_LIST_DIR}/PgCache.cmake)
set(PG_STATIC_CLIENT AUTO CACHE STRING "Link the client statically: AUTO, ON or OFF")
set_property(CACHE PG_STATIC_CLIENT PROPERTY STRINGS AUTO ON OFF)

function(pg_static_client_why_not out)
  set(${out} "" PARENT_SCOPE)
  if(WIN32)
    set(${out} "not for Windows builds" PARENT_SCOPE)
    return()
  endif()
  if(PG_SANITIZE OR PG_FUZZ)
    set(${out} "not with sanitizers or fuzzing" PARENT_SCOPE)
    return()
  endif()
  set(prefix "${PG_STATIC_CJSON_PREFIX}")
  if(NOT IS_DIRECTORY "${prefix}" AND DEFINED ENV{PG_STATIC_CJSON_PREFIX})
    set(prefix "$ENV{PG_STATIC_CJSON_PREFIX}")
  endif()
  if(NOT IS_DIRECTORY "${prefix}")
    pg_newest_in_cache(prefix "native-cjson-*")
  endif()
  if(NOT EXISTS "${prefix}/lib/libcjson.a" OR NOT EXISTS "${prefix}/include/cjson/cJSON.h")
    set(${out} "no static cJSON (run scripts/static-deps.sh, or set PG_STATIC_CJSON_PREFIX)" PARENT_SCOPE)
    return()
  endif()
  # The client's objects are compiled against ${CJSON_INCLUDE_DIR}: the archive
  # must be the same release.
  foreach(part MAJOR MINOR PATCH)
    file(STRINGS "${CJSON_INCLUDE_DIR}/cJSON.h" sys REGEX "#define CJSON_VERSION_${part} ")
    file(STRINGS "${prefix}/include/cjson/cJSON.h" own REGEX "#define CJSON_VERSION_${part} ")
    if(NOT sys STREQUAL own)
      set(${out} "the static cJSON in ${prefix} is another release than ${CJSON_INCLUDE_DIR}/cJSON.h" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  find_library(PG_STATIC_CRYPTO_LIBRARY NAMES libcrypto.a)
  if(NOT PG_STATIC_CRYPTO_LIBRARY)
    set(${out} "no static libcrypto (Debian: libssl-dev)" PARENT_SCOPE)
    return()
  endif()
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fPIE)
  set(CMAKE_REQUIRED_LINK_OPTIONS -static-pie)
  check_c_source_compiles("int main(void) { return 0; }" PG_CC_LINKS_STATIC_PIE)
  if(NOT PG_CC_LINKS_STATIC_PIE)
    set(${out} "${CMAKE_C_COMPILER_ID} does not link -static-pie here" PARENT_SCOPE)
    return()
  endif()
  set(PG_STATIC_CJSON_PREFIX "${prefix}" CACHE PATH "static cJSON for the client (scripts/static-deps.sh)" FORCE)
endfunction()

set(PG_CLIENT_STATIC OFF)
if(NOT PG_STATIC_CLIENT STREQUAL "OFF")
  pg_static_client_why_not(_pg_why)
  if(_pg_why STREQUAL "")
    set(PG_CLIENT_STATIC ON)
    set(PG_STATIC_CJSON_LIBRARY "${PG_STATIC_CJSON_PREFIX}/lib/libcjson.a")
    message(STATUS "pixelgate client: static-pie (cJSON from ${PG_STATIC_CJSON_PREFIX})")
  elseif(PG_STATIC_CLIENT STREQUAL "ON")
    message(FATAL_ERROR "PG_STATIC_CLIENT=ON, but the client cannot link statically: ${_pg_why}")
  else()
    message(STATUS "pixelgate client: dynamically linked (${_pg_why})")
  endif()
else()
  message(STATUS "pixelgate client: dynamically linked (PG_STATIC_CLIENT=OFF)")
endif()
