// The optional seccomp filter (`seccomp on`, seccomp(2), prctl(2)).
//
// Once the loop runs, dnsward needs only the system calls listed below: epoll,
// datagram and stream sockets of the IP families, reads and writes, memory,
// the clock, getrandom, signals to and waits for its own workers, and, when a
// cache file is kept, creating and renaming that file. Everything else —
// execve, ptrace, opening files, AF_UNIX/AF_NETLINK/AF_PACKET sockets (but
// NETLINK_NETFILTER ones when asked for), mount, bpf — fails with EPERM, so a flaw in a parser cannot be turned into a shell
// or a read of the router's files. EPERM rather than killing the process: a
// call this list forgot makes one feature fail and be logged, never takes the
// LAN's resolver down.
//
// The constants are written out here, not taken from <linux/filter.h>,
// <linux/seccomp.h> and <linux/audit.h>: musl sysroots (the OpenWrt-style
// static firmware) have no kernel headers. They are the kernel's UAPI values.
// System call numbers come from <sys/syscall.h> (glibc and musl both define
// SYS_*), so one list serves x86_64, aarch64 and armv7; a call an
// architecture does not have is simply left out.
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

// Classic BPF (linux/filter.h): struct sock_filter and struct sock_fprog.
struct clinux_bpf_instruction {
  uint16_t code;
  uint8_t jump_if_true;
  uint8_t jump_if_false;
  uint32_t operand;
};
struct clinux_bpf_program {
  unsigned short count;
  struct clinux_bpf_instruction *instructions;
};

enum {
  CLINUX_BPF_LOAD_WORD_ABSOLUTE = 0x20,  // BPF_LD | BPF_W | BPF_ABS
  CLINUX_BPF_JUMP_IF_EQUAL = 0x15,       // BPF_JMP | BPF_JEQ | BPF_K
  CLINUX_BPF_RETURN = 0x06,              // BPF_RET | BPF_K
};

// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer;
// __u64 args[6]. The low 32 bits of args[0] are at offset 16 on the
// little-endian machines dnsward is built for.
enum {
  CLINUX_SECCOMP_NUMBER_OFFSET = 0,
  CLINUX_SECCOMP_ARCH_OFFSET = 4,
  CLINUX_SECCOMP_FIRST_ARGUMENT_OFFSET = 16,
};

#define CLINUX_SECCOMP_ALLOW 0x7fff0000u
#define CLINUX_SECCOMP_ERRNO(code) (0x00050000u | ((uint32_t)(code) & 0xffffu))
#define CLINUX_PR_SET_NO_NEW_PRIVS 38
#define CLINUX_PR_SET_SECCOMP 22
#define CLINUX_SECCOMP_MODE_FILTER 2

// AUDIT_ARCH_* (linux/audit.h): the ELF machine, 64-bit and little-endian flags.
#if defined(__x86_64__)
#define CLINUX_AUDIT_ARCH 0xc000003eu
#elif defined(__aarch64__)
#define CLINUX_AUDIT_ARCH 0xc00000b7u
#elif defined(__arm__)
#define CLINUX_AUDIT_ARCH 0x40000028u
#endif

// 2 instructions per allowed call plus a handful: room for every call below.
#define CLINUX_FILTER_CAPACITY 256

struct clinux_filter_builder {
  struct clinux_bpf_instruction instructions[CLINUX_FILTER_CAPACITY];
  unsigned short count;
  int overflowed;
};

static inline void clinux_filter_emit(
  struct clinux_filter_builder *builder, uint16_t code, uint8_t if_true, uint8_t if_false,
  uint32_t operand
) {
  if (builder->count >= CLINUX_FILTER_CAPACITY) {
    builder->overflowed = 1;
    return;
  }
  struct clinux_bpf_instruction *next = &builder->instructions[builder->count++];
  next->code = code;
  next->jump_if_true = if_true;
  next->jump_if_false = if_false;
  next->operand = operand;
}

