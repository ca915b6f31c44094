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
# 2. The symbol map for size reports (<module>.symbols, "index:name"), from those names.
# 3. The names go (--strip-debug): the module shipped has no name section.
set(features --enable-exception-handling --enable-sign-ext --enable-mutable-globals)
if(SIMD)
  list(APPEND features --enable-simd)
endif()
execute_process(COMMAND ${METADCE} ${features} -g --graph-file ${ROOTS} ${WASM} -o ${WASM}
  OUTPUT_QUIET RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "wasm-metadce failed on ${WASM}")
endif()
execute_process(COMMAND ${WASM_OPT} ${features} --print-function-map ${WASM}
  OUTPUT_FILE ${WASM}.symbols ERROR_VARIABLE err RESULT_VARIABLE rc)  # err: "no output file specified"
if(rc)
  message(FATAL_ERROR "wasm-opt --print-function-map failed on ${WASM}: ${err}")
endif()
execute_process(COMMAND ${WASM_OPT} ${features} --strip-debug ${WASM} -o ${WASM} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "wasm-opt --strip-debug failed on ${WASM}")
endif()
