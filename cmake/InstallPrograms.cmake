# `cmake --install <build> --prefix P` (native tree): the programs in P/bin, their --help texts in
# P/share/doc/paywasm (the reference an operator reads, as a man page would be), and the gateway's
# systemd unit in P/lib/systemd/system with P's paths filled in at install time.
include(GNUInstallDirs)
install(TARGETS paywasm paywasm-merchant paywasm-sandbox RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(_paywasm_help_dir ${CMAKE_BINARY_DIR}/help)
foreach(_program paywasm paywasm-merchant paywasm-sandbox)
  add_custom_command(OUTPUT ${_paywasm_help_dir}/${_program}.txt
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_paywasm_help_dir}
    COMMAND $<TARGET_FILE:${_program}> --help > ${_paywasm_help_dir}/${_program}.txt
    DEPENDS ${_program} VERBATIM)
  list(APPEND _paywasm_help_files ${_paywasm_help_dir}/${_program}.txt)
endforeach()
add_custom_target(paywasm_help ALL DEPENDS ${_paywasm_help_files})
install(FILES ${_paywasm_help_files} DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(CODE "
  set(_prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  file(READ \"${PROJECT_SOURCE_DIR}/deploy/paywasm-merchant.service.in\" _unit)
  string(REPLACE \"@PAYWASM_BIN_DIR@\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\" _unit \"\${_unit}\")
  string(REPLACE \"@PAYWASM_DOC_DIR@\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\" _unit \"\${_unit}\")
  file(MAKE_DIRECTORY \"\${_prefix}/lib/systemd/system\")
  file(WRITE \"\${_prefix}/lib/systemd/system/paywasm-merchant.service\" \"\${_unit}\")
  message(STATUS \"Installing: \${_prefix}/lib/systemd/system/paywasm-merchant.service\")
")