// "If the call is `number`, allow it": compare, and skip the return if not.
static inline void clinux_filter_allow(struct clinux_filter_builder *builder, long number) {
  clinux_filter_emit(builder, CLINUX_BPF_JUMP_IF_EQUAL, 0, 1, (uint32_t)number);
  clinux_filter_emit(builder, CLINUX_BPF_RETURN, 0, 0, CLINUX_SECCOMP_ALLOW);
}

// AF_NETLINK (linux/socket.h) and NETLINK_NETFILTER (linux/netlink.h), and
// where socket(2)'s third argument, the protocol, sits in seccomp_data.
enum {
  CLINUX_FILTER_AF_NETLINK = 16,
  CLINUX_FILTER_NETLINK_NETFILTER = 12,
  CLINUX_SECCOMP_THIRD_ARGUMENT_OFFSET = 32,
};

// Installs the filter for this process (and children forked later). With
// `allow_files` 1 (hosts and lease files are read again when they change)
// files may be opened and stat-ed; with 2 (a cache file is kept) also
// synced, renamed and removed. With `allow_netfilter` socket(2) may also
// open AF_NETLINK sockets of protocol NETLINK_NETFILTER (nftables), and no
// other netlink protocol. The nftset writer opens its socket before the
// filter is installed, as the rtnetlink monitor does, so it needs this only
// to open one later. Returns 0, or the errno of the prctl that failed (EINVAL: a
// kernel without CONFIG_SECCOMP_FILTER, or qemu-user, which refuses filters).
static inline int clinux_install_syscall_filter(int allow_files, int allow_netfilter) {
#ifndef CLINUX_AUDIT_ARCH
  (void)allow_files;
  (void)allow_netfilter;
  return ENOSYS;
#else
  struct clinux_filter_builder builder;
  builder.count = 0;
  builder.overflowed = 0;
  uint32_t deny = CLINUX_SECCOMP_ERRNO(EPERM);
  // A call made through another architecture's entry (int 0x80 on x86_64)
  // has other numbers: refuse every one.
  clinux_filter_emit(&builder, CLINUX_BPF_LOAD_WORD_ABSOLUTE, 0, 0, CLINUX_SECCOMP_ARCH_OFFSET);
  clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 1, 0, CLINUX_AUDIT_ARCH);
  clinux_filter_emit(&builder, CLINUX_BPF_RETURN, 0, 0, deny);
  // socket(2) only for AF_INET and AF_INET6 (upstream TCP connections and
  // the ring's UDP sockets are opened while the loop runs), and with
  // `allow_netfilter` AF_NETLINK of protocol NETLINK_NETFILTER; anything
  // else is refused here, before the number is compared with the list below.
  // Jump offsets count the instructions skipped: the block ends with
  // "deny; allow".
  clinux_filter_emit(&builder, CLINUX_BPF_LOAD_WORD_ABSOLUTE, 0, 0, CLINUX_SECCOMP_NUMBER_OFFSET);
  if (allow_netfilter) {
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 0, 8, (uint32_t)SYS_socket);
    clinux_filter_emit(
      &builder, CLINUX_BPF_LOAD_WORD_ABSOLUTE, 0, 0, CLINUX_SECCOMP_FIRST_ARGUMENT_OFFSET);
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 5, 0, AF_INET);
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 4, 0, AF_INET6);
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 0, 2, CLINUX_FILTER_AF_NETLINK);
    clinux_filter_emit(
      &builder, CLINUX_BPF_LOAD_WORD_ABSOLUTE, 0, 0, CLINUX_SECCOMP_THIRD_ARGUMENT_OFFSET);
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 1, 0, CLINUX_FILTER_NETLINK_NETFILTER);
  } else {
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 0, 5, (uint32_t)SYS_socket);
    clinux_filter_emit(
      &builder, CLINUX_BPF_LOAD_WORD_ABSOLUTE, 0, 0, CLINUX_SECCOMP_FIRST_ARGUMENT_OFFSET);
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 2, 0, AF_INET);
    clinux_filter_emit(&builder, CLINUX_BPF_JUMP_IF_EQUAL, 1, 0, AF_INET6);
  }
  clinux_filter_emit(&builder, CLINUX_BPF_RETURN, 0, 0, deny);
  clinux_filter_emit(&builder, CLINUX_BPF_RETURN, 0, 0, CLINUX_SECCOMP_ALLOW);
  // (For every other call the accumulator still holds its number.)

  // The loop's calls, the busiest first: the filter runs on every call.
