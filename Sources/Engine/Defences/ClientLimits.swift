import CompiledConfig
import DNSWire

/// `rate-limit`: one token bucket per recent client address, in a fixed
/// table hashed with the engine's key (so a client cannot aim at one
/// bucket); allocated only when the limit is on.
struct RateLimiter: ~Copyable {
  /// One client address's token bucket.
  struct Bucket {
    var address = IPAddress.anyV6
    /// Thousandths of a query the client may still send: each query costs
    /// 1000, each millisecond earns `rate-limit` (so a second earns `rate`
    /// queries), up to one second's worth.
    var credit: UInt64 = 0
    var updatedAt: UInt64 = 0
    var inUse = false
  }

  /// Client addresses tracked at once (a power of two). A LAN has far fewer;
  /// beyond that the least recently seen of a few neighbours is forgotten,
  /// which starts it again with a full bucket.
  static let bucketCount = 1024
  /// Buckets looked at for one address (linear probing; entries are
  /// replaced, never removed, so a chain never has holes).
  static let probes = 4

  private let buckets: UnsafeMutablePointer<Bucket>
  private let mask: Int
  private let hashKey: HashKey

  init(enabled: Bool, hashKey: HashKey) {
    let count = enabled ? Self.bucketCount : 1
    buckets = .allocate(capacity: count)
    buckets.initialize(repeating: Bucket(), count: count)
    mask = count - 1
    self.hashKey = hashKey
  }

  deinit {
    buckets.deallocate()
  }

  /// Whether a query from `address` at `now` is within `perSecond`; takes
  /// one query's credit if so.
  func admits(_ address: IPAddress, now: UInt64, perSecond: UInt32) -> Bool {
    let rate = UInt64(perSecond)
    let burst = rate &* 1000
    var hasher = SipHasher(key: hashKey)
    hasher.combine(address.high)
    hasher.combine(address.low)
    let home = Int(truncatingIfNeeded: hasher.finalize() & UInt64(mask))
    var chosen = home
    var found = false
    for step in 0..<Self.probes {
      let index = (home + step) & mask
      let bucket = buckets[index]
      if bucket.inUse && bucket.address == address {
        chosen = index
        found = true
        break
      }
      if !bucket.inUse {
        chosen = index
        break
      }
      if bucket.updatedAt < buckets[chosen].updatedAt { chosen = index }
    }
    if !found {
      buckets[chosen] = Bucket(address: address, credit: burst, updatedAt: now, inUse: true)
    }
    let elapsed = now >= buckets[chosen].updatedAt ? now - buckets[chosen].updatedAt : 0
    let credit = min(burst, buckets[chosen].credit &+ elapsed &* rate)
    buckets[chosen].updatedAt = now
    guard credit >= 1000 else {
      buckets[chosen].credit = credit
      return false
    }
    buckets[chosen].credit = credit - 1000
    return true
  }
}

/// Abuse control on client queries: a per-address rate limit and the RFC
/// 8482 answer to ANY.
extension MessageBuffers {
  /// TTL of the RFC 8482 HINFO answer: an hour, so clients do not ask again soon.
  static let minimalANYTTL: UInt32 = 3600

  /// RFC 8482 §4.2: an ANY question over UDP is answered with one
  /// synthesized HINFO record, CPU "RFC8482", OS empty, so the answer stays
  /// small and the proxy is no amplifier. Over TCP, where the source address
  /// cannot be forged, ANY is forwarded like any other type.
  func writeMinimalANY(_ query: Message, ours: UInt16) -> LocalReply {
    let flags = HeaderFlags(replyingTo: query, rcode: .noError, authoritative: false)
    let hinfo: StaticString = "\u{07}RFC8482\u{00}"
    var writer = startReply(to: query, flags: flags, answers: 1)
    var fits = true
    do throws(WireError) {
      try writer.writeRecord(
        pointerTo: HeaderField.size, type: RRType(rawValue: 13), rrClass: query.questionClass,
        ttl: Self.minimalANYTTL,
        rdata: UnsafeRawBufferPointer(start: hinfo.utf8Start, count: hinfo.utf8CodeUnitCount))
      try writer.writeClientOPT(answering: query, payloadSize: ours)
    } catch {
      fits = false
    }
    return LocalReply(
      length: fits ? writer.count : Int.max, flags: flags, statistic: .anyRefused,
      outcome: .answered(.noError))
  }
}
