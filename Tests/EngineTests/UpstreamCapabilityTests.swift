import CompiledConfig
import DNSWire
import Engine
import XCTest

/// The `alibaba` and `dnspod` HTTPDNS APIs answer only A and AAAA: other
/// types go to the next upstream that can answer them (issue 7).
final class UpstreamCapabilityTests: XCTestCase {
  func harness(_ format: HTTPDNSFormat, plainFallback: Bool = true) -> Harness {
    let config =
      plainFallback ? twoUpstreams : "listen 127.0.0.1:53\nupstream udp 127.0.0.1:5300\ninflight 16"
    return Harness(config) {
      $0.upstreams[0].transport = .httpdns
      $0.upstreams[0].httpdnsFormat = format
    }
  }

  func testAddressQuestionsGoToAnAddressOnlyHTTPDNSUpstream() throws {
    let harness = harness(.dnspod)
    harness.ask(makeQuery(id: 1, name: "www.example"))
    harness.ask(makeQuery(id: 2, name: "www.example", type: .aaaa))
    XCTAssertEqual(harness.queries.map(\.upstream), [0, 0])
    XCTAssertEqual(harness.queries.map(\.transport), [.httpdns, .httpdns])
  }

  func testOtherTypesSkipItForTheNextUpstream() throws {
    let harness = harness(.alibaba)
    harness.ask(makeQuery(id: 1, name: "example.com", type: RRType(rawValue: 15)))  // MX
    XCTAssertEqual(harness.queries.map(\.upstream), [1])
    XCTAssertEqual(harness.queries.first?.transport, .udp)
  }

  func testTheJSONFormatAnswersEveryType() throws {
    let harness = harness(.json)
    harness.ask(makeQuery(id: 1, name: "example.com", type: RRType(rawValue: 15)))
    XCTAssertEqual(harness.queries.map(\.upstream), [0])
  }

  func testWithNoUpstreamForTheTypeTheClientGetsSERVFAIL() throws {
    let harness = harness(.dnspod, plainFallback: false)
    let replies = harness.ask(makeQuery(id: 1, name: "example.com", type: .txt))
    XCTAssertTrue(harness.queries.isEmpty)
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testAFailedAddressQueryFallsBackToAPlainUpstream() throws {
    let harness = harness(.dnspod)
    harness.ask(makeQuery(id: 1, name: "www.example"))
    harness.attemptFailed(harness.queries[0].handle)
    XCTAssertEqual(harness.queries.map(\.upstream), [0, 1])
  }
}
