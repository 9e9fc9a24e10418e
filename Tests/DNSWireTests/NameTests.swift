import DNSWire
import TestSupport
import XCTest

final class NameTests: XCTestCase {
  private func parse(_ text: String, allowWildcard: Bool = false, outputSize: Int = 300)
    -> Result<[UInt8], WireError>
  {
    var output = [UInt8](repeating: 0xEE, count: outputSize)
    let utf8 = Array(text.utf8)
    return utf8.withUnsafeBytes { raw in
      output.withUnsafeMutableBytes { out -> Result<[UInt8], WireError> in
        do throws(WireError) {
          let count = try Name.parse(text: raw, into: out, allowWildcard: allowWildcard)
          return .success(Array(out[0..<count]))
        } catch {
          return .failure(error)
        }
      }
    }
  }

  private func assertParses(
    _ text: String, _ expected: [UInt8], allowWildcard: Bool = false, line: UInt = #line
  ) {
    XCTAssertEqual(
      try parse(text, allowWildcard: allowWildcard).get(), expected, text, line: line)
  }

  private func assertRejects(
    _ text: String, _ expected: WireError, allowWildcard: Bool = false, line: UInt = #line
  ) {
    switch parse(text, allowWildcard: allowWildcard) {
    case .success(let bytes):
      XCTFail("\(text) parsed as \(hexString(bytes, separator: " "))", line: line)
    case .failure(let error): XCTAssertEqual(error, expected, text, line: line)
    }
  }

  private static let label63 = String(repeating: "a", count: 63)

  // MARK: parse

  func testParseAcceptsHostNames() {
    assertParses("printer.lan", wire("07 'printer' 03 'lan' 00"))
    assertParses("printer.lan.", wire("07 'printer' 03 'lan' 00"))
    assertParses(".", wire("00"))
    assertParses("PrInTeR.LAN", wire("07 'printer' 03 'lan' 00"))
    assertParses("_sip._tcp.example.com", wire("04 '_sip' 04 '_tcp' 07 'example' 03 'com' 00"))
    assertParses("a-1.0-9", wire("03 'a-1' 03 '0-9' 00"))
    assertParses("Z", wire("01 'z' 00"))
    // Punctuation next to the letter ranges is not folded: only A-Z are.
    assertRejects("a@b", .badName)
    assertRejects("a[b", .badName)
  }

  func testParseWildcardOnlyAsWholeFirstLabel() {
    assertParses("*.example.com", wire("01 2a 07 'example' 03 'com' 00"), allowWildcard: true)
    assertParses("*", wire("01 2a 00"), allowWildcard: true)
    assertParses("*.", wire("01 2a 00"), allowWildcard: true)
    assertRejects("*.example.com", .badName)
    assertRejects("*", .badName)
    assertRejects("a.*.com", .badName, allowWildcard: true)
    assertRejects("example.*", .badName, allowWildcard: true)
    assertRejects("*a.com", .badName, allowWildcard: true)
    assertRejects("a*.com", .badName, allowWildcard: true)
    assertRejects("**.com", .badName, allowWildcard: true)
    assertRejects("*.*.com", .badName, allowWildcard: true)
  }

  func testParseRejectsBadText() {
    assertRejects("", .badName)
    assertRejects("..", .badName)
    assertRejects(".a", .badName)
    assertRejects("a..b", .badName)
    assertRejects("a..", .badName)
    assertRejects("a b.com", .badName)
    assertRejects("a!.com", .badName)
    assertRejects("a/b", .badName)
    assertRejects("a\\.com", .badName)
    assertRejects("a\\046b", .badName)  // no escapes in host names
    assertRejects("caf\u{E9}.com", .badName)  // UTF-8 bytes 0xC3 0xA9
    assertRejects("a\u{0}b", .badName)
    assertRejects("a\tb", .badName)
  }

  func testParseLengthLimits() {
    // 63 octets is the longest label.
    assertParses(Self.label63 + ".com", [63] + Array(Self.label63.utf8) + wire("03 'com' 00"))
    assertRejects(Self.label63 + "a.com", .labelTooLong)
    assertRejects("com." + Self.label63 + "a", .labelTooLong)
    assertRejects(String(repeating: "b", count: 200), .labelTooLong)
    // 3 × (1 + 63) + (1 + 61) + 1 = 255: the longest name.
    let longest = [Self.label63, Self.label63, Self.label63, String(repeating: "c", count: 61)]
      .joined(separator: ".")
    let parsed = try? parse(longest).get()
    XCTAssertEqual(parsed?.count, 255)
    XCTAssertEqual(try? parse(longest + ".").get(), parsed)
    // One more octet is 256.
    assertRejects(longest + "c", .nameTooLong)
    assertRejects(longest + ".d", .nameTooLong)
    // 128 one-letter labels: 257 octets.
    assertRejects(Array(repeating: "x", count: 128).joined(separator: "."), .nameTooLong)
    let manyLabels = Array(repeating: "x", count: 127).joined(separator: ".")
    XCTAssertEqual(try? parse(manyLabels).get().count, 255)
  }

