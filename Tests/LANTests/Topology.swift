import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The simulated LAN: four network namespaces joined by veth pairs.
///
/// ```
///  client ──lan── router ──wan── isp ──core── inet
///  .77.10        .77.1 │ 100.64.0.2   100.64.0.1 │ 203.0.113.1   203.0.113.53
///                dnsward / dnsmasq    lying ISP resolver      honest upstream
/// ```
///
/// Every name carries the test process's pid so that two runs never clash,
/// and everything is removed by `tearDown()`, which is safe to call on a
/// half-built topology.
final class Topology {
  static let clientAddress = "192.168.77.10"
  static let routerLANAddress = "192.168.77.1"
  static let routerWANAddress = "100.64.0.2"
  static let ispAddress = "100.64.0.1"
  static let ispCoreAddress = "203.0.113.1"
  static let honestUpstreamAddress = "203.0.113.53"
  /// The router's end of the office VPN (`addVPN()`), and the office's resolver.
  static let routerVPNAddress = "10.8.0.2"
  static let vpnResolverAddress = "10.8.0.1"

  let client: String
  let router: String
  let isp: String
  let inet: String
  /// The folder `ip netns exec` bind-mounts over /etc in the client namespace.
  let clientEtc: URL

  private var created: [String] = []

  init() throws {
    let prefix = "dwlan-\(getpid())"
    client = "\(prefix)-client"
    router = "\(prefix)-router"
    isp = "\(prefix)-isp"
    inet = "\(prefix)-inet"
    clientEtc = URL(fileURLWithPath: "/etc/netns/\(client)")
    do {
      try build()
    } catch {
      tearDown()
      throw error
    }
  }

  /// Veth names: `PREFIXa0/a1` client–router, `b0/b1` router–ISP,
  /// `c0/c1` ISP–internet.
  static var linkPrefix: String { "dwl\(getpid())" }
  /// The router's WAN interface.
  var routerWANInterface: String { "\(Self.linkPrefix)b0" }
  /// The router's LAN interface.
  var routerLANInterface: String { "\(Self.linkPrefix)a1" }

  /// Creates `namespace`, replacing one a crashed run of this same pid
  /// left behind, with its loopback up; it goes with the others.
  private func addNamespace(_ namespace: String) throws {
    _ = Command.run(["ip", "netns", "del", namespace])
    try Command.require(["ip", "netns", "add", namespace])
    created.append(namespace)
    try inside(namespace, "ip link set lo up")
  }

  private func build() throws {
    for namespace in [client, router, isp, inet] {
      try addNamespace(namespace)
    }
    let link = Self.linkPrefix
    try joinWithVeth(client, "\(link)a0", router, "\(link)a1")
    try joinWithVeth(router, "\(link)b0", isp, "\(link)b1")
    try joinWithVeth(isp, "\(link)c0", inet, "\(link)c1")

    try address(client, "\(link)a0", "\(Self.clientAddress)/24")
    try inside(client, "ip route add default via \(Self.routerLANAddress)")

    try address(router, "\(link)a1", "\(Self.routerLANAddress)/24")
    try address(router, "\(link)b0", "\(Self.routerWANAddress)/24")
    try inside(router, "ip route add default via \(Self.ispAddress)")

    try address(isp, "\(link)b1", "\(Self.ispAddress)/24")
    try address(isp, "\(link)c0", "\(Self.ispCoreAddress)/24")
    try inside(isp, "sysctl -q -w net.ipv4.ip_forward=1")

    try address(inet, "\(link)c1", "\(Self.honestUpstreamAddress)/24")
    try inside(inet, "ip route add 100.64.0.0/24 via \(Self.ispCoreAddress)")

    // glibc in the client namespace asks the router, and only the router.
    try FileManager.default.createDirectory(at: clientEtc, withIntermediateDirectories: true)
    try "nameserver \(Self.routerLANAddress)\noptions timeout:2 attempts:1\n".write(
      to: clientEtc.appendingPathComponent("resolv.conf"), atomically: true, encoding: .utf8)
    try "hosts: files dns\n".write(
      to: clientEtc.appendingPathComponent("nsswitch.conf"), atomically: true, encoding: .utf8)
  }

