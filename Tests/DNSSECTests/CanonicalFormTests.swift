// Canonical name order (RFC 4034 §6.1) and the RRset rules of the signed
// data: RDATA order and duplicates (§6.3), wildcard owners (RFC 4035
// §5.3.2), and the limits that refuse rather than overrun.

import DNSSEC
import DNSWire
import TestSupport
import XCTest

final class CanonicalFormTests: XCTestCase {
  /// RFC 4034 §6.1's example, in canonical order.
  let orderedNames: [[UInt8]] = [
    wireName("example."), wireName("a.example."), wireName("yljkjljk.a.example."),
    wireName("Z.a.example."), wireName("zABC.a.EXAMPLE."), wireName("z.example."),
    [1, 0x01] + wireName("z.example."), [1, UInt8(ascii: "*")] + wireName("z.example."),
    [1, 0xC8] + wireName("z.example."),
  ]

  func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
    lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { CanonicalOrder.compare(left, $0) } }
  }

  func testRFC4034OrderingExample() {
    for (i, lhs) in orderedNames.enumerated() {
      for (j, rhs) in orderedNames.enumerated() {
        let order = compare(lhs, rhs)
        if i < j { XCTAssertLessThan(order, 0, "\(i) < \(j)") }
        if i > j { XCTAssertGreaterThan(order, 0, "\(i) > \(j)") }
        if i == j { XCTAssertEqual(order, 0) }
      }
    }
  }

  func testOrderIgnoresCaseAndComparesLabelsFromTheRight() {
    XCTAssertEqual(compare(wireName("WWW.Example.COM."), wireName("www.example.com.")), 0)
    // "b.a" sorts after "a.b": the rightmost labels decide first.
    XCTAssertGreaterThan(compare(wireName("a.b."), wireName("b.a.")), 0)
    // A label that is a prefix of another sorts first; the root before all.
    XCTAssertLessThan(compare(wireName("ab.example."), wireName("abc.example.")), 0)
    XCTAssertLessThan(compare(wireName("."), wireName("com.")), 0)
  }

  func aRecord(_ owner: String, _ last: UInt8) -> TestRecord {
    TestRecord(owner: owner, type: .a, rdata: [192, 0, 2, last])
  }

  func rrsig(over type: RRType, owner: String, labels: UInt8) -> TestRecord {
    TestRecord(
      owner: owner, type: .rrsig,
      rdata: rrsigRDATA(
        covered: type, algorithm: 13, labels: labels, expiration: 2, inception: 1, keyTag: 7,
        signer: "example.", signature: [1, 2, 3]))
  }

  /// The RDATA of each RR in signed data whose RRSIG prefix is
  /// `prefixLength` octets and whose RRs have owners of `ownerLength`.
  func rdatas(_ data: [UInt8], prefixLength: Int, ownerLength: Int) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var position = prefixLength
    while position < data.count {
      position += ownerLength + 8
      let length = Int(data[position]) << 8 | Int(data[position + 1])
      out.append(Array(data[(position + 2)..<(position + 2 + length)]))
      position += 2 + length
    }
    return out
  }

  func testRRsetIsSortedDeduplicatedAndFiltered() {
    let bytes = buildMessage(answers: [
      aRecord("www.example.", 3), aRecord("WWW.example.", 1), aRecord("other.example.", 0),
      aRecord("www.example.", 2), aRecord("www.example.", 1),
      TestRecord(owner: "www.example.", type: .aaaa, rdata: [UInt8](repeating: 0, count: 16)),
      rrsig(over: .a, owner: "www.example.", labels: 2),
    ])
    let data = signedData(bytes, rrsigAt: 6)!
    let prefix = 18 + wireName("example.").count
    XCTAssertEqual(
      rdatas(data, prefixLength: prefix, ownerLength: wireName("www.example.").count),
      [[192, 0, 2, 1], [192, 0, 2, 2], [192, 0, 2, 3]])
    // The same RRset in the authority section is another RRset.
    XCTAssertNil(signedData(bytes, rrsigAt: 6, section: .authority))
  }

  func testNamesInRDATAAreOrderedInCanonicalForm() {
    // Raw, "B" (0x42) sorts before "a"; lower-cased, "a" comes first.
    let bytes = buildMessage(answers: [
      TestRecord(owner: "example.", type: .mx, rdata: wire("000a 01 'B' 07 'example' 00")),
      TestRecord(owner: "example.", type: .mx, rdata: wire("000a 01 'a' c00c")),
      rrsig(over: .mx, owner: "example.", labels: 1),
    ])
    let data = signedData(bytes, rrsigAt: 2)!
    XCTAssertEqual(
      rdatas(data, prefixLength: 18 + 9, ownerLength: 9),
      [wire("000a 01 'a' 07 'example' 00"), wire("000a 01 'b' 07 'example' 00")])
  }

  func testWildcardExpansionSignsTheWildcardOwner() {
    let bytes = buildMessage(answers: [
      TestRecord(owner: "a.z.w.example.", type: .mx, rdata: wire("0001 02 'ai' 07 'Example' 00")),
      rrsig(over: .mx, owner: "a.z.w.example.", labels: 2),
      rrsig(over: .mx, owner: "a.z.w.example.", labels: 5),
      rrsig(over: .mx, owner: "a.z.w.example.", labels: 4),
    ])
    let wildcard = signedData(bytes, rrsigAt: 1)!
    let prefix = 18 + wireName("example.").count
    XCTAssertEqual(Array(wildcard[prefix..<(prefix + 13)]), wire("01 '*' 01 'w' 07 'example' 00"))
    XCTAssertEqual(
      Array(wildcard[(prefix + 13 + 10)...]), wire("0001 02 'ai' 07 'example' 00"))
    // More labels than the owner has: no valid signature can exist.
    XCTAssertNil(signedData(bytes, rrsigAt: 2))
    let exact = signedData(bytes, rrsigAt: 3)!
    let owner = wireName("a.z.w.example.")
    XCTAssertEqual(Array(exact[prefix..<(prefix + owner.count)]), owner)
  }

  func testWildcardOwnerItselfIsNotExpanded() {
    let bytes = buildMessage(answers: [
      aRecord("*.w.example.", 1), rrsig(over: .a, owner: "*.w.example.", labels: 2),
    ])
    let data = signedData(bytes, rrsigAt: 1)!
    let prefix = 18 + wireName("example.").count
    XCTAssertEqual(Array(data[prefix..<(prefix + 13)]), wireName("*.w.example."))
  }

  func testRefusals() {
    // No record of the covered type: nothing was signed.
    let empty = buildMessage(answers: [rrsig(over: .a, owner: "www.example.", labels: 2)])
    XCTAssertNil(signedData(empty, rrsigAt: 0))
    // 64 records sort; 65 would need more room than the stack holds.
    let full = (0..<64).map { aRecord("x.example.", UInt8($0)) }
    XCTAssertNotNil(
      signedData(
        buildMessage(answers: full + [rrsig(over: .a, owner: "x.example.", labels: 2)]),
        rrsigAt: 64))
    XCTAssertNil(
      signedData(
        buildMessage(
          answers: full + [
            aRecord("x.example.", 99), rrsig(over: .a, owner: "x.example.", labels: 2),
          ]),
        rrsigAt: 65))
    // An SRV whose RDATA ends before its target cannot be put in canonical
    // form (DNSWire does not check SRV; this layer must).
    let srv = RRType(rawValue: 33)
    let badSRV = buildMessage(answers: [
      TestRecord(owner: "_s._udp.example.", type: srv, rdata: wire("0000 0000")),
      rrsig(over: srv, owner: "_s._udp.example.", labels: 3),
    ])
    XCTAssertNil(signedData(badSRV, rrsigAt: 1))
    let goodSRV = buildMessage(answers: [
      TestRecord(owner: "_s._udp.example.", type: srv, rdata: wire("0000 0000 0035 02 'NS' 00")),
      rrsig(over: srv, owner: "_s._udp.example.", labels: 3),
    ])
    XCTAssertEqual(
      signedData(goodSRV, rrsigAt: 1).map { Array($0.suffix(10)) },
      wire("0000 0000 0035 02 'ns' 00"))
  }
}
