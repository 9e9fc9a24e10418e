import CompiledConfig
import DNSWire
import Engine

// libFuzzer target: the cache file loader (`PacketCache.load`, format in
// Sources/Engine/AnswerCache/CacheFile.swift) on arbitrary files (built and run by
// .ci/fuzz.sh; not a SwiftPM target). The file is read at every start-up
// from a disk that a power cut, a full flash or another program may have
// written, so it is input like any packet.
//
// The first input byte picks the cache's geometry, the load time and
// whether the harness seals the rest: bit 7 clear, the rest is the file
// without its checksum and the harness appends the right one (else nearly
// every mutation would stop at the checksum and the entries would never be
// fuzzed); bit 7 set, the rest is the whole file as it lies on disk.
//
// Properties. Nothing traps. The cache holds a sentinel entry before the
// load: a refused file leaves it exactly as it was (nothing inserted). A
// loaded file leaves the cache within its entries and bytes, every entry
// already expired at the load time, and findable by its key with a stored
// message that validates and asks the key's question. Saving the loaded
// cache writes a file no larger than `maxFileSize` that a fresh cache of
// the same geometry loads whole, and saving that one writes the same bytes
// again (the format is a fixed point after one round).

let capacities = [1, 3, 16, 200]
let arenaSizes = [64, 600, 4096, 70_000]
let loadTimes: [UInt64] = [0, 1, 90_000, 1 << 40]
let sentinelExpiry: UInt64 = 1 << 50
let hashKey = HashKey(k0: 0x0123_4567_89AB_CDEF, k1: 0xFEDC_BA98_7654_3210)

/// "sentinel.test", lower case and flat.
let sentinelName: [UInt8] = [8] + Array("sentinel".utf8) + [4] + Array("test".utf8) + [0]

/// A stored answer for the sentinel: QR RD RA, its question, one A record.
let sentinelMessage: [UInt8] =
  [0, 0, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0] + sentinelName + [0, 1, 0, 1]
  + [0xC0, 12, 0, 1, 0, 1, 0, 0, 1, 0x2C, 0, 4, 192, 0, 2, 99]

func uint16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }

func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
  UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
    | UInt32(bytes[at + 3])
}

/// FNV-1a 64, as the format defines it, written out here so that the
/// harness does not take the loader's word for it.
func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
  return hash
}

/// One entry of a saved file, read by the harness itself.
struct SavedEntry {
  var name: [UInt8]
  var type: UInt16
  var rrClass: UInt16
  var keyFlags: UInt8
  var secondsLeft: UInt32
  var message: [UInt8]
}

/// Reads a file that `serialize` wrote; any deviation from the format is a
/// finding.
func readSaved(_ file: [UInt8]) -> [SavedEntry] {
  require(file.count >= 22, "saved file shorter than header and checksum")
  require(Array(file[0..<8]) == CacheFile.magic, "saved file without the magic")
  require(uint16(file, 8) == Int(CacheFile.version), "saved file with another version")
  let bodyEnd = file.count - 8
  let stored = UInt64(uint32(file, bodyEnd)) << 32 | UInt64(uint32(file, bodyEnd + 4))
  require(fnv1a(file[0..<bodyEnd]) == stored, "saved file with a wrong checksum")
  let count = Int(uint32(file, 10))
  var entries: [SavedEntry] = []
  var position = 14
  for _ in 0..<count {
    require(position < bodyEnd, "saved entry past the end")
    let nameLength = Int(file[position])
    let fixed = position + 1 + nameLength
    require(fixed + 11 <= bodyEnd, "saved entry's fields past the end")
    let messageLength = uint16(file, fixed + 9)
    let end = fixed + 11 + messageLength
    require(end <= bodyEnd, "saved entry's message past the end")
    entries.append(
      SavedEntry(
        name: Array(file[(position + 1)..<fixed]), type: UInt16(uint16(file, fixed)),
        rrClass: UInt16(uint16(file, fixed + 2)), keyFlags: file[fixed + 4],
        secondsLeft: uint32(file, fixed + 5), message: Array(file[(fixed + 11)..<end])))
    position = end
  }
  require(position == bodyEnd, "saved file with bytes after its entries")
  return entries
}

func find(_ cache: PacketCache, _ name: [UInt8], _ type: UInt16, _ rrClass: UInt16, _ flags: UInt8)
  -> Int?
{
  name.withUnsafeBytes {
    cache.find(
      name: $0, type: RRType(rawValue: type), rrClass: RRClass(rawValue: rrClass),
      keyFlags: flags)
  }
}

/// Loads `file` into `cache`: the entries inserted, or why it was refused.
func load(_ file: [UInt8], into cache: PacketCache, now: UInt64) -> Result<Int, CacheFileError> {
  file.withUnsafeBytes { bytes in
    do throws(CacheFileError) {
      return .success(try cache.load(from: bytes, now: now))
    } catch {
      return .failure(error)
    }
  }
}

func save(_ cache: PacketCache, now: UInt64) -> [UInt8] {
  var file: [UInt8] = []
  cache.serialize(into: &file, now: now)
  return file
}

/// The sentinel's key.
func isSentinel(_ entry: SavedEntry) -> Bool {
  entry.name == sentinelName && entry.type == 1 && entry.rrClass == 1 && entry.keyFlags == 0
}

