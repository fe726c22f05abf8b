# Warnings are errors everywhere; sanitizers and fuzzing are opt-in presets.
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
                    -Wno-unused-parameter)
if(PG_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
if(PG_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
