# PAYWASM_SANITIZE: build every target that follows with the listed sanitizers, native builds only.
#   cmake -S . -B build/asan -DPAYWASM_SANITIZE=address,undefined
# Any comma-separated list the compiler accepts after -fsanitize= (gcc and clang: address, undefined,
# leak; clang also memory, thread, ...). Every finding is fatal (-fno-sanitize-recover=all), so a test
# that trips UBSan fails instead of printing a warning nobody reads. Include this file right after
# project(), before any target is defined: it sets directory-wide flags.
set(PAYWASM_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined (native only)")

if(PAYWASM_SANITIZE)
  if(EMSCRIPTEN)
    message(FATAL_ERROR "PAYWASM_SANITIZE is for native builds; configure the wasm build without it.")
  endif()
  string(REPLACE ";" "," _paywasm_sanitizers "${PAYWASM_SANITIZE}")
  set(_paywasm_sanitize_flags -fsanitize=${_paywasm_sanitizers} -fno-sanitize-recover=all
      -fno-omit-frame-pointer)
  # Fail at configure time, with the reason, when the toolchain lacks a runtime (libasan, libubsan).
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "${_paywasm_sanitize_flags}")
  string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS}")
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=${_paywasm_sanitizers})
  string(MAKE_C_IDENTIFIER "PAYWASM_SANITIZE_LINKS_${_paywasm_sanitizers}" _paywasm_sanitize_check)
  check_cxx_source_compiles("int main() { return 0; }" ${_paywasm_sanitize_check})
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(NOT ${_paywasm_sanitize_check})
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} cannot build with -fsanitize=${_paywasm_sanitizers}; "
      "install the runtime (gcc: libasan8 libubsan1, clang: libclang-rt-14-dev) or change PAYWASM_SANITIZE.")
  endif()
  add_compile_options(${_paywasm_sanitize_flags})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Known, benign reports in third-party headers (each entry says why); gcc does not report them.
    add_compile_options(-fsanitize-ignorelist=${CMAKE_CURRENT_LIST_DIR}/sanitizer-ignore.txt)
  endif()
  add_link_options(-fsanitize=${_paywasm_sanitizers})
  # Debug info for readable reports, whatever the build type.
  add_compile_options(-g)
  message(STATUS "paywasm: sanitizers on every target: ${_paywasm_sanitizers}")
endif()
