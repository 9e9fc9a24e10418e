import CompiledConfig
import DNSWire
import Engine
import XCTest

/// `Statistics.answerLatency`: every client reply in one fixed bucket, by the
/// milliseconds since its query arrived.
final class LatencyHistogramTests: XCTestCase {
  func testBucketBoundsAreInclusive() {
    var histogram = LatencyHistogram()
    for milliseconds: UInt64 in [0, 1, 2, 3, 5000, 5001, 1_000_000] {
      histogram.record(milliseconds: milliseconds)
    }
    XCTAssertEqual(histogram.bucket(0), 2, "0 and 1 ms: le 1 ms")
    XCTAssertEqual(histogram.bucket(1), 1, "2 ms: le 2 ms")
    XCTAssertEqual(histogram.bucket(2), 1, "3 ms: le 5 ms")
    XCTAssertEqual(histogram.bucket(11), 1, "5000 ms: le 5000 ms")
    XCTAssertEqual(histogram.bucket(LatencyHistogram.bucketCount - 1), 2, "past 5 s: +Inf")
    XCTAssertEqual(histogram.count, 7)
    XCTAssertEqual(histogram.sumMilliseconds, 1_010_007)
    XCTAssertEqual(
      (0..<LatencyHistogram.bucketCount).reduce(0) { $0 + histogram.bucket($1) }, 7)
    XCTAssertEqual(LatencyHistogram.boundMilliseconds(LatencyHistogram.bucketCount - 1), .max)
  }

  func testForwardedAnswerCountsItsWaitAndLocalAnswersZero() {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "slow.example"))
    let sent = harness.queries[0]
    harness.advance(by: 30)
    XCTAssertEqual(harness.answer(makeReply(to: sent.bytes), to: sent).count, 1)
    XCTAssertEqual(harness.engine.statistics.answerLatency.count, 1)
    XCTAssertEqual(harness.engine.statistics.answerLatency.sumMilliseconds, 30)
    XCTAssertEqual(harness.engine.statistics.answerLatency.bucket(5), 1, "30 ms: le 50 ms")
    // A local answer (CHAOS statistics) is written in the call: 0 ms.
    XCTAssertEqual(
      harness.ask(makeQuery(id: 2, name: "hits.bind", type: .txt, rrClass: .chaos)).count, 1)
    XCTAssertEqual(harness.engine.statistics.answerLatency.count, 2)
    XCTAssertEqual(harness.engine.statistics.answerLatency.bucket(0), 1, "a local answer: 0 ms")
    XCTAssertEqual(harness.engine.statistics.answerLatency.sumMilliseconds, 30)
  }
}
