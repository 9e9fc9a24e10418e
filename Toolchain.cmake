# Toolchain.cmake — how the dnsward firmware is cross-compiled.
#
#   cmake -S Board -B /tmp/fw-aarch64 -G Ninja -DDNSWARD_TARGET=aarch64
#
# Board/CMakeLists.txt loads this file as its CMAKE_TOOLCHAIN_FILE unless the
# caller names another one. It picks, for one DNSWARD_TARGET:
#
# - the Swift target triple. Embedded Swift ships its standard library for
#   bare-metal triples (`aarch64-none-none-elf`, `armv7-none-none-eabi`) and for
#   the host's Linux triple; the code it emits for those bare-metal triples is
#   plain ELF that links into a Linux program, because the Embedded stdlib
#   asks the OS for nothing but memory (posix_memalign/free, from the libc);
# - the sysroot whose libc headers the Swift compiler's Clang importer reads
#   for CLinux (sys/epoll.h, sys/socket.h, ...) — the target's, not the host's;
# - the cross C compiler, which also links: against the target's glibc, with
#   its crt files and dynamic loader (Debian/Ubuntu `gcc-<triple>` packages).
#
# and, with DNSWARD_LIBC, which C library that is (below):
#
#   cmake -S Board -B /tmp/fw-aarch64-musl -G Ninja -DDNSWARD_TARGET=aarch64 -DDNSWARD_LIBC=musl
#
# Overrides: -DCMAKE_C_COMPILER=..., -DDNSWARD_SYSROOT=..., -DDNSWARD_MUSL_INCLUDE=...,
# -DDNSWARD_SWIFTC=...

# One of aarch64 (the default), armv7, x86_64 (64-bit PC routers: OpenWrt's
# x86/64 target, static musl only), or host (Embedded Swift for the build
# machine: the quick way to check the firmware's modules and to run it here,
# and the glibc build for an x86_64 Debian).
set(DNSWARD_TARGET "aarch64" CACHE STRING "firmware target: aarch64, armv7, x86_64 or host")
# The names and their check: Board/target-names.cmake, which
# Board/CMakeLists.txt also runs before project(), so that a wrong name stops
# the configure at once instead of being followed by CMake's own errors about
# the generator and the compilers.
include("${CMAKE_CURRENT_LIST_DIR}/Board/target-names.cmake")
set_property(CACHE DNSWARD_TARGET PROPERTY STRINGS ${DNSWARD_TARGETS})

# CMake re-reads this file in a fresh project for every compiler check
# (try_compile); pass it the target chosen above and any sysroot override.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
  DNSWARD_TARGET DNSWARD_LIBC DNSWARD_SYSROOT DNSWARD_MUSL_INCLUDE DNSWARD_MUSL_DYNAMIC)

# The C library the firmware is compiled and linked against:
#
# - glibc (the default): Debian's cross glibc, linked dynamically (or
#   -static-pie, see DNSWARD_STATIC_PIE in Board/CMakeLists.txt). For
#   Debian, Raspberry Pi OS, Ubuntu and other glibc systems.
# - musl: a fully static binary (`-static`: musl's crt files and libc.a, the
#   cross gcc's libgcc.a), for OpenWrt, whose libc is musl, and any other
#   Linux on the same CPU: it needs nothing from the board. aarch64, armv7
#   and x86_64. From Debian's multiarch musl packages, after
#   `dpkg --add-architecture arm64` (armhf for armv7) and `apt-get update`:
#   `apt-get install musl-dev:arm64` (musl-dev:armhf; on an amd64 build
#   machine x86_64's is plain `musl-dev musl-tools`). These put musl's headers
#   in /usr/include/<musl triple>, its crt files and libc.a in
#   /usr/lib/<musl triple>, and a `<musl triple>-gcc` wrapper, the cross gcc
#   with musl's specs file (-nostdinc/-nostdlib and musl's paths), which is the
#   C compiler and drives the link (with lld as the linker on aarch64, see
#   Board/CMakeLists.txt). The Swift compiler's Clang importer reads the
#   same musl headers for CLinux: the structs dnsward passes (sockaddr_*,
#   rlimit, timespec, signalfd_siginfo, ...), the constants and the symbol
#   names must be those of the libc that is linked. On armv7 they differ from
#   glibc's: musl's time_t and rlim_t are 64-bit and clock_gettime is
#   __clock_gettime64. Another musl toolchain (an OpenWrt SDK's, say) is
#   named with -DCMAKE_C_COMPILER=<its musl gcc> -DDNSWARD_MUSL_INCLUDE=<its
#   include directory>.
#   With -DDNSWARD_MUSL_DYNAMIC=ON the musl binary is linked dynamically
#   instead (PIE, interpreter /lib/ld-musl-<arch>.so.1, musl's libc.so):
#   OpenWrt's own way, for the TLS build, which then uses the board's shared
#   libmbedtls rather than carrying its own copy (Board/README.md).
set(DNSWARD_LIBC "glibc" CACHE STRING "target C library: glibc (dynamic or -static-pie) or musl (static)")
set(DNSWARD_MUSL_DYNAMIC OFF CACHE BOOL
  "DNSWARD_LIBC=musl: link dynamically against the board's musl (and mbedTLS) instead of -static")
