import CompiledConfig
import DNSWire

/// Questions answered at once and never sent upstream, because no upstream
/// can answer them usefully and asking leaks the LAN's own names to the ISP:
///
/// - **Locally served zones** (RFC 6303 §4, RFC 7793; dnsmasq's
///   `bogus-priv`): every question of class IN at or below the reverse
///   zones of private, loopback, link-local, CGNAT, documentation and
///   locally assigned ULA addresses. dnsward serves each as the empty zone
///   RFC 6303 §3 describes: the apex has an SOA and an NS record (both
///   named after the zone itself), so the apex answers SOA, NS and ANY with
///   them and other types with NODATA; names below the apex are NXDOMAIN.
///   Negative answers carry the SOA in the authority section so that they
///   can be cached (RFC 2308 §3). Off with `forward-private-reverse on`.
/// - **Single-label names** (dnsmasq's `domain-needed`): a question of
///   class IN for A, AAAA, ANY or HTTPS about a name of one label
///   (`printer`, not the root) is NXDOMAIN. Other types are forwarded:
///   resolvers and validators ask NS, SOA, DS and DNSKEY of top-level
///   domains (`com`). Off with `forward-single-label on`.
///
/// `filter-aaaa on` (dnsmasq's `filter-AAAA`) answers every AAAA question
/// that would be forwarded with NODATA; overrides and local names come
/// first and still answer AAAA.
///
/// The check parses the labels once, right to left as the address reads,
/// into integers: no table of zone names is searched, nothing is allocated.
extension Engine {
  /// The TTL of the zone's SOA and NS records and the SOA MINIMUM, which
  /// bounds how long a negative answer is cached (RFC 6303 §3, RFC 2308 §5).
  static let localZoneTTL: UInt32 = 10_800

  /// A name at or below a locally served zone: where the zone's apex starts
  /// in the flat name, and whether the name is the apex itself.
  struct LocalZone {
    var apexOffset: Int
    var isApex: Bool
  }

