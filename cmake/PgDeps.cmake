# SPDX-License-Identifier: MIT
# Third-party libraries, found the same way for native and mingw builds (the
# mingw sysroot is put on CMAKE_FIND_ROOT_PATH by cmake/mingw-w64.cmake).

find_path(CJSON_INCLUDE_DIR cJSON.h PATH_SUFFIXES cjson REQUIRED)
find_library(CJSON_LIBRARY NAMES cjson libcjson REQUIRED)
include(PgStaticClient) # PG_CLIENT_STATIC and the static archives it links

# pg_static_or_shared(VAR STATIC SHARED): VAR = a link item that is STATIC for
# a target whose property PG_STATIC_LINK is true (the target being linked,
# however far down the chain this library is), SHARED for every other one.
function(pg_static_or_shared var static shared)
  if(PG_CLIENT_STATIC)
    set(${var} "$<IF:$<BOOL:$<TARGET_PROPERTY:PG_STATIC_LINK>>,${static},${shared}>" PARENT_SCOPE)
  else()
    set(${var} "${shared}" PARENT_SCOPE)
  endif()
endfunction()

add_library(pg_dep_cjson INTERFACE)
target_include_directories(pg_dep_cjson INTERFACE ${CJSON_INCLUDE_DIR})
pg_static_or_shared(_pg_cjson_link "${PG_STATIC_CJSON_LIBRARY}" "${CJSON_LIBRARY}")
target_link_libraries(pg_dep_cjson INTERFACE "${_pg_cjson_link}")

find_package(PNG REQUIRED)

if(WIN32)
  add_library(pg_dep_crypto INTERFACE)
  target_link_libraries(pg_dep_crypto INTERFACE bcrypt)
else()
  find_package(OpenSSL REQUIRED COMPONENTS Crypto)
  add_library(pg_dep_crypto INTERFACE)
  pg_static_or_shared(_pg_crypto_link "${PG_STATIC_CRYPTO_LIBRARY}" OpenSSL::Crypto)
  target_link_libraries(pg_dep_crypto INTERFACE "${_pg_crypto_link}")
endif()

# Regular expressions (window patterns), used through common/pg_regex.h: the C
# library's POSIX <regex.h> on Linux (nothing to link); PCRE2 with its POSIX
# wrapper on Windows, static, from the mingw sysroot.
add_library(pg_dep_regex INTERFACE)
if(WIN32)
  find_path(PCRE2_INCLUDE_DIR pcre2posix.h REQUIRED)
  find_library(PCRE2_POSIX_LIBRARY NAMES pcre2-posix REQUIRED)
  find_library(PCRE2_8_LIBRARY NAMES pcre2-8 REQUIRED)
  target_include_directories(pg_dep_regex INTERFACE ${PCRE2_INCLUDE_DIR})
  target_compile_definitions(pg_dep_regex INTERFACE PCRE2_STATIC)
  # pcre2-posix calls into pcre2-8: that order on the link line.
  target_link_libraries(pg_dep_regex INTERFACE ${PCRE2_POSIX_LIBRARY} ${PCRE2_8_LIBRARY})
endif()
# POSIX threads everywhere: glibc's, or mingw-w64's winpthreads (linked
# statically, see cmake/mingw-w64.cmake).
find_package(Threads REQUIRED)