  func testParseBufferFullAtEverySmallerOutput() {
    let text = "www.example.com"
    for size in 0..<17 {
      switch parse(text, outputSize: size) {
      case .success: XCTFail("fit in \(size)")
      case .failure(let error): XCTAssertEqual(error, .bufferFull, "size \(size)")
      }
    }
    XCTAssertEqual(try? parse(text, outputSize: 17).get(), flatName(text))
    switch parse(".", outputSize: 0) {
    case .success: XCTFail("root fit in 0")
    case .failure(let error): XCTAssertEqual(error, .bufferFull)
    }
  }

  // MARK: format

  func testFormatRoundTrip() {
    for text in [
      "printer.lan", "www.example.com", "_dmarc.example.org", "a", "xn--bcher-kva.example",
      Self.label63 + ".b",
    ] {
      let flat = flatName(text)
      let shown = formatted(flat)
      XCTAssertEqual(shown, text + ".")
      XCTAssertEqual(flatName(shown), flat, text)
    }
    XCTAssertEqual(formatted(wire("00")), ".")
    XCTAssertEqual(formatted([]), ".")
    XCTAssertEqual(formatted(flatName("*.lan", allowWildcard: true)), "*.lan.")
  }

  func testFormatEscapesAsDecimal() {
    let flat = wire(
      "07",  // label of 7
      "'a' 2e 5c 20 00 7f",  // a, '.', '\', space, NUL, DEL
      "ff",  // 0xFF
      "03 'A~!'",  // printable ASCII is kept as is, case too
      "00"  // root
    )
    XCTAssertEqual(formatted(flat), "a\\046\\092\\032\\000\\127\\255.A~!.")
  }

  func testFormatTruncatesToTheOutputAndNeverOverruns() {
    let flat = flatName("www.example.com")
    for size in 0..<20 {
      var output = [UInt8](repeating: 0xEE, count: size + 1)
      let count = flat.withUnsafeBytes { raw in
        output.withUnsafeMutableBytes { out in
          Name.format(raw, into: UnsafeMutableRawBufferPointer(rebasing: out[0..<size]))
        }
      }
      XCTAssertEqual(count, min(size, 16))
      XCTAssertEqual(output[size], 0xEE)
      XCTAssertEqual(
        String(decoding: output[0..<count], as: UTF8.self), String("www.example.com.".prefix(count))
      )
    }
    // A "flat" name whose last label claims more bytes than there are.
    XCTAssertEqual(formatted(wire("05 'ab'")), "ab.")
  }

  // MARK: case-insensitive comparison and hashing

