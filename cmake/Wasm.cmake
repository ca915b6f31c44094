# The widget's WebAssembly module (src/wasm over the core), included by the top CMakeLists.txt in
# the Emscripten build only. Output: ${CMAKE_BINARY_DIR}/widget/paywasm.wasm, a standalone module
# (no Emscripten JS glue: web/src/core.js instantiates it with three small imports), which
# scripts/dist.sh copies into dist/.
#
# Size matters (budget: paywasm.js + paywasm.wasm <= 80 KB with gzip -9), so the core and the
# module are built with -Oz, and the link keeps out everything a browser module does not need.

option(PAYWASM_WASM_LTO "Link-time optimization of the core and the widget module (about 2 KB gzip smaller)" ON)

# The core is shared with the wasm unit tests; optimizing it for size costs those little.
target_compile_options(paywasm_core PRIVATE -Oz)
# Except the RSA modular multiplication, where the encryption time goes (budget: <= 4x WebCrypto):
# -O2 (-Oz measured 15-20% slower, -O3 no faster) and outside LTO (whose -Oz link would re-optimize
# it for size). About 2 KB gzip more.
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/core/bigint_modexp.cpp PROPERTIES COMPILE_OPTIONS "-O2;-fno-lto;-msimd128")  # SIMD128: Chromium 91+, Firefox 89+, Safari 16.4+
file(GLOB PAYWASM_WIDGET_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/wasm/*.cpp)
add_executable(paywasm_widget ${PAYWASM_WIDGET_SOURCES})
target_include_directories(paywasm_widget PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(paywasm_widget PRIVATE paywasm::core)
target_compile_options(paywasm_widget PRIVATE -Oz)
paywasm_warnings(paywasm_widget)
set_target_properties(paywasm_widget PROPERTIES
  OUTPUT_NAME paywasm
  SUFFIX ".wasm"          # a .wasm output makes emcc emit a standalone module and no JS
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/widget)

target_link_options(paywasm_widget PRIVATE
  -Oz
  --no-entry                  # a reactor: _initialize runs the constructors, no main()
  -sSTANDALONE_WASM=1
  -sFILESYSTEM=0
  -sALLOW_MEMORY_GROWTH=1
  -sINITIAL_MEMORY=1048576    # 1 MiB to start; grows for long payloads
  -sTOTAL_STACK=65536
  -sMALLOC=emmalloc           # smaller than dlmalloc; one call at a time needs nothing more
  -sSUPPORT_LONGJMP=0
  -sEXPORTED_FUNCTIONS=_pw_alloc,_pw_free,_pw_call
  -sERROR_ON_UNDEFINED_SYMBOLS=1
  # After Emscripten's own wasm-opt -Oz: once more to a fixed point, inlining functions of at most 5
  # bytes (emcc's -Oz compiles with -fno-inline-functions, so many calls go to one-line getters):
  # -1.7 KB gzip. Other limits measured: -aimfs=4 -1.4 KB, 6 -0.9 KB, 8 +0.7 KB.
  -sBINARYEN_EXTRA_PASSES=-Oz,--converge,-aimfs=5)

if(PAYWASM_WASM_LTO)
  target_compile_options(paywasm_core PRIVATE -flto)
  target_compile_options(paywasm_widget PRIVATE -flto)
  target_link_options(paywasm_widget PRIVATE -flto)
endif()

# A symbol map beside the module, for size reports (scripts/dist.sh --sizes).
target_link_options(paywasm_widget PRIVATE --emit-symbol-map)
