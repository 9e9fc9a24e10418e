# target-names.cmake — the firmware targets DNSWARD_TARGET may name, and the
# check of a given name. Toolchain.cmake includes it (its targets' settings
# follow), and so does Board/CMakeLists.txt before project(): a message there
# ends the configure at once, whereas one from the toolchain file, read by
# project(), is followed by CMake's own errors ("unable to find a build
# program corresponding to Ninja", "CMAKE_C_COMPILER not set") that bury it.
set(DNSWARD_TARGETS aarch64 armv7 x86_64 host)

# Debian's and OpenWrt's names for the same machines are common guesses:
# the message says which target they are.
if(DEFINED DNSWARD_TARGET AND NOT DNSWARD_TARGET IN_LIST DNSWARD_TARGETS)
  set(_dnsward_hint "")
  foreach(_alias arm64=aarch64 aarch64_generic=aarch64 armhf=armv7 arm=armv7 amd64=x86_64 x86-64=x86_64)
    string(REPLACE "=" ";" _pair "${_alias}")
    list(GET _pair 0 _alias_name)
    list(GET _pair 1 _alias_target)
    if(DNSWARD_TARGET STREQUAL _alias_name)
      set(_dnsward_hint " (for ${_alias_name}: -DDNSWARD_TARGET=${_alias_target})")
    endif()
  endforeach()
  list(JOIN DNSWARD_TARGETS ", " _dnsward_names)
  message(FATAL_ERROR "DNSWARD_TARGET must be one of ${_dnsward_names}, not '${DNSWARD_TARGET}'"
    "${_dnsward_hint}. This build directory has cached the wrong name: use a new one, or "
    "configure it again with the right -DDNSWARD_TARGET.")
endif()
