import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// `nftset`: the A and AAAA addresses of answers sent to clients for the
/// listed names reach the environment with the TTL the client gets —
/// forwarded answers, cache hits (TTL less the time in cache), stale
/// answers; the final records of a CNAME chain for the name asked; nothing
/// for other names, other rcodes, or without `nftset`.
final class NftSetTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:53
    upstream udp 198.51.100.1
    nftset inet fw vpn4,vpn6 for video.example
    nftset ip fw other for cdn.video.example for shared.example
    nftset ip6 fw six for shared.example
    timeout 1000ms
    stale 1h
    """

  func forward(
    _ harness: Harness, _ name: String, type: RRType = .a, addresses: [[UInt8]], ttl: UInt32,
    rcode: ResponseCode = .noError
  ) -> [SentReply] {
    let id = UInt16(harness.replies.count + 1)
    let before = harness.queries.count
    harness.ask(makeQuery(id: id, name: name, type: type))
    guard harness.queries.count == before + 1 else {
      XCTFail("\(name) was not forwarded")
      return []
    }
    let query = harness.queries[before]
    return harness.answer(
      makeReply(to: query.bytes, rcode: rcode, addresses: addresses, ttl: ttl), to: query)
  }

  func testAForwardedAnswerAddsItsAddressesWithTheirTTL() {
    let harness = Harness(Self.config)
    let replies = forward(
      harness, "www.Video.example", addresses: [[192, 0, 2, 10], [192, 0, 2, 11]], ttl: 300)
    XCTAssertEqual(replies.count, 1, "the answer goes out")
    XCTAssertEqual(
      harness.environment.nftsetAdds,
      [
        NftSetAdd(directives: 0b1, address: [192, 0, 2, 10], ttl: 300),
        NftSetAdd(directives: 0b1, address: [192, 0, 2, 11], ttl: 300),
      ])
    let v6: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
    _ = forward(harness, "video.example", type: .aaaa, addresses: [v6], ttl: 60)
    XCTAssertEqual(
      harness.environment.nftsetAdds.last, NftSetAdd(directives: 0b1, address: v6, ttl: 60))
    XCTAssertEqual(harness.counters[.nftsetAddresses], 3)
  }

  func testTheLongestDomainAndSharedDomainsChooseTheDirectives() {
    let harness = Harness(Self.config)
    _ = forward(harness, "a.cdn.video.example", addresses: [[192, 0, 2, 1]], ttl: 30)
    _ = forward(harness, "x.shared.example", addresses: [[192, 0, 2, 2]], ttl: 40)
    XCTAssertEqual(
      harness.environment.nftsetAdds,
      [
        NftSetAdd(directives: 0b010, address: [192, 0, 2, 1], ttl: 30),
        NftSetAdd(directives: 0b110, address: [192, 0, 2, 2], ttl: 40),
      ])
  }

  func testOtherNamesAndNegativeAnswersAddNothing() {
    let harness = Harness(Self.config)
    XCTAssertEqual(
      forward(harness, "www.example", addresses: [[192, 0, 2, 3]], ttl: 300).count, 1)
    XCTAssertEqual(
      forward(harness, "notvideo.example", addresses: [[192, 0, 2, 3]], ttl: 300).count, 1)
    _ = forward(harness, "gone.video.example", addresses: [], ttl: 300, rcode: .nameError)
    _ = forward(
      harness, "x.video.example", addresses: [[192, 0, 2, 4]], ttl: 300, rcode: .serverFailure)
    XCTAssertEqual(harness.environment.nftsetAdds, [])
    XCTAssertEqual(harness.counters[.nftsetAddresses], 0)
    // Without nftset, nothing is looked up or added.
    let plain = Harness("listen 127.0.0.1:53\nupstream udp 198.51.100.1")
    _ = forward(plain, "www.video.example", addresses: [[192, 0, 2, 5]], ttl: 300)
    XCTAssertEqual(plain.environment.nftsetAdds, [])
  }

  func testACachedAnswerAddsItsAddressesWithTheRemainingTTL() {
    let harness = Harness(Self.config)
    _ = forward(harness, "www.video.example", addresses: [[192, 0, 2, 20]], ttl: 300)
    harness.now += 100_000
    let replies = harness.ask(makeQuery(id: 99, name: "www.video.example"))
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(harness.counters[.cacheHits], 1)
    XCTAssertEqual(
      harness.environment.nftsetAdds,
      [
        NftSetAdd(directives: 1, address: [192, 0, 2, 20], ttl: 300),
        NftSetAdd(directives: 1, address: [192, 0, 2, 20], ttl: 200),
      ])
    XCTAssertEqual(decode(replies[0].bytes)?.records.first?.ttl, 200, "the client's TTL")
  }

  /// `www.video.example CNAME edge.cdn.net`, `edge.cdn.net A 192.0.2.30`:
  /// the chain's address fills the sets of the name asked.
  func testTheEndOfACNAMEChainFillsTheSetsOfTheNameAsked() {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 5, name: "www.video.example"))
    let query = harness.queries[0]
    guard let decoded = decode(query.bytes) else { return XCTFail("query") }
    let target = wireName("edge.cdn.net")
    let targetOffset = HeaderField.size + decoded.questionBytes.count + 12
    let reply = build { (writer: inout MessageWriter) throws(WireError) in
      try writer.writeHeader(
        id: decoded.id,
        flags: HeaderFlags(rawValue: HeaderFlags.response | HeaderFlags.recursionDesired),
        questions: 1, answers: 2)
      try writeBytes(&writer, decoded.questionBytes)
      try writer.writeUInt16(0xC000 | UInt16(HeaderField.size))
      try writer.writeUInt16(RRType.cname.rawValue)
      try writer.writeUInt16(RRClass.internet.rawValue)
      try writer.writeUInt32(600)
      try writer.writeUInt16(UInt16(target.count))
      try writeBytes(&writer, target)
      try writeAddressRecord(&writer, [192, 0, 2, 30], ttl: 120, ownerOffset: targetOffset)
    }
    XCTAssertEqual(harness.answer(reply, to: query).count, 1)
    XCTAssertEqual(
      harness.environment.nftsetAdds,
      [NftSetAdd(directives: 1, address: [192, 0, 2, 30], ttl: 120)])
  }

  /// Every upstream fails: the stale answer given to the client (TTL 30,
  /// RFC 8767) refreshes the set's elements with that TTL.
  func testAStaleAnswerAddsWithTheStaleTTL() {
    let harness = Harness(Self.config)
    _ = forward(harness, "www.video.example", addresses: [[192, 0, 2, 40]], ttl: 10)
    harness.now += 20_000
    harness.ask(makeQuery(id: 77, name: "www.video.example"))
    let replies = harness.advance(by: 5_000)
    XCTAssertEqual(replies.count, 1, "answered stale")
    XCTAssertEqual(
      harness.environment.nftsetAdds.last,
      NftSetAdd(directives: 1, address: [192, 0, 2, 40], ttl: 30))
  }
}
