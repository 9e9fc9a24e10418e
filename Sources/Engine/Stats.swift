import CompiledConfig
import DNSWire

/// Statistics in class CHAOS, the way router users ask dnsmasq
/// (`dig @router chaos txt hits.bind`). Only clients inside `allow` get here:
/// the ACL check comes first.
///
/// The engine owns three CHAOS zones — `bind.`, `server.` and `dnsward.` —
/// and answers every question in them itself (QTYPE TXT, TTL 0, AA set):
///
/// | name               | TXT strings                                       |
/// | ------------------ | ------------------------------------------------- |
/// | `hits.bind.`       | cache hits, decimal (`"123"`, as dnsmasq)         |
/// | `misses.bind.`     | cache misses                                      |
/// | `cachesize.bind.`  | cache capacity in entries (0 when it is off)      |
/// | `insertions.bind.` | answers stored in the cache                       |
/// | `version.bind.`, `version.server.` | `Release.description`: `"dnsward 0.16.0 (2026-12-02; aarch64-linux-gnu, Embedded Swift; DNSSEC, no TLS, no metrics, runtime config)"` |
/// | `stats.dnsward.`   | one RR per statistic, `"name=value"`, in the order of `statistic(at:)`, then per upstream (below) |
///
/// After the `statistic(at:)` records, `stats.dnsward.` has five more per
/// upstream `N` (its index in `upstreams`, configuration order), each its own
/// RR and `"name=value"` string like the others: `upstreamN.answers`,
/// `upstreamN.timeouts`, `upstreamN.failures`, `upstreamN.srtt-ms` and
/// `upstreamN.disagreements` (see
/// `UpstreamStatistics`). Only the first `statisticsUpstreamLimit` (64)
/// upstreams are listed, so the reply stays far below 65535 bytes: each
/// record is at most 13 + 40 bytes, about 14 KB for 64 upstreams.
///
/// Any other name or type in those zones gets REFUSED (there is no
/// eviction counter, so `evictions.bind.` is refused too). CHAOS questions
/// outside the three zones are not ours and take the ordinary path.
///
/// Nothing is allocated: the reply is written straight into the reply
/// buffer and numbers are formatted into it digit by digit.
extension Engine {
  /// How many statistics `stats.dnsward.` reports.
  #if DNSWARD_NO_DNSSEC
    public static let statisticCount = 58
  #else
    /// (Five fewer, the DNSSEC counters, in a firmware without DNSSEC.)
    public static let statisticCount = 63
  #endif

