import CompiledConfig
import DNSWire

/// The names the local authority recognises by their form alone, parsed
/// once into integers (no table of names is searched, nothing allocated):
/// the reverse zones served locally (RFC 6303), single-label names, and
/// the address a reverse name stands for. NeverForwarded.swift and
/// LocalAnswers.swift decide what to answer with them.
enum LocalZones {
  /// The zone's SOA or NS record as RFC 6303 §3 recommends, owned by the
  /// apex: NS names the zone itself; SOA has MNAME the zone, RNAME
  /// `nobody.invalid.`, SERIAL 1, REFRESH 3600, RETRY 1200, EXPIRE 604800
  /// and MINIMUM 10800, which with the TTL of 10800 bounds how long a
  /// negative answer is cached (RFC 2308 §5).
  static func writeZoneRecord(
    _ writer: inout MessageWriter, _ type: RRType, apex: Int
  ) throws(WireError) {
    let ttl: UInt32 = 10_800
    let rname: StaticString = "\u{06}nobody\u{07}invalid\u{00}"
    let isSOA = type == .soa
    try writer.writeUInt16(0xC000 | UInt16(apex))
    try writer.writeUInt16(type.rawValue)
    try writer.writeUInt16(RRClass.internet.rawValue)
    try writer.writeUInt32(ttl)
    try writer.writeUInt16(isSOA ? UInt16(2 + rname.utf8CodeUnitCount + 20) : 2)
    try writer.writeUInt16(0xC000 | UInt16(apex))
    guard isSOA else { return }
    try writer.write(UnsafeRawBufferPointer(start: rname.utf8Start, count: rname.utf8CodeUnitCount))
    try writer.writeUInt32(1)
    try writer.writeUInt32(3600)
    try writer.writeUInt32(1200)
    try writer.writeUInt32(604_800)
    try writer.writeUInt32(ttl)
  }

  /// The address a reverse name stands for: four decimal labels under
  /// `in-addr.arpa` (RFC 1035 §3.5) or 32 nibble labels under `ip6.arpa`
  /// (RFC 3596 §2.5), lowest first; nil for anything else.
  static func reverseAddress(_ name: UnsafeRawBufferPointer) -> IPAddress? {
    let ipv4Suffix: StaticString = "\u{7}in-addr\u{4}arpa\0"
    let ipv6Suffix: StaticString = "\u{3}ip6\u{4}arpa\0"
    if hasSuffix(name, ipv4Suffix) {
      var value: UInt32 = 0
      var position = 0
      for octet in 0..<4 {
        let length = Int(name[position])
        // 1...3 digits, no leading zero: the form RFC 1035 §3.5 writes.
        guard length >= 1, length <= 3, length == 1 || name[position + 1] != 0x30 else {
          return nil
        }
        var number: UInt32 = 0
        for index in (position + 1)...(position + length) {
          guard name[index] &- 0x30 < 10 else { return nil }
          number = number * 10 + UInt32(name[index] &- 0x30)
        }
        guard number <= 255 else { return nil }
        value |= number << (8 * UInt32(octet))
        position += 1 + length
      }
      guard position + ipv4Suffix.utf8CodeUnitCount == name.count else { return nil }
      return IPAddress(ipv4: value)
    }
    guard hasSuffix(name, ipv6Suffix), name.count == 64 + ipv6Suffix.utf8CodeUnitCount else {
      return nil
    }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for nibble in 0..<32 {
      guard name[2 * nibble] == 1 else { return nil }
      let digit = name[2 * nibble + 1]
      let value: UInt8
      if digit &- 0x30 < 10 {
        value = digit &- 0x30
      } else if digit &- 0x61 < 6 {
        value = digit &- 0x61 + 10
      } else {
        return nil
      }
      if nibble < 16 {
        low |= UInt64(value) << (4 * UInt64(nibble))
      } else {
        high |= UInt64(value) << (4 * UInt64(nibble - 16))
      }
    }
    return IPAddress(high: high, low: low)
  }

  /// Whether the flat name has exactly one label (the root has none).
  static func isSingleLabel(_ name: UnsafeRawBufferPointer) -> Bool {
    guard name.count >= 3, name[0] != 0 else { return false }
    let end = 1 + Int(name[0])
    return end + 1 == name.count && name[end] == 0
  }

