import XCTest

/// The ISP gives the public name `public.example` a LAN address.
final class RebindingTests: LANTestCase {
  override var lie: LyingISP.Lie { .rebinding }

  private let publicName = "public.example"

  func testPlainDnswardHandsTheLANAddressToEveryClient() throws {
    try startDnsward(plainConfig(upstream: "udp \(Topology.ispAddress)"))
    assertEveryClientGets(Records.rebindTarget, for: publicName)
  }

  func testDnsmasqHandsTheLANAddressToEveryClient() throws {
    try startDnsmasq(server: Topology.ispAddress)
    assertEveryClientGets(Records.rebindTarget, for: publicName)
  }

  func testRebindProtectionAsksTheNextUpstreamAndAllowsListedNames() throws {
    try startDnsward(
      plainConfig(upstream: "udp \(Topology.ispAddress)") + [
        "upstream udp \(Topology.honestUpstreamAddress):5353",
        "rebind-protection on",
        "rebind-allow \(Records.nas)",
      ])
    assertEveryClientGets(Records.truth[publicName]!, for: publicName)
    assertCounter("rebindBlocked")
    XCTAssertGreaterThan(honestUpstream.queries(port: 5353), 0, "the second upstream was asked")
    // Only the ISP knows the NAS: its LAN address must come through.
    assertEveryClientGets(Records.nasAddress, for: Records.nas)
  }
}
