# deb.cmake — `cmake --build BUILD --target deb`: a Debian / Raspberry Pi OS
# package of the firmware in this build tree, BUILD/dnsward_VERSION_ARCH.deb.
# Included at the end of Board/CMakeLists.txt; the package's files and the
# script that assembles it are in Board/debian/ (README.md there).
#
#   cmake -S Board -B /tmp/deb-arm64 -G Ninja -DDNSWARD_TARGET=aarch64 \
#         -DDNSWARD_MAX_PAGE_SIZE=65536 -DDNSWARD_DNSSEC=ON
#   cmake --build /tmp/deb-arm64 --target deb
#
# (65536: the binary loads on 4, 16 and 64 KiB pages; DNSWARD_DNSSEC: the
# validator that the packaged config's `dnssec auto` needs.)
#
# DNSWARD_TARGET gives the architecture: aarch64 → arm64, armv7 → armhf,
# host → the build machine's (dpkg --print-architecture). The package runs
# `dnsward --config /etc/dnsward/dnsward.conf`, so the tree must be a glibc
# build with the runtime config (the defaults); the compiled-in config is not
# used by the service. Needs dpkg-deb (package dpkg) and gzip.
#
# The package's /etc/dnsward/dnsward.conf says `dnssec auto` only when its
# binary has the validator: a tree without -DDNSWARD_DNSSEC=ON still makes a
# package, whose config says `dnssec off` instead (build-deb.sh --dnssec off),
# so that it starts; the Debian profile is the tree with the option.

include("${CMAKE_CURRENT_LIST_DIR}/release.cmake")

set(_deb_problem "")
if(DNSWARD_TARGET STREQUAL "aarch64")
  set(_deb_arch arm64)
elseif(DNSWARD_TARGET STREQUAL "armv7")
  set(_deb_arch armhf)
else()
  execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE _deb_arch
    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _deb_status ERROR_QUIET)
  if(NOT _deb_status EQUAL 0)
    set(_deb_problem "no dpkg on this machine to name the host's architecture")
  endif()
endif()
if(NOT DNSWARD_LIBC STREQUAL "glibc")
  set(_deb_problem "the package is for glibc systems; this tree is DNSWARD_LIBC=${DNSWARD_LIBC}")
elseif(NOT DNSWARD_RUNTIME_CONFIG)
  set(_deb_problem "the packaged service runs --config: configure with -DDNSWARD_RUNTIME_CONFIG=ON")
elseif(DNSWARD_TLS)
  set(_deb_problem "a TLS build needs mbedTLS's packages in Depends, which the package does not compute yet")
endif()

if(_deb_problem)
  dnsward_refusing_package(deb "${_deb_problem}")
else()
  find_program(DNSWARD_READELF NAMES ${DNSWARD_TOOL_PREFIX}readelf readelf REQUIRED)
  find_program(DNSWARD_DPKG_DEB dpkg-deb REQUIRED DOC "dpkg-deb, to build the .deb")
  if(NOT DNSWARD_DNSSEC)
    message(STATUS "dnsward .deb: this tree has no DNSSEC validator, so the package's config "
      "will say `dnssec off`; configure with -DDNSWARD_DNSSEC=ON for the Debian profile's `dnssec auto`")
  endif()
  if(_deb_arch STREQUAL "arm64" AND DNSWARD_MAX_PAGE_SIZE LESS 16384)
    message(STATUS "dnsward .deb: DNSWARD_MAX_PAGE_SIZE=${DNSWARD_MAX_PAGE_SIZE} will not load on "
      "Raspberry Pi 5's 16 KiB-page kernel; use a build tree configured with -DDNSWARD_MAX_PAGE_SIZE=65536")
  endif()
  # No OUTPUT: the file name holds the version, known only when the script
  # asks git, and assembling the package takes well under a second.
  add_custom_target(deb
    COMMAND bash "${CMAKE_CURRENT_LIST_DIR}/../debian/build-deb.sh"
            --binary "$<TARGET_FILE:dnsward>" --arch "${_deb_arch}" --out "${CMAKE_BINARY_DIR}"
            --version "${DNSWARD_PACKAGE_VERSION}" --maintainer "${DNSWARD_PACKAGE_MAINTAINER}"
            --strip "${DNSWARD_STRIP}" --readelf "${DNSWARD_READELF}"
            --dnssec "$<IF:$<BOOL:${DNSWARD_DNSSEC}>,on,off>"
    COMMENT "Packaging dnsward for ${_deb_arch}"
    VERBATIM)
  add_dependencies(deb dnsward)
endif()