set_property(CACHE DNSWARD_LIBC PROPERTY STRINGS glibc musl)
if(NOT DNSWARD_LIBC MATCHES "^(glibc|musl)$")
  message(FATAL_ERROR "DNSWARD_LIBC must be glibc or musl, not '${DNSWARD_LIBC}'")
endif()

if(DNSWARD_TARGET STREQUAL "aarch64")
  # 64-bit ARM boards (Cortex-A53/A55/A72 routers, Raspberry Pi 3/4/5 OS 64-bit).
  set(CMAKE_SYSTEM_NAME Linux)               # cross-compiling to Linux ...
  set(CMAKE_SYSTEM_PROCESSOR aarch64)        # ... on 64-bit ARM
  set(_dnsward_gnu aarch64-linux-gnu)        # GNU triple: tool prefix, sysroot name
  set(_dnsward_musl aarch64-linux-musl)      # Debian's musl triple: musl-dev:arm64's paths
  set(_dnsward_debian_arch arm64)
  set(DNSWARD_SWIFT_TARGET aarch64-none-none-elf) # Embedded stdlib: LP64 AAPCS64, as Linux
  set(DNSWARD_SWIFT_TARGET_FLAGS "")         # AAPCS64 is the same bare-metal and on Linux
elseif(DNSWARD_TARGET STREQUAL "armv7")
  # 32-bit ARMv7-A boards with hardware floating point (Debian/Raspberry Pi
  # OS armhf: Cortex-A7/A9/A15 routers and single-board computers).
  set(CMAKE_SYSTEM_NAME Linux)
  set(CMAKE_SYSTEM_PROCESSOR armv7l)
  set(_dnsward_gnu arm-linux-gnueabihf)
  set(_dnsward_musl arm-linux-musleabihf)
  set(_dnsward_debian_arch armhf)
  set(DNSWARD_SWIFT_TARGET armv7-none-none-eabi)
  set(DNSWARD_SWIFT_TARGET_FLAGS
    # Pass float arguments in VFP registers like gnueabihf's libc; without
    # this `ld` refuses: "uses VFP register arguments, X.o does not".
    # (The Swift code generator takes its float ABI from the Clang options.)
    -Xcc -mfloat-abi=hard
    # Debian armhf's baseline FPU: no NEON, 16 double registers, so the
    # binary also runs on Cortex-A9 SoCs without NEON (e.g. BCM4708).
    -Xcc -mfpu=vfpv3-d16)
  # With DNSWARD_LTO the code is generated by the linker, from the triple
  # armv7-none-none-eabi: tell it the hard-float ABI too (what -mfloat-abi=hard
  # told the compiler). The functions' target features (VFPv3-D16, no NEON)
  # travel in the bitcode.
  set(DNSWARD_LTO_LINK_FLAGS -Wl,-mllvm,-float-abi=hard)
elseif(DNSWARD_TARGET STREQUAL "x86_64")
  # 64-bit x86 routers and PCs (OpenWrt's x86/64 target), as a fully static
  # musl binary: Debian's own musl (`apt-get install musl-dev musl-tools` on
  # an amd64 machine, or musl-dev:amd64). A glibc binary for an x86_64
  # machine is DNSWARD_TARGET=host on an x86_64 build machine.
  set(CMAKE_SYSTEM_NAME Linux)
  set(CMAKE_SYSTEM_PROCESSOR x86_64)
  set(_dnsward_gnu x86_64-linux-gnu)
  set(_dnsward_musl x86_64-linux-musl)
  set(_dnsward_debian_arch amd64)
  # The bare-metal Embedded stdlib, like aarch64's: SysV x86-64 ABI, the same
  # as Linux's; the code it emits links into a static Linux program.
  set(DNSWARD_SWIFT_TARGET x86_64-unknown-none-elf)
  set(DNSWARD_SWIFT_TARGET_FLAGS "")
  if(NOT DNSWARD_LIBC STREQUAL "musl")
    message(FATAL_ERROR "DNSWARD_TARGET=x86_64 is the static musl build (-DDNSWARD_LIBC=musl); "
      "for a glibc x86_64 binary use -DDNSWARD_TARGET=host on an x86_64 machine")
  endif()
