# SPDX-License-Identifier: MIT
# pg_newest_in_cache(OUT PATTERN): OUT = the newest complete build of PATTERN
# (e.g. "native-cjson-*") in the build cache that scripts/lib/debsrc.sh fills,
# ${PG_CACHE:-/var/cache/pixelgate-build}; "complete" means its .pg-complete
# stamp is there. Empty when there is none. Included by a toolchain file too,
# so it needs nothing from project().
function(pg_newest_in_cache out pattern)
  if(DEFINED ENV{PG_CACHE})
    set(cache "$ENV{PG_CACHE}")
  else()
    set(cache /var/cache/pixelgate-build)
  endif()
  set(newest "")
  file(GLOB stamps LIST_DIRECTORIES false "${cache}/${pattern}/.pg-complete")
  if(stamps)
    list(SORT stamps COMPARE NATURAL ORDER DESCENDING)
    list(GET stamps 0 stamp)
    get_filename_component(newest "${stamp}" DIRECTORY)
  endif()
  set(${out} "${newest}" PARENT_SCOPE)
endfunction()
