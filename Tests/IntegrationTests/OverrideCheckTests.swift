import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `override-check tcp:PORT`: the real binary probes the override addresses
/// with TCP connects to a listener the test opens and closes, leaves the
/// unreachable ones out, resolves the name normally while all are down, and
/// answers locally again once one recovers.
final class OverrideCheckTests: XCTestCase {
  /// A TCP port on 127.0.0.1 that the test listens on or not. Connections
  /// are never accepted: a completed handshake is all a probe needs.
  ///
  /// The port stays bound (without SO_REUSEADDR) from the start, only not
  /// listening: a connect to it is refused like one to a closed port, and
  /// no other socket can take it meanwhile. (Learning a free port and
  /// closing it let dnsward's own `listen 127.0.0.1:0` draw the same port,
  /// so its listener answered the probes — seen once in CI.)
  final class ProbeTarget {
    let port: UInt16
    private var fd: Int32

    init() throws {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = StubClient.loopback(0)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard fd >= 0, bound == 0 else {
        let error = errno
        if fd >= 0 { Glibc.close(fd) }
        throw XCTSkip("cannot bind a TCP port on 127.0.0.1: errno \(error)")
      }
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
      }
      self.fd = fd
      port = UInt16(bigEndian: address.sin_port)
    }

    /// Starts accepting handshakes on the port held since `init`.
    func open() throws {
      guard listen(fd, 64) == 0 else {
        throw XCTSkip("cannot listen on 127.0.0.1:\(port): errno \(errno)")
      }
    }

    deinit { Glibc.close(fd) }
  }

  /// Whether the binary's parser takes `config` (`dnsward --check`), and
  /// what it printed.
  func configIsAccepted(_ config: String) throws -> (Bool, String) {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-check-\(UUID().uuidString).conf")
    try config.write(to: url, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: url) }
    let run = try DnswardBinary.run(["--check", url.path])
    return (run.status == 0 && !run.timedOut, run.output + run.errors)
  }

  /// About 11 s: a failure needs two rounds (start-up and 5 s later, 5 s
  /// being the shortest interval), a recovery the round after.
  func testUnreachableAddressesAreLeftOutThenForwardedThenAnsweredAgain() throws {
    let target = try ProbeTarget()
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 77))
    defer { upstream.stop() }
    let config = """
      listen 127.0.0.1:0
      upstream udp 127.0.0.1:\(upstream.port)
      timeout 500ms
      override svc.test 127.0.0.1 127.0.0.2
      override-check tcp:\(target.port)
      override-check-interval 5s
      """
    let (accepted, checkOutput) = try configIsAccepted(config)
    XCTAssertTrue(accepted, "dnsward --check refused the config: \(checkOutput)")
    guard accepted else { return }
    // Nothing listens at first: both addresses fail the start-up round.
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    XCTAssertTrue(
      dnsward.log.contains("override-check: probing 2 override addresses on tcp:\(target.port)"),
      dnsward.log)
    func ask(_ id: UInt16) -> Reply? {
      dnsward.ask("svc.test", id: id)
    }
    // One failed round is not enough to mark an address down.
    XCTAssertEqual(ask(1)?.addresses, ["127.0.0.1", "127.0.0.2"])
    XCTAssertEqual(upstream.udpQueries, 0)

    // The second round (5 s) marks both down: the name is resolved normally.
    for address in ["127.0.0.1", "127.0.0.2"] {
      XCTAssertTrue(
        dnsward.waitForLog(
          "override address \(address) unreachable on tcp:\(target.port): "
            + "left out of override answers", seconds: 8), dnsward.log)
    }
    let forwarded = ask(2)
    XCTAssertEqual(forwarded?.addresses, ["192.0.2.77"])
    XCTAssertEqual(forwarded.map { $0.bytes[2] & 0x04 }, 0, "not authoritative: from upstream")
    XCTAssertEqual(upstream.udpQueries, 1)

    // 127.0.0.1 listens again: one successful round brings it back, while
    // 127.0.0.2 (nothing there) stays left out.
    try target.open()
    XCTAssertTrue(
      dnsward.waitForLog(
        "override address 127.0.0.1 reachable again on tcp:\(target.port)", seconds: 7),
      dnsward.log)
    let local = ask(3)
    XCTAssertEqual(local?.addresses, ["127.0.0.1"])
    XCTAssertEqual(local.map { $0.bytes[2] & 0x04 }, 0x04, "authoritative: the override")
    XCTAssertEqual(upstream.udpQueries, 1)
    XCTAssertFalse(dnsward.log.contains("127.0.0.2 reachable again"), dnsward.log)
  }
}