elseif(DNSWARD_TARGET STREQUAL "host")
  # Not a cross build: Embedded Swift for the machine CMake runs on.
  set(_dnsward_gnu "")
  if(DNSWARD_LIBC STREQUAL "musl")
    message(FATAL_ERROR "DNSWARD_LIBC=musl is for the aarch64, armv7 and x86_64 targets, not host "
      "(a static musl binary for this x86_64 machine: -DDNSWARD_TARGET=x86_64)")
  endif()
  if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    # The toolchain has no Embedded stdlib for aarch64-unknown-linux-gnu;
    # the bare-metal one is the firmware's and links the same way.
    set(DNSWARD_SWIFT_TARGET aarch64-none-none-elf)
  else()
    set(DNSWARD_SWIFT_TARGET ${CMAKE_HOST_SYSTEM_PROCESSOR}-unknown-linux-gnu)
  endif()
  set(DNSWARD_SWIFT_TARGET_FLAGS "")
endif()

if(_dnsward_gnu AND DNSWARD_LIBC STREQUAL "musl")
  # Debian's multiarch musl (musl-dev:<arch>), see DNSWARD_LIBC above.
  set(DNSWARD_MUSL_INCLUDE "/usr/include/${_dnsward_musl}" CACHE PATH "the target's musl headers")
  if(NOT EXISTS "${DNSWARD_MUSL_INCLUDE}/sys/epoll.h")
    message(FATAL_ERROR "DNSWARD_LIBC=musl: no musl headers in ${DNSWARD_MUSL_INCLUDE}. Install them with\n"
      "  dpkg --add-architecture ${_dnsward_debian_arch} && apt-get update && "
      "apt-get install musl-dev:${_dnsward_debian_arch}\n"
      "or pass -DDNSWARD_MUSL_INCLUDE=... and -DCMAKE_C_COMPILER=... for another musl toolchain.")
  endif()
  # musl-dev's wrapper: `${_dnsward_gnu}-gcc -specs .../musl-gcc.specs`,
  # unless the command line names another musl compiler.
  if(NOT DEFINED CACHE{CMAKE_C_COMPILER})
    set(CMAKE_C_COMPILER ${_dnsward_musl}-gcc)
  endif()
  set(DNSWARD_SYSROOT "")                    # the importer gets DNSWARD_MUSL_INCLUDE instead
  set(DNSWARD_TOOL_PREFIX ${_dnsward_gnu}-)  # binutils do not depend on the libc
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
elseif(_dnsward_gnu)
  # Debian's multiarch cross sysroot: /usr/<triple>/include and /usr/<triple>/lib.
  set(DNSWARD_SYSROOT "/usr/${_dnsward_gnu}" CACHE PATH "target libc headers and libraries")
  # The cross gcc: compiles CLinux's (empty) shims.c and links the program. It
  # already knows its sysroot; do not set CMAKE_SYSROOT, whose --sysroot would
  # break the absolute paths in that sysroot's libc.so linker script.
  if(NOT DEFINED CACHE{CMAKE_C_COMPILER})
    set(CMAKE_C_COMPILER ${_dnsward_gnu}-gcc)
  endif()
  # Binutils with the same prefix: strip and size the result.
  set(DNSWARD_TOOL_PREFIX ${_dnsward_gnu}-)
  # Find libraries and headers only under the target's sysroot, programs
  # (swiftc, the host config compiler's tools) only on the host.
  set(CMAKE_FIND_ROOT_PATH ${DNSWARD_SYSROOT})
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
else()
  set(DNSWARD_SYSROOT "" CACHE PATH "target libc headers and libraries (empty: the host's)")
  set(CMAKE_C_COMPILER cc)                   # the host C compiler links
  set(DNSWARD_TOOL_PREFIX "")
endif()

# Flags for every Swift module of the firmware, in this order on the command line:
set(DNSWARD_SWIFT_FLAGS
  -target ${DNSWARD_SWIFT_TARGET}            # the Embedded stdlib to compile against
  ${DNSWARD_SWIFT_TARGET_FLAGS}              # ABI details of that target (above)
  -enable-experimental-feature Embedded      # no runtime metadata, no existentials, ...
  -wmo                                       # one module at a time, whole (Embedded requires it)
  -Osize                                     # smallest code; routers have little flash
  -Xfrontend -function-sections              # one section per function, for --gc-sections
  -Xcc -fomit-frame-pointer                  # no frame pointer chain (below)
  -Xfrontend -mergeable-traps                # one trap instruction per function (below)
)
# Frame pointers: Swift keeps one in every function that calls another
# (`"frame-pointer"="non-leaf"`, from the Clang options it generates code
# with), an extra instruction or two per function and one register fewer.
# Nothing in the firmware walks the frame chain (Embedded Swift prints no
# backtraces and does not unwind); only a profiler's frame-pointer call
# graphs (`perf record -g`) lose it. 3,248 bytes (aarch64, default config).
# Traps: every failed check (overflow, bounds, unwrapping nil, a
# precondition) stops the program with a trap instruction. In optimized
# code Swift keeps each check's trap apart, behind a marker the optimizer
# may not merge, so that a crash address names the check; the firmware has
# about 1,500 of them. Mergeable, the checks of a function share one trap:
# the program still stops at the first failed check, with the same signal,
# and the address names the function. 5,632 bytes (aarch64, default config).


