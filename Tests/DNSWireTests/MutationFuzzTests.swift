import DNSWire
import TestSupport
import XCTest

/// Deterministic mutation fuzzing of the parser: byte flips, bit flips,
/// truncations, insertions, deletions and pointer splices over the golden
/// messages. Every input must either validate, with accessors that stay inside
/// the message, or throw a `WireError`; nothing may trap. A failure names the
/// iteration and the input in hex, so it can be replayed and added to the corpus.
final class MutationFuzzTests: XCTestCase {
  static let seeds: [[UInt8]] =
    Golden.all.map(\.bytes) + [
      MessageWriterTests.goldenResponse, MessageWriterTests.goldenSuffixes,
    ]

  static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = input
    for _ in 0...rng.below(4) {
      switch rng.below(8) {
      case 0 where !bytes.isEmpty:  // replace a byte
        bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
      case 1 where !bytes.isEmpty:  // flip one bit
        bytes[rng.below(bytes.count)] ^= 1 << UInt8(rng.below(8))
      case 2 where !bytes.isEmpty:  // truncate
        bytes.removeLast(rng.below(bytes.count) + 1)
      case 3:  // insert a random byte
        bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: rng.below(bytes.count + 1))
      case 4 where !bytes.isEmpty:  // delete a byte
        bytes.remove(at: rng.below(bytes.count))
      case 5 where bytes.count >= 2:  // splice in a compression pointer
        let at = rng.below(bytes.count - 1)
        let target = rng.below(bytes.count + 4)
        bytes[at] = 0xC0 | UInt8(truncatingIfNeeded: target >> 8)
        bytes[at + 1] = UInt8(truncatingIfNeeded: target)
      case 6 where bytes.count >= 12:  // change a header count to something small
        let field = 4 + 2 * rng.below(4)
        bytes[field] = 0
        bytes[field + 1] = UInt8(rng.below(4))
      case 7 where !bytes.isEmpty:  // a length byte at a boundary value
        let values: [UInt8] = [0, 1, 0x3F, 0x40, 0x7F, 0x80, 0xBF, 0xC0, 0xFF]
        bytes[rng.below(bytes.count)] = values[rng.below(values.count)]
      default:  // duplicate a chunk
        guard !bytes.isEmpty else { break }
        let start = rng.below(bytes.count)
        let end = min(bytes.count, start + 1 + rng.below(16))
        bytes.insert(contentsOf: bytes[start..<end], at: rng.below(bytes.count + 1))
      }
    }
    return bytes
  }

  /// Uses every accessor of a validated message and checks that each stays in range.
  static func exercise(_ raw: UnsafeRawBufferPointer, _ message: Message, _ context: String) {
    let count = raw.count
    XCTAssertTrue(
      12 <= message.questionOffset && message.questionOffset <= message.questionEnd
        && message.questionEnd <= message.answerOffset
        && message.answerOffset <= message.authorityOffset
        && message.authorityOffset <= message.additionalOffset
        && message.additionalOffset <= message.end && message.end <= count, context)
    _ = (
      message.id, message.flags.opcode, message.rcode, message.questionType, message.questionClass
    )
    var name = [UInt8](repeating: 0, count: Name.maxLength)
    let length = name.withUnsafeMutableBytes { message.copyQuestionName(into: $0, lowercase: true) }
    if message.hasQuestion {
      XCTAssertEqual(length, message.questionNameLength, context)
      XCTAssertLessThanOrEqual(length, Name.maxLength, context)
    }
    var records = message.records()
    var seen = 0
    var opts = 0
    while let record = records.next() {
      seen += 1
      XCTAssertTrue(record.offset < record.fixedOffset && record.end <= message.end, context)
      XCTAssertLessThanOrEqual(record.nameLength, Name.maxLength, context)
      let owner = try? readFlat(raw, at: record.offset, lowercase: true)
      XCTAssertEqual(owner?.name.count, record.nameLength, context)
      XCTAssertEqual(owner?.end, record.fixedOffset, context)
      if let owner { _ = formatted(owner.name) }
      if record.type == .opt { opts += 1 }
    }
    XCTAssertEqual(
      seen, message.answerCount + message.authorityCount + message.additionalCount, context)
    XCTAssertLessThanOrEqual(opts, 1, context)
    if let opt = message.opt {
      XCTAssertEqual(opt.rdataOffset + opt.rdataLength, opt.end, context)
      XCTAssertTrue(opt.offset >= message.additionalOffset && opt.end <= message.end, context)
      var position = opt.rdataOffset
      while position < opt.end {
        position += 4 + Int(raw.getUInt16(at: position + 2))
      }
      XCTAssertEqual(position, opt.end, context)
    }
  }

  func testRandomMutationsNeverCrash() {
    var rng = SplitMix64(seed: 0xD45_3A7D)
    var errors: [String: Int] = [:]
    var valid = 0
    let iterations = 20_000
    for iteration in 0..<iterations {
      let seed = Self.seeds[rng.below(Self.seeds.count)]
      let bytes = Self.mutate(seed, &rng)
      let context = "iteration \(iteration): \(hexString(bytes, separator: " "))"
      bytes.withUnsafeBytes { raw in
        do throws(WireError) {
          let message = try Message(validating: raw)
          valid += 1
          Self.exercise(raw, message, context)
          // Lenient validation agrees on everything strict validation accepts.
          let lenient = try Message(validating: raw, allowTrailingData: true)
          XCTAssertEqual(lenient.end, message.end, context)
        } catch {
          errors["\(error)", default: 0] += 1
          if error == .trailingData {
            if let lenient = try? Message(validating: raw, allowTrailingData: true) {
              Self.exercise(raw, lenient, context)
            } else {
              XCTFail("trailingData, but the lenient parse failed: \(context)")
            }
          }
        }
        // A name read from any offset, hostile or not, ends inside the message.
        var output = [UInt8](repeating: 0, count: Name.maxLength)
        for offset in stride(from: 0, to: raw.count, by: 1 + iteration % 3) {
          let read = output.withUnsafeMutableBytes { out in
            try? Name.read(in: raw, at: offset, into: out)
          }
          if let read {
            XCTAssertTrue(read.end > offset && read.end <= raw.count, context)
            XCTAssertTrue(read.length >= 1 && read.length <= Name.maxLength, context)
          }
        }
      }
    }
    // The mutations must reach deep into the parser, not just break headers.
    XCTAssertGreaterThan(valid, iterations / 50, "too few mutants validate")
    XCTAssertGreaterThanOrEqual(errors.count, 14, "errors seen: \(errors)")
  }

  /// The flat-name helpers on arbitrary bytes: they never trap and stay in bounds.
  func testNameHelpersOnRandomBytesNeverCrash() {
    var rng = SplitMix64(seed: 42)
    for _ in 0..<5_000 {
      var bytes = (0..<rng.below(40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      let copy = bytes
      _ = formatted(bytes)
      bytes.withUnsafeBytes { raw in
        _ = Name.labelCount(raw)
        _ = Name.hashIgnoringCase(raw, key: HashKey(k0: 1, k1: 2))
        _ = Name.parentOffset(raw, from: 0)
      }
      bytes.withUnsafeMutableBytes { raw in Name.randomizeCase(raw) { 0x5555_5555_5555_5555 } }
      XCTAssertEqual(bytes.count, copy.count)
      XCTAssertTrue(
        bytes.withUnsafeBytes { a in copy.withUnsafeBytes { Name.equalIgnoringCase(a, $0) } })
      // As presentation text: rejected or parsed into a valid flat name.
      var output = [UInt8](repeating: 0, count: 256)
      let parsed = copy.withUnsafeBytes { text in
        output.withUnsafeMutableBytes { out in
          try? Name.parse(text: text, into: out, allowWildcard: true)
        }
      }
      if let parsed {
        XCTAssertEqual(nameReadError(Array(output[0..<parsed]), at: 0), nil)
      }
    }
  }
}
