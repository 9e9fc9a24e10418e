import Foundation
import TestSupport
import XCTest

/// `upstream httpdns` against a real HTTP server on loopback (issue 7): the
/// three APIs, keep-alive, signatures, and the failures that must send a
/// question on to the next upstream.
final class HTTPDNSIntegrationTests: XCTestCase {
  func config(_ upstreams: [String], extra: String = "") -> String {
    """
    listen 127.0.0.1:0
    \(upstreams.map { "upstream \($0)" }.joined(separator: "\n"))
    timeout 2s
    cache 0
    log debug
    \(extra)
    """
  }

  /// Generous timeouts: on a loaded machine a loopback HTTP exchange can
  /// take long, and these tests are about what is answered, not how fast.

  func testJSONFormatAnswersEveryTypeOverOneKeptAliveConnection() throws {
    let server = try FakeHTTPDNS()
    defer { server.stop() }
    let dnsward = try DnswardProcess(
      config: config(["httpdns 127.0.0.1:\(server.port) format=json"]))
    defer { dnsward.stop() }
    XCTAssertEqual(dnsward.ask("www.example.test", id: 1, timeout: 8)?.addresses, ["192.0.2.1"])
    XCTAssertEqual(
      dnsward.ask("www.example.test", type: 28, id: 1, timeout: 8)?.addresses,
      ["2001:db8:0:0:0:0:0:1"])
    let chain = dnsward.ask("Chain.Example.test", id: 1, timeout: 8)
    XCTAssertEqual(chain?.answerCount, 2, "the CNAME and the address")
    XCTAssertEqual(chain?.addresses, ["192.0.2.1"])
    XCTAssertEqual(dnsward.ask("mail.example.test", type: 15, id: 1, timeout: 8)?.answerCount, 1)
    XCTAssertEqual(dnsward.ask("nx.example.test", id: 1, timeout: 8)?.rcode, 3)
    XCTAssertEqual(server.paths.first, "/resolve?name=www.example.test&type=1")
    XCTAssertEqual(server.connections, 1, "one keep-alive connection: \(server.paths)")
  }

  /// HTTP/1.1 carries one request at a time per connection and dnsward
  /// keeps four per upstream: a burst of twelve different questions to a
  /// slow server waits for a free connection instead of failing over
  /// (there is no other upstream: a failed-over question gets SERVFAIL).
  func testABurstBeyondTheConnectionsWaitsForAFreeOne() throws {
    let server = try FakeHTTPDNS(.slow(milliseconds: 150))
    defer { server.stop() }
    let dnsward = try DnswardProcess(
      config: config(["httpdns 127.0.0.1:\(server.port) format=json"]))
    defer { dnsward.stop() }
    let questions = (0..<12).map {
      dnsQuery("q\($0).burst.example.test", id: UInt16($0 + 1))
    }
    let replies = StubClient.udpBurst(questions, port: dnsward.port, timeout: 8).compactMap {
      Reply($0)
    }
    XCTAssertEqual(replies.count, 12)
    XCTAssertEqual(Set(replies.map(\.id)), Set(1...12))
    for reply in replies {
      XCTAssertEqual(reply.rcode, 0, "question \(reply.id)")
      XCTAssertEqual(reply.addresses, ["192.0.2.1"], "question \(reply.id)")
    }
    XCTAssertLessThanOrEqual(server.connections, 4, "at most four connections")
  }

  func testDnspodAnswersAddressesAndOtherTypesGoToTheNextUpstream() throws {
    let server = try FakeHTTPDNS()
    defer { server.stop() }
    let plain = try FakeUpstream(.honest, answer: (192, 0, 2, 99))
    defer { plain.stop() }
    let dnsward = try DnswardProcess(
      config: config([
        "httpdns 127.0.0.1:\(server.port) format=dnspod", "udp 127.0.0.1:\(plain.port)",
      ]))
    defer { dnsward.stop() }
    XCTAssertEqual(
      dnsward.ask("www.example.test", id: 1, timeout: 8)?.addresses, ["192.0.2.1", "192.0.2.2"],
      dnsward.log)
    XCTAssertEqual(
      dnsward.ask("www.example.test", type: 28, id: 1, timeout: 8)?.addresses,
      ["2001:db8:0:0:0:0:0:1"])
    XCTAssertEqual(plain.udpQueries, 0)
    XCTAssertNotNil(
      dnsward.ask("www.example.test", type: 16, id: 1, timeout: 8), "TXT: from the plain upstream")
    XCTAssertEqual(plain.udpQueries, 1)
    XCTAssertEqual(server.paths.count, 2)
  }

