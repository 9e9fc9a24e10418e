// CLinux: the Linux system interface dnsward uses, and tiny static-inline
// shims for what Swift cannot import directly (errno, macros, packed or
// union-laden structs). Everything here is plain C99 over glibc or musl.
#ifndef DNSWARD_CLINUX_H
#define DNSWARD_CLINUX_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "SyscallFilter.h"

// accept4(2) is declared by libc headers only under _GNU_SOURCE, which would
// also turn sockaddr parameters into transparent unions Swift cannot pass.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

// recvmmsg(2) and sendmmsg(2) have the same problem; struct mmsghdr too.
// This one has the kernel's layout: a msghdr, then the byte count.
struct clinux_mmsghdr {
  struct msghdr msg_hdr;
  unsigned int msg_len;
};
extern int recvmmsg(int fd, struct clinux_mmsghdr *messages, unsigned int count, int flags,
                    struct timespec *timeout);
extern int sendmmsg(int fd, struct clinux_mmsghdr *messages, unsigned int count, int flags);

static inline int clinux_errno(void) { return errno; }
static inline int clinux_eagain(void) { return EAGAIN; }
static inline int clinux_ewouldblock(void) { return EWOULDBLOCK; }
static inline int clinux_eintr(void) { return EINTR; }
static inline int clinux_einprogress(void) { return EINPROGRESS; }

// Socket types with the flags every dnsward socket gets.
static inline int clinux_sock_dgram(void) { return SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC; }
static inline int clinux_sock_stream(void) { return SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC; }
static inline int clinux_accept_flags(void) { return SOCK_NONBLOCK | SOCK_CLOEXEC; }
static inline int clinux_msg_trunc(void) { return MSG_TRUNC; }
static inline int clinux_msg_nosignal(void) { return MSG_NOSIGNAL; }

// epoll flags are enum members in glibc and macros in musl.
static inline uint32_t clinux_epollin(void) { return EPOLLIN; }
static inline uint32_t clinux_epollout(void) { return EPOLLOUT; }
static inline uint32_t clinux_epollhup(void) { return EPOLLHUP | EPOLLERR | EPOLLRDHUP; }

// epoll_event is packed on x86_64 and not elsewhere; these shims keep its
// layout out of Swift. `data` is the caller's 64-bit token.
static inline int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
  struct epoll_event event;
  memset(&event, 0, sizeof event);
  event.events = events;
  event.data.u64 = data;
  return epoll_ctl(epfd, op, fd, &event);
}

// Waits like epoll_wait and unpacks at most `capacity` events (capacity <= 64).
static inline int clinux_epoll_wait(int epfd, uint32_t *events, uint64_t *tokens, int capacity,
                                    int timeout_ms) {
  struct epoll_event ready[64];
  if (capacity > 64) capacity = 64;
  int count = epoll_wait(epfd, ready, capacity, timeout_ms);
  for (int i = 0; i < count; i++) {
    events[i] = ready[i].events;
    tokens[i] = ready[i].data.u64;
  }
  return count;
}

// Socket addresses as (16 address bytes, port, family): IPv4 travels as the
// last four bytes of an IPv4-mapped IPv6 address.
static inline socklen_t clinux_make_sockaddr(struct sockaddr_storage *storage,
                                             const uint8_t *address16, uint16_t port, int ipv6) {
  memset(storage, 0, sizeof *storage);
  if (ipv6) {
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)storage;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    memcpy(&in6->sin6_addr, address16, 16);
    return sizeof *in6;
  }
  struct sockaddr_in *in4 = (struct sockaddr_in *)storage;
  in4->sin_family = AF_INET;
  in4->sin_port = htons(port);
  memcpy(&in4->sin_addr, address16 + 12, 4);
  return sizeof *in4;
}

