import Foundation
import TestSupport
import XCTest

/// The real binary on loopback against fake upstreams.
final class ForwardingTests: XCTestCase {
  func config(upstreams: [String], extra: String = "") -> String {
    """
    listen 127.0.0.1:0
    \(upstreams.map { "upstream \($0)" }.joined(separator: "\n"))
    timeout 300ms
    override printer.lan 192.168.1.20 fd00::20
    override *.dev.lan 192.168.1.30
    block ads.example
    \(extra)
    """
  }

  func testOverridesAndBlocksAreAnsweredWithoutUpstream() throws {
    let dnsward = try DnswardProcess(config: config(upstreams: []))
    defer { dnsward.stop() }
    let a = dnsward.ask("Printer.LAN", id: 7)
    XCTAssertEqual(a?.id, 7)
    XCTAssertEqual(a?.addresses, ["192.168.1.20"])
    let aaaa = dnsward.ask("printer.lan", type: 28)
    XCTAssertEqual(aaaa?.addresses, ["fd00:0:0:0:0:0:0:20"])
    let wildcard = dnsward.ask("a.b.dev.lan")
    XCTAssertEqual(wildcard?.addresses, ["192.168.1.30"])
    let blocked = dnsward.ask("x.ads.example")
    XCTAssertEqual(blocked?.rcode, 3)
    // No upstream: forwarded names fail fast instead of hanging.
    let forwarded = dnsward.ask("www.example")
    XCTAssertEqual(forwarded?.rcode, 2)
  }

