# Included first in a wasm build: require the Emscripten version pinned in emsdk-version.txt and set
# the flags every wasm object must share (native wasm exceptions: all objects must agree, including
# the cached Crypto++ that scripts/deps.sh builds with CRYPTOPP_WASM_FLAGS; keep the two in step).
file(STRINGS ${PROJECT_SOURCE_DIR}/emsdk-version.txt PAYWASM_EMSDK_VERSION LIMIT_COUNT 1)
string(STRIP "${PAYWASM_EMSDK_VERSION}" PAYWASM_EMSDK_VERSION)
if(NOT EMSCRIPTEN_VERSION VERSION_EQUAL PAYWASM_EMSDK_VERSION)
  if(NOT EMSCRIPTEN_VERSION)
    set(EMSCRIPTEN_VERSION "unknown (the toolchain file did not report it)")
  endif()
  message(FATAL_ERROR
    "paywasm needs Emscripten ${PAYWASM_EMSDK_VERSION} (pinned in emsdk-version.txt), but the emcc "
    "in ${EMSCRIPTEN_ROOT_PATH} is ${EMSCRIPTEN_VERSION}.\n"
    "Debian 12's `emscripten` package is 3.1.6: `make deps` (or `apt-get install emscripten`) "
    "installs it; make sure /usr/bin/emcc is the emcc found first on PATH (not an emsdk one).\n"
    "Elsewhere, install Emscripten ${PAYWASM_EMSDK_VERSION} and put its emcc first on PATH, then "
    "delete build/wasm and run `make build` again.")
endif()
add_compile_options(-fwasm-exceptions)
add_link_options(-fwasm-exceptions)