// Reads a sockaddr back; returns 4 or 6 for the family, 0 if neither.
static inline int clinux_read_sockaddr(const struct sockaddr_storage *storage, uint8_t *address16,
                                       uint16_t *port) {
  if (storage->ss_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)storage;
    memcpy(address16, &in6->sin6_addr, 16);
    *port = ntohs(in6->sin6_port);
    return 6;
  }
  if (storage->ss_family == AF_INET) {
    const struct sockaddr_in *in4 = (const struct sockaddr_in *)storage;
    memset(address16, 0, 10);
    address16[10] = 0xFF;
    address16[11] = 0xFF;
    memcpy(address16 + 12, &in4->sin_addr, 4);
    *port = ntohs(in4->sin_port);
    return 4;
  }
  return 0;
}

// Raises the soft limit on open descriptors to `wanted` (at most the hard
// limit) and returns the soft limit now in force, or -1.
static inline long clinux_raise_open_files(unsigned long wanted) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  if (limit.rlim_cur < wanted) {
    rlim_t target = wanted;
    if (limit.rlim_max != RLIM_INFINITY && target > limit.rlim_max) target = limit.rlim_max;
    if (target > limit.rlim_cur) {
      limit.rlim_cur = target;
      if (setrlimit(RLIMIT_NOFILE, &limit) != 0 && getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    }
  }
  return limit.rlim_cur == RLIM_INFINITY ? (long)wanted : (long)limit.rlim_cur;
}

// open(2) is variadic in C, which Swift cannot call.
static inline int clinux_open_read(const char *path) { return open(path, O_RDONLY | O_CLOEXEC); }

