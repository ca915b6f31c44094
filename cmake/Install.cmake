# PAYWASM_INSTALL: `cmake --install <build> --prefix P` puts the core library, its public headers
# and a CMake package under P, so that another project can
#   find_package(paywasm CONFIG REQUIRED)       # with CMAKE_PREFIX_PATH=P
#   target_link_libraries(app PRIVATE paywasm::core)
# Crypto++ and qrcodegen are not exported (they are the build's imported targets): the package
# config finds them again, the same way (Debian's libcrypto++-dev and libqrcodegencpp-dev).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PAYWASM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/paywasm)
install(TARGETS paywasm_core EXPORT paywasmTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
list(TRANSFORM PAYWASM_PUBLIC_HEADER_NAMES PREPEND ${PROJECT_SOURCE_DIR}/ OUTPUT_VARIABLE _paywasm_headers)
install(FILES ${_paywasm_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/paywasm)
install(EXPORT paywasmTargets NAMESPACE paywasm:: DESTINATION ${PAYWASM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/paywasmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/paywasmConfig.cmake INSTALL_DESTINATION ${PAYWASM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/paywasmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/paywasmConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/paywasmConfigVersion.cmake
  DESTINATION ${PAYWASM_CMAKE_DIR})
