/// What the engine counts. Every dropped or refused packet lands in exactly
/// one counter, so an operator can see why a client got no answer.
public struct EngineCounters {
  /// Client packets that reached the engine.
  public var queries: UInt64 = 0
  /// Shorter than a header: dropped without a reply.
  public var droppedShort: UInt64 = 0
  /// QR set on a packet sent to the listener: dropped (no reflection loops).
  public var droppedResponses: UInt64 = 0
  public var refused: UInt64 = 0
  public var formErr: UInt64 = 0
  public var notImp: UInt64 = 0
  public var badVersion: UInt64 = 0
  /// Answered from the override table (addresses or NODATA).
  public var overridden: UInt64 = 0
  /// Answered NXDOMAIN by a `block` line.
  public var blocked: UInt64 = 0
  /// Client queries joined to an identical one already in flight.
  public var coalesced: UInt64 = 0
  /// Copies of a question the same client (address, port, ID) already has
  /// in flight: dropped, the first copy's answer serves both.
  public var retransmissions: UInt64 = 0
  /// Upstream queries sent (each attempt counts).
  public var forwarded: UInt64 = 0
  /// Transaction ring or waiter pool full: answered SERVFAIL at once.
  public var ringFull: UInt64 = 0
  /// Every upstream failed or none is configured: SERVFAIL.
  public var servFail: UInt64 = 0
  /// Answered from a fresh cache entry.
  public var cacheHits: UInt64 = 0
  /// Looked up in the cache and not answered from it (absent or expired).
  public var cacheMisses: UInt64 = 0
  /// Answers stored in the cache.
  public var cacheInserts: UInt64 = 0
  /// Answered from an expired entry (every upstream failed, or stale-first).
  public var staleServed: UInt64 = 0
  /// Upstream queries for expired entries that nobody waits on.
  public var refreshes: UInt64 = 0
  /// Answers relayed to clients from upstreams.
  public var answered: UInt64 = 0
  /// Replies sent with TC=1 because they did not fit the client's size.
  public var truncated: UInt64 = 0
  /// Attempts that missed their deadline.
  public var timeouts: UInt64 = 0
  /// Upstream replies that were accepted only to try again elsewhere
  /// (SERVFAIL, REFUSED, NOTIMP) or over TCP (TC=1).
  public var retried: UInt64 = 0
  /// Upstream packets that failed validation and were dropped; the real answer
  /// is still awaited. One counter per reason.
  public var mismatchedSource: UInt64 = 0
  public var mismatchedID: UInt64 = 0
  public var mismatchedQuestion: UInt64 = 0
  public var mismatchedCase: UInt64 = 0
  public var malformedReplies: UInt64 = 0
  /// Replies for transactions that are no longer in flight.
  public var staleReplies: UInt64 = 0
  /// CHAOS-class TXT questions answered locally (`hits.bind.`,
  /// `stats.dnsward.`, ... — see Stats.swift).
  public var chaosAnswered: UInt64 = 0

  // Hijack defence (Sources/README.md, Threat model). Each counts one defence
  // firing, so a user can see what the network above the router tried.

  /// Client queries over `rate-limit`: dropped without a reply.
  public var rateLimited: UInt64 = 0
  /// QTYPE ANY over UDP answered with the RFC 8482 minimal HINFO answer.
  public var anyRefused: UInt64 = 0
  /// Upstream answers with an address inside a `bogus` prefix: dropped.
  public var bogusDropped: UInt64 = 0
  /// Answers that were only a `bogus-nxdomain` (or learned redirect)
  /// address: answered NXDOMAIN instead.
  public var redirectsRewritten: UInt64 = 0
  /// Probes for names that cannot exist sent by `detect-nxdomain-redirect`.
  public var redirectProbes: UInt64 = 0
  /// Redirect addresses learned by those probes since start-up.
  public var redirectAddressesLearned: UInt64 = 0
  /// Answers pointing a public name at a private address (`rebind-protection`).
  public var rebindBlocked: UInt64 = 0
  /// `hold-on`: a second, different answer arrived within the window.
  public var holdOnConflicts: UInt64 = 0
  /// `hold-on`: ... and the second answer won over the first.
  public var holdOnReplaced: UInt64 = 0
  /// `verify`: plain answers outside the trusted answer's addresses.
  public var verifyDisagreements: UInt64 = 0
  /// `override-check`: override addresses currently failing their probe
  /// (a gauge, kept up to date by the transport).
  public var overrideAddressesDown: UInt64 = 0
  /// The WAN changed (an address or route added or removed, a link up or
  /// down): in-flight attempts were sent again at once and every upstream
  /// was given a fresh start.
  public var networkChanges: UInt64 = 0
  /// Questions answered at once and never forwarded: at or below a locally
  /// served reverse zone (RFC 6303), or a single-label name's addresses
  /// (NeverForwarded.swift).
  public var notForwarded: UInt64 = 0
  /// AAAA questions answered with NODATA by `filter-aaaa on`.
  public var aaaaFiltered: UInt64 = 0

