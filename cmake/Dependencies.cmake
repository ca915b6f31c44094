# Third-party libraries as imported targets, the same names in both builds:
#   paywasm::cryptopp   Crypto++ 8.7   native: Debian's libcrypto++-dev; wasm: built by scripts/deps.sh
#   paywasm::qrcodegen  qrcodegen 1.8  native: Debian's libqrcodegencpp-dev; wasm: compiled from source
#   paywasm::rapidjson  RapidJSON      header-only (Debian's rapidjson-dev); the CLI and the fuzz targets only
#   paywasm::doctest    doctest        header-only (Debian's doctest-dev)
# Sources include them as <cryptopp/...>, <qrcodegen/qrcodegen.hpp>, <rapidjson/...>, <doctest/doctest.h>.
#
# Header-only packages live in /usr/include, which must never be on an Emscripten include path (it
# would shadow Emscripten's libc). So the build links just the one folder it needs into
# ${CMAKE_BINARY_DIR}/sysinc and adds that instead.

set(PAYWASM_SYSINC ${CMAKE_BINARY_DIR}/sysinc)
file(MAKE_DIRECTORY ${PAYWASM_SYSINC})
function(paywasm_link_include name target_dir)
  if(NOT EXISTS ${target_dir})
    message(FATAL_ERROR "${target_dir} is missing: run `make deps` (scripts/deps.sh) first.")
  endif()
  file(CREATE_LINK ${target_dir} ${PAYWASM_SYSINC}/${name} SYMBOLIC)
endfunction()

paywasm_link_include(rapidjson /usr/include/rapidjson)
paywasm_link_include(doctest /usr/include/doctest)

add_library(paywasm_rapidjson INTERFACE)
target_include_directories(paywasm_rapidjson SYSTEM INTERFACE ${PAYWASM_SYSINC})
# Numbers are read as text (money never goes through a double); no SSE assumptions in WASM.
target_compile_definitions(paywasm_rapidjson INTERFACE RAPIDJSON_HAS_STDSTRING=1)
add_library(paywasm::rapidjson ALIAS paywasm_rapidjson)

add_library(paywasm_doctest INTERFACE)
target_include_directories(paywasm_doctest SYSTEM INTERFACE ${PAYWASM_SYSINC})
add_library(paywasm::doctest ALIAS paywasm_doctest)

if(EMSCRIPTEN)
  set(PAYWASM_CRYPTOPP_WASM_DIR "" CACHE PATH "Crypto++ built for wasm (include/, lib/libcryptopp.a)")
  set(PAYWASM_QRCODEGEN_SRC_DIR "" CACHE PATH "qrcodegen 1.8 source tree (has cpp/qrcodegen.cpp)")
  if(NOT EXISTS ${PAYWASM_CRYPTOPP_WASM_DIR}/lib/libcryptopp.a)
    message(FATAL_ERROR "PAYWASM_CRYPTOPP_WASM_DIR=${PAYWASM_CRYPTOPP_WASM_DIR} has no lib/libcryptopp.a: run `make deps`.")
  endif()
  add_library(paywasm_cryptopp STATIC IMPORTED)
  set_target_properties(paywasm_cryptopp PROPERTIES
    IMPORTED_LOCATION ${PAYWASM_CRYPTOPP_WASM_DIR}/lib/libcryptopp.a
    INTERFACE_INCLUDE_DIRECTORIES ${PAYWASM_CRYPTOPP_WASM_DIR}/include)

  paywasm_link_include(qrcodegen ${PAYWASM_QRCODEGEN_SRC_DIR}/cpp)
  add_library(paywasm_qrcodegen STATIC ${PAYWASM_QRCODEGEN_SRC_DIR}/cpp/qrcodegen.cpp)
  target_include_directories(paywasm_qrcodegen SYSTEM PUBLIC ${PAYWASM_SYSINC})
  # -O1, not -Oz: the QR budget (>= 3x faster than qrcode-generator) is spent in qrcodegen's mask
  # search; -Oz made it 1.75x (docs/bench.md). Full benches back to back (2026-11-23): -O2 4.20x,
  # -O1 3.91-3.93x and 554 B smaller (gzip), -Os 291 B smaller than -O2.
  target_compile_options(paywasm_qrcodegen PRIVATE -O1)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(CRYPTOPP REQUIRED IMPORTED_TARGET libcrypto++)
  add_library(paywasm_cryptopp INTERFACE)
  target_link_libraries(paywasm_cryptopp INTERFACE PkgConfig::CRYPTOPP)
  # Debian's .pc points inside include/cryptopp; sources write <cryptopp/...>.
  target_include_directories(paywasm_cryptopp SYSTEM INTERFACE /usr/include)

  find_library(PAYWASM_QRCODEGEN_LIB qrcodegencpp REQUIRED)
  add_library(paywasm_qrcodegen INTERFACE)
  target_link_libraries(paywasm_qrcodegen INTERFACE ${PAYWASM_QRCODEGEN_LIB})
  target_include_directories(paywasm_qrcodegen SYSTEM INTERFACE /usr/include)
endif()
add_library(paywasm::cryptopp ALIAS paywasm_cryptopp)
add_library(paywasm::qrcodegen ALIAS paywasm_qrcodegen)
