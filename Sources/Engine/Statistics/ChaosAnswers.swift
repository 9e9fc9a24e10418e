import CompiledConfig
import DNSWire

/// Statistics in class CHAOS, the way router users ask dnsmasq
/// (`dig @router chaos txt hits.bind`): the engine owns the `bind.`,
/// `server.` and `dnsward.` zones and answers every question in them itself
/// (QTYPE TXT, TTL 0, AA set); the names and what they hold are listed in
/// Sources/Engine/Statistics/README.md. Only clients inside `allow` get
/// here: the ACL check comes first. Any other name or type in those zones
/// gets REFUSED; CHAOS questions outside them take the ordinary path.
///
/// Nothing is allocated: the reply is written straight into the reply
/// buffer and numbers are formatted into it digit by digit.
extension Engine {
  /// Brings the `level` statistics, figures of the engine's tables rather
  /// than counts, up to date; called before the table is read.
  public func refreshLevels() {
    statistics[.cacheEntries] = UInt64(cache.count)
    statistics[.cacheCapacity] = UInt64(cacheCapacity)
    statistics[.activeTransactions] = UInt64(activeTransactions)
    statistics[.waitersInUse] = UInt64(waitersInUse)
    statistics[.cacheBytesInUse] = UInt64(cache.isEnabled ? cache.bytesInUse : 0)
    statistics[.localNamesDropped] = UInt64(local.names.active.dropped)
  }

  /// Upstreams listed in `stats.dnsward.` at most.
  public static let statisticsUpstreamLimit = 64

  /// Records in a `stats.dnsward.` answer: one per `Statistic`, then five
  /// per upstream (at most `statisticsUpstreamLimit` of them): each record
  /// is at most about 60 bytes, so the reply stays far below 65535 bytes.
  public var statisticRecordCount: Int {
    Statistic.count + 5 * min(upstreams.count, Self.statisticsUpstreamLimit)
  }

  /// Cache capacity in entries, 0 when the cache is off.
  var cacheCapacity: Int { cache.isEnabled ? cache.capacity : 0 }

  /// What a CHAOS question in our zones is answered with. (Payloads keep
  /// the compiler from deriving Hashable, whose per-process seed would pull
  /// `arc4random_buf` into the Embedded build.)
  enum ChaosAnswer {
    /// One TXT string: a number in decimal.
    case number(UInt64)
    case text(StaticString)
    /// `Release`'s description: version, date, target and features.
    case release
    /// `stats.dnsward.`: one RR per statistic.
    case statistics
  }

