# release.cmake — what the packages (ipk.cmake, apk.cmake, deb.cmake) take
# from the source: the version declared in Sources/CompiledConfig/Release.swift,
# the one place it is written, and the shared Version, Maintainer, License and
# URL settings.

file(STRINGS "${SRC}/CompiledConfig/Release.swift" _release_line
  REGEX "static let version: StaticString = \"[^\"]+\"")
string(REGEX REPLACE ".*= \"([^\"]+)\".*" "\\1" DNSWARD_RELEASE_VERSION "${_release_line}")
if(NOT DNSWARD_RELEASE_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "no version in ${SRC}/CompiledConfig/Release.swift (read '${_release_line}')")
endif()

set(DNSWARD_PACKAGE_VERSION "${DNSWARD_RELEASE_VERSION}" CACHE STRING
  "the packages' Version (default: Release.version in Sources/CompiledConfig/Release.swift)")
# The project's license (LICENSE at the repository's root), as an SPDX name.
set(DNSWARD_PACKAGE_LICENSE "Apache-2.0" CACHE STRING "the packages' License field (SPDX)")
set(DNSWARD_PACKAGE_MAINTAINER "dnsward maintainers <maintainers@dnsward.example>" CACHE STRING
  "the packages' Maintainer field")
set(DNSWARD_PACKAGE_URL "https://dnsward.example/" CACHE STRING "the packages' URL field")

# dnsward_refusing_package(TARGET REASON): a package target for a tree that
# cannot make that package. Configuring still works (the firmware itself is
# fine); only building the target fails, saying why.
function(dnsward_refusing_package target reason)
  add_custom_target(${target}
    COMMAND "${CMAKE_COMMAND}" -E echo "${target}: ${reason}"
    COMMAND "${CMAKE_COMMAND}" -E false
    VERBATIM)
endfunction()
