import DNSWire

/// Builds an `OverrideTable` from entries in any order; used by the config
/// compiler (which then prints the tables) and by `--config` at start-up.
///
/// Entries are kept flat (all names in one array, fixed-size entries beside
/// it) so that a block list of a million names costs a few bytes per name
/// beyond the name itself while it is read.
public struct OverrideTableBuilder {
  public struct Entry {
    public var name: [UInt8]
    public var kind: OverrideKind
    public var ipv4: [UInt8]
    public var ipv6: [UInt8]
    /// `.route` entries: the upstream (its index in the config, below 64)
    /// that answers the name.
    public var upstream: UInt8
    public init(
      name: [UInt8], kind: OverrideKind, ipv4: [UInt8] = [], ipv6: [UInt8] = [],
      upstream: UInt8 = 0
    ) {
      self.name = name
      self.kind = kind
      self.ipv4 = ipv4
      self.ipv6 = ipv6
      self.upstream = upstream
    }
  }

  /// An added entry; its lower-cased name is
  /// `names[nameStart..<nameStart + nameLength]` and its addresses start at
  /// `addressStart` in `addresses`.
  struct Pending {
    var nameStart: UInt32
    var addressStart: UInt32
    var nameLength: UInt8
    var kind: OverrideKind
    /// The A record count, or for a `.route` entry its upstream.
    var ipv4Count: UInt8
    var ipv6Count: UInt8
  }

  var names: [UInt8] = []
  var addresses: [UInt8] = []
  var pending: [Pending] = []
  /// The size `records` would have if no entry were a duplicate.
  public private(set) var recordBytes = 0

  public init() {}

  /// Entries added so far, duplicates included.
  public var count: Int { pending.count }

  /// Whether `entry` fits: `records` and `addressBytes` must stay below
  /// `OverrideRecord.offsetLimit`.
  public func hasRoom(for entry: Entry) -> Bool {
    let recordSize = OverrideRecord.headerSize(entry.kind) + entry.name.count
    let addressSize = entry.ipv4.count + entry.ipv6.count
    return recordBytes + recordSize < OverrideRecord.offsetLimit
      && addresses.count + addressSize < OverrideRecord.offsetLimit
  }

  /// Adds an entry: a flat name of at most 255 octets, at most 255 addresses
  /// of each family (they are counted in a byte), and room for it.
  public mutating func add(_ entry: Entry) {
    precondition(entry.name.count <= Name.maxLength, "flat names are at most 255 octets")
    precondition(entry.ipv4.count / 4 <= 255 && entry.ipv6.count / 16 <= 255, "too many addresses")
    precondition(hasRoom(for: entry), "the override table is full")
    pending.append(
      Pending(
        nameStart: UInt32(names.count), addressStart: UInt32(addresses.count),
        nameLength: UInt8(entry.name.count), kind: entry.kind,
        ipv4Count: entry.kind == .route ? entry.upstream : UInt8(entry.ipv4.count / 4),
        ipv6Count: UInt8(entry.ipv6.count / 16)))
    for byte in entry.name { names.append(Name.asciiLowercased(byte)) }
    addresses.append(contentsOf: entry.ipv4)
    addresses.append(contentsOf: entry.ipv6)
    recordBytes += OverrideRecord.headerSize(entry.kind) + entry.name.count
  }

  /// The table: entries sorted by lower-cased name, then kind; blocks of
  /// the same name kept once (block lists overlap; one entry answers the
  /// same). Addresses are laid out in table order.
  public func build() -> OverrideTable {
    var routeGroups: [UInt64] = []
    return build(routeGroups: &routeGroups)
  }

  /// The same, for `.route` entries: a name listed for several upstreams
  /// is kept once, with the group of that set of upstreams; `routeGroups[g
  /// - 1]` becomes the set of group g, one bit per upstream, groups
  /// numbered in table order from 1. Beyond 127 sets, entries get group 127
  /// (the caller rejects that many).
  public func build(routeGroups: inout [UInt64]) -> OverrideTable {
    let order = sortedEntries()
    var records: [UInt8] = []
    var index: [UInt8] = []
    var fences: [UInt8] = []
    var addressBytes: [UInt8] = []
    records.reserveCapacity(recordBytes)
    index.reserveCapacity(order.count * OverrideRecord.offsetDigits)
    addressBytes.reserveCapacity(addresses.count)
    // The set of upstreams of the route entry written last, and where its
    // group digit is.
    var routeSet: UInt64 = 0
    var routeGroupOffset = -1
    names.withUnsafeBytes { names in
      var previous: Int? = nil
      for (key, entry) in order {
        var isDuplicate = false
        if let previous, pending[previous].kind == pending[entry].kind,
          pending[entry].kind == .block || pending[entry].kind == .route
        {
          isDuplicate = Self.compare(name(entry, in: names), name(previous, in: names)) == 0
        }
        previous = entry
        if pending[entry].kind == .route {
          if !isDuplicate {
            Self.closeRoute(routeSet, at: routeGroupOffset, in: &records, groups: &routeGroups)
            routeSet = 0
            routeGroupOffset = records.count + OverrideRecord.routeGroup
          }
          routeSet |= 1 << UInt64(pending[entry].ipv4Count & 63)
        }
        if isDuplicate { continue }
        let kept = index.count / OverrideRecord.offsetDigits
        if kept % OverrideRecord.fenceStride == 0 {
          // The fence key is the sort key: the name's first eight bytes.
          for shift in stride(from: 56, through: 0, by: -8) {
            fences.append(UInt8(truncatingIfNeeded: key >> UInt64(shift)))
          }
        }
        OverrideRecord.appendDigits(
          records.count, count: OverrideRecord.offsetDigits, to: &index)
        appendRecord(entry, names: names, records: &records, addressBytes: &addressBytes)
      }
    }
    Self.closeRoute(routeSet, at: routeGroupOffset, in: &records, groups: &routeGroups)
    return OverrideTable(
      records: TableBytes(records), index: TableBytes(index), fences: TableBytes(fences),
      addressBytes: TableBytes(addressBytes))
  }

