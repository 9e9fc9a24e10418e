/// Every statistic dnsward keeps, each declared once, on one line:
/// `"NAME GROUP [level]"` (`StatisticDeclaration`), under a doc comment saying
/// what it counts. From this table come the counters (`Statistics`),
/// `stats.dnsward.` and so `dnsward stats` and its JSON, the counters log,
/// the Prometheus metrics and the list in
/// Sources/Engine/Statistics/README.md (which takes the doc comments).
/// Adding a statistic is adding a line. (What each counts is a comment, not
/// part of the string: every byte of the strings is in the firmware.)
///
/// - NAME is the case's own name, as `stats` prints it; Prometheus writes it
///   in snake case after `dnsward_`, the log in kebab case.
/// - GROUP is the line of the counters log it is printed on
///   (`StatisticGroup`).
/// - `level` marks a figure that goes up and down, brought up to date
///   before it is read (`refreshLevels`); without it, a statistic counts
///   events since start-up.
///
/// The order is an interface (scripts read `stats` by position): a new
/// statistic goes last (the DNSSEC ones, absent from a firmware without the
/// validator, stay where they are). Every dropped or refused packet lands in
/// exactly one counter, so an operator can see why a client got no answer.
public enum Statistic: StatisticDeclaration, CaseIterable {
  /// Client packets that reached the engine.
  case queries = "queries clients"
  /// Packets shorter than a header, dropped.
  case droppedShort = "droppedShort clients"
  /// Packets with QR set, dropped.
  case droppedResponses = "droppedResponses clients"
  /// Answered REFUSED.
  case refused = "refused clients"
  /// Answered FORMERR.
  case formErr = "formErr clients"
  /// Answered NOTIMP (an opcode other than QUERY).
  case notImp = "notImp clients"
  /// Answered BADVERS (EDNS version above 0).
  case badVersion = "badVersion clients"
  /// Answered from the override table.
  case overridden = "overridden clients"
  /// Answered NXDOMAIN by a block line.
  case blocked = "blocked clients"
  /// Joined an identical question in flight.
  case coalesced = "coalesced clients"
  /// Copies of a question in flight, dropped.
  case retransmissions = "retransmissions clients"
  /// Queries sent upstream, each attempt.
  case forwarded = "forwarded upstreams"
  /// Answered SERVFAIL at once, every slot in use.
  case ringFull = "ringFull clients"
  /// Answered SERVFAIL, every upstream failed.
  case servFail = "servFail clients"
  /// Answered from a fresh cache entry.
  case cacheHits = "cacheHits cache"
  /// Looked up and not answered from the cache.
  case cacheMisses = "cacheMisses cache"
  /// Answers stored in the cache.
  case cacheInserts = "cacheInserts cache"
  /// Answered from an expired entry.
  case staleServed = "staleServed cache"
  /// Questions asked upstream for expired entries.
  case refreshes = "refreshes cache"
  /// Answers relayed from upstreams.
  case answered = "answered upstreams"
  /// Replies sent with TC=1, too large for the client.
  case truncated = "truncated clients"
  /// Attempts that missed their deadline.
  case timeouts = "timeouts upstreams"
  /// Replies accepted only to ask again (SERVFAIL, TC).
  case retried = "retried upstreams"
  /// Replies from the wrong address.
  case mismatchedSource = "mismatchedSource upstreams"
  /// Replies with the wrong ID, dropped.
  case mismatchedID = "mismatchedID upstreams"
  /// Replies to another question.
  case mismatchedQuestion = "mismatchedQuestion upstreams"
  /// Replies without the 0x20 case.
  case mismatchedCase = "mismatchedCase upstreams"
  /// Replies that do not parse.
  case malformedReplies = "malformedReplies upstreams"
  /// Replies for questions no longer asked.
  case staleReplies = "staleReplies upstreams"
  /// CHAOS TXT questions answered here.
  case chaosAnswered = "chaosAnswered clients"
  /// Answers in the cache.
  case cacheEntries = "cacheEntries cache level"
  /// Answers the cache holds at most (0: off).
  case cacheCapacity = "cacheCapacity cache level"
  /// Questions in flight.
  case activeTransactions = "activeTransactions upstreams level"
  /// Clients waiting on them.
  case waitersInUse = "waitersInUse upstreams level"
  /// Bytes of the cache's arena in use.
  case cacheBytesInUse = "cacheBytesInUse cache level"
  /// Queries over rate-limit, dropped.
  case rateLimited = "rateLimited defences"
  /// ANY over UDP, answered with HINFO.
  case anyRefused = "anyRefused defences"
  /// Answers with a bogus address, dropped.
  case bogusDropped = "bogusDropped defences"
  /// Redirects answered NXDOMAIN.
  case redirectsRewritten = "redirectsRewritten defences"
  /// Probes for names that cannot exist.
  case redirectProbes = "redirectProbes defences"
  /// Redirects learned.
  case redirectAddressesLearned = "redirectAddressesLearned defences"
  /// Public names at private addresses.
  case rebindBlocked = "rebindBlocked defences"
  /// A second answer within hold-on.
  case holdOnConflicts = "holdOnConflicts defences"
  /// Second answers that won over the first.
  case holdOnReplaced = "holdOnReplaced defences"
  /// Answers verify refuted.
  case verifyDisagreements = "verifyDisagreements defences"
  /// Override addresses down.
  case overrideAddressesDown = "overrideAddressesDown defences level"
  /// WAN changes, attempts sent again.
  case networkChanges = "networkChanges upstreams"
  /// Never forwarded (RFC 6303, single labels).
  case notForwarded = "notForwarded clients"
  /// AAAA answered NODATA by filter-aaaa.
  case aaaaFiltered = "aaaaFiltered clients"
  /// Answered from hosts and leases names.
  case localAnswers = "localAnswers clients"
  /// Under domain, no such local name.
  case localNXDomain = "localNXDomain clients"
  /// Local names over the table's size.
  case localNamesDropped = "localNamesDropped clients level"
  /// Addresses handed to the sets.
  case nftsetAddresses = "nftsetAddresses nftset"
  /// Elements sent to the kernel.
  case nftsetElementsSent = "nftsetElementsSent nftset"
  /// Elements not sent.
  case nftsetElementsDropped = "nftsetElementsDropped nftset"
  /// Batches the kernel refused.
  case nftsetBatchesFailed = "nftsetBatchesFailed nftset"
  /// Elements in those batches.
  case nftsetElementsFailed = "nftsetElementsFailed nftset"
  /// Elements not written.
  case nftsetElementsUnsupported = "nftsetElementsUnsupported nftset"
  #if !DNSWARD_NO_DNSSEC
    /// Answers proven secure.
    case dnssecSecure = "dnssecSecure dnssec"
    /// Answers proven insecure.
    case dnssecInsecure = "dnssecInsecure dnssec"
    /// Answers that failed validation: SERVFAIL.
    case dnssecBogus = "dnssecBogus dnssec"
    /// DS and DNSKEY questions asked.
    case dnssecFetches = "dnssecFetches dnssec"
    /// SERVFAIL, no buffer to wait in.
    case dnssecPendingFull = "dnssecPendingFull dnssec"
    /// Signatures verified (the CPU validation costs).
    case dnssecVerifications = "dnssecVerifications dnssec"
    /// `dnssec auto`: answers relayed unvalidated, their upstream's probe failed.
    case dnssecUnvalidated = "dnssecUnvalidated dnssec"
  #endif
  /// Datagrams larger than the buffer, dropped.
  case oversized = "oversized transport"
  /// TCP clients refused, every slot taken.
  case tcpRejected = "tcpRejected transport"
  /// TCP clients closed (idle, bad framing).
  case tcpClosed = "tcpClosed transport"
  /// Sends that failed.
  case sendErrors = "sendErrors transport"
  /// Datagrams after their attempt.
  case lateUpstreamReplies = "lateUpstreamReplies transport"
  /// HTTPDNS and DoH answers unusable.
  case httpdnsErrors = "httpdnsErrors transport"
  /// TLS handshakes done.
  case tlsHandshakes = "tlsHandshakes transport"
  /// TLS handshakes that resumed a session.
  case tlsResumptions = "tlsResumptions transport"
  /// TLS servers refused (certificate, pin).
  case tlsRefusals = "tlsRefusals transport"
  /// UDP answers truncated by the upstream (TC=1), asked again over TCP.
  case upstreamTruncated = "upstreamTruncated upstreams"

  /// How many there are.
  public static let count = allCases.count

  /// The position in the table, 0..<count: a payload-free enum is stored as
  /// its case's declaration index (one byte below 256 cases), so this costs
  /// nothing and a counter is one indexed add.
  @inlinable public var index: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

  /// The statistic at `index` (0..<count).
  @inlinable public init(index: Int) {
    precondition(index >= 0 && index < Self.count)
    self = unsafeBitCast(UInt8(truncatingIfNeeded: index), to: Statistic.self)
  }

  public var name: UnsafeRawBufferPointer { rawValue.name }
  public var isLevel: Bool { rawValue.isLevel }
  public var group: StatisticGroup { rawValue.group }
}
