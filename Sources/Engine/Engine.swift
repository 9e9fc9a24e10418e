import CompiledConfig
import DNSWire

/// The whole resolver policy as a sans-I/O state machine (Sources/README.md,
/// Modules). Three inputs drive it — a client query arrived, an upstream
/// packet arrived, time passed — and it acts only through the
/// `EngineEnvironment` it is handed. It never reads a clock or a socket.
///
/// Memory: every array is allocated once in `init`, sized by the settings;
/// handling a query allocates nothing.
public final class Engine {
  /// Replaced as a whole by a reload (Reload.swift); what sized a table
  /// stays as it was. The stages are handed `inForce`, never these.
  public var settings: Settings { _read { yield inForce.value } }
  var inForce: SettingsInForce
  /// The upstreams in force, their health and figures, and which one a
  /// question tries next (Upstreams/UpstreamSelection.swift).
  public internal(set) var selection: UpstreamSelection
  /// The upstreams in priority order, `resolv-conf` already expanded.
  public var upstreams: [UpstreamServer] { selection.servers }
  /// What this worker counts (Statistics/Statistic.swift), shared with its
  /// transports.
  public let statistics = Statistics()

  /// The questions in flight upstream, their waiting clients, the
  /// coalescing index and the deadlines (Transactions/).
  var table: TransactionTable

  /// The reply and query being written, and scratch names.
  let buffers = MessageBuffers()

  /// Answers by question, sized by `cache` and `cache-bytes`.
  public let cache: PacketCache
  /// Overrides, local names, never-forwarded names (LocalAuthority/).
  public let local: LocalAuthority
  /// `dnssec`: answers waiting for their chain of trust (Validation/).
  var validations: ValidationPool

  /// The hijack defences: the ACL, answer screening, `hold-on`, `verify`,
  /// the redirect probes and `rate-limit` (Defences/).
  public internal(set) var defences: Defences

  /// Largest DNS message (RFC 1035 §4.2.2 length prefix is 16 bits).
  public static let maxMessage = MessageBuffers.maxMessage
  static let framing = MessageBuffers.framing

  /// - Parameter hashKey: random, from the CSPRNG, keys the coalescing and
  ///   cache hashes (SipHash-1-3), so clients cannot aim at one bucket.
  public init(settings: Settings, upstreams: [UpstreamServer], hashKey: HashKey) {
    inForce = SettingsInForce(settings)
    selection = UpstreamSelection(servers: upstreams)
    table = TransactionTable(capacity: settings.inflight, hashKey: hashKey)
    cache = PacketCache(
      capacity: settings.cacheEntries, arenaBytes: settings.cacheBytes,
      hashKey: HashKey(k0: ~hashKey.k1, k1: hashKey.k0 ^ 0x9E37_79B9_7F4A_7C15))
    local = LocalAuthority(
      settings: settings,
      hashKey: HashKey(k0: hashKey.k1 ^ 0x243F_6A88_85A3_08D3, k1: ~hashKey.k0))
    validations = ValidationPool(
      mode: settings.dnssec, inflight: settings.inflight,
      hashKey: HashKey(k0: hashKey.k0 ^ 0x5851_F42D_4C95_7F2D, k1: ~hashKey.k1))
    defences = Defences(settings: settings, hashKey: hashKey)
  }

  /// When `tick` next has work: the earliest deadline or end of a hold-on
  /// window, or the next redirect or (`dnssec auto`) DNSSEC probe round;
  /// nil when idle.
  public var nextDeadline: UInt64? {
    var earliest = table.earliestDeadline
    if let holdEnd = defences.holds.earliestEnd { earliest = min(earliest ?? holdEnd, holdEnd) }
    if let probeTime = defences.probes.due(
      detecting: settings.detectNXDomainRedirect, upstreams: upstreams.count)
    {
      earliest = min(earliest ?? probeTime, probeTime)
    }
    if let pending = validations.earliestDeadline { earliest = min(earliest ?? pending, pending) }
    return earliest
  }

  /// `dnssec on` or `auto`. Read from the stored mode here, not through
  /// `Settings.validatesDNSSEC`: a computed property of the settings,
  /// called through the `settings` accessor, copies the whole `Settings`
  /// (a retain and release of each of its arrays) on every query.
  var validatesDNSSEC: Bool { settings.dnssec != .off }

  /// Signatures verified so far: the work a loop turn bounds
  /// (Server.handleInFairOrder). Always 0 without DNSSEC.
  public var signatureVerifications: UInt64 {
    #if DNSWARD_NO_DNSSEC
      0
    #else
      statistics[.dnssecVerifications]
    #endif
  }

  /// Questions in flight upstream (at most `inflight`).
  public var activeTransactions: Int { table.activeCount }
  /// Clients waiting on them (at most `inflight`).
  public var waitersInUse: Int { table.waitersInUse }

  /// The slots' question and attempt fields (the links are the table's).
  var transactions: UnsafeMutablePointer<Transaction> { table.slots }

  /// Passes time: expires attempts whose deadline is due, failing over to
  /// the next upstream or answering SERVFAIL.
  public func tick<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    defer {
      sweepPrefetchNames(now: now, environment: &environment)
      startRedirectProbesIfDue(now: now, environment: &environment)
    }
    endDueHolds(now: now, environment: &environment)
    expirePendingValidations(now: now, environment: &environment)
    while let slot = table.expired(now: now) {
      table.endAttempt(slot, environment: &environment)
      // A held answer is the answer: its window outlived the deadline.
      if defences.holds.heldBuffer(of: slot) >= 0 {
        finishHold(slot: slot, now: now, environment: &environment)
        continue
      }
      statistics[.timeouts] += 1
      let upstream = Int(transactions[slot].upstream)
      environment.report(.upstreamTimeout, upstream: upstream)
      selection.noteFailure(upstream, now: now, kind: .timeout, environment: &environment)
      // Frees or re-arms the slot, so the next one expired comes next.
      failOver(slot: slot, now: now, environment: &environment)
    }
  }

  /// Ends a transaction: the stages give back what they kept for it (its
  /// hold buffer, verification entry or probe, pending validation), then
  /// the table frees the slot and its waiters.
  func release(slot: Int) {
    defences.release(
      slot: slot, purpose: transactions[slot].purpose,
      purposeIndex: transactions[slot].purposeIndex)
    validations.release(slot: slot)
    table.free(slot)
  }
}

/// The settings in force, as the stages are handed them: one reference
/// to a `let`. A `Settings` value handed from the engine's own `var` would
/// be copied for each call (a retain and release of each of its arrays),
/// since the callee might write to the engine meanwhile; a `let` cannot
/// change, so it is read in place. A reload makes a new one.
///
/// A question about the settings that calls a method of one of their
/// parts is asked here: inside a method of this class `self` is kept alive
/// by the caller, so `value.routes` is read in place; at the call site
/// Swift copies the part (retains) to keep it alive across the call.
final class SettingsInForce {
  let value: Settings
  init(_ value: Settings) { self.value = value }

  /// The route group of `name` (lower-cased, flat): that of the longest
  /// `server=/DOMAIN/` covering it, 0 (the default upstreams) if none.
  func routeGroup(_ name: UnsafeRawBufferPointer) -> UInt8 {
    value.routes.count == 0 ? 0 : value.routes.routeGroup(name)
  }

  /// Whether `name` (lower-cased, flat) is to be asked of a trusted
  /// upstream first and checked against a plain one.
  func isVerified(_ name: UnsafeRawBufferPointer) -> Bool {
    Name.isNameOrBelow(name, anyOf: value.verifyNames)
  }
}