  private func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBytes { x in b.withUnsafeBytes { Name.equalIgnoringCase(x, $0) } }
  }
  private func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBytes { x in b.withUnsafeBytes { Name.compareIgnoringCase(x, $0) } }
  }
  private func hash(_ a: [UInt8], seed: UInt64 = 0) -> UInt64 {
    a.withUnsafeBytes { raw in Name.hashIgnoringCase(raw, key: HashKey(k0: seed, k1: ~seed)) }
  }

  func testCaseInsensitiveEqualityCompareAndHash() {
    let lower = wire("03 'www' 07 'example' 03 'com' 00")
    let mixed = wire("03 'WwW' 07 'EXAMPLE' 03 'CoM' 00")
    XCTAssertTrue(equal(lower, mixed))
    XCTAssertEqual(compare(lower, mixed), 0)
    XCTAssertEqual(compare(mixed, lower), 0)
    XCTAssertEqual(hash(lower), hash(mixed))
    XCTAssertEqual(hash(lower, seed: 12345), hash(mixed, seed: 12345))
    XCTAssertNotEqual(hash(lower, seed: 1), hash(lower, seed: 2))
    XCTAssertNotEqual(hash(lower), hash(wire("03 'www' 07 'example' 03 'org' 00")))

    // Only A-Z fold: pairs that differ by 0x20 elsewhere stay different.
    for (a, b) in [("@", "`"), ("[", "{"), ("\\", "|"), ("]", "}"), ("^", "~"), ("-", "\r")] {
      let x = [1] + Array(a.utf8) + [0]
      let y = [1] + Array(b.utf8) + [0]
      XCTAssertFalse(equal(x, y), "\(a) vs \(b)")
      XCTAssertNotEqual(compare(x, y), 0, "\(a) vs \(b)")
      XCTAssertNotEqual(hash(x), hash(y), "\(a) vs \(b)")
    }
    XCTAssertFalse(equal(lower, Array(lower.dropLast())))
    XCTAssertFalse(equal(wire("01 'a' 00"), wire("01 'b' 00")))
  }

  func testCompareIgnoringCaseIsAnOrder() {
    let names: [[UInt8]] = [
      flatName("a"), wire("01 'A' 01 'b' 00"), flatName("b"), flatName("aa"), flatName("a.a"),
      flatName("com"), flatName("example.com"), wire("03 'WWW' 07 'example' 03 'com' 00"),
      flatName("www.example.org"), flatName("."), flatName("z-9"), flatName("_a"),
    ]
    for x in names {
      XCTAssertEqual(compare(x, x), 0)
      for y in names {
        let xy = compare(x, y)
        XCTAssertEqual(xy.signum(), -compare(y, x).signum(), "antisymmetric")
        XCTAssertEqual(xy == 0, equal(x, y))
        // The same order as the lower-cased bytes, lexicographically.
        let lx = x.map(Name.asciiLowercased)
        let ly = y.map(Name.asciiLowercased)
        let expected = lx == ly ? 0 : (lx.lexicographicallyPrecedes(ly) ? -1 : 1)
        XCTAssertEqual(xy.signum(), expected, "\(formatted(x)) vs \(formatted(y))")
      }
    }
    // A proper prefix orders first.
    XCTAssertLessThan(compare(wire("01 'a'"), wire("01 'a' 00")), 0)
  }

  // MARK: 0x20 randomisation

  private func randomized(_ flat: [UInt8], words: [UInt64]) -> (name: [UInt8], calls: Int) {
    var name = flat
    var calls = 0
    name.withUnsafeMutableBytes { raw in
      Name.randomizeCase(raw) {
        defer { calls += 1 }
        return words[min(calls, words.count - 1)]
      }
    }
    return (name, calls)
  }

  func testRandomizeCaseOnlyTouchesLetters() {
    let flat = wire("0b 'ex-4mple_9z' 03 'a1b' 02 '-0' 00")
    var rng = SplitMix64(seed: 0x20)
    for _ in 0..<200 {
      let (name, _) = randomized(flat, words: [rng.next(), rng.next(), rng.next()])
      XCTAssertEqual(name.count, flat.count)
      XCTAssertTrue(equal(name, flat))
      for index in flat.indices {
        let isLetter = (0x61...0x7A).contains(flat[index]) && ![0, 12, 16].contains(index)
        if isLetter {
          XCTAssertEqual(name[index] | 0x20, flat[index])
        } else {
          XCTAssertEqual(name[index], flat[index], "byte \(index) is not a letter")
        }
      }
    }
  }

  func testRandomizeCaseBits() {
    let flat = flatName("www.example.com")
    XCTAssertEqual(randomized(flat, words: [~0]).name, wire("03 'WWW' 07 'EXAMPLE' 03 'COM' 00"))
    XCTAssertEqual(randomized(flat, words: [0]).name, flat)
    // Upper-case input is lowered by zero bits.
    XCTAssertEqual(randomized(wire("03 'WWW' 00"), words: [0]).name, wire("03 'www' 00"))
    // One bit per letter, least significant first; non-letters use none.
    XCTAssertEqual(randomized(wire("05 'a1b-c' 00"), words: [0b101]).name, wire("05 'A1b-C' 00"))
    // Label length octets that look like nothing special, e.g. 0x21..0x3F.
    let long = [0x3F] + Array(repeating: UInt8(ascii: "q"), count: 63) + [0]
    let upper = randomized(long, words: [~0]).name
    XCTAssertEqual(upper[0], 0x3F)
    XCTAssertEqual(Set(upper[1...63]), [UInt8(ascii: "Q")])
  }

  func testRandomizeCaseTakesAFreshWordEvery64Letters() {
    // 250 letters: words of all ones, all zeros, all ones, all zeros.
    let text = [Self.label63, Self.label63, Self.label63, String(repeating: "a", count: 61)]
      .joined(separator: ".")
    let flat = flatName(text)
    let (name, calls) = randomized(flat, words: [~0, 0, ~0, 0])
    XCTAssertEqual(calls, 4)
    var letter = 0
    var position = 0
    while name[position] != 0 {
      let length = Int(name[position])
      XCTAssertEqual(UInt8(length), flat[position])
      for index in position + 1...position + length {
        let expectUpper = (letter / 64) % 2 == 0
        XCTAssertEqual(
          name[index], expectUpper ? UInt8(ascii: "A") : UInt8(ascii: "a"), "letter \(letter)")
        letter += 1
      }
      position += 1 + length
    }
    XCTAssertEqual(letter, 250)
  }

  func testRandomizeCaseOnRootAndOddInput() {
    XCTAssertEqual(randomized(wire("00"), words: [~0]).name, wire("00"))
    XCTAssertEqual(randomized([], words: [~0]).name, [])
    // A label that claims more than there is: stays in bounds.
    XCTAssertEqual(randomized(wire("09 'ab'"), words: [~0]).name, wire("09 'AB'"))
  }

  // MARK: labels

  func testLabelCountAndParent() {
    XCTAssertEqual(flatName(".").withUnsafeBytes { Name.labelCount($0) }, 0)
    XCTAssertEqual(flatName("com").withUnsafeBytes { Name.labelCount($0) }, 1)
    XCTAssertEqual(flatName("www.example.com").withUnsafeBytes { Name.labelCount($0) }, 3)
    XCTAssertEqual(
      flatName(Array(repeating: "x", count: 127).joined(separator: ".")).withUnsafeBytes {
        Name.labelCount($0)
      }, 127)
    let flat = flatName("www.example.com")
    flat.withUnsafeBytes { raw in
      XCTAssertEqual(Name.parentOffset(raw, from: 0), 4)
      XCTAssertEqual(Name.parentOffset(raw, from: 4), 12)
      XCTAssertEqual(Name.parentOffset(raw, from: 12), 16)
      XCTAssertNil(Name.parentOffset(raw, from: 16))
      XCTAssertNil(Name.parentOffset(raw, from: 17))
    }
  }

  // MARK: read

  func testReadLowercasesIntoOutputAndChecksItsSize() throws {
    try Golden.query.withUnsafeBytes { raw in
      let read = try readFlat(raw, at: 12, lowercase: true)
      XCTAssertEqual(read.name, flatName("www.example.com"))
      XCTAssertEqual(read.end, 29)
      let plain = try Name.read(in: raw, at: 12)
      XCTAssertEqual(plain.end, 29)
      XCTAssertEqual(plain.length, 17)
      for size in 0..<17 {
        var output = [UInt8](repeating: 0, count: size)
        let error = output.withUnsafeMutableBytes { out -> WireError? in
          do throws(WireError) {
            try Name.read(in: raw, at: 12, into: out)
            return nil
          } catch {
            return error
          }
        }
        XCTAssertEqual(error, .bufferFull, "size \(size)")
      }
    }
    // Through a chain of pointers: 'end' is just past the first pointer.
    try Golden.cnameChain.withUnsafeBytes { raw in
      let owner = try readFlat(raw, at: 51)  // c02d → cdn c010 → example.com
      XCTAssertEqual(formatted(owner.name), "cdn.example.com.")
      XCTAssertEqual(owner.end, 53)
    }
  }

  func testReadAcceptsTheLongestNameThroughPointers() {
    // Each owner adds one label and points at the previous name; the last is
    // exactly 255 octets (the hostile corpus has the 256-octet twin).
    let bytes = wire(
      "0000 8000 0001 0003 0000 0000",  // 0   header: QD 1, AN 3
      "3f 61*63 00",  // 12  QNAME a{63} (65 octets)
      "0001 0001",  // 77  QTYPE, QCLASS
      "3f 62*63 c00c",  // 81  owner b{63}.a{63}: 129 octets
      "ff00 0001 00000000 0000",  // 147 unknown TYPE, empty RDATA
      "3f 63*63 c051",  // 157 owner c{63}.b{63}.a{63}: 193 octets
      "ff00 0001 00000000 0000",  // 223
      "3d 64*61 c09d",  // 233 owner d{61}.c{63}.b{63}.a{63}: 255 octets
      "ff00 0001 00000000 0000"  // 297; ends 307
    )
    XCTAssertEqual(bytes.count, 307)
    XCTAssertNil(validationError(bytes))
    bytes.withUnsafeBytes { raw in
      XCTAssertEqual(try? Name.read(in: raw, at: 233).length, 255)
      XCTAssertEqual(try? Name.read(in: raw, at: 233).end, 297)
      XCTAssertEqual(try? readFlat(raw, at: 233).name.count, 255)
    }
  }
}
