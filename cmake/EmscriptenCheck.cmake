# Included first in a wasm build: require the Emscripten version pinned in emsdk-version.txt and set
# the flags every wasm object must share (native wasm exceptions: all objects must agree).
file(STRINGS ${CMAKE_SOURCE_DIR}/emsdk-version.txt PAYWASM_EMSDK_VERSION LIMIT_COUNT 1)
string(STRIP "${PAYWASM_EMSDK_VERSION}" PAYWASM_EMSDK_VERSION)
if(NOT EMSCRIPTEN_VERSION VERSION_EQUAL PAYWASM_EMSDK_VERSION)
  message(FATAL_ERROR
    "paywasm needs Emscripten ${PAYWASM_EMSDK_VERSION} (emsdk-version.txt), but emcc is "
    "${EMSCRIPTEN_VERSION}. On Debian 12: `apt-get install emscripten` (or run `make deps`). "
    "Elsewhere, install Emscripten ${PAYWASM_EMSDK_VERSION} and put its emcc first on PATH.")
endif()
add_compile_options(-fwasm-exceptions)
add_link_options(-fwasm-exceptions)
