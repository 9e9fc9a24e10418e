import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Upstreams that fail while dnsward runs (issue 8, item 4): one that goes
/// silent, one whose TCP connections are reset, ones that answer garbage or
/// the wrong ID, one that answers after the deadline, and one that flaps up
/// and down. Answers keep coming from the other upstreams and the stale
/// cache, a dead upstream is noticed and skipped, its return is noticed, and
/// no socket is left behind. (ForwardingTests covers single questions to a
/// slow, silent, wrong-ID or SERVFAIL upstream, CacheIntegrationTests one
/// outage answered from the stale cache.)
final class UpstreamFaultTests: XCTestCase {
  static let down = "is down after repeated failures"
  static let recovered = "answers again"

  func config(_ upstreams: [String], timeout: String = "400ms", extra: String = "") -> String {
    """
    listen 127.0.0.1:0
    \(upstreams.map { "upstream \($0)" }.joined(separator: "\n"))
    timeout \(timeout)
    inflight 16
    \(extra)
    """
  }

  /// Waits until `condition` holds (log lines are written asynchronously).
  func eventually(_ timeout: TimeInterval = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    return condition()
  }

  func occurrences(of text: String, in log: String) -> Int {
    log.components(separatedBy: text).count - 1
  }

  func testUpstreamGoingSilentMidRunIsSkippedWhileTheNextAnswers() throws {
    let first = try FakeUpstream(.honest, answer: (192, 0, 2, 1))
    let second = try FakeUpstream(.honest, answer: (192, 0, 2, 2))
    defer { [first, second].forEach { $0.stop() } }
    let dnsward = try DnswardProcess(
      config: config(["udp 127.0.0.1:\(first.port)", "udp 127.0.0.1:\(second.port)"]))
    defer { dnsward.stop() }
    let descriptors = try XCTUnwrap(dnsward.openDescriptors)
    for index in 0..<3 {
      XCTAssertEqual(
        dnsward.ask("before-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.1"])
    }

    first.behaviour = .silent
    // Three misses of the deadline: each answered by the second upstream.
    for index in 0..<3 {
      XCTAssertEqual(
        dnsward.ask("during-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.2"])
    }
    XCTAssertTrue(eventually { dnsward.log.contains(Self.down) }, dnsward.log)
    // From now on the silent one is skipped: the next upstream at once.
    let askedBefore = first.udpQueries
    for index in 0..<5 {
      let started = Date()
      XCTAssertEqual(
        dnsward.ask("after-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.2"])
      if !DnswardBinary.isExternal {
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.3, "no deadline waited for")
      }
    }
    XCTAssertEqual(first.udpQueries, askedBefore, "the silent upstream is not asked")
    // What the first one said before it went quiet is still in the cache.
    for index in 0..<3 {
      XCTAssertEqual(
        dnsward.ask("before-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.1"])
    }
    let counters = dnsward.counters()
    XCTAssertEqual(counters["upstream0.timeouts"], 3)
    XCTAssertEqual(counters["upstream1.answers"], 8)
    assertNoDescriptorLeft(dnsward, startedWith: descriptors, fill: second)
  }

  /// `upstream tcp` then `upstream udp` on one server whose TCP side resets
  /// every connection: answers come over UDP, the resets are noticed, and
  /// no connection is kept.
  func testResetTCPConnectionsFallBackToUDP() throws {
    let server = try FakeUpstream(.resetting, answer: (192, 0, 2, 3))
    defer { server.stop() }
    let dnsward = try DnswardProcess(
      config: config(["tcp 127.0.0.1:\(server.port)", "udp 127.0.0.1:\(server.port)"]))
    defer { dnsward.stop() }
    let descriptors = try XCTUnwrap(dnsward.openDescriptors)
    for index in 0..<8 {
      XCTAssertEqual(
        dnsward.ask("reset-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.3"])
    }
    // Eight at once as well: the resets fail over every question pipelined.
    let burst = StubClient.udpBurst(
      (0..<8).map { dnsQuery("reset-burst-\($0).example", id: UInt16($0)) },
      port: dnsward.port, timeout: 5)
    XCTAssertEqual(burst.count, 8)
    XCTAssertTrue(burst.allSatisfy { Reply($0)?.addresses == ["192.0.2.3"] })
    XCTAssertGreaterThanOrEqual(server.tcpQueries, 3, "TCP was tried until it was marked down")
    XCTAssertTrue(eventually { dnsward.log.contains(Self.down) }, dnsward.log)
    XCTAssertGreaterThanOrEqual(dnsward.counters()["upstream0.failures"] ?? 0, 3)
    assertNoDescriptorLeft(dnsward, startedWith: descriptors, fill: server)
  }

  /// Garbage over UDP and TCP (the query's ID, then random bytes) and
  /// answers with the wrong ID: counted and dropped, the honest upstream
  /// answers, dnsward keeps running.
  func testGarbageAndWrongIDAnswersFallThroughToTheHonestUpstream() throws {
    let garbage = try FakeUpstream(.garbage)
    let wrongID = try FakeUpstream(.wrongID, answer: (203, 0, 113, 7))
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 4))
    defer { [garbage, wrongID, honest].forEach { $0.stop() } }
    let dnsward = try DnswardProcess(
      config: config(
        [
          "udp 127.0.0.1:\(garbage.port)", "tcp 127.0.0.1:\(garbage.port)",
          "udp 127.0.0.1:\(wrongID.port)", "udp 127.0.0.1:\(honest.port)",
        ], timeout: "300ms"))
    defer { dnsward.stop() }
    let descriptors = try XCTUnwrap(dnsward.openDescriptors)
    // Three at once: every liar misses three deadlines and is marked down.
    let first = StubClient.udpBurst(
      (0..<3).map { dnsQuery("garbage-\($0).example", id: UInt16($0)) },
      port: dnsward.port, timeout: 5)
    XCTAssertEqual(first.count, 3)
    XCTAssertTrue(first.allSatisfy { Reply($0)?.addresses == ["192.0.2.4"] }, "\(first)")
    for index in 3..<10 {
      XCTAssertEqual(
        dnsward.ask("garbage-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.4"])
    }
    XCTAssertTrue(
      eventually { occurrences(of: Self.down, in: dnsward.log) == 3 }, dnsward.log)
    let counters = dnsward.counters()
    XCTAssertGreaterThan(
      (counters["malformedReplies"] ?? 0) + (counters["mismatchedID"] ?? 0), 0, "\(counters)")
    XCTAssertEqual(counters["upstream3.answers"], 10)
    XCTAssertTrue(dnsward.process.isRunning)
    assertNoDescriptorLeft(dnsward, startedWith: descriptors, fill: honest)
  }

  /// An answer that arrives after the deadline, when the next upstream has
  /// answered, is not relayed and does not replace the cached answer.
  func testAnswerAfterTheDeadlineIsNotUsed() throws {
    let late = try FakeUpstream(.slow(milliseconds: 700), answer: (203, 0, 113, 8))
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 5))
    defer { [late, honest].forEach { $0.stop() } }
    let dnsward = try DnswardProcess(
      config: config(
        ["udp 127.0.0.1:\(late.port)", "udp 127.0.0.1:\(honest.port)"], timeout: "300ms"))
    defer { dnsward.stop() }
    let replies = StubClient.udpBurst(
      (0..<4).map { dnsQuery("late-\($0).example", id: UInt16($0)) }, port: dnsward.port,
      timeout: 5)
    XCTAssertEqual(replies.count, 4)
    XCTAssertTrue(replies.allSatisfy { Reply($0)?.addresses == ["192.0.2.5"] }, "\(replies)")
    Thread.sleep(forTimeInterval: 1)  // the late answers have come and gone
    for index in 0..<4 {
      XCTAssertEqual(
        dnsward.ask("late-\(index).example", id: 0x4444, timeout: 5)?.addresses, ["192.0.2.5"])
    }
    XCTAssertEqual(late.udpQueries, 4)
  }

  /// The only upstream flaps: up, down long enough to be marked down, up
  /// again, twice. While it is down, names it answered before come from
  /// the stale cache (TTL 30) and new ones get SERVFAIL; when it is back,
  /// the first question finds it (a down upstream is still asked when it is
  /// the only one) and its return is logged.
  func testFlappingUpstreamIsNoticedBothWaysAndStaleAnswersBridgeTheOutages() throws {
    let flapping = try FakeUpstream(.honest, answer: (192, 0, 2, 6))
    defer { flapping.stop() }
    let dnsward = try DnswardProcess(
      config: config(
        ["udp 127.0.0.1:\(flapping.port)"], timeout: "300ms", extra: "max-ttl 1s\nstale 1d"))
    defer { dnsward.stop() }
    let descriptors = try XCTUnwrap(dnsward.openDescriptors)
    for cycle in 0..<2 {
      let known = "known-\(cycle).example"
      XCTAssertEqual(dnsward.ask(known, id: 0x4444, timeout: 5)?.addresses, ["192.0.2.6"])

      flapping.behaviour = .silent
      for index in 0..<3 {
        XCTAssertEqual(
          dnsward.ask("new-\(cycle)-\(index).example", id: 0x4444, timeout: 5)?.rcode, 2)
      }
      XCTAssertTrue(
        eventually { occurrences(of: Self.down, in: dnsward.log) == cycle + 1 }, dnsward.log)
      Thread.sleep(forTimeInterval: 0.3)  // 1.2 s since `known` was cached: expired
      let stale = dnsward.ask(known, id: 9, timeout: 5)
      XCTAssertEqual(stale?.id, 9)
      XCTAssertEqual(stale?.addresses, ["192.0.2.6"], "\(known) from the stale cache")
      XCTAssertEqual(stale?.firstTTL, 30)

      flapping.behaviour = .honest
      let back = dnsward.ask("back-\(cycle).example", id: 0x4444, timeout: 5)
      XCTAssertEqual(back?.addresses, ["192.0.2.6"])
      XCTAssertTrue(
        eventually { occurrences(of: Self.recovered, in: dnsward.log) == cycle + 1 }, dnsward.log)
      // Asked again, the stale name is refreshed from the upstream.
      let refreshed = dnsward.ask(known, id: 0x4444, timeout: 5)
      XCTAssertEqual(refreshed?.addresses, ["192.0.2.6"])
      XCTAssertNotEqual(refreshed?.firstTTL, 30)
      XCTAssertEqual(flapping.udpQuestions.filter { $0 == known }.count, 3)
    }
    let counters = dnsward.counters()
    XCTAssertEqual(counters["staleServed"], 2)
    XCTAssertGreaterThanOrEqual(counters["upstream0.timeouts"] ?? 0, 6)
    assertNoDescriptorLeft(dnsward, startedWith: descriptors, fill: flapping)
  }

  /// After the faults dnsward holds exactly the descriptors it started
  /// with plus one UDP socket per ring slot: sixteen questions to `fill`,
  /// made slow, keep every slot (`inflight 16`) busy at once, so each slot
  /// has opened the one socket it keeps; a descriptor more is a leak (a
  /// connection to a failed upstream, say).
  func assertNoDescriptorLeft(
    _ dnsward: DnswardProcess, startedWith baseline: Int, fill: FakeUpstream,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    fill.behaviour = .slow(milliseconds: 150)
    let replies = StubClient.udpBurst(
      (0..<16).map { dnsQuery("fill-\($0).example", id: UInt16($0)) }, port: dnsward.port,
      timeout: 5)
    XCTAssertEqual(replies.count, 16, "the ring filled", file: file, line: line)
    var after = dnsward.openDescriptors
    let deadline = Date().addingTimeInterval(3)
    while after != baseline + 16 && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.1)
      after = dnsward.openDescriptors
    }
    XCTAssertEqual(
      after, baseline + 16, "descriptors: those at start and one per ring slot", file: file,
      line: line)
  }
}
