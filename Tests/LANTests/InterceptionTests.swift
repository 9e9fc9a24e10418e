import XCTest

/// The ISP DNATs every packet to port 53, whatever its destination, to its
/// own resolver, which sends `bank.example` to a phishing address.
final class InterceptionTests: LANTestCase {
  override var lie: LyingISP.Lie { .interception }

  private let bank = "bank.example"
  private var honestPort53: String { "udp \(Topology.honestUpstreamAddress)" }
  private var honestTCP5353: String { "tcp \(Topology.honestUpstreamAddress):5353" }

  override func setUpWithError() throws {
    try super.setUpWithError()
    do {
      try topology.interceptPort53()
    } catch {
      tearDownBench()
      throw error
    }
  }

  func testPlainDnswardAskingTheHonestUpstreamGetsTheISPsAnswer() throws {
    try startDnsward(plainConfig(upstream: honestPort53))
    assertEveryClientGets(Records.phishing, for: bank)
    assertIntercepted()
  }

  func testDnsmasqAskingTheHonestUpstreamGetsTheISPsAnswer() throws {
    try startDnsmasq(server: Topology.honestUpstreamAddress)
    assertEveryClientGets(Records.phishing, for: bank)
    assertIntercepted()
  }

  func testTrustedTCPUpstreamOnAnotherPortIsNotIntercepted() throws {
    try startDnsward(plainConfig(upstream: "\(honestTCP5353) trusted"))
    assertEveryClientGets(Records.truth[bank]!, for: bank)
    XCTAssertGreaterThan(honestUpstream.queries(port: 5353, over: .tcp), 0)
    XCTAssertEqual(isp.queries(port: 53), 0, "nothing should reach the ISP's resolver")
  }

  func testVerifyPrefersTheTrustedAnswerAndCountsTheDisagreement() throws {
    try startDnsward(
      plainConfig(upstream: honestPort53) + [
        "upstream \(honestTCP5353) trusted", "verify \(bank)",
      ])
    assertEveryClientGets(Records.truth[bank]!, for: bank)
    assertCounter("verifyDisagreements")
  }

  /// The queries addressed to 203.0.113.53:53 reached the ISP instead.
  private func assertIntercepted(file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertGreaterThan(isp.queries(port: 53), 0, file: file, line: line)
    XCTAssertEqual(honestUpstream.queries(port: 53), 0, file: file, line: line)
  }
}
