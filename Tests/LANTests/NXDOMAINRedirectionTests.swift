import XCTest

/// The ISP answers names that do not exist with its ad server's address.
final class NXDOMAINRedirectionTests: LANTestCase {
  override var lie: LyingISP.Lie { .nxdomainRedirect }

  private var ispUpstream: String { "udp \(Topology.ispAddress)" }

  func testPlainDnswardHandsTheAdAddressToEveryClient() throws {
    try startDnsward(plainConfig(upstream: ispUpstream))
    assertEveryClientGets(Records.adServer, for: Records.nonexistent)
  }

  func testDnsmasqHandsTheAdAddressToEveryClient() throws {
    try startDnsmasq(server: Topology.ispAddress)
    assertEveryClientGets(Records.adServer, for: Records.nonexistent)
  }

  func testBogusNXDOMAINTurnsTheAdAddressBackIntoNXDOMAIN() throws {
    try startDnsward(plainConfig(upstream: ispUpstream) + ["bogus-nxdomain \(Records.adServer)"])
    assertEveryClientGetsNXDOMAIN(for: Records.nonexistent)
    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
    assertCounter("redirectsRewritten")
  }

  func testLearnedRedirectAddressTurnsTheAdAddressBackIntoNXDOMAIN() throws {
    try startDnsward(plainConfig(upstream: ispUpstream) + ["detect-nxdomain-redirect on"])
    // The start-up probes: random names under .com, .net and .org, and
    // example.com as the control that must not be learned.
    assertCounter("redirectAddressesLearned", within: 10)
    assertEveryClientGetsNXDOMAIN(for: Records.nonexistent)
    assertEveryClientGets(Records.truth["example.com"]!, for: "example.com")
    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
  }
}
