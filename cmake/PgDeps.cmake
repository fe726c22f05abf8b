# Third-party libraries, found the same way for native and mingw builds (the
# mingw sysroot is put on CMAKE_FIND_ROOT_PATH by cmake/mingw-w64.cmake).

find_path(CJSON_INCLUDE_DIR cJSON.h PATH_SUFFIXES cjson REQUIRED)
find_library(CJSON_LIBRARY NAMES cjson libcjson REQUIRED)
add_library(pg_dep_cjson INTERFACE)
target_include_directories(pg_dep_cjson INTERFACE ${CJSON_INCLUDE_DIR})
target_link_libraries(pg_dep_cjson INTERFACE ${CJSON_LIBRARY})

find_package(PNG REQUIRED)

if(WIN32)
  add_library(pg_dep_crypto INTERFACE)
  target_link_libraries(pg_dep_crypto INTERFACE bcrypt)
else()
  find_package(OpenSSL REQUIRED COMPONENTS Crypto)
  add_library(pg_dep_crypto INTERFACE)
  target_link_libraries(pg_dep_crypto INTERFACE OpenSSL::Crypto)
  find_package(Threads REQUIRED)
endif()
