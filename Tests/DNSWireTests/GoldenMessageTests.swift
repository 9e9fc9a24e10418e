import DNSWire
import TestSupport
import XCTest

/// Every accessor of `Message`, `ResourceRecord` and `OPTRecord` against the
/// hand-written messages in `Golden`.
final class GoldenMessageTests: XCTestCase {
  private func records(_ message: Message) -> [ResourceRecord] {
    var iterator = message.records()
    var out: [ResourceRecord] = []
    while let record = iterator.next() { out.append(record) }
    return out
  }

  func testGoldenMessagesAreTheLengthsTheirCommentsSay() {
    XCTAssertEqual(Golden.query.count, 33)
    XCTAssertEqual(Golden.addressAnswer.count, 77)
    XCTAssertEqual(Golden.cnameChain.count, 89)
    XCTAssertEqual(Golden.nxdomain.count, 84)
    XCTAssertEqual(Golden.ednsAnswer.count, 56)
    XCTAssertEqual(Golden.badVersWithOptions.count, 60)
    XCTAssertEqual(Golden.twelveBitRcode.count, 23)
    for (name, bytes) in Golden.all {
      XCTAssertNil(validationError(bytes), name)
    }
  }

  func testQuery() throws {
    try Golden.query.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.id, 0x1234)
      XCTAssertEqual(message.flags.rawValue, 0x0100)
      XCTAssertFalse(message.flags.isResponse)
      XCTAssertEqual(message.flags.opcode, .query)
      XCTAssertTrue(message.flags.has(HeaderFlags.recursionDesired))
      XCTAssertFalse(message.flags.has(HeaderFlags.recursionAvailable))
      XCTAssertFalse(message.flags.has(HeaderFlags.authoritative))
      XCTAssertFalse(message.flags.has(HeaderFlags.truncated))
      XCTAssertFalse(message.flags.has(HeaderFlags.authenticData))
      XCTAssertFalse(message.flags.has(HeaderFlags.checkingDisabled))
      XCTAssertEqual(message.flags.rcode, .noError)
      XCTAssertEqual(message.rcode, .noError)
      XCTAssertEqual(message.questionCount, 1)
      XCTAssertEqual(message.answerCount, 0)
      XCTAssertEqual(message.authorityCount, 0)
      XCTAssertEqual(message.additionalCount, 0)
      XCTAssertTrue(message.hasQuestion)
      XCTAssertEqual(message.questionOffset, 12)
      XCTAssertEqual(message.questionNameLength, 17)
      XCTAssertEqual(message.questionEnd, 33)
      XCTAssertEqual(message.questionType, .a)
      XCTAssertEqual(message.questionClass, .internet)
      XCTAssertEqual(message.answerOffset, 33)
      XCTAssertEqual(message.authorityOffset, 33)
      XCTAssertEqual(message.additionalOffset, 33)
      XCTAssertEqual(message.end, 33)
      XCTAssertNil(message.opt)
      XCTAssertEqual(message.bytes.count, 33)
      XCTAssertTrue(records(message).isEmpty)

