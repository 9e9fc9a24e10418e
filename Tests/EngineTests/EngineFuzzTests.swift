import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Deterministic random traffic: client packets and upstream packets (valid
/// ones and mutations of them), stale and forged deliveries, send failures,
/// lost connections and random ticks of the fake clock. The engine must never
/// crash, never exceed its capacities, and every reply it sends must be a
/// valid response for the client it goes to; in the end every client whose
/// packet had a usable header has exactly one reply.
final class EngineFuzzTests: XCTestCase {
  static let names = [
    "www.example.com", "example.com", "a.b.c.example.org", "printer.lan", "x.dev.lan",
    "ads.example", "sub.ads.example", "mail.example.net", "xn--bcher-kva.example",
    "4.3.2.1.in-addr.arpa", "_dmarc.example.com", ".",
    String(repeating: "abcdefghij", count: 6) + "." + String(repeating: "klmnopqrst", count: 6)
      + ".example",
  ]

  /// What the test expects for one client packet, the question decoded.
  typealias Asked = AskedPacket<Decoded>

  var rng = SplitMix64(seed: 0x5EED_F022)
  var failures = 0

  func fail(_ message: String, line: UInt = #line) {
    failures += 1
    if failures <= 10 { XCTFail(message, line: line) }
  }

  func randomCase(_ name: String) -> String {
    String(
      name.map { character -> Character in
        character.isLetter && rng.percent(50) ? Character(character.uppercased()) : character
      })
  }

  func mutate(_ packet: [UInt8]) -> [UInt8] {
    var bytes = packet
    switch rng.below(7) {
    case 0:  // flip a few bits
      for _ in 0..<(1 + rng.below(4)) where !bytes.isEmpty {
        bytes[rng.below(bytes.count)] ^= UInt8(1) << UInt8(rng.below(8))
      }
    case 1:  // cut
      bytes = Array(bytes.prefix(rng.below(bytes.count + 1)))
    case 2:  // append garbage
      bytes += (0..<(1 + rng.below(8))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    case 3:  // overwrite a byte
      if !bytes.isEmpty { bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next()) }
    case 4:  // random bytes
      bytes = (0..<rng.below(64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    case 5:  // a compression pointer somewhere in the body
      if bytes.count > 14 {
        let at = HeaderField.size + rng.below(bytes.count - HeaderField.size - 1)
        bytes[at] = 0xC0 | UInt8(rng.below(4))
        bytes[at + 1] = UInt8(truncatingIfNeeded: rng.next())
      }
    default:  // counts
      if bytes.count >= HeaderField.size {
        bytes[5 + 2 * rng.below(4)] = UInt8(rng.below(4))
      }
    }
    return bytes
  }

  func randomClientPacket() -> [UInt8] {
    let name = randomCase(Self.names[rng.below(Self.names.count)])
    let types: [RRType] = [
      .a, .a, .aaaa, .any, .mx, .txt, .https, RRType(rawValue: UInt16(rng.below(300))),
    ]
    let rrClass: RRClass = rng.percent(90) ? .internet : RRClass(rawValue: UInt16(rng.below(5)))
    var flags: UInt16 = 0
    if rng.percent(80) { flags |= HeaderFlags.recursionDesired }
    if rng.percent(10) { flags |= HeaderFlags.checkingDisabled }
    if rng.percent(5) { flags |= HeaderFlags.authenticData }
    let opcode: UInt8 = rng.percent(95) ? 0 : UInt8(rng.below(16))
    var edns: EDNS? = nil
    if rng.percent(50) {
      let sizes: [UInt16] = [0, 512, 1232, 4096, UInt16(truncatingIfNeeded: rng.next())]
      edns = EDNS(
        payloadSize: sizes[rng.below(sizes.count)], version: rng.percent(95) ? 0 : 1,
        dnssecOK: rng.percent(30))
    }
    var packet = makeQuery(
      id: UInt16(truncatingIfNeeded: rng.next()), name: name, type: types[rng.below(types.count)],
      rrClass: rrClass, flags: flags, opcode: opcode, edns: edns)
    if rng.percent(25) { packet = mutate(packet) }
    return packet
  }

  func randomUpstreamPacket(for query: SentQuery) -> [UInt8] {
    let rcodes: [ResponseCode] = [
      .noError, .noError, .noError, .noError, .serverFailure, .nameError, .refused,
      .notImplemented, ResponseCode(rawValue: UInt16(rng.below(16))),
    ]
    let count = rng.percent(90) ? rng.below(4) : 20 + rng.below(70)
    var addresses = manyAddresses(count)
    if rng.percent(20) { addresses.append(Array(repeating: 0x20, count: 16)) }
    var packet = makeReply(
      to: query.bytes, rcode: rcodes[rng.below(rcodes.count)], truncated: rng.percent(10),
      addresses: addresses, withOPT: rng.percent(70))
    if rng.percent(35) {
      if rng.percent(30), !questionLetterOffsets(packet).isEmpty {
        packet = flippingCase(packet, letter: rng.below(questionLetterOffsets(packet).count))
      } else if rng.percent(20) {
        packet[rng.below(2)] ^= UInt8(1) << UInt8(rng.below(8))
      } else {
        packet = mutate(packet)
      }
    }
    return packet
  }

  func checkReply(_ reply: SentReply, asked: inout [Asked]) {
    let index = Int(reply.client.endpoint.port) - 1024
    guard index >= 0, index < asked.count, asked[index].client == reply.client else {
      fail("reply to a client that never asked: \(reply.client)")
      return
    }
    asked[index].replies += 1
    let expected = asked[index]
    guard expected.expectsReply else {
      fail("reply to a packet that must be dropped: \(hexString(expected.packet))")
      return
    }
    if expected.replies > 1 {
      fail("second reply to one query: \(hexString(expected.packet))")
    }
    guard let message = decode(reply.bytes) else {
      fail("reply does not validate: \(hexString(reply.bytes)) for \(hexString(expected.packet))")
      return
    }
    if !message.isResponse { fail("reply without QR: \(hexString(reply.bytes))") }
    if message.id != expected.id { fail("reply ID \(message.id) for query ID \(expected.id)") }
    if reply.bytes.count > expected.limit {
      fail("reply of \(reply.bytes.count) octets for a limit of \(expected.limit)")
    }
    if let question = expected.question, question.questionCount == 1, message.questionCount == 1,
      message.questionName != question.questionName || message.questionType != question.questionType
        || message.questionClass != question.questionClass
    {
      fail(
        "reply question \(message.questionText) differs from \(question.questionText): "
          + hexString(reply.bytes))
    }
  }

  func checkQuery(_ query: SentQuery, engine: Engine) {
    guard let message = decode(query.bytes) else {
      fail("upstream query does not validate: \(hexString(query.bytes))")
      return
    }
    if message.isResponse || message.questionCount != 1 || message.opt == nil
      || query.bytes.count > 512 || !message.has(HeaderFlags.recursionDesired)
    {
      fail("malformed upstream query: \(hexString(query.bytes))")
    }
    if query.transport == .tcp && message.questionName.contains(where: { $0 &- 0x41 < 26 }) {
      fail("0x20 over TCP: \(message.questionText)")
    }
    if query.upstream < 0 || query.upstream >= engine.upstreams.count {
      fail("query to upstream \(query.upstream)")
    }
  }

  func testRandomTrafficKeepsInvariants() {
    runRandomTraffic()
  }

  /// The same with every hijack defence on (the fuzzed upstream answers are
  /// mutations that hit bogus, redirect and private addresses rarely; the
  /// point is that holds, checks and probes keep the invariants).
  func testRandomTrafficWithTheHijackDefencesKeepsInvariants() {
    runRandomTraffic { settings in
      settings.upstreams[2].trusted = true
      settings.verifyNames = wireName("example.com")
      settings.holdOnMilliseconds = 30
      settings.rebindProtection = true
      settings.detectNXDomainRedirect = true
      settings.bogusPrefixes = [AddressPrefix(address: ipv4(93, 184, 216, 0), length: 96 + 28)]
      settings.bogusNXDomainPrefixes = [AddressPrefix(address: ipv4(10, 9, 0, 0), length: 96 + 16)]
    }
  }

  /// The same with `dnssec on` under the root's anchors: every unsigned
  /// answer needs DS and DNSKEY links, so the pending pool, chain fetches
  /// joined and failed, deadlines and bogus entries are all in play; every
  /// client still gets one reply and nothing leaks.
  func testRandomTrafficWithDNSSECKeepsInvariants() {
    runRandomTraffic { settings in
      settings.dnssec = .on
    }
  }

  /// `dnssec on` with hold-on and verify: validation before the hold and
  /// parked slots beside held and checked ones.
  func testRandomTrafficWithDNSSECAndTheDefencesKeepsInvariants() {
    runRandomTraffic { settings in
      settings.dnssec = .on
      settings.upstreams[2].trusted = true
      settings.verifyNames = wireName("example.com")
      settings.holdOnMilliseconds = 30
      settings.rebindProtection = true
    }
  }

  func runRandomTraffic(adjust: (inout Settings) -> Void = { _ in }) {
    let harness = Harness(forwardingFuzzConfig, seed: 0xF022_F022, adjust: adjust)
    harness.environment.sendFailurePercent = 3
    let capacity = harness.engine.settings.inflight
    var asked: [Asked] = []
    var outstanding: [SentQuery] = []
    var repliesSeen = 0
    var queriesSeen = 0

    for _ in 0..<20_000 {
      let action = rng.below(100)
      switch action {
      case 0..<40:
        let packet = randomClientPacket()
        let port = UInt16(1024 + asked.count)
        let roll = rng.below(100)
        let client: ClientRef
        if roll < 10 {
          client = ClientRef(
            endpoint: Endpoint(address: ipv4(192, 168, 1, 7), port: port), listener: 1,
            connection: UInt32(port), isTCP: true)
        } else if roll < 15 {
          client = ClientRef(
            endpoint: Endpoint(address: ipv4(198, 51, 100, 1), port: port), listener: 0)
        } else {
          client = ClientRef(
            endpoint: Endpoint(address: ipv4(192, 168, 1, 8), port: port), listener: 0)
        }
        let parsed = decode(packet)
        let limit =
          client.isTCP
          ? 65_535 : parsed?.opt.map { max(512, min(Int($0.payloadSize), 1232)) } ?? 512
        let expects = packet.count >= HeaderField.size && packet[2] & 0x80 == 0
        asked.append(
          Asked(
            packet: packet, client: client, expectsReply: expects,
            id: packet.count >= 2 ? UInt16(packet[0]) << 8 | UInt16(packet[1]) : 0, limit: limit,
            question: parsed))
        harness.ask(packet, from: client)
      case 40..<80:
        guard !outstanding.isEmpty else { continue }
        // Mostly recent queries, sometimes old (stale) ones.
        let pick =
          rng.percent(80)
          ? outstanding.count - 1 - rng.below(min(outstanding.count, 8))
          : rng.below(outstanding.count)
        let query = outstanding[pick]
        let packet = randomUpstreamPacket(for: query)
        let server = harness.engine.upstreams[query.upstream].endpoint
        switch rng.below(20) {
        case 0:
          harness.deliver(
            packet,
            transaction: TransactionHandle(
              slot: UInt32(rng.below(20)), generation: UInt32(rng.below(8))),
            upstream: query.upstream, from: server)
        case 1:
          harness.deliver(packet, transaction: nil, upstream: rng.below(3), from: server)
        case 2:
          harness.deliver(
            packet, transaction: query.handle, upstream: query.upstream,
            from: Endpoint(address: server.address, port: UInt16(truncatingIfNeeded: rng.next())))
        default:
          harness.answer(packet, to: query)
        }
      case 80..<95:
        harness.advance(by: UInt64(rng.below(250)))
      case 95..<98:
        if !outstanding.isEmpty {
          harness.attemptFailed(outstanding[rng.below(outstanding.count)].handle)
        }
      default:
        harness.connectionLost(upstream: rng.below(3))
      }

      for reply in harness.replies[repliesSeen...] { checkReply(reply, asked: &asked) }
      repliesSeen = harness.replies.count
      for query in harness.queries[queriesSeen...] {
        checkQuery(query, engine: harness.engine)
        if query.accepted { outstanding.append(query) }
      }
      queriesSeen = harness.queries.count
      if outstanding.count > 64 { outstanding.removeFirst(outstanding.count - 64) }
      if harness.engine.activeTransactions > capacity || harness.engine.waitersInUse > capacity
        || harness.engine.waitersInUse < 0
      {
        fail(
          "over capacity: \(harness.engine.activeTransactions) transactions, "
            + "\(harness.engine.waitersInUse) waiters")
      }
      if failures > 20 { break }
    }

    // Let everything in flight run out.
    var rounds = 0
    while harness.engine.activeTransactions > 0 && rounds < 100 {
      harness.advance(by: 1000)
      rounds += 1
    }
    for reply in harness.replies[repliesSeen...] { checkReply(reply, asked: &asked) }
    if harness.engine.settings.detectNXDomainRedirect {
      XCTAssertGreaterThan(harness.counters[.redirectProbes], 0)
      XCTAssertGreaterThan(harness.engine.nextDeadline ?? 0, harness.now, "the next probe round")
    } else {
      XCTAssertNil(harness.engine.nextDeadline)
    }
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
    let unanswered = asked.filter { $0.expectsReply && $0.replies == 0 }
    XCTAssertTrue(
      unanswered.isEmpty,
      "\(unanswered.count) clients never got a reply, e.g. \(unanswered.prefix(3).map { hexString($0.packet) })"
    )

    // The run did exercise the engine.
    let counters = harness.counters
    XCTAssertGreaterThan(asked.count, 7_000)
    XCTAssertGreaterThan(counters[.forwarded], 1_000)
    if harness.engine.settings.validatesDNSSEC {
      // Unsigned answers under the root's anchor: fetched for, mostly bogus.
      XCTAssertGreaterThan(counters[.dnssecFetches], 100)
      XCTAssertGreaterThan(counters[.dnssecBogus], 100)
    } else {
      XCTAssertGreaterThan(counters[.answered], 500)
    }
    XCTAssertGreaterThan(counters[.coalesced], 0)
    XCTAssertGreaterThan(counters[.timeouts], 0)
    XCTAssertGreaterThan(counters[.mismatchedCase], 0)
    XCTAssertGreaterThan(counters[.truncated], 0)
    XCTAssertGreaterThan(counters[.formErr], 0)
  }
}
