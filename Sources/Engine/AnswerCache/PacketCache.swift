import DNSWire

/// The packet cache (Sources/README.md, Memory): answers in wire format, keyed by
/// (lower-cased name, type, class, DO and CD bits), in two regions allocated
/// once — a table of `capacity` entries and an arena of `arenaBytes` — plus
/// an open-addressing index. Inserting and looking up allocate nothing.
///
/// Eviction is CLOCK (second chance) over a log-structured arena: entries
/// are written one after the other and the oldest make room, so the arena
/// never fragments and the memory budget is exact; an oldest entry that was
/// hit since it was written (or last moved) and is still fresh is moved to
/// the write position instead, once per make-room, with its bit cleared. An entry is the lower-cased name
/// (its key) followed by the message as it was relayed: header, question in
/// lower case, records without OPT.
///
/// Invariants: live entries occupy disjoint arena regions in insertion order
/// (circularly); the entry ring holds them oldest first; every live entry is
/// in the index exactly once.
public final class PacketCache {
  /// 40 bytes, so that a 10,000-entry cache costs 400 kB of bookkeeping:
  /// lengths and offsets are stored narrow (a name is at most 255 octets, a
  /// message at most 65,535, the arena at most 256 MiB) and read as `Int`.
  struct Entry {
    /// When it was stored and when its TTL runs out, in the engine's clock.
    var storedAt: UInt64 = 0
    var expiresAt: UInt64 = 0
    var storedOffset: UInt32 = 0
    var hash: UInt32 = 0
    var hits: UInt32 = 0
    var storedMessageLength: UInt16 = 0
    var type = RRType.a
    var rrClass = RRClass.internet
    var storedNameLength: UInt8 = 0
    /// DO and CD of the question: answers differ with them.
    var keyFlags: UInt8 = 0
    /// Hit since it was written or last given a second chance.
    var referenced = false
    /// False once a newer answer for the same question replaced it: it only
    /// waits for the ring to reclaim its bytes.
    var live = true
    /// `dnssec`: what validation found (`ValidationState`'s raw value: 0
    /// unchecked, 1 secure, 2 insecure, 3 bogus), and for a bogus entry its
    /// RFC 8914 INFO-CODE (all the validator gives fit a byte). Two bytes the
    /// 40-byte stride already had as padding.
    var validation: UInt8 = 0
    var extendedError: UInt8 = 0

    init() {}

    init(
      offset: Int, nameLength: Int, messageLength: Int, type: RRType, rrClass: RRClass,
      keyFlags: UInt8, hash: UInt32, storedAt: UInt64, expiresAt: UInt64, hits: UInt32
    ) {
      storedOffset = UInt32(truncatingIfNeeded: offset)
      storedNameLength = UInt8(truncatingIfNeeded: nameLength)
      storedMessageLength = UInt16(truncatingIfNeeded: messageLength)
      self.type = type
      self.rrClass = rrClass
      self.keyFlags = keyFlags
      self.hash = hash
      self.storedAt = storedAt
      self.expiresAt = expiresAt
      self.hits = hits
    }

    var offset: Int {
      get { Int(storedOffset) }
      set { storedOffset = UInt32(truncatingIfNeeded: newValue) }
    }
    var nameLength: Int { Int(storedNameLength) }
    var messageLength: Int { Int(storedMessageLength) }
    var length: Int { nameLength + messageLength }
  }

  /// Bytes of bookkeeping per entry besides its arena bytes and its index
  /// slots (the cache's memory figures in Tests/Benchmarks/README.md rest on
  /// this).
  public static var entryBytes: Int { MemoryLayout<Entry>.stride }

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
  let hashKey: HashKey
  /// When the engine last looked for `prefetch` names due for a refresh
  /// (0: never; Prefetch.swift).
  var lastPrefetchSweep: UInt64 = 0
  /// A DS or DNSKEY answer the validator read in the last tenth of its
  /// lifetime, for the engine to ask again before it expires
  /// (`Engine.refreshDueChainRecord`); −1: none.
  var dueChainEntry = -1

