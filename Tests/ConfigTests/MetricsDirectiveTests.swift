import CompiledConfig
import Config
import XCTest

/// `metrics ADDRESS:PORT`: where the Prometheus metrics are served.
final class MetricsDirectiveTests: XCTestCase, ParsesDirectives {
  func testDefaultIsNone() throws {
    XCTAssertNil(Settings().metrics)
    XCTAssertNil(try XCTUnwrap(parse("log info")).metrics)
  }

  func testAddresses() throws {
    XCTAssertEqual(parse("metrics 127.0.0.1:9153")?.metrics.map { describe($0) }, "127.0.0.1:9153")
    XCTAssertEqual(parse("metrics [::1]:9153")?.metrics.map { describe($0) }, "[::1]:9153")
    XCTAssertEqual(
      parse("metrics 192.168.1.1:0")?.metrics.map { describe($0) }, "192.168.1.1:0",
      "port 0: the kernel picks one")
  }

  func testBadLines() {
    assertBadLines([
      ("metrics 127.0.0.1", "metrics '127.0.0.1': missing ':PORT' (e.g. 127.0.0.1:9153)", 1),
      ("metrics [::1]", "metrics '[::1]': missing ':PORT' (e.g. 127.0.0.1:9153)", 1),
      (
        "\nmetrics 127.0.0.1:99999",
        "bad port '99999' in '127.0.0.1:99999': expected a number 0...65535", 2
      ),
      ("metrics 127.0.0.1:", "bad endpoint '127.0.0.1:': missing port after ':'", 1),
      (
        "metrics 300.0.0.1:9153",
        "bad IPv4 address '300.0.0.1': octet '300' is out of range 0...255", 1
      ),
      (
        "metrics 127.0.0.1:9153\nmetrics 127.0.0.1:9154",
        "duplicate 'metrics' directive (first on line 4)", 2
      ),
      (
        "metrics 127.0.0.1:9153 extra",
        "extra argument 'extra' to 'metrics' (usage: metrics ADDRESS:PORT, e.g. 127.0.0.1:9153 "
          + "or [::1]:9153; port 0 picks a free port)", 1
      ),
    ])
  }

  func testSummaryAndGeneratedSource() throws {
    assertSummary(
      of: "metrics 127.0.0.1:9153", contains: "\nmetrics: http://127.0.0.1:9153/metrics\n")
    let settings = try XCTUnwrap(parse("metrics 127.0.0.1:9153"))
    XCTAssertFalse(ConfigGenerator.summary(try XCTUnwrap(parse("log info"))).contains("metrics"))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "m.conf")
    XCTAssertTrue(
      source.contains(
        "\n  // 127.0.0.1:9153\n  settings.metrics = Endpoint(\n"
          + "    address: IPAddress(ipv4: 0x7F00_0001),\n    port: 9153)\n"), source)
    XCTAssertFalse(
      ConfigGenerator.swiftSource(try XCTUnwrap(parse("log info")), sourceName: "n.conf")
        .contains("settings.metrics"))
  }
}
