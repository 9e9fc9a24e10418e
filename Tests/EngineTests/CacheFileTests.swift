import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// The cache file (`CacheFile`): what `serialize` writes, byte for byte; a
/// round trip through `load`; and that no corrupt, truncated or crafted file
/// ever inserts anything.
final class CacheFileTests: XCTestCase {
  // MARK: - Building blocks

  /// A stored answer as the engine keeps it: QR RD RA, the lower-case
  /// question at offset 12, one A record owned by a pointer to it, no OPT.
  func storedAnswer(
    _ name: String, type: RRType = .a, rcode: ResponseCode = .noError, ttl: UInt32 = 300,
    flags extra: UInt16 = 0, withOPT: Bool = false, address: [UInt8] = [192, 0, 2, 1]
  ) -> [UInt8] {
    build { (writer: inout MessageWriter) throws(WireError) in
      var flags = HeaderFlags(
        rawValue: HeaderFlags.response | HeaderFlags.recursionDesired
          | HeaderFlags.recursionAvailable | extra)
      flags.rcode = rcode
      let answers: UInt16 = rcode == .noError ? 1 : 0
      try writer.writeHeader(
        id: 0, flags: flags, questions: 1, answers: answers, additionals: withOPT ? 1 : 0)
      try writeBytes(&writer, wireName(name))
      try writer.writeUInt16(type.rawValue)
      try writer.writeUInt16(RRClass.internet.rawValue)
      if answers == 1 {
        try writeAddressRecord(&writer, address, ttl: ttl)
      }
      if withOPT { try writer.writeOPT(udpPayloadSize: 1232) }
    }
  }

  @discardableResult
  func insert(
    _ cache: PacketCache, _ name: String, type: RRType = .a, keyFlags: UInt8 = 0,
    message: [UInt8]? = nil, now: UInt64, expiresAt: UInt64
  ) -> Bool {
    let stored = message ?? storedAnswer(name, type: type)
    return wireName(name).withUnsafeBytes { key in
      stored.withUnsafeBytes { bytes in
        cache.insert(
          name: key, type: type, rrClass: .internet, keyFlags: keyFlags, message: bytes,
          now: now, expiresAt: expiresAt)
      }
    }
  }

  func find(_ cache: PacketCache, _ name: String, type: RRType = .a, keyFlags: UInt8 = 0)
    -> Int?
  {
    wireName(name).withUnsafeBytes {
      cache.find(name: $0, type: type, rrClass: .internet, keyFlags: keyFlags)
    }
  }

  func serialize(_ cache: PacketCache, now: UInt64, keepExpired: UInt64 = .max) -> [UInt8] {
    var file: [UInt8] = []
    cache.serialize(into: &file, now: now, keepExpired: keepExpired)
    return file
  }

  /// Loads `file` into `cache`: the entry count, or the error.
  func load(_ file: [UInt8], into cache: PacketCache, now: UInt64 = 9_000)
    -> Result<Int, CacheFileError>
  {
    file.withUnsafeBytes { raw in
      Result { () throws(CacheFileError) in try cache.load(from: raw, now: now) }
    }
  }

  func loadError(
    _ file: [UInt8], into cache: PacketCache? = nil, file source: StaticString = #filePath,
    line: UInt = #line
  ) -> CacheFileError? {
    let target = cache ?? freshCache()
    switch load(file, into: target) {
    case .success(let count):
      XCTFail("loaded \(count) entries from a bad file", file: source, line: line)
      return nil
    case .failure(let error):
      XCTAssertEqual(target.count, 0, "nothing inserted", file: source, line: line)
      return error
    }
  }

  func freshCache() -> PacketCache {
    PacketCache(capacity: 16, arenaBytes: 4096, hashKey: HashKey(k0: 0xBEEF, k1: 0))
  }

  func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
    (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
  }

  /// A file written by hand: header, raw entry bytes, and a correct checksum.
  func handFile(
    count: UInt32, _ entries: [UInt8], magic: [UInt8] = CacheFile.magic, version: UInt16 = 1
  ) -> [UInt8] {
    var file = magic + bigEndian(UInt64(version), bytes: 2) + bigEndian(UInt64(count), bytes: 4)
    file += entries
    return withChecksum(file)
  }

  func withChecksum(_ body: [UInt8]) -> [UInt8] {
    body + bigEndian(body.withUnsafeBytes { CacheFile.checksum($0) }, bytes: 8)
  }

