import DNSWire
import Engine
import XCTest

/// The cache's own bookkeeping: index, FIFO eviction in a fixed arena.
/// Inserts and looks up names (type A, class IN, no DO/CD) in a cache.
struct CacheProbe {
  func flat(_ text: String) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 256)
    let length = Array(text.utf8).withUnsafeBytes { raw in
      output.withUnsafeMutableBytes { try! Name.parse(text: raw, into: $0) }
    }
    return Array(output[0..<length])
  }

  func insert(_ cache: PacketCache, _ name: String, payload: [UInt8], now: UInt64 = 0) -> Bool {
    flat(name).withUnsafeBytes { key in
      payload.withUnsafeBytes { message in
        cache.insert(
          name: key, type: .a, rrClass: .internet, keyFlags: 0, message: message, now: now,
          expiresAt: now + 1000)
      }
    }
  }

  func find(_ cache: PacketCache, _ name: String) -> Int? {
    flat(name).withUnsafeBytes { key in
      cache.find(name: key, type: .a, rrClass: .internet, keyFlags: 0)
    }
  }

  func lookup(_ cache: PacketCache, _ name: String) -> [UInt8]? {
    flat(name).withUnsafeBytes { key in
      cache.find(name: key, type: .a, rrClass: .internet, keyFlags: 0).map {
        Array(cache.storedMessage($0))
      }
    }
  }
}

final class PacketCacheTests: XCTestCase {
  let helper = CacheProbe()
  func flat(_ text: String) -> [UInt8] { helper.flat(text) }
  func insert(_ cache: PacketCache, _ name: String, payload: [UInt8], now: UInt64 = 0) -> Bool {
    helper.insert(cache, name, payload: payload, now: now)
  }
  func lookup(_ cache: PacketCache, _ name: String) -> [UInt8]? { helper.lookup(cache, name) }

  func testFindsWhatWasInsertedIgnoringCase() {
    let cache = PacketCache(capacity: 8, arenaBytes: 4096, hashKey: HashKey(k0: 7, k1: 0))
    XCTAssertTrue(insert(cache, "www.example.com", payload: [1, 2, 3]))
    XCTAssertEqual(lookup(cache, "WWW.Example.COM"), [1, 2, 3])
    XCTAssertNil(lookup(cache, "mail.example.com"))
    // Another type or DO bit is another key.
    flat("www.example.com").withUnsafeBytes { key in
      XCTAssertNil(cache.find(name: key, type: .aaaa, rrClass: .internet, keyFlags: 0))
      XCTAssertNil(
        cache.find(name: key, type: .a, rrClass: .internet, keyFlags: PacketCache.doBit))
    }
  }

  func testReplacingAnEntryKeepsOneLiveCopy() {
    let cache = PacketCache(capacity: 8, arenaBytes: 4096, hashKey: HashKey(k0: 7, k1: 0))
    XCTAssertTrue(insert(cache, "a.example", payload: [1]))
    XCTAssertTrue(insert(cache, "a.example", payload: [2, 2]))
    XCTAssertEqual(lookup(cache, "a.example"), [2, 2])
  }

  /// 100,000 distinct names through a 64-entry, 4 KiB cache: the most
  /// recent ones are found, older ones are gone, and the budget holds.
  func testEvictionUnderPressureKeepsTheNewestWithinBudget() {
    let cache = PacketCache(capacity: 64, arenaBytes: 4096, hashKey: HashKey(k0: 99, k1: 0))
    var generator = SystemRandomNumberGenerator()
    for number in 0..<100_000 {
      let payload = [UInt8](
        repeating: UInt8(number & 0xFF), count: Int.random(in: 1...120, using: &generator))
      XCTAssertTrue(insert(cache, "n\(number).example", payload: payload))
      XCTAssertLessThanOrEqual(cache.count, 64)
      XCTAssertLessThanOrEqual(cache.bytesInUse, 4096)
    }
    XCTAssertEqual(lookup(cache, "n99999.example")?.first, UInt8(99_999 & 0xFF))
    XCTAssertNil(lookup(cache, "n0.example"))
    // Every live entry is findable (the index and the ring agree).
    var found = 0
    for number in 99_900..<100_000 where lookup(cache, "n\(number).example") != nil { found += 1 }
    XCTAssertEqual(found, cache.count)
  }