  /// Makes the ISP intercept port 53: every UDP and TCP packet it forwards
  /// or receives for port 53, whatever its destination address, is
  /// DNAT-ed to its own resolver. Throws XCTSkip when nftables cannot.
  func interceptPort53() throws {
    let ruleset = """
      table ip dwlan_intercept {
        chain prerouting {
          type nat hook prerouting priority dstnat; policy accept;
          udp dport 53 dnat to \(Self.ispAddress):53
          tcp dport 53 dnat to \(Self.ispAddress):53
        }
      }
      """
    let result = Command.run(["ip", "netns", "exec", isp, "nft", "-f", "-"], input: ruleset)
    if result.status != 0 {
      throw XCTSkip("nft cannot install the port-53 DNAT rule in the ISP namespace: \(result)")
    }
  }

  /// A fifth namespace joined to the router only, by `PREFIXd0/d1`: an
  /// office network behind a VPN tunnel, whose resolver at
  /// `vpnResolverAddress` nobody but the router can reach. Returns its name.
  func addVPN() throws -> String {
    let vpn = "dwlan-\(getpid())-vpn"
    try addNamespace(vpn)
    let link = Self.linkPrefix
    try joinWithVeth(router, "\(link)d0", vpn, "\(link)d1")
    try address(router, "\(link)d0", "\(Self.routerVPNAddress)/24")
    try address(vpn, "\(link)d1", "\(Self.vpnResolverAddress)/24")
    return vpn
  }

  /// Removes the namespaces (their veths go with them) and the /etc folder.
  func tearDown() {
    for namespace in created.reversed() {
      _ = Command.run(["ip", "netns", "del", namespace])
    }
    created = []
    try? FileManager.default.removeItem(at: clientEtc)
  }

  deinit { tearDown() }

  /// Runs `command` (split on spaces) inside `namespace`; throws on failure.
  func inside(_ namespace: String, _ command: String) throws {
    try Command.require(
      ["ip", "netns", "exec", namespace] + command.split(separator: " ").map(String.init))
  }

  /// A veth pair created straight into its two namespaces (never in ours).
  private func joinWithVeth(
    _ left: String, _ leftName: String, _ right: String, _ rightName: String
  ) throws {
    try Command.require([
      "ip", "link", "add", leftName, "netns", left, "type", "veth", "peer", "name", rightName,
      "netns", right,
    ])
    try inside(left, "ip link set \(leftName) up")
    try inside(right, "ip link set \(rightName) up")
  }

  private func address(_ namespace: String, _ interface: String, _ cidr: String) throws {
    try inside(namespace, "ip addr add \(cidr) dev \(interface)")
  }

  /// Runs `body` on a fresh thread that has joined `namespace`, and waits
  /// for it. Sockets created there stay in that namespace after the thread
  /// ends (the network namespace is a per-thread attribute in Linux), so
  /// servers can be set up this way and then served from ordinary threads.
  static func inNamespace<T>(_ namespace: String, _ body: @escaping () throws -> T) throws -> T {
    let outcome = ThreadOutcome<T>()
    let thread = Thread {
      defer { outcome.done.signal() }
      let path = "/var/run/netns/\(namespace)"
      let fd = open(path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else {
        outcome.result = .failure(NamespaceError("open \(path): errno \(errno)"))
        return
      }
      defer { close(fd) }
      guard joinNetworkNamespace(fd) == 0 else {
        outcome.result = .failure(NamespaceError("setns \(namespace): errno \(errno)"))
        return
      }
      outcome.result = Result { try body() }
    }
    thread.start()
    outcome.done.wait()
    return try outcome.result.get()
  }
}

/// What the namespace thread hands back; `done` orders the write before the read.
private final class ThreadOutcome<T>: @unchecked Sendable {
  var result: Result<T, Error> = .failure(NamespaceError("thread did not run"))
  let done = DispatchSemaphore(value: 0)
}

struct NamespaceError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// What the bench needs from the machine; checked once, and every test
/// skips with the list of what is missing.
enum BenchRequirements {
  static let missing: String? = {
    var missing: [String] = []
    if geteuid() != 0 { missing.append("root (network namespaces need CAP_SYS_ADMIN)") }
    for tool in ["ip", "dig", "kdig", "getent"] where Command.path(of: tool) == nil {
      missing.append("the `\(tool)` command")
    }
    if missing.isEmpty {
      let probe = "dwlan-\(getpid())-probe"
      let added = Command.run(["ip", "netns", "add", probe])
      if added.status != 0 {
        missing.append("`ip netns add` (\(added.error.trimmingCharacters(in: .whitespaces)))")
      } else {
        _ = Command.run(["ip", "netns", "del", probe])
      }
    }
    return missing.isEmpty ? nil : missing.joined(separator: ", ")
  }()

  static func check() throws {
    if let missing {
      throw XCTSkip("LAN bench skipped: this machine lacks \(missing)")
    }
  }
}