  /// One entry's bytes; the lengths can be overridden to lie.
  func entryBytes(
    name: [UInt8], type: RRType = .a, keyFlags: UInt8 = 0, ttl: UInt32 = 60,
    message: [UInt8], nameLength: Int? = nil, messageLength: Int? = nil
  ) -> [UInt8] {
    [UInt8(nameLength ?? name.count)] + name + bigEndian(UInt64(type.rawValue), bytes: 2)
      + [0, 1, keyFlags] + bigEndian(UInt64(ttl), bytes: 4)
      + bigEndian(UInt64(messageLength ?? message.count), bytes: 2) + message
  }

  /// Three entries: fresh, expired (DO bit), and a negative answer.
  func sampleCache() -> PacketCache {
    let cache = PacketCache(capacity: 16, arenaBytes: 4096, hashKey: HashKey(k0: 7, k1: 0))
    insert(cache, "a.example", now: 1_000, expiresAt: 301_000)
    insert(
      cache, "b.example", type: .aaaa, keyFlags: PacketCache.doBit, now: 1_000, expiresAt: 2_000)
    insert(
      cache, "nx.example", message: storedAnswer("nx.example", rcode: .nameError), now: 1_000,
      expiresAt: 61_000)
    return cache
  }

  // MARK: - Writing

  /// The layout, field by field, for one entry.
  func testGoldenBytes() {
    let cache = PacketCache(capacity: 4, arenaBytes: 1024, hashKey: HashKey(k0: 1, k1: 0))
    let message = storedAnswer("a.b", ttl: 300)
    insert(cache, "A.b", message: message, now: 1_000, expiresAt: 301_500)
    let file = serialize(cache, now: 1_000)
    let body =
      wire(
        "'DNSWARDC'",  // magic
        "0001",  // version
        "00000001",  // entry count
        "05",  // name length
        "01 61 01 62 00",  // a.b, lower-cased
        "0001",  // type A
        "0001",  // class IN
        "00",  // key flags
        "0000012C")  // 300 s of TTL left (300.5 s, whole seconds)
      + bigEndian(UInt64(message.count), bytes: 2)  // message length
      + message
    XCTAssertEqual(file.count, body.count + 8)
    XCTAssertEqual(Array(file[0..<body.count]), body)
    XCTAssertEqual(
      Array(file[body.count...]),
      bigEndian(body.withUnsafeBytes { CacheFile.checksum($0) }, bytes: 8))
    XCTAssertEqual(file.count, 14 + 12 + 5 + message.count + 8)
    XCTAssertLessThanOrEqual(file.count, cache.maxFileSize)
  }

  /// FNV-1a 64 test vectors (the FNV reference: "" and "a").
  func testChecksumIsFNV1a64() {
    XCTAssertEqual([UInt8]().withUnsafeBytes { CacheFile.checksum($0) }, 0xCBF2_9CE4_8422_2325)
    XCTAssertEqual(
      [UInt8(ascii: "a")].withUnsafeBytes { CacheFile.checksum($0) }, 0xAF63_DC4C_8601_EC8C)
  }

  func testEmptyCacheWritesAHeaderAndAChecksum() {
    let file = serialize(freshCache(), now: 0)
    XCTAssertEqual(file.count, 22)
    XCTAssertEqual(Array(file[0..<14]), CacheFile.magic + [0, 1, 0, 0, 0, 0])
    let cache = freshCache()
    XCTAssertEqual(try load(file, into: cache).get(), 0)
  }

  /// A replaced entry is saved once (its newest answer); an entry expired
  /// longer ago than `keepExpired` is left out, one within it has TTL 0.
  func testOnlyLiveServableEntriesAreSaved() throws {
    let cache = PacketCache(capacity: 16, arenaBytes: 4096, hashKey: HashKey(k0: 3, k1: 0))
    insert(
      cache, "old.example", message: storedAnswer("old.example", address: [1, 1, 1, 1]),
      now: 0, expiresAt: 100_000)
    insert(
      cache, "old.example", message: storedAnswer("old.example", address: [2, 2, 2, 2]),
      now: 0, expiresAt: 100_000)
    insert(cache, "gone.example", now: 0, expiresAt: 1_000)
    insert(cache, "recent.example", now: 0, expiresAt: 40_000)
    let now: UInt64 = 50_000
    let file = serialize(cache, now: now, keepExpired: 30_000)
    XCTAssertEqual(Array(file[10..<14]), [0, 0, 0, 2])
    let loaded = freshCache()
    XCTAssertEqual(try load(file, into: loaded).get(), 2)
    let old = try XCTUnwrap(find(loaded, "old.example"))
    XCTAssertEqual(
      Array(loaded.storedMessage(old)), storedAnswer("old.example", address: [2, 2, 2, 2]))
    XCTAssertNotNil(find(loaded, "recent.example"))
    XCTAssertNil(find(loaded, "gone.example"))
    // TTL left: 50 s for old.example, 0 for the expired recent.example.
    let firstTTL = Array(file[(14 + 1 + 13 + 5)..<(14 + 1 + 13 + 9)])
    XCTAssertEqual(firstTTL, [0, 0, 0, 50])
    // Without a bound every indexed entry is kept.
    XCTAssertEqual(Array(serialize(cache, now: now)[10..<14]), [0, 0, 0, 3])
  }

