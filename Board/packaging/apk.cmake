# apk.cmake — `cmake --build BUILD --target apk`: the firmware of this build
# tree as an apk v3 package for OpenWrt 25.12 and later, made by apk-tools'
# own `apk mkpkg`: BUILD/<package>-<version>.apk (OpenWrt's file name; the
# architecture is inside). The same files, name, version, architecture and
# dependencies as the .ipk (openwrt.cmake, openwrt-package.sh); the layout
# and the metadata are written by apk-build.sh beside this file. How to use
# it: Board/openwrt/README.md.
#
#   -DDNSWARD_APK=/path/to/apk     apk-tools 3.x (default: `apk` on PATH)
include("${CMAKE_CURRENT_LIST_DIR}/openwrt.cmake")

find_program(DNSWARD_APK apk DOC "apk-tools 3.x's apk, which makes the .apk (apk mkpkg)")

# Debian 12 has no apk-tools package, and apk-tools 2 writes the older
# package format that OpenWrt's apk does not install: say how to get 3.x.
set(_apk_howto "build apk-tools 3.x from its source (Alpine's apk-tools, tag v3.0.6 or later): "
  "apt-get install meson pkg-config libssl-dev zlib1g-dev libzstd-dev, "
  "meson setup build -Dlua=disabled -Ddocs=disabled -Dtests=disabled && ninja -C build, "
  "then configure this tree with -DDNSWARD_APK=<that directory>/build/src/apk")
string(JOIN "" _apk_howto ${_apk_howto})
set(_apk_refusal "${DNSWARD_OPENWRT_REFUSAL}")
if(NOT _apk_refusal)
  if(NOT DNSWARD_APK)
    set(_apk_refusal "no apk-tools 3.x found (DNSWARD_APK): ${_apk_howto}")
  else()
    execute_process(COMMAND "${DNSWARD_APK}" --version OUTPUT_VARIABLE _apk_version
      RESULT_VARIABLE _apk_status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT _apk_status EQUAL 0 OR NOT _apk_version MATCHES "^apk-tools 3\\.")
      set(_apk_refusal "${DNSWARD_APK} is '${_apk_version}', not apk-tools 3.x: ${_apk_howto}")
    endif()
  endif()
endif()

if(_apk_refusal)
  dnsward_refusing_package(apk "${_apk_refusal}")
else()
  list(JOIN DNSWARD_OPENWRT_DEPENDS " " _apk_depends)
  add_custom_target(apk
    COMMAND "${CMAKE_COMMAND}" -E env
            "APK_TOOL=${DNSWARD_APK}"
            "APK_BINARY=${CMAKE_BINARY_DIR}/dnsward.stripped"
            "APK_OUT_DIR=${CMAKE_BINARY_DIR}"
            "APK_SOURCE_ROOT=${DNSWARD_ROOT}"
            "APK_PACKAGE=${DNSWARD_OPENWRT_PACKAGE}"
            "APK_ARCH=${DNSWARD_OPENWRT_ARCH}"
            "APK_VERSION=${DNSWARD_OPENWRT_VERSION}"
            "APK_MAINTAINER=${DNSWARD_PACKAGE_MAINTAINER}"
            "APK_LICENSE=${DNSWARD_PACKAGE_LICENSE}"
            "APK_URL=${DNSWARD_PACKAGE_URL}"
            "APK_DEPENDS=${_apk_depends}"
            "APK_READELF=${DNSWARD_READELF}"
            "APK_ALLOW_DYNAMIC=$<BOOL:${DNSWARD_IPK_ALLOW_DYNAMIC}>"
            "APK_DNSSEC=$<BOOL:${DNSWARD_DNSSEC}>"
            bash "${CMAKE_CURRENT_LIST_DIR}/apk-build.sh"
    DEPENDS ${DNSWARD_OPENWRT_INPUTS} "${CMAKE_CURRENT_LIST_DIR}/apk-build.sh"
    COMMENT "Packaging ${DNSWARD_OPENWRT_PACKAGE} for OpenWrt (${DNSWARD_OPENWRT_ARCH}, .apk)"
    VERBATIM)
endif()
