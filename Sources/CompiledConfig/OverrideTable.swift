import DNSWire

/// What an override table entry does to the names it matches.
public enum OverrideKind: UInt8, Equatable {
  /// `override NAME ADDR...`: exactly NAME is answered with the addresses.
  case exact = 0
  /// `override *.NAME ADDR...`: every name strictly below NAME.
  case wildcard = 1
  /// `block NAME`: NAME and every name below it get NXDOMAIN.
  case block = 2
  /// `upstream ... for NAME`: NAME and every name below it are forwarded
  /// to the upstreams of one route group (`Settings.routes` only).
  case route = 3
}

/// The result of a lookup.
public struct OverrideMatch {
  public var kind: OverrideKind
  /// A records' RDATA, 4 bytes each, in `OverrideTable.addressBytes`; for
  /// a `.route` entry, no addresses and its route group in `ipv4Count`.
  public var ipv4Offset: Int
  public var ipv4Count: Int
  /// AAAA records' RDATA, 16 bytes each, just after the IPv4 ones.
  public var ipv6Offset: Int { ipv4Offset + 4 * ipv4Count }
  public var ipv6Count: Int
}

/// The static host table, shared by the generated source and `--config`.
///
/// Four byte tables, laid out so that the generator can emit the large
/// ones as string literals, which swiftc compiles in seconds even at tens
/// of megabytes (an array literal of a million integers does not compile in
/// reasonable time) and which land in read-only data:
/// - `records`: one `OverrideRecord` per entry (header, then the lower-cased
///   flat name), sorted by name in lower-cased byte order, then by kind;
/// - `index`: the offset of each entry's record in `records`, in
///   `OverrideRecord.offsetDigits` base-128 digits;
/// - `fences`: the first `OverrideRecord.fenceKeySize` bytes of the names of
///   entries 0, `fenceStride`, 2 × `fenceStride`, ..., zero-padded (empty:
///   no fences). A lookup searches this small table first, then only the
///   stretch of entries between two fences, so most of its steps stay in a
///   few cache lines instead of touching a new page of a large table each;
/// - `addressBytes`: RDATA of each entry, its IPv4 addresses then its IPv6.
///
/// Every byte of `index` and of the record headers is below 0x80, and so is
/// every byte of the names the config language accepts (and of `fences`).
///
/// Lookup is binary search per candidate name: no hashing, no allocation.
/// The tables come from `OverrideTableBuilder`; reads past the end of
/// `records` yield zero bytes instead of trapping, and fences of the wrong
/// size are ignored, so even a damaged table cannot make a lookup touch
/// memory outside it.
public struct OverrideTable {
  public let records: TableBytes
  public let index: TableBytes
  public let fences: TableBytes
  public let addressBytes: TableBytes

  public init(
    records: TableBytes = TableBytes(), index: TableBytes = TableBytes(),
    fences: TableBytes = TableBytes(), addressBytes: TableBytes = TableBytes()
  ) {
    precondition(
      index.count % OverrideRecord.offsetDigits == 0, "override index entries are 4 digits each")
    self.records = records
    self.index = index
    self.fences = fences
    self.addressBytes = addressBytes
  }

  public var count: Int { index.count / OverrideRecord.offsetDigits }

  /// Whether `other` holds the same entries: the same bytes in each table
  /// (the builder writes a given set of entries one way).
  public func hasSameEntries(as other: OverrideTable) -> Bool {
    records.hasSameBytes(as: other.records) && index.hasSameBytes(as: other.index)
      && fences.hasSameBytes(as: other.fences)
      && addressBytes.hasSameBytes(as: other.addressBytes)
  }

  public func kind(at index: Int) -> OverrideKind {
    withView { $0.kind(index) }
  }

  public func match(at index: Int) -> OverrideMatch {
    withView { $0.match(index) }
  }

