# Third-party libraries as imported targets, the same names in both builds:
#   paywasm::cryptopp   Crypto++ 8.7   native: Debian's libcrypto++-dev; wasm: built by scripts/deps.sh
#   paywasm::qrcodegen  qrcodegen 1.8  native: Debian's libqrcodegencpp-dev; wasm: compiled from source
# and, only where they are used (each a function, called by the part that needs it):
#   paywasm_find_doctest()    paywasm::doctest    the unit tests (Debian's doctest-dev)
#   paywasm_find_rapidjson()  paywasm::rapidjson  the fuzz targets' reference JSON parser (rapidjson-dev)
# Sources include them as <cryptopp/...>, <qrcodegen/qrcodegen.hpp>, <doctest/doctest.h>, <rapidjson/...>.
#
# A header-only package's folder lives beside the system's own headers, which must never be on an
# Emscripten include path (they would shadow Emscripten's libc). So the build links just the one
# folder it needs into ${CMAKE_BINARY_DIR}/sysinc and adds that instead.

set(PAYWASM_SYSINC ${CMAKE_BINARY_DIR}/sysinc)
file(MAKE_DIRECTORY ${PAYWASM_SYSINC})
# Links <folder containing `name`>/`name` into sysinc: `name` is a folder such as "doctest".
function(paywasm_link_include name folder)
  if(NOT EXISTS ${folder})
    message(FATAL_ERROR "${folder} is missing: run `make deps` (scripts/deps.sh) first.")
  endif()
  file(CREATE_LINK ${folder} ${PAYWASM_SYSINC}/${name} SYMBOLIC)
endfunction()

# A header-only library found by one of its headers (`probe`, e.g. doctest/doctest.h) among the
# host's headers, as an INTERFACE target whose include path is sysinc (never the host's folder).
function(paywasm_header_library target alias probe package)
  if(TARGET ${target})
    return()
  endif()
  get_filename_component(folder ${probe} DIRECTORY)
  # The host's header folders: a cross build (Emscripten) searches its sysroot only by default.
  find_path(PAYWASM_${target}_ROOT ${probe} PATHS /usr/local/include /usr/include NO_CMAKE_FIND_ROOT_PATH)
  if(NOT PAYWASM_${target}_ROOT)
    message(FATAL_ERROR "${probe} not found: install Debian's ${package} (make deps does).")
  endif()
  paywasm_link_include(${folder} ${PAYWASM_${target}_ROOT}/${folder})
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE $<BUILD_INTERFACE:${PAYWASM_SYSINC}>)
  add_library(${alias} ALIAS ${target})
endfunction()

function(paywasm_find_doctest)
  paywasm_header_library(paywasm_doctest paywasm::doctest doctest/doctest.h doctest-dev)
endfunction()

function(paywasm_find_rapidjson)
  paywasm_header_library(paywasm_rapidjson paywasm::rapidjson rapidjson/document.h rapidjson-dev)
  # Numbers are read as text (money never goes through a double).
  target_compile_definitions(paywasm_rapidjson INTERFACE RAPIDJSON_HAS_STDSTRING=1)
endfunction()

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
  # search; -Oz made it 1.75x, -O1 is 554 B smaller (gzip) than -O2 and still over 3x (docs/bench.md).
  target_compile_options(paywasm_qrcodegen PRIVATE -O1)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(CRYPTOPP REQUIRED IMPORTED_TARGET libcrypto++)
  # Debian's .pc points inside include/cryptopp; sources write <cryptopp/...>: the folder above it.
  find_path(PAYWASM_CRYPTOPP_INCLUDE_DIR cryptopp/rsa.h HINTS ${CRYPTOPP_INCLUDEDIR}/.. REQUIRED)
  add_library(paywasm_cryptopp INTERFACE)
  target_link_libraries(paywasm_cryptopp INTERFACE PkgConfig::CRYPTOPP)
  target_include_directories(paywasm_cryptopp SYSTEM INTERFACE ${PAYWASM_CRYPTOPP_INCLUDE_DIR})

  find_library(PAYWASM_QRCODEGEN_LIB qrcodegencpp REQUIRED)
  find_path(PAYWASM_QRCODEGEN_INCLUDE_DIR qrcodegen/qrcodegen.hpp REQUIRED)
  add_library(paywasm_qrcodegen INTERFACE)
  target_link_libraries(paywasm_qrcodegen INTERFACE ${PAYWASM_QRCODEGEN_LIB})
  target_include_directories(paywasm_qrcodegen SYSTEM INTERFACE ${PAYWASM_QRCODEGEN_INCLUDE_DIR})
endif()
add_library(paywasm::cryptopp ALIAS paywasm_cryptopp)
add_library(paywasm::qrcodegen ALIAS paywasm_qrcodegen)