// A new file to be written whole: never through a symlink, never an existing
// file (the caller removes a stale one first), so that nobody else can plant
// it; 0600, since the cache file tells which names the LAN asked for.
static inline int clinux_open_new(const char *path) {
  return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

// 1 if `fd` is a regular file owned by this process's effective user or by
// root and writable by nobody else; 0 if not; -1 (errno set) if fstat fails.
static inline int clinux_is_private_file(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0) return -1;
  if (!S_ISREG(info.st_mode)) return 0;
  if (info.st_uid != geteuid() && info.st_uid != 0) return 0;
  return (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// stat(2) of `path`: what tells a changed file (device, inode, size and
// modification time in nanoseconds). Returns 0, or -1 with errno set.
static inline int clinux_file_stamp(const char *path, uint64_t *device, uint64_t *inode,
                                    uint64_t *size, uint64_t *modified) {
  struct stat info;
  if (stat(path, &info) != 0) return -1;
  *device = (uint64_t)info.st_dev;
  *inode = (uint64_t)info.st_ino;
  *size = (uint64_t)info.st_size;
  *modified = (uint64_t)info.st_mtim.tv_sec * 1000000000u + (uint64_t)info.st_mtim.tv_nsec;
  return 0;
}

// A directory, to fsync a rename in it.
static inline int clinux_open_directory(const char *path) {
  return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static inline int clinux_enoent(void) { return ENOENT; }

// rename(2) is declared in stdio.h, which the rest of CLinux does without.
extern int rename(const char *from, const char *to);

// connect(2) to AF_UNSPEC: dissolves a UDP socket's association. A socket
// whose port the kernel chose (never bound explicitly) also gives the port
// back, so the next connect(2) draws a new random one.
static inline int clinux_disconnect(int fd) {
  struct sockaddr address;
  memset(&address, 0, sizeof address);
  address.sa_family = AF_UNSPEC;
  return connect(fd, &address, sizeof address);
}

static inline int clinux_set_int_option(int fd, int level, int name, int value) {
  return setsockopt(fd, level, name, &value, sizeof value);
}

// SO_ERROR after a non-blocking connect: 0 when connected, else the errno.
static inline int clinux_socket_error(int fd) {
  int value = 0;
  socklen_t length = sizeof value;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) != 0) return errno;
  return value;
}

// Blocks SIGINT, SIGTERM, SIGHUP and SIGUSR1 and returns a non-blocking
// signalfd that reports them, so signals arrive as events in the loop.
static inline int clinux_signalfd(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);
  if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
  signal(SIGPIPE, SIG_IGN);
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

// Reads one signal number from a signalfd; 0 when none is pending.
static inline int clinux_read_signal(int fd) {
  struct signalfd_siginfo info;
  ssize_t count = read(fd, &info, sizeof info);
  if (count != (ssize_t)sizeof info) return 0;
  return (int)info.ssi_signo;
}

static inline uint64_t clinux_monotonic_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

/* rtnetlink (rtnetlink(7)), declared here rather than from <linux/netlink.h>
   and <linux/rtnetlink.h>: musl sysroots (the OpenWrt-style static firmware)
   ship no kernel headers. These are the kernel's stable ABI values. */
struct clinux_sockaddr_nl {
  sa_family_t nl_family;
  unsigned short nl_pad;
  uint32_t nl_pid;
  uint32_t nl_groups;
};
struct clinux_nlmsghdr {
  uint32_t nlmsg_len;
  uint16_t nlmsg_type;
  uint16_t nlmsg_flags;
  uint32_t nlmsg_seq;
  uint32_t nlmsg_pid;
};
enum {
  CLINUX_NETLINK_ROUTE = 0,
  CLINUX_RTMGRP_LINK = 0x1,
  CLINUX_RTMGRP_IPV4_IFADDR = 0x10,
  CLINUX_RTMGRP_IPV4_ROUTE = 0x40,
  CLINUX_RTMGRP_IPV6_IFADDR = 0x100,
  CLINUX_RTMGRP_IPV6_ROUTE = 0x400,
  CLINUX_RTM_NEWLINK = 16,
  CLINUX_RTM_DELLINK = 17,
  CLINUX_RTM_NEWADDR = 20,
  CLINUX_RTM_DELADDR = 21,
  CLINUX_RTM_NEWROUTE = 24,
  CLINUX_RTM_DELROUTE = 25,
};

/* A non-blocking rtnetlink socket subscribed to link, IPv4/IPv6 address
   and route changes; -1 with errno on failure. */
static inline int clinux_route_monitor(void) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, CLINUX_NETLINK_ROUTE);
  if (fd < 0) return -1;
  struct clinux_sockaddr_nl local;
  memset(&local, 0, sizeof local);
  local.nl_family = AF_NETLINK;
  local.nl_groups = CLINUX_RTMGRP_LINK | CLINUX_RTMGRP_IPV4_IFADDR | CLINUX_RTMGRP_IPV6_IFADDR
                    | CLINUX_RTMGRP_IPV4_ROUTE | CLINUX_RTMGRP_IPV6_ROUTE;
  if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

/* Counts the rtnetlink messages in one datagram that say the network
   changed: an address or a route added or removed, a link that went up or
   down (RTM_NEWLINK carries both). Messages are 4-byte aligned
   (NLMSG_ALIGN); a length that does not fit ends the walk. */
static inline int clinux_route_changes(const void *bytes, size_t length) {
  int changes = 0;
  const unsigned char *cursor = (const unsigned char *)bytes;
  size_t left = length;
  while (left >= sizeof(struct clinux_nlmsghdr)) {
    struct clinux_nlmsghdr header;
    memcpy(&header, cursor, sizeof header);
    if (header.nlmsg_len < sizeof header || header.nlmsg_len > left) break;
    switch (header.nlmsg_type) {
    case CLINUX_RTM_NEWADDR: case CLINUX_RTM_DELADDR: case CLINUX_RTM_NEWROUTE:
    case CLINUX_RTM_DELROUTE: case CLINUX_RTM_NEWLINK: case CLINUX_RTM_DELLINK:
      changes += 1;
      break;
    default:
      break;
    }
    size_t step = ((size_t)header.nlmsg_len + 3u) & ~(size_t)3u;
    if (step >= left) break;
    cursor += step;
    left -= step;
  }
  return changes;
}

