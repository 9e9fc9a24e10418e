import DNSWire
import TestSupport
import XCTest

/// Malformed messages, each with the one `WireError` it must produce. Most use
/// the short question `a. A IN` (`01 'a' 00 0001 0001`, offsets 12..<19).
enum HostileCorpus {
  typealias Entry = (name: String, bytes: [UInt8], expected: WireError)

  /// The 12 truncations of a valid header: 0...11 bytes.
  static let truncatedHeaders: [Entry] = (0..<12).map { count in
    (
      "header cut to \(count) bytes", Array(wire("1234 0100 0000 0000 0000 0000")[0..<count]),
      .truncatedHeader
    )
  }

  static let messages: [Entry] =
    truncatedHeaders + [
      // MARK: question count and question
      (
        "QDCOUNT 2 with two questions",
        wire("0000 0100 0002 0000 0000 0000", "01 'a' 00 0001 0001", "01 'b' 00 0001 0001"),
        .unsupportedQuestionCount
      ),
      (
        "QDCOUNT 0xFFFF and nothing else",
        wire("0000 0100 ffff 0000 0000 0000"), .unsupportedQuestionCount
      ),
      (
        "QDCOUNT 1 but the message ends after the header",
        wire("0000 0100 0001 0000 0000 0000"), .countExceedsData
      ),
      (
        "question name cut inside its first label",
        wire("0000 0100 0001 0000 0000 0000", "03 'ww'"), .truncatedName
      ),
      (
        "question name without its root octet",
        wire("0000 0100 0001 0000 0000 0000", "03 'www'"), .truncatedName
      ),
      (
        "question name with neither QTYPE nor QCLASS",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' 00"), .truncatedQuestion
      ),
      (
        "QTYPE cut after one byte",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' 00", "00"), .truncatedQuestion
      ),
      (
        "QCLASS cut after one byte",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' 00", "0001 00"), .truncatedQuestion
      ),

      // MARK: label types
      (
        "label length 0x40 (64), with 64 bytes present",
        wire("0000 0100 0001 0000 0000 0000", "40 61*64 00", "0001 0001"), .labelTooLong
      ),
      (
        "label length 0x7F, the top of the 01 range",
        wire("0000 0100 0001 0000 0000 0000", "7f 61*127 00", "0001 0001"), .labelTooLong
      ),
      (
        "second label length 0x41 (the old bit-string label)",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' 41 00", "0001 0001"), .labelTooLong
      ),
      (
        "label type 0x80, reserved",
        wire("0000 0100 0001 0000 0000 0000", "80 00", "0001 0001"), .reservedLabelType
      ),
      (
        "label type 0xBF, reserved, after a good label",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' bf ff 00", "0001 0001"), .reservedLabelType
      ),

      // MARK: compression pointers
      (
        "question name is a pointer to itself",
        wire("0000 0100 0001 0000 0000 0000", "c00c", "0001 0001"), .pointerLoop
      ),
      (
        "pointer to the start of its own run of labels",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' c00c", "0001 0001"), .pointerLoop
      ),
      (
        "pointer into the middle of its own run",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' 01 'b' c00e", "0001 0001"), .pointerLoop
      ),
      (
        "forward pointer to a name written after it",
        wire("0000 0100 0001 0000 0000 0000", "c00e", "01 'a' 00", "0001 0001"), .forwardPointer
      ),
      (
        // Found by the engine fuzzer: with this ID the name reads as the label
        // 03 (00 81 80) and the root; with another ID it reads otherwise.
        "owner name pointing into the header",
        wire(
          "0300 8180 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "c000 0001 0001 00000e10 0004 5db8d822"), .pointerIntoHeader
      ),
      (
        "question name pointing into the header",
        wire("0000 0100 0001 0000 0000 0000", "c004", "0001 0001"), .pointerIntoHeader
      ),
      (
        "pointer far past the end",
        wire("0000 0100 0001 0000 0000 0000", "c0ff", "0001 0001"), .pointerOutOfBounds
      ),
      (
        "pointer to exactly the message length (18)",
        wire("0000 0100 0001 0000 0000 0000", "c012", "0001 0001"), .pointerOutOfBounds
      ),
      (
        "pointer with all 14 offset bits set (0x3FFF)",
        wire("0000 0100 0001 0000 0000 0000", "ffff", "0001 0001"), .pointerOutOfBounds
      ),
      (
        "pointer cut after its first byte, at the end",
        wire("0000 0100 0001 0000 0000 0000", "c0"), .truncatedName
      ),
      (
        "pointer cut after a label, at the end",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' c0"), .truncatedName
      ),
      (
        "owner points into unchecked RDATA that points back to itself",
        wire(
          "0000 8000 0001 0002 0000 0000",  // header: QD 1, AN 2
          "01 'a' 00 0001 0001",  // 12 question
          "c00c ff00 0001 00000000 0004",  // 19 answer 1, unknown TYPE, RDLENGTH 4
          "01 'x' c01f",  // 31 RDATA: x + pointer to 31, a loop if read as a name
          "c01f ff00 0001 00000000 0000"  // 35 answer 2 owner → 31
        ), .pointerLoop
      ),
      (
        "owner points into RDATA holding a forward pointer",
        wire(
          "0000 8000 0001 0002 0000 0000",  // header: QD 1, AN 2
          "01 'a' 00 0001 0001",  // 12 question
          "c00c ff00 0001 00000000 0002",  // 19 answer 1, RDLENGTH 2
          "c021",  // 31 RDATA: pointer to 33, after itself
          "c01f ff00 0001 00000000 0000"  // 33 answer 2 owner → 31 → 33
        ), .forwardPointer
      ),

      // MARK: names longer than 255 octets
      (
        "question name of 256 octets in four labels",
        wire(
          "0000 0100 0001 0000 0000 0000", "3f 61*63 3f 62*63 3f 63*63 3e 64*62 00", "0001 0001"),
        .nameTooLong
      ),
      (
        "question name of 257 octets in 128 one-letter labels",
        wire("0000 0100 0001 0000 0000 0000")
          + Array(repeating: wire("01 'x'"), count: 128).joined() + wire("00 0001 0001"),
        .nameTooLong
      ),
      (
        "owner of 256 octets through a chain of three pointers",
        wire(
          "0000 8000 0001 0003 0000 0000",  // header: QD 1, AN 3
          "3f 61*63 00 0001 0001",  // 12  question a{63}: 65 octets
          "3f 62*63 c00c ff00 0001 00000000 0000",  // 81  b{63}.→12: 129 octets
          "3f 63*63 c051 ff00 0001 00000000 0000",  // 157 c{63}.→81: 193 octets
          "3e 64*62 c09d ff00 0001 00000000 0000"  // 233 d{62}.→157: 256 octets
        ), .nameTooLong
      ),

      // MARK: section counts
      (
        "ANCOUNT 1 but the message ends after the question",
        wire("0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001"), .countExceedsData
      ),
      (
        "ANCOUNT 2 with one answer",
        wire(
          "0000 8000 0001 0002 0000 0000", "01 'a' 00 0001 0001",
          "c00c 0001 0001 00000000 0004 7f000001"), .countExceedsData
      ),
      (
        "ANCOUNT 0xFFFF with one answer",
        wire(
          "0000 8000 0001 ffff 0000 0000", "01 'a' 00 0001 0001",
          "c00c 0001 0001 00000000 0004 7f000001"), .countExceedsData
      ),
      (
        "NSCOUNT 1 but the message ends after the question",
        wire("0000 8000 0001 0000 0001 0000", "01 'a' 00 0001 0001"), .countExceedsData
      ),
      (
        "ARCOUNT 1 but the message ends after the question",
        wire("0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001"), .countExceedsData
      ),
      (
        "ARCOUNT 2 with only an OPT",
        wire(
          "0000 8000 0001 0000 0000 0002", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0000"), .countExceedsData
      ),
      (
        "ANCOUNT 1 and no question at all, empty body",
        wire("0000 8000 0000 0001 0000 0000"), .countExceedsData
      ),

      // MARK: resource records
      (
        "answer is only an owner name",
        wire("0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001", "c00c"), .truncatedRecord
      ),
      (
        "answer fixed fields cut at 9 of 10 bytes",
        wire("0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001", "c00c 0001 0001 00000e10 00"),
        .truncatedRecord
      ),
      (
        "answer owner cut inside a label",
        wire("0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001", "03 'ww'"), .truncatedName
      ),
      (
        "answer owner with a reserved label type",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "80 0001 0001 00000000 0000"), .reservedLabelType
      ),
      (
        "answer owner pointer past the end",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "c1ff 0001 0001 00000000 0000"), .pointerOutOfBounds
      ),
      (
        "answer RDLENGTH 4 with 3 bytes of RDATA",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "c00c 0001 0001 00000000 0004 7f0000"), .rdataPastEnd
      ),
      (
        "answer RDLENGTH 0xFFFF",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "c00c 0001 0001 00000000 ffff 7f000001"), .rdataPastEnd
      ),
      (
        "authority SOA whose RDLENGTH runs one past the end",
        wire(
          "0000 8003 0001 0000 0001 0000", "01 'a' 00 0001 0001",
          "c00c 0006 0001 00000000 0017",  // RDLENGTH 23, 22 present
          "00 00 00000001 00000002 00000003 00000004 00000005"), .rdataPastEnd
      ),

      // MARK: EDNS OPT
      (
        "OPT RDLENGTH 4 with 2 bytes of RDATA",
        wire(
          "0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0004 000a"), .truncatedOPT
      ),
      (
        "OPT RDATA of 2 bytes: an option header cut in half",
        wire(
          "0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0002 000a"), .truncatedOPT
      ),
      (
        "OPT option length 8 in an RDATA of 4, OPT last",
        wire(
          "0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0004 000a 0008"), .truncatedOPT
      ),
      (
        "OPT option length past the OPT but inside the message",
        wire(
          "0000 8000 0001 0000 0000 0002",  // header: QD 1, AR 2
          "01 'a' 00 0001 0001",  // 12 question
          "00 0029 0200 00 00 0000 0006",  // 19 OPT, RDLENGTH 6
          "000a 0004 0102",  // 30 option claims 4 bytes, has 2
          "c00c 0001 0001 00000000 0000"  // 36 another additional record
        ), .truncatedOPT
      ),
      (
        "OPT second option header cut",
        wire(
          "0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0007 000a 0000 000c 00"), .truncatedOPT
      ),
      (
        "OPT fixed fields cut",
        wire("0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001", "00 0029 0200 00"),
        .truncatedRecord
      ),
      (
        "two OPT records",
        wire(
          "0000 8000 0001 0000 0000 0002", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0000", "00 0029 0200 00 00 0000 0000"), .duplicateOPT
      ),
      (
        "OPT owned by a. instead of the root",
        wire(
          "0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001",
          "01 'a' 00 0029 0200 00 00 0000 0000"), .misplacedOPT
      ),
      (
        "OPT owner is a pointer to a non-root name",
        wire(
          "0000 8000 0001 0000 0000 0001", "01 'a' 00 0001 0001",
          "c00c 0029 0200 00 00 0000 0000"), .misplacedOPT
      ),
      (
        "OPT in the answer section",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0000"), .misplacedOPT
      ),
      (
        "OPT in the authority section",
        wire(
          "0000 8000 0001 0000 0001 0000", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0000"), .misplacedOPT
      ),

      // MARK: trailing data
      (
        "one byte after a complete query",
        wire("0000 0100 0001 0000 0000 0000", "01 'a' 00 0001 0001", "00"), .trailingData
      ),
      (
        "a header with all counts 0, then a byte",
        wire("0000 0100 0000 0000 0000 0000", "ff"), .trailingData
      ),
      (
        "a response padded with zeros",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "c00c 0001 0001 00000000 0004 7f000001", "00*16"), .trailingData
      ),
      (
        "two answers where ANCOUNT says one",
        wire(
          "0000 8000 0001 0001 0000 0000", "01 'a' 00 0001 0001",
          "c00c 0001 0001 00000000 0004 7f000001", "c00c 0001 0001 00000000 0004 7f000002"),
        .trailingData
      ),
      (
        "an OPT where ARCOUNT is 0",
        wire(
          "0000 8000 0001 0000 0000 0000", "01 'a' 00 0001 0001",
          "00 0029 0200 00 00 0000 0000"), .trailingData
      ),
    ]

  /// Names read directly with `Name.read(in:at:)`.
  static let names: [(name: String, bytes: [UInt8], offset: Int, expected: WireError)] = [
    ("empty buffer", [], 0, .truncatedName),
    ("offset at the end of the buffer", wire("00"), 1, .truncatedName),
    ("offset past the end of the buffer", wire("00"), 7, .truncatedName),
    ("pointer to itself at offset 0", wire("c000"), 0, .pointerLoop),
    ("pointer back to a pointer to itself", wire("c000 c000"), 2, .pointerLoop),
    ("pointer to a run that points back into the run", wire("01 'a' c000 c000"), 4, .pointerLoop),
    ("pointer to a run holding a forward pointer", wire("c004 00 00 c000"), 4, .forwardPointer),
    ("pointer to the byte after the buffer", wire("01 'a' c004"), 0, .pointerOutOfBounds),
    ("label running past the buffer", wire("3f 'abc'"), 0, .truncatedName),
    ("label type 0x40 at a pointer's target", wire("40 c000"), 1, .labelTooLong),
    ("label type 0x80 at a pointer's target", wire("80 c000"), 1, .reservedLabelType),
  ]
}