# Link-time optimization (on by default): each module is compiled to LLVM
# bitcode (`-lto=llvm-full`, still one `swiftc -wmo` per module) and the
# linker, LLVM's lld from the same Swift toolchain (Board/CMakeLists.txt),
# generates the code of the whole program at once. Every module carries its
# own copy of the generic code it specializes (Array, String, ...); the whole
# program keeps one copy of each and only the code `main` reaches. The
# functions keep -Osize's attributes, so the linker optimizes them for size
# too; it does not inline (see Board/CMakeLists.txt: the stack protector).
# aarch64, default config: 300,816 bytes stripped with per-module objects
# and GNU ld, 290,976 with lld alone, 259,336 with LTO. OFF: native objects
# per module, linked by the C compiler's own linker (GNU ld), as before.
set(DNSWARD_LTO ON CACHE BOOL "whole-program link-time optimization (Swift bitcode, linked by the Swift toolchain's lld)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES DNSWARD_LTO)
if(DNSWARD_LTO)
  list(APPEND DNSWARD_SWIFT_FLAGS -lto=llvm-full)
endif()
if(_dnsward_gnu AND DNSWARD_LIBC STREQUAL "musl")
  # The Clang importer reads musl's headers and no others: -nostdlibinc drops
  # every libc include directory (Clang's own stddef.h/stdarg.h stay).
  list(APPEND DNSWARD_SWIFT_FLAGS -Xcc -nostdlibinc -Xcc -isystem -Xcc ${DNSWARD_MUSL_INCLUDE})
elseif(DNSWARD_SYSROOT)
  # The Clang importer reads the target's libc headers, not the host's: with
  # a bare-metal triple and this sysroot it searches <sysroot>/include.
  list(APPEND DNSWARD_SWIFT_FLAGS -Xcc --sysroot=${DNSWARD_SYSROOT})
endif()

# C flags for CLinux's shims.c, same section layout as the Swift objects.
set(CMAKE_C_FLAGS_INIT "-Os -ffunction-sections -fdata-sections")
# Link: drop every function and data section nothing refers to.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
# ELF segment alignment: the largest page size of the kernels the binary must
# load on. A segment aligned for smaller pages than the kernel's will not
# load ("ELF load command address/offset not page-aligned"). aarch64 kernels
# come with 4 KiB pages (most routers), 16 KiB (Raspberry Pi 5's default
# kernel, kernel_2712.img) or 64 KiB; 32-bit ARM kernels only with 4 KiB.
# lld (every aarch64 link with LTO, and the musl one) places each segment at
# an address congruent to its file offset and pads nothing, so 64 KiB costs
# no byte of the file there (288,576 bytes at 4 KiB and at 64 KiB, the
# default aarch64 firmware); only the address space has holes. GNU ld (the
# DNSWARD_LTO=OFF glibc link) pads the file by up to 64 KiB between code and
# data (a 70 KB binary became 135 KB), so there the default stays 4 KiB:
# pass -DDNSWARD_MAX_PAGE_SIZE=65536 for a Raspberry Pi 5.
if(DNSWARD_TARGET STREQUAL "aarch64" AND (DNSWARD_LTO OR DNSWARD_LIBC STREQUAL "musl"))
  set(_dnsward_page_size_default 65536)
else()
  set(_dnsward_page_size_default 4096)
endif()
set(DNSWARD_MAX_PAGE_SIZE ${_dnsward_page_size_default} CACHE STRING
  "ELF segment alignment: the largest page size of the board kernels it must run on")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES DNSWARD_MAX_PAGE_SIZE)
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,-z,max-page-size=${DNSWARD_MAX_PAGE_SIZE}")
if(_dnsward_gnu AND DNSWARD_LIBC STREQUAL "musl" AND NOT DNSWARD_MUSL_DYNAMIC)
  # Fully static, for CMake's compiler checks too: the binary carries musl
  # and needs no loader or libc on the board.
  string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -static")
endif()
