import CLinux
import Platform
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// What `seccomp on` refuses and keeps. Each check runs in a forked child,
/// since a filter stays for the life of a process: the child installs it,
/// makes its calls and reports through its exit status (no allocation and
/// no Swift runtime work between fork and _exit).
final class SystemCallFilterTests: XCTestCase {
  /// The exit status of a child that installs the filter and then runs
  /// `checks`, which returns 0 when every call behaved, or the number of
  /// the first one that did not.
  func statusOfFilteredChild(
    allowFiles: Bool, writesFiles: Bool = true, allowNetfilterSockets: Bool = false,
    _ checks: () -> Int32
  ) throws -> Int32 {
    let pid = ProcessControl.forkWorker()
    XCTAssertGreaterThanOrEqual(pid, 0, "fork")
    if pid == 0 {
      let refusal = SystemCallFilter.install(
        allowFiles: allowFiles, writesFiles: writesFiles,
        allowNetfilterSockets: allowNetfilterSockets)
      if refusal != nil { _exit(99) }
      _exit(checks())
    }
    return ProcessControl.wait(pid)
  }

  /// -1 with EPERM: refused by the filter.
  static func refused(_ result: Int32) -> Bool { result == -1 && errno == EPERM }

  func testForeignSocketsFilesAndExecAreRefused() throws {
    let passwd = strdup("/etc/passwd")!
    let shell = strdup("/bin/sh")!
    defer {
      free(passwd)
      free(shell)
    }
    var arguments: [UnsafeMutablePointer<CChar>?] = [shell, nil]
    let status = try statusOfFilteredChild(allowFiles: false) {
      let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      if udp < 0 { return 1 }
      close(udp)
      let tcp6 = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
      if tcp6 < 0 { return 2 }
      close(tcp6)
      if !Self.refused(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)) { return 3 }
      if !Self.refused(socket(AF_NETLINK, Int32(SOCK_RAW.rawValue), 0)) { return 4 }
      if !Self.refused(open(passwd, O_RDONLY)) { return 5 }
      if !Self.refused(execv(shell, &arguments)) { return 6 }
      var bytes: UInt64 = 0
      if getrandom(&bytes, 8, 0) != 8 { return 7 }
      if !Self.refused(getppid()) { return 8 }  // not on the list
      return 0
    }
    XCTAssertEqual(status, 0, "the first call that misbehaved, by number (99: not installed)")
  }

  func testFilesOpenOnlyWhenACacheFileIsKept() throws {
    let passwd = strdup("/etc/passwd")!
    defer { free(passwd) }
    let status = try statusOfFilteredChild(allowFiles: true) {
      let fd = open(passwd, O_RDONLY)
      if fd < 0 { return 1 }
      close(fd)
      return 0
    }
    XCTAssertEqual(status, 0)
  }

  /// NETLINK_NETFILTER (12) sockets open only with `allowNetfilterSockets`,
  /// and then no other netlink protocol does: NETLINK_ROUTE (0) stays
  /// refused, and so do AF_UNIX sockets, while AF_INET ones still open.
  func testNetfilterSocketsOpenOnlyWhenAskedFor() throws {
    let raw = Int32(SOCK_RAW.rawValue)
    let without = try statusOfFilteredChild(allowFiles: false) {
      Self.refused(socket(AF_NETLINK, raw, 12)) ? 0 : 1
    }
    XCTAssertEqual(without, 0, "1: a netfilter socket opened without the flag")
    let with = try statusOfFilteredChild(allowFiles: false, allowNetfilterSockets: true) {
      let netfilter = socket(AF_NETLINK, raw, 12)
      if netfilter < 0 { return 1 }
      close(netfilter)
      if !Self.refused(socket(AF_NETLINK, raw, 0)) { return 2 }
      if !Self.refused(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)) { return 3 }
      let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      if udp < 0 { return 4 }
      close(udp)
      let tcp6 = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
      if tcp6 < 0 { return 5 }
      close(tcp6)
      return 0
    }
    XCTAssertEqual(with, 0, "the first call that misbehaved, by number (99: not installed)")
  }

  /// Hosts and lease files only: opened and stat-ed, never renamed or removed.
  func testReadingFilesKeepsOpenAndStatButNotRenameOrUnlink() throws {
    let passwd = strdup("/etc/passwd")!
    let other = strdup("/tmp/dnsward-filter-test-\(getpid())")!
    defer {
      free(passwd)
      free(other)
    }
    let status = try statusOfFilteredChild(allowFiles: true, writesFiles: false) {
      let fd = open(passwd, O_RDONLY)
      if fd < 0 { return 1 }
      close(fd)
      var info = stat()
      if stat(passwd, &info) != 0 { return 2 }
      if !Self.refused(rename(passwd, other)) { return 3 }
      if !Self.refused(unlink(other)) { return 4 }
      if !Self.refused(fsync(1)) { return 5 }
      return 0
    }
    XCTAssertEqual(status, 0, "the first call that misbehaved, by number (99: not installed)")
  }
}
