import Foundation
import XCTest

/// Booting before the network (issue 17, item 2): on a router dnsward
/// starts while netifd or systemd-networkd is still configuring the LAN, so
/// its `listen` address may not exist yet. It binds anyway (IP_FREEBIND),
/// says so, and answers there as soon as the address is configured.
final class BootTests: LANTestCase {
  func testStartsBeforeItsLANAddressExistsAndAnswersOnceItIsConfigured() throws {
    let name = "www.example"
    let truth = try XCTUnwrap(Records.truth[name])
    let lan = topology.routerLANInterface
    try topology.inside(topology.router, "ip addr del \(Topology.routerLANAddress)/24 dev \(lan)")

    try startDnsward(plainConfig(upstream: "udp \(Topology.honestUpstreamAddress):5353"))
    XCTAssertTrue(
      routerLog.contains(
        "listen \(Topology.routerLANAddress):53: no interface has this address yet"), routerLog)
    XCTAssertEqual(
      Clients.dig(name, in: topology, timeoutSeconds: 1).addresses, [],
      "nothing answers at an address no interface has")

    try topology.inside(topology.router, "ip addr add \(Topology.routerLANAddress)/24 dev \(lan)")
    let answer = Clients.dig(name, in: topology)
    XCTAssertEqual(answer.addresses, [truth], "\(answer)\n\(routerLog)")
    XCTAssertEqual(Clients.dig(name, in: topology, tcp: true).addresses, [truth], routerLog)
  }
}
