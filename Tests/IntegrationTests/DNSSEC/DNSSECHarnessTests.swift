// The DNSSEC harness's own parts, without any server: the message
// rewriter the relay uses, the reading of AD and EDE, and the case table's
// invariants.
import TestSupport
import XCTest

final class DNSSECHarnessTests: XCTestCase {
  /// A reply with pointers in owner names and in NS, SOA and MX RDATA
  /// (RFC 1035 §4.1.4), an RRSIG (whose signer is never compressed) and an
  /// OPT record.
  static let compressed: [UInt8] = wire(
    "abcd 8420 0001 0002 0002 0001",
    "03 'www' 06 'dnssec' 04 'test' 00 000f 0001",  // question at 12: www.dnssec.test MX
    "c00c 000f 0001 0000012c 0004 000a c010",  // MX 10 dnssec.test (pointer)
    "c00c 002e 0001 0000012c 0009 000f 0d 03 00 00 01 2c 00",  // an RRSIG-shaped blob
    "c010 0002 0001 0000012c 0005 02 'ns' c010",  // NS ns.dnssec.test
    "c010 0006 0001 0000012c 0023 c052 0a 'hostmaster' c010", soaNumbers,  // SOA
    "00 0029 04d0 00008000 0000")
  static let soaNumbers = "00000001 00000e10 00000258 00015180 0000012c"
  // Offsets: the question name is at 12, "dnssec.test" at 16 (0x10), the
  // first answer at 33; the NS record's RDATA name "ns" starts at 0x52 (82).

  func testAReplyIsDecompressedAndWrittenBackWithTheSameRecords() throws {
    XCTAssertEqual(Self.compressed[82], 2, "the offset the SOA's pointer names")
    let message = try XCTUnwrap(PlainMessage(Self.compressed))
    XCTAssertEqual(message.id, 0xABCD)
    XCTAssertEqual(message.questionType, 15)
    XCTAssertEqual(message.answer.count, 2)
    XCTAssertEqual(message.answer[0].owner, wireName("www.dnssec.test"))
    XCTAssertEqual(message.answer[0].rdata, [0, 10] + wireName("dnssec.test"))
    XCTAssertEqual(message.answer[1].typeCovered, 15)
    XCTAssertEqual(message.authority[0].rdata, wireName("ns.dnssec.test"))
    XCTAssertEqual(
      message.authority[1].rdata,
      wireName("ns.dnssec.test") + wireName("hostmaster.dnssec.test") + wire(Self.soaNumbers))
    XCTAssertEqual(message.additional.map(\.type), [PlainRecord.opt])
    let rewritten = message.bytes
    XCTAssertGreaterThan(rewritten.count, Self.compressed.count, "no compression")
    let again = try XCTUnwrap(PlainMessage(rewritten))
    XCTAssertEqual(
      again.answer + again.authority + again.additional,
      message.answer + message.authority + message.additional)
    XCTAssertEqual(again.bytes, rewritten)
  }

  func testMalformedMessagesAreRefused() {
    let message = Self.compressed
    XCTAssertNil(PlainMessage([]))
    XCTAssertNil(PlainMessage(Array(message[0..<11])), "short header")
    XCTAssertNil(PlainMessage(Array(message.dropLast())), "record cut short")
    XCTAssertNil(PlainMessage(message + [0]), "trailing octet")
    var twoQuestions = message
    twoQuestions[5] = 2
    XCTAssertNil(PlainMessage(twoQuestions))
    var forward = message
    forward[34] = 0x60  // the answer's owner pointer now points ahead
    XCTAssertNil(PlainMessage(forward), "pointer forward")
    var loop = message
    loop[34] = 33  // a pointer to itself
    XCTAssertNil(PlainMessage(loop), "pointer loop")
    var longLabel = message
    longLabel[12] = 64
    XCTAssertNil(PlainMessage(longLabel), "label over 63")
    XCTAssertNil(PlainMessage.readName([0xC0], at: 0), "half a pointer")
  }

