import CompiledConfig
import DNSWire

/// What became of one line of a hosts or lease file.
public enum LocalNameLine: Equatable {
  /// Added, or nothing to add (blank, comment, `duid`, no name, expired).
  case fine
  /// Malformed: skipped, and logged with `file:line` and the reason.
  case bad(LocalNameProblem)
  /// A pair did not fit (`local-names`): dropped and counted.
  case full
}

/// Why a line of a hosts or lease file was skipped.
public enum LocalNameProblem: UInt8, Equatable {
  case badAddress, badName, noName, badExpiry, missingFields, tooLong

  public var reason: LiteralText {
    switch self {
    case .badAddress: return "not an IPv4 or IPv6 address"
    case .badName: return "bad host name (letters, digits, '-' and '_'; RFC 1035 2.3.4 lengths)"
    case .noName: return "an address without a name"
    case .badExpiry: return "bad expiry time"
    case .missingFields: return "fewer than four fields (EXPIRY MAC ADDRESS HOSTNAME)"
    case .tooLong: return "line too long"
    }
  }
}

/// The blank-separated fields of a line, up to a `#` comment when
/// `comments` is set; slices of the line, nothing copied.
struct LineFields {
  let line: ArraySlice<UInt8>
  var position: Int
  let comments: Bool

  init(_ line: ArraySlice<UInt8>, comments: Bool) {
    self.line = line
    position = line.startIndex
    self.comments = comments
  }

  static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

  // Not inlined: four copies in the lease reader cost the firmware more.
  @inline(never)
  mutating func next() -> ArraySlice<UInt8>? {
    while position < line.endIndex, Self.isBlank(line[position]) { position += 1 }
    guard position < line.endIndex, !(comments && line[position] == UInt8(ascii: "#")) else {
      return nil
    }
    let start = position
    while position < line.endIndex, !Self.isBlank(line[position]),
      !(comments && line[position] == UInt8(ascii: "#"))
    {
      position += 1
    }
    return line[start..<position]
  }
}

extension LocalNameTable {
  /// A line of a hosts file (`hosts(5)`, dnsmasq's `addn-hosts`, the files
  /// OpenWrt's odhcpd writes): `ADDRESS NAME [ALIAS...]`, `#` to the end of
  /// the line a comment. The first name is canonical: the PTR answer for
  /// the address (invariant 3). A line with a bad address or name is
  /// skipped whole.
  public func addHostsLine(_ line: ArraySlice<UInt8>) -> LocalNameLine {
    var fields = LineFields(line, comments: true)
    guard let addressText = fields.next() else { return .fine }
    guard let address = Self.address(addressText) else { return .bad(.badAddress) }
    var check = fields
    var names = 0
    while let name = check.next() {
      guard parseName(name) > 0 else { return .bad(.badName) }
      names += 1
    }
    guard names > 0 else { return .bad(.noName) }
    while let name = fields.next() {
      let outcome = add(nameText: name, address: address)
      if outcome != .fine { return outcome }
    }
    return .fine
  }

  /// A line of dnsmasq's lease file: `EXPIRY MAC ADDRESS HOSTNAME CLIENT-ID`
  /// for IPv4, `EXPIRY IAID ADDRESS HOSTNAME DUID` for IPv6 (after the
  /// `duid SERVER-DUID` line). EXPIRY is seconds since 1970, 0 for a lease
  /// that never expires; HOSTNAME `*` means the client gave none. A lease
  /// that expired by `now` (seconds since 1970) is left out, and the
  /// earliest expiry of those kept is noted, so the loader reloads then.
  public func addLeaseLine(_ line: ArraySlice<UInt8>, now: UInt64) -> LocalNameLine {
    var fields = LineFields(line, comments: false)
    guard let expiryText = fields.next() else { return .fine }
    let duid: StaticString = "duid"
    if duid.withUTF8Buffer({ expiryText.elementsEqual($0) }) { return .fine }
    var expiry: UInt64 = 0
    for byte in expiryText {
      guard byte &- 0x30 < 10, expiry < UInt64.max / 10 - 1 else {
        return .bad(.badExpiry)
      }
      expiry = expiry * 10 + UInt64(byte &- 0x30)
    }
    guard fields.next() != nil, let addressText = fields.next(), let name = fields.next() else {
      return .bad(.missingFields)
    }
    guard let address = Self.address(addressText) else { return .bad(.badAddress) }
    if name.elementsEqual(CollectionOfOne(UInt8(ascii: "*"))) { return .fine }
    if expiry != 0 && expiry <= now { return .fine }
    let outcome = add(nameText: name, address: address)
    if outcome == .fine && expiry != 0 { earliestExpiry = min(earliestExpiry, expiry) }
    return outcome
  }

  @inline(never)
  static func address(_ text: ArraySlice<UInt8>) -> IPAddress? {
    try? AddressText.parse(text)
  }

  /// Adds the host name `text` for `address`.
  @inline(never)
  func add(nameText text: ArraySlice<UInt8>, address: IPAddress) -> LocalNameLine {
    let length = parseName(text)
    guard length > 0 else { return .bad(.badName) }
    return add(name: UnsafeRawBufferPointer(rebasing: scratch[0..<length]), address: address)
      ? .fine : .full
  }

  /// `text` as a lower-cased flat name in `scratch`: its length, or 0 if it
  /// is not a host name (letters, digits, `-`, `_`; RFC 1035 §2.3.4 limits)
  /// or is the root.
  @inline(never)
  func parseName(_ text: ArraySlice<UInt8>) -> Int {
    let length = text.withUnsafeBytes { bytes in
      (try? Name.parse(text: bytes, into: scratch)) ?? 0
    }
    return length > 1 ? length : 0
  }
}
