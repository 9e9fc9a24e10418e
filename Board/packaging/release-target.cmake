# release-target.cmake — `cmake --build BUILD --target release`: every
# package of a release in BUILD/release/ (OpenWrt .apk and .ipk for aarch64,
# armv7 and x86_64 as package feeds, Debian .deb for arm64, armhf and amd64,
# SHA256SUMS), from firmware trees of its own in BUILD/trees/, whatever this
# tree is configured for. release-build.sh beside this file does the work
# and says what goes where; Board/README.md, Releases, how to use it.
#
#   cmake -S Board -B B -G Ninja [-DDNSWARD_APK=/path/to/apk] [-DDNSWARD_FEED_KEY=key.pem]
#         [-DDNSWARD_FEED_USIGN_KEY=key.sec -DDNSWARD_USIGN=/path/to/usign]
#   cmake --build B --target release

include("${CMAKE_CURRENT_LIST_DIR}/release.cmake")

# The OpenWrt architecture names (DISTRIB_ARCH) each static binary is
# packaged under: the ones whose CPUs it runs on. armv7 needs a VFP unit
# (hard float, VFPv3-D16 at least): arm_cortex-a9 without it is left out.
set(DNSWARD_RELEASE_ARCHES_aarch64 "aarch64_generic;aarch64_cortex-a53;aarch64_cortex-a72;aarch64_cortex-a76"
  CACHE STRING "OpenWrt architectures of the release's aarch64 packages")
set(DNSWARD_RELEASE_ARCHES_armv7
  "arm_cortex-a7_neon-vfpv4;arm_cortex-a7_vfpv4;arm_cortex-a8_vfpv3;arm_cortex-a9_neon;arm_cortex-a9_vfpv3-d16;arm_cortex-a15_neon-vfpv4"
  CACHE STRING "OpenWrt architectures of the release's armv7 packages")
set(DNSWARD_RELEASE_ARCHES_x86_64 "x86_64" CACHE STRING "OpenWrt architectures of the release's x86_64 packages")
# dnsward-tls links the router's mbedTLS: the release makes it for a target
# only when given mbedTLS built for that target's musl (include/ and lib/;
# .ci/mbedtls36-musl.sh makes aarch64's, with OpenWrt's options).
foreach(_target aarch64 armv7 x86_64)
  set(DNSWARD_RELEASE_MBEDTLS_${_target} "" CACHE PATH
    "mbedTLS for ${_target} musl (include/, lib/): the release's dnsward-tls for ${_target}; empty: none")
endforeach()
set(DNSWARD_FEED_KEY "" CACHE FILEPATH
  "private key (PEM; RSA keeps the index reproducible) that signs the release's apk indexes; empty: unsigned")
set(DNSWARD_FEED_USIGN_KEY "" CACHE FILEPATH
  "usign secret key (NAME.sec, its NAME.pub beside it) that signs the release's opkg indexes; empty: unsigned")
if(DNSWARD_FEED_USIGN_KEY)
  find_program(DNSWARD_USIGN usign REQUIRED DOC "OpenWrt's usign, which signs opkg feeds")
  set(_release_usign "${DNSWARD_USIGN}")
else()
  set(_release_usign "")
endif()
# DNSWARD_APK: apk.cmake's (apk-tools 3.x, found or given).
if(DNSWARD_APK)
  set(_release_apk "${DNSWARD_APK}")
else()
  set(_release_apk "")
  message(STATUS "release: no apk-tools 3 (DNSWARD_APK): the release will have no .apk packages")
endif()

add_custom_target(release
  COMMAND "${CMAKE_COMMAND}" -E env
          "RELEASE_SOURCE_ROOT=${DNSWARD_ROOT}"
          "RELEASE_OUT=${CMAKE_BINARY_DIR}/release"
          "RELEASE_TREES=${CMAKE_BINARY_DIR}/trees"
          "RELEASE_VERSION=${DNSWARD_PACKAGE_VERSION}"
          "RELEASE_APK=${_release_apk}"
          "RELEASE_FEED_KEY=${DNSWARD_FEED_KEY}"
          "RELEASE_USIGN=${_release_usign}"
          "RELEASE_FEED_USIGN_KEY=${DNSWARD_FEED_USIGN_KEY}"
          "RELEASE_OPENWRT_ARCHES_aarch64=${DNSWARD_RELEASE_ARCHES_aarch64}"
          "RELEASE_OPENWRT_ARCHES_armv7=${DNSWARD_RELEASE_ARCHES_armv7}"
          "RELEASE_OPENWRT_ARCHES_x86_64=${DNSWARD_RELEASE_ARCHES_x86_64}"
          "RELEASE_MBEDTLS_aarch64=${DNSWARD_RELEASE_MBEDTLS_aarch64}"
          "RELEASE_MBEDTLS_armv7=${DNSWARD_RELEASE_MBEDTLS_armv7}"
          "RELEASE_MBEDTLS_x86_64=${DNSWARD_RELEASE_MBEDTLS_x86_64}"
          bash "${CMAKE_CURRENT_LIST_DIR}/release-build.sh"
  COMMENT "Building every release package into ${CMAKE_BINARY_DIR}/release"
  USES_TERMINAL
  VERBATIM)
