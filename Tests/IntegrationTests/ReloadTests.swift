import Foundation
import TestSupport
import XCTest

/// SIGHUP with the real binary: the config file is read again and put in
/// force between two loop turns; a bad one is refused and the running
/// config stays; questions in flight are asked again of new upstreams;
/// every worker reloads; `resolv-conf` is picked up when the file appears.
final class ReloadTests: XCTestCase {
  func addresses(_ name: String, port: UInt16) -> (rcode: Int, [String])? {
    guard let reply = Reply(StubClient.udp(dnsQuery(name), port: port)) else { return nil }
    return (reply.rcode, reply.addresses)
  }

  /// Rewrites the running process's config file and sends SIGHUP; true once
  /// the process logged the `count`-th line containing `outcome`.
  func reload(
    _ dnsward: DnswardProcess, with config: String, outcome: String = "reloaded ",
    count: Int = 1
  ) throws -> Bool {
    let before = dnsward.log.components(separatedBy: outcome).count - 1
    try config.write(to: dnsward.configURL, atomically: true, encoding: .utf8)
    kill(dnsward.process.processIdentifier, SIGHUP)
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
      if dnsward.log.components(separatedBy: outcome).count - 1 >= before + count { return true }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return false
  }

  func testOverridesChangeTheCacheStaysAndABadConfigIsRefused() throws {
    let upstream = try FakeUpstream(.honest)
    defer { upstream.stop() }
    let config = """
      listen 127.0.0.1:0
      upstream udp 127.0.0.1:\(upstream.port)
      override printer.lan 192.168.1.20
      """
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.20"])
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertEqual(upstream.udpQueries, 1)

    // The port 0 of `listen` would be a new address: it stays as running.
    let changed =
      config.replacingOccurrences(of: "192.168.1.20", with: "192.168.1.21")
      + "\noverride nas.lan 192.168.1.30\ninflight 64\n"
    XCTAssertTrue(try reload(dnsward, with: changed), dnsward.log)
    XCTAssertTrue(dnsward.log.contains(": 2 overrides, 1 upstreams; cache kept"), dnsward.log)
    XCTAssertTrue(
      dnsward.log.contains("reload: inflight changed; it takes effect at the next restart"),
      dnsward.log)
    XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.21"])
    XCTAssertEqual(addresses("nas.lan", port: dnsward.port)?.1, ["192.168.1.30"])
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertEqual(upstream.udpQueries, 1, "the cached answer is kept")

    let broken = changed.replacingOccurrences(of: "inflight 64", with: "inflight lots")
    XCTAssertTrue(try reload(dnsward, with: broken, outcome: "reload refused"), dnsward.log)
    XCTAssertTrue(
      dnsward.log.contains("\(dnsward.configURL.path):5: 'inflight' expects a number, got 'lots'"),
      dnsward.log)
    XCTAssertTrue(dnsward.log.contains("the running config stays"), dnsward.log)
    XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.21"])
    XCTAssertEqual(addresses("nas.lan", port: dnsward.port)?.1, ["192.168.1.30"])
    XCTAssertTrue(dnsward.process.isRunning)

    // Answer screening changed: what the cache holds was screened by the
    // old rules, so it is emptied and the upstream asked again.
    XCTAssertTrue(try reload(dnsward, with: changed + "bogus 203.0.113.0/24\n"), dnsward.log)
    XCTAssertTrue(dnsward.log.contains("; cache emptied"), dnsward.log)
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertEqual(upstream.udpQueries, 2)
  }

