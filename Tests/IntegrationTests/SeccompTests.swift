import Foundation
import TestSupport
import XCTest

/// `seccomp on` (issue 8, item 5): the filtered process still does
/// everything the loop does — UDP and TCP clients, UDP and TCP upstreams,
/// the cache, the counters on SIGUSR1, the cache file at exit — and exits
/// cleanly. (What the filter refuses is checked in PlatformTests.) Under a
/// qemu-user runner the filter is refused, which must be a warning only.
final class SeccompTests: XCTestCase {
  private var underEmulation: Bool { DnswardBinary.isEmulated }

  func testFilteredDnswardForwardsCachesAndSavesItsCacheFile() throws {
    let udpUpstream = try FakeUpstream(.honest, answer: (192, 0, 2, 44))
    let tcpUpstream = try FakeUpstream(.honest, answer: (192, 0, 2, 45))
    defer { [udpUpstream, tcpUpstream].forEach { $0.stop() } }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-seccomp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cacheFile = folder.appendingPathComponent("cache")
    let dnsward = try DnswardProcess(
      forwardingTo: udpUpstream,
      """
      override printer.lan 192.168.1.20
      verify bank.example
      upstream tcp 127.0.0.1:\(tcpUpstream.port) trusted
      cache-file \(cacheFile.path)
      stale 1d
      seccomp on
      """)
    defer { dnsward.stop() }

    // The filter goes on after "listening on", just before the loop.
    if underEmulation {
      XCTAssertTrue(dnsward.waitForLog("seccomp: the kernel refused"), dnsward.log)
    } else {
      XCTAssertTrue(dnsward.waitForLog("seccomp: system-call filter installed"), dnsward.log)
      let status = try String(
        contentsOfFile: "/proc/\(dnsward.process.processIdentifier)/status", encoding: .utf8)
      XCTAssertTrue(status.contains("Seccomp:\t2"), "filter mode in /proc: \(status)")
    }

    let port = dnsward.port
    XCTAssertEqual(
      Reply(StubClient.udp(dnsQuery("printer.lan"), port: port))?.addresses,
      ["192.168.1.20"])
    // Forwarded over UDP (a ring socket connected while filtered), then a hit.
    for _ in 0..<2 {
      XCTAssertEqual(
        Reply(StubClient.udp(dnsQuery("www.example"), port: port))?.addresses,
        ["192.0.2.44"])
    }
    XCTAssertEqual(udpUpstream.udpQueries, 1)
    // A verify name goes to the trusted TCP upstream: a TCP socket opened
    // while filtered; asked by a TCP client.
    XCTAssertEqual(
      Reply(StubClient.tcp([dnsQuery("bank.example")], port: port).first)?.addresses,
      ["192.0.2.45"])
    XCTAssertGreaterThan(tcpUpstream.tcpQueries, 0)

    kill(dnsward.process.processIdentifier, SIGUSR1)
    XCTAssertTrue(dnsward.waitForLog("cache-hits 1"), dnsward.log)

    let stopping = Date()
    dnsward.process.terminate()
    XCTAssertEqual(dnsward.waitForExit(timeout: 5), 0, dnsward.log)
    XCTAssertLessThan(Date().timeIntervalSince(stopping), underEmulation ? 5 : 1)
    let saved = try Data(contentsOf: cacheFile)
    XCTAssertGreaterThan(saved.count, 0)
    XCTAssertTrue(dnsward.waitForLog("saved 2 cached answers"), dnsward.log)
  }
}
