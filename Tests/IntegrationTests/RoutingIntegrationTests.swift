import Foundation
import TestSupport
import XCTest

/// Domain routing with the real binary on loopback: two fake upstreams, one
/// for a `for-list` of domains (written the dnsmasq way) and a `for` zone,
/// the other for everything else; each must see exactly its own names.
final class RoutingIntegrationTests: XCTestCase {
  func testEachUpstreamSeesOnlyItsOwnNames() throws {
    let domestic = try FakeUpstream(.honest, answer: (192, 0, 2, 10))
    defer { domestic.stop() }
    let trusted = try FakeUpstream(.honest, answer: (192, 0, 2, 20))
    defer { trusted.stop() }
    let list = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-routes-\(UUID().uuidString).conf")
    try """
    # dnsmasq-china-list format, plus a bare name and a bad line
    server=/baidu.example/114.114.114.114
    server=/qq.example/weixin.qq.example/114.114.114.114
    taobao.example
    not a domain
    """.write(to: list, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: list) }
    let dnsward = try DnswardProcess(
      forwardingTo: trusted,
      """
      upstream udp 127.0.0.1:\(domestic.port) for-list \(list.path) for 168.192.in-addr.arpa
      timeout 500ms
      cache 0
      """)
    defer { dnsward.stop() }
    XCTAssertTrue(dnsward.log.contains("\(list.path):5: one domain per line"), dnsward.log)

    let domesticNames = [
      "www.baidu.example", "qq.example", "a.weixin.qq.example", "taobao.example",
    ]
    let trustedNames = ["www.example.com", "baidu.example.com", "example.net"]
    for (index, name) in (domesticNames + trustedNames).enumerated() {
      let reply = dnsward.ask(name, id: UInt16(index + 1))
      XCTAssertEqual(reply?.rcode, 0, name)
      let expected = domesticNames.contains(name) ? "192.0.2.10" : "192.0.2.20"
      XCTAssertEqual(reply?.addresses, [expected], name)
    }
    let ptr = dnsward.ask("5.1.168.192.in-addr.arpa", type: 12)
    XCTAssertNotNil(ptr)
    XCTAssertEqual(domestic.udpQuestions, domesticNames + ["5.1.168.192.in-addr.arpa"])
    XCTAssertEqual(trusted.udpQuestions, trustedNames)
  }

  /// `--check` shows the routes: the domain count of each routed upstream.
  func testCheckShowsTheRoutes() throws {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-routes-\(UUID().uuidString).conf")
    try """
    listen 127.0.0.1:0
    upstream udp 192.0.2.1
    upstream udp 10.8.0.1 for corp.example for vpn.example
    upstream udp 127.0.0.1:5353 for lan
    """.write(to: config, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: config) }
    let run = try DnswardBinary.run(["--check", config.path])
    XCTAssertEqual(run.status, 0, run.errors)
    let output = run.output
    XCTAssertTrue(
      output.contains(
        """
        routes: 3 domains, the other names to the upstreams without 'for'
          udp 10.8.0.1:53: 2 domains
          udp 127.0.0.1:5353: 1 domain

        """), output)
  }
}