  func testAnEntryLargerThanTheArenaIsRefused() {
    let cache = PacketCache(capacity: 4, arenaBytes: 64, hashKey: HashKey(k0: 1, k1: 0))
    XCTAssertFalse(insert(cache, "big.example", payload: [UInt8](repeating: 0, count: 100)))
    XCTAssertTrue(insert(cache, "small.example", payload: [1]))
  }

  func testDisabledCacheStoresNothing() {
    let cache = PacketCache(capacity: 0, arenaBytes: 4096, hashKey: HashKey(k0: 1, k1: 0))
    XCTAssertFalse(insert(cache, "a.example", payload: [1]))
    XCTAssertNil(lookup(cache, "a.example"))
  }
}

/// CLOCK: an entry hit since it was written survives its turn at the head of
/// the ring; an entry nobody asked for does not.
final class SecondChanceTests: XCTestCase {
  let helper = CacheProbe()

  func testAHotEntrySurvivesAStreamOfColdOnes() {
    let cache = PacketCache(capacity: 32, arenaBytes: 2048, hashKey: HashKey(k0: 5, k1: 0))
    XCTAssertTrue(helper.insert(cache, "hot.example", payload: [7, 7, 7]))
    XCTAssertTrue(helper.insert(cache, "cold.example", payload: [1, 1, 1]))
    for number in 0..<5_000 {
      // The hot name is asked now and then, as a popular name is.
      if number % 10 == 0, let hit = helper.find(cache, "hot.example") { cache.noteHit(hit) }
      XCTAssertTrue(
        helper.insert(cache, "s\(number).example", payload: [UInt8](repeating: 2, count: 40)))
      XCTAssertLessThanOrEqual(cache.count, 32)
      XCTAssertLessThanOrEqual(cache.bytesInUse, 2048)
    }
    XCTAssertEqual(helper.lookup(cache, "hot.example"), [7, 7, 7])
    XCTAssertNil(helper.lookup(cache, "cold.example"))
  }

  func testAnExpiredHotEntryIsNotKept() {
    let cache = PacketCache(capacity: 8, arenaBytes: 512, hashKey: HashKey(k0: 5, k1: 0))
    XCTAssertTrue(helper.insert(cache, "hot.example", payload: [7], now: 0))
    cache.noteHit(helper.find(cache, "hot.example")!)
    // Inserted at now = 0 with a 1000 ms lifetime; the stream comes later.
    for number in 0..<200 {
      XCTAssertTrue(
        helper.insert(
          cache, "s\(number).example", payload: [UInt8](repeating: 2, count: 40), now: 5_000))
    }
    XCTAssertNil(helper.lookup(cache, "hot.example"))
  }
}

final class PacketCacheLayoutTests: XCTestCase {
  /// A 10,000-entry cache keeps its bookkeeping within 400 kB (64-bit).
  func testEntryBookkeepingIsFortyBytes() {
    XCTAssertLessThanOrEqual(PacketCache.entryBytes, 40)
  }

  /// Names and messages at the limits of the narrow fields round-trip.
  func testLongestNameAndLargeMessageAreStoredWhole() throws {
    let cache = PacketCache(capacity: 4, arenaBytes: 70_000, hashKey: HashKey(k0: 3, k1: 4))
    // 255 octets: three 63-octet labels, one 61-octet label, the root.
    var name: [UInt8] = []
    for length in [63, 63, 63, 61] {
      name.append(UInt8(length))
      name += [UInt8](repeating: 0x61, count: length)
    }
    name.append(0)
    XCTAssertEqual(name.count, 255)
    let message = [UInt8](repeating: 0xAB, count: 65_000)
    let stored = name.withUnsafeBytes { nameBytes in
      message.withUnsafeBytes { messageBytes in
        cache.insert(
          name: nameBytes, type: .a, rrClass: .internet, keyFlags: 0, message: messageBytes,
          now: 0, expiresAt: 1000)
      }
    }
    XCTAssertTrue(stored)
    let number = try XCTUnwrap(
      name.withUnsafeBytes {
        cache.find(name: $0, type: .a, rrClass: .internet, keyFlags: 0)
      })
    XCTAssertEqual(Array(cache.storedMessage(number)), message)
  }
}