  // MARK: - Round trip

  func testRoundTripLoadsEveryEntryExpired() throws {
    let original = sampleCache()
    let file = serialize(original, now: 2_500)
    let loaded = PacketCache(capacity: 16, arenaBytes: 4096, hashKey: HashKey(k0: 0xD1FF, k1: 0))
    XCTAssertEqual(try load(file, into: loaded, now: 9_000).get(), 3)
    XCTAssertEqual(loaded.count, 3)
    let keys: [(String, RRType, UInt8)] = [
      ("a.example", .a, 0), ("b.example", .aaaa, PacketCache.doBit), ("nx.example", .a, 0),
    ]
    for (name, type, flags) in keys {
      let before = try XCTUnwrap(find(original, name, type: type, keyFlags: flags), name)
      let after = try XCTUnwrap(find(loaded, name, type: type, keyFlags: flags), name)
      XCTAssertEqual(Array(loaded.storedMessage(after)), Array(original.storedMessage(before)))
      XCTAssertEqual(loaded.storedAt(after), 9_000, name)
      XCTAssertEqual(loaded.expiresAt(after), 9_000, "loaded as expired: \(name)")
    }
    // The key flags are part of the key.
    XCTAssertNil(find(loaded, "b.example", type: .aaaa, keyFlags: 0))
    // Saving the loaded cache gives the same entries again (TTL left 0 now).
    let again = serialize(loaded, now: 9_000)
    XCTAssertEqual(again.count, file.count)
  }

  /// Entries go in oldest first: from a file with more entries than the
  /// cache holds, the newest survive.
  func testMoreEntriesThanCapacityKeepsTheNewest() throws {
    let big = PacketCache(capacity: 64, arenaBytes: 8192, hashKey: HashKey(k0: 5, k1: 0))
    for index in 0..<10 { insert(big, "n\(index).example", now: 0, expiresAt: 1_000) }
    let small = PacketCache(capacity: 4, arenaBytes: 8192, hashKey: HashKey(k0: 6, k1: 0))
    let file = serialize(big, now: 0)
    XCTAssertLessThanOrEqual(file.count, small.maxFileSize)
    XCTAssertEqual(try load(file, into: small).get(), 10)
    XCTAssertEqual(small.count, 4)
    XCTAssertNotNil(find(small, "n9.example"))
    XCTAssertNil(find(small, "n5.example"))
  }

  /// Answers the real engine stored go through the file unchanged, and the
  /// loaded cache serves them stale: at once with stale-first (TTL 30,
  /// refreshed upstream), after the upstreams failed without it.
  func testEngineServesLoadedAnswersAsStale() throws {
    let config = engineConfig("cache 64", "cache-bytes 16k", "stale 1d")
    let first = Harness(config)
    XCTAssertTrue(first.ask(makeQuery(id: 1, name: "WWW.Example")).isEmpty)
    let sent = first.queries.last!
    XCTAssertEqual(first.answer(makeReply(to: sent.bytes, ttl: 600), to: sent).count, 1)
    let file = serialize(first.engine.cache, now: first.now)

    let staleFirst = Harness(config + "\nstale-first on", hashSeed: 0x1234)
    XCTAssertEqual(try load(file, into: staleFirst.engine.cache, now: staleFirst.now).get(), 1)
    let immediate = try decoded(
      XCTUnwrap(staleFirst.ask(makeQuery(id: 2, name: "www.example")).first).bytes)
    XCTAssertEqual(immediate.id, 2)
    XCTAssertEqual(immediate.records.first?.rdata, exampleAddress)
    XCTAssertEqual(immediate.records.first?.ttl, 30, "stale answers carry TTL 30 (RFC 8767)")
    XCTAssertEqual(staleFirst.counters[.refreshes], 1)
    XCTAssertEqual(staleFirst.queries.count, 1, "refreshed in the background")

    let afterFailure = Harness(config, hashSeed: 0x4321)
    XCTAssertEqual(
      try load(file, into: afterFailure.engine.cache, now: afterFailure.now).get(), 1)
    XCTAssertTrue(afterFailure.ask(makeQuery(id: 3, name: "www.example")).isEmpty)
    XCTAssertEqual(afterFailure.queries.count, 1, "asked upstream first")
    let stale = try decoded(XCTUnwrap(afterFailure.advance(by: 1000).first).bytes)
    XCTAssertEqual(stale.id, 3)
    XCTAssertEqual(stale.records.first?.ttl, 30)
    XCTAssertEqual(afterFailure.counters[.staleServed], 1)
  }

