import DNSWire
import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `nftset` with the real binary: dnsward, a fake upstream and the client
/// in a network namespace the test creates, with real nftables sets. A
/// question for a listed name fills the sets (`nft list set`) with the
/// answer's addresses, a cached answer refreshes them, another name adds
/// nothing, and the TTL's timeout empties them. dnsward runs as `nobody`
/// (keeping only CAP_NET_ADMIN) under its seccomp filter, as on a router.
/// Root only, with `ip` and `nft`; otherwise the test skips and says why.
final class NftSetIntegrationTests: XCTestCase {
  var namespace = ""

  override func setUpWithError() throws {
    guard getuid() == 0 else {
      throw XCTSkip("needs root: it creates a network namespace and nftables sets")
    }
    guard !DnswardBinary.isEmulated else {
      throw XCTSkip("qemu-user does not pass netlink through")
    }
    namespace = try makeNftablesNamespace(
      "dwnftset", loopbackUp: true,
      ruleset: """
        table inet fw {
          set vpn4 { type ipv4_addr; flags timeout; }
          set vpn6 { type ipv6_addr; flags timeout; }
        }
        """)
  }

  override func tearDown() {
    if !namespace.isEmpty { _ = runCommand(["ip", "netns", "del", namespace]) }
  }

  /// A answers of TTL 3 s for `*.video.example`, AAAA answers for
  /// `six.video.example`, 3600 s for other names.
  static func answer(_ query: [UInt8]) -> [[UInt8]] {
    guard let end = query.withUnsafeBytes({ try? Message(validating: $0).questionEnd }) else {
      return []
    }
    let name = Array(query[12..<(end - 4)])
    let type = UInt16(query[end - 4]) << 8 | UInt16(query[end - 3])
    // dnsward randomizes the case of the question (0x20).
    let listed = String(decoding: name, as: UTF8.self).lowercased().contains("video")
    let ttl: [UInt8] = listed ? [0, 0, 0, 3] : [0, 0, 0x0E, 0x10]
    var reply = DNSAnswer.header(for: query, rcode: 0, answers: 1, truncated: false)
    reply += DNSAnswer.question(query, name: name)
    if type == 28 {
      reply += [0xC0, 0x0C, 0x00, 28, 0x00, 0x01] + ttl + [0x00, 16]
      reply += [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [7]
    } else {
      reply += [0xC0, 0x0C, 0x00, 0x01, 0x00, 0x01] + ttl + [0x00, 0x04]
      reply += listed ? [192, 0, 2, 77] : [198, 51, 100, 5]
    }
    return [reply]
  }

  func testAListedNameFillsTheSetsAndTheTimeoutEmptiesThem() throws {
    // This thread, the sockets it opens and the processes it starts are in
    // the namespace until the body ends.
    try inNetworkNamespace(namespace) {
      let upstream = try FakeUpstream(.custom(Self.answer))
      defer { upstream.stop() }
      let dnsward = try DnswardProcess(
        forwardingTo: upstream,
        """
        nftset inet fw vpn4,vpn6 for video.example
        user nobody
        seccomp on
        timeout 500ms
        """)
      defer { dnsward.stop() }

      let unlisted = dnsward.ask("www.example.com")
      XCTAssertEqual(unlisted?.addresses, ["198.51.100.5"])
      let reply = dnsward.ask("www.video.example", id: 2)
      XCTAssertEqual(reply?.addresses, ["192.0.2.77"], "the answer is not held back")
      let six = dnsward.ask("six.video.example", type: 28, id: 3)
      XCTAssertEqual(six?.rcode, 0)

      // The writer flushes at the end of the loop turn: poll, bounded.
      XCTAssertTrue(waitForSet("vpn4", toContain: "192.0.2.77", seconds: 2), listSet("vpn4"))
      XCTAssertTrue(waitForSet("vpn6", toContain: "2001:db8::7", seconds: 2), listSet("vpn6"))
      XCTAssertFalse(listSet("vpn4").contains("198.51.100.5"), "an unlisted name adds nothing")
      XCTAssertTrue(listSet("vpn4").contains("expires"), "with the answer's TTL as timeout")

      // A cache hit sends the address again (with the remaining TTL).
      let cached = dnsward.ask("www.video.example", id: 4)
      XCTAssertEqual(cached?.addresses, ["192.0.2.77"])

      // The 3 s timeout empties the set (no more questions meanwhile).
      XCTAssertTrue(waitForSet("vpn4", toLose: "192.0.2.77", seconds: 6), listSet("vpn4"))

      let counters = dnsward.counters()
      XCTAssertEqual(counters["nftsetAddresses"], 3, "\(counters)")
      XCTAssertEqual(counters["nftsetElementsSent"], 3, "\(counters)")
      XCTAssertEqual(
        counters["nftsetBatchesFailed"], 0, "CAP_NET_ADMIN kept as nobody: \(counters)")
      XCTAssertFalse(dnsward.log.contains("refused"), dnsward.log)
      XCTAssertTrue(dnsward.log.contains("running as user nobody"), dnsward.log)
    }
  }

  func listSet(_ set: String) -> String { nft("list set inet fw \(set)", in: namespace).output }

  func waitForSet(_ set: String, toContain text: String, seconds: TimeInterval) -> Bool {
    poll(seconds) { self.listSet(set).contains(text) }
  }

  func waitForSet(_ set: String, toLose text: String, seconds: TimeInterval) -> Bool {
    poll(seconds) { !self.listSet(set).contains(text) }
  }

  func poll(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return condition()
  }
}