  /// Answers a question that is never forwarded (see above) and returns
  /// true; false for any other question. `name` is the lower-cased flat
  /// question name.
  func answerNeverForwarded<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, environment: inout E
  ) -> Bool {
    guard query.questionClass == .internet else { return false }
    let type = query.questionType
    if !settings.forwardPrivateReverse, let zone = Self.locallyServedZone(name) {
      counters.notForwarded += 1
      let rcode: ResponseCode = zone.isApex ? .noError : .nameError
      answerWithoutUpstream(
        query: query, name: name, rcode: rcode, zone: zone, client: client,
        environment: &environment)
      return true
    }
    if !settings.forwardSingleLabel, Self.isSingleLabel(name),
      type == .a || type == .aaaa || type == .any || type == .https
    {
      counters.notForwarded += 1
      answerWithoutUpstream(
        query: query, name: name, rcode: .nameError, zone: nil, client: client,
        environment: &environment)
      return true
    }
    return false
  }

  /// `filter-aaaa on`: an AAAA question of class IN gets NODATA at once.
  func answerFilteredAAAA<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, environment: inout E
  ) -> Bool {
    guard settings.filterAAAA, query.questionType == .aaaa, query.questionClass == .internet
    else { return false }
    counters.aaaaFiltered += 1
    answerWithoutUpstream(
      query: query, name: name, rcode: .noError, zone: nil, client: client,
      environment: &environment)
    return true
  }

  /// A reply with `rcode` and no upstream behind it. For a locally served
  /// zone it is authoritative: SOA/NS/ANY at the apex answered with the
  /// zone's records, and a negative answer carries the SOA as authority.
  func answerWithoutUpstream<E: EngineEnvironment>(
    query: Message, name lowercased: UnsafeRawBufferPointer, rcode: ResponseCode,
    zone: LocalZone?, client: ClientRef, environment: inout E
  ) {
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable
        | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    if zone != nil { flags.set(HeaderFlags.authoritative, true) }
    flags.rcode = rcode
    let type = query.questionType
    let atApex = zone?.isApex ?? false
    let answersSOA = atApex && (type == .soa || type == .any)
    let answersNS = atApex && (type == .ns || type == .any)
    let answerCount = (answersSOA ? 1 : 0) + (answersNS ? 1 : 0)
    let authorityCount = zone != nil && answerCount == 0 ? 1 : 0
    let hasEDNS = query.opt != nil
    let nameLength = query.copyQuestionName(into: scratchCaseName)
    let cased = UnsafeRawBufferPointer(rebasing: scratchCaseName[0..<nameLength])
    // The question starts right after the header; the apex is a suffix of it.
    let apex = HeaderField.size + (zone?.apexOffset ?? 0)
    var writer = MessageWriter(buffer: replyOutput)
    var fits = true
    do throws(WireError) {
      try writer.writeHeader(
        id: query.id, flags: flags, questions: 1, answers: UInt16(answerCount),
        authorities: UInt16(authorityCount), additionals: hasEDNS ? 1 : 0)
      try writer.writeQuestion(name: cased, type: type, rrClass: .internet, compress: false)
      if answersSOA || authorityCount == 1 { try Self.writeLocalZoneSOA(&writer, apex: apex) }
      if answersNS {
        // RFC 6303 §3: the zone's NS record names the zone itself.
        try writer.writeUInt16(0xC000 | UInt16(apex))
        try writer.writeUInt16(RRType.ns.rawValue)
        try writer.writeUInt16(RRClass.internet.rawValue)
        try writer.writeUInt32(Self.localZoneTTL)
        try writer.writeUInt16(2)
        try writer.writeUInt16(0xC000 | UInt16(apex))
      }
      if hasEDNS { try writeClientOPT(&writer, dnssecOK: query.opt?.dnssecOK ?? false) }
    } catch {
      fits = false
    }
    let length = fitLocalReply(
      length: fits ? writer.count : Int.max, query: query, client: client, flags: flags,
      name: lowercased, clientCase: CaseMask(of: cased), type: type, rrClass: .internet)
    send(replyLength: length, to: client, environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: client, name: lowercased, type: type, outcome: .answered(rcode), upstream: -1,
        latencyMilliseconds: 0)
    }
  }

  /// The zone's SOA with the values RFC 6303 §3 recommends: MNAME the zone
  /// itself, RNAME `nobody.invalid.`, SERIAL 1, REFRESH 3600, RETRY 1200,
  /// EXPIRE 604800, MINIMUM 10800; owner and MNAME point at the apex.
  static func writeLocalZoneSOA(_ writer: inout MessageWriter, apex: Int) throws(WireError) {
    let rname: StaticString = "\u{06}nobody\u{07}invalid\u{00}"
    try writer.writeUInt16(0xC000 | UInt16(apex))
    try writer.writeUInt16(RRType.soa.rawValue)
    try writer.writeUInt16(RRClass.internet.rawValue)
    try writer.writeUInt32(localZoneTTL)
    try writer.writeUInt16(UInt16(2 + rname.utf8CodeUnitCount + 20))
    try writer.writeUInt16(0xC000 | UInt16(apex))
    try writer.write(UnsafeRawBufferPointer(start: rname.utf8Start, count: rname.utf8CodeUnitCount))
    try writer.writeUInt32(1)
    try writer.writeUInt32(3600)
    try writer.writeUInt32(1200)
    try writer.writeUInt32(604_800)
    try writer.writeUInt32(localZoneTTL)
  }

  // MARK: - Names

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
  /// locally assigned. The labels next to `in-addr.arpa` are read as
  /// decimal octets without leading zeros, those next to `ip6.arpa` as one
  /// hex nibble each, up to the first label that is not one; only those
  /// count toward the zone.
  static func locallyServedZone(_ name: UnsafeRawBufferPointer) -> LocalZone? {
    var labels = 0
    var position = 0
    var previous = -1
    var last = -1
    while position < name.count, name[position] != 0 {
      previous = last
      last = position
      labels += 1
      position += 1 + Int(name[position])
    }
    guard labels >= 3, position < name.count, label(name, at: last, is: "arpa") else {
      return nil
    }
    let isIPv4 = label(name, at: previous, is: "in-addr")
    guard isIPv4 || label(name, at: previous, is: "ip6") else { return nil }
    // Digit j counts from the right, 0 beside `in-addr`/`ip6`: IPv4 octets
    // fill `high` from its top byte (8 bits each), IPv6 nibbles fill `high`
    // then `low` from the top (4 bits each). `valid` ends at the first label
    // that is not a digit.
    let below = labels - 2
    let width = isIPv4 ? 4 : 32
    var valid = min(below, width)
    var high: UInt64 = 0
    var low: UInt64 = 0
    position = 0
    for index in 0..<below {
      let length = Int(name[position])
      let digit = below - 1 - index
      if digit < width {
        let value = isIPv4 ? octet(name, at: position) : nibble(name, at: position)
        if let value {
          if isIPv4 {
            high |= UInt64(value) << (56 - 8 * digit)
          } else if digit < 16 {
            high |= UInt64(value) << (60 - 4 * digit)
          } else {
            low |= UInt64(value) << (60 - 4 * (digit - 16))
          }
        } else {
          valid = min(valid, digit)
        }
      }
      position += 1 + length
    }
    let depth =
      isIPv4 ? ipv4ZoneDepth(high, digits: valid) : ipv6ZoneDepth(high, low, digits: valid)
    guard depth > 0 else { return nil }
    // The apex is the label `depth` digits left of `in-addr`/`ip6`.
    position = 0
    for _ in 0..<(below - depth) { position += 1 + Int(name[position]) }
    return LocalZone(apexOffset: position, isApex: below == depth)
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
    if digits == 4 && address >> 32 == 0xFFFF_FFFF { return 4 }
    return 0
  }

  /// How many nibbles name the IPv6 zone holding the `digits` leading
  /// nibbles in `high` and `low` (0: none).
  static func ipv6ZoneDepth(_ high: UInt64, _ low: UInt64, digits: Int) -> Int {
    if digits >= 2 && high >> 56 == 0xFD { return 2 }
    if digits >= 3 && high >> 54 == 0xFE8 >> 2 { return 3 }  // fe80::/10
    if digits >= 8 && high >> 32 == 0x2001_0DB8 { return 8 }
    if digits == 32 && high == 0 && low <= 1 { return 32 }  // ::/128, ::1/128
    return 0
  }

  /// The label at `offset` as a decimal octet without leading zeros.
  static func octet(_ name: UnsafeRawBufferPointer, at offset: Int) -> UInt8? {
    let length = Int(name[offset])
    guard length >= 1, length <= 3, length == 1 || name[offset + 1] != UInt8(ascii: "0") else {
      return nil
    }
    var value = 0
    for index in 1...length {
      let byte = name[offset + index]
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value <= 255 ? UInt8(value) : nil
  }

  /// The label at `offset` as one lower-case hex digit.
  static func nibble(_ name: UnsafeRawBufferPointer, at offset: Int) -> UInt8? {
    guard name[offset] == 1 else { return nil }
    let byte = name[offset + 1]
    if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { return byte - UInt8(ascii: "0") }
    if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") {
      return byte - UInt8(ascii: "a") + 10
    }
    return nil
  }

  /// Whether the label at `offset` is exactly the lower-case `text`.
  static func label(_ name: UnsafeRawBufferPointer, at offset: Int, is text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    guard offset >= 0, Int(name[offset]) == count else { return false }
    for index in 0..<count where name[offset + 1 + index] != text.utf8Start[index] {
      return false
    }
    return true
  }
}
