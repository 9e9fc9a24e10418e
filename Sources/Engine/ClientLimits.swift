import CompiledConfig
import DNSWire

/// One client address's token bucket (`rate-limit`).
struct RateBucket {
  var address = IPAddress.anyV6
  /// Thousandths of a query the client may still send: each query costs
  /// 1000, each millisecond earns `rate-limit` (so a second earns `rate`
  /// queries), up to one second's worth.
  var credit: UInt64 = 0
  var updatedAt: UInt64 = 0
  var inUse = false
}

/// Abuse control on client queries: a per-address rate limit and the RFC
/// 8482 answer to ANY.
extension Engine {
  /// Client addresses tracked at once (a power of two). A LAN has far fewer;
  /// beyond that the least recently seen of a few neighbours is forgotten,
  /// which starts it again with a full bucket.
  static let rateBucketCount = 1024
  /// Buckets looked at for one address (linear probing; entries are
  /// replaced, never removed, so a chain never has holes).
  static let rateBucketProbes = 4
  /// TTL of the RFC 8482 HINFO answer: an hour, so clients do not ask again soon.
  static let minimalANYTTL: UInt32 = 3600

  /// Whether a query from `address` at `now` is within `rate-limit`; takes
  /// one query's credit if so.
  func withinRateLimit(_ address: IPAddress, now: UInt64) -> Bool {
    let rate = UInt64(settings.rateLimitPerSecond)
    let burst = rate &* 1000
    var hasher = SipHasher(key: hashKey)
    hasher.combine(address.high)
    hasher.combine(address.low)
    let home = Int(truncatingIfNeeded: hasher.finalize() & UInt64(rateBucketMask))
    var chosen = home
    var found = false
    for step in 0..<Self.rateBucketProbes {
      let index = (home + step) & rateBucketMask
      let bucket = rateBuckets[index]
      if bucket.inUse && bucket.address == address {
        chosen = index
        found = true
        break
      }
      if !bucket.inUse {
        chosen = index
        break
      }
      if bucket.updatedAt < rateBuckets[chosen].updatedAt { chosen = index }
    }
    if !found {
      rateBuckets[chosen] = RateBucket(address: address, credit: burst, updatedAt: now, inUse: true)
    }
    let elapsed = now >= rateBuckets[chosen].updatedAt ? now - rateBuckets[chosen].updatedAt : 0
    let credit = min(burst, rateBuckets[chosen].credit &+ elapsed &* rate)
    rateBuckets[chosen].updatedAt = now
    guard credit >= 1000 else {
      rateBuckets[chosen].credit = credit
      return false
    }
    rateBuckets[chosen].credit = credit - 1000
    return true
  }

  /// RFC 8482 §4.2: an ANY question over UDP is answered with one
  /// synthesized HINFO record, CPU "RFC8482", OS empty, so the answer stays
  /// small and the proxy is no amplifier. Over TCP, where the source address
  /// cannot be forged, ANY is forwarded like any other type.
  func answerMinimalANY<E: EngineEnvironment>(
    query: Message, name lowercased: UnsafeRawBufferPointer, client: ClientRef,
    environment: inout E
  ) {
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable
        | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    flags.rcode = .noError
    let hasEDNS = query.opt != nil
    let nameLength = query.copyQuestionName(into: scratchCaseName)
    let name = UnsafeRawBufferPointer(rebasing: scratchCaseName[0..<nameLength])
    let hinfo: StaticString = "\u{07}RFC8482\u{00}"
    var writer = MessageWriter(buffer: replyOutput)
    var fits = true
    do throws(WireError) {
      try writer.writeHeader(
        id: query.id, flags: flags, questions: 1, answers: 1, additionals: hasEDNS ? 1 : 0)
      try writer.writeQuestion(
        name: name, type: .any, rrClass: query.questionClass, compress: false)
      try writer.writeRecord(
        pointerTo: HeaderField.size, type: RRType(rawValue: 13), rrClass: query.questionClass,
        ttl: Self.minimalANYTTL,
        rdata: UnsafeRawBufferPointer(start: hinfo.utf8Start, count: hinfo.utf8CodeUnitCount))
      if hasEDNS { try writeClientOPT(&writer, dnssecOK: query.opt?.dnssecOK ?? false) }
    } catch {
      fits = false
    }
    let length = fitLocalReply(
      length: fits ? writer.count : Int.max, query: query, client: client, flags: flags,
      name: lowercased, clientCase: CaseMask(of: name), type: .any, rrClass: query.questionClass)
    statistics[.anyRefused] += 1
    send(replyLength: length, to: client, environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: client, name: lowercased, type: .any, outcome: .answered(.noError), upstream: -1,
        latencyMilliseconds: 0)
    }
  }
}
