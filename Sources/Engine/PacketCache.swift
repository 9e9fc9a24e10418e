import DNSWire

/// The packet cache (design: "Memory"): answers in wire format, keyed by
/// (lower-cased name, type, class, DO and CD bits), in two regions allocated
/// once — a table of `capacity` entries and an arena of `arenaBytes` — plus
/// an open-addressing index. Inserting and looking up allocate nothing.
///
/// Eviction is first-in first-out over a log-structured arena: entries are
/// written one after the other and the oldest make room, so the arena never
/// fragments and the memory budget is exact. An entry is the lower-cased name
/// (its key) followed by the message as it was relayed: header, question in
/// lower case, records without OPT.
///
/// Invariants: live entries occupy disjoint arena regions in insertion order
/// (circularly); the entry ring holds them oldest first; every live entry is
/// in the index exactly once.
public final class PacketCache {
  struct Entry {
    var offset = 0
    var nameLength = 0
    var messageLength = 0
    var type = RRType.a
    var rrClass = RRClass.internet
    /// DO and CD of the question: answers differ with them.
    var keyFlags: UInt8 = 0
    var hash: UInt32 = 0
    /// When it was stored and when its TTL runs out, in the engine's clock.
    var storedAt: UInt64 = 0
    var expiresAt: UInt64 = 0
    var hits: UInt32 = 0
    var length: Int { nameLength + messageLength }
  }

  public let capacity: Int
  public let arenaBytes: Int
  let entries: UnsafeMutablePointer<Entry>
  let arena: UnsafeMutableRawBufferPointer
  /// Ring of live entries: `oldest` and `count`.
  var oldest = 0
  public private(set) var count = 0
  var writeOffset = 0
  /// Open addressing with linear probing; slot values are entry numbers,
  /// -1 for empty. At most half full (`indexMask + 1 >= 2 * capacity`).
  let index: UnsafeMutablePointer<Int32>
  let indexMask: Int
  let hashSeed: UInt32

  public static let doBit: UInt8 = 1
  public static let cdBit: UInt8 = 2

  public init(capacity: Int, arenaBytes: Int, hashSeed: UInt32) {
    self.capacity = max(capacity, 0)
    self.arenaBytes = capacity > 0 ? max(arenaBytes, 0) : 0
    self.hashSeed = hashSeed
    entries = .allocate(capacity: max(self.capacity, 1))
    entries.initialize(repeating: Entry(), count: max(self.capacity, 1))
    arena = .allocate(byteCount: max(self.arenaBytes, 1), alignment: 8)
    var size = 2
    while size < 2 * self.capacity { size <<= 1 }
    indexMask = size - 1
    index = .allocate(capacity: size)
    index.initialize(repeating: -1, count: size)
  }

  deinit {
    entries.deallocate()
    arena.deallocate()
    index.deallocate()
  }

  public var isEnabled: Bool { capacity > 0 && arenaBytes > 0 }

  /// Bytes of the arena holding live entries.
  public var bytesInUse: Int {
    var total = 0
    for step in 0..<count { total += entries[(oldest + step) % capacity].length }
    return total
  }

