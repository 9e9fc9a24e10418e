import Foundation
import TestSupport
import XCTest

/// The OpenWrt package's UCI converter (`Board/openwrt/package/uci-to-conf.awk`,
/// run by `/etc/init.d/dnsward`) on files in real UCI syntax, and what it
/// makes checked by the binary under test (`dnsward --check`): every
/// `option`/`list` of a `config dnsward` section becomes its directive on
/// the same line number, another section type is ignored, UCI's quoting is
/// honoured, and an error in the result names the UCI file's line.
///
/// The awk is `awk` from PATH, or `DNSWARD_TEST_AWK` (e.g. `busybox awk`,
/// OpenWrt's), so that `.ci/ipk.sh` runs the same checks under BusyBox.
final class OpenWrtUCITests: ScratchDirectoryTestCase {
  override class var scratchPrefix: String { "dnsward-uci" }

  static let converter = SourceTree.url("Board/openwrt/package/uci-to-conf.awk")

  /// The awk command line: `DNSWARD_TEST_AWK`'s words, or `awk`.
  static var awk: [String] {
    let words = (ProcessInfo.processInfo.environment["DNSWARD_TEST_AWK"] ?? "awk")
      .split(separator: " ").map(String.init)
    return words.isEmpty ? ["awk"] : words
  }

