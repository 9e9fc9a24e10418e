import DNSWire
import TestSupport
import XCTest

/// The names inside the RDATA of the RFC 1035 types that may compress them
/// (NS, CNAME, PTR, MX, SOA; RFC 3597 §4) are validated like owner names,
/// and with their fixed fields they must fill RDLENGTH exactly. Before
/// this, RDATA was passed through unread: a CNAME target pointing into the
/// header decoded differently for every ID the engine wrote over it.
final class RDATANameTests: XCTestCase {
  /// A response to `a. <type> IN` (question at 12..<19) with one answer
  /// owned by a pointer to the question, of `type` and class `rrClass`,
  /// with `rdata` (hex fields) and its RDLENGTH as given.
  static func answer(
    type: String, rrClass: String = "0001", rdlength: String, _ rdata: String...
  ) -> [UInt8] {
    let fields =
      [
        "0300 8180 0001 0001 0000 0000", "01 'a' 00 \(type) 0001",
        "c00c \(type) \(rrClass) 00000e10 \(rdlength)",
      ] + rdata
    return wire(fields.joined(separator: " "))
  }

  static let hostile: [(name: String, bytes: [UInt8], expected: WireError)] = {
    let tests = RDATANameTests.self
    return [
      (
        "CNAME target pointing into the header",
        tests.answer(type: "0005", rdlength: "0002", "c000"), .pointerIntoHeader
      ),
      (
        "CNAME target, then a byte its RDLENGTH counts",
        tests.answer(type: "0005", rdlength: "0004", "01 'b' 00 ff"), .rdataLengthMismatch
      ),
      (
        "CNAME target running past its RDLENGTH",
        tests.answer(type: "0005", rdlength: "0002", "01 'b'"), .truncatedName
      ),
      ("CNAME with empty RDATA", tests.answer(type: "0005", rdlength: "0000"), .truncatedName),
      (
        "NS name with a forward pointer",
        tests.answer(type: "0002", rdlength: "0003", "c020 00"), .forwardPointer
      ),
      (
        "PTR name pointing to itself",
        tests.answer(type: "000c", rdlength: "0002", "c01f"), .pointerLoop
      ),
      (
        "MX with only its preference",
        tests.answer(type: "000f", rdlength: "0002", "000a"), .truncatedName
      ),
      (
        "MX exchange pointing into the header",
        tests.answer(type: "000f", rdlength: "0004", "000a c002"), .pointerIntoHeader
      ),
      (
        "SOA without its five counters",
        tests.answer(type: "0006", rdlength: "0004", "c00c c00c"), .rdataLengthMismatch
      ),
      (
        "SOA with a byte after its counters",
        tests.answer(
          type: "0006", rdlength: "0019", "c00c c00c", "00000001 00000002 00000003 00000004",
          "00000005 ff"), .rdataLengthMismatch
      ),
      (
        "SOA mailbox pointing into the header",
        tests.answer(
          type: "0006", rdlength: "0018", "c00c c004", "00000001 00000002 00000003 00000004",
          "00000005"), .pointerIntoHeader
      ),
    ]
  }()

  func testHostileRDATANamesThrowTheirError() {
    for entry in Self.hostile {
      XCTAssertEqual(
        validationError(entry.bytes), entry.expected,
        "\(entry.name): \(hexString(entry.bytes, separator: " "))")
      XCTAssertEqual(
        validationError(entry.bytes, allowTrailingData: true), entry.expected, entry.name)
    }
  }

  func testWellFormedRDATANamesAreAccepted() {
    let accepted: [(String, [UInt8])] = [
      ("CNAME compressed to the question", Self.answer(type: "0005", rdlength: "0002", "c00c")),
      (
        "CNAME flat, ending in a pointer",
        Self.answer(type: "0005", rdlength: "0006", "03 'www' c00c")
      ),
      ("NS flat", Self.answer(type: "0002", rdlength: "0005", "03 'ns1' 00")),
      ("PTR compressed", Self.answer(type: "000c", rdlength: "0002", "c00c")),
      ("MX preference and exchange", Self.answer(type: "000f", rdlength: "0004", "000a c00c")),
      (
        "SOA two names and five counters",
        Self.answer(
          type: "0006", rdlength: "0018", "c00c c00c", "00000001 00000002 00000003 00000004",
          "00000005")
      ),
      // Not checked: RDATA of types that must not compress (RFC 3597 §4),
      // nor the empty RDATA of an UPDATE's class ANY/NONE records.
      ("SRV whose RDATA is opaque here", Self.answer(type: "0021", rdlength: "0002", "c000")),
      ("TXT with arbitrary bytes", Self.answer(type: "0010", rdlength: "0002", "c000")),
      ("CNAME of class ANY, empty", Self.answer(type: "0005", rrClass: "00ff", rdlength: "0000")),
      ("CNAME of class NONE, empty", Self.answer(type: "0005", rrClass: "00fe", rdlength: "0000")),
    ]
    for (name, bytes) in accepted {
      XCTAssertNil(validationError(bytes), "\(name): \(hexString(bytes, separator: " "))")
    }
  }
}
