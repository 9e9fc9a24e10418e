import XCTest

@testable import DNSWire

/// `LiteralText` keeps a literal's address alone and finds its end at the
/// NUL Swift puts after every string literal.
final class LiteralTextTests: XCTestCase {
  func testBytesAreTheLiteralsBytesUpToItsEnd() {
    let literals: [StaticString] = ["", "A", "NOERROR", "queries clients", "naïve ✓", "two\nlines"]
    for literal in literals {
      let text = LiteralText(literal)
      XCTAssertEqual(text.count, literal.utf8CodeUnitCount, "\(literal)")
      let expected = literal.withUTF8Buffer { Array($0) }
      XCTAssertEqual(Array(text.bytes), expected, "\(literal)")
    }
  }

  func testALiteralWrittenAsTextIsTheSame() {
    let text: LiteralText = "bytes after the last entry"
    XCTAssertEqual(String(decoding: text.bytes, as: UTF8.self), "bytes after the last entry")
  }

  func testMnemonicsComeWhole() {
    // A literal of one character is still a pointer to NUL-terminated
    // bytes (a StaticString could also hold it as a scalar, with no address).
    XCTAssertEqual(RRType.a.mnemonic.map { String(decoding: $0.bytes, as: UTF8.self) }, "A")
    XCTAssertEqual(
      RRType.nsec3param.mnemonic.map { String(decoding: $0.bytes, as: UTF8.self) }, "NSEC3PARAM")
    XCTAssertEqual(
      ResponseCode(rawValue: 16).mnemonic.map { String(decoding: $0.bytes, as: UTF8.self) },
      "BADVERS")
    XCTAssertNil(RRType(rawValue: 65280).mnemonic)
  }
}
