# `make package` (scripts/package.sh): three Debian packages made by CPack from the install
# components of cmake/InstallPrograms.cmake, versioned by project(paywasm VERSION ...) alone:
#   paywasm-merchant  the gateway, its systemd unit, the default /etc/paywasm/merchant.conf (a
#                     conffile), the widget's built files in /usr/share/paywasm/widget (from
#                     PAYWASM_PACKAGE_WIDGET_DIR, scripts/dist.sh's output), the paywasm system user
#                     (postinst) and its state directory /var/lib/paywasm; purge removes them
#   paywasm           the CLI
#   paywasm-sandbox   the stand-in payment service
# Each with its man page, copyright and changelog; runtime dependencies from dpkg-shlibdeps.
# The *_deb components hold what only a package installs (absolute /etc paths, the widget, the
# Debian documents): EXCLUDE_FROM_ALL, so `cmake --install` never writes to /etc.
set(PAYWASM_PACKAGE_WIDGET_DIR ${CMAKE_BINARY_DIR}/package-widget CACHE PATH
  "The widget's built files for the paywasm-merchant package (scripts/dist.sh's output)")
set(_paywasm_deb_dir ${PROJECT_SOURCE_DIR}/deploy/debian)

install(FILES ${_paywasm_deb_dir}/merchant.conf DESTINATION /etc/paywasm COMPONENT merchant_deb EXCLUDE_FROM_ALL)
install(DIRECTORY ${PAYWASM_PACKAGE_WIDGET_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/paywasm/widget
  COMPONENT merchant_deb EXCLUDE_FROM_ALL PATTERN "*.tgz" EXCLUDE)

# A Debian changelog per package (the project's history is CHANGELOG.md, shipped beside it).
string(TIMESTAMP _paywasm_deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(PAYWASM_DEB_MAINTAINER "paywasm maintainers <maintainers@paywasm.org>")
foreach(_pkg paywasm paywasm-merchant paywasm-sandbox)
  set(_dir ${CMAKE_BINARY_DIR}/debian/${_pkg})
  file(MAKE_DIRECTORY ${_dir})
  file(WRITE ${_dir}/changelog "paywasm (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
    "  * paywasm ${PROJECT_VERSION}: the changes are in CHANGELOG.md.gz beside this file.\n\n"
    " -- ${PAYWASM_DEB_MAINTAINER}  ${_paywasm_deb_date}\n")
  execute_process(COMMAND gzip -9nf ${_dir}/changelog)
  execute_process(COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/CHANGELOG.md OUTPUT_FILE ${_dir}/CHANGELOG.md.gz)
endforeach()
foreach(_pair "cli_deb;paywasm" "merchant_deb;paywasm-merchant" "sandbox_deb;paywasm-sandbox")
  list(GET _pair 0 _component)
  list(GET _pair 1 _pkg)
  install(FILES ${_paywasm_deb_dir}/copyright ${CMAKE_BINARY_DIR}/debian/${_pkg}/changelog.gz
    ${CMAKE_BINARY_DIR}/debian/${_pkg}/CHANGELOG.md.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_pkg} COMPONENT ${_component} EXCLUDE_FROM_ALL)
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME paywasm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${PAYWASM_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PAYWASM_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_SET_DESTDIR ON)   # the unit's paths and /etc are the installed ones, under a DESTDIR
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL merchant merchant_deb cli cli_deb sandbox sandbox_deb)
foreach(_group merchant cli sandbox)
  string(TOUPPER ${_group} _up)
  set(CPACK_COMPONENT_${_up}_GROUP ${_group})
  set(CPACK_COMPONENT_${_up}_DEB_GROUP ${_group})
endforeach()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SOURCE paywasm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
  WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_MERCHANT_PACKAGE_NAME paywasm-merchant)
set(CPACK_DEBIAN_MERCHANT_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_MERCHANT_PACKAGE_CONTROL_EXTRA
  "${_paywasm_deb_dir}/paywasm-merchant/postinst;${_paywasm_deb_dir}/paywasm-merchant/prerm;${_paywasm_deb_dir}/paywasm-merchant/postrm;${_paywasm_deb_dir}/paywasm-merchant/conffiles")
set(CPACK_DEBIAN_MERCHANT_DESCRIPTION "paywasm merchant gateway
The merchant's half of a paywasm checkout: checkout sessions, the payment
service's signed webhooks, status streams to the shopper's page, signed
events to the shop's app, hosted checkout pages, payment links and the
merchant's console. Set it up with `paywasm-merchant init`.")
set(CPACK_DEBIAN_CLI_PACKAGE_NAME paywasm)
set(CPACK_DEBIAN_CLI_DESCRIPTION "command line of the paywasm checkout
Calls the payment service's endpoints (payments, QR codes, subscriptions),
checks keys and webhook signatures, and renders QR codes, with the same core
as the paywasm checkout widget.")
set(CPACK_DEBIAN_SANDBOX_PACKAGE_NAME paywasm-sandbox)
set(CPACK_DEBIAN_SANDBOX_DESCRIPTION "paywasm stand-in payment service
A local payment service with the real one's endpoints, keys and signed
webhooks, whose statuses move on their own or on request: for trying a
paywasm checkout and its merchant gateway without a real account.")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
include(CPack)