final class HostileCorpusTests: XCTestCase {
  func testCorpusIsLargeAndNamed() {
    XCTAssertGreaterThanOrEqual(
      HostileCorpus.messages.count - HostileCorpus.truncatedHeaders.count, 40)
    XCTAssertEqual(Set(HostileCorpus.messages.map(\.name)).count, HostileCorpus.messages.count)
  }

  func testEveryMessageThrowsItsError() {
    for entry in HostileCorpus.messages {
      let error = validationError(entry.bytes)
      XCTAssertEqual(
        error, entry.expected, "\(entry.name): \(hexString(entry.bytes, separator: " "))")
      // Leniency about padding changes nothing but .trailingData.
      if entry.expected != .trailingData {
        XCTAssertEqual(
          validationError(entry.bytes, allowTrailingData: true), entry.expected,
          "\(entry.name), allowTrailingData")
      }
    }
  }

  func testTrailingDataIsAcceptedWhenAllowed() throws {
    for entry in HostileCorpus.messages where entry.expected == .trailingData {
      try entry.bytes.withUnsafeBytes { raw in
        let message = try Message(validating: raw, allowTrailingData: true)
        XCTAssertLessThan(message.end, entry.bytes.count, entry.name)
        var iterator = message.records()
        var seen = 0
        while iterator.next() != nil { seen += 1 }
        XCTAssertEqual(
          seen, message.answerCount + message.authorityCount + message.additionalCount,
          "\(entry.name): the walk stops at `end`, not at the padding")
      }
    }
  }

