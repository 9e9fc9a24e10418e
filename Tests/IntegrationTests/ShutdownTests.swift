import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Stopping under load (issue 8, item 5): SIGTERM with questions waiting at
/// a silent upstream. dnsward must exit within a second, and every client
/// still waiting must get SERVFAIL on the way out, so that its stub resolver
/// moves on to the next DNS server at once instead of after its own timeout
/// (glibc: 5 s).
final class ShutdownTests: XCTestCase {
  /// dnsward forwarding to a silent upstream with a 10 s timeout, which
  /// keeps every question pending until the signal; `config` adds lines.
  func startWithPendingQuestions(_ config: String = "") throws -> (DnswardProcess, FakeUpstream) {
    let upstream = try FakeUpstream(.silent)
    do {
      return (
        try DnswardProcess(forwardingTo: upstream, "timeout 10s\ninflight 64\n" + config), upstream
      )
    } catch {
      upstream.stop()
      throw error
    }
  }

  /// Sends SIGTERM and checks that dnsward exits with status 0 within a
  /// second (3 s under qemu-user, whose own start-up and exit add time).
  func assertExitsWithinASecondOfSIGTERM(
    _ dnsward: DnswardProcess, _ what: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    let signalled = Date()
    kill(dnsward.process.processIdentifier, SIGTERM)
    let status = dnsward.waitForExit(timeout: 5)
    let elapsed = Date().timeIntervalSince(signalled)
    XCTAssertEqual(
      status, 0, "exit status after SIGTERM; log:\n\(dnsward.log)", file: file, line: line)
    let limit: TimeInterval = !DnswardBinary.isEmulated ? 1 : 3
    XCTAssertLessThan(elapsed, limit, what, file: file, line: line)
  }

  func testSIGTERMUnderLoadAnswersEveryPendingClientAndExitsWithinASecond() throws {
    let (dnsward, upstream) = try startWithPendingQuestions()
    defer { upstream.stop() }
    defer { dnsward.stop() }

    let udpCount = 48
    let client = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(client) }
    let address = StubClient.loopback(dnsward.port)
    for index in 0..<udpCount {
      let packet = dnsQuery("q\(index).pending.test", id: UInt16(index))
      StubClient.sendDatagram(packet, from: client, to: address)
    }
    // Two questions pending on one client TCP connection too.
    let connection = try XCTUnwrap(StubClient.TCPConnection(port: dnsward.port))
    for index in 0..<2 {
      let query = dnsQuery("t\(index).pending.test", id: UInt16(1000 + index))
      connection.send(framedMessage(query))
    }

    // Every question has reached the upstream: all of them are in flight.
    let sentDeadline = Date().addingTimeInterval(10)
    while upstream.udpQueries < udpCount + 2 && Date() < sentDeadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    XCTAssertEqual(upstream.udpQueries, udpCount + 2, "questions forwarded before the signal")

    assertExitsWithinASecondOfSIGTERM(dnsward, "seconds from SIGTERM to exit")

    var tv = timeval(tv_sec: 0, tv_usec: 500_000)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var buffer = [UInt8](repeating: 0, count: 4096)
    var answeredIDs = Set<UInt16>()
    while answeredIDs.count < udpCount {
      let count = recv(client, &buffer, buffer.count, 0)
      guard count > 0, let reply = Reply(Array(buffer[0..<count])) else { break }
      XCTAssertEqual(reply.rcode, 2, "reply \(reply.id) is SERVFAIL")
      answeredIDs.insert(reply.id)
    }
    XCTAssertEqual(answeredIDs.count, udpCount, "UDP clients answered before exit")
    for index in 0..<2 {
      let reply = Reply(connection.receive())
      XCTAssertEqual(reply?.rcode, 2, "TCP question \(index) answered SERVFAIL")
    }
  }

  /// With `workers 2` the first process stops the other after its own loop:
  /// the clients waiting in either worker are answered, and the whole group
  /// is gone within the second.
  func testSIGTERMWithWorkersAnswersTheClientsOfBothWorkers() throws {
    let (dnsward, upstream) = try startWithPendingQuestions("workers 2")
    defer { upstream.stop() }
    defer { dnsward.stop() }
    dnsward.waitForLog("workers: 2", seconds: 10)
    // 16 client sockets (the kernel spreads them over the workers by port),
    // two questions each.
    var clients: [Int32] = []
    defer { for fd in clients { close(fd) } }
    let address = StubClient.loopback(dnsward.port)
    for client in 0..<16 {
      let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      clients.append(fd)
      for question in 0..<2 {
        let packet = dnsQuery(
          "w\(client)-\(question).pending.test", id: UInt16(client * 2 + question))
        StubClient.sendDatagram(packet, from: fd, to: address)
      }
    }
    let sentDeadline = Date().addingTimeInterval(10)
    while upstream.udpQueries < 32 && Date() < sentDeadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    XCTAssertEqual(upstream.udpQueries, 32, "questions forwarded before the signal")

    assertExitsWithinASecondOfSIGTERM(dnsward, "seconds from SIGTERM to the group's exit")

    var buffer = [UInt8](repeating: 0, count: 4096)
    for (index, fd) in clients.enumerated() {
      var tv = timeval(tv_sec: 0, tv_usec: 300_000)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
      var ids = Set<UInt16>()
      while ids.count < 2 {
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0, let reply = Reply(Array(buffer[0..<count])) else { break }
        XCTAssertEqual(reply.rcode, 2, "client \(index): SERVFAIL")
        ids.insert(reply.id)
      }
      XCTAssertEqual(ids.count, 2, "client \(index) got both answers")
    }
    Thread.sleep(forTimeInterval: 0.1)
    let marker = "waiting clients before stopping"
    let answeringWorkers = dnsward.log.components(separatedBy: marker).count - 1
    XCTAssertEqual(
      answeringWorkers, 2, "both workers had clients waiting; log:\n\(dnsward.log)")
  }
}
