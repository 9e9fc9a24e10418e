import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// The defences that judge an upstream answer by its addresses (Sources/README.md,
/// Threat model): `bogus`, `bogus-nxdomain` and `rebind-protection`.
final class AnswerDefenceTests: XCTestCase {
  static let forged: [UInt8] = [198, 51, 100, 66]
  static let redirect: [UInt8] = [100, 64, 0, 80]
  static let lanAddress: [UInt8] = [192, 168, 77, 50]

  static func host(_ bytes: [UInt8]) -> AddressPrefix {
    AddressPrefix(address: ipv4(bytes[0], bytes[1], bytes[2], bytes[3]), length: 128)
  }

  func testABogusUDPAnswerIsDroppedAndTheRealOneStillAccepted() throws {
    let harness = Harness {
      $0.bogusPrefixes = [AddressPrefix(address: ipv4(198, 51, 100, 0), length: 120)]
    }
    harness.ask(makeQuery(id: 7, name: "bank.example"))
    let query = try XCTUnwrap(harness.queries.first)
    XCTAssertTrue(
      harness.answer(makeReply(to: query.bytes, addresses: [Self.forged]), to: query).isEmpty)
    XCTAssertEqual(harness.counters[.bogusDropped], 1)
    XCTAssertEqual(harness.environment.defences.map(\.event), [.bogusDropped])
    XCTAssertEqual(harness.environment.defences.first?.name, "bank.example")

    let replies = harness.answer(makeReply(to: query.bytes), to: query)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(try decoded(replies[0].bytes).records.map(\.rdata), [exampleAddress])
    XCTAssertEqual(harness.queries.count, 1, "the same upstream answered: no other was asked")
  }

  func testOnlyBogusAnswersMeanTheNextUpstreamAfterTheDeadline() throws {
    let harness = Harness { $0.bogusPrefixes = [Self.host(Self.forged)] }
    harness.ask(makeQuery(id: 7, name: "bank.example"))
    let first = harness.queries[0]
    harness.answer(makeReply(to: first.bytes, addresses: [Self.forged]), to: first)
    XCTAssertEqual(harness.queries.count, 1)
    harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertEqual(harness.queries[1].upstream, 1)
    let replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(try decoded(replies[0].bytes).records.map(\.rdata), [exampleAddress])
  }

