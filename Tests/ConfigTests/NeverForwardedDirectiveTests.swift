import CompiledConfig
import Config
import XCTest

/// `forward-single-label`, `forward-private-reverse` and `filter-aaaa`:
/// defaults, values and errors with their lines. The generated source and
/// the summary are checked with the defence directives
/// (DefenceGeneratedSourceTests, DefenceSummaryTests).
final class NeverForwardedDirectiveTests: XCTestCase, ParsesDirectives {
  func testDefaultsKeepPrivateQuestionsHomeAndAAAAUnfiltered() throws {
    let settings = try XCTUnwrap(parse("# none of them"))
    XCTAssertEqual(settings.forwardSingleLabel, false)
    XCTAssertEqual(settings.forwardPrivateReverse, false)
    XCTAssertEqual(settings.filterAAAA, false)
  }

  func testEachSwitchIsItsOwn() throws {
    let single = try XCTUnwrap(parse("forward-single-label on"))
    XCTAssertEqual(single.forwardSingleLabel, true)
    XCTAssertEqual(single.forwardPrivateReverse, false)
    XCTAssertEqual(single.filterAAAA, false)
    let reverse = try XCTUnwrap(parse("forward-private-reverse on"))
    XCTAssertEqual(reverse.forwardSingleLabel, false)
    XCTAssertEqual(reverse.forwardPrivateReverse, true)
    let filter = try XCTUnwrap(parse("filter-aaaa on"))
    XCTAssertEqual(filter.filterAAAA, true)
    XCTAssertEqual(filter.forwardPrivateReverse, false)
    let off = try XCTUnwrap(
      parse("forward-single-label off\nforward-private-reverse off\nfilter-aaaa off"))
    XCTAssertEqual(off.forwardSingleLabel, false)
    XCTAssertEqual(off.forwardPrivateReverse, false)
    XCTAssertEqual(off.filterAAAA, false)
  }

  func testBadLines() {
    assertBadLines([
      ("forward-single-label yes", "'forward-single-label' expects on or off, got 'yes'", 1),
      (
        "forward-single-label",
        "missing argument to 'forward-single-label' (usage: forward-single-label on|off)", 1
      ),
      (
        "forward-private-reverse on\nforward-private-reverse off",
        "duplicate 'forward-private-reverse' directive (first on line 4)", 2
      ),
      ("forward-private-reverse 1", "'forward-private-reverse' expects on or off, got '1'", 1),
      ("filter-aaaa ON", "'filter-aaaa' expects on or off, got 'ON'", 1),
      ("filter-AAAA on", "unknown directive 'filter-AAAA' (did you mean 'filter-aaaa'?)", 1),
      (
        "\n\nfilter-aaaa on off",
        "extra argument 'off' to 'filter-aaaa' (usage: filter-aaaa on|off)", 3
      ),
    ])
  }
}
