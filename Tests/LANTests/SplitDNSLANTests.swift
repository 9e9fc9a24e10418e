import Foundation
import XCTest

/// Split DNS: names routed by domain to their own resolver, the rest to the
/// default upstreams, and each resolver asked only about its own names.
final class SplitDNSLANTests: LANTestCase {
  private var vpnResolver: DNSServer?
  private var folder: URL?

  override func tearDown() {
    vpnResolver?.stop()
    if let folder { try? FileManager.default.removeItem(at: folder) }
    super.tearDown()
  }

  /// The office's names, known only to the office resolver behind the VPN
  /// (private addresses, as an intranet's are).
  private static let intranet = "intranet.corp.example"
  private static let intranetAddress = "10.8.0.20"

  func testOfficeNamesGoToTheVPNResolverAndTheISPSeesNone() throws {
    let vpn = try topology.addVPN()
    vpnResolver = try DNSServer(
      namespace: vpn, address: Topology.vpnResolverAddress, ports: [53]
    ) { query, _ in
      [
        Outgoing(
          bytes: Records.trueAnswer(query, extra: [Self.intranet: Self.intranetAddress])
            .bytes(answering: query))
      ]
    }
    try startDnsward(
      plainConfig(upstream: "udp \(Topology.ispAddress)") + [
        "upstream udp \(Topology.vpnResolverAddress) for corp.example",
        // A private answer from a routed private resolver is no rebinding.
        "rebind-protection on",
      ])

    assertEveryClientGets(Self.intranetAddress, for: Self.intranet)
    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
    XCTAssertGreaterThan(vpnResolver!.queries(for: Self.intranet), 0)
    XCTAssertEqual(isp.queries(atOrBelow: "corp.example"), 0, "the ISP saw an office name")
    XCTAssertEqual(vpnResolver!.queries(for: "www.example"), 0, "the office saw a public name")
  }

  func testDomesticListNamesGoToTheISPAndTheRestToTheTrustedUpstream() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-lan-split-\(getpid())-\(UUID().uuidString)")
    self.folder = folder
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let list = folder.appendingPathComponent("domestic.conf")
    // dnsmasq's own format, as published domestic lists are written.
    try
      "# domestic names\nserver=/www.example/114.114.114.114\nserver=/bank.example/114.114.114.114\n"
      .write(to: list, atomically: true, encoding: .utf8)
    try startDnsward([
      "listen \(Topology.routerLANAddress):53",
      "upstream udp \(Topology.ispAddress) for-list \(list.path)",
      "upstream udp \(Topology.honestUpstreamAddress):5353",
      "timeout 1000ms",
    ])

    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
    assertEveryClientGets(Records.truth["public.example"]!, for: "public.example")
    XCTAssertGreaterThan(isp.queries(for: "www.example"), 0)
    XCTAssertEqual(isp.queries(for: "public.example"), 0, "a foreign name went to the ISP")
    XCTAssertEqual(
      honestUpstream.queries(for: "www.example"), 0, "a domestic name went to the trusted upstream")
    XCTAssertGreaterThan(honestUpstream.queries(for: "public.example"), 0)
  }
}
