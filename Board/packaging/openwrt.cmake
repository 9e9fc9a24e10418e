# openwrt.cmake — what the two OpenWrt packages of this build tree share:
# the .ipk for OpenWrt 24.10 and earlier (ipk.cmake) and the .apk for 25.12
# (apk.cmake). Both install the same files (openwrt-package.sh) under the
# same name, version, architecture and dependencies, declared here once.
#
# OpenWrt's userland is musl: the packages are meant for a tree configured
# with -DDNSWARD_LIBC=musl (fully static). For a glibc tree that is not
# -static-pie their targets refuse, unless -DDNSWARD_IPK_ALLOW_DYNAMIC=ON.
#
#   -DDNSWARD_OPENWRT_ARCH=aarch64_cortex-a53   the device's DISTRIB_ARCH
#   -DDNSWARD_PACKAGE_VERSION=1.2.3             default: Release.version (release.cmake)
#   -DDNSWARD_OPENWRT_RELEASE=1                 the -rN of the version
#   -DDNSWARD_OPENWRT_MBEDTLS_DEPENDS=...       with -DDNSWARD_TLS=ON
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/release.cmake")

# opkg and apk install a package only if its architecture is one the device
# lists (opkg: `arch` lines of /etc/opkg.conf; apk: /etc/apk/arch; both
# DISTRIB_ARCH of /etc/openwrt_release), so the default is a common name for
# the target and the user picks theirs.
if(DNSWARD_TARGET STREQUAL "aarch64")
  set(_openwrt_arch_default aarch64_generic)
elseif(DNSWARD_TARGET STREQUAL "armv7")
  set(_openwrt_arch_default arm_cortex-a7_neon-vfpv4)
elseif(DNSWARD_TARGET STREQUAL "x86_64")
  set(_openwrt_arch_default x86_64)
else()
  set(_openwrt_arch_default "")
endif()
set(DNSWARD_OPENWRT_ARCH "${_openwrt_arch_default}" CACHE STRING
  "OpenWrt architecture of the .ipk and .apk (DISTRIB_ARCH, e.g. aarch64_cortex-a53, arm_cortex-a9_vfpv3-d16)")
option(DNSWARD_IPK_ALLOW_DYNAMIC
  "let the ipk and apk targets package a binary that needs a dynamic loader (glibc), which OpenWrt lacks" OFF)

# OpenWrt's package version is VERSION-rRELEASE (apk requires the -r part;
# opkg reads it as the revision): the release counts packagings of one
# source version, so a fix to the package alone is an upgrade.
set(DNSWARD_OPENWRT_RELEASE 1 CACHE STRING "the -rN part of the OpenWrt packages' version")
if(NOT DNSWARD_OPENWRT_RELEASE MATCHES "^[0-9]+$")
  message(FATAL_ERROR "DNSWARD_OPENWRT_RELEASE is '${DNSWARD_OPENWRT_RELEASE}', not a number")
endif()
set(DNSWARD_OPENWRT_VERSION "${DNSWARD_PACKAGE_VERSION}-r${DNSWARD_OPENWRT_RELEASE}")

# With TLS: mbedTLS from OpenWrt's own package where the binary loads it
# (libmbedtls21 is mbedTLS 3.6 in OpenWrt 24.10): the musl build linked
# dynamically (DNSWARD_MUSL_DYNAMIC); a static musl binary carries it, so
# there is nothing to depend on.
if(DNSWARD_TLS AND (NOT DNSWARD_LIBC STREQUAL "musl" OR DNSWARD_MUSL_DYNAMIC))
  set(_openwrt_mbedtls_default libmbedtls21)
else()
  set(_openwrt_mbedtls_default "")
endif()
set(DNSWARD_OPENWRT_MBEDTLS_DEPENDS "${_openwrt_mbedtls_default}" CACHE STRING
  "the OpenWrt package(s) of mbedTLS the TLS build depends on (comma-separated)")

# The package name and its dependencies as a CMake list; each format joins
# them its own way (opkg: ", ", apk: " ").
set(DNSWARD_OPENWRT_DEPENDS libc)
if(DNSWARD_TLS)
  set(DNSWARD_OPENWRT_PACKAGE dnsward-tls)
  string(REPLACE "," ";" _openwrt_mbedtls "${DNSWARD_OPENWRT_MBEDTLS_DEPENDS}")
  foreach(_dependency IN LISTS _openwrt_mbedtls)
    string(STRIP "${_dependency}" _dependency)
    if(_dependency)
      list(APPEND DNSWARD_OPENWRT_DEPENDS "${_dependency}")
    endif()
  endforeach()
else()
  set(DNSWARD_OPENWRT_PACKAGE dnsward)
endif()

# Why this tree cannot make an OpenWrt package; empty if it can.
set(DNSWARD_OPENWRT_REFUSAL "")
if(NOT DNSWARD_OPENWRT_ARCH)
  set(DNSWARD_OPENWRT_REFUSAL "no OpenWrt architecture for DNSWARD_TARGET=${DNSWARD_TARGET}: "
    "set -DDNSWARD_OPENWRT_ARCH=<DISTRIB_ARCH>")
elseif(NOT DNSWARD_LIBC STREQUAL "musl" AND NOT DNSWARD_STATIC_PIE AND NOT DNSWARD_IPK_ALLOW_DYNAMIC)
  set(DNSWARD_OPENWRT_REFUSAL "this tree links dnsward dynamically against glibc, which OpenWrt (musl) does "
    "not have: configure another tree with -DDNSWARD_LIBC=musl, or pass "
    "-DDNSWARD_IPK_ALLOW_DYNAMIC=ON if the device really has glibc")
endif()
string(JOIN "" DNSWARD_OPENWRT_REFUSAL ${DNSWARD_OPENWRT_REFUSAL})

if(NOT DNSWARD_OPENWRT_REFUSAL)
  find_program(DNSWARD_READELF NAMES ${DNSWARD_TOOL_PREFIX}readelf readelf REQUIRED)
endif()
# What a package is made of: its target depends on all of it.
set(DNSWARD_OPENWRT_INPUTS
  "${CMAKE_BINARY_DIR}/dnsward.stripped"
  "${CMAKE_CURRENT_LIST_DIR}/openwrt-package.sh"
  "${DNSWARD_ROOT}/Board/openwrt/package/dnsward.init"
  "${DNSWARD_ROOT}/Board/openwrt/package/dnsward.uci"
  "${DNSWARD_ROOT}/Board/openwrt/package/uci-to-conf.awk")
