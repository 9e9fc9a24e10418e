import CompiledConfig
import DNSWire
import Engine
import XCTest

/// Keeping names warm with the fake clock: `prefetch` names at start-up and
/// before expiry, and popular entries (`prefetch-hits`) refreshed on a hit
/// in the last tenth of their lifetime.
final class PrefetchTests: XCTestCase {
  static let config = engineConfig("cache 64")

  func testPrefetchNamesAreAskedAtStartAndBeforeTheyExpire() throws {
    let harness = Harness(Self.config + "\nprefetch www.example\nprefetch mail.example")
    XCTAssertTrue(harness.advance(by: 1).isEmpty)
    XCTAssertEqual(harness.queries.count, 4, "A and AAAA for each name, nobody waiting")
    let questions = try harness.queries.map { try decoded($0.bytes) }
    XCTAssertEqual(
      Set(questions.map { "\($0.questionText.lowercased()) \($0.questionType.rawValue)" }),
      ["www.example 1", "www.example 28", "mail.example 1", "mail.example 28"])
    for query in harness.queries {
      XCTAssertTrue(harness.answer(makeReply(to: query.bytes, ttl: 100), to: query).isEmpty)
    }
    XCTAssertEqual(harness.counters[.cacheInserts], 4)
    // A client now gets the answer from the cache.
    XCTAssertEqual(harness.ask(makeQuery(id: 1, name: "www.example")).count, 1)
    XCTAssertEqual(harness.queries.count, 4)
    // 80 s in: nothing due. 90 s in (the last tenth): refreshed again.
    harness.advance(by: 80_000)
    XCTAssertEqual(harness.queries.count, 4)
    harness.advance(by: 10_000)
    XCTAssertEqual(harness.queries.count, 8)
  }

  func testPopularEntriesAreRefreshedNearTheirEnd() throws {
    let harness = Harness(Self.config + "\nprefetch-hits 2")
    XCTAssertTrue(harness.ask(makeQuery(id: 1, name: "popular.example")).isEmpty)
    let first = harness.queries[0]
    harness.answer(makeReply(to: first.bytes, ttl: 100), to: first)
    for id in 2...4 {
      XCTAssertEqual(harness.ask(makeQuery(id: UInt16(id), name: "popular.example")).count, 1)
    }
    XCTAssertEqual(harness.queries.count, 1, "early hits refresh nothing")
    harness.now += 95_000
    XCTAssertEqual(harness.ask(makeQuery(id: 5, name: "popular.example")).count, 1)
    XCTAssertEqual(harness.queries.count, 2, "a hit in the last tenth refreshes")
    XCTAssertEqual(harness.counters[.refreshes], 1)
    // A rarely asked entry is not refreshed.
    XCTAssertTrue(harness.ask(makeQuery(id: 6, name: "rare.example")).isEmpty)
    let rare = harness.queries.last!
    harness.answer(makeReply(to: rare.bytes, ttl: 100), to: rare)
    harness.now += 95_000
    XCTAssertEqual(harness.ask(makeQuery(id: 7, name: "rare.example")).count, 1)
    XCTAssertEqual(harness.counters[.refreshes], 1)
  }
}
