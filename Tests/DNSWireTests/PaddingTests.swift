import DNSWire
import TestSupport
import XCTest

/// RFC 7830 Padding with RFC 8467 §4.1 Block-Length Padding (128 for queries).
final class PaddingTests: XCTestCase {
  /// `example.com A IN` with an OPT (UDP 1232, DO) carrying a 4-byte cookie-ish option.
  static let queryWithOPT = wire(
    "abcd",  // 0  ID
    "0100",  // 2  flags: RD
    "0001 0000 0000 0001",  // 4  QD 1, AN 0, NS 0, AR 1
    "07 'example' 03 'com' 00",  // 12 QNAME
    "0001 0001",  // 25 A IN
    "00",  // 29 OPT NAME: root
    "0029",  // 30 TYPE OPT
    "04d0",  // 32 UDP payload size 1232
    "00008000",  // 34 EXTENDED-RCODE 0, VERSION 0, DO=1
    "0008",  // 38 RDLENGTH 8
    "000a 0004 01020304"  // 40 option 10 (COOKIE), length 4; ends 48
  )

  /// The same query after padding, byte for byte: RDLENGTH 8 + 80 = 88, and
  /// the Padding option (code 12, length 76) of zeros up to 128.
  static let queryWithOPTPadded =
    wire(
      "abcd 0100 0001 0000 0000 0001",  // 0  header: AR still 1
      "07 'example' 03 'com' 00 0001 0001",  // 12 question
      "00 0029 04d0 00008000",  // 29 OPT: root, type, class, TTL
      "0058",  // 38 RDLENGTH 88
      "000a 0004 01020304",  // 40 the cookie option, unchanged
      "000c 004c"  // 48 option 12 (Padding), length 76
    ) + [UInt8](repeating: 0, count: 76)  // 52 zeros; ends 128

  /// Pads `message` in a buffer of `capacity` bytes; the padded bytes or nil.
  func padded(
    _ message: [UInt8], capacity: Int? = nil, blockLength: Int = 128,
    udpPayloadSize: UInt16 = 1232
  ) -> [UInt8]? {
    var buffer =
      message + [UInt8](repeating: 0xEE, count: max(0, (capacity ?? 4096) - message.count))
    if let capacity, capacity < message.count { buffer = Array(message[0..<capacity]) }
    let length = min(message.count, buffer.count)
    let result = buffer.withUnsafeMutableBytes {
      EDNSPadding.padQuery(
        $0, length: length, blockLength: blockLength, udpPayloadSize: udpPayloadSize)
    }
    guard let result else {
      XCTAssertEqual(Array(buffer[0..<length]), Array(message[0..<length]), "changed on failure")
      return nil
    }
    return Array(buffer[0..<result])
  }

  /// Checks that `bytes` is a valid message with an OPT holding one Padding
  /// option of zeros, and returns the OPT.
  @discardableResult
  func checkPadded(_ bytes: [UInt8], block: Int = 128, _ context: String = "") -> OPTRecord? {
    XCTAssertEqual(bytes.count % block, 0, "length \(bytes.count) \(context)")
    return bytes.withUnsafeBytes { raw -> OPTRecord? in
      guard let message = try? Message(validating: raw) else {
        XCTFail("padded message does not validate: \(context) \(hexString(bytes, separator: " "))")
        return nil
      }
      guard let opt = message.opt else {
        XCTFail("no OPT \(context)")
        return nil
      }
      var position = opt.rdataOffset
      var paddings = 0
      while position < opt.end {
        let code = raw.getUInt16(at: position)
        let length = Int(raw.getUInt16(at: position + 2))
        if code == EDNSOptionCode.padding.rawValue {
          paddings += 1
          XCTAssertTrue(raw[(position + 4)..<(position + 4 + length)].allSatisfy { $0 == 0 })
        }
        position += 4 + length
      }
      XCTAssertEqual(paddings, 1, context)
      XCTAssertEqual(opt.end, message.end, context)
      return opt
    }
  }