  /// A trust anchor, `dnssec-root` or `dnssec` changed: the cache is emptied
  /// (what it holds was not validated under those anchors); the same
  /// anchors again keep it, and a bad anchor file is refused at its line.
  func testDNSSECChangesEmptyTheCache() throws {
    // The trust-anchor directives are refused by a firmware without DNSSEC.
    try DNSSECAvailability.requireValidator()
    let upstream = try FakeUpstream(.honest)
    defer { upstream.stop() }
    let config = """
      listen 127.0.0.1:0
      upstream udp 127.0.0.1:\(upstream.port)
      trust-anchor example. DS 1 8 2 \(String(repeating: "ab", count: 32))

      """
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertTrue(try reload(dnsward, with: config + "log info\n"), dnsward.log)
    XCTAssertTrue(dnsward.log.contains("; cache kept"), dnsward.log)
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertEqual(upstream.udpQueries, 1, "the same anchors: the cached answer is kept")
    let anchorFile = dnsward.configURL.deletingLastPathComponent()
      .appendingPathComponent("anchors-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(at: anchorFile) }
    try "; lab\nexample.net. DS 2 8 1 \(String(repeating: "cd", count: 20))\n"
      .write(to: anchorFile, atomically: true, encoding: .utf8)
    let withFile = config + "trust-anchor-file \(anchorFile.lastPathComponent)\n"
    XCTAssertTrue(try reload(dnsward, with: withFile, outcome: "cache emptied"), dnsward.log)
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertEqual(upstream.udpQueries, 2)
    XCTAssertTrue(
      try reload(dnsward, with: withFile + "dnssec-root off\n", outcome: "cache emptied"),
      dnsward.log)
    XCTAssertEqual(addresses("example.com", port: dnsward.port)?.1, ["192.0.2.1"])
    XCTAssertEqual(upstream.udpQueries, 3)
    try "example.net. DS 2 8 1 abcd\n".write(to: anchorFile, atomically: true, encoding: .utf8)
    XCTAssertTrue(try reload(dnsward, with: withFile, outcome: "reload refused"), dnsward.log)
    XCTAssertTrue(
      dnsward.log.contains(
        "\(anchorFile.path):1: trust anchor: DS digest type 1 takes 20 bytes (40 hex digits), got 2"
      ), dnsward.log)
  }

  /// A question waiting on an upstream that never answers is asked again of
  /// the new upstream at once, instead of failing at its deadline.
  func testNewUpstreamsAnswerTheQuestionsInFlight() throws {
    let silent = try FakeUpstream(.silent)
    defer { silent.stop() }
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 2))
    defer { honest.stop() }
    let config = """
      listen 127.0.0.1:0
      upstream udp 127.0.0.1:\(silent.port)
      timeout 10s
      """
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    let port = dnsward.port
    let answer = LockedAnswer()
    let answered = expectation(description: "answered")
    let started = Date()
    DispatchQueue.global().async {
      answer.set(self.addresses("example.com", port: port)?.1)
      answered.fulfill()
    }
    let deadline = Date().addingTimeInterval(5)
    while silent.udpQueries == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    XCTAssertEqual(silent.udpQueries, 1, "the question is in flight")
    let replaced = config.replacingOccurrences(
      of: "\(silent.port)", with: "\(honest.port)")
    XCTAssertTrue(try reload(dnsward, with: replaced), dnsward.log)
    wait(for: [answered], timeout: 5)
    XCTAssertEqual(answer.value, ["192.0.2.2"])
    XCTAssertLessThan(Date().timeIntervalSince(started), 5, "long before the 10 s deadline")
    XCTAssertTrue(dnsward.log.contains("1 upstreams; cache emptied"), dnsward.log)
    XCTAssertEqual(honest.udpQueries, 1)
  }

  /// A defence whose table was made at start-up can be turned off and on
  /// again; one that was off at start-up has no table and waits for a restart.
  func testDefencesOnAtStartUpTurnOffAndOnAgain() throws {
    let config = """
      listen 127.0.0.1:0
      override printer.lan 192.168.1.20
      hold-on 50ms
      """
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    let off = config.replacingOccurrences(of: "hold-on 50ms", with: "hold-on 0")
    XCTAssertTrue(try reload(dnsward, with: off), dnsward.log)
    XCTAssertTrue(try reload(dnsward, with: config), dnsward.log)
    XCTAssertTrue(try reload(dnsward, with: config + "\nrate-limit 100/s\n"), dnsward.log)
    XCTAssertFalse(dnsward.log.contains("reload: hold-on changed"), dnsward.log)
    XCTAssertTrue(
      dnsward.log.contains("reload: rate-limit changed; it takes effect at the next restart"),
      dnsward.log)
  }

  /// `seccomp on` keeps the calls that read the config file again.
  func testReloadUnderTheSystemCallFilter() throws {
    let config = """
      listen 127.0.0.1:0
      override printer.lan 192.168.1.20
      seccomp on
      """
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    XCTAssertTrue(dnsward.waitForLog("seccomp: "), dnsward.log)
    let changed = config.replacingOccurrences(of: "192.168.1.20", with: "192.168.1.21")
    XCTAssertTrue(try reload(dnsward, with: changed), dnsward.log)
    XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.21"])
  }

  func testEveryWorkerReloads() throws {
    let config = """
      listen 127.0.0.1:0
      override printer.lan 192.168.1.20
      workers 2
      """
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    XCTAssertTrue(dnsward.waitForLog("workers: 2"), dnsward.log)
    let changed = config.replacingOccurrences(of: "192.168.1.20", with: "192.168.1.21")
    XCTAssertTrue(try reload(dnsward, with: changed, count: 2), "both workers: \(dnsward.log)")
    // Each question from a new socket: the kernel spreads them over both.
    for _ in 0..<40 {
      XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.21"])
    }
  }

  /// `resolv-conf` naming a file that is not there yet (the WAN is not up):
  /// dnsward runs on local answers and takes the nameservers once the file
  /// appears, and again when it changes.
  func testResolvConfIsPickedUpWhenItAppears() throws {
    let directory = try makeScratchDirectory("dnsward-reload")
    defer { try? FileManager.default.removeItem(at: directory) }
    let resolvConf = directory.appendingPathComponent("resolv.conf.auto").path
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream resolv-conf \(resolvConf)
        override printer.lan 192.168.1.20
        """)
    defer { dnsward.stop() }
    XCTAssertTrue(dnsward.log.contains("upstreams: none"), dnsward.log)
    XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.20"])
    try "nameserver 192.0.2.53\nnameserver 2001:db8::53\n".write(
      toFile: resolvConf, atomically: true, encoding: .utf8)
    XCTAssertTrue(
      dnsward.waitForLog("resolv-conf \(resolvConf): 2 upstreams in force"), dnsward.log)
    try "nameserver 192.0.2.54\n".write(toFile: resolvConf, atomically: true, encoding: .utf8)
    XCTAssertTrue(
      dnsward.waitForLog("resolv-conf \(resolvConf): 1 upstreams in force"), dnsward.log)
    XCTAssertEqual(addresses("printer.lan", port: dnsward.port)?.1, ["192.168.1.20"])
  }
}

/// The answer a background query got.
final class LockedAnswer: @unchecked Sendable {
  private let lock = NSLock()
  private var addresses: [String]?

  func set(_ value: [String]?) { lock.withLock { addresses = value } }
  var value: [String]? { lock.withLock { addresses } }
}