  // Local names (LocalAnswers.swift).

  /// Answered from the `hosts` and `leases` names (addresses, PTR or NODATA).
  public var localAnswers: UInt64 = 0
  /// Names at or below `domain` that no local data answers: NXDOMAIN
  /// (NODATA for the domain itself), never forwarded.
  public var localNXDomain: UInt64 = 0

  // nftset (NftSetAnswers.swift). The engine counts the addresses it hands
  // over; the loop copies its netlink writer's counts into the others after
  // each flush (`Server.flushNftSets`).

  /// A and AAAA addresses of answers for `nftset` names, handed to the sets.
  public var nftsetAddresses: UInt64 = 0
  /// Elements the writer sent to the kernel.
  public var nftsetElementsSent: UInt64 = 0
  /// Elements not sent: the netlink socket would not take their batch.
  public var nftsetElementsDropped: UInt64 = 0
  /// Batches the kernel refused (a missing set, no CAP_NET_ADMIN, ...), and
  /// the elements they carried.
  public var nftsetBatchesFailed: UInt64 = 0
  public var nftsetElementsFailed: UInt64 = 0
  /// Elements for a set that is an interval set, a map, or of the other
  /// address family: not written.
  public var nftsetElementsUnsupported: UInt64 = 0

  // DNSSEC validation (`dnssec on`, Validation.swift). Each answer a client
  // asked for with CD=0 counts once, as does each chain answer (DS, DNSKEY).
  // Not in a firmware without the DNSSEC module.
  #if !DNSWARD_NO_DNSSEC
    /// Answers proven secure: relayed with AD when the client asked for it.
    public var dnssecSecure: UInt64 = 0
    /// Answers proven outside any signed zone (or under no trust anchor).
    public var dnssecInsecure: UInt64 = 0
    /// Answers that failed validation, and bogus answers served from the
    /// cache: SERVFAIL with an Extended DNS Error.
    public var dnssecBogus: UInt64 = 0
    /// DS and DNSKEY questions asked upstream to build a chain of trust.
    public var dnssecFetches: UInt64 = 0
    /// Answers that needed a chain fetch while every pending-validation
    /// buffer was taken (or were larger than one): SERVFAIL.
    public var dnssecPendingFull: UInt64 = 0
  #endif

  public init() {}
}

/// Client reply latencies in fixed buckets (`Engine.answerLatency`), as a
/// Prometheus histogram counts them: recording one is two additions and no
/// allocation. The
/// latency is whole milliseconds from the query's arrival to its reply (0
/// for a reply written in the same call: local, cached, refused).
public struct LatencyHistogram {
  /// Buckets in use: `bucketCount - 1` bounded ones, then one past the last
  /// bound (+Inf).
  public static let bucketCount = 13
  /// Replies per bucket, not cumulative; `bucketCount` of them.
  private var buckets:
    (
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
  /// Replies recorded, and their latencies added up.
  public private(set) var count: UInt64 = 0
  public private(set) var sumMilliseconds: UInt64 = 0

  public init() {}

  /// The upper bound of bucket `index` in milliseconds (inclusive); the
  /// last bucket has none (`UInt64.max`).
  public static func boundMilliseconds(_ index: Int) -> UInt64 {
    switch index {
    case 0: return 1
    case 1: return 2
    case 2: return 5
    case 3: return 10
    case 4: return 20
    case 5: return 50
    case 6: return 100
    case 7: return 200
    case 8: return 500
    case 9: return 1000
    case 10: return 2000
    case 11: return 5000
    default: return UInt64.max
    }
  }

  /// Replies in bucket `index` alone (0..<bucketCount).
  public func bucket(_ index: Int) -> UInt64 {
    withUnsafeBytes(of: buckets) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
  }

  public mutating func record(milliseconds: UInt64) {
    var index = 0
    while milliseconds > Self.boundMilliseconds(index) { index += 1 }
    withUnsafeMutableBytes(of: &buckets) {
      let offset = index * 8
      $0.storeBytes(
        of: $0.load(fromByteOffset: offset, as: UInt64.self) &+ 1, toByteOffset: offset,
        as: UInt64.self)
    }
    count &+= 1
    sumMilliseconds &+= milliseconds
  }
}