      // The name keeps its 0x20 case unless asked to lower it.
      var output = [UInt8](repeating: 0, count: 64)
      var length = output.withUnsafeMutableBytes { message.copyQuestionName(into: $0) }
      XCTAssertEqual(Array(output[0..<length]), wire("03 'wWw' 07 'ExAmPlE' 03 'cOm' 00"))
      length = output.withUnsafeMutableBytes {
        message.copyQuestionName(into: $0, lowercase: true)
      }
      XCTAssertEqual(Array(output[0..<length]), wire("03 'www' 07 'example' 03 'com' 00"))
      // Too small a buffer: 0, and nothing written past it.
      var small = [UInt8](repeating: 0xEE, count: 17)
      length = small.withUnsafeMutableBytes {
        message.copyQuestionName(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<16]))
      }
      XCTAssertEqual(length, 0)
      XCTAssertEqual(small[16], 0xEE)
    }
  }

  func testAddressAnswerWithCompressedOwners() throws {
    try Golden.addressAnswer.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.id, 0x1234)
      XCTAssertEqual(message.flags.rawValue, 0x8180)
      XCTAssertTrue(message.flags.isResponse)
      XCTAssertTrue(message.flags.has(HeaderFlags.recursionAvailable))
      XCTAssertEqual(message.rcode, .noError)
      XCTAssertEqual(message.answerCount, 2)
      XCTAssertEqual(message.questionType, .any)
      XCTAssertEqual(message.questionClass, .internet)
      XCTAssertEqual(message.questionEnd, 33)
      XCTAssertEqual(message.answerOffset, 33)
      XCTAssertEqual(message.authorityOffset, 77)
      XCTAssertEqual(message.additionalOffset, 77)
      XCTAssertEqual(message.end, 77)
      XCTAssertNil(message.opt)

      let all = records(message)
      XCTAssertEqual(all.count, 2)
      guard all.count == 2 else { return }
      let a = all[0]
      XCTAssertEqual(a.offset, 33)
      XCTAssertEqual(a.nameLength, 17)
      XCTAssertEqual(a.fixedOffset, 35)
      XCTAssertEqual(a.type, .a)
      XCTAssertEqual(a.rrClass, .internet)
      XCTAssertEqual(a.ttl, 3600)
      XCTAssertEqual(a.ttlOffset, 39)
      XCTAssertEqual(a.rdataOffset, 45)
      XCTAssertEqual(a.rdataLength, 4)
      XCTAssertEqual(a.end, 49)
      XCTAssertEqual(bytesOf(raw, a.rdataOffset..<a.end), [93, 184, 216, 34])
      let aaaa = all[1]
      XCTAssertEqual(aaaa.offset, 49)
      XCTAssertEqual(aaaa.nameLength, 17)
      XCTAssertEqual(aaaa.fixedOffset, 51)
      XCTAssertEqual(aaaa.type, .aaaa)
      XCTAssertEqual(aaaa.rrClass, .internet)
      XCTAssertEqual(aaaa.ttl, 3600)
      XCTAssertEqual(aaaa.ttlOffset, 55)
      XCTAssertEqual(aaaa.rdataOffset, 61)
      XCTAssertEqual(aaaa.rdataLength, 16)
      XCTAssertEqual(aaaa.end, 77)
      XCTAssertEqual(
        bytesOf(raw, aaaa.rdataOffset..<aaaa.end),
        wire("2606 2800 0220 0001 0248 1893 25c8 1946"))

      // Both owners decompress to the question name; `end` is just past the pointer.
      let owner = try readFlat(raw, at: a.offset)
      XCTAssertEqual(owner.name, wire("03 'www' 07 'example' 03 'com' 00"))
      XCTAssertEqual(owner.end, 35)
      XCTAssertEqual(try readFlat(raw, at: aaaa.offset).name, owner.name)

      // A ResourceRecord can also be read directly at an offset.
      let direct = try ResourceRecord(in: raw, at: 49)
      XCTAssertEqual(direct.type, .aaaa)
      XCTAssertEqual(direct.end, 77)
    }
  }

  func testCNAMEChainFollowsThroughPointersIntoRDATA() throws {
    try Golden.cnameChain.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.id, 0xABCD)
      XCTAssertEqual(message.answerCount, 3)
      XCTAssertEqual(message.end, 89)
      let all = records(message)
      XCTAssertEqual(all.map(\.type), [.cname, .cname, .a])
      XCTAssertEqual(all.map(\.offset), [33, 51, 73])
      XCTAssertEqual(all.map(\.ttl), [300, 300, 60])
      XCTAssertEqual(all.map(\.rdataLength), [6, 10, 4])
      XCTAssertEqual(all.map(\.nameLength), [17, 17, 10])

      // Follow the chain: each owner equals the previous CNAME target.
      var current = try readFlat(raw, at: message.questionOffset).name
      var targets: [String] = []
      for record in all {
        let owner = try readFlat(raw, at: record.offset).name
        XCTAssertTrue(
          owner.withUnsafeBytes { o in current.withUnsafeBytes { Name.equalIgnoringCase(o, $0) } })
        if record.type == .cname {
          let target = try readFlat(raw, at: record.rdataOffset)
          XCTAssertEqual(target.end, record.end, "the CNAME target fills its RDATA")
          current = target.name
          targets.append(formatted(target.name))
        } else {
          XCTAssertEqual(bytesOf(raw, record.rdataOffset..<record.end), [192, 0, 2, 1])
        }
      }
      XCTAssertEqual(targets, ["cdn.example.com.", "edge.net."])
      XCTAssertEqual(formatted(current), "edge.net.")
    }
  }

  func testNXDOMAINWithSOAInAuthority() throws {
    try Golden.nxdomain.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.flags.rcode, .nameError)
      XCTAssertEqual(message.rcode, .nameError)
      XCTAssertEqual(message.answerCount, 0)
      XCTAssertEqual(message.authorityCount, 1)
      XCTAssertEqual(message.questionNameLength, 18)
      XCTAssertEqual(message.questionEnd, 34)
      XCTAssertEqual(message.answerOffset, 34)
      XCTAssertEqual(message.authorityOffset, 34)
      XCTAssertEqual(message.additionalOffset, 84)
      XCTAssertEqual(message.end, 84)
      let all = records(message)
      XCTAssertEqual(all.count, 1)
      guard let soa = all.first else { return }
      XCTAssertEqual(soa.type, .soa)
      XCTAssertEqual(soa.ttl, 900)
      XCTAssertEqual(soa.nameLength, 13)
      XCTAssertEqual(soa.rdataOffset, 46)
      XCTAssertEqual(soa.rdataLength, 38)
      XCTAssertEqual(formatted(try readFlat(raw, at: soa.offset).name), "example.com.")
      let mname = try readFlat(raw, at: soa.rdataOffset)
      XCTAssertEqual(formatted(mname.name), "ns.example.com.")
      XCTAssertEqual(mname.end, 51)
      let rname = try readFlat(raw, at: mname.end)
      XCTAssertEqual(formatted(rname.name), "hostmaster.example.com.")
      XCTAssertEqual(rname.end, 64)
      let numbers = (0..<5).map { raw.getUInt32(at: rname.end + 4 * $0) }
      XCTAssertEqual(numbers, [2_024_010_101, 7200, 3600, 1_209_600, 300])
      XCTAssertEqual(rname.end + 20, soa.end)
    }
  }

  func testEDNSAnswer() throws {
    try Golden.ednsAnswer.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.id, 0xBEEF)
      XCTAssertEqual(message.additionalCount, 1)
      XCTAssertEqual(message.additionalOffset, 45)
      XCTAssertEqual(message.end, 56)
      XCTAssertEqual(message.rcode, .noError)
      guard let opt = message.opt else { return XCTFail("no OPT") }
      XCTAssertEqual(opt.offset, 45)
      XCTAssertEqual(opt.end, 56)
      XCTAssertEqual(opt.udpPayloadSize, 1232)
      XCTAssertEqual(opt.extendedRcode, 0)
      XCTAssertEqual(opt.version, 0)
      XCTAssertTrue(opt.dnssecOK)
      XCTAssertEqual(opt.rdataOffset, 56)
      XCTAssertEqual(opt.rdataLength, 0)
      // The OPT is also a record of the walk, with its raw fields.
      let all = records(message)
      XCTAssertEqual(all.map(\.type), [.a, .opt])
      XCTAssertEqual(all.last?.rrClass.rawValue, 1232)
      XCTAssertEqual(all.last?.ttl, 0x0000_8000)
      XCTAssertEqual(all.last?.nameLength, 1)
    }
  }

  func testOPTWithOptionsAndBADVERS() throws {
    try Golden.badVersWithOptions.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.flags.rcode, .noError, "the header alone says NOERROR")
      XCTAssertEqual(message.rcode, .badVersion, "OPT extends it to 16")
      XCTAssertEqual(message.rcode.rawValue, 16)
      guard let opt = message.opt else { return XCTFail("no OPT") }
      XCTAssertEqual(opt.offset, 29)
      XCTAssertEqual(opt.end, 60)
      XCTAssertEqual(opt.udpPayloadSize, 512)
      XCTAssertEqual(opt.extendedRcode, 1)
      XCTAssertEqual(opt.version, 0)
      XCTAssertFalse(opt.dnssecOK)
      XCTAssertEqual(opt.rdataOffset, 40)
      XCTAssertEqual(opt.rdataLength, 20)
      // Walk the options as a consumer would.
      var options: [(code: UInt16, data: [UInt8])] = []
      var position = opt.rdataOffset
      while position < opt.end {
        let length = Int(raw.getUInt16(at: position + 2))
        options.append(
          (raw.getUInt16(at: position), bytesOf(raw, position + 4..<position + 4 + length)))
        position += 4 + length
      }
      XCTAssertEqual(position, opt.end)
      XCTAssertEqual(options.map(\.code), [10, 12])
      XCTAssertEqual(options.first?.data, [1, 2, 3, 4, 5, 6, 7, 8])
      XCTAssertEqual(options.last?.data, [0, 0, 0, 0])
    }
  }

  func testTwelveBitRcodeWithoutQuestion() throws {
    try Golden.twelveBitRcode.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertFalse(message.hasQuestion)
      XCTAssertEqual(message.questionOffset, 12)
      XCTAssertEqual(message.questionEnd, 12)
      XCTAssertEqual(message.questionNameLength, 0)
      XCTAssertEqual(message.flags.rcode, .refused)
      XCTAssertTrue(message.flags.has(HeaderFlags.authoritative))
      XCTAssertEqual(message.rcode.rawValue, 0xAB5)
      guard let opt = message.opt else { return XCTFail("no OPT") }
      XCTAssertEqual(opt.udpPayloadSize, 4096)
      XCTAssertEqual(opt.extendedRcode, 0xAB)
      XCTAssertEqual(opt.version, 1)
      XCTAssertTrue(opt.dnssecOK)
    }
    // The widest code: header 0xF and extended 0xFF.
    var widest = Golden.twelveBitRcode
    widest[3] = 0x0F  // flags low byte: RCODE 15
    widest[17] = 0xFF  // EXTENDED-RCODE 0xFF
    try widest.withUnsafeBytes { raw in
      XCTAssertEqual(try Message(validating: raw).rcode.rawValue, 0xFFF)
    }
  }

  func testHeaderFlagsSetters() {
    var flags = HeaderFlags(rawValue: 0)
    flags.set(HeaderFlags.response, true)
    flags.set(HeaderFlags.recursionDesired, true)
    flags.set(HeaderFlags.checkingDisabled, true)
    flags.opcode = .update
    flags.rcode = .refused
    XCTAssertEqual(flags.rawValue, 0x8000 | 5 << 11 | 0x0100 | 0x0010 | 5)
    XCTAssertEqual(flags.opcode, .update)
    XCTAssertEqual(flags.rcode, .refused)
    flags.set(HeaderFlags.checkingDisabled, false)
    flags.opcode = .query
    // Only the low four bits go into the header.
    flags.rcode = .badVersion
    XCTAssertEqual(flags.rawValue, 0x8100)
    XCTAssertEqual(flags.rcode, .noError)
    flags.opcode = Opcode(rawValue: 0xFF)
    XCTAssertEqual(flags.rawValue, 0x8100 | 0x7800, "opcode masked to four bits")
  }

  func testUnknownCodesAreCarried() throws {
    var bytes = Golden.addressAnswer
    bytes[29] = 0xFE  // QTYPE 0xFEFE
    bytes[30] = 0xFE
    bytes[31] = 0x00  // QCLASS CHAOS
    bytes[32] = 0x03
    bytes[35] = 0xAB  // answer 1 TYPE 0xAB01, unknown
    try bytes.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.questionType, RRType(rawValue: 0xFEFE))
      XCTAssertEqual(message.questionClass, .chaos)
      XCTAssertEqual(records(message).first?.type.rawValue, 0xAB01)
    }
  }
}