  // MARK: - Corruption: nothing is inserted

  func testEveryTruncationIsRejected() {
    let file = serialize(sampleCache(), now: 1_000)
    for length in 0..<file.count {
      let error = loadError(Array(file[0..<length]))
      XCTAssertEqual(error, length < 22 ? .truncated : .badChecksum, "length \(length)")
    }
  }

  func testEveryFlippedBitIsRejected() {
    let file = serialize(sampleCache(), now: 1_000)
    for position in 0..<file.count {
      for bit in [UInt8(0x01), 0x80] {
        var corrupt = file
        corrupt[position] ^= bit
        let expected: CacheFileError =
          position < 8 ? .badMagic : position < 10 ? .unsupportedVersion : .badChecksum
        XCTAssertEqual(loadError(corrupt), expected, "byte \(position) ^ \(bit)")
      }
    }
  }

  func testWrongMagicOrVersionEvenWithAGoodChecksum() {
    let entries = Array(serialize(sampleCache(), now: 1_000).dropFirst(14).dropLast(8))
    XCTAssertEqual(loadError(handFile(count: 3, entries, magic: Array("DNSWARDX".utf8))), .badMagic)
    XCTAssertEqual(loadError(handFile(count: 3, entries, version: 2)), .unsupportedVersion)
    XCTAssertEqual(loadError(handFile(count: 3, entries, version: 0)), .unsupportedVersion)
    // The hand-built file itself is good.
    XCTAssertEqual(try load(handFile(count: 3, entries), into: freshCache()).get(), 3)
  }

  func testFilesLargerThanTheCacheCanHoldAreRefused() {
    let cache = freshCache()
    XCTAssertEqual(cache.maxFileSize, 14 + 16 * 12 + 4096 + 8)
    var huge = [UInt8](repeating: 0, count: cache.maxFileSize + 1)
    huge.replaceSubrange(0..<8, with: CacheFile.magic)
    XCTAssertEqual(loadError(huge, into: cache), .tooLarge)
    XCTAssertEqual(loadError([UInt8](repeating: 0xFF, count: 1 << 20), into: cache), .tooLarge)
    // A disabled cache loads nothing and checks nothing.
    let off = PacketCache(capacity: 0, arenaBytes: 4096, hashKey: HashKey(k0: 1, k1: 0))
    XCTAssertEqual(try load(huge, into: off).get(), 0)
  }