/* nftables over nfnetlink (linux/netlink.h): NETLINK_NETFILTER is the
   protocol; SOL_NETLINK/NETLINK_CAP_ACK make the kernel's error replies
   carry only the header of the refused message, not a copy of the whole
   batch. */
enum {
  CLINUX_NETLINK_NETFILTER = 12,
  CLINUX_SOL_NETLINK = 270,
  CLINUX_NETLINK_CAP_ACK = 10,
};

/* A non-blocking NETLINK_NETFILTER socket, bound so the kernel picks its
   port id; -1 with errno on failure. Needs no privilege to open: the
   kernel checks CAP_NET_ADMIN on every message sent. */
static inline int clinux_netfilter_socket(void) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, CLINUX_NETLINK_NETFILTER);
  if (fd < 0) return -1;
  struct clinux_sockaddr_nl local;
  memset(&local, 0, sizeof local);
  local.nl_family = AF_NETLINK;
  if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  /* Kernels before 4.3 lack the option: replies are then longer, not wrong. */
  int on = 1;
  (void)setsockopt(fd, CLINUX_SOL_NETLINK, CLINUX_NETLINK_CAP_ACK, &on, sizeof on);
  return fd;
}

/* CLOCK_REALTIME in whole seconds since the epoch (HTTPDNS request
   signatures carry an expiry time). */
static inline uint64_t clinux_realtime_s(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (uint64_t)now.tv_sec;
}

// Switches to `user`'s uid, gid and groups. Returns 0, or -1 if the user is
// unknown, or the errno of the call that failed.
static inline int clinux_drop_privileges(const char *user) {
  struct passwd *entry = getpwnam(user);
  if (entry == NULL) return -1;
  if (setgroups(0, NULL) != 0 && errno != EPERM) return errno;
  if (setgid(entry->pw_gid) != 0) return errno;
  if (setuid(entry->pw_uid) != 0) return errno;
  return 0;
}

// Linux capabilities (linux/capability.h, linux/prctl.h): CAP_NET_ADMIN,
// PR_SET_KEEPCAPS, and capset(2)'s version-3 header with its two data
// words (capabilities 0-31 and 32-63).
enum {
  CLINUX_CAP_NET_ADMIN = 12,
  CLINUX_PR_SET_KEEPCAPS = 8,
};
#define CLINUX_CAPABILITY_VERSION_3 0x20080522u
struct clinux_capability_header {
  uint32_t version;
  int pid;
};
struct clinux_capability_data {
  uint32_t effective;
  uint32_t permitted;
  uint32_t inheritable;
};

