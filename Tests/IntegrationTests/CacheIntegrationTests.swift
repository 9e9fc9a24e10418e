import Foundation
import TestSupport
import XCTest

/// The packet cache with the real binary: a warm cache asks nobody, and an
/// outage still answers known names (RFC 8767).
final class CacheIntegrationTests: XCTestCase {
  func testWarmCacheAnswersWithoutAnyUpstreamTraffic() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 60))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      forwardingTo: upstream,
      """
      cache 128
      """)
    defer { dnsward.stop() }
    for index in 0..<20 {
      let reply = dnsward.ask("Warm.Example", id: UInt16(index))
      XCTAssertEqual(reply?.id, UInt16(index))
      XCTAssertEqual(reply?.addresses, ["192.0.2.60"])
    }
    let overTCP = StubClient.tcp([dnsQuery("warm.example", id: 99)], port: dnsward.port)
    XCTAssertEqual(Reply(overTCP.first)?.addresses, ["192.0.2.60"])
    XCTAssertEqual(
      upstream.udpQueries + upstream.tcpQueries, 1, "one question upstream, 21 answers")
  }

  func testOutageStillAnswersKnownNamesWithStaleData() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 61))
    let dnsward = try DnswardProcess(
      forwardingTo: upstream,
      """
      timeout 200ms
      max-ttl 1s
      stale 1d
      """)
    defer { dnsward.stop() }
    XCTAssertEqual(
      dnsward.ask("known.example")?.addresses,
      ["192.0.2.61"])
    upstream.stop()  // the WAN goes away
    Thread.sleep(forTimeInterval: 1.2)  // and the entry expires
    let stale = dnsward.ask("known.example", id: 5)
    XCTAssertEqual(stale?.id, 5)
    XCTAssertEqual(stale?.rcode, 0)
    XCTAssertEqual(stale?.addresses, ["192.0.2.61"])
    XCTAssertEqual(stale?.firstTTL, 30, "stale answers carry TTL 30 (RFC 8767)")
    let unknown = dnsward.ask("unknown.example")
    XCTAssertEqual(unknown?.rcode, 2)
  }
}
