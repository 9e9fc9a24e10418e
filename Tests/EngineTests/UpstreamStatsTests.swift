import CompiledConfig
import DNSWire
import Engine
import XCTest

/// Per-upstream answers, timeouts, failures and smoothed RTT
/// (`UpstreamSelection.statistics`, `upstreamN.*` in `stats.dnsward.`).
final class UpstreamStatsTests: XCTestCase {
  func stats(_ harness: Harness, _ upstream: Int) -> UpstreamStatistics {
    harness.engine.selection.statistics(upstream)
  }

  func testStartsAtZero() {
    let harness = Harness()
    let zero = UpstreamStatistics(answers: 0, timeouts: 0, failures: 0, smoothedRTTMilliseconds: 0)
    XCTAssertEqual(stats(harness, 0), zero)
    XCTAssertEqual(stats(harness, 1), zero)
  }

  func testAnswersAreCounted() {
    let harness = Harness()
    for id in 1...3 {
      harness.ask(makeQuery(id: UInt16(id), name: "host\(id).example"))
      let sent = harness.queries.last!
      XCTAssertEqual(sent.upstream, 0)
      XCTAssertEqual(harness.answer(makeReply(to: sent.bytes), to: sent).count, 1)
    }
    XCTAssertEqual(stats(harness, 0).answers, 3)
    XCTAssertEqual(stats(harness, 0).failures, 0)
    XCTAssertEqual(stats(harness, 0).timeouts, 0)
    XCTAssertEqual(stats(harness, 1).answers, 0)
  }

  func testTimeoutIsCountedForTheSilentUpstream() {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "slow.example"))
    XCTAssertEqual(harness.queries.count, 1)
    harness.advance(by: 1000)  // the timeout: fails over to upstream 1
    XCTAssertEqual(harness.queries.count, 2)
    let second = harness.queries[1]
    XCTAssertEqual(second.upstream, 1)
    harness.advance(by: 30)
    XCTAssertEqual(harness.answer(makeReply(to: second.bytes), to: second).count, 1)

    XCTAssertEqual(
      stats(harness, 0),
      UpstreamStatistics(answers: 0, timeouts: 1, failures: 0, smoothedRTTMilliseconds: 0))
    XCTAssertEqual(
      stats(harness, 1),
      UpstreamStatistics(answers: 1, timeouts: 0, failures: 0, smoothedRTTMilliseconds: 30),
      "the RTT runs from the failover attempt, not the client's query")
  }

  func testServfailIsAFailureNotAnAnswer() {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "broken.example"))
    let first = harness.queries[0]
    XCTAssertTrue(
      harness.answer(makeReply(to: first.bytes, rcode: .serverFailure, addresses: []), to: first)
        .isEmpty, "fails over instead")
    let second = harness.queries[1]
    XCTAssertEqual(second.upstream, 1)
    harness.answer(makeReply(to: second.bytes, rcode: .refused, addresses: []), to: second)
    XCTAssertEqual(stats(harness, 0).failures, 1)
    XCTAssertEqual(stats(harness, 0).answers, 0)
    XCTAssertEqual(stats(harness, 1).failures, 1)
    XCTAssertEqual(stats(harness, 1).answers, 0)
    XCTAssertEqual(stats(harness, 1).timeouts, 0)
  }

  func testAttemptFailedIsAFailure() {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"))
    harness.attemptFailed(harness.queries[0].handle)
    XCTAssertEqual(stats(harness, 0).failures, 1)
    XCTAssertEqual(stats(harness, 0).timeouts, 0)
  }

  func testSmoothedRTTFollowsRFC6298() {
    let harness = Harness()
    var expected: [UInt64] = []
    for (id, delay) in [(1, 40), (2, 80), (3, 8)] as [(UInt16, UInt64)] {
      harness.ask(makeQuery(id: id, name: "rtt\(id).example"))
      let sent = harness.queries.last!
      harness.advance(by: delay)
      harness.answer(makeReply(to: sent.bytes), to: sent)
      expected.append(stats(harness, 0).smoothedRTTMilliseconds)
    }
    // 40 (first sample); 7/8·40 + 1/8·80 = 45; 7/8·45 + 1/8·8 = 40.375 → 40.
    XCTAssertEqual(expected, [40, 45, 40])
    XCTAssertEqual(stats(harness, 0).answers, 3)
  }

  func testStatsDnswardListsEveryUpstream() throws {
    // Over 1232 bytes with two upstreams: a 4096-byte EDNS size fits it in UDP.
    let harness = Harness(twoUpstreams + "\nedns-size 4096")
    harness.ask(makeQuery(id: 1, name: "x.example"))
    harness.advance(by: 1000)  // upstream 0 times out
    let second = harness.queries[1]
    harness.advance(by: 12)
    harness.answer(makeReply(to: second.bytes), to: second)

    let replies = harness.ask(
      makeQuery(
        id: 9, name: "stats.dnsward", type: .txt, rrClass: .chaos, edns: EDNS(payloadSize: 4096)))
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(try XCTUnwrap(replies.first).bytes)
    XCTAssertFalse(reply.has(HeaderFlags.truncated))
    XCTAssertEqual(reply.answerCount, Statistic.count + 10)
    XCTAssertEqual(
      reply.answerCount, Statistics.recordCount(upstreams: harness.engine.upstreams.count))
    var strings: [String] = []
    for record in reply.records where record.type == .txt {
      XCTAssertEqual(Int(record.rdata[0]) + 1, record.rdata.count, "one string per record")
      strings.append(String(decoding: record.rdata.dropFirst(), as: UTF8.self))
    }
    XCTAssertEqual(
      Array(strings.suffix(10)),
      [
        "upstream0.answers=0", "upstream0.timeouts=1", "upstream0.failures=0",
        "upstream0.srtt-ms=0", "upstream0.disagreements=0",
        "upstream1.answers=1", "upstream1.timeouts=0", "upstream1.failures=0",
        "upstream1.srtt-ms=12", "upstream1.disagreements=0",
      ])
  }

  func testStatsDnswardFitsWithSixtyFourUpstreams() throws {
    var config = "listen 127.0.0.1:53\ntimeout 1000ms\ninflight 16\ncache 0\n"
    for index in 0..<70 { config += "upstream udp 10.0.\(index / 256).\(index % 256 + 1):5300\n" }
    let harness = Harness(config)
    XCTAssertEqual(harness.engine.upstreams.count, 70)
    XCTAssertEqual(
      Statistics.recordCount(upstreams: harness.engine.upstreams.count), Statistic.count + 5 * 64)
    let replies = harness.ask(
      makeQuery(id: 9, name: "stats.dnsward", type: .txt, rrClass: .chaos),
      from: lanClient(tcp: true))
    let reply = try decoded(try XCTUnwrap(replies.first).bytes)
    XCTAssertFalse(reply.has(HeaderFlags.truncated))
    XCTAssertEqual(reply.answerCount, Statistic.count + 5 * 64)
    XCTAssertLessThan(replies[0].bytes.count, 65535)
  }
}
