import Foundation
import XCTest

/// The LAN's own names: dnsward on the router answers them from a DHCP
/// lease file and a hosts file, follows the lease file as the DHCP server
/// rewrites it, and never asks the ISP about them.
final class LocalNamesLANTests: LANTestCase {
  private var folder: URL!

  override func setUpWithError() throws {
    try super.setUpWithError()
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-lan-names-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDown() {
    if let folder { try? FileManager.default.removeItem(at: folder) }
    super.tearDown()
  }

  /// A dnsmasq lease line that expires in an hour.
  private func lease(_ mac: String, _ address: String, _ name: String) -> String {
    let expiry = Int(Date().timeIntervalSince1970) + 3600
    return "\(expiry) \(mac) \(address) \(name) 01:\(mac)\n"
  }

  /// Rewrites `url` the way a DHCP server does: a new file renamed over the old.
  private func replace(_ url: URL, with text: String) throws {
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  /// Polls `dig` from the client until `name` gets `status`, for at most
  /// `timeout` seconds; returns the last answer.
  private func waitForStatus(
    _ status: String, of name: String, within timeout: TimeInterval = 10
  ) -> ClientAnswer {
    let deadline = Date().addingTimeInterval(timeout)
    var answer = Clients.dig(name, in: topology, timeoutSeconds: 1)
    while answer.status != status && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.2)
      answer = Clients.dig(name, in: topology, timeoutSeconds: 1)
    }
    return answer
  }

  func testLeaseAndHostsNamesReachEveryClientAndFollowTheLeaseFile() throws {
    let leases = folder.appendingPathComponent("dhcp.leases")
    let hosts = folder.appendingPathComponent("hosts")
    try replace(leases, with: lease("02:00:00:00:00:17", "192.168.77.23", "laptop"))
    try replace(hosts, with: "# the router's static names\n192.168.77.5 printer\n")
    try startDnsward(
      plainConfig(upstream: "udp \(Topology.ispAddress)") + [
        "leases \(leases.path)", "hosts \(hosts.path)", "domain lan",
      ])

    // dig, kdig and glibc alike, by the lease's name and the hosts file's.
    assertEveryClientGets("192.168.77.23", for: "laptop.lan")
    assertEveryClientGets("192.168.77.5", for: "printer.lan")
    let reverse = Clients.reverse("192.168.77.23", in: topology)
    XCTAssertEqual(reverse.status, "NOERROR", "\(reverse)")
    XCTAssertEqual(reverse.pointers, ["laptop.lan."], "\(reverse)")

    // A lease granted while dnsward runs resolves without a restart...
    let started = Date()
    try replace(
      leases,
      with: lease("02:00:00:00:00:17", "192.168.77.23", "laptop")
        + lease("02:00:00:00:00:31", "192.168.77.31", "tablet"))
    let tablet = waitForStatus("NOERROR", of: "tablet.lan")
    XCTAssertEqual(tablet.addresses, ["192.168.77.31"], "\(tablet)\n\(routerLog)")
    print(
      "a new lease resolved after \(String(format: "%.1f", Date().timeIntervalSince(started))) s")

    // ... and a lease that is gone stops resolving.
    try replace(leases, with: lease("02:00:00:00:00:31", "192.168.77.31", "tablet"))
    let laptop = waitForStatus("NXDOMAIN", of: "laptop.lan")
    XCTAssertEqual(laptop.status, "NXDOMAIN", "\(laptop)\n\(routerLog)")

    // A name nobody has under the LAN's domain is not the ISP's business.
    assertEveryClientGetsNXDOMAIN(for: "ghost.lan")
    XCTAssertEqual(isp.queries(atOrBelow: "lan"), 0, "the ISP was asked about the LAN's names")
  }

  func testSingleLabelAndPrivateReverseQuestionsReachNoUpstream() throws {
    try startDnsward(plainConfig(upstream: "udp \(Topology.ispAddress)"))
    let bare = Clients.dig("fileserver", in: topology)
    XCTAssertEqual(bare.status, "NXDOMAIN", "\(bare)")
    let privateReverse = Clients.reverse("10.1.2.3", in: topology)
    XCTAssertEqual(privateReverse.status, "NXDOMAIN", "\(privateReverse)")
    let lanReverse = Clients.reverse("192.168.77.99", in: topology)
    XCTAssertEqual(lanReverse.status, "NXDOMAIN", "\(lanReverse)")
    XCTAssertEqual(isp.queries(for: "fileserver"), 0)
    XCTAssertEqual(isp.queries(atOrBelow: "10.in-addr.arpa"), 0)
    XCTAssertEqual(isp.queries(atOrBelow: "168.192.in-addr.arpa"), 0)
    // Public names still go out.
    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
  }
}
