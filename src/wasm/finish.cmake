# Run after the link of each widget module (src/wasm/CMakeLists.txt):
#   cmake -DWASM=<module.wasm> -DROOTS=<metadce-roots.json> -DMETADCE=<wasm-metadce> -DWASM_OPT=<wasm-opt>
#         -DSIMD=ON|OFF -P finish.cmake
# SIMD=OFF: the module is read without the SIMD feature, so Binaryen refuses it if it holds any.
# 1. wasm-metadce keeps the exports web/src/core.js uses (ROOTS) and drops the rest with what only
#    they reach: Emscripten exports malloc, free, __errno_location, setThrew, stackSave/Restore/Alloc
#    and the function table for a JS runtime this module does not have. Run on the module with its
#    function names (linked with --profiling-funcs), Binaryen orders the functions by their number
#    of uses and then by name, which puts related functions side by side: gzip finds more repeats.
#    Together: -564 B gzip against the module as emcc writes it.
# 2. The names go (--strip-debug): the module shipped has no name section. Then wasm-opt -Oz once
#    more, on the module without names: every Binaryen pass so far ran with the function names
#    (emcc's, for metadce's order and the symbol map), and with a name section Binaryen lays out the
#    functions' locals differently; the same code with its locals laid out without names is smaller:
#    -149 B gzip (-142 B without SIMD). (The same -Oz on the named module makes it 240 B larger.)
#    Twice, as two runs: the second reads the module as the first wrote it (its locals as the binary
#    laid them out) and finds more: -15 B gzip (-Oz -Oz in one run, or --converge, find none: +1 B).
#    A third run changes nothing.
# 3. The symbol map for size reports (<module>.symbols, "index:name"): from a copy optimized the same
#    way but with its names, which has the same functions in the same order (checked: their count).
set(features --enable-exception-handling --enable-sign-ext --enable-mutable-globals)
if(SIMD)
  list(APPEND features --enable-simd)
endif()
execute_process(COMMAND ${METADCE} ${features} -g --graph-file ${ROOTS} ${WASM} -o ${WASM}
  OUTPUT_QUIET RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "wasm-metadce failed on ${WASM}")
endif()
foreach(round IN ITEMS 1 2)
  if(round EQUAL 1)
    set(named_in ${WASM})
  else()
    set(named_in ${WASM}.named)
  endif()
  execute_process(COMMAND ${WASM_OPT} ${features} -g -Oz ${named_in} -o ${WASM}.named RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "wasm-opt -g -Oz failed on ${WASM}")
  endif()
  execute_process(COMMAND ${WASM_OPT} ${features} --strip-debug -Oz ${WASM} -o ${WASM} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "wasm-opt --strip-debug -Oz failed on ${WASM}")
  endif()
endforeach()
# (wasm-opt without -o prints the map and says "no output file specified" on stderr)
execute_process(COMMAND ${WASM_OPT} ${features} --print-function-map ${WASM}.named
  OUTPUT_FILE ${WASM}.symbols ERROR_VARIABLE err RESULT_VARIABLE rc)
file(REMOVE ${WASM}.named)
if(rc)
  message(FATAL_ERROR "wasm-opt --print-function-map failed on ${WASM}: ${err}")
endif()
execute_process(COMMAND ${WASM_OPT} ${features} --print-function-map ${WASM}
  OUTPUT_VARIABLE shipped ERROR_VARIABLE err RESULT_VARIABLE rc)
file(STRINGS ${WASM}.symbols named)
string(REGEX MATCHALL "\n" lines "\n${shipped}")
list(LENGTH named n_named)
list(LENGTH lines n_shipped)
math(EXPR n_shipped "${n_shipped} - 1")
if(rc OR NOT n_named EQUAL n_shipped)
  message(FATAL_ERROR "${WASM}: the symbol map (${n_named} functions) does not fit the module (${n_shipped}): ${err}")
endif()