  func testNamesMatchAtOrBelowASuffixIgnoringCase() {
    let suffix = wireName("gone.dnssec.test")
    XCTAssertTrue(isName(wireName("GONE.dnssec.test"), atOrBelow: suffix))
    XCTAssertTrue(isName(wireName("a.b.gone.dnssec.test"), atOrBelow: suffix))
    XCTAssertFalse(isName(wireName("ongone.dnssec.test"), atOrBelow: suffix), "label boundary")
    XCTAssertFalse(isName(wireName("gone.nsec3.dnssec.test"), atOrBelow: suffix))
    XCTAssertFalse(isName(wireName("dnssec.test"), atOrBelow: suffix))
    XCTAssertTrue(isName(wireName("dnssec.test"), atOrBelow: [0]), "everything is under the root")
  }

  func testTheADBitAndTheExtendedErrorAreRead() throws {
    // SERVFAIL, EDE 7 with text "x"; then a second EDE (ignored).
    let reply = wire(
      "0001 8182 0001 0000 0000 0001", "00 0001 0001", "00 0029 04d0 00000000 000d",
      "000f 0003 0007 'x'", "000f 0002 0006")
    let outcome = try XCTUnwrap(ValidationOutcome(reply: reply))
    XCTAssertEqual(outcome, ValidationCase.bogus(7))
    XCTAssertEqual(outcome.extraText, "x")
    let secure = try XCTUnwrap(
      ValidationOutcome(reply: wire("0001 81a0 0001 0000 0000 0000 00 0001 0001")))
    XCTAssertEqual(secure, ValidationCase.secure())
    XCTAssertNotEqual(secure, ValidationCase.insecure())
    // An option longer than the OPT RDATA: no code read from it.
    let broken = wire(
      "0001 8182 0001 0000 0000 0001", "00 0001 0001", "00 0029 04d0 00000000 0006",
      "000f 0009 0007")
    XCTAssertNil(try XCTUnwrap(ValidationOutcome(reply: broken)).extendedError)
    XCTAssertNil(ValidationOutcome(reply: [0x81]))
  }

  func testACaseAcceptsUnboundsOutcomeOrOnlyTheCodesItLists() throws {
    let deleted = try XCTUnwrap(
      ValidationCases.all.first { $0.name == "NXDOMAIN, NSEC proof deleted" })
    XCTAssertTrue(deleted.accepts(ValidationCase.bogus(9)))
    XCTAssertTrue(deleted.accepts(ValidationCase.bogus(12)))
    XCTAssertFalse(deleted.accepts(ValidationCase.bogus(7)))
    XCTAssertFalse(
      deleted.accepts(ValidationOutcome(rcode: 2, authenticData: false, extendedError: nil)))
    XCTAssertFalse(
      deleted.accepts(ValidationOutcome(rcode: 3, authenticData: false, extendedError: 12)))
    XCTAssertFalse(deleted.accepts(nil))
    let secure = ValidationCases.all[0]
    XCTAssertTrue(secure.accepts(ValidationCase.secure()))
    XCTAssertFalse(secure.accepts(ValidationCase.insecure()), "AD must be set")
  }

  /// No question is asked twice, and no rule selects an honest case's
  /// question: each case's outcome depends on its own answers only.
  func testTheTableIsolatesItsCases() {
    let questions = ValidationCases.all.map { "\($0.question)/\($0.type)" }
    XCTAssertEqual(Set(questions).count, questions.count)
    for rule in ValidationCases.rules {
      for item in ValidationCases.honest {
        XCTAssertFalse(
          item.type == rule.type
            && isName(wireName(item.question), atOrBelow: wireName(rule.suffix)),
          "\(rule.suffix) selects \(item)")
      }
    }
    XCTAssertEqual(ValidationCases.rules.count, ValidationCases.tampered.count)
    XCTAssertTrue(
      ValidationCases.honest.allSatisfy { $0.expected.rcode != 2 || $0.tampering == nil })
    XCTAssertTrue(ValidationCases.tampered.allSatisfy { $0.expected.rcode == 2 })
  }
}
