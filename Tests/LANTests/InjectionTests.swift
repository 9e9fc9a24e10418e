import XCTest

/// Every UDP question to the ISP is answered twice: first a forged answer
/// (wrong address, no OPT, IP TTL 250), 20 ms later the true one.
final class InjectionTests: LANTestCase {
  override var lie: LyingISP.Lie { .forgedFirst }

  private var ispUpstream: String { "udp \(Topology.ispAddress)" }
  private let askedName = "www.example"

  func testPlainDnswardHandsTheForgedAddressToEveryClient() throws {
    try startDnsward(plainConfig(upstream: ispUpstream))
    assertEveryClientGets(Records.forged, for: askedName)
  }

  func testDnsmasqHandsTheForgedAddressToEveryClient() throws {
    try startDnsmasq(server: Topology.ispAddress)
    assertEveryClientGets(Records.forged, for: askedName)
  }

  func testHoldOnWaitsForTheSecondAnswerAndKeepsTheTrueOne() throws {
    try startDnsward(plainConfig(upstream: ispUpstream) + ["hold-on 100ms"])
    assertEveryClientGets(Records.truth[askedName]!, for: askedName)
    assertCounter("holdOnConflicts")
    assertCounter("holdOnReplaced")
  }

  func testBogusAddressIsDroppedAndTheTrueAnswerAwaited() throws {
    try startDnsward(plainConfig(upstream: ispUpstream) + ["bogus \(Records.forged)"])
    assertEveryClientGets(Records.truth[askedName]!, for: askedName)
    assertCounter("bogusDropped")
  }
}
