import CompiledConfig
import Config
import Foundation
import XCTest

/// `block-list PATH`: names read from a file, relative paths, errors located
/// in the list file, duplicates and overrides.
final class BlockListDirectiveTests: XCTestCase {
  /// Files by path, and the paths read, in order.
  final class FakeFiles {
    var files: [String: String]
    var reads: [String] = []
    init(_ files: [String: String]) { self.files = files }

    func read(_ path: [UInt8]) -> Result<[UInt8], ConfigFileError> {
      let name = String(decoding: path, as: UTF8.self)
      reads.append(name)
      guard let text = files[name] else {
        return .failure(ConfigFileError(reason: "No such file or directory"))
      }
      return .success(Array(text.utf8))
    }
  }

  func parse(
    _ config: String, files: FakeFiles, fileName: String = "conf/dnsward.conf"
  ) throws(ConfigError) -> Settings {
    try ConfigParser.parse(
      "listen 127.0.0.1\n" + config + "\n", fileName: fileName, readFile: files.read)
  }

  func error(
    _ config: String, files: FakeFiles, file: StaticString = #filePath, line: UInt = #line
  ) -> String? {
    do throws(ConfigError) {
      _ = try parse(config, files: files)
      XCTFail("expected an error", file: file, line: line)
      return nil
    } catch {
      return error.description
    }
  }

  func testNamesCommentsAndLineEnds() throws {
    let files = FakeFiles([
      "conf/ads.txt": """
      # a block list
      ads.example
        Tracker.Example.  # trailing comment, upper case, fully qualified
      \tpixel.example\r

      metrics.example
      """
    ])
    let table = try parse("block-list ads.txt", files: files).overrides
    XCTAssertEqual(files.reads, ["conf/ads.txt"])
    XCTAssertEqual(table.count, 4)
    for name in ["ads.example", "x.tracker.example", "PIXEL.example", "a.b.metrics.example"] {
      XCTAssertEqual(lookup(table, name)?.kind, .block, name)
    }
    XCTAssertNil(lookup(table, "example"))
    XCTAssertNil(lookup(table, "ads.example.com"))
  }

  func testPaths() throws {
    let files = FakeFiles(["/etc/lists/a.txt": "a.example", "conf/sub/b.txt": "b.example"])
    let settings = try parse("block-list /etc/lists/a.txt\nblock-list sub/b.txt", files: files)
    XCTAssertEqual(files.reads, ["/etc/lists/a.txt", "conf/sub/b.txt"])
    XCTAssertEqual(settings.overrides.count, 2)
    // A config named without a folder: relative to the current directory.
    let bare = FakeFiles(["b.txt": "b.example"])
    _ = try ConfigParser.parse(
      "listen 127.0.0.1\nblock-list b.txt\n", fileName: "dnsward.conf", readFile: bare.read)
    XCTAssertEqual(bare.reads, ["b.txt"])
  }

  /// Lists overlap: a name listed again, in another list or on a `block`
  /// line, is one entry; the config's own `block` lines still may not repeat.
  func testDuplicatesAreBlockedOnce() throws {
    let files = FakeFiles([
      "conf/one.txt": "a.example\nb.example\na.example\nA.EXAMPLE",
      "conf/two.txt": "b.example\nc.example",
    ])
    let settings = try parse(
      "block b.example\nblock-list one.txt\nblock-list two.txt\nblock c.example", files: files)
    XCTAssertEqual(settings.overrides.count, 3)
    XCTAssertTrue(
      ConfigGenerator.summary(settings).contains("overrides: 0 exact, 0 wildcard, 3 blocked"))
    XCTAssertEqual(
      error("block x.example\nblock-list one.txt\nblock x.example", files: files),
      "conf/dnsward.conf:4: duplicate block of 'x.example' (first on line 2)")
  }

  /// An override of a listed name wins where it applies; no error either way round.
  func testOverridesOfListedNames() throws {
    let files = FakeFiles(["conf/ads.txt": "ads.example\ncdn.example\nshop.example"])
    let table = try parse(
      """
      override ads.example 192.0.2.1
      block-list ads.txt
      override *.cdn.example 192.0.2.2
      block shop.example
      """, files: files
    ).overrides
    XCTAssertEqual(lookup(table, "ads.example")?.kind, .exact)
    XCTAssertEqual(lookup(table, "x.ads.example")?.kind, .block)
    XCTAssertEqual(lookup(table, "cdn.example")?.kind, .block)
    XCTAssertEqual(lookup(table, "img.cdn.example")?.kind, .wildcard)
    XCTAssertEqual(lookup(table, "shop.example")?.kind, .block)
    XCTAssertEqual(table.count, 5)
  }