  /// Every proper prefix of every golden message is rejected, and always with
  /// an error that means "ends too soon" — never a pointer or label error.
  func testEveryTruncationOfEveryGoldenMessage() {
    let truncationErrors: [WireError] = [
      .truncatedHeader, .truncatedName, .truncatedQuestion, .truncatedRecord, .rdataPastEnd,
      .truncatedOPT, .countExceedsData,
    ]
    for (name, bytes) in Golden.all + [("writer response", MessageWriterTests.goldenResponse)] {
      for count in 0..<bytes.count {
        let prefix = Array(bytes[0..<count])
        let error = validationError(prefix)
        XCTAssertNotNil(error, "\(name) cut to \(count)")
        if let error {
          XCTAssertTrue(truncationErrors.contains(error), "\(name) cut to \(count): \(error)")
        }
        XCTAssertEqual(validationError(prefix, allowTrailingData: true), error)
      }
    }
    // Spot checks of the exact error at chosen cuts of the address answer.
    let cuts: [(Int, WireError)] = [
      (11, .truncatedHeader), (12, .countExceedsData), (20, .truncatedName),
      (29, .truncatedQuestion), (32, .truncatedQuestion), (33, .countExceedsData),
      (34, .truncatedName), (35, .truncatedRecord), (44, .truncatedRecord), (45, .rdataPastEnd),
      (48, .rdataPastEnd), (49, .countExceedsData), (76, .rdataPastEnd),
    ]
    for (count, expected) in cuts {
      XCTAssertEqual(
        validationError(Array(Golden.addressAnswer[0..<count])), expected, "cut to \(count)")
    }
    XCTAssertEqual(validationError(Array(Golden.ednsAnswer[0..<55])), .truncatedRecord)
    XCTAssertEqual(validationError(Array(Golden.badVersWithOptions[0..<59])), .truncatedOPT)
  }

