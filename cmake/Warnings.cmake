# paywasm_warnings(target): the project's warning set; errors with -DPAYWASM_WERROR=ON.
function(paywasm_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion $<$<BOOL:${PAYWASM_WERROR}>:-Werror>)
endfunction()