  func testABogusTCPAnswerFailsOverAtOnce() throws {
    let config = "listen 127.0.0.1:53\nupstream tcp 127.0.0.1:5353\nupstream udp 127.0.0.2:5300"
    let harness = Harness(config) { $0.bogusPrefixes = [Self.host(Self.forged)] }
    harness.ask(makeQuery(id: 7, name: "bank.example"))
    harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [Self.forged]), to: harness.queries[0])
    XCTAssertEqual(harness.queries.count, 2, "nothing more comes over TCP: the next upstream now")
    XCTAssertEqual(harness.queries[1].upstream, 1)
  }

  func testARedirectOnlyAnswerBecomesNXDOMAIN() throws {
    let harness = Harness { $0.bogusNXDomainPrefixes = [Self.host(Self.redirect)] }
    harness.ask(makeQuery(id: 9, name: "no-such-name.example", edns: EDNS(payloadSize: 1232)))
    let query = harness.queries[0]
    let replies = harness.answer(makeReply(to: query.bytes, addresses: [Self.redirect]), to: query)
    let reply = try decoded(try XCTUnwrap(replies.first).bytes)
    XCTAssertEqual(reply.rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(reply.id, 9)
    XCTAssertEqual(reply.answerCount, 0)
    XCTAssertNotNil(reply.opt, "the client sent EDNS")
    XCTAssertEqual(harness.counters[.redirectsRewritten], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  /// A `bogus-nxdomain` address inside a `bogus` prefix: the redirect
  /// answer is the more specific statement and becomes NXDOMAIN at once (it
  /// used to be dropped as forged, so the client waited for the deadline and
  /// got SERVFAIL); any other answer with an address in the prefix is still
  /// forged.
  func testARedirectAddressInsideABogusPrefixStillBecomesNXDOMAIN() throws {
    let harness = Harness {
      $0.bogusPrefixes = [AddressPrefix(address: ipv4(100, 64, 0, 0), length: 96 + 24)]
      $0.bogusNXDomainPrefixes = [Self.host(Self.redirect)]
    }
    harness.ask(makeQuery(id: 9, name: "no-such-name.example"))
    var query = harness.queries[0]
    let replies = harness.answer(makeReply(to: query.bytes, addresses: [Self.redirect]), to: query)
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(harness.counters[.redirectsRewritten], 1)
    XCTAssertEqual(harness.counters[.bogusDropped], 0)

    harness.ask(makeQuery(id: 10, name: "bank.example"))
    query = harness.queries[1]
    let forged = makeReply(to: query.bytes, addresses: [Self.redirect, [100, 64, 0, 81]])
    XCTAssertTrue(harness.answer(forged, to: query).isEmpty, "another address of the prefix")
    XCTAssertEqual(harness.counters[.bogusDropped], 1)
  }

  func testAnAnswerWithTheRedirectAddressAndAnotherIsRelayed() throws {
    let harness = Harness { $0.bogusNXDomainPrefixes = [Self.host(Self.redirect)] }
    harness.ask(makeQuery(id: 9, name: "cdn.example"))
    let query = harness.queries[0]
    let replies = harness.answer(
      makeReply(to: query.bytes, addresses: [Self.redirect, exampleAddress]), to: query)
    XCTAssertEqual(try decoded(replies[0].bytes).answerCount, 2)
    XCTAssertEqual(harness.counters[.redirectsRewritten], 0)
  }

  func testRebindingAnswersAreRefusedAndTheNextUpstreamAsked() throws {
    let harness = Harness { $0.rebindProtection = true }
    harness.ask(makeQuery(id: 3, name: "public.example"))
    harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [Self.lanAddress]), to: harness.queries[0])
    XCTAssertEqual(harness.counters[.rebindBlocked], 1)
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertEqual(harness.queries[1].upstream, 1)
    let replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(try decoded(replies[0].bytes).records.map(\.rdata), [exampleAddress])
  }

  func testEveryPrivateRangeCountsAsRebinding() throws {
    let privates: [[UInt8]] = [
      [10, 1, 2, 3], [172, 20, 0, 1], [192, 168, 0, 1], [127, 0, 0, 1], [169, 254, 1, 1],
      [100, 100, 0, 1], [0, 0, 0, 0],
      [0xFD] + Array(repeating: 0, count: 14) + [1],  // ULA
      [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1],  // link-local
      Array(repeating: 0, count: 15) + [1],  // ::1
    ]
    for address in privates {
      let harness = Harness(
        twoUpstreams.replacingOccurrences(of: "upstream udp 127.0.0.2:5300\n", with: "")
      ) {
        $0.rebindProtection = true
      }
      harness.ask(makeQuery(id: 3, name: "public.example", type: address.count == 4 ? .a : .aaaa))
      let replies = harness.answer(
        makeReply(to: harness.queries[0].bytes, addresses: [address]), to: harness.queries[0])
      XCTAssertEqual(harness.counters[.rebindBlocked], 1, "\(address)")
      XCTAssertEqual(
        try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.serverFailure.rawValue,
        "the only upstream lied: SERVFAIL, not the private address")
    }
  }

  func testRebindAllowAndPublicAddressesPassUntouched() throws {
    let harness = Harness {
      $0.rebindProtection = true
      $0.rebindAllowNames = wireName("nas.example")
    }
    harness.ask(makeQuery(id: 3, name: "Box.NAS.example"))
    var replies = harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [Self.lanAddress]), to: harness.queries[0])
    XCTAssertEqual(try decoded(replies[0].bytes).records.map(\.rdata), [Self.lanAddress])
    harness.ask(makeQuery(id: 4, name: "www.example"))
    replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(try decoded(replies[0].bytes).records.map(\.rdata), [exampleAddress])
    XCTAssertEqual(harness.counters[.rebindBlocked], 0)
  }

  func testWithoutTheDefencesTheLiesAreRelayed() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 3, name: "public.example"))
    let replies = harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [Self.lanAddress]), to: harness.queries[0])
    XCTAssertEqual(try decoded(replies[0].bytes).records.map(\.rdata), [Self.lanAddress])
  }
}
