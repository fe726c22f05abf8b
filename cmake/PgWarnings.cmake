# SPDX-License-Identifier: MIT
# The warning set is the project's; whether a warning stops the build is the
# builder's choice. The presets (developers, CI) turn PG_WERROR on; a plain
# distribution build (-DCMAKE_BUILD_TYPE=Release, another compiler version)
# warns and goes on. Sanitizers and fuzzing are opt-in presets.
option(PG_WERROR "Treat compiler warnings as errors (CMakePresets.json turns it on)" OFF)
add_compile_options(-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
                    -Wno-unused-parameter)
if(PG_WERROR)
  add_compile_options(-Werror)
endif()
if(PG_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
if(PG_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