  /// Files whose checksum is right but whose contents are not: a bug in a
  /// writer, or a crafted file. Each is rejected whole.
  func testBadEntriesInsideAValidChecksum() {
    let name = wireName("a.example")
    let good = storedAnswer("a.example")
    let goodEntry = entryBytes(name: name, message: good)
    let answerForOther = storedAnswer("b.example")
    var queryNotResponse = good
    queryNotResponse[2] = 0x01  // QR 0, RD 1
    let noQuestion: [UInt8] = [0, 0, 0x81, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]
    let cases: [(String, [UInt8], CacheFileError)] = [
      ("absurd count", handFile(count: 0xFFFF_FFFF, goodEntry), .entryOutOfBounds(1)),
      ("count too large by one", handFile(count: 2, goodEntry), .entryOutOfBounds(1)),
      ("count too small", handFile(count: 0, goodEntry), .trailingBytes),
      ("trailing byte", handFile(count: 1, goodEntry + [0]), .trailingBytes),
      (
        "name length 0", handFile(count: 1, entryBytes(name: [], message: good)),
        .entryOutOfBounds(0)
      ),
      (
        "name length past the end",
        handFile(count: 1, entryBytes(name: name, message: good, nameLength: 255)),
        .entryOutOfBounds(0)
      ),
      (
        "message length past the end",
        handFile(count: 1, entryBytes(name: name, message: good, messageLength: 65_535)),
        .entryOutOfBounds(0)
      ),
      (
        "fields cut after the name", handFile(count: 1, [UInt8(name.count)] + name + [0, 1]),
        .entryOutOfBounds(0)
      ),
      (
        "compression pointer in the name",
        handFile(count: 2, goodEntry + entryBytes(name: [0xC0, 0x0E], message: good)),
        .badName(1)
      ),
      (
        "label past the name", handFile(count: 1, entryBytes(name: [5, 0x61, 0], message: good)),
        .badName(0)
      ),
      (
        "bytes after the root",
        handFile(count: 1, entryBytes(name: name + [0], message: good)), .badName(0)
      ),
      (
        "reserved label type",
        handFile(count: 1, entryBytes(name: [0x41, 0x61, 0], message: good)), .badName(0)
      ),
      (
        "message shorter than a header",
        handFile(count: 1, entryBytes(name: name, message: Array(good[0..<11]))),
        .badMessage(0)
      ),
      (
        "message with a cut record",
        handFile(count: 1, entryBytes(name: name, message: Array(good.dropLast()))),
        .badMessage(0)
      ),
      (
        "message with trailing data",
        handFile(count: 1, entryBytes(name: name, message: good + [0])), .badMessage(0)
      ),
      (
        "a query, not a response",
        handFile(count: 1, entryBytes(name: name, message: queryNotResponse)),
        .badMessage(0)
      ),
      (
        "truncated answer",
        handFile(
          count: 1,
          entryBytes(
            name: name, message: storedAnswer("a.example", flags: HeaderFlags.truncated))),
        .badMessage(0)
      ),
      (
        "answer with OPT",
        handFile(
          count: 1, entryBytes(name: name, message: storedAnswer("a.example", withOPT: true))),
        .badMessage(0)
      ),
      (
        "SERVFAIL",
        handFile(
          count: 1,
          entryBytes(name: name, message: storedAnswer("a.example", rcode: .serverFailure))),
        .badMessage(0)
      ),
      (
        "no question",
        handFile(count: 1, entryBytes(name: name, message: noQuestion)),
        .badMessage(0)
      ),
      (
        "answer for another name",
        handFile(count: 1, entryBytes(name: name, message: answerForOther)),
        .keyMismatch(0)
      ),
      (
        "answer for a longer name",
        handFile(count: 1, entryBytes(name: name, message: storedAnswer("a.example.net"))),
        .keyMismatch(0)
      ),
      (
        "answer for another type",
        handFile(count: 1, entryBytes(name: name, type: .aaaa, message: good)), .keyMismatch(0)
      ),
      (
        "unknown key flag",
        handFile(count: 1, entryBytes(name: name, keyFlags: 4, message: good)), .keyMismatch(0)
      ),
      (
        "good entry, then a bad one",
        handFile(count: 2, goodEntry + entryBytes(name: name, message: answerForOther)),
        .keyMismatch(1)
      ),
    ]
    for (label, file, expected) in cases {
      XCTAssertEqual(loadError(file), expected, label)
    }
    // Sanity: the good entry alone loads, found under its key.
    let cache = freshCache()
    XCTAssertEqual(try load(handFile(count: 1, goodEntry), into: cache).get(), 1)
    XCTAssertNotNil(find(cache, "A.EXAMPLE"))
  }

  /// A case-insensitive match is enough between key and question (the
  /// question is lower case when the engine stores it; keys are folded on
  /// insert anyway).
  func testKeyAndQuestionMatchIgnoringCase() throws {
    let entry = entryBytes(name: wireName("A.Example"), message: storedAnswer("a.example"))
    let cache = freshCache()
    XCTAssertEqual(try load(handFile(count: 1, entry), into: cache).get(), 1)
    XCTAssertNotNil(find(cache, "a.example"))
  }

  /// Loading into a cache that already has entries, a bad file changes
  /// nothing of them.
  func testABadFileLeavesACacheAsItWas() throws {
    let cache = sampleCache()
    var file = serialize(sampleCache(), now: 1_000)
    file[20] ^= 0x10
    switch load(file, into: cache) {
    case .success: XCTFail("loaded a corrupt file")
    case .failure(let error): XCTAssertEqual(error, .badChecksum)
    }
    XCTAssertEqual(cache.count, 3)
    let number = try XCTUnwrap(find(cache, "a.example"))
    XCTAssertEqual(cache.expiresAt(number), 301_000)
  }
}
