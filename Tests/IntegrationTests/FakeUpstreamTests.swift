import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The fake upstream itself, which the other tests rely on: its UDP and
/// TCP sockets share one port number.
final class FakeUpstreamTests: XCTestCase {
  /// The port its first attempt asks for is taken for UDP (what the
  /// kernel's port-0 choice for TCP sometimes gives, as it did once in CI
  /// under qemu): it starts on a fresh port that answers over both
  /// transports, instead of failing with EADDRINUSE.
  func testTakenUDPPortIsLeftForAFreshOne() throws {
    let (holder, taken) = try XCTUnwrap(StubClient.boundUDPSocket())
    defer { close(holder) }

    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 77), firstPort: taken)
    defer { upstream.stop() }
    XCTAssertNotEqual(upstream.port, taken)
    let overUDP = Reply(StubClient.udp(dnsQuery("same.example", id: 1), port: upstream.port))
    XCTAssertEqual(overUDP?.addresses, ["192.0.2.77"])
    let overTCP = StubClient.tcp([dnsQuery("same.example", id: 2)], port: upstream.port)
    XCTAssertEqual(Reply(overTCP.first)?.addresses, ["192.0.2.77"])
  }
}
