import CLinux

/// The process's command line and exit, the same way in the host build and
/// the firmware (Embedded Swift has no `CommandLine`).
public enum ProcessControl {
  /// The arguments after the program name, as bytes, from
  /// /proc/self/cmdline (NUL-separated; qemu-user presents the guest's).
  public static func arguments() -> [[UInt8]] {
    // A `StaticString`'s bytes: a `String` literal's `utf8` would bring
    // `String` code into the firmware.
    let path: StaticString = "/proc/self/cmdline"
    guard let text = Files.read(path: path.withUTF8Buffer { Array($0) }) else { return [] }
    var result: [[UInt8]] = []
    var current: [UInt8] = []
    for byte in text {
      if byte == 0 {
        result.append(current)
        current = []
      } else {
        current.append(byte)
      }
    }
    if !current.isEmpty { result.append(current) }
    return Array(result.dropFirst())
  }

  /// Writes bytes to standard output as they are (`print` without
  /// `String`, whose UTF-8 and UTF-16 machinery is kilobytes of firmware).
  public static func printOutput(_ bytes: [UInt8]) { writeAll(bytes, to: 1) }

  /// Writes bytes to standard error as they are: an error that stops the
  /// program (a bad config line, a bad argument). When standard error is
  /// systemd's journal they go with the error priority, `<3>`, as the log's
  /// error lines do (`LogDestination`).
  public static func printError(_ bytes: [UInt8]) {
    if case .journal = LogDestination.detected {
      writeAll([UInt8(ascii: "<"), UInt8(ascii: "3"), UInt8(ascii: ">")] + bytes, to: 2)
    } else {
      writeAll(bytes, to: 2)
    }
  }

  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
  }

  /// Every byte, across short writes (a pipe takes what fits); stops at an
  /// error (a closed pipe), as `print` would.
  private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) {
    var offset = 0
    while offset < buffer.count {
      let written = try? systemCall {
        CLinux.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      }
      guard let written, written > 0 else { return }
      offset += written
    }
  }

  public static func exit(_ status: Int32) -> Never {
    CLinux.exit(status)
  }

  /// fork(2) for a worker (the child gets SIGTERM when this process exits):
  /// 0 in the child, the child's pid in the parent, -1 on failure.
  public static func forkWorker() -> Int32 { clinux_fork_worker() }

  /// The errno of the last failed call.
  public static var lastError: Int32 { clinux_errno() }

  public static func terminate(_ pid: Int32) { _ = clinux_terminate(pid) }

  /// Sends SIGHUP: a worker reloads as the main process does.
  public static func hangUp(_ pid: Int32) { _ = clinux_hang_up(pid) }

  /// Waits for child `pid` to end: its exit status, 128 + signal, or -1.
  public static func wait(_ pid: Int32) -> Int32 { clinux_wait_child(pid) }
}

/// The seccomp filter of `seccomp on` (Sources/CLinux/include/SyscallFilter.h
/// lists what stays allowed): installed once the loop is about to run, it
/// makes every other system call fail with EPERM for the rest of the
/// process's life.
public enum SystemCallFilter {
  /// Installs the filter; `allowFiles` keeps the calls that open and stat
  /// files (hosts and lease files are read again when they change), and
  /// `writesFiles` with it those that save a cache file;
  /// `allowNetfilterSockets` lets socket(2) open NETLINK_NETFILTER sockets
  /// (and no other netlink protocol), for an nftables writer opened after
  /// the filter. Returns nil, or why the kernel refused (EINVAL: no seccomp
  /// filters in this kernel, or qemu-user).
  public static func install(
    allowFiles: Bool, writesFiles: Bool = true, allowNetfilterSockets: Bool = false
  ) -> Errno? {
    let code = clinux_install_syscall_filter(
      allowFiles ? (writesFiles ? 2 : 1) : 0, allowNetfilterSockets ? 1 : 0)
    return code == 0 ? nil : Errno(rawValue: code)
  }
}