  /// Writes the group of the upstream set `set` at `offset` (none if
  /// negative), numbering a set not seen before.
  static func closeRoute(
    _ set: UInt64, at offset: Int, in records: inout [UInt8], groups: inout [UInt64]
  ) {
    guard offset >= 0 else { return }
    var group = 0
    while group < groups.count && groups[group] != set { group += 1 }
    if group == groups.count { groups.append(set) }
    records[offset] = UInt8(min(group + 1, 127))
  }

  /// The entries in table order: by name, then by kind. Names are compared
  /// first by their leading eight bytes packed into one integer, which
  /// decides most comparisons of a large list in one step.
  func sortedEntries() -> [(key: UInt64, entry: Int)] {
    var keyed = names.withUnsafeBytes { names in
      (0..<pending.count).map { entry in
        (key: Self.leadingBytes(name(entry, in: names)), entry: entry)
      }
    }
    names.withUnsafeBytes { names in mergeSort(&keyed, names: names) }
    return keyed
  }

  /// Whether `lhs` comes before `rhs` in the table: by key, then by name,
  /// then by kind. Equal entries (a name blocked twice) keep their order.
  func precedes(
    _ lhs: (key: UInt64, entry: Int), _ rhs: (key: UInt64, entry: Int),
    names: UnsafeRawBufferPointer
  ) -> Bool {
    if lhs.key != rhs.key { return lhs.key < rhs.key }
    let comparison = Self.compare(name(lhs.entry, in: names), name(rhs.entry, in: names))
    return comparison != 0
      ? comparison < 0 : pending[lhs.entry].kind.rawValue < pending[rhs.entry].kind.rawValue
  }

  /// Sorts `entries` by `precedes`, stably: a bottom-up merge sort, runs of
  /// 1, 2, 4 … merged from one array into a second of the same size and
  /// back (n log n comparisons; a million names in 20 sequential passes).
  /// Written here rather than the standard `sort`, whose five
  /// specializations for this one closure cost the firmware 5 KB of code.
  func mergeSort(_ entries: inout [(key: UInt64, entry: Int)], names: UnsafeRawBufferPointer) {
    let count = entries.count
    guard count > 1 else { return }
    var scratch = entries
    var sortedInScratch = false
    var width = 1
    entries.withUnsafeMutableBufferPointer { first in
      scratch.withUnsafeMutableBufferPointer { second in
        while width < count {
          let source = sortedInScratch ? second : first
          let target = sortedInScratch ? first : second
          var start = 0
          while start < count {
            let middle = min(start + width, count)
            let end = min(start + 2 * width, count)
            var left = start
            var right = middle
            for position in start..<end {
              // The left run wins ties, which keeps the sort stable.
              if left < middle
                && (right == end || !precedes(source[right], source[left], names: names))
              {
                target[position] = source[left]
                left += 1
              } else {
                target[position] = source[right]
                right += 1
              }
            }
            start = end
          }
          sortedInScratch.toggle()
          width *= 2
        }
      }
    }
    if sortedInScratch { entries = scratch }
  }

  /// The first eight bytes (`OverrideRecord.fenceKeySize`), big-endian,
  /// zero-padded: if two keys differ, they order the names as `compare` does.
  static func leadingBytes(_ name: UnsafeRawBufferPointer) -> UInt64 {
    var key: UInt64 = 0
    for position in 0..<OverrideRecord.fenceKeySize {
      key = key << 8 | UInt64(position < name.count ? name[position] : 0)
    }
    return key
  }

  /// Byte order, then the shorter first: `Name.compareIgnoringCase` on
  /// names that are already lower-cased.
  static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    let common = min(lhs.count, rhs.count)
    var position = 0
    while position < common {
      if lhs[position] != rhs[position] { return lhs[position] < rhs[position] ? -1 : 1 }
      position += 1
    }
    return lhs.count - rhs.count
  }

  func name(_ entry: Int, in names: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    let start = Int(pending[entry].nameStart)
    return UnsafeRawBufferPointer(
      rebasing: names[start..<(start + Int(pending[entry].nameLength))])
  }

  /// Appends the record of `entry` (`OverrideRecord` layout) and its addresses.
  func appendRecord(
    _ entry: Int, names: UnsafeRawBufferPointer, records: inout [UInt8],
    addressBytes: inout [UInt8]
  ) {
    let added = pending[entry]
    records.append(added.kind.rawValue)
    if added.kind == .route {
      records.append(0)  // The group, written by `closeRoute`.
    } else if added.kind != .block {
      OverrideRecord.appendDigits(Int(added.ipv4Count), count: 2, to: &records)
      OverrideRecord.appendDigits(Int(added.ipv6Count), count: 2, to: &records)
      OverrideRecord.appendDigits(
        addressBytes.count, count: OverrideRecord.offsetDigits, to: &records)
      let start = Int(added.addressStart)
      let end = start + 4 * Int(added.ipv4Count) + 16 * Int(added.ipv6Count)
      addressBytes.append(contentsOf: addresses[start..<end])
    }
    records.append(contentsOf: name(entry, in: names))
  }
}
