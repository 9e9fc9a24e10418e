import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// A question sent upstream and its answer relayed back.
final class ForwardingTests: XCTestCase {
  func testUpstreamQueryAndClientReplyAreGolden() {
    let harness = Harness()
    // The upstream ID, then one word of 0x20 bits (LSB first, one per letter).
    harness.environment.scriptedRandom = [0x4A3B, 0b101]
    let clientQuery = wire(
      "1234",  // 0  ID
      "0100",  // 2  flags: RD=1
      "0001 0000 0000 0000",  // 4  QD=1
      "07 'EXAMPLE' 03 'com' 00",  // 12 QNAME
      "0001 0001"  // 25 A IN
    )
    XCTAssertTrue(harness.ask(clientQuery).isEmpty)
    XCTAssertEqual(harness.queries.count, 1)
    guard let sent = harness.queries.first else { return }
    XCTAssertEqual(sent.upstream, 0)
    XCTAssertEqual(sent.transport, .udp)
    assertBytes(
      sent.bytes,
      wire(
        "4a3b",  // 0  ID: from the random source, not the client's 1234
        "0100",  // 2  flags: RD=1, CD=0
        "0001 0000 0000 0001",  // 4  QD=1 AN=0 NS=0 AR=1
        "07 'ExAmple' 03 'com' 00",  // 12 QNAME with 0x20 bits 1,0,1,0...
        "0001 0001",  // 25 A IN
        "00",  // 29 OPT owner: root
        "0029",  // 30 TYPE OPT
        "04d0",  // 32 UDP payload 1232
        "00000000",  // 34 ext-RCODE 0, version 0, DO=0
        "0000"  // 38 RDLENGTH 0
      ))
    let upstreamReply = wire(
      "4a3b",  // 0  ID as sent
      "8180",  // 2  flags: QR=1 RD=1 RA=1 NOERROR
      "0001 0001 0000 0001",  // 4  QD=1 AN=1 NS=0 AR=1
      "07 'ExAmple' 03 'com' 00",  // 12 QNAME echoed byte for byte
      "0001 0001",  // 25 A IN
      "c00c 0001 0001 00000e10 0004 5db8d822",  // 29 example.com A 3600 93.184.216.34
      "00 0029 1000 00000000 0000"  // 45 OPT, payload 4096
    )
    let replies = harness.answer(upstreamReply, to: sent)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(replies.first?.client, lanClient())
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "1234",  // 0  ID: the client's again
        "8180",  // 2  flags: QR=1 RD=1 (client's) RA=1 NOERROR
        "0001 0001 0000 0000",  // 4  QD=1 AN=1 NS=0 AR=0: no OPT for a client without one
        "07 'EXAMPLE' 03 'com' 00",  // 12 QNAME in the client's case
        "0001 0001",  // 25 A IN
        "c00c 0001 0001 00000e10 0004 5db8d822"  // 29 the answer, copied
      ))
    XCTAssertEqual(harness.environment.released, [Released(handle: sent.handle, transport: .udp)])
    XCTAssertEqual(harness.counters[.forwarded], 1)
    XCTAssertEqual(harness.counters[.answered], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
  }

  func testUpstreamQueryHasFreshIDRDOPTAndMixedCase() throws {
    let harness = Harness()
    let name = "abcdefghijklmnopqrstuvwxyz.example.com"
    harness.ask(makeQuery(id: 0x1234, name: name, flags: 0))
    harness.ask(makeQuery(id: 0x1234, name: "second." + name, flags: 0))
    XCTAssertEqual(harness.queries.count, 2)
    let first = try decoded(harness.queries[0].bytes)
    let second = try decoded(harness.queries[1].bytes)
    XCTAssertNotEqual(first.id, 0x1234, "the client's ID must never be sent upstream")
    XCTAssertNotEqual(first.id, second.id)
    XCTAssertFalse(first.isResponse)
    XCTAssertTrue(
      first.has(HeaderFlags.recursionDesired), "RD=1 upstream even if the client cleared it")
    XCTAssertEqual(first.questionCount, 1)
    XCTAssertEqual(first.questionType, .a)
    XCTAssertEqual(first.questionClass, .internet)
    XCTAssertEqual(first.opt?.payloadSize, 1232)
    XCTAssertEqual(first.opt?.version, 0)
    XCTAssertEqual(first.questionText.lowercased(), name)
    let letters = first.questionText.filter(\.isLetter)
    XCTAssertTrue(letters.contains(where: \.isUppercase), "0x20: some letters upper case")
    XCTAssertTrue(letters.contains(where: \.isLowercase), "0x20: some letters lower case")
    XCTAssertTrue(harness.engine.selection.usesCaseRandomization(0, under: harness.engine.settings))
  }

  func testCaseRandomizationOffSendsLowerCase() throws {
    let harness = Harness(twoUpstreams + "\ncase-randomization off")
    harness.ask(makeQuery(id: 1, name: "WWW.Example.COM"))
    let sent = try decoded(harness.queries[0].bytes)
    XCTAssertEqual(sent.questionText, "www.example.com")
    XCTAssertFalse(
      harness.engine.selection.usesCaseRandomization(0, under: harness.engine.settings))
    // The client still gets its own case back.
    let reply = try decoded(
      harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])[0].bytes)
    XCTAssertEqual(reply.questionText, "WWW.Example.COM")
    XCTAssertEqual(reply.id, 1)
  }

  func testClientRDAndCDAreRestoredInReply() throws {
    let harness = Harness()
    // RD=0, CD=1: upstream gets RD=1 and the client's CD.
    harness.ask(makeQuery(id: 0x0C0D, name: "cd.example", flags: HeaderFlags.checkingDisabled))
    let sent = try decoded(harness.queries[0].bytes)
    XCTAssertTrue(sent.has(HeaderFlags.recursionDesired))
    XCTAssertTrue(sent.has(HeaderFlags.checkingDisabled))
    // The upstream echoes RD=1 and CD=1; the client must see RD=0 CD=1.
    let replies = harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    let reply = try decoded(replies[0].bytes)
    XCTAssertEqual(reply.id, 0x0C0D)
    XCTAssertFalse(reply.has(HeaderFlags.recursionDesired))
    XCTAssertTrue(reply.has(HeaderFlags.checkingDisabled))
    XCTAssertTrue(reply.has(HeaderFlags.recursionAvailable))

    // RD=1, CD=0: upstream CD=0; an upstream that sets CD anyway is not believed.
    harness.ask(makeQuery(id: 0x0D0D, name: "rd.example"))
    let plain = try decoded(harness.queries[1].bytes)
    XCTAssertFalse(plain.has(HeaderFlags.checkingDisabled))
    var upstreamReply = makeReply(to: harness.queries[1].bytes)
    upstreamReply[3] |= 0x10  // CD=1
    upstreamReply[2] &= ~0x01  // RD=0
    let second = try decoded(harness.answer(upstreamReply, to: harness.queries[1])[0].bytes)
    XCTAssertEqual(second.id, 0x0D0D)
    XCTAssertTrue(second.has(HeaderFlags.recursionDesired))
    XCTAssertFalse(second.has(HeaderFlags.checkingDisabled))
  }

  /// dnsward is not the authority for what it relays: an authoritative upstream's AA=1
  /// is cleared, so the relayed answer and the same answer from the cache agree (AA=0).
  func testRelayedAnswersAreNotAuthoritative() throws {
    let harness = Harness(CacheTests.cached)
    harness.ask(makeQuery(id: 0x0AA0, name: "aa.example"))
    var upstreamReply = makeReply(to: harness.queries[0].bytes)
    upstreamReply[2] |= 0x04  // AA=1
    let relayed = try decoded(harness.answer(upstreamReply, to: harness.queries[0])[0].bytes)
    XCTAssertEqual(relayed.id, 0x0AA0)
    XCTAssertEqual(relayed.answerCount, 1)
    XCTAssertFalse(relayed.has(HeaderFlags.authoritative))
    let cached = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 0x0AA1, name: "aa.example")).first).bytes)
    XCTAssertEqual(cached.answerCount, 1)
    XCTAssertFalse(cached.has(HeaderFlags.authoritative))
    XCTAssertEqual(harness.queries.count, 1, "the second answer came from the cache")
  }

  func testEDNSFollowsTheClient() throws {
    let harness = Harness()
    // Without OPT: no OPT back, even though the upstream sent one.
    harness.ask(makeQuery(id: 1, name: "plain.example"))
    let plain = try decoded(
      harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])[0].bytes)
    XCTAssertNil(plain.opt)
    XCTAssertEqual(plain.additionalCount, 0)

    // With OPT and DO: the upstream query carries DO, the reply has our OPT.
    harness.ask(
      makeQuery(id: 2, name: "edns.example", edns: EDNS(payloadSize: 4096, dnssecOK: true)))
    let sent = try decoded(harness.queries[1].bytes)
    XCTAssertEqual(sent.opt?.dnssecOK, true)
    let withOPT = try decoded(
      harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])[0].bytes)
    XCTAssertEqual(withOPT.id, 2)
    XCTAssertEqual(withOPT.opt?.payloadSize, 1232)
    XCTAssertEqual(withOPT.opt?.version, 0)
    XCTAssertEqual(withOPT.additionalCount, 1)
    XCTAssertEqual(withOPT.ipv4Answers, [exampleAddress])

    // With OPT but an upstream that answers without one: the client still gets one.
    harness.ask(makeQuery(id: 3, name: "noopt.example", edns: EDNS()))
    let bare = try decoded(
      harness.answer(
        makeReply(to: harness.queries[2].bytes, withOPT: false), to: harness.queries[2])[0]
        .bytes)
    XCTAssertNotNil(bare.opt)
    XCTAssertEqual(bare.additionalCount, 1)
  }

  func testDNSSECOKIsPartOfTheQuestion() {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "do.example", edns: EDNS(dnssecOK: false)))
    harness.ask(
      makeQuery(id: 2, name: "do.example", edns: EDNS(dnssecOK: true)), from: lanClient(21))
    XCTAssertEqual(harness.queries.count, 2, "DO=0 and DO=1 answers differ: not coalesced")
    XCTAssertEqual(harness.counters[.coalesced], 0)
  }

  /// RFC 6891 §6.1.1 lets the OPT record sit anywhere in the additional
  /// section. Records after it may point at names after it; dropping the
  /// upstream's OPT must not leave those pointers aimed 11 bytes off.
  func testRelayKeepsPointersValidWhenUpstreamOPTIsNotLast() throws {
    let harness = Harness()
    harness.environment.scriptedRandom = [0x5151, 0]
    harness.ask(makeQuery(id: 0x0707, name: "example.com", edns: EDNS()))
    let upstreamReply = wire(
      "5151",  // 0  ID
      "8180",  // 2  QR RD RA
      "0001 0001 0000 0003",  // 4  QD=1 AN=1 NS=0 AR=3
      "07 'example' 03 'com' 00 0001 0001",  // 12 question
      "c00c 0001 0001 00000e10 0004 5db8d822",  // 29 answer A
      "00 0029 1000 00000000 0000",  // 45 additional 1: OPT first
      "03 'ns2' c00c 0001 0001 00000e10 0004 c0000201",  // 56 ns2.example.com A 192.0.2.1
      "c038 001c 0001 00000e10 0010 20010db8000000000000000000000001"  // 76 ->56 AAAA 2001:db8::1
    )
    XCTAssertNotNil(decode(upstreamReply), "the upstream reply itself is valid")
    let replies = harness.answer(upstreamReply, to: harness.queries[0])
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies[0].bytes)
    XCTAssertEqual(reply.id, 0x0707)
    // The OPT and the additional records after it are left out (optional
    // data, RFC 2181 §9) rather than shifted under pointers aimed at them;
    // the client gets dnsward's own OPT.
    XCTAssertEqual(reply.records.map { nameText($0.name) }, ["example.com"])
    XCTAssertEqual(reply.additionalCount, 1)
    XCTAssertNotNil(reply.opt)
  }

  func testAuthorityAndAdditionalRecordsAreRelayed() throws {
    let harness = Harness()
    harness.environment.scriptedRandom = [0x6262, 0]
    harness.ask(makeQuery(id: 0x0808, name: "nx.example.com"))
    let upstreamReply = wire(
      "6262",  // 0  ID
      "8183",  // 2  QR RD RA NXDOMAIN
      "0001 0000 0001 0001",  // 4  QD=1 AN=0 NS=1 AR=1
      "02 'nx' 07 'example' 03 'com' 00",  // 12 QNAME nx.example.com
      "0006 0001",  // 28 QTYPE SOA (wrong: A was asked), QCLASS IN
      "c00f 0006 0001 00000384 0020",  // 32 example.com SOA TTL 900, RDLENGTH 32
      "02 'ns' c00f 04 'host' c00f",  // 44 MNAME ns.example.com, RNAME host.example.com
      "00000001 00000002 00000003 00000004 00000005",  // 56 SERIAL..MINIMUM
      "00 0029 1000 00000000 0000"  // 76 OPT
    )
    // The question above says SOA (0006): the engine must reject it as a
    // different question, then accept the right one.
    XCTAssertTrue(harness.answer(upstreamReply, to: harness.queries[0]).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedQuestion], 1)
    var fixed = upstreamReply
    fixed[28] = 0x00
    fixed[29] = 0x01  // QTYPE A
    let replies = harness.answer(fixed, to: harness.queries[0])
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(reply.authorityCount, 1)
    XCTAssertEqual(reply.additionalCount, 0, "the upstream's OPT is not passed on")
    XCTAssertEqual(reply.records.first.map { nameText($0.name) }, "example.com")
    XCTAssertEqual(reply.records.first?.type, .soa)
  }

  func testNoUpstreamsAnswersSERVFAIL() throws {
    let harness = Harness("listen 127.0.0.1:53")
    let replies = harness.ask(makeQuery(id: 0x5F, name: "x.example"))
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0x5F)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters[.servFail], 1)
  }
  /// Records are copied with their offsets: pointers into the middle of the
  /// question name stay valid and take the client's case.
  func testPointersIntoTheQuestionSurviveTheClientsCase() throws {
    let harness = Harness()
    harness.environment.scriptedRandom = [0x7171, 0]
    harness.ask(makeQuery(id: 0x0909, name: "WWW.Example.COM"))
    let upstreamReply = wire(
      "7171 8180",  // 0  ID, QR RD RA
      "0001 0002 0000 0000",  // 4  QD=1 AN=2
      "03 'www' 07 'example' 03 'com' 00 0001 0001",  // 12 question (lower case, as sent)
      // 33 www.example.com CNAME cdn.(->16 example.com)
      "c00c 0005 0001 00000e10 0006 03 'cdn' c010",
      "c02d 0001 0001 00000e10 0004 5db8d822"  // 51 (->45 cdn.example.com) A
    )
    let replies = harness.answer(upstreamReply, to: harness.queries[0])
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0x0909)
    XCTAssertEqual(reply.records.map { nameText($0.name) }, ["WWW.Example.COM", "cdn.Example.COM"])
    XCTAssertEqual(reply.records.map(\.type), [.cname, .a])
  }
}
