import Foundation
import TestSupport
import XCTest

/// `hosts`, `leases` and `domain` with the real binary: the files are read
/// at start-up, a lease appended while dnsward runs resolves within a few
/// seconds and a removed one stops, without a restart; a bad line and a
/// missing file are logged with `file:line` and the rest is answered.
final class LocalNamesIntegrationTests: ScratchDirectoryTestCase {
  override class var scratchPrefix: String { "dnsward-localnames" }

  var hostsPath: String { directory.appendingPathComponent("hosts").path }
  var leasesPath: String { directory.appendingPathComponent("dhcp.leases").path }
  var missingPath: String { directory.appendingPathComponent("missing").path }

  func write(_ text: String, to path: String) throws {
    try text.write(toFile: path, atomically: false, encoding: .utf8)
  }

  func append(_ text: String, to path: String) throws {
    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
  }

  func lease(_ name: String, _ address: String, expiresIn seconds: Int = 3600) -> String {
    let expiry = Int(Date().timeIntervalSince1970) + seconds
    return "\(expiry) aa:bb:cc:dd:ee:\(address.suffix(2)) \(address) \(name) *\n"
  }

  func addresses(_ name: String, port: UInt16, type: UInt16 = 1) -> (rcode: Int, [String])? {
    guard let reply = Reply(StubClient.udp(dnsQuery(name, type: type), port: port)) else {
      return nil
    }
    return (reply.rcode, reply.addresses)
  }

  /// Asks until `name` gives `expected` (rcode and addresses) or `seconds`
  /// pass; returns how long it took, nil if it never did.
  func waitForAnswer(
    _ name: String, rcode: Int, _ expected: [String], port: UInt16, seconds: TimeInterval = 6
  ) -> TimeInterval? {
    let start = Date()
    while Date().timeIntervalSince(start) < seconds {
      if let answer = addresses(name, port: port), answer.rcode == rcode, answer.1 == expected {
        return Date().timeIntervalSince(start)
      }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return nil
  }

  func testLeasesAppendedAndRemovedWhileRunning() throws {
    try write("192.168.1.10 nas.lan nas\nfd00::10 nas\nnot-an-address x\n", to: hostsPath)
    try write(lease("laptop", "192.168.1.50"), to: leasesPath)
    let silent = try FakeUpstream(.silent)
    defer { silent.stop() }
    let dnsward = try DnswardProcess(
      forwardingTo: silent,
      """
      timeout 200ms
      hosts \(hostsPath)
      leases \(leasesPath)
      hosts \(missingPath)
      domain lan
      """)
    defer { dnsward.stop() }
    let port = dnsward.port
    XCTAssertTrue(dnsward.log.contains("\(hostsPath):3: not an IPv4 or IPv6 address"), dnsward.log)
    XCTAssertTrue(dnsward.log.contains("cannot read \(missingPath): No such file"), dnsward.log)
    XCTAssertEqual(addresses("laptop.lan", port: port)?.1, ["192.168.1.50"])
    XCTAssertEqual(addresses("nas.lan", port: port, type: 28)?.1, ["fd00:0:0:0:0:0:0:10"])
    XCTAssertEqual(addresses("phone.lan", port: port)?.rcode, 3, "unknown in the domain")

    // Appended, as a DHCP server does for a new lease.
    try append(lease("phone", "192.168.1.51"), to: leasesPath)
    let appeared = waitForAnswer("phone.lan", rcode: 0, ["192.168.1.51"], port: port)
    XCTAssertNotNil(appeared, "an appended lease resolves without a restart")
    XCTAssertLessThan(appeared ?? 99, 4, "within a few seconds")
    XCTAssertEqual(addresses("laptop.lan", port: port)?.1, ["192.168.1.50"], "the rest stays")

    // Rewritten without the laptop's lease (it was released).
    try write(lease("phone", "192.168.1.51"), to: leasesPath)
    let removed = waitForAnswer("laptop.lan", rcode: 3, [], port: port)
    XCTAssertNotNil(removed, "a removed lease stops resolving")
    XCTAssertEqual(addresses("phone.lan", port: port)?.1, ["192.168.1.51"])

    // The missing hosts file appears.
    try write("192.168.1.70 printer\n", to: missingPath)
    XCTAssertNotNil(waitForAnswer("printer.lan", rcode: 0, ["192.168.1.70"], port: port))
    XCTAssertEqual(silent.udpQueries, 0, "no local name was asked upstream")
    XCTAssertEqual(
      dnsward.log.components(separatedBy: "\(hostsPath):3:").count, 2,
      "a bad line is logged once, not at every reload")
  }

  /// Under `seccomp on` the files are still polled and read again.
  func testLeasesAreReloadedUnderTheSystemCallFilter() throws {
    try write(lease("laptop", "192.168.1.50"), to: leasesPath)
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        leases \(leasesPath)
        domain lan
        seccomp on
        """)
    defer { dnsward.stop() }
    XCTAssertTrue(dnsward.waitForLog("seccomp: "), dnsward.log)
    XCTAssertEqual(addresses("laptop.lan", port: dnsward.port)?.1, ["192.168.1.50"])
    try append(lease("phone", "192.168.1.51"), to: leasesPath)
    XCTAssertNotNil(
      waitForAnswer("phone.lan", rcode: 0, ["192.168.1.51"], port: dnsward.port), dnsward.log)
    XCTAssertFalse(dnsward.log.contains("cannot read"), dnsward.log)
  }
}
