import Foundation
import TestSupport
import XCTest

/// RFC 5452 §9.2: every upstream query from a fresh random source port.
final class SourcePortTests: XCTestCase {
  /// dnsward forwarding every question (no cache) to `upstream` over UDP.
  func forwarder(to upstream: FakeUpstream) throws -> DnswardProcess {
    try DnswardProcess(
      forwardingTo: upstream,
      """
      cache 0
      """)
  }

  func testEveryUpstreamQueryComesFromAFreshPort() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 80))
    defer { upstream.stop() }
    let dnsward = try forwarder(to: upstream)
    defer { dnsward.stop() }
    let queries = 40
    for index in 0..<queries {
      // One at a time: each reuses the ring slot (and socket) of the last.
      let reply = dnsward.ask("n\(index).example")
      XCTAssertEqual(reply?.addresses, ["192.0.2.80"])
    }
    let ports = upstream.udpSourcePorts
    XCTAssertEqual(ports.count, queries)
    // Random draws from the ephemeral range (about 28,000 ports) may repeat
    // now and then, even twice in a row (the kernel draws each socket's
    // port afresh, so 39 pairs repeat with odds of about 1 in 700; CI saw
    // it once), but not often: a socket reused across queries would keep
    // one port throughout.
    XCTAssertGreaterThan(Set(ports).count, queries - 3, "\(ports)")
    let repeatsInARow = (1..<ports.count).filter { ports[$0] == ports[$0 - 1] }.count
    XCTAssertLessThanOrEqual(repeatsInARow, 1, "\(ports)")
  }

  /// A second answer still queued when the attempt ends must not leave the
  /// slot's socket readable forever (a busy loop): dnsward stays idle.
  func testDuplicateAnswersLeaveTheLoopIdle() throws {
    let upstream = try FakeUpstream(.duplicated, answer: (192, 0, 2, 80))
    defer { upstream.stop() }
    let dnsward = try forwarder(to: upstream)
    defer { dnsward.stop() }
    for index in 0..<20 {
      let reply = dnsward.ask("d\(index).example")
      XCTAssertEqual(reply?.addresses, ["192.0.2.80"])
    }
    func cpuTicks() -> Int {
      guard
        let stat = try? String(
          contentsOfFile: "/proc/\(dnsward.process.processIdentifier)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return 0 }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
    Thread.sleep(forTimeInterval: 0.2)
    let before = cpuTicks()
    Thread.sleep(forTimeInterval: 1)
    // Idle is ~0 ticks; a busy loop burns ~100 (a whole second).
    XCTAssertLessThan(cpuTicks() - before, 30, "dnsward kept the CPU busy while idle")
  }
}