  /// The locally served zone (RFC 6303 §4, RFC 7793) the lower-cased flat
  /// `name` is at or below, nil if none:
  ///
  /// | zone | addresses |
  /// | --- | --- |
  /// | `0`, `10`, `127.in-addr.arpa` | 0/8, 10/8 (RFC 1918), 127/8 |
  /// | `16`…`31.172`, `168.192`, `254.169.in-addr.arpa` | RFC 1918, link-local |
  /// | `64`…`127.100.in-addr.arpa` | 100.64/10, CGNAT (RFC 7793) |
  /// | `2.0.192`, `100.51.198`, `113.0.203.in-addr.arpa` | TEST-NET-1, -2, -3 |
  /// | `255.255.255.255.in-addr.arpa` | the broadcast address |
  /// | `d.f.ip6.arpa` | fd00::/8, locally assigned ULA (RFC 4193) |
  /// | `8`…`b.e.f.ip6.arpa` | fe80::/10, link-local |
  /// | `8.b.d.0.1.0.0.2.ip6.arpa` | 2001:db8::/32, documentation |
  /// | `0.`…`0.ip6.arpa`, `1.0.`…`0.ip6.arpa` (32 nibbles) | ::, ::1 |
  ///
  /// fc00::/8 (`c.f.ip6.arpa`) is not in the list: it is unassigned, not
  /// locally assigned. The labels left of `in-addr.arpa` are read as decimal
  /// octets without leading zeros, those left of `ip6.arpa` as one hex
  /// nibble each; only the run of them next to the suffix counts.
  static func locallyServedZone(_ name: UnsafeRawBufferPointer) -> LocalZone? {
    let isIPv4 = hasSuffix(name, "\u{07}in-addr\u{04}arpa\u{00}")
    guard isIPv4 || hasSuffix(name, "\u{03}ip6\u{04}arpa\u{00}") else { return nil }
    let end = name.count - (isIPv4 ? 14 : 10)
    let bits = isIPv4 ? 8 : 4
    // Labels come left to right, least significant first: each digit enters
    // the 128-bit `high:low` at the top and pushes the others down, so the
    // digit beside the suffix ends on top. `run` counts the digits since the
    // last label that was none.
    var high: UInt64 = 0
    var low: UInt64 = 0
    var run = 0
    var below = 0
    var position = 0
    while position < end {
      let digit = digit(name, at: position, ipv4: isIPv4)
      low = low >> bits | high << (64 - bits)
      high = high >> bits | UInt64(digit ?? 0) << (64 - bits)
      run = digit == nil ? 0 : run + 1
      below += 1
      position += 1 + Int(name[position])
    }
    // A label that swallowed the suffix's bytes is not the suffix.
    guard position == end else { return nil }
    let depth = isIPv4 ? ipv4ZoneDepth(high, digits: run) : ipv6ZoneDepth(high, low, digits: run)
    guard depth > 0 else { return nil }
    // The apex is the label `depth` digits left of the suffix.
    position = 0
    for _ in 0..<(below - depth) { position += 1 + Int(name[position]) }
    return LocalZone(apexOffset: position, isApex: below == depth)
  }

  /// Whether the flat name ends with the wire bytes `suffix`.
  static func hasSuffix(_ name: UnsafeRawBufferPointer, _ suffix: StaticString) -> Bool {
    let count = suffix.utf8CodeUnitCount
    guard name.count > count else { return false }
    let start = name.count - count
    for index in 0..<count where name[start + index] != suffix.utf8Start[index] {
      return false
    }
    return true
  }

  /// How many octets name the IPv4 zone holding the `digits` leading octets
  /// in the top of `address` (0: none).
  static func ipv4ZoneDepth(_ address: UInt64, digits: Int) -> Int {
    let first = address >> 56
    if digits >= 1 && (first == 0 || first == 10 || first == 127) { return 1 }
    let two = address >> 48
    if digits >= 2
      && (two >> 4 == 0xAC1 || two == 0xC0A8 || two == 0xA9FE || two >> 6 == (100 << 2 | 1))
    {
      return 2  // 172.16/12, 192.168/16, 169.254/16, 100.64/10
    }
    let three = address >> 40
    if digits >= 3 && (three == 0xC0_0002 || three == 0xC6_3364 || three == 0xCB_0071) {
      return 3  // 192.0.2/24, 198.51.100/24, 203.0.113/24
    }
    if digits >= 4 && address >> 32 == 0xFFFF_FFFF { return 4 }
    return 0
  }

  /// How many nibbles name the IPv6 zone holding the `digits` leading
  /// nibbles in `high` and `low` (0: none).
  static func ipv6ZoneDepth(_ high: UInt64, _ low: UInt64, digits: Int) -> Int {
    if digits >= 2 && high >> 56 == 0xFD { return 2 }
    if digits >= 3 && high >> 54 == 0xFE8 >> 2 { return 3 }  // fe80::/10
    if digits >= 8 && high >> 32 == 0x2001_0DB8 { return 8 }
    if digits >= 32 && high == 0 && low <= 1 { return 32 }  // ::/128, ::1/128
    return 0
  }

  /// The label at `offset` as one digit of a reverse name: a decimal octet
  /// without leading zeros (`in-addr.arpa`), or one lower-case hex nibble.
  static func digit(_ name: UnsafeRawBufferPointer, at offset: Int, ipv4: Bool) -> UInt8? {
    let zero = Int(UInt8(ascii: "0"))
    let length = Int(name[offset])
    guard length >= 1, length <= (ipv4 ? 3 : 1), length == 1 || Int(name[offset + 1]) != zero
    else { return nil }
    var value = 0
    for index in 1...length {
      var byte = Int(name[offset + index]) - zero
      if !ipv4 && byte >= Int(UInt8(ascii: "a")) - zero {
        byte -= Int(UInt8(ascii: "a")) - zero - 10
      } else if byte >= 10 {
        return nil
      }
      guard byte >= 0, byte < 16 else { return nil }
      value = value * 10 + byte
    }
    return value <= 255 ? UInt8(value) : nil
  }
}

/// A name at or below a locally served zone: where the zone's apex starts
/// in the flat name, and whether the name is the apex itself.
struct LocalZone {
  var apexOffset: Int
  var isApex: Bool
}