  func testAlibabaSignsRequestsAndAWrongSecretFallsBack() throws {
    let server = try FakeHTTPDNS(secret: "s3cret")
    defer { server.stop() }
    let signed = try DnswardProcess(
      config: config([
        "httpdns 127.0.0.1:\(server.port) format=alibaba account=100000 secret=s3cret"
      ]))
    defer { signed.stop() }
    XCTAssertEqual(
      signed.ask("www.example.test", id: 1, timeout: 8)?.addresses, ["192.0.2.1"], signed.log)
    XCTAssertTrue(server.paths.first?.hasPrefix("/100000/sign_d?host=www.example.test&t=") ?? false)

    let plain = try FakeUpstream(.honest, answer: (192, 0, 2, 99))
    defer { plain.stop() }
    let wrong = try DnswardProcess(
      config: config([
        "httpdns 127.0.0.1:\(server.port) format=alibaba account=100000 secret=wrong",
        "udp 127.0.0.1:\(plain.port)",
      ]))
    defer { wrong.stop() }
    XCTAssertEqual(
      wrong.ask("www.example.test", id: 1, timeout: 8)?.addresses, ["192.0.2.99"],
      "403: next upstream")
    wrong.stop()
    XCTAssertTrue(wrong.waitForLog("httpdns-errors 1"), wrong.log)
  }

  func testGarbageAndSlowAnswersFailOverAndKeepAliveSurvivesAClose() throws {
    let plain = try FakeUpstream(.honest, answer: (192, 0, 2, 99))
    defer { plain.stop() }
    let garbage = try FakeHTTPDNS(.garbage)
    defer { garbage.stop() }
    let slow = try FakeHTTPDNS(.slow(milliseconds: 4000))
    defer { slow.stop() }
    let dnsward = try DnswardProcess(
      config: config([
        "httpdns 127.0.0.1:\(garbage.port)", "httpdns 127.0.0.1:\(slow.port)",
        "udp 127.0.0.1:\(plain.port)",
      ]))
    defer { dnsward.stop() }
    XCTAssertEqual(dnsward.ask("www.example.test", id: 1, timeout: 8)?.addresses, ["192.0.2.99"])
    XCTAssertEqual(garbage.paths.count, 1)
    XCTAssertEqual(slow.paths.count, 1, "asked, then timed out")
    dnsward.stop()
    XCTAssertTrue(dnsward.waitForLog("httpdns-errors 1"), dnsward.log)

    let closing = try FakeHTTPDNS(.closing)
    defer { closing.stop() }
    let again = try DnswardProcess(config: config(["httpdns 127.0.0.1:\(closing.port)"]))
    defer { again.stop() }
    for id in 1...3 {
      XCTAssertEqual(
        again.ask("www.example.test", id: UInt16(id), timeout: 8)?.addresses, ["192.0.2.1"])
    }
    XCTAssertEqual(closing.connections, 3, "Connection: close is honoured")
  }

  func testARequestOnAConnectionTheServerDroppedIsSentAgainOnAFreshOne() throws {
    let server = try FakeHTTPDNS(.hangsUpOnReuse)
    defer { server.stop() }
    let dnsward = try DnswardProcess(config: config(["httpdns 127.0.0.1:\(server.port)"]))
    defer { dnsward.stop() }
    for id in 1...3 {
      XCTAssertEqual(
        dnsward.ask("www.example.test", id: UInt16(id), timeout: 8)?.addresses, ["192.0.2.1"])
    }
    XCTAssertEqual(server.paths.count, 3, "each question answered once")
    XCTAssertGreaterThanOrEqual(server.connections, 2)
    dnsward.stop()
    XCTAssertTrue(
      dnsward.waitForLog("httpdns-errors 0"), "a hang-up is no error: \(dnsward.log)")
  }
}
