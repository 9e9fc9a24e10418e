import CompiledConfig
import Config
import XCTest

/// `log-queries on|off`: one log line per query at level info.
final class LogQueriesDirectiveTests: XCTestCase, ParsesDirectives {
  func testDefaultIsOff() throws {
    XCTAssertEqual(Settings().logQueries, false)
    XCTAssertEqual(try XCTUnwrap(parse("log info")).logQueries, false)
  }

  func testOnAndOff() {
    XCTAssertEqual(parse("log-queries on")?.logQueries, true)
    XCTAssertEqual(parse("log-queries off")?.logQueries, false)
    XCTAssertEqual(parse("log warning\nlog-queries on")?.logLevel, .warning)
  }

  func testDuplicateIsReportedOnItsLine() throws {
    let error = try XCTUnwrap(
      parseError("listen 127.0.0.1\nlog-queries on\n# again\nlog-queries off\n"))
    XCTAssertEqual(
      error.description, "test.conf:4: duplicate 'log-queries' directive (first on line 2)")
  }

  func testBadValue() throws {
    let error = try XCTUnwrap(parseError("listen 127.0.0.1\n\nlog-queries yes\n"))
    XCTAssertEqual(error.description, "test.conf:3: 'log-queries' expects on or off, got 'yes'")
    let missing = try XCTUnwrap(parseError("listen 127.0.0.1\nlog-queries\n"))
    XCTAssertEqual(
      missing.description,
      "test.conf:2: missing argument to 'log-queries' (usage: log-queries on|off)")
  }

  func testSummaryAndGeneratedSource() throws {
    assertSummary(of: "log debug", contains: "\nlog: debug, log-queries: off\n")
    assertSummary(of: "log-queries on", contains: "\nlog: info, log-queries: on\n")
    let off = try XCTUnwrap(parse("log debug"))
    let on = try XCTUnwrap(parse("log-queries on"))
    XCTAssertTrue(
      ConfigGenerator.swiftSource(on, sourceName: "q.conf")
        .contains("\n  settings.logQueries = true\n"))
    XCTAssertTrue(
      ConfigGenerator.swiftSource(off, sourceName: "q.conf")
        .contains("\n  settings.logQueries = false\n"))
  }
}