  /// Answers a CHAOS-class question in the `bind.`, `server.` or `dnsward.`
  /// zone (see above) and returns true; returns false for anything else,
  /// which then takes the ordinary path. `name` is the lower-cased flat
  /// question name.
  func answerChaos<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, environment: inout E
  ) -> Bool {
    guard query.questionClass == .chaos, Self.isChaosZone(name) else { return false }
    guard query.questionType == .txt, let answer = chaosAnswer(name) else {
      statistics[.refused] += 1
      replyError(
        .refused, to: query.bytes, query: query, client: client, environment: &environment)
      return true
    }
    // Counted before the values are written, so that `stats.dnsward.`
    // includes itself in `chaosAnswered` as it does in `queries`.
    statistics[.chaosAnswered] += 1
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.authoritative | HeaderFlags.recursionAvailable
        | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    flags.rcode = .noError
    let hasEDNS = query.opt != nil
    let casedLength = query.copyQuestionName(into: buffers.casedName)
    let cased = UnsafeRawBufferPointer(rebasing: buffers.casedName[0..<casedLength])
    var answers = 1
    if case .statistics = answer { answers = statisticRecordCount }
    var writer = MessageWriter(buffer: replyOutput)
    var fits = true
    do throws(WireError) {
      try writer.writeHeader(
        id: query.id, flags: flags, questions: 1, answers: UInt16(answers),
        additionals: hasEDNS ? 1 : 0)
      try writer.writeQuestion(name: cased, type: .txt, rrClass: .chaos, compress: false)
      switch answer {
      case .number(let value): try Self.writeTXT(&writer, value: value)
      case .text(let text): try Self.writeTXT(&writer, text: text)
      case .release: try Self.writeReleaseTXT(&writer)
      case .statistics:
        refreshLevels()
        for index in 0..<Statistic.count {
          let statistic = Statistic(index: index)
          try Self.writeTXT(&writer, key: statistic.name, value: statistics[statistic])
        }
        for upstream in 0..<min(upstreams.count, Self.statisticsUpstreamLimit) {
          let entry = upstreamStatistics(upstream)
          try Self.writeTXT(&writer, upstream: upstream, key: "answers", value: entry.answers)
          try Self.writeTXT(&writer, upstream: upstream, key: "timeouts", value: entry.timeouts)
          try Self.writeTXT(&writer, upstream: upstream, key: "failures", value: entry.failures)
          try Self.writeTXT(
            &writer, upstream: upstream, key: "srtt-ms", value: entry.smoothedRTTMilliseconds)
          try Self.writeTXT(
            &writer, upstream: upstream, key: "disagreements", value: entry.disagreements)
        }
      }
      if hasEDNS { try writeClientOPT(&writer, dnssecOK: query.opt?.dnssecOK ?? false) }
    } catch {
      fits = false
    }
    let length = fitLocalReply(
      length: fits ? writer.count : Int.max, query: query, client: client, flags: flags,
      name: name, clientCase: CaseMask(of: cased), type: .txt, rrClass: .chaos)
    send(replyLength: length, to: client, environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: client, name: name, type: .txt, outcome: .chaos, upstream: -1,
        latencyMilliseconds: 0)
    }
    return true
  }

  // MARK: - Names

  /// Whether the last label of the flat lower-cased `name` is `bind`,
  /// `server` or `dnsward`.
  static func isChaosZone(_ name: UnsafeRawBufferPointer) -> Bool {
    var position = 0
    var last = -1
    while position < name.count, name[position] != 0 {
      last = position
      position += 1 + Int(name[position])
    }
    guard last >= 0, position < name.count else { return false }
    let label = UnsafeRawBufferPointer(rebasing: name[last..<(position + 1)])
    return flat(label, is: "bind") || flat(label, is: "server") || flat(label, is: "dnsward")
  }

  /// The answer for a lower-cased flat name in our zones, nil if we have none.
  func chaosAnswer(_ name: UnsafeRawBufferPointer) -> ChaosAnswer? {
    if Self.flat(name, is: "hits.bind") { return .number(statistics[.cacheHits]) }
    if Self.flat(name, is: "misses.bind") { return .number(statistics[.cacheMisses]) }
    if Self.flat(name, is: "cachesize.bind") { return .number(UInt64(cacheCapacity)) }
    if Self.flat(name, is: "insertions.bind") { return .number(statistics[.cacheInserts]) }
    if Self.flat(name, is: "version.bind") || Self.flat(name, is: "version.server") {
      return .release
    }
    if Self.flat(name, is: "stats.dnsward") { return .statistics }
    return nil
  }

  /// Whether the flat name (wire labels, root-terminated) is exactly the
  /// dotted lower-case `text` (no trailing dot). A label holding a dot never
  /// matches, so `\4hits.bind` is not `hits.bind`.
  static func flat(_ name: UnsafeRawBufferPointer, is text: StaticString) -> Bool {
    let dot = UInt8(ascii: ".")
    let textBytes = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    var position = 0
    var index = 0
    while position < name.count {
      let length = Int(name[position])
      if length == 0 { return position + 1 == name.count && index == textBytes.count && index > 0 }
      if index > 0 {
        guard index < textBytes.count, textBytes[index] == dot else { return false }
        index += 1
      }
      guard position + 1 + length <= name.count, index + length <= textBytes.count else {
        return false
      }
      for offset in 0..<length {
        let byte = name[position + 1 + offset]
        guard byte != dot, byte == textBytes[index + offset] else { return false }
      }
      position += 1 + length
      index += length
    }
    return false
  }

  // MARK: - TXT records

  /// Owner, TYPE TXT, CLASS CH, TTL 0 and RDLENGTH of a record holding one
  /// character-string of `stringLength` bytes (RFC 1035 §3.3.14), and that
  /// string's length byte. The owner points at the question name.
  static func writeTXTPrefix(_ writer: inout MessageWriter, stringLength: Int) throws(WireError) {
    guard stringLength <= 255 else { throw .bufferFull }
    try writer.writeUInt16(0xC000 | UInt16(HeaderField.size))
    try writer.writeUInt16(RRType.txt.rawValue)
    try writer.writeUInt16(RRClass.chaos.rawValue)
    try writer.writeUInt32(0)
    try writer.writeUInt16(UInt16(1 + stringLength))
    try writer.writeUInt8(UInt8(stringLength))
  }

  static func writeTXT(_ writer: inout MessageWriter, value: UInt64) throws(WireError) {
    try writeTXTPrefix(&writer, stringLength: decimalLength(value))
    try writeDecimal(&writer, value)
  }

  static func writeTXT(_ writer: inout MessageWriter, text: StaticString) throws(WireError) {
    try writeTXTPrefix(&writer, stringLength: text.utf8CodeUnitCount)
    try writer.write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// `Release`'s description as one character-string.
  static func writeReleaseTXT(_ writer: inout MessageWriter) throws(WireError) {
    try withUnsafeTemporaryAllocation(byteCount: Release.descriptionCapacity, alignment: 1) {
      buffer throws(WireError) in
      let length = Release.copyDescription(into: buffer)
      try writeTXTPrefix(&writer, stringLength: length)
      try writer.write(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
    }
  }

  /// `key=value`.
  static func writeTXT(_ writer: inout MessageWriter, key: UnsafeRawBufferPointer, value: UInt64)
    throws(WireError)
  {
    try writeTXTPrefix(&writer, stringLength: key.count + 1 + decimalLength(value))
    try writer.write(key)
    try writer.writeUInt8(UInt8(ascii: "="))
    try writeDecimal(&writer, value)
  }

  /// `upstreamN.key=value`.
  static func writeTXT(
    _ writer: inout MessageWriter, upstream: Int, key: StaticString, value: UInt64
  ) throws(WireError) {
    let prefix: StaticString = "upstream"
    let index = UInt64(upstream)
    try writeTXTPrefix(
      &writer,
      stringLength: prefix.utf8CodeUnitCount + decimalLength(index) + 1 + key.utf8CodeUnitCount
        + 1 + decimalLength(value))
    try writer.write(
      UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    try writeDecimal(&writer, index)
    try writer.writeUInt8(UInt8(ascii: "."))
    try writer.write(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    try writer.writeUInt8(UInt8(ascii: "="))
    try writeDecimal(&writer, value)
  }

  /// Digits in the decimal form of `value` (1 for 0).
  static func decimalLength(_ value: UInt64) -> Int {
    var digits = 1
    var rest = value / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    return digits
  }

  /// `value` in decimal ASCII, most significant digit first.
  static func writeDecimal(_ writer: inout MessageWriter, _ value: UInt64) throws(WireError) {
    let digits = decimalLength(value)
    let start = writer.count
    for _ in 0..<digits { try writer.writeUInt8(0) }
    var rest = value
    var position = start + digits - 1
    while position >= start {
      writer.buffer[position] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
      position -= 1
    }
  }
}
