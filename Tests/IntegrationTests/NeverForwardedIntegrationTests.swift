import Foundation
import TestSupport
import XCTest

/// The real binary: single-label names, private reverse names and, with
/// `filter-aaaa on`, AAAA questions are answered at once and never reach
/// the upstream, which does see the ordinary questions.
final class NeverForwardedIntegrationTests: XCTestCase {
  func testPrivateQuestionsNeverReachTheUpstream() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 80))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      forwardingTo: upstream,
      """
      timeout 300ms
      override printer.lan 192.168.1.20 fd00::20
      filter-aaaa on
      """)
    defer { dnsward.stop() }
    let single = dnsward.ask("printer", type: 1, id: 1)
    XCTAssertEqual(single?.id, 1)
    XCTAssertEqual(single?.rcode, 3)
    let ptr = dnsward.ask("20.1.168.192.in-addr.arpa", type: 12, id: 2)
    XCTAssertEqual(ptr?.rcode, 3)
    XCTAssertEqual(ptr?.isValid, true, "the SOA in the authority section parses")
    XCTAssertEqual(ptr.map { Int($0.bytes[8]) << 8 | Int($0.bytes[9]) }, 1, "NSCOUNT 1")
    let ula = dnsward.ask(
      "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa", type: 12, id: 3)
    XCTAssertEqual(ula?.rcode, 3)
    let aaaa = dnsward.ask("www.example", type: 28, id: 4)
    XCTAssertEqual(aaaa?.rcode, 0)
    XCTAssertEqual(aaaa?.answerCount, 0, "NODATA")
    let override = dnsward.ask("printer.lan", type: 28, id: 5)
    XCTAssertEqual(override?.addresses, ["fd00:0:0:0:0:0:0:20"], "the owner's own AAAA")
    XCTAssertEqual(upstream.udpQueries + upstream.tcpQueries, 0, "none of them went upstream")

    // The upstream is there and answers what is forwarded.
    XCTAssertEqual(dnsward.ask("www.example", type: 1, id: 6)?.addresses, ["192.0.2.80"])
    XCTAssertEqual(dnsward.ask("com", type: 2, id: 7)?.id, 7)
    XCTAssertEqual(dnsward.ask("8.8.8.8.in-addr.arpa", type: 12, id: 8)?.id, 8)
    XCTAssertEqual(upstream.udpQueries, 3)
    let counters = dnsward.counters()
    XCTAssertEqual(counters["notForwarded"], 3)
    XCTAssertEqual(counters["aaaaFiltered"], 1)
  }
}
