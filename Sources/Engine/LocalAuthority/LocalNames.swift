import CompiledConfig
import DNSWire

/// One table of the LAN's own names, from `hosts` and `leases` files: a
/// record per (name, address) pair, found by name and by address through
/// two open-addressing hash indexes (linear probing, SipHash-1-3 under a
/// random key, since lease host names are chosen by LAN clients).
///
/// Invariants:
/// 1. Every array is allocated once, in `init`, sized by `capacity`
///    (`local-names`); `clear` and `add` refill the table in place and
///    never allocate, and a lookup touches only these arrays.
/// 2. Names are lower-cased flat wire names (RFC 1035 §3.1) stored once
///    each in `names`; records of one name are chained in the order they
///    were added, from the record the name index points at.
/// 3. The address index points at the first record added for an address:
///    on a hosts line that is the canonical (first) name, the PTR target.
/// 4. The index slot counts are powers of two at least twice `capacity`,
///    so probing always reaches an empty slot.
public final class LocalNameTable {
  struct Record {
    var address: IPAddress
    var nameOffset: UInt32
    /// With the root octet.
    var nameLength: UInt16
    /// The next record with the same name, -1 at the end of the chain.
    var nextSameName: Int32
  }

  public let capacity: Int
  let records: UnsafeMutablePointer<Record>
  public private(set) var count = 0
  /// The names, one after another; `capacity` × `averageNameBytes`.
  let names: UnsafeMutableRawBufferPointer
  var namesUsed = 0
  /// Slots hold a record index, -1 when empty.
  let nameSlots: UnsafeMutablePointer<Int32>
  let addressSlots: UnsafeMutablePointer<Int32>
  let slotMask: Int
  let hashKey: HashKey
  /// Scratch space for one name as a line or a question spells it.
  let scratch: UnsafeMutableRawBufferPointer
  /// Pairs refused since `clear` because the table (or its name space) was full.
  public private(set) var dropped = 0
  /// Seconds since 1970 at which the first lease loaded since `clear`
  /// expires; `UInt64.max` when none does.
  public internal(set) var earliestExpiry = UInt64.max

  /// Bytes of name space per entry: a lease's or a hosts line's name is
  /// rarely longer (`laptop.lan` is 12 octets in wire form).
  static let averageNameBytes = 32

  public init(capacity: Int, hashKey: HashKey) {
    self.capacity = capacity
    self.hashKey = hashKey
    var slots = 2
    while slots < 2 * capacity { slots <<= 1 }
    slotMask = slots - 1
    records = .allocate(capacity: max(capacity, 1))
    names = .allocate(
      byteCount: capacity == 0 ? 1 : max(capacity * Self.averageNameBytes, Name.maxLength),
      alignment: 8)
    nameSlots = .allocate(capacity: slots)
    addressSlots = .allocate(capacity: slots)
    scratch = .allocate(byteCount: Name.maxLength, alignment: 8)
    nameSlots.initialize(repeating: -1, count: slots)
    addressSlots.initialize(repeating: -1, count: slots)
  }

  deinit {
    records.deallocate()
    names.deallocate()
    nameSlots.deallocate()
    addressSlots.deallocate()
    scratch.deallocate()
  }

  /// Empties the table for a reload.
  public func clear() {
    count = 0
    namesUsed = 0
    dropped = 0
    earliestExpiry = .max
    nameSlots.update(repeating: -1, count: slotMask + 1)
    addressSlots.update(repeating: -1, count: slotMask + 1)
  }

  /// The first record named `name` (lower-cased, flat), or nil.
  public func firstRecord(named name: UnsafeRawBufferPointer) -> Int? {
    guard count > 0 else { return nil }
    var slot = Int(truncatingIfNeeded: Name.hashIgnoringCase(name, key: hashKey)) & slotMask
    while true {
      let index = Int(nameSlots[slot])
      if index < 0 { return nil }
      if nameMatches(records[index], name) { return index }
      slot = (slot + 1) & slotMask
    }
  }

  /// The first record with `address`: its canonical name (invariant 3).
  public func firstRecord(for address: IPAddress) -> Int? {
    guard count > 0 else { return nil }
    var slot = addressSlot(address)
    while true {
      let index = Int(addressSlots[slot])
      if index < 0 { return nil }
      if records[index].address == address { return index }
      slot = (slot + 1) & slotMask
    }
  }

  public func address(of record: Int) -> IPAddress { records[record].address }

  public func name(of record: Int) -> UnsafeRawBufferPointer {
    let entry = records[record]
    let start = Int(entry.nameOffset)
    return UnsafeRawBufferPointer(rebasing: names[start..<(start + Int(entry.nameLength))])
  }

  /// The next record with the same name, or nil.
  public func nextRecord(sameNameAs record: Int) -> Int? {
    let next = records[record].nextSameName
    return next < 0 ? nil : Int(next)
  }

