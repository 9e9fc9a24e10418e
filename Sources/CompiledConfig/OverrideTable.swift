import DNSWire

/// What an override table entry does to the names it matches.
public enum OverrideKind: UInt8, Equatable {
  /// `override NAME ADDR...`: exactly NAME is answered with the addresses.
  case exact = 0
  /// `override *.NAME ADDR...`: every name strictly below NAME.
  case wildcard = 1
  /// `block NAME`: NAME and every name below it get NXDOMAIN.
  case block = 2
}

/// The result of a lookup.
public struct OverrideMatch {
  public var kind: OverrideKind
  /// A records' RDATA, 4 bytes each, in `OverrideTable.addressBytes`.
  public var ipv4Offset: Int
  public var ipv4Count: Int
  /// AAAA records' RDATA, 16 bytes each, just after the IPv4 ones.
  public var ipv6Offset: Int { ipv4Offset + 4 * ipv4Count }
  public var ipv6Count: Int
}

/// The static host table, shared by the generated source and `--config`.
///
/// Layout, chosen so the generator can emit it as three integer arrays that
/// land in read-only data:
/// - `names`: lower-cased flat wire names, concatenated;
/// - `entries`: `wordsPerEntry` words per entry, sorted by name (lower-cased
///   byte order, then kind): name offset; name length | kind << 8 |
///   IPv4 count << 16 | IPv6 count << 24; address offset;
/// - `addressBytes`: RDATA of each entry, its IPv4 addresses then its IPv6.
///
/// Lookup is a binary search per candidate name: no hashing, no allocation.
public struct OverrideTable {
  public static let wordsPerEntry = 3
  public let names: [UInt8]
  public let entries: [UInt32]
  public let addressBytes: [UInt8]

  public init(names: [UInt8] = [], entries: [UInt32] = [], addressBytes: [UInt8] = []) {
    precondition(entries.count % Self.wordsPerEntry == 0, "override entries are 3 words each")
    self.names = names
    self.entries = entries
    self.addressBytes = addressBytes
  }

  public var count: Int { entries.count / Self.wordsPerEntry }

  public func kind(at index: Int) -> OverrideKind {
    OverrideKind(rawValue: UInt8(truncatingIfNeeded: entries[index * 3 + 1] >> 8)) ?? .block
  }

  func nameRange(at index: Int) -> Range<Int> {
    let offset = Int(entries[index * 3])
    return offset..<(offset + Int(entries[index * 3 + 1] & 0xFF))
  }

  public func match(at index: Int) -> OverrideMatch {
    let packed = entries[index * 3 + 1]
    return OverrideMatch(
      kind: kind(at: index), ipv4Offset: Int(entries[index * 3 + 2]),
      ipv4Count: Int((packed >> 16) & 0xFF), ipv6Count: Int(packed >> 24))
  }

  /// Calls `body` with the flat name of entry `index`.
  public func withName<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    let range = nameRange(at: index)
    return names.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
  }

  /// The first entry whose name is not below `name` in table order.
  func lowerBound(_ name: UnsafeRawBufferPointer, in names: UnsafeRawBufferPointer) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      let entryName = UnsafeRawBufferPointer(rebasing: names[nameRange(at: middle)])
      if Name.compareIgnoringCase(entryName, name) < 0 {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  /// Finds the entry that answers `name` (a flat name; case is ignored).
  ///
  /// The most specific entry wins: an exact override or a block of the name
  /// itself, then, walking up one label at a time, the nearest ancestor with
  /// a block or a wildcard override.
  public func lookup(_ name: UnsafeRawBufferPointer) -> OverrideMatch? {
    guard count > 0 else { return nil }
    return names.withUnsafeBytes { names -> OverrideMatch? in
      var suffix = 0
      var isQueriedName = true
      while suffix < name.count {
        let candidate = UnsafeRawBufferPointer(rebasing: name[suffix...])
        var index = lowerBound(candidate, in: names)
        while index < count,
          Name.compareIgnoringCase(
            UnsafeRawBufferPointer(rebasing: names[nameRange(at: index)]), candidate) == 0
        {
          switch kind(at: index) {
          case .exact where isQueriedName, .block:
            return match(at: index)
          case .wildcard where !isQueriedName:
            return match(at: index)
          default:
            break
          }
          index += 1
        }
        guard name[suffix] != 0 else { break }
        suffix += 1 + Int(name[suffix])
        isQueriedName = false
      }
      return nil
    }
  }
}

/// Builds an `OverrideTable` from entries in any order; used by the config
/// compiler (which then prints the arrays) and by `--config` at start-up.
public struct OverrideTableBuilder {
  public struct Entry {
    public var name: [UInt8]
    public var kind: OverrideKind
    public var ipv4: [UInt8]
    public var ipv6: [UInt8]
    public init(name: [UInt8], kind: OverrideKind, ipv4: [UInt8] = [], ipv6: [UInt8] = []) {
      self.name = name
      self.kind = kind
      self.ipv4 = ipv4
      self.ipv6 = ipv6
    }
  }

  public private(set) var pending: [Entry] = []
  public init() {}

  /// At most 255 addresses of each family per entry (they are counted in a byte).
  public mutating func add(_ entry: Entry) {
    precondition(entry.ipv4.count / 4 <= 255 && entry.ipv6.count / 16 <= 255, "too many addresses")
    pending.append(entry)
  }

  public func build() -> OverrideTable {
    let sorted = pending.sorted { lhs, rhs in
      let order = lhs.name.withUnsafeBytes { left in
        rhs.name.withUnsafeBytes { right in Name.compareIgnoringCase(left, right) }
      }
      return order != 0 ? order < 0 : lhs.kind.rawValue < rhs.kind.rawValue
    }
    var names: [UInt8] = []
    var entries: [UInt32] = []
    var addresses: [UInt8] = []
    names.reserveCapacity(sorted.reduce(0) { $0 + $1.name.count })
    entries.reserveCapacity(sorted.count * OverrideTable.wordsPerEntry)
    for entry in sorted {
      entries.append(UInt32(names.count))
      entries.append(
        UInt32(entry.name.count) | UInt32(entry.kind.rawValue) << 8
          | UInt32(entry.ipv4.count / 4) << 16 | UInt32(entry.ipv6.count / 16) << 24)
      entries.append(UInt32(addresses.count))
      names.append(contentsOf: entry.name)
      addresses.append(contentsOf: entry.ipv4)
      addresses.append(contentsOf: entry.ipv6)
    }
    return OverrideTable(names: names, entries: entries, addressBytes: addresses)
  }
}