  /// Skips the test when the awk program is not on PATH.
  func requireAwk() throws {
    let program = Self.awk[0]
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let found =
      program.contains("/")
      ? FileManager.default.isExecutableFile(atPath: program)
      : path.split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
      }
    if !found {
      throw XCTSkip("'\(program)' is not on PATH: the UCI converter needs an awk")
    }
  }

  struct Conversion {
    var status: Int32
    var output: String
    var errors: String
    /// Line N of the output (1-based), as the converter wrote it.
    var lines: [String] {
      output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
  }

  /// Runs the converter on `uci` (written to a file named `dnsward`) with
  /// the awk variables `variables`.
  func convert(_ uci: String, _ variables: [String: String] = ["mode": "beside"]) throws -> (
    Conversion, input: URL
  ) {
    try requireAwk()
    let input = directory.appendingPathComponent("dnsward")
    try uci.write(to: input, atomically: false, encoding: .utf8)
    var arguments = Self.awk
    for (name, value) in variables.sorted(by: { $0.key < $1.key }) {
      arguments += ["-v", "\(name)=\(value)"]
    }
    let run = try runProcess(
      URL(fileURLWithPath: "/usr/bin/env"), arguments + ["-f", Self.converter.path, input.path])
    return (
      Conversion(
        status: run.status, output: String(decoding: run.output, as: UTF8.self), errors: run.error),
      input
    )
  }

  /// Writes `text` as a dnsward.conf and runs `dnsward --check` on it.
  func check(_ text: String) throws -> (DnswardBinary.Run, path: String) {
    let path = directory.appendingPathComponent("dnsward.conf").path
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return (try DnswardBinary.run(["--check", path], timeout: 30), path)
  }

  // Tabs as uci writes them; quoting of every kind; comments; a section of
  // another type; `;` between two commands; an abbreviated keyword.
  static let fixture = """
    # /etc/config/dnsward written by hand
    package dnsward

    config dnsward 'main'
    \toption enabled '1'
    \toption mode 'beside'
    \toption cache_bytes "512k"   # a comment after a value
    \toption log info
    \tlist upstream 'udp 127.0.0.1:5300'
    \tlist upstream "tcp 127.0.0.1:5300"
    \t# list upstream 'udp 192.0.2.1'
    \tlist override 'printer.lan 192.168.1.20'
    \tlist override "scanner\\.lan 192.168.1.21"
    \tlist block 'tracker'.example
    \to override_ttl '60'
      option   tcp_idle    20s\t
    \toption user ''

    config other 'elsewhere'
    \toption listen '0.0.0.0:53'
    \tlist block 'must-not-appear.example'
    \toption name 'it'\\''s'

    config dnsward; option rebind_protection 'on'
    \tlist rebind_allow 'fritz.box'
    """

  func testEveryOptionOfADnswardSectionBecomesItsDirectiveOnTheSameLine() throws {
    let (conversion, _) = try convert(Self.fixture)
    XCTAssertEqual(conversion.status, 0, conversion.errors)
    XCTAssertEqual(conversion.errors, "")
    let lines = conversion.lines
    let expected: [Int: String] = [
      7: "cache-bytes 512k",
      8: "log info",
      9: "upstream udp 127.0.0.1:5300",
      10: "upstream tcp 127.0.0.1:5300",
      12: "override printer.lan 192.168.1.20",
      13: "override scanner.lan 192.168.1.21",
      14: "block tracker.example",
      15: "override-ttl 60",
      16: "tcp-idle 20s",
      24: "rebind-protection on",
      25: "rebind-allow fritz.box",
    ]
    let inputLines = Self.fixture.split(separator: "\n", omittingEmptySubsequences: false).count
    XCTAssertGreaterThan(lines.count, inputLines, "one line per input line, then the mode's")
    for number in 1...inputLines {
      XCTAssertEqual(lines[number - 1], expected[number] ?? "", "line \(number)")
    }
    // After the UCI file's lines: beside's listener, and no resolv-conf
    // upstream since the file names its own.
    let added = lines[inputLines...].filter { !$0.isEmpty && !$0.hasPrefix("#") }
    XCTAssertEqual(added, ["listen 127.0.0.1:5353"])

    let (run, path) = try check(conversion.output)
    XCTAssertEqual(run.status, 0, "dnsward --check:\n\(run.output)\(run.errors)")
    XCTAssertTrue(run.output.contains("\(path): OK"), run.output)
    XCTAssertTrue(
      run.output.contains("524288 bytes"), "cache-bytes 512k reached dnsward:\n\(run.output)")
    XCTAssertTrue(run.output.contains("overrides: 2 exact, 0 wildcard, 1 blocked"), run.output)
  }

  func testPrimaryModeAddsTheLANListenerLeasesAndDomainUnlessTheFileSetsThem() throws {
    let uci = """
      config dnsward 'main'
      \toption mode 'primary'
      \toption domain 'home.arpa'
      """
    let (conversion, _) = try convert(
      uci,
      [
        "mode": "primary", "lan_address": "127.0.0.2", "lan_domain": "lan",
        "router_hosts": "/var/etc/dnsward.hosts",
      ])
    XCTAssertEqual(conversion.status, 0, conversion.errors)
    let added = conversion.lines.dropFirst(3).filter { !$0.isEmpty && !$0.hasPrefix("#") }
    XCTAssertEqual(
      added,
      [
        "listen 127.0.0.2:53", "listen 127.0.0.1:53",
        "upstream resolv-conf /tmp/resolv.conf.d/resolv.conf.auto", "leases /tmp/dhcp.leases",
        "hosts /tmp/hosts/odhcpd", "hosts /var/etc/dnsward.hosts",
      ])
    XCTAssertEqual(conversion.lines[2], "domain home.arpa")
    let (run, _) = try check(conversion.output)
    XCTAssertEqual(run.status, 0, "dnsward --check:\n\(run.output)\(run.errors)")
  }

  /// The shipped /etc/config/dnsward converts and passes the check in both
  /// modes. A binary built without the validator is packaged with `option
  /// dnssec '0'` (Board/packaging/ipk-build.sh): so is the copy checked here.
  func testTheShippedUCIConfigPassesTheCheckInBothModes() throws {
    let shipped = Self.converter.deletingLastPathComponent().appendingPathComponent("dnsward.uci")
    var text = try String(contentsOf: shipped, encoding: .utf8)
    XCTAssertTrue(text.contains("\toption dnssec 'auto'\n"), "the shipped file says dnssec auto")
    if !DNSSECAvailability.binaryValidates {
      text = text.replacingOccurrences(
        of: "\toption dnssec 'auto'\n", with: "\toption dnssec '0'\n")
    }
    for mode in ["beside", "primary"] {
      let (conversion, _) = try convert(text, ["mode": mode, "lan_address": "192.168.1.1"])
      XCTAssertEqual(conversion.status, 0, "\(mode): \(conversion.errors)")
      let dnssec = DNSSECAvailability.binaryValidates ? "dnssec auto" : "dnssec off"
      XCTAssertTrue(conversion.lines.contains(dnssec), "\(mode): no '\(dnssec)' line")
      let (run, _) = try check(conversion.output)
      XCTAssertEqual(run.status, 0, "\(mode): dnsward --check:\n\(run.output)\(run.errors)")
    }
  }

  func testABadValueIsReportedAtItsLineInTheUCIFile() throws {
    var lines = Array(repeating: "", count: 11)
    lines[0] = "config dnsward 'main'"
    lines[1] = "\toption mode 'beside'"
    lines[5] = "\t# line 12 is the bad one"
    lines.append("\toption cache 'lots'")
    lines.append("\toption log 'info'")
    let (conversion, _) = try convert(lines.joined(separator: "\n") + "\n")
    XCTAssertEqual(conversion.status, 0, conversion.errors)
    XCTAssertEqual(conversion.lines[11], "cache lots")
    let (run, path) = try check(conversion.output)
    XCTAssertNotEqual(run.status, 0, "dnsward --check accepted cache lots:\n\(run.output)")
    XCTAssertTrue(
      (run.output + run.errors).contains("\(path):12:"),
      "the error names line 12:\n\(run.output)\(run.errors)")
  }

  func testUCISyntaxThatCannotBeADirectiveFailsWithTheFileAndLine() throws {
    let cases: [(String, Int, String)] = [
      ("config dnsward\n\toption user 'nobody\n\toption log info\n", 2, "unterminated '"),
      ("config dnsward\n\n\toption log \"info\n", 3, "unterminated \""),
      ("config dnsward\n\toption override 'a.example 192.0.2.1 # not a comment'\n", 2, "holds '#'"),
      ("config dnsward\n\toption log info; option cache 10\n", 2, "one option or list per line"),
      ("config dnsward\n\toption log info debug\n", 2, "too many values"),
      ("config dnsward\n\toptoin log info\n", 2, "invalid command 'optoin'"),
      ("config dnsward\n\toption cache-size 10\n", 2, "invalid option name 'cache-size'"),
    ]
    for (uci, line, message) in cases {
      let (conversion, input) = try convert(uci)
      XCTAssertEqual(conversion.status, 1, "\(uci.debugDescription) was accepted")
      XCTAssertTrue(
        conversion.errors.contains("\(input.path):\(line): ")
          && conversion.errors.contains(message),
        "\(uci.debugDescription): \(conversion.errors)")
    }
  }

  func testAnUnknownModeIsRefused() throws {
    let (conversion, _) = try convert("config dnsward\n", ["mode": "sideways"])
    XCTAssertEqual(conversion.status, 1)
    XCTAssertTrue(conversion.errors.contains("mode must be beside or primary"), conversion.errors)
  }
}