/// Every entry of `saved` is in `cache` with the same message, and that
/// message validates and asks the entry's question; every entry but a
/// sentinel that is still fresh is expired at `now`.
func checkEntries(_ saved: [SavedEntry], in cache: PacketCache, now: UInt64) {
  require(saved.count <= cache.capacity, "more entries saved than the cache holds")
  require(cache.bytesInUse <= cache.arenaBytes, "cache past its arena")
  for entry in saved {
    require(!entry.name.isEmpty && entry.name.count <= 255, "saved name length out of range")
    for byte in entry.name {
      require(!(0x41...0x5A).contains(byte), "saved key not lower case")
    }
    guard let number = find(cache, entry.name, entry.type, entry.rrClass, entry.keyFlags) else {
      fatalError("a saved entry is not found by its key")
    }
    if isSentinel(entry) && cache.expiresAt(number) == sentinelExpiry {
      require(entry.message == sentinelMessage, "the sentinel changed")
    } else {
      require(entry.secondsLeft == 0, "a loaded entry saved with TTL left")
      require(cache.expiresAt(number) == now, "a loaded entry is not expired at the load time")
    }
    require(
      Array(cache.storedMessage(number)) == entry.message, "found entry differs from the saved one")
    let valid: Message? = entry.message.withUnsafeBytes { try? Message(validating: $0) }
    guard let message = valid else { fatalError("a loaded message does not validate") }
    require(message.hasQuestion, "a loaded message without a question")
    require(message.questionType.rawValue == entry.type, "a loaded message asks another type")
    require(message.questionClass.rawValue == entry.rrClass, "a loaded message asks another class")
    require(message.flags.has(HeaderFlags.response), "a loaded message that is not a response")
    require(message.opt == nil, "a loaded message with OPT")
    let question = entry.message[12..<min(12 + entry.name.count, entry.message.count)]
    require(
      question.count == entry.name.count
        && zip(question, entry.name).allSatisfy { Name.asciiLowercased($0) == $1 },
      "a loaded message's question is not its key")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size >= 1 else { return 0 }
  let selector = data[0]
  let capacity = capacities[Int(selector & 3)]
  let arenaBytes = arenaSizes[Int(selector >> 2 & 3)]
  let now = loadTimes[Int(selector >> 4 & 3)]
  var file = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  if selector & 0x80 == 0 {
    let sum = fnv1a(file[...])
    for shift in stride(from: 56, through: 0, by: -8) {
      file.append(UInt8(truncatingIfNeeded: sum >> UInt64(shift)))
    }
  }

  let cache = PacketCache(capacity: capacity, arenaBytes: arenaBytes, hashKey: hashKey)
  let sentinelFits = sentinelName.count + sentinelMessage.count <= arenaBytes
  let sentinelInserted = sentinelName.withUnsafeBytes { name in
    sentinelMessage.withUnsafeBytes { message in
      cache.insert(
        name: name, type: .a, rrClass: .internet, keyFlags: 0, message: message, now: 0,
        expiresAt: sentinelExpiry)
    }
  }
  require(sentinelInserted == sentinelFits, "the sentinel was refused or accepted wrongly")
  let before = save(cache, now: 0)

  let loaded: Int
  switch load(file, into: cache, now: now) {
  case .success(let count): loaded = count
  case .failure(let error):
    _ = error.reason
    require(save(cache, now: 0) == before, "a refused file changed the cache")
    return 0
  }

  // Accepted: whatever went in is sound, and it saves and loads again.
  let saved = save(cache, now: now)
  require(saved.count <= cache.maxFileSize, "saved file larger than maxFileSize")
  let entries = readSaved(saved)
  // `count` also counts replaced entries still waiting in the ring; a save
  // writes only the live ones.
  require(entries.count <= cache.count, "more entries saved than the cache has")
  require(
    entries.filter { !isSentinel($0) }.count <= loaded, "more entries live than were loaded")
  checkEntries(entries, in: cache, now: now)

  let again = PacketCache(capacity: capacity, arenaBytes: arenaBytes, hashKey: hashKey)
  guard case .success(let reloaded) = load(saved, into: again, now: now) else {
    fatalError("a saved file is refused")
  }
  require(reloaded == entries.count, "a saved file did not load whole")
  let resaved = save(again, now: now)
  let entriesAgain = readSaved(resaved)
  checkEntries(entriesAgain, in: again, now: now)
  // The same entries in the same order; only a fresh sentinel's TTL left
  // differs, since every loaded entry is expired.
  require(entriesAgain.count == entries.count, "a reload lost or gained entries")
  for (first, second) in zip(entries, entriesAgain) {
    require(
      first.name == second.name && first.type == second.type && first.rrClass == second.rrClass
        && first.keyFlags == second.keyFlags && first.message == second.message,
      "a reload changed or reordered an entry")
  }
  // From here on the format is a fixed point.
  let third = PacketCache(capacity: capacity, arenaBytes: arenaBytes, hashKey: hashKey)
  guard case .success(entries.count) = load(resaved, into: third, now: now) else {
    fatalError("a resaved file did not load whole")
  }
  require(save(third, now: now) == resaved, "saving a loaded file twice changed it")
  return 0
}
