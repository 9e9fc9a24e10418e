import Foundation
import XCTest

/// Surviving the WAN (issue 7, item 6): the router's WAN address changes
/// (a PPPoE reconnect, a DHCP renew). A TCP connection from the old address
/// is dead, and without notice a query on it would wait for its timeout;
/// dnsward hears of the change over rtnetlink and starts afresh at once.
final class WANChangeTests: LANTestCase {
  func testANewWANAddressReopensTheUpstreamConnectionAtOnce() throws {
    let name = "www.example"
    let truth = try XCTUnwrap(Records.truth[name])
    try startDnsward([
      "listen \(Topology.routerLANAddress):53",
      "upstream tcp \(Topology.honestUpstreamAddress):5353", "timeout 3000ms", "cache 0",
    ])
    // The first answer opens the TCP connection from 100.64.0.2.
    XCTAssertEqual(Clients.dig(name, in: topology).addresses, [truth])

    let wan = topology.routerWANInterface
    try topology.inside(topology.router, "ip addr del \(Topology.routerWANAddress)/24 dev \(wan)")
    try topology.inside(topology.router, "ip addr add 100.64.0.3/24 dev \(wan)")
    try topology.inside(topology.router, "ip route add default via \(Topology.ispAddress)")

    let deadline = Date().addingTimeInterval(3)
    while !routerLog.contains("network changed") && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.05)
    }
    XCTAssertTrue(routerLog.contains("network changed"), routerLog)
    let start = Date()
    let answer = Clients.dig(name, in: topology, timeoutSeconds: 5)
    let elapsed = Date().timeIntervalSince(start)
    XCTAssertEqual(answer.addresses, [truth], "\(answer)")
    XCTAssertLessThan(elapsed, 1.5, "a fresh connection at once, not the 3 s timeout")
    assertCounter("networkChanges")
  }

  /// The WAN link goes down and comes back (a modem reboot, a cable): while
  /// it is down, names already cached are still answered; both changes are
  /// noticed (rtnetlink), and when the link is up again a new name is
  /// answered at once over a fresh TCP connection.
  func testAWANLinkDownAndUpKeepsAnsweringAndRecoversAtOnce() throws {
    let cached = "www.example"
    let later = "public.example"
    try startDnsward([
      "listen \(Topology.routerLANAddress):53",
      "upstream tcp \(Topology.honestUpstreamAddress):5353", "timeout 3000ms", "stale 1h",
    ])
    XCTAssertEqual(Clients.dig(cached, in: topology).addresses, [Records.truth[cached]!])

    let wan = topology.routerWANInterface
    try topology.inside(topology.router, "ip link set dev \(wan) down")
    XCTAssertEqual(
      Clients.dig(cached, in: topology).addresses, [Records.truth[cached]!],
      "answered from the cache while the WAN is down")

    try topology.inside(topology.router, "ip link set dev \(wan) up")
    // A link going down takes its routes with it; DHCP or PPPoE would put
    // the default route back, here the test does.
    try topology.inside(topology.router, "ip route replace default via \(Topology.ispAddress)")
    let deadline = Date().addingTimeInterval(3)
    while routerLog.components(separatedBy: "network changed").count < 3 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.05)
    }
    Thread.sleep(forTimeInterval: 0.3)  // past the 200 ms settle time of the last change
    let start = Date()
    let answer = Clients.dig(later, in: topology, timeoutSeconds: 5)
    let elapsed = Date().timeIntervalSince(start)
    XCTAssertEqual(answer.addresses, [Records.truth[later]!], "\(answer)\n\(routerLog)")
    XCTAssertLessThan(elapsed, 1.5, "a fresh connection at once, not the 3 s timeout")
    assertCounter("networkChanges", reaches: 2)
  }
}