  func testForwardsOverUDPAndTCP() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 80))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(config: config(upstreams: ["udp 127.0.0.1:\(upstream.port)"]))
    defer { dnsward.stop() }
    let reply = dnsward.ask("WwW.Example.COM", id: 99)
    XCTAssertEqual(reply?.id, 99)
    XCTAssertEqual(reply?.addresses, ["192.0.2.80"])
    // The client's question case comes back exactly.
    XCTAssertEqual(
      Array(reply?.bytes[12..<29] ?? []), Array(dnsQuery("WwW.Example.COM")[12..<29]))
    let nx = dnsward.ask("nxdomain.example")
    XCTAssertEqual(nx?.rcode, 3)
    let chain = dnsward.ask("chain.example")
    XCTAssertEqual(chain?.answerCount, 2)
    XCTAssertEqual(chain?.addresses, ["192.0.2.80"])
    XCTAssertEqual(chain?.isValid, true)
    let overTCP = StubClient.tcp(
      [dnsQuery("one.example", id: 1), dnsQuery("printer.lan", id: 2)],
      port: dnsward.port)
    XCTAssertEqual(overTCP.count, 2)
    let byID = Dictionary(
      uniqueKeysWithValues: overTCP.compactMap { Reply($0) }.map { ($0.id, $0) })
    XCTAssertEqual(byID[1]?.addresses, ["192.0.2.80"])
    XCTAssertEqual(byID[2]?.addresses, ["192.168.1.20"])
  }

  func testTCPUpstream() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 81))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(config: config(upstreams: ["tcp 127.0.0.1:\(upstream.port)"]))
    defer { dnsward.stop() }
    for index in 0..<5 {
      let reply = dnsward.ask("n\(index).example")
      XCTAssertEqual(reply?.addresses, ["192.0.2.81"])
    }
    XCTAssertEqual(upstream.udpQueries, 0)
    XCTAssertGreaterThanOrEqual(upstream.tcpQueries, 5)
  }

  func testSlowAndSilentUpstreamsFailOver() throws {
    let silent = try FakeUpstream(.silent)
    let slow = try FakeUpstream(.slow(milliseconds: 1000))
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 7))
    defer { [silent, slow, honest].forEach { $0.stop() } }
    let dnsward = try DnswardProcess(
      config: config(upstreams: [
        "udp 127.0.0.1:\(silent.port)", "udp 127.0.0.1:\(slow.port)",
        "udp 127.0.0.1:\(honest.port)",
      ]))
    defer { dnsward.stop() }
    let started = Date()
    let reply = dnsward.ask("failover.example")
    XCTAssertEqual(reply?.addresses, ["192.0.2.7"])
    XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
    XCTAssertEqual(silent.udpQueries, 1)
    XCTAssertEqual(slow.udpQueries, 1)
  }

  func testAllUpstreamsSilentGivesServFail() throws {
    let silent = try FakeUpstream(.silent)
    defer { silent.stop() }
    let dnsward = try DnswardProcess(config: config(upstreams: ["udp 127.0.0.1:\(silent.port)"]))
    defer { dnsward.stop() }
    let reply = dnsward.ask("nothing.example", id: 5)
    XCTAssertEqual(reply?.id, 5)
    XCTAssertEqual(reply?.rcode, 2)
  }

  func testForgedAndMismatchedAnswersAreIgnored() throws {
    let forging = try FakeUpstream(.forgedFirst, answer: (192, 0, 2, 9))
    defer { forging.stop() }
    let dnsward = try DnswardProcess(config: config(upstreams: ["udp 127.0.0.1:\(forging.port)"]))
    defer { dnsward.stop() }
    for index in 0..<5 {
      let reply = dnsward.ask("f\(index).example")
      XCTAssertEqual(reply?.addresses, ["192.0.2.9"], "the forged 203.0.113.66 must never win")
    }
  }

  func testWrongIDAndWrongQuestionFallThroughToHonestUpstream() throws {
    let wrongID = try FakeUpstream(.wrongID, answer: (203, 0, 113, 1))
    let wrongQuestion = try FakeUpstream(.wrongQuestion, answer: (203, 0, 113, 2))
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 10))
    defer { [wrongID, wrongQuestion, honest].forEach { $0.stop() } }
    let dnsward = try DnswardProcess(
      config: config(upstreams: [
        "udp 127.0.0.1:\(wrongID.port)", "udp 127.0.0.1:\(wrongQuestion.port)",
        "udp 127.0.0.1:\(honest.port)",
      ]))
    defer { dnsward.stop() }
    let reply = dnsward.ask("mismatch.example")
    XCTAssertEqual(reply?.addresses, ["192.0.2.10"])
  }

  func testTruncatedUDPAnswerIsRetriedOverTCP() throws {
    let truncating = try FakeUpstream(.truncating, answer: (192, 0, 2, 11))
    defer { truncating.stop() }
    let dnsward = try DnswardProcess(
      config: config(upstreams: ["udp 127.0.0.1:\(truncating.port)"]))
    defer { dnsward.stop() }
    let reply = dnsward.ask("tc.example")
    XCTAssertEqual(reply?.addresses, ["192.0.2.11"])
    XCTAssertEqual(reply?.truncated, false)
    XCTAssertEqual(truncating.tcpQueries, 1)
  }

  func testLargeAnswerIsTruncatedForSmallUDPClientsOnly() throws {
    let upstream = try FakeUpstream(.honest)
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(config: config(upstreams: ["tcp 127.0.0.1:\(upstream.port)"]))
    defer { dnsward.stop() }
    // 60 A records: 12 + 17 + 60 * 16 = 989 octets, over 512.
    let small = dnsward.ask("big.example")
    XCTAssertEqual(small?.truncated, true)
    XCTAssertEqual(small?.answerCount, 0)
    let edns = dnsward.ask("big.example", edns: 1232)
    XCTAssertEqual(edns?.truncated, false)
    XCTAssertEqual(edns?.addresses.count, 60)
    let tcp = StubClient.tcp([dnsQuery("big.example")], port: dnsward.port)
    XCTAssertEqual(Reply(tcp.first)?.addresses.count, 60)
  }

  func testUpstreamThatIgnoresCaseStillAnswers() throws {
    let caseless = try FakeUpstream(.caseless, answer: (192, 0, 2, 12))
    defer { caseless.stop() }
    let dnsward = try DnswardProcess(config: config(upstreams: ["udp 127.0.0.1:\(caseless.port)"]))
    defer { dnsward.stop() }
    for index in 0..<4 {
      let reply = dnsward.ask("casetest-\(index).example")
      XCTAssertEqual(reply?.addresses, ["192.0.2.12"])
    }
  }

  func testServFailFromFirstUpstreamTriesTheNext() throws {
    let failing = try FakeUpstream(.servFail)
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 13))
    defer { [failing, honest].forEach { $0.stop() } }
    let dnsward = try DnswardProcess(
      config: config(upstreams: ["udp 127.0.0.1:\(failing.port)", "udp 127.0.0.1:\(honest.port)"]))
    defer { dnsward.stop() }
    let reply = dnsward.ask("sf.example")
    XCTAssertEqual(reply?.addresses, ["192.0.2.13"])
  }
}