  func testEveryGoldenMessageWithOneMoreByteIsTrailingData() throws {
    for (name, bytes) in Golden.all {
      XCTAssertEqual(validationError(bytes + [0]), .trailingData, name)
      try (bytes + [0]).withUnsafeBytes { raw in
        XCTAssertEqual(try Message(validating: raw, allowTrailingData: true).end, bytes.count, name)
      }
    }
  }

  func testNameReadErrors() {
    for entry in HostileCorpus.names {
      XCTAssertEqual(nameReadError(entry.bytes, at: entry.offset), entry.expected, entry.name)
    }
  }

  /// A backward chain of exactly `Name.maxPointers` pointers, each to the one
  /// before, ending in the root, is valid; one more is `.tooManyPointers`,
  /// and so is the longest chain that fits under the 14-bit offset limit.
  func testPointerChainIsBoundedByMaxPointers() {
    func chain(_ hops: Int) -> (bytes: [UInt8], start: Int) {
      var bytes: [UInt8] = [0]  // offset 0: root
      var previous = 0
      for _ in 0..<hops {
        let here = bytes.count
        bytes += [0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF)]
        previous = here
      }
      return (bytes, previous)
    }
    let allowed = chain(Name.maxPointers)
    allowed.bytes.withUnsafeBytes { raw in
      let read = try? Name.read(in: raw, at: allowed.start)
      XCTAssertEqual(read?.length, 1)
      XCTAssertEqual(read?.end, allowed.start + 2)
    }
    for hops in [Name.maxPointers + 1, 8_000] {
      let rejected = chain(hops)
      XCTAssertEqual(nameReadError(rejected.bytes, at: rejected.start), .tooManyPointers, "\(hops)")
    }
  }

  /// Regression: pointer-only hops spend none of the 255-octet budget, so one
  /// owner name could take ~8,000 hops inside 16 KiB, and a 64 KiB message of
  /// records pointing at such a chain cost ~33 million steps to validate. A
  /// legitimate name needs at most 127 pointers; more is `.tooManyPointers`.
  func testOwnerNameThroughMoreThan127PointerHopsIsRejected() throws {
    var bytes = wire(
      "0000 8000 0000 0000 0000 0002",  // 0  header: AR 2
      "00 ff00 0001 00000000 0191",  // 12 record 1: root owner, RDLENGTH 401
      "00"  // 23 RDATA: a root octet, then 200 pointers, each to the one before
    )
    var previous = 23
    for _ in 0..<200 {
      let here = bytes.count
      bytes += [0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF)]
      previous = here
    }
    bytes += [0xC0 | UInt8(previous >> 8), UInt8(previous & 0xFF)]  // record 2 owner: 201 hops
    bytes += wire("ff00 0001 00000000 0000")  // its fixed fields
    XCTAssertEqual(bytes.count, 23 + 401 + 12)
    XCTAssertEqual(validationError(bytes), .tooManyPointers)
  }
}
