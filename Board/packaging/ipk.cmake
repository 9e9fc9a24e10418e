# ipk.cmake — `cmake --build BUILD --target ipk`: the firmware of this build
# tree as an opkg package for OpenWrt 24.10 and earlier (25.x installs apk
# packages instead), BUILD/<package>_<version>_<arch>.ipk. What it holds and
# how to use it: Board/openwrt/README.md. The layout is written by
# ipk-build.sh beside this file.
#
# OpenWrt's userland is musl: the package is meant for a tree configured
# with -DDNSWARD_LIBC=musl (fully static). For a glibc tree that is not
# -static-pie the target refuses, unless -DDNSWARD_IPK_ALLOW_DYNAMIC=ON.
#
#   -DDNSWARD_OPENWRT_ARCH=aarch64_cortex-a53   the device's DISTRIB_ARCH
#   -DDNSWARD_PACKAGE_VERSION=1.2.3             default: Release.version (release.cmake)
#   -DDNSWARD_OPENWRT_MBEDTLS_DEPENDS=...       with -DDNSWARD_TLS=ON

# opkg installs a package only if its Architecture is one the device lists
# (/etc/opkg.conf, `arch` lines; DISTRIB_ARCH in /etc/openwrt_release), so
# the default is a common name for the target and the user picks theirs.
if(DNSWARD_TARGET STREQUAL "aarch64")
  set(_ipk_arch_default aarch64_generic)
elseif(DNSWARD_TARGET STREQUAL "armv7")
  set(_ipk_arch_default arm_cortex-a7_neon-vfpv4)
elseif(DNSWARD_TARGET STREQUAL "x86_64")
  set(_ipk_arch_default x86_64)
else()
  set(_ipk_arch_default "")
endif()
set(DNSWARD_OPENWRT_ARCH "${_ipk_arch_default}" CACHE STRING
  "OpenWrt architecture of the .ipk (DISTRIB_ARCH, e.g. aarch64_cortex-a53, arm_cortex-a9_vfpv3-d16)")
include("${CMAKE_CURRENT_LIST_DIR}/release.cmake")
option(DNSWARD_IPK_ALLOW_DYNAMIC
  "let the ipk target package a binary that needs a dynamic loader (glibc), which OpenWrt lacks" OFF)

# With TLS: mbedTLS from OpenWrt's own package where the binary loads it
# (libmbedtls21 is mbedTLS 3.6 in OpenWrt 24.10): the musl build linked
# dynamically (DNSWARD_MUSL_DYNAMIC); a static musl binary carries it, so
# there is nothing to depend on.
if(DNSWARD_TLS AND (NOT DNSWARD_LIBC STREQUAL "musl" OR DNSWARD_MUSL_DYNAMIC))
  set(_ipk_mbedtls_default libmbedtls21)
else()
  set(_ipk_mbedtls_default "")
endif()
set(DNSWARD_OPENWRT_MBEDTLS_DEPENDS "${_ipk_mbedtls_default}" CACHE STRING
  "the OpenWrt package(s) of mbedTLS the TLS build depends on (comma-separated)")

set(_ipk_depends libc)
if(DNSWARD_TLS)
  set(_ipk_package dnsward-tls)
  if(DNSWARD_OPENWRT_MBEDTLS_DEPENDS)
    string(APPEND _ipk_depends ", ${DNSWARD_OPENWRT_MBEDTLS_DEPENDS}")
  endif()
else()
  set(_ipk_package dnsward)
endif()

set(_ipk_refusal "")
if(NOT DNSWARD_OPENWRT_ARCH)
  set(_ipk_refusal "no OpenWrt architecture for DNSWARD_TARGET=${DNSWARD_TARGET}: "
    "set -DDNSWARD_OPENWRT_ARCH=<DISTRIB_ARCH>")
elseif(NOT DNSWARD_LIBC STREQUAL "musl" AND NOT DNSWARD_STATIC_PIE AND NOT DNSWARD_IPK_ALLOW_DYNAMIC)
  set(_ipk_refusal "this tree links dnsward dynamically against glibc, which OpenWrt (musl) does "
    "not have: configure another tree with -DDNSWARD_LIBC=musl, or pass "
    "-DDNSWARD_IPK_ALLOW_DYNAMIC=ON if the device really has glibc")
endif()

if(_ipk_refusal)
  string(JOIN "" _ipk_refusal ${_ipk_refusal})
  dnsward_refusing_package(ipk "${_ipk_refusal}")
else()
  find_program(DNSWARD_READELF NAMES ${DNSWARD_TOOL_PREFIX}readelf readelf REQUIRED)
  add_custom_target(ipk
    COMMAND "${CMAKE_COMMAND}" -E env
            "IPK_BINARY=${CMAKE_BINARY_DIR}/dnsward.stripped"
            "IPK_OUT_DIR=${CMAKE_BINARY_DIR}"
            "IPK_SOURCE_ROOT=${DNSWARD_ROOT}"
            "IPK_PACKAGE=${_ipk_package}"
            "IPK_ARCH=${DNSWARD_OPENWRT_ARCH}"
            "IPK_VERSION=${DNSWARD_PACKAGE_VERSION}"
            "IPK_MAINTAINER=${DNSWARD_PACKAGE_MAINTAINER}"
            "IPK_LICENSE=${DNSWARD_PACKAGE_LICENSE}"
            "IPK_DEPENDS=${_ipk_depends}"
            "IPK_READELF=${DNSWARD_READELF}"
            "IPK_ALLOW_DYNAMIC=$<BOOL:${DNSWARD_IPK_ALLOW_DYNAMIC}>"
            "IPK_DNSSEC=$<BOOL:${DNSWARD_DNSSEC}>"
            bash "${CMAKE_CURRENT_LIST_DIR}/ipk-build.sh"
    DEPENDS "${CMAKE_BINARY_DIR}/dnsward.stripped"
      "${CMAKE_CURRENT_LIST_DIR}/ipk-build.sh"
      "${DNSWARD_ROOT}/Board/openwrt/package/dnsward.init"
      "${DNSWARD_ROOT}/Board/openwrt/package/dnsward.uci"
      "${DNSWARD_ROOT}/Board/openwrt/package/uci-to-conf.awk"
    COMMENT "Packaging ${_ipk_package} for OpenWrt (${DNSWARD_OPENWRT_ARCH})"
    VERBATIM)
endif()
