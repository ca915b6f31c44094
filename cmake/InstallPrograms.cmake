# `cmake --install <build> --prefix P` (native tree): the programs in P/bin, their --help texts in
# P/share/doc/paywasm (the reference an operator reads) and as man pages in P/share/man/man1 (made of
# the same texts), and the gateway's systemd unit in P/lib/systemd/system with P's paths filled in at
# install time. Each program's files are an install component (merchant, cli, sandbox): the Debian
# packages of `make package` (cmake/Package.cmake) are made of them.
include(GNUInstallDirs)
install(TARGETS paywasm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(TARGETS paywasm-merchant RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT merchant)
install(TARGETS paywasm-sandbox RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT sandbox)

set(_paywasm_help_dir ${CMAKE_BINARY_DIR}/help)
set(_paywasm_summary_paywasm "the paywasm command line: payments, keys, webhooks and QR codes against the service")
set(_paywasm_summary_paywasm-merchant "the merchant's gateway: checkout sessions, webhooks, hosted pages, console")
set(_paywasm_summary_paywasm-sandbox "a stand-in payment service to try paywasm against")
set(_paywasm_component_paywasm cli)
set(_paywasm_component_paywasm-merchant merchant)
set(_paywasm_component_paywasm-sandbox sandbox)
foreach(_program paywasm paywasm-merchant paywasm-sandbox)
  set(_help ${_paywasm_help_dir}/${_program}.txt)
  set(_man ${_paywasm_help_dir}/${_program}.1)
  add_custom_command(OUTPUT ${_help} ${_man}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_paywasm_help_dir}
    COMMAND $<TARGET_FILE:${_program}> --help > ${_help}
    COMMAND ${CMAKE_COMMAND} -DHELP=${_help} -DPROGRAM=${_program} "-DSUMMARY=${_paywasm_summary_${_program}}"
            -DVERSION=${PROJECT_VERSION} -DOUT=${_man} -P ${PROJECT_SOURCE_DIR}/cmake/help_to_man.cmake
    COMMAND gzip -9nf ${_man}
    DEPENDS ${_program} ${PROJECT_SOURCE_DIR}/cmake/help_to_man.cmake VERBATIM)
  list(APPEND _paywasm_help_files ${_help} ${_man}.gz)
  install(FILES ${_help} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT help)
  install(FILES ${_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${_paywasm_component_${_program}})
endforeach()
add_custom_target(paywasm_help ALL DEPENDS ${_paywasm_help_files})

install(CODE "
  set(_prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  file(READ \"${PROJECT_SOURCE_DIR}/deploy/paywasm-merchant.service.in\" _unit)
  string(REPLACE \"@PAYWASM_BIN_DIR@\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\" _unit \"\${_unit}\")
  file(MAKE_DIRECTORY \"\${_prefix}/lib/systemd/system\")
  file(WRITE \"\${_prefix}/lib/systemd/system/paywasm-merchant.service\" \"\${_unit}\")
  message(STATUS \"Installing: \${_prefix}/lib/systemd/system/paywasm-merchant.service\")
" COMPONENT merchant)

include(cmake/Package.cmake)   # make package: the Debian packages
