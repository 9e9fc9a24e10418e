import Foundation
import TestSupport
import XCTest

@testable import CompiledConfig

/// `Release`: the version and date every build reports, and the date's use
/// as the earliest time a correct clock can show.
final class ReleaseTests: XCTestCase {
  func testEpochSecondsOfKnownDates() {
    // Checked against `date -u -d DATE +%s`.
    XCTAssertEqual(Release.epochSeconds(year: 1970, month: 1, day: 1), 0)
    XCTAssertEqual(Release.epochSeconds(year: 1969, month: 12, day: 31), -86_400)
    XCTAssertEqual(Release.epochSeconds(year: 2000, month: 2, day: 29), 951_782_400)
    XCTAssertEqual(Release.epochSeconds(year: 2000, month: 3, day: 1), 951_868_800)
    XCTAssertEqual(Release.epochSeconds(year: 2024, month: 2, day: 29), 1_709_164_800)
    XCTAssertEqual(Release.epochSeconds(year: 2026, month: 12, day: 2), 1_796_169_600)
    XCTAssertEqual(Release.epochSeconds(year: 2100, month: 3, day: 1), 4_107_542_400)
  }

  func testTheDateIsAValidDayAndNotInTheFuture() throws {
    let text = "\(Release.date)"
    let parts = text.split(separator: "-").compactMap { Int($0) }
    XCTAssertEqual(parts.count, 3, text)
    XCTAssertEqual(text.count, 10, text)
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd"
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.locale = Locale(identifier: "en_US_POSIX")
    let date = try XCTUnwrap(formatter.date(from: text), text)
    XCTAssertEqual(Release.dateEpochSeconds, Int64(date.timeIntervalSince1970))
    // A date in the future would make every correct clock look wrong and
    // switch off certificate and signature date checks until then.
    XCTAssertLessThanOrEqual(Double(Release.dateEpochSeconds), Date().timeIntervalSince1970)
  }

  func testAClockBeforeTheReleaseDateIsKnownWrong() {
    let release = Release.dateEpochSeconds
    XCTAssertTrue(Release.clockIsKnownWrong(wallClockSeconds: 0))
    XCTAssertTrue(Release.clockIsKnownWrong(wallClockSeconds: release - 1))
    XCTAssertFalse(Release.clockIsKnownWrong(wallClockSeconds: release))
    XCTAssertFalse(Release.clockIsKnownWrong(wallClockSeconds: release + 86_400 * 365))
  }

  func testTheDescriptionNamesVersionDateTargetAndFeatures() {
    let text = releaseDescription()
    XCTAssertLessThan(text.utf8.count, Release.descriptionCapacity, "nothing cut")
    XCTAssertTrue(text.hasPrefix("dnsward \(Release.version) (\(Release.date); "), text)
    #if arch(x86_64)
      XCTAssertTrue(text.contains("; x86_64-linux-gnu, Swift; "), text)
    #endif
    // The SwiftPM build has the validator and the metrics server.
    #if TLS
      XCTAssertTrue(text.hasSuffix("; DNSSEC, TLS (DoT, DoH), metrics, runtime config)"), text)
    #else
      XCTAssertTrue(text.hasSuffix("; DNSSEC, no TLS, metrics, runtime config)"), text)
    #endif
  }
}