  func name(of entry: Entry) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: arena[entry.offset..<(entry.offset + entry.nameLength)])
  }

  /// The stored message of entry `number`.
  public func storedMessage(_ number: Int) -> UnsafeRawBufferPointer {
    let entry = entries[number]
    let start = entry.offset + entry.nameLength
    return UnsafeRawBufferPointer(rebasing: arena[start..<(start + entry.messageLength)])
  }

  func hash(_ name: UnsafeRawBufferPointer, type: RRType, keyFlags: UInt8) -> UInt32 {
    Name.hashIgnoringCase(name, seed: hashSeed ^ UInt32(type.rawValue) &* 0x9E37_79B1)
      ^ UInt32(keyFlags)
  }

  /// The entry for a question, expired or not (the caller decides what an
  /// expired entry is still good for), or nil.
  public func find(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, keyFlags: UInt8
  ) -> Int? {
    guard isEnabled else { return nil }
    let wanted = hash(name, type: type, keyFlags: keyFlags)
    var position = Int(wanted) & indexMask
    while index[position] >= 0 {
      let number = Int(index[position])
      let entry = entries[number]
      if entry.hash == wanted, entry.type == type, entry.rrClass == rrClass,
        entry.keyFlags == keyFlags, entry.nameLength == name.count,
        Name.equalIgnoringCase(self.name(of: entry), name)
      {
        return number
      }
      position = (position + 1) & indexMask
    }
    return nil
  }

  public func expiresAt(_ number: Int) -> UInt64 { entries[number].expiresAt }
  public func storedAt(_ number: Int) -> UInt64 { entries[number].storedAt }

  func noteHit(_ number: Int) { entries[number].hits &+= 1 }
  public func hits(_ number: Int) -> UInt32 { entries[number].hits }

  /// Stores `message` (already in stored form) for the question, replacing
  /// an older entry for it; evicts the oldest entries to make room. Returns
  /// false when the entry can never fit.
  @discardableResult
  public func insert(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, keyFlags: UInt8,
    message: UnsafeRawBufferPointer, now: UInt64, expiresAt: UInt64
  ) -> Bool {
    let length = name.count + message.count
    guard isEnabled, length <= arenaBytes else { return false }
    if let existing = find(name: name, type: type, rrClass: rrClass, keyFlags: keyFlags) {
      // Out of the index at once; its arena bytes are reclaimed when the
      // ring reaches it, like any other entry.
      removeFromIndex(existing)
    }
    makeRoom(length)
    let number = (oldest + count) % capacity
    count += 1
    let offset = writeOffset
    writeOffset += length
    UnsafeMutableRawBufferPointer(rebasing: arena[offset..<(offset + name.count)])
      .copyMemory(from: name)
    UnsafeMutableRawBufferPointer(rebasing: arena[(offset + name.count)..<(offset + length)])
      .copyMemory(from: message)
    // Keys are lower case, so lookups need not fold case twice.
    for position in offset..<(offset + name.count) {
      arena[position] = Name.asciiLowercased(arena[position])
    }
    let key = hash(name, type: type, keyFlags: keyFlags)
    entries[number] = Entry(
      offset: offset, nameLength: name.count, messageLength: message.count, type: type,
      rrClass: rrClass, keyFlags: keyFlags, hash: key, storedAt: now, expiresAt: expiresAt,
      hits: 0)
    var position = Int(key) & indexMask
    while index[position] >= 0 { position = (position + 1) & indexMask }
    index[position] = Int32(number)
    return true
  }

  /// Evicts the oldest entries until `length` bytes fit contiguously at the
  /// write position (wrapping to the start of the arena when they do not fit
  /// before its end) and an entry slot is free.
  func makeRoom(_ length: Int) {
    if count == capacity { evictOldest() }
    if writeOffset + length > arenaBytes {
      // Entries from the previous lap sit at or after the write position;
      // they are the oldest. Drop them, then start the new lap at 0.
      while count > 0, entries[oldest].offset >= writeOffset { evictOldest() }
      writeOffset = 0
    }
    while count > 0 {
      let entry = entries[oldest]
      let overlaps =
        entry.offset < writeOffset + length && entry.offset + entry.length > writeOffset
      guard overlaps else { break }
      evictOldest()
    }
    if count == 0 { writeOffset = 0 }
  }

  func evictOldest() {
    removeFromIndex(oldest)
    oldest = (oldest + 1) % capacity
    count -= 1
  }

  /// Takes entry `number` out of the index if it is there (backward-shift
  /// deletion keeps every probe chain unbroken without tombstones).
  func removeFromIndex(_ number: Int) {
    var position = Int(entries[number].hash) & indexMask
    while index[position] >= 0 && Int(index[position]) != number {
      position = (position + 1) & indexMask
    }
    guard index[position] >= 0 else { return }
    var hole = position
    var probe = (hole + 1) & indexMask
    while index[probe] >= 0 {
      let home = Int(entries[Int(index[probe])].hash) & indexMask
      // Move the entry back into the hole unless its home lies cyclically
      // in (hole, probe].
      let distanceToProbe = (probe - home) & indexMask
      let distanceToHole = (hole - home) & indexMask
      if distanceToHole < distanceToProbe {
        index[hole] = index[probe]
        hole = probe
      }
      probe = (probe + 1) & indexMask
    }
    index[hole] = -1
  }
}