// As clinux_drop_privileges, but CAP_NET_ADMIN, and no other capability,
// stays permitted and effective after the switch: nftables refuses every
// change from a process without it, checked at each message (`nftset`).
// Returns 0, -1 for an unknown user, or the errno of the call that failed.
// syscall(2), for capset, which neither libc wraps; declared here because
// libc headers declare it only under feature macros.
extern long syscall(long number, ...);
static inline int clinux_drop_privileges_keeping_net_admin(const char *user) {
  if (prctl(CLINUX_PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return errno;
  int result = clinux_drop_privileges(user);
  (void)prctl(CLINUX_PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (result != 0) return result;
  struct clinux_capability_header header = {CLINUX_CAPABILITY_VERSION_3, 0};
  struct clinux_capability_data data[2];
  memset(data, 0, sizeof data);
  data[0].effective = 1u << CLINUX_CAP_NET_ADMIN;
  data[0].permitted = 1u << CLINUX_CAP_NET_ADMIN;
  if (syscall(SYS_capset, &header, data) != 0) return errno;
  return 0;
}

// One datagram of a batch: its buffer, the bytes in it, and its peer. The
// caller owns the buffers; the arrays below live on the stack of one call.
struct clinux_datagram {
  uint8_t *bytes;
  uint32_t capacity;
  uint32_t length;
  int truncated;
  socklen_t peer_length;
  struct sockaddr_storage peer;
};

#define CLINUX_BATCH_MAX 64

// Points `count` (at most CLINUX_BATCH_MAX) message headers at the
// datagrams' buffers and peers: the whole buffer and room for any peer to
// receive into, or the queued bytes and their peer to send.
static inline void clinux_prepare_datagrams(struct clinux_mmsghdr *headers, struct iovec *vectors,
                                            struct clinux_datagram *datagrams, int count,
                                            int receiving) {
  memset(headers, 0, sizeof(struct clinux_mmsghdr) * (size_t)count);
  for (int i = 0; i < count; i++) {
    vectors[i].iov_base = datagrams[i].bytes;
    vectors[i].iov_len = receiving ? datagrams[i].capacity : datagrams[i].length;
    headers[i].msg_hdr.msg_iov = &vectors[i];
    headers[i].msg_hdr.msg_iovlen = 1;
    headers[i].msg_hdr.msg_name = &datagrams[i].peer;
    headers[i].msg_hdr.msg_namelen =
        receiving ? (socklen_t)sizeof datagrams[i].peer : datagrams[i].peer_length;
  }
}

// recvmmsg(2) into up to `count` (at most CLINUX_BATCH_MAX) datagrams of a
// non-blocking socket: returns how many arrived (0 when none was waiting,
// -1 with errno on an error). A datagram larger than its buffer is marked
// truncated.
static inline int clinux_receive_datagrams(int fd, struct clinux_datagram *datagrams, int count) {
  struct clinux_mmsghdr headers[CLINUX_BATCH_MAX];
  struct iovec vectors[CLINUX_BATCH_MAX];
  if (count > CLINUX_BATCH_MAX) count = CLINUX_BATCH_MAX;
  clinux_prepare_datagrams(headers, vectors, datagrams, count, 1);
  int received;
  do {
    received = recvmmsg(fd, headers, (unsigned int)count, 0, NULL);
  } while (received < 0 && errno == EINTR);
  if (received < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
  for (int i = 0; i < received; i++) {
    datagrams[i].length = headers[i].msg_len;
    datagrams[i].truncated = (headers[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
    datagrams[i].peer_length = headers[i].msg_hdr.msg_namelen;
  }
  return received;
}

// sendmmsg(2) of `count` (at most CLINUX_BATCH_MAX) datagrams, each to its
// peer. Returns how many the kernel took from the front (at least 1), or -1
// with errno when the first one failed.
static inline int clinux_send_datagrams(int fd, struct clinux_datagram *datagrams, int count) {
  struct clinux_mmsghdr headers[CLINUX_BATCH_MAX];
  struct iovec vectors[CLINUX_BATCH_MAX];
  if (count > CLINUX_BATCH_MAX) count = CLINUX_BATCH_MAX;
  clinux_prepare_datagrams(headers, vectors, datagrams, count, 0);
  int sent;
  do {
    sent = sendmmsg(fd, headers, (unsigned int)count, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent;
}

// The IP TTL / IPv6 hop limit of received datagrams (RFC 791 §3.1, RFC 8200
// §3). Linux values, for C libraries that hide them behind feature macros.
#ifndef IP_RECVTTL
#define IP_RECVTTL 12
#endif
#ifndef IPV6_RECVHOPLIMIT
#define IPV6_RECVHOPLIMIT 51
#endif
#ifndef IPV6_HOPLIMIT
#define IPV6_HOPLIMIT 52
#endif
#ifndef IPV6_UNICAST_HOPS
#define IPV6_UNICAST_HOPS 16
#endif
static inline int clinux_ip_recvttl(void) { return IP_RECVTTL; }
static inline int clinux_ipv6_recvhoplimit(void) { return IPV6_RECVHOPLIMIT; }
static inline int clinux_ip_ttl(void) { return IP_TTL; }
static inline int clinux_ipv6_unicast_hops(void) { return IPV6_UNICAST_HOPS; }

// Asks the kernel to attach each datagram's IP TTL (IPv4) or hop limit
// (IPv6) to what recvmsg(2) returns on `fd`.
static inline int clinux_enable_receive_ttl(int fd, int ipv6) {
  return ipv6 ? clinux_set_int_option(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)
              : clinux_set_int_option(fd, IPPROTO_IP, IP_RECVTTL, 1);
}

// recvmsg(2) of one datagram with its TTL: like recvfrom with MSG_TRUNC
// (returns the datagram's full length, or -1 with errno), and `*ttl` set
// from the IP_TTL or IPV6_HOPLIMIT control message, 0 when there is none.
// The control buffer lives on this call's stack: no allocation; the union
// gives it cmsghdr alignment, and room for two messages is plenty (only the
// ones asked for with clinux_enable_receive_ttl arrive).
static inline long clinux_receive_with_ttl(int fd, void *buffer, size_t capacity,
                                           struct sockaddr_storage *peer, socklen_t *peer_length,
                                           int *ttl) {
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int)) * 2];
  } control;
  struct iovec vector = {buffer, capacity};
  struct msghdr header;
  memset(&header, 0, sizeof header);
  header.msg_name = peer;
  header.msg_namelen = *peer_length;
  header.msg_iov = &vector;
  header.msg_iovlen = 1;
  header.msg_control = control.bytes;
  header.msg_controllen = sizeof control.bytes;
  *ttl = 0;
  ssize_t received = recvmsg(fd, &header, MSG_TRUNC);
  if (received < 0) return -1;
  *peer_length = header.msg_namelen;
  for (struct cmsghdr *message = CMSG_FIRSTHDR(&header); message != NULL;
       message = CMSG_NXTHDR(&header, message)) {
    int value;
    if ((message->cmsg_level == IPPROTO_IP && message->cmsg_type == IP_TTL) ||
        (message->cmsg_level == IPPROTO_IPV6 && message->cmsg_type == IPV6_HOPLIMIT)) {
      if (message->cmsg_len < CMSG_LEN(sizeof value)) continue;
      memcpy(&value, CMSG_DATA(message), sizeof value);
      *ttl = value;
    }
  }
  return (long)received;
}

// fork(2) for a worker process. The child gets SIGTERM when the parent
// exits (PR_SET_PDEATHSIG), and stops at once if the parent is already gone.
static inline int clinux_fork_worker(void) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(0);
  }
  return (int)pid;
}

static inline int clinux_terminate(int pid) { return kill((pid_t)pid, SIGTERM); }
static inline int clinux_hang_up(int pid) { return kill((pid_t)pid, SIGHUP); }

// Whether standard error is systemd's journal: systemd sets JOURNAL_STREAM
// to "DEVICE:INODE" of the stream it connected, and a process whose stderr
// is that same file may prefix lines with "<N>" (a syslog priority) for
// journald to read (sd-daemon(3), systemd.exec(5)). A child whose stderr was
// redirected elsewhere inherits the variable but not the stream: no match.
static inline int clinux_stderr_is_journal(void) {
  const char *value = getenv("JOURNAL_STREAM");
  if (value == NULL) return 0;
  char *end = NULL;
  unsigned long long device = strtoull(value, &end, 10);
  if (end == value || *end != ':') return 0;
  const char *inodeText = end + 1;
  unsigned long long inode = strtoull(inodeText, &end, 10);
  if (end == inodeText || *end != '\0') return 0;
  struct stat status;
  if (fstat(2, &status) != 0) return 0;
  return (unsigned long long)status.st_dev == device && (unsigned long long)status.st_ino == inode;
}

// Waits for child `pid`; returns its exit status, 128 + the signal that
// ended it, or -1.
static inline int clinux_wait_child(int pid) {
  int status = 0;
  while (waitpid((pid_t)pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

#endif