  /// A query for `name` (presentation text) built with the writer.
  func query(_ name: String, withOPT: Bool, dnssecOK: Bool = false) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 512)
    let flat = flatName(name)
    let count = buffer.withUnsafeMutableBytes { out -> Int in
      var writer = MessageWriter(buffer: out)
      try! writer.writeHeader(
        id: 0x4242, flags: HeaderFlags(rawValue: HeaderFlags.recursionDesired), questions: 1,
        additionals: withOPT ? 1 : 0)
      try! withBytes(flat) { (name) throws(WireError) in
        try writer.writeQuestion(name: name, type: .aaaa, rrClass: .internet)
      }
      if withOPT { try! writer.writeOPT(udpPayloadSize: 4096, dnssecOK: dnssecOK) }
      return writer.count
    }
    return Array(buffer[0..<count])
  }

  func testGoldenQueryWithOPT() {
    XCTAssertEqual(padded(Self.queryWithOPT), Self.queryWithOPTPadded)
    checkPadded(Self.queryWithOPTPadded)
  }

  func testQueryWithoutOPTGetsOne() throws {
    let plain = query("example.com", withOPT: false)  // 29 bytes
    let result = try XCTUnwrap(padded(plain, udpPayloadSize: 1232))
    XCTAssertEqual(
      Array(result[0..<44]),
      plain[0..<10]  // ID, flags, QD, AN, NS
        + wire("0001")  // ARCOUNT 0 → 1
        + plain[12...]  // the question, unchanged
        + wire(
          "00 0029",  // 29 OPT NAME root, TYPE 41
          "04d0",  // 32 CLASS: UDP payload size 1232
          "00000000",  // 34 TTL: EXTENDED-RCODE 0, VERSION 0, DO 0
          "0058",  // 38 RDLENGTH 88
          "000c 0054"  // 40 Padding, length 84 → ends 128
        ))
    XCTAssertEqual(result.count, 128)
    let opt = try XCTUnwrap(checkPadded(result))
    XCTAssertEqual(opt.udpPayloadSize, 1232)
    XCTAssertEqual(opt.version, 0)
    XCTAssertFalse(opt.dnssecOK)
  }

  func testManyNamesBecomeMultiplesOf128() {
    var rng = SplitMix64(seed: 8467)
    for iteration in 0..<600 {
      // Names from 1 to ~250 octets, so that lengths cross several blocks.
      var labels: [String] = []
      var total = 1
      let target = 2 + rng.below(248)
      while total < target {
        let length = min(1 + rng.below(63), target - total)
        guard length >= 1, total + length + 1 <= 254 else { break }
        labels.append(String(repeating: "a", count: length))
        total += length + 1
      }
      let name = labels.isEmpty ? "." : labels.joined(separator: ".")
      let withOPT = iteration % 2 == 0
      let original = query(name, withOPT: withOPT, dnssecOK: iteration % 4 == 0)
      guard let result = padded(original) else {
        XCTFail("\(name) not padded")
        continue
      }
      let context = "\(name) withOPT \(withOPT)"
      let opt = checkPadded(result, context)
      XCTAssertGreaterThan(result.count, original.count, context)
      XCTAssertLessThanOrEqual(result.count - original.count, 128 + 15, context)
      // The question and the DO bit survive.
      XCTAssertEqual(
        Array(result[12..<(original.count - (withOPT ? 11 : 0))]),
        Array(original[12..<(original.count - (withOPT ? 11 : 0))]), context)
      XCTAssertEqual(opt?.dnssecOK, withOPT && iteration % 4 == 0, context)
      // Padding again leaves it alone.
      XCTAssertEqual(padded(result), result, context)
    }
  }

  func testOtherBlockLengths() {
    for block in [1, 2, 16, 468, 500] {
      let result = padded(Self.queryWithOPT, blockLength: block)
      XCTAssertNotNil(result, "block \(block)")
      if let result { checkPadded(result, block: block, "block \(block)") }
    }
    XCTAssertNil(padded(Self.queryWithOPT, blockLength: 0))
    XCTAssertNil(padded(Self.queryWithOPT, blockLength: -128))
  }

  /// A message already a multiple of the block still gets the option, and
  /// so a whole block more (the 4-byte option header does not fit in 0).
  func testMessageOnABoundaryGrowsOneBlock() throws {
    XCTAssertEqual(Self.queryWithOPT.count, 48)
    let result = try XCTUnwrap(padded(Self.queryWithOPT, blockLength: 48))
    XCTAssertEqual(result.count, 96)
    checkPadded(result, block: 48)
  }

  func testExistingPaddingIsLeftAsIs() {
    let prepadded = wire(
      "abcd 0100 0001 0000 0000 0001",  // header, AR 1
      "07 'example' 03 'com' 00 0001 0001",  // question
      "00 0029 04d0 00000000 0006",  // OPT, RDLENGTH 6
      "000c 0002 0000"  // Padding of 2 (total 46: not a multiple of 128)
    )
    XCTAssertNil(validationError(prepadded))
    XCTAssertEqual(padded(prepadded), prepadded)
    XCTAssertEqual(padded(prepadded, capacity: prepadded.count), prepadded)
  }

  func testTooSmallBufferIsNil() {
    XCTAssertNil(padded(Self.queryWithOPT, capacity: 127))
    XCTAssertEqual(padded(Self.queryWithOPT, capacity: 128), Self.queryWithOPTPadded)
    let plain = query("example.com", withOPT: false)
    XCTAssertNil(padded(plain, capacity: 100))
    XCTAssertNil(padded(plain, capacity: plain.count))
    XCTAssertNotNil(padded(plain, capacity: 128))
  }

  func testOPTNotLastIsNil() {
    let optThenA = wire(
      "abcd 0100 0001 0000 0000 0002",  // AR 2
      "07 'example' 03 'com' 00 0001 0001",  // question
      "00 0029 04d0 00000000 0000",  // OPT, no options
      "c00c 0001 0001 00000000 0004 7f000001"  // an A record after it
    )
    XCTAssertNil(validationError(optThenA))
    XCTAssertNil(padded(optThenA))
  }

  func testMalformedIsNil() {
    XCTAssertNil(padded([]))
    XCTAssertNil(padded(Array(Self.queryWithOPT[0..<11])))
    XCTAssertNil(padded(Array(Self.queryWithOPT.dropLast())))  // option cut short
    XCTAssertNil(padded(Self.queryWithOPT + [0]))  // trailing byte
    var twoQuestions = Self.queryWithOPT
    twoQuestions[5] = 2
    XCTAssertNil(padded(twoQuestions))
  }

  /// Hostile input: random and mutated messages never trap; the result is
  /// nil (buffer unchanged) or a valid padded message.
  func testFuzzedMessagesNeverCrash() {
    var rng = SplitMix64(seed: 0x7830)
    let seeds =
      MutationFuzzTests.seeds + [
        Self.queryWithOPT, Self.queryWithOPTPadded, query("a.b.c", withOPT: false),
      ]
    var paddedCount = 0
    for iteration in 0..<5_000 {
      let bytes: [UInt8]
      if iteration % 5 == 0 {
        bytes = (0..<rng.below(80)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      } else {
        bytes = MutationFuzzTests.mutate(seeds[rng.below(seeds.count)], &rng)
      }
      let capacity = bytes.count + rng.below(300)
      let context = "iteration \(iteration): \(hexString(bytes, separator: " "))"
      guard let result = padded(bytes, capacity: capacity) else {
        continue
      }
      paddedCount += 1
      XCTAssertLessThanOrEqual(result.count, capacity, context)
      if result.count == bytes.count {
        XCTAssertEqual(result, bytes, context)  // had padding already
      } else {
        checkPadded(result, context)
      }
    }
    XCTAssertGreaterThan(paddedCount, 200, "too few mutants were padded")
  }
}
