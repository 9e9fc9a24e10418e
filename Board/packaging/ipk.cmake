# ipk.cmake — `cmake --build BUILD --target ipk`: the firmware of this build
# tree as an opkg package for OpenWrt 24.10 and earlier (25.12 installs the
# .apk of apk.cmake instead), BUILD/<package>_<version>_<arch>.ipk. What it
# holds and how to use it: Board/openwrt/README.md. The layout is written by
# ipk-build.sh beside this file; the settings it shares with the .apk
# (architecture, version, dependencies, which trees it refuses) are in
# openwrt.cmake.
include("${CMAKE_CURRENT_LIST_DIR}/openwrt.cmake")

if(DNSWARD_OPENWRT_REFUSAL)
  dnsward_refusing_package(ipk "${DNSWARD_OPENWRT_REFUSAL}")
else()
  list(JOIN DNSWARD_OPENWRT_DEPENDS ", " _ipk_depends)
  add_custom_target(ipk
    COMMAND "${CMAKE_COMMAND}" -E env
            "IPK_BINARY=${CMAKE_BINARY_DIR}/dnsward.stripped"
            "IPK_OUT_DIR=${CMAKE_BINARY_DIR}"
            "IPK_SOURCE_ROOT=${DNSWARD_ROOT}"
            "IPK_PACKAGE=${DNSWARD_OPENWRT_PACKAGE}"
            "IPK_ARCH=${DNSWARD_OPENWRT_ARCH}"
            "IPK_VERSION=${DNSWARD_OPENWRT_VERSION}"
            "IPK_MAINTAINER=${DNSWARD_PACKAGE_MAINTAINER}"
            "IPK_LICENSE=${DNSWARD_PACKAGE_LICENSE}"
            "IPK_URL=${DNSWARD_PACKAGE_URL}"
            "IPK_DEPENDS=${_ipk_depends}"
            "IPK_READELF=${DNSWARD_READELF}"
            "IPK_ALLOW_DYNAMIC=$<BOOL:${DNSWARD_IPK_ALLOW_DYNAMIC}>"
            "IPK_DNSSEC=$<BOOL:${DNSWARD_DNSSEC}>"
            bash "${CMAKE_CURRENT_LIST_DIR}/ipk-build.sh"
    DEPENDS ${DNSWARD_OPENWRT_INPUTS} "${CMAKE_CURRENT_LIST_DIR}/ipk-build.sh"
    COMMENT "Packaging ${DNSWARD_OPENWRT_PACKAGE} for OpenWrt (${DNSWARD_OPENWRT_ARCH}, .ipk)"
    VERBATIM)
endif()
