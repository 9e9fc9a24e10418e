import XCTest

@testable import Engine

/// Issue 18: a bogus answer is logged once per zone (among the last 16
/// logged), and at most 16 lines a minute whatever the zones, so that a
/// path breaking many zones cannot flood the log.
final class BogusReportsTests: XCTestCase {
  func testAZoneIsLoggedOnceWhileAmongTheLastSixteen() {
    var reports = BogusReports()
    XCTAssertTrue(reports.shouldLog(zoneHash: 1, now: 0))
    XCTAssertFalse(reports.shouldLog(zoneHash: 1, now: 1_000))
    // Sixteen other zones, a minute apart (the line bound stays out of it),
    // push it out of the ring: then it is logged again.
    for zone: UInt32 in 2...16 {
      XCTAssertTrue(reports.shouldLog(zoneHash: zone, now: UInt64(zone) * 60_000))
    }
    XCTAssertFalse(reports.shouldLog(zoneHash: 1, now: 17 * 60_000), "15 others: still there")
    XCTAssertTrue(reports.shouldLog(zoneHash: 17, now: 18 * 60_000))
    XCTAssertTrue(reports.shouldLog(zoneHash: 1, now: 19 * 60_000))
  }

  func testAtMostSixteenLinesAMinute() {
    var reports = BogusReports()
    var logged: [UInt32] = []
    for zone: UInt32 in 100..<140 {
      if reports.shouldLog(zoneHash: zone, now: 5_000 + UInt64(zone)) { logged.append(zone) }
    }
    XCTAssertEqual(logged, Array(100..<116))
    // The minute began with the first line, at 5,100: a zone left out is
    // logged once it is over.
    XCTAssertFalse(reports.shouldLog(zoneHash: 120, now: 65_099))
    XCTAssertTrue(reports.shouldLog(zoneHash: 120, now: 65_100))
  }
}
