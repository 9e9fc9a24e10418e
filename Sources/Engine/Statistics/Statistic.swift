/// Every statistic dnsward keeps, each declared once, on one line:
/// `"NAME KIND GROUP"` (`StatisticDeclaration`), under a doc comment saying
/// what it counts. From this table come the counters (`Statistics`),
/// `stats.dnsward.` and so `dnsward stats` and its JSON, the counters log,
/// the Prometheus metrics and the list in
/// Sources/Engine/Statistics/README.md (which takes the doc comments).
/// Adding a statistic is adding a line. (What each counts is a comment, not
/// part of the string: every byte of the strings is in the firmware.)
///
/// - NAME is the case's own name, as `stats` prints it; Prometheus writes it
///   in snake case after `dnsward_`, the log in kebab case.
/// - KIND is `count` (events since start-up) or `level` (a figure that goes
///   up and down, brought up to date before it is read: `refreshLevels`).
/// - GROUP is the line of the counters log it is printed on
///   (`StatisticGroup`).
///
/// The order is an interface (scripts read `stats` by position): a new
/// statistic goes last (the DNSSEC ones, absent from a firmware without the
/// validator, stay where they are). Every dropped or refused packet lands in
/// exactly one counter, so an operator can see why a client got no answer.
public enum Statistic: StatisticDeclaration, CaseIterable {
  /// Client packets that reached the engine.
  case queries = "queries count clients"
  /// Packets shorter than a header, dropped.
  case droppedShort = "droppedShort count clients"
  /// Packets with QR set, dropped.
  case droppedResponses = "droppedResponses count clients"
  /// Answered REFUSED.
  case refused = "refused count clients"
  /// Answered FORMERR.
  case formErr = "formErr count clients"
  /// Answered NOTIMP (an opcode other than QUERY).
  case notImp = "notImp count clients"
  /// Answered BADVERS (EDNS version above 0).
  case badVersion = "badVersion count clients"
  /// Answered from the override table.
  case overridden = "overridden count clients"
  /// Answered NXDOMAIN by a block line.
  case blocked = "blocked count clients"
  /// Joined an identical question in flight.
  case coalesced = "coalesced count clients"
  /// Copies of a question in flight, dropped.
  case retransmissions = "retransmissions count clients"
  /// Queries sent upstream, each attempt.
  case forwarded = "forwarded count upstreams"
  /// Answered SERVFAIL at once, every slot in use.
  case ringFull = "ringFull count clients"
  /// Answered SERVFAIL, every upstream failed.
  case servFail = "servFail count clients"
  /// Answered from a fresh cache entry.
  case cacheHits = "cacheHits count cache"
  /// Looked up and not answered from the cache.
  case cacheMisses = "cacheMisses count cache"
  /// Answers stored in the cache.
  case cacheInserts = "cacheInserts count cache"
  /// Answered from an expired entry.
  case staleServed = "staleServed count cache"
  /// Questions asked upstream for expired entries.
  case refreshes = "refreshes count cache"
  /// Answers relayed from upstreams.
  case answered = "answered count upstreams"
  /// Replies sent with TC=1, too large for the client.
  case truncated = "truncated count clients"
  /// Attempts that missed their deadline.
  case timeouts = "timeouts count upstreams"
  /// Replies accepted only to ask again (SERVFAIL, TC).
  case retried = "retried count upstreams"
  /// Replies from the wrong address.
  case mismatchedSource = "mismatchedSource count upstreams"
  /// Replies with the wrong ID, dropped.
  case mismatchedID = "mismatchedID count upstreams"
  /// Replies to another question.
  case mismatchedQuestion = "mismatchedQuestion count upstreams"
  /// Replies without the 0x20 case.
  case mismatchedCase = "mismatchedCase count upstreams"
  /// Replies that do not parse.
  case malformedReplies = "malformedReplies count upstreams"
  /// Replies for questions no longer asked.
  case staleReplies = "staleReplies count upstreams"
  /// CHAOS TXT questions answered here.
  case chaosAnswered = "chaosAnswered count clients"
  /// Answers in the cache.
  case cacheEntries = "cacheEntries level cache"
  /// Answers the cache holds at most (0: off).
  case cacheCapacity = "cacheCapacity level cache"
  /// Questions in flight.
  case activeTransactions = "activeTransactions level upstreams"
  /// Clients waiting on them.
  case waitersInUse = "waitersInUse level upstreams"
  /// Bytes of the cache's arena in use.
  case cacheBytesInUse = "cacheBytesInUse level cache"
  /// Queries over rate-limit, dropped.
  case rateLimited = "rateLimited count defences"
  /// ANY over UDP, answered with HINFO.
  case anyRefused = "anyRefused count defences"
  /// Answers with a bogus address, dropped.
  case bogusDropped = "bogusDropped count defences"
  /// Redirects answered NXDOMAIN.
  case redirectsRewritten = "redirectsRewritten count defences"
  /// Probes for names that cannot exist.
  case redirectProbes = "redirectProbes count defences"
  /// Redirects learned.
  case redirectAddressesLearned = "redirectAddressesLearned count defences"
  /// Public names at private addresses.
  case rebindBlocked = "rebindBlocked count defences"
  /// A second answer within hold-on.
  case holdOnConflicts = "holdOnConflicts count defences"
  /// Second answers that won over the first.
  case holdOnReplaced = "holdOnReplaced count defences"
  /// Answers verify refuted.
  case verifyDisagreements = "verifyDisagreements count defences"
  /// Override addresses down.
  case overrideAddressesDown = "overrideAddressesDown level defences"
  /// WAN changes, attempts sent again.
  case networkChanges = "networkChanges count upstreams"
  /// Never forwarded (RFC 6303, single labels).
  case notForwarded = "notForwarded count clients"
  /// AAAA answered NODATA by filter-aaaa.
  case aaaaFiltered = "aaaaFiltered count clients"
  /// Answered from hosts and leases names.
  case localAnswers = "localAnswers count clients"
  /// Under domain, no such local name.
  case localNXDomain = "localNXDomain count clients"
  /// Local names over the table's size.
  case localNamesDropped = "localNamesDropped level clients"
  /// Addresses handed to the sets.
  case nftsetAddresses = "nftsetAddresses count nftset"
  /// Elements sent to the kernel.
  case nftsetElementsSent = "nftsetElementsSent count nftset"
  /// Elements not sent.
  case nftsetElementsDropped = "nftsetElementsDropped count nftset"
  /// Batches the kernel refused.
  case nftsetBatchesFailed = "nftsetBatchesFailed count nftset"
  /// Elements in those batches.
  case nftsetElementsFailed = "nftsetElementsFailed count nftset"
  /// Elements not written.
  case nftsetElementsUnsupported = "nftsetElementsUnsupported count nftset"
  #if !DNSWARD_NO_DNSSEC
    /// Answers proven secure.
    case dnssecSecure = "dnssecSecure count dnssec"
    /// Answers proven insecure.
    case dnssecInsecure = "dnssecInsecure count dnssec"
    /// Answers that failed validation: SERVFAIL.
    case dnssecBogus = "dnssecBogus count dnssec"
    /// DS and DNSKEY questions asked.
    case dnssecFetches = "dnssecFetches count dnssec"
    /// SERVFAIL, no buffer to wait in.
    case dnssecPendingFull = "dnssecPendingFull count dnssec"
  #endif
  /// Datagrams larger than the buffer, dropped.
  case oversized = "oversized count transport"
  /// TCP clients refused, every slot taken.
  case tcpRejected = "tcpRejected count transport"
  /// TCP clients closed (idle, bad framing).
  case tcpClosed = "tcpClosed count transport"
  /// Sends that failed.
  case sendErrors = "sendErrors count transport"
  /// Datagrams after their attempt.
  case lateUpstreamReplies = "lateUpstreamReplies count transport"
  /// HTTPDNS and DoH answers unusable.
  case httpdnsErrors = "httpdnsErrors count transport"
  /// TLS handshakes done.
  case tlsHandshakes = "tlsHandshakes count transport"
  /// TLS handshakes that resumed a session.
  case tlsResumptions = "tlsResumptions count transport"
  /// TLS servers refused (certificate, pin).
  case tlsRefusals = "tlsRefusals count transport"

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