  /// Adds `name` (lower-cased, flat) for `address`; a pair already there is
  /// not added twice. False when the table is full (the pair is dropped and
  /// counted).
  @discardableResult
  public func add(name: UnsafeRawBufferPointer, address: IPAddress) -> Bool {
    var nameOffset = namesUsed
    var previous: Int32 = -1
    if let first = firstRecord(named: name) {
      var index = first
      while true {
        if records[index].address == address { return true }
        guard let next = nextRecord(sameNameAs: index) else { break }
        index = next
      }
      previous = Int32(index)
      nameOffset = Int(records[first].nameOffset)
    } else if namesUsed + name.count > names.count {
      dropped += 1
      return false
    }
    guard count < capacity else {
      dropped += 1
      return false
    }
    let index = count
    records[index] = Record(
      address: address, nameOffset: UInt32(nameOffset), nameLength: UInt16(name.count),
      nextSameName: -1)
    count += 1
    if previous >= 0 {
      records[Int(previous)].nextSameName = Int32(index)
    } else {
      UnsafeMutableRawBufferPointer(rebasing: names[namesUsed..<(namesUsed + name.count)])
        .copyMemory(from: name)
      namesUsed += name.count
      var slot = Int(truncatingIfNeeded: Name.hashIgnoringCase(name, key: hashKey)) & slotMask
      while nameSlots[slot] >= 0 { slot = (slot + 1) & slotMask }
      nameSlots[slot] = Int32(index)
    }
    if firstRecord(for: address) == nil {
      var slot = addressSlot(address)
      while addressSlots[slot] >= 0 { slot = (slot + 1) & slotMask }
      addressSlots[slot] = Int32(index)
    }
    return true
  }

  func nameMatches(_ record: Record, _ name: UnsafeRawBufferPointer) -> Bool {
    guard Int(record.nameLength) == name.count else { return false }
    let start = Int(record.nameOffset)
    for offset in 0..<name.count where names[start + offset] != name[offset] {
      return false
    }
    return true
  }

  func addressSlot(_ address: IPAddress) -> Int {
    var hasher = SipHasher(key: hashKey)
    hasher.combine(address.high)
    hasher.combine(address.low)
    return Int(truncatingIfNeeded: hasher.finalize()) & slotMask
  }
}

/// The two tables of local names: the engine answers from `active` while a
/// reload fills `inactive`, then `swap` makes the new one active at once, so
/// a query never sees a half-built table (Sources/README.md, Local names).
public final class LocalNames {
  let first: LocalNameTable
  let second: LocalNameTable
  var firstIsActive = true
  /// `domain`: a lower-cased flat name, empty when none is set.
  public let domain: UnsafeRawBufferPointer
  /// Where a question's bare name (`LABEL` of `LABEL.DOMAIN`) is spelled.
  let lookupScratch: UnsafeMutableRawBufferPointer
  /// Where a local record's RDATA is spelled: an address, or a name and
  /// the domain.
  let recordData: UnsafeMutableRawBufferPointer

  /// `capacity` 0 (no file named) allocates next to nothing.
  public init(capacity: Int, domain: [UInt8], hashKey: HashKey) {
    first = LocalNameTable(capacity: capacity, hashKey: hashKey)
    second = LocalNameTable(capacity: capacity, hashKey: hashKey)
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: domain.count, alignment: 1)
    for index in 0..<domain.count { copy[index] = domain[index] }
    self.domain = UnsafeRawBufferPointer(copy)
    lookupScratch = .allocate(byteCount: 1 + Name.maxLabelLength + 1, alignment: 1)
    recordData = .allocate(byteCount: 2 * Name.maxLength, alignment: 8)
  }

  deinit {
    domain.deallocate()
    lookupScratch.deallocate()
    recordData.deallocate()
  }

  /// The table queries are answered from.
  public var active: LocalNameTable { firstIsActive ? first : second }
  /// The table a reload fills.
  public var inactive: LocalNameTable { firstIsActive ? second : first }

  /// Makes the table a reload filled the one queries are answered from.
  public func swap() { firstIsActive.toggle() }

  /// `LABEL.DOMAIN` as the flat bare name `LABEL` (in the table's scratch
  /// space), or nil when `name` is not one label directly below `domain`.
  func bareName(_ name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
    let domain = domain
    guard !domain.isEmpty, !name.isEmpty else { return nil }
    let labelEnd = 1 + Int(name[0])
    guard name[0] != 0, name.count - labelEnd == domain.count,
      Name.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: name[labelEnd...]), domain)
    else { return nil }
    let scratch = lookupScratch
    UnsafeMutableRawBufferPointer(rebasing: scratch[0..<labelEnd])
      .copyMemory(from: UnsafeRawBufferPointer(rebasing: name[0..<labelEnd]))
    scratch[labelEnd] = 0
    return UnsafeRawBufferPointer(rebasing: scratch[0...labelEnd])
  }
}