  public static let doBit: UInt8 = 1
  public static let cdBit: UInt8 = 2

  /// The key bits of a question's DO and CD flags: the answer differs with
  /// each.
  static func keyFlags(dnssecOK: Bool, checkingDisabled: Bool) -> UInt8 {
    (dnssecOK ? doBit : 0) | (checkingDisabled ? cdBit : 0)
  }

  public init(capacity: Int, arenaBytes: Int, hashKey: HashKey) {
    self.capacity = max(capacity, 0)
    self.arenaBytes = capacity > 0 ? max(arenaBytes, 0) : 0
    self.hashKey = hashKey
    // Not initialized: only ring entries are read, each written when the
    // ring reaches it (`Entry` is trivial), so a page of the table becomes
    // resident when the cache first grows into it, as the arena's do.
    entries = .allocate(capacity: max(self.capacity, 1))
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
  /// Capacity in entries, 0 when the cache is off.
  var enabledCapacity: Int { isEnabled ? capacity : 0 }

  /// Forgets every entry (a reload that changed where answers come from);
  /// the memory stays allocated.
  public func removeAll() {
    index.update(repeating: -1, count: indexMask + 1)
    dueChainEntry = -1
    oldest = 0
    count = 0
    writeOffset = 0
  }

  /// Bytes of the arena holding live entries.
  public var bytesInUse: Int {
    var total = 0
    for step in 0..<count { total += entries[(oldest + step) % capacity].length }
    return total
  }

  func name(of entry: Entry) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: arena[entry.offset..<(entry.offset + entry.nameLength)])
  }

  /// The stored (lower-case) name and the type of entry `number`'s question.
  func question(_ number: Int) -> (name: UnsafeRawBufferPointer, type: RRType) {
    (name(of: entries[number]), entries[number].type)
  }

  /// The stored message of entry `number`.
  public func storedMessage(_ number: Int) -> UnsafeRawBufferPointer {
    let entry = entries[number]
    let start = entry.offset + entry.nameLength
    return UnsafeRawBufferPointer(rebasing: arena[start..<(start + entry.messageLength)])
  }

  /// The keyed hash of an entry's key (the class is compared, not hashed:
  /// nearly every question is IN). Entries keep its low 32 bits.
  func hash(_ name: UnsafeRawBufferPointer, type: RRType, keyFlags: UInt8) -> UInt32 {
    UInt32(
      truncatingIfNeeded: Name.hashIgnoringCase(
        name, key: hashKey, tweak: UInt64(type.rawValue) | UInt64(keyFlags) << 16))
  }

  /// The entry for a question, expired or not (the caller decides what an
  /// expired entry is still good for), or nil.
  public func find(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, keyFlags: UInt8
  ) -> Int? {
    guard isEnabled else { return nil }
    let wanted = hash(name, type: type, keyFlags: keyFlags)
    var position = Int(truncatingIfNeeded: wanted) & indexMask
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

  public func noteHit(_ number: Int) {
    entries[number].hits &+= 1
    entries[number].referenced = true
  }
  public func hits(_ number: Int) -> UInt32 { entries[number].hits }
  /// The validation state entry `number` was stored with (0: unchecked).
  public func validation(_ number: Int) -> UInt8 { entries[number].validation }
  /// The INFO-CODE of a bogus entry (RFC 8914 §4).
  public func extendedError(_ number: Int) -> UInt8 { entries[number].extendedError }

  /// Stores `message` (already in stored form) for the question, replacing
  /// an older entry for it, with its validation state; evicts the oldest
  /// entries to make room. Returns false when the entry can never fit.
  @discardableResult
  public func insert(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, keyFlags: UInt8,
    message: UnsafeRawBufferPointer, now: UInt64, expiresAt: UInt64, validation: UInt8 = 0,
    extendedError: UInt8 = 0
  ) -> Bool {
    let length = name.count + message.count
    // The entry's narrow fields hold these (a flat name is at most 255
    // octets, a DNS message at most 65,535).
    guard isEnabled, length <= arenaBytes, name.count <= 255, message.count <= 65_535 else {
      return false
    }
    if let existing = find(name: name, type: type, rrClass: rrClass, keyFlags: keyFlags) {
      // Out of the index at once; its arena bytes are reclaimed when the
      // ring reaches it, like any other entry.
      removeFromIndex(existing)
      entries[existing].live = false
    }
    makeRoom(length, now: now)
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
    entries[number].validation = validation
    entries[number].extendedError = extendedError
    addToIndex(number)
    return true
  }

  func addToIndex(_ number: Int) {
    var position = Int(truncatingIfNeeded: entries[number].hash) & indexMask
    while index[position] >= 0 { position = (position + 1) & indexMask }
    index[position] = Int32(number)
  }

  /// Makes `length` bytes fit contiguously at the write position (wrapping
  /// to the start of the arena when they do not fit before its end) and an
  /// entry slot free, retiring the oldest entries: each is evicted, or moved
  /// to the write position if it earned a second chance. At most `count`
  /// moves per call, so the loop ends even when every entry is hot.
  func makeRoom(_ length: Int, now: UInt64) {
    var chances = count
    while count > 0 {
      let entry = entries[oldest]
      if count < capacity {
        if writeOffset + length > arenaBytes {
          // Entries from the previous lap sit at or after the write position;
          // they are the oldest. Once they are gone, the new lap starts at 0.
          guard entry.offset >= writeOffset else {
            writeOffset = 0
            continue
          }
        } else {
          let overlaps =
            entry.offset < writeOffset + length && entry.offset + entry.length > writeOffset
          guard overlaps else { break }
        }
      }
      // Between the write position and the oldest entry nothing is live, so
      // the oldest can move there if it fits before the end of the arena.
      if chances > 0, entry.live, entry.referenced, entry.expiresAt > now,
        writeOffset + entry.length <= arenaBytes
      {
        chances -= 1
        moveOldestToWritePosition()
      } else {
        evictOldest()
      }
    }
    if count == 0 || writeOffset + length > arenaBytes { writeOffset = 0 }
  }

  /// The oldest entry becomes the newest: its bytes move back to the write
  /// position (nothing live lies between, and source and destination may
  /// overlap, hence memmove semantics), its ring slot and index entry follow.
  func moveOldestToWritePosition() {
    var entry = entries[oldest]
    removeFromIndex(oldest)
    oldest = (oldest + 1) % capacity
    count -= 1
    if entry.offset != writeOffset {
      (arena.baseAddress! + writeOffset).copyMemory(
        from: arena.baseAddress! + entry.offset, byteCount: entry.length)
    }
    entry.offset = writeOffset
    entry.referenced = false
    writeOffset += entry.length
    let number = (oldest + count) % capacity
    count += 1
    entries[number] = entry
    addToIndex(number)
  }

  func evictOldest() {
    removeFromIndex(oldest)
    oldest = (oldest + 1) % capacity
    count -= 1
  }

  /// Takes entry `number` out of the index if it is there (backward-shift
  /// deletion keeps every probe chain unbroken without tombstones).
  func removeFromIndex(_ number: Int) {
    var position = Int(truncatingIfNeeded: entries[number].hash) & indexMask
    while index[position] >= 0 && Int(index[position]) != number {
      position = (position + 1) & indexMask
    }
    guard index[position] >= 0 else { return }
    var hole = position
    var probe = (hole + 1) & indexMask
    while index[probe] >= 0 {
      let home = Int(truncatingIfNeeded: entries[Int(index[probe])].hash) & indexMask
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

extension PacketCache {
  /// Whether an entry is close enough to expiry to be refreshed: in the last
  /// tenth of its lifetime (unbound's prefetch uses the same fraction), or
  /// past it.
  func isDueForRefresh(_ number: Int, now: UInt64) -> Bool {
    let stored = storedAt(number)
    let expires = expiresAt(number)
    let lifetime = expires > stored ? expires - stored : 0
    return now + lifetime / 10 >= expires
  }
}