  /// The route group of `.route` entry `index`.
  public func routeGroup(at index: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: match(at: index).ipv4Count)
  }

  /// Calls `body` with the flat name of entry `index`.
  public func withName<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    withView { view in body(view.name(index)) }
  }

  /// Where entry `index`'s record lies in `records`: header and name.
  public func recordRange(at index: Int) -> Range<Int> {
    withView { view in
      let end = view.nameRange(index).upperBound
      return min(view.recordOffset(index), end)..<end
    }
  }

  /// Finds the entry that answers `name` (a flat name; case is ignored).
  ///
  /// The most specific entry wins: an exact override or a block of the name
  /// itself, then, walking up one label at a time, the nearest ancestor with
  /// a block or a wildcard override. A `.route` entry (only in a table of
  /// routes) matches like a block, its group in `ipv4Count`.
  public func lookup(_ name: UnsafeRawBufferPointer) -> OverrideMatch? {
    guard count > 0 else { return nil }
    return withView { view -> OverrideMatch? in
      var suffix = 0
      var isQueriedName = true
      while suffix < name.count {
        let candidate = UnsafeRawBufferPointer(rebasing: name[suffix...])
        var entry = view.lowerBound(candidate)
        while entry < view.count, view.compareName(entry, candidate) == 0 {
          switch view.kind(entry) {
          case .exact where isQueriedName, .block, .route:
            return view.match(entry)
          case .wildcard where !isQueriedName:
            return view.match(entry)
          default:
            break
          }
          entry += 1
        }
        guard name[suffix] != 0 else { break }
        suffix += 1 + Int(name[suffix])
        isQueriedName = false
      }
      return nil
    }
  }

  /// The route group of `name` (a flat name; case is ignored): that of
  /// the nearest `.route` entry at or above it, the longest matching
  /// domain; 0 when none matches. `lookup` on a table of routes: one
  /// binary search per label of `name`, no allocation, none at all when
  /// the table is empty (nothing is routed).
  ///
  /// In `Settings.routes` (`for`, `for-list`) the group decides which
  /// upstreams may be asked (`UpstreamSelection.next`): a routed name only
  /// those of its group, an unrouted one only upstreams without `for`.
  /// Checks that keep names local ("never forward") must let a routed name
  /// (non-zero group) through: the operator named its server. Not inlined:
  /// the engine asks it in eight places.
  @inline(never)
  public func routeGroup(_ name: UnsafeRawBufferPointer) -> UInt8 {
    guard count > 0, let match = lookup(name), match.kind == .route else { return 0 }
    return UInt8(truncatingIfNeeded: match.ipv4Count)
  }

  func withView<R>(_ body: (OverrideTableView) -> R) -> R {
    records.withUnsafeBytes { records in
      index.withUnsafeBytes { index in
        fences.withUnsafeBytes { fences in
          body(OverrideTableView(records: records, index: index, fences: fences))
        }
      }
    }
  }
}

/// The bytes of one entry in `OverrideTable.records`. Numbers are base-128
/// digits, least significant first, so each of their bytes is below 0x80:
///
/// ```
/// +0  kind            OverrideKind raw value
///     route entries only:
/// +1  route group     1 digit (1…127)
///     exact and wildcard entries only:
/// +1  IPv4 count      2 digits (at most 255)
/// +3  IPv6 count      2 digits (at most 255)
/// +5  address offset  4 digits, into `addressBytes`
/// +1, +2 or +9       the flat name (RFC 1035 §3.1), lower-cased, ending
///                     in its zero root octet
/// ```
public enum OverrideRecord {
  static let kind = 0
  static let routeGroup = 1
  static let ipv4Count = 1..<3
  static let ipv6Count = 3..<5
  static let addressOffset = 5..<9
  /// Digits of a record offset (in `index`) and of an address offset.
  public static let offsetDigits = 4
  /// Offsets are 4 base-128 digits: `records` and `addressBytes` stay
  /// below 256 MiB (about ten million names).
  public static let offsetLimit = 1 << (7 * offsetDigits)
  /// Entries from one fence to the next (`OverrideTable.fences`): 0.25
  /// bytes of fences per entry; at most 5 steps of a search between two.
  public static let fenceStride = 32
  /// The leading name bytes a fence keeps: eight, one 64-bit comparison.
  public static let fenceKeySize = 8

  public static func headerSize(_ kind: OverrideKind) -> Int {
    switch kind {
    case .block: return 1
    case .route: return 2
    case .exact, .wildcard: return addressOffset.upperBound
    }
  }

  /// Appends `value` (below 128^digits) as base-128 digits, least significant first.
  static func appendDigits(_ value: Int, count digits: Int, to bytes: inout [UInt8]) {
    precondition(value >= 0 && value < 1 << (7 * digits), "value does not fit its digits")
    for digit in 0..<digits {
      bytes.append(UInt8(truncatingIfNeeded: value >> (7 * digit)) & 0x7F)
    }
  }
}