  /// Statistic `index` (0..<statisticCount) for `stats.dnsward.`: every
  /// `EngineCounters` field under its own name, in declaration order, then
  /// the cache's entries in use and its capacity. The order is part of the
  /// interface (scripts may rely on it); new statistics go at the end.
  public func statistic(at index: Int) -> (name: StaticString, value: UInt64) {
    let c = counters
    switch index {
    case 0: return ("queries", c.queries)
    case 1: return ("droppedShort", c.droppedShort)
    case 2: return ("droppedResponses", c.droppedResponses)
    case 3: return ("refused", c.refused)
    case 4: return ("formErr", c.formErr)
    case 5: return ("notImp", c.notImp)
    case 6: return ("badVersion", c.badVersion)
    case 7: return ("overridden", c.overridden)
    case 8: return ("blocked", c.blocked)
    case 9: return ("coalesced", c.coalesced)
    case 10: return ("retransmissions", c.retransmissions)
    case 11: return ("forwarded", c.forwarded)
    case 12: return ("ringFull", c.ringFull)
    case 13: return ("servFail", c.servFail)
    case 14: return ("cacheHits", c.cacheHits)
    case 15: return ("cacheMisses", c.cacheMisses)
    case 16: return ("cacheInserts", c.cacheInserts)
    case 17: return ("staleServed", c.staleServed)
    case 18: return ("refreshes", c.refreshes)
    case 19: return ("answered", c.answered)
    case 20: return ("truncated", c.truncated)
    case 21: return ("timeouts", c.timeouts)
    case 22: return ("retried", c.retried)
    case 23: return ("mismatchedSource", c.mismatchedSource)
    case 24: return ("mismatchedID", c.mismatchedID)
    case 25: return ("mismatchedQuestion", c.mismatchedQuestion)
    case 26: return ("mismatchedCase", c.mismatchedCase)
    case 27: return ("malformedReplies", c.malformedReplies)
    case 28: return ("staleReplies", c.staleReplies)
    case 29: return ("chaosAnswered", c.chaosAnswered)
    case 30: return ("cacheEntries", UInt64(cache.count))
    case 31: return ("cacheCapacity", UInt64(cacheCapacity))
    case 32: return ("activeTransactions", UInt64(activeTransactions))
    case 33: return ("waitersInUse", UInt64(waitersInUse))
    case 34: return ("cacheBytesInUse", UInt64(cache.isEnabled ? cache.bytesInUse : 0))
    case 35: return ("rateLimited", c.rateLimited)
    case 36: return ("anyRefused", c.anyRefused)
    case 37: return ("bogusDropped", c.bogusDropped)
    case 38: return ("redirectsRewritten", c.redirectsRewritten)
    case 39: return ("redirectProbes", c.redirectProbes)
    case 40: return ("redirectAddressesLearned", c.redirectAddressesLearned)
    case 41: return ("rebindBlocked", c.rebindBlocked)
    case 42: return ("holdOnConflicts", c.holdOnConflicts)
    case 43: return ("holdOnReplaced", c.holdOnReplaced)
    case 44: return ("verifyDisagreements", c.verifyDisagreements)
    case 45: return ("overrideAddressesDown", c.overrideAddressesDown)
    case 46: return ("networkChanges", c.networkChanges)
    case 47: return ("notForwarded", c.notForwarded)
    case 48: return ("aaaaFiltered", c.aaaaFiltered)
    case 49: return ("localAnswers", c.localAnswers)
    case 50: return ("localNXDomain", c.localNXDomain)
    case 51: return ("localNamesDropped", UInt64(localNames.active.dropped))
    case 52: return ("nftsetAddresses", c.nftsetAddresses)
    case 53: return ("nftsetElementsSent", c.nftsetElementsSent)
    case 54: return ("nftsetElementsDropped", c.nftsetElementsDropped)
    case 55: return ("nftsetBatchesFailed", c.nftsetBatchesFailed)
    case 56: return ("nftsetElementsFailed", c.nftsetElementsFailed)
    #if DNSWARD_NO_DNSSEC
      default: return ("nftsetElementsUnsupported", c.nftsetElementsUnsupported)
    #else
      case 57: return ("nftsetElementsUnsupported", c.nftsetElementsUnsupported)
      case 58: return ("dnssecSecure", c.dnssecSecure)
      case 59: return ("dnssecInsecure", c.dnssecInsecure)
      case 60: return ("dnssecBogus", c.dnssecBogus)
      case 61: return ("dnssecFetches", c.dnssecFetches)
      default: return ("dnssecPendingFull", c.dnssecPendingFull)
    #endif
    }
  }

  /// Whether statistic `index` is a level that goes up and down (entries in
  /// use, a capacity) rather than a count since start-up. Metrics
  /// (Transports/MetricsText.swift) call the first a gauge and the second a
  /// counter.
  public static func statisticIsLevel(at index: Int) -> Bool {
    switch index {
    case 30, 31, 32, 33, 34, 45, 51: return true
    default: return false
    }
  }

  /// Upstreams listed in `stats.dnsward.` at most.
  public static let statisticsUpstreamLimit = 64

  /// Records in a `stats.dnsward.` answer: `statisticCount`, then five per
  /// upstream (at most `statisticsUpstreamLimit` of them).
  public var statisticRecordCount: Int {
    Self.statisticCount + 5 * min(upstreams.count, Self.statisticsUpstreamLimit)
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
      counters.refused += 1
      replyError(
        .refused, to: query.bytes, query: query, client: client, environment: &environment)
      return true
    }
    // Counted before the values are written, so that `stats.dnsward.`
    // includes itself in `chaosAnswered` as it does in `queries`.
    counters.chaosAnswered += 1
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.authoritative | HeaderFlags.recursionAvailable
        | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    flags.rcode = .noError
    let hasEDNS = query.opt != nil
    let casedLength = query.copyQuestionName(into: scratchCaseName)
    let cased = UnsafeRawBufferPointer(rebasing: scratchCaseName[0..<casedLength])
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
        for index in 0..<Self.statisticCount {
          let (key, value) = statistic(at: index)
          try Self.writeTXT(&writer, key: key, value: value)
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
    if Self.flat(name, is: "hits.bind") { return .number(counters.cacheHits) }
    if Self.flat(name, is: "misses.bind") { return .number(counters.cacheMisses) }
    if Self.flat(name, is: "cachesize.bind") { return .number(UInt64(cacheCapacity)) }
    if Self.flat(name, is: "insertions.bind") { return .number(counters.cacheInserts) }
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
  static func writeTXT(_ writer: inout MessageWriter, key: StaticString, value: UInt64)
    throws(WireError)
  {
    try writeTXTPrefix(
      &writer, stringLength: key.utf8CodeUnitCount + 1 + decimalLength(value))
    try writer.write(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
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
