/// Every statistic dnsward keeps, each declared once, on one line:
/// `"NAME KIND GROUP: HELP"` (`StatisticDeclaration`). From this table come
/// the counters (`Statistics`), `stats.dnsward.` and so `dnsward stats` and
/// its JSON, the counters log, the Prometheus metrics and the list in
/// Sources/Engine/Statistics/README.md. Adding a statistic is adding a line.
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
/// validator, stay where they are). Every dropped or
/// refused packet lands in exactly one counter, so an operator can see why a
/// client got no answer.
public enum Statistic: StatisticDeclaration, CaseIterable {
  case queries = "queries count clients: client packets that reached the engine"
  case droppedShort = "droppedShort count clients: packets shorter than a header, dropped"
  case droppedResponses = "droppedResponses count clients: packets with QR set, dropped"
  case refused = "refused count clients: answered REFUSED"
  case formErr = "formErr count clients: answered FORMERR"
  case notImp = "notImp count clients: answered NOTIMP (an opcode other than QUERY)"
  case badVersion = "badVersion count clients: answered BADVERS (EDNS version above 0)"
  case overridden = "overridden count clients: answered from the override table"
  case blocked = "blocked count clients: answered NXDOMAIN by a block line"
  case coalesced = "coalesced count clients: joined an identical question in flight"
  case retransmissions = "retransmissions count clients: copies of a question in flight, dropped"
  case forwarded = "forwarded count upstreams: queries sent upstream, each attempt"
  case ringFull = "ringFull count clients: answered SERVFAIL at once, every slot in use"
  case servFail = "servFail count clients: answered SERVFAIL, every upstream failed"
  case cacheHits = "cacheHits count cache: answered from a fresh cache entry"
  case cacheMisses = "cacheMisses count cache: looked up and not answered from the cache"
  case cacheInserts = "cacheInserts count cache: answers stored in the cache"
  case staleServed = "staleServed count cache: answered from an expired entry"
  case refreshes = "refreshes count cache: questions asked upstream for expired entries"
  case answered = "answered count upstreams: answers relayed from upstreams"
  case truncated = "truncated count clients: replies sent with TC=1, too large for the client"
  case timeouts = "timeouts count upstreams: attempts that missed their deadline"
  case retried = "retried count upstreams: replies accepted only to ask again (SERVFAIL, TC)"
  case mismatchedSource = "mismatchedSource count upstreams: replies from the wrong address"
  case mismatchedID = "mismatchedID count upstreams: replies with the wrong ID, dropped"
  case mismatchedQuestion = "mismatchedQuestion count upstreams: replies to another question"
  case mismatchedCase = "mismatchedCase count upstreams: replies without the 0x20 case"
  case malformedReplies = "malformedReplies count upstreams: replies that do not parse"
  case staleReplies = "staleReplies count upstreams: replies for questions no longer asked"
  case chaosAnswered = "chaosAnswered count clients: CHAOS TXT questions answered here"
  case cacheEntries = "cacheEntries level cache: answers in the cache"
  case cacheCapacity = "cacheCapacity level cache: answers the cache holds at most (0: off)"
  case activeTransactions = "activeTransactions level upstreams: questions in flight"
  case waitersInUse = "waitersInUse level upstreams: clients waiting on them"
  case cacheBytesInUse = "cacheBytesInUse level cache: bytes of the cache's arena in use"
  case rateLimited = "rateLimited count defences: queries over rate-limit, dropped"
  case anyRefused = "anyRefused count defences: ANY over UDP, answered with HINFO"
  case bogusDropped = "bogusDropped count defences: answers with a bogus address, dropped"
  case redirectsRewritten = "redirectsRewritten count defences: redirects answered NXDOMAIN"
  case redirectProbes = "redirectProbes count defences: probes for names that cannot exist"
  case redirectAddressesLearned = "redirectAddressesLearned count defences: redirects learned"
  case rebindBlocked = "rebindBlocked count defences: public names at private addresses"
  case holdOnConflicts = "holdOnConflicts count defences: a second answer within hold-on"
  case holdOnReplaced = "holdOnReplaced count defences: second answers that won over the first"
  case verifyDisagreements = "verifyDisagreements count defences: answers verify refuted"
  case overrideAddressesDown = "overrideAddressesDown level defences: override addresses down"
  case networkChanges = "networkChanges count upstreams: WAN changes, attempts sent again"
  case notForwarded = "notForwarded count clients: never forwarded (RFC 6303, single labels)"
  case aaaaFiltered = "aaaaFiltered count clients: AAAA answered NODATA by filter-aaaa"
  case localAnswers = "localAnswers count clients: answered from hosts and leases names"
  case localNXDomain = "localNXDomain count clients: under domain, no such local name"
  case localNamesDropped = "localNamesDropped level clients: local names over the table's size"
  case nftsetAddresses = "nftsetAddresses count nftset: addresses handed to the sets"
  case nftsetElementsSent = "nftsetElementsSent count nftset: elements sent to the kernel"
  case nftsetElementsDropped = "nftsetElementsDropped count nftset: elements not sent"
  case nftsetBatchesFailed = "nftsetBatchesFailed count nftset: batches the kernel refused"
  case nftsetElementsFailed = "nftsetElementsFailed count nftset: elements in those batches"
  case nftsetElementsUnsupported = "nftsetElementsUnsupported count nftset: elements not written"
  #if !DNSWARD_NO_DNSSEC
    case dnssecSecure = "dnssecSecure count dnssec: answers proven secure"
    case dnssecInsecure = "dnssecInsecure count dnssec: answers proven insecure"
    case dnssecBogus = "dnssecBogus count dnssec: answers that failed validation: SERVFAIL"
    case dnssecFetches = "dnssecFetches count dnssec: DS and DNSKEY questions asked"
    case dnssecPendingFull = "dnssecPendingFull count dnssec: SERVFAIL, no buffer to wait in"
  #endif
  case oversized = "oversized count transport: datagrams larger than the buffer, dropped"
  case tcpRejected = "tcpRejected count transport: TCP clients refused, every slot taken"
  case tcpClosed = "tcpClosed count transport: TCP clients closed (idle, bad framing)"
  case sendErrors = "sendErrors count transport: sends that failed"
  case lateUpstreamReplies = "lateUpstreamReplies count transport: datagrams after their attempt"
  case httpdnsErrors = "httpdnsErrors count transport: HTTPDNS and DoH answers unusable"
  case tlsHandshakes = "tlsHandshakes count transport: TLS handshakes done"
  case tlsResumptions = "tlsResumptions count transport: TLS handshakes that resumed a session"
  case tlsRefusals = "tlsRefusals count transport: TLS servers refused (certificate, pin)"

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
  public var help: UnsafeRawBufferPointer { rawValue.help }
}
