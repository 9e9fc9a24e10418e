import Foundation
import XCTest

/// Policy routing by name: dnsward puts the addresses of a listed name into
/// an nftables set on the router, and a firewall rule that marks packets to
/// that set sends them through the VPN instead of the ISP.
final class NftSetLANTests: LANTestCase {
  private var vpnHost: DNSServer?

  override func tearDown() {
    vpnHost?.stop()
    super.tearDown()
  }

  /// `bank.example`'s true address, which only the host behind the VPN has.
  private static let bankAddress = Records.truth["bank.example"]!

  func testAnAnsweredNameIsRoutedThroughTheVPNByItsSet() throws {
    // Behind the VPN, a host with the bank's address answers DNS, so a
    // client can tell whether a packet to that address went through the
    // VPN (an answer) or the ISP (which has no such host: no answer).
    let vpn = try topology.addVPN()
    try topology.inside(vpn, "ip addr add \(Self.bankAddress)/32 dev lo")
    try topology.inside(vpn, "ip route add 192.168.77.0/24 via \(Topology.routerVPNAddress)")
    vpnHost = try DNSServer(namespace: vpn, address: Self.bankAddress, ports: [53]) {
      query, _ in [Outgoing(bytes: Records.trueAnswer(query).bytes(answering: query))]
    }
    try topology.inside(topology.router, "sysctl -q -w net.ipv4.ip_forward=1")
    let ruleset = """
      table inet dwlan_policy {
        set vpn4 { type ipv4_addr; flags timeout; }
        chain prerouting {
          type filter hook prerouting priority mangle; policy accept;
          ip daddr @vpn4 meta mark set 0x1
        }
      }
      """
    let loaded = Command.run(
      ["ip", "netns", "exec", topology.router, "nft", "-f", "-"], input: ruleset)
    if loaded.status != 0 {
      throw XCTSkip("nft cannot load the policy-routing set on the router: \(loaded)")
    }
    try topology.inside(topology.router, "ip rule add fwmark 1 table 100")
    try topology.inside(
      topology.router, "ip route add default via \(Topology.vpnResolverAddress) table 100")

    let throughVPN = { Clients.dig("www.example", in: self.topology, server: Self.bankAddress) }
    XCTAssertNil(throughVPN().status, "the bank's address is reached before its name is asked")

    try startDnsward(
      plainConfig(upstream: "udp \(Topology.ispAddress)") + [
        "nftset inet dwlan_policy vpn4 for bank.example"
      ])
    assertEveryClientGets(Self.bankAddress, for: "bank.example")
    let set = Command.run([
      "ip", "netns", "exec", topology.router, "nft", "list", "set", "inet", "dwlan_policy", "vpn4",
    ])
    XCTAssertTrue(set.output.contains(Self.bankAddress), "\(set)\n\(routerLog)")
    let answer = throughVPN()
    XCTAssertEqual(answer.status, "NOERROR", "\(answer)")
    XCTAssertGreaterThan(vpnHost!.queries(for: "www.example"), 0)
    // Another name's address stays off the set.
    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
    let after = Command.run([
      "ip", "netns", "exec", topology.router, "nft", "list", "set", "inet", "dwlan_policy", "vpn4",
    ])
    XCTAssertFalse(after.output.contains(Records.truth["www.example"]!), "\(after)")
  }
}
