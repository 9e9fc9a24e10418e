import Foundation
import XCTest

/// One attack on the simulated LAN: each test gets a fresh topology, the
/// honest upstream, the ISP telling `lie`, and a forwarder it starts on the
/// router; all of it is torn down after the test, also when it fails.
class LANTestCase: XCTestCase {
  /// The lie the ISP tells in this class's tests.
  var lie: LyingISP.Lie { .none }

  private(set) var topology: Topology!
  private(set) var isp: DNSServer!
  private(set) var honestUpstream: DNSServer!
  private var forwarder: RouterForwarder?

  override func setUpWithError() throws {
    try BenchRequirements.check()
    do {
      topology = try Topology()
      honestUpstream = try HonestUpstream.start(in: topology)
      isp = try LyingISP.start(lie, in: topology)
    } catch {
      tearDownBench()
      throw error
    }
  }

  override func tearDown() {
    tearDownBench()
    super.tearDown()
  }

  func tearDownBench() {
    forwarder?.stop()
    forwarder = nil
    isp?.stop()
    honestUpstream?.stop()
    topology?.tearDown()
  }

  /// Replaces the ISP's resolver with one telling `newLie`.
  func restartISP(telling newLie: LyingISP.Lie) throws {
    isp.stop()
    isp = try LyingISP.start(newLie, in: topology)
  }

  /// The plain forwarding config: where to listen and where to ask, and no
  /// defence.
  func plainConfig(upstream: String) -> [String] {
    ["listen \(Topology.routerLANAddress):53", "upstream \(upstream)", "timeout 1000ms"]
  }

  /// What the forwarder on the router has logged so far.
  var routerLog: String { forwarder?.log ?? "" }

  /// Starts dnsward on the router with `config`.
  func startDnsward(_ config: [String]) throws {
    forwarder?.stop()
    forwarder = try RouterForwarder.dnsward(config, in: topology)
  }

  /// Starts dnsmasq on the router as a plain forwarder to `server`.
  func startDnsmasq(server: String) throws {
    forwarder?.stop()
    forwarder = try RouterForwarder.dnsmasq(upstream: server, in: topology)
  }

  // MARK: - What the clients see

  /// dig, kdig and glibc all get `address` (and only it) for `name`.
  func assertEveryClientGets(
    _ address: String, for name: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    for answer in askEveryClient(name) {
      XCTAssertEqual(answer.status, "NOERROR", "\(answer)", file: file, line: line)
      XCTAssertEqual(answer.addresses, [address], "\(answer)", file: file, line: line)
    }
  }

  /// dig and kdig get NXDOMAIN with no address, glibc finds nothing.
  func assertEveryClientGetsNXDOMAIN(
    for name: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    for answer in askEveryClient(name) {
      XCTAssertEqual(answer.status, "NXDOMAIN", "\(answer)", file: file, line: line)
      XCTAssertEqual(answer.addresses, [], "\(answer)", file: file, line: line)
    }
  }

  private func askEveryClient(_ name: String) -> [ClientAnswer] {
    [
      Clients.dig(name, in: topology), Clients.kdig(name, in: topology),
      Clients.getent(name, in: topology),
    ]
  }

  // MARK: - dnsward's counters

  /// Polls dnsward's stats until `counter` reaches `minimum` or `timeout`
  /// passes, and asserts that it did.
  @discardableResult
  func assertCounter(
    _ counter: String, reaches minimum: UInt64 = 1, within timeout: TimeInterval = 3,
    file: StaticString = #filePath, line: UInt = #line
  ) -> UInt64 {
    let deadline = Date().addingTimeInterval(timeout)
    var stats: [String: UInt64] = [:]
    repeat {
      stats = Clients.dnswardStats(in: topology)
      if let value = stats[counter], value >= minimum { return value }
      Thread.sleep(forTimeInterval: 0.1)
    } while Date() < deadline
    XCTFail(
      "stats.dnsward \(counter) = \(stats[counter].map(String.init) ?? "absent"), "
        + "expected at least \(minimum); all: \(stats.sorted { $0.key < $1.key })",
      file: file, line: line)
    return stats[counter] ?? 0
  }

  /// The sum of several counters (defences that may fire either of two).
  func counterSum(_ counters: [String]) -> UInt64 {
    let stats = Clients.dnswardStats(in: topology)
    return counters.reduce(0) { $0 + (stats[$1] ?? 0) }
  }
}