#ifdef SYS_epoll_wait
  clinux_filter_allow(&builder, SYS_epoll_wait);
#endif
#ifdef SYS_epoll_pwait
  clinux_filter_allow(&builder, SYS_epoll_pwait);
#endif
#ifdef SYS_recvmmsg
  clinux_filter_allow(&builder, SYS_recvmmsg);
#endif
#ifdef SYS_recvmmsg_time64
  clinux_filter_allow(&builder, SYS_recvmmsg_time64);
#endif
  clinux_filter_allow(&builder, SYS_sendmmsg);
  clinux_filter_allow(&builder, SYS_connect);
  clinux_filter_allow(&builder, SYS_sendto);
  clinux_filter_allow(&builder, SYS_recvmsg);
  clinux_filter_allow(&builder, SYS_recvfrom);
  clinux_filter_allow(&builder, SYS_read);
  clinux_filter_allow(&builder, SYS_write);
  clinux_filter_allow(&builder, SYS_epoll_ctl);
  clinux_filter_allow(&builder, SYS_close);
  clinux_filter_allow(&builder, SYS_accept4);
  clinux_filter_allow(&builder, SYS_setsockopt);
  clinux_filter_allow(&builder, SYS_getsockopt);
  clinux_filter_allow(&builder, SYS_getsockname);
  clinux_filter_allow(&builder, SYS_getpeername);
  clinux_filter_allow(&builder, SYS_shutdown);
  clinux_filter_allow(&builder, SYS_sendmsg);
#ifdef SYS_accept
  clinux_filter_allow(&builder, SYS_accept);
#endif
#ifdef SYS_send
  clinux_filter_allow(&builder, SYS_send);
#endif
#ifdef SYS_recv
  clinux_filter_allow(&builder, SYS_recv);
#endif
#ifdef SYS_epoll_pwait2
  clinux_filter_allow(&builder, SYS_epoll_pwait2);
#endif
  clinux_filter_allow(&builder, SYS_getrandom);
  clinux_filter_allow(&builder, SYS_fcntl);
#ifdef SYS_fcntl64
  clinux_filter_allow(&builder, SYS_fcntl64);
#endif
  // The clock, when the vDSO falls back to the kernel.
  // musl on 32-bit ARM (64-bit time_t) names the old 32-bit-time calls
  // clock_gettime32 and gettimeofday_time32; its own functions ask
  // clock_gettime64.
#ifdef SYS_clock_gettime
  clinux_filter_allow(&builder, SYS_clock_gettime);
#endif
#ifdef SYS_clock_gettime32
  clinux_filter_allow(&builder, SYS_clock_gettime32);
#endif
#ifdef SYS_clock_gettime64
  clinux_filter_allow(&builder, SYS_clock_gettime64);
#endif
#ifdef SYS_gettimeofday
  clinux_filter_allow(&builder, SYS_gettimeofday);
#endif
#ifdef SYS_gettimeofday_time32
  clinux_filter_allow(&builder, SYS_gettimeofday_time32);
#endif
#ifdef SYS_time
  clinux_filter_allow(&builder, SYS_time);
#endif
  // Memory (malloc at a cache-file save, the Swift runtime).
  clinux_filter_allow(&builder, SYS_brk);
#ifdef SYS_mmap
  clinux_filter_allow(&builder, SYS_mmap);
#endif
#ifdef SYS_mmap2
  clinux_filter_allow(&builder, SYS_mmap2);
