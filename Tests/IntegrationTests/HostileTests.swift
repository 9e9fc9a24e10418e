import Foundation
import TestSupport
import XCTest

final class HostileTests: XCTestCase {
  func testMalformedFloodLeavesItServing() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 20))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: "listen 127.0.0.1:0\nupstream udp 127.0.0.1:\(upstream.port)\ntimeout 300ms\n")
    defer { dnsward.stop() }
    var generator = SystemRandomNumberGenerator()
    let valid = dnsQuery("flood.example")
    for index in 0..<3000 {
      var packet: [UInt8]
      switch index % 4 {
      case 0:  // random garbage of random length, often shorter than a header
        packet = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        }
      case 1:  // a valid query with random bytes flipped
        packet = valid
        for _ in 0..<3 {
          packet[Int.random(in: 0..<packet.count, using: &generator)] = UInt8.random(
            in: 0...255, using: &generator)
        }
      case 2:  // a valid query cut short
        packet = Array(valid[0..<Int.random(in: 0..<valid.count, using: &generator)])
      default:  // a response sent to the listener
        packet = valid
        packet[2] |= 0x80
      }
      StubClient.fire(packet, port: dnsward.port)
    }
    // The flood can fill the listener's receive buffer faster than a slow
    // machine (qemu) drains it, so the kernel may drop this question as it
    // drops flood packets. A stub resolver asks again after a timeout; so does
    // this one, and a process that stopped serving still fails every try.
    var reply: Reply?
    for _ in 0..<4 where reply == nil {
      reply = dnsward.ask("after-flood.example", id: 77)
    }
    XCTAssertEqual(reply?.id, 77)
    XCTAssertEqual(reply?.addresses, ["192.0.2.20"])
    XCTAssertTrue(dnsward.process.isRunning)
  }

  func testFormErrAndNotImp() throws {
    let dnsward = try DnswardProcess(config: "listen 127.0.0.1:0\n")
    defer { dnsward.stop() }
    var cut = dnsQuery("formerr.example", id: 0x4242)
    cut.removeLast(3)
    let formErr = Reply(StubClient.udp(cut, port: dnsward.port))
    XCTAssertEqual(formErr?.id, 0x4242)
    XCTAssertEqual(formErr?.rcode, 1)
    var status = dnsQuery("status.example", id: 0x4343)
    status[2] = 2 << 3  // opcode STATUS
    let notImp = Reply(StubClient.udp(status, port: dnsward.port))
    XCTAssertEqual(notImp?.id, 0x4343)
    XCTAssertEqual(notImp?.rcode, 4)
  }

  func testClientsOutsideAllowAreRefused() throws {
    let dnsward = try DnswardProcess(
      config: "listen 127.0.0.1:0\nallow 10.0.0.0/8\noverride printer.lan 192.168.1.20\n")
    defer { dnsward.stop() }
    let reply = dnsward.ask("printer.lan")
    XCTAssertEqual(reply?.rcode, 5)
    XCTAssertEqual(reply?.answerCount, 0)
  }

  func testStopsCleanlyOnSIGTERM() throws {
    let dnsward = try DnswardProcess(config: "listen 127.0.0.1:0\n")
    kill(dnsward.process.processIdentifier, SIGTERM)
    XCTAssertEqual(dnsward.waitForExit(timeout: 3), 0)
    XCTAssertTrue(dnsward.waitForLog("stopping on signal"), dnsward.log)
  }

  func testBadConfigIsRejectedWithFileAndLine() throws {
    let checker = try DnswardProcess(
      config: "listen 127.0.0.1:0\ninflight 1000\n", arguments: nil, waitForListen: false)
    XCTAssertEqual(checker.waitForExit(timeout: 5), 1)
    XCTAssertTrue(checker.waitForLog(":2:"), "log: \(checker.log)")
    checker.stop()
  }

  func testPortInUseIsAClearError() throws {
    let first = try DnswardProcess(config: "listen 127.0.0.1:0\n")
    defer { first.stop() }
    let second = try DnswardProcess(
      config: "listen 127.0.0.1:\(first.port)\n", waitForListen: false)
    XCTAssertEqual(second.waitForExit(timeout: 5), 1)
    XCTAssertTrue(second.waitForLog("cannot listen on 127.0.0.1:\(first.port)"), second.log)
  }
}

/// The README's promise: `swift run dnsward` starts on the compiled-in
/// default config and answers its overrides with no network at all. Only
/// local answers are asked for, so nothing is sent to resolv.conf's servers.
final class DefaultConfigTests: XCTestCase {
  func testCompiledDefaultConfigAnswersItsOverrides() throws {
    let dnsward = try DnswardProcess(config: "", arguments: [])
    defer { dnsward.stop() }
    guard dnsward.port == 8053 else {
      throw XCTSkip("default listener is not 127.0.0.1:8053; log:\n\(dnsward.log)")
    }
    let reply = Reply(StubClient.udp(dnsQuery("dnsward.test", id: 11), port: 8053))
    XCTAssertEqual(reply?.id, 11)
    XCTAssertEqual(reply?.addresses, ["127.0.0.53"])
    let blocked = Reply(StubClient.udp(dnsQuery("ads.example"), port: 8053))
    XCTAssertEqual(blocked?.rcode, 3)
  }
}