  func testErrorsInTheListNameItsLine() {
    let cases: [(String, String)] = [
      ("ok.example\n\nbad..example", "conf/bad.txt:3: bad name 'bad..example': empty label"),
      ("*.ads.example", "conf/bad.txt:1: a block list takes names, not wildcards"),
      (
        "0.0.0.0 ads.example",
        "conf/bad.txt:1: one name per line, found 'ads.example' after '0.0.0.0'"
      ),
      (".", "conf/bad.txt:1: the root name cannot be blocked"),
      ("ads.exam ple", "conf/bad.txt:1: one name per line, found 'ple' after 'ads.exam'"),
      ("ad$.example", "conf/bad.txt:1: bad name 'ad$.example': unexpected character '$'"),
      (
        "caf\u{E9}.example",
        "conf/bad.txt:1: bad name 'caf\\xC3\\xA9.example': unexpected character '\\xC3'"
      ),
      (String(repeating: "a", count: 64) + ".example", "conf/bad.txt:1: bad name 'aaaa"),
    ]
    for (list, expected) in cases {
      let files = FakeFiles(["conf/bad.txt": list])
      let message = error("block-list bad.txt", files: files) ?? ""
      XCTAssertTrue(message.hasPrefix(expected), "\(message) does not start with \(expected)")
    }
  }

  func testErrorsOnTheConfigLine() {
    let files = FakeFiles(["conf/a.txt": "a.example"])
    XCTAssertEqual(
      error("block-list missing.txt", files: files),
      "conf/dnsward.conf:2: cannot read block-list 'conf/missing.txt': No such file or directory")
    XCTAssertEqual(
      error("block-list a.txt\nblock-list a.txt", files: files),
      "conf/dnsward.conf:3: duplicate block-list 'a.txt' (first on line 2)")
    XCTAssertEqual(
      error("block-list", files: files),
      "conf/dnsward.conf:2: missing argument to 'block-list' (usage: block-list PATH, "
        + "one name per line, relative to this file's folder)")
    XCTAssertEqual(
      error("block-list a.txt b.txt", files: files),
      "conf/dnsward.conf:2: extra argument 'b.txt' to 'block-list' (usage: block-list PATH, "
        + "one name per line, relative to this file's folder)")
    XCTAssertEqual(
      error("block-list a\u{1}.txt", files: files),
      "conf/dnsward.conf:2: bad block-list path 'a\\x01.txt'")
    // Without a file reader (tests, tools that only check syntax).
    do throws(ConfigError) {
      _ = try ConfigParser.parse("listen 127.0.0.1\nblock-list a.txt\n", fileName: "x.conf")
      XCTFail("expected an error")
    } catch {
      XCTAssertEqual(
        error.description, "x.conf:2: cannot read block-list 'a.txt': files cannot be read here")
    }
  }

  /// A larger list through the generator: the records stay a string literal.
  func testLargeListGeneratesStringLiterals() throws {
    let names = (0..<20_000).map { "host\($0).blocked.example" }
    let files = FakeFiles(["conf/big.txt": names.joined(separator: "\n")])
    let settings = try parse("block-list big.txt", files: files)
    XCTAssertEqual(settings.overrides.count, names.count)
    let source = ConfigGenerator.swiftSource(settings, sourceName: "big.conf")
    XCTAssertTrue(source.contains("\nlet overrideRecords: StaticString = \"\"\"\n"))
    XCTAssertTrue(source.contains("\nlet overrideIndex: StaticString = \"\"\"\n"))
    assertLinesFit(source)
    let rebuilt = try rebuiltTable(from: source)
    for index in stride(from: 0, to: names.count, by: 97) {
      XCTAssertEqual(lookup(rebuilt, "www." + names[index])?.kind, .block)
    }
    XCTAssertNil(lookup(rebuilt, "host20000.blocked.example"))
  }
}