#endif
  clinux_filter_allow(&builder, SYS_munmap);
  clinux_filter_allow(&builder, SYS_mremap);
  clinux_filter_allow(&builder, SYS_madvise);
  clinux_filter_allow(&builder, SYS_mprotect);
  clinux_filter_allow(&builder, SYS_futex);
#ifdef SYS_futex_time64
  clinux_filter_allow(&builder, SYS_futex_time64);
#endif
  // Signals, workers and exit: worker 0 stops and reaps the others; a trap
  // (abort) signals the process itself; the log line of a fatal error uses
  // writev in some libcs.
  clinux_filter_allow(&builder, SYS_rt_sigreturn);
#ifdef SYS_sigreturn
  clinux_filter_allow(&builder, SYS_sigreturn);
#endif
  clinux_filter_allow(&builder, SYS_rt_sigprocmask);
  clinux_filter_allow(&builder, SYS_kill);
  clinux_filter_allow(&builder, SYS_tgkill);
  clinux_filter_allow(&builder, SYS_getpid);
  clinux_filter_allow(&builder, SYS_gettid);
  clinux_filter_allow(&builder, SYS_getuid);
  clinux_filter_allow(&builder, SYS_geteuid);
  clinux_filter_allow(&builder, SYS_wait4);
  clinux_filter_allow(&builder, SYS_waitid);
  clinux_filter_allow(&builder, SYS_writev);
  clinux_filter_allow(&builder, SYS_restart_syscall);
  clinux_filter_allow(&builder, SYS_exit);
  clinux_filter_allow(&builder, SYS_exit_group);
  if (allow_files) {
    // Hosts and lease files (and the cache file): opened, stat-ed every
    // second, read again when they changed.
    clinux_filter_allow(&builder, SYS_openat);
#ifdef SYS_open
    clinux_filter_allow(&builder, SYS_open);
#endif
#ifdef SYS_fstat
    clinux_filter_allow(&builder, SYS_fstat);
#endif
#ifdef SYS_fstat64
    clinux_filter_allow(&builder, SYS_fstat64);
#endif
#ifdef SYS_newfstatat
    clinux_filter_allow(&builder, SYS_newfstatat);
#endif
#ifdef SYS_fstatat64
    clinux_filter_allow(&builder, SYS_fstatat64);
#endif
#ifdef SYS_statx
    clinux_filter_allow(&builder, SYS_statx);
#endif
#ifdef SYS_stat
    clinux_filter_allow(&builder, SYS_stat);
#endif
#ifdef SYS_stat64
    clinux_filter_allow(&builder, SYS_stat64);
#endif
    clinux_filter_allow(&builder, SYS_lseek);
#ifdef SYS__llseek
    clinux_filter_allow(&builder, SYS__llseek);
#endif
  }
  if (allow_files > 1) {
    // The cache file: written to a new file, synced, renamed over the old
    // one, its directory synced; removed when a save fails.
    clinux_filter_allow(&builder, SYS_fsync);
    clinux_filter_allow(&builder, SYS_fdatasync);
#ifdef SYS_rename
    clinux_filter_allow(&builder, SYS_rename);
#endif
#ifdef SYS_renameat
    clinux_filter_allow(&builder, SYS_renameat);
#endif
#ifdef SYS_renameat2
    clinux_filter_allow(&builder, SYS_renameat2);
#endif
#ifdef SYS_unlink
    clinux_filter_allow(&builder, SYS_unlink);
#endif
    clinux_filter_allow(&builder, SYS_unlinkat);
  }
  clinux_filter_emit(&builder, CLINUX_BPF_RETURN, 0, 0, deny);
  if (builder.overflowed) return E2BIG;

  struct clinux_bpf_program program = {builder.count, builder.instructions};
  // Required to install a filter without CAP_SYS_ADMIN (after the switch to
  // `user`); dnsward never executes anything, so it costs nothing.
  if (prctl(CLINUX_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (prctl(CLINUX_PR_SET_SECCOMP, CLINUX_SECCOMP_MODE_FILTER, &program, 0, 0) != 0) return errno;
  return 0;
#endif
}
