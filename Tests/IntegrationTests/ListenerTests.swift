import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Listeners, client TCP connections, privileges and the config compiler,
/// with the real binaries.
final class ListenerTests: XCTestCase {
  func testIPv6ListenerAnswersOverUDPAndTCP() throws {
    let probe = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
    var loopback = StubClient.loopback6(0)
    let bound = withUnsafePointer(to: &loopback) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
      }
    }
    close(probe)
    guard bound == 0 else { throw XCTSkip("no IPv6 loopback on this machine") }
    let dnsward = try DnswardProcess(
      config: "listen 127.0.0.1:0\nlisten [::1]:0\noverride printer.lan 192.168.1.20\n")
    defer { dnsward.stop() }
    let port = try XCTUnwrap(DnswardProcess.port(after: "[::1]:", in: dnsward.log))
    let reply = Reply(StubClient.udp6(dnsQuery("printer.lan", id: 61), port: port))
    XCTAssertEqual(reply?.id, 61)
    XCTAssertEqual(reply?.addresses, ["192.168.1.20"])
    let overTCP = StubClient.tcp([dnsQuery("printer.lan", id: 62)], port: port, ipv6: true)
    XCTAssertEqual(Reply(overTCP.first)?.addresses, ["192.168.1.20"])
  }

  func testTCPConnectionCapAndIdleTimeout() throws {
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        override printer.lan 192.168.1.20
        tcp-clients 2
        tcp-idle 1s
        """)
    defer { dnsward.stop() }
    let first = try XCTUnwrap(StubClient.TCPConnection(port: dnsward.port))
    let second = try XCTUnwrap(StubClient.TCPConnection(port: dnsward.port))
    XCTAssertEqual(Reply(first.ask(dnsQuery("printer.lan", id: 1)))?.id, 1)
    XCTAssertEqual(Reply(second.ask(dnsQuery("printer.lan", id: 2)))?.id, 2)
    // Both slots are taken: a third connection is accepted and closed at once.
    let third = try XCTUnwrap(StubClient.TCPConnection(port: dnsward.port))
    XCTAssertNil(third.ask(dnsQuery("printer.lan", id: 3)))
    // Idle connections are closed after tcp-idle (checked once a second).
    Thread.sleep(forTimeInterval: 2.5)
    XCTAssertNil(first.ask(dnsQuery("printer.lan", id: 4)))
    let fresh = try XCTUnwrap(StubClient.TCPConnection(port: dnsward.port))
    XCTAssertEqual(Reply(fresh.ask(dnsQuery("printer.lan", id: 5)))?.id, 5)
  }

  /// Run as root (CI is): after binding, dnsward runs as `nobody` and still
  /// opens upstream sockets and answers.
  func testDropsPrivilegesAfterBinding() throws {
    guard getuid() == 0 else { throw XCTSkip("needs root to switch users") }
    guard getpwnam("nobody") != nil else { throw XCTSkip("no user 'nobody' here") }
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 44))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream udp 127.0.0.1:\(upstream.port)
        user nobody
        """)
    defer { dnsward.stop() }
    let status = try String(
      contentsOfFile: "/proc/\(dnsward.process.processIdentifier)/status", encoding: .utf8)
    let uids = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?
      .split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().map(String.init)
    let nobody = String(getpwnam("nobody").pointee.pw_uid)
    XCTAssertEqual(uids, [nobody, nobody, nobody, nobody])
    let reply = Reply(StubClient.udp(dnsQuery("after-drop.example"), port: dnsward.port))
    XCTAssertEqual(reply?.addresses, ["192.0.2.44"])
  }

  /// A bad line in a config compiled into the binary fails the build with
  /// the parser's `file:line: error: message`, from dnsward-confgen.
  func testConfigCompilerFailsOnABadLineWithItsLocation() throws {
    let binary = try DnswardBinary.built("dnsward-confgen")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "confgen-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let config = directory.appendingPathComponent("dnsward.conf")
    let output = directory.appendingPathComponent("out.swift")

    func run() throws -> (status: Int32, errors: String) {
      let result = try runProcess(binary, [config.path, output.path])
      return (result.status, result.error)
    }

    try "listen 127.0.0.1:53\noverride printer.lan 192.168.1.999\n".write(
      to: config, atomically: true, encoding: .utf8)
    let bad = try run()
    XCTAssertEqual(bad.status, 1)
    XCTAssertTrue(bad.errors.contains("\(config.path):2: error: "), bad.errors)
    XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))

    try "listen 127.0.0.1:53\noverride printer.lan 192.168.1.99\n".write(
      to: config, atomically: true, encoding: .utf8)
    let good = try run()
    XCTAssertEqual(good.status, 0, good.errors)
    let source = try String(contentsOf: output, encoding: .utf8)
    XCTAssertTrue(source.hasPrefix("// Generated by dnsward-confgen"))
    XCTAssertTrue(source.contains("public func compiledSettings() -> Settings"))
  }
}
