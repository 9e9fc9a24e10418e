import CompiledConfig
import DNSWire

/// The upstreams in force and what each has shown since it came into force:
/// whether it is down, its figures, whether it keeps the 0x20 case, the IP
/// TTL its answers arrive with. It owns its per-upstream table (allocated
/// with the list, replaced with it) and decides which upstream a question
/// tries next; the engine tells it what each attempt came to and reports
/// the transitions it returns. Nothing here reads a clock or allocates
/// outside `init` and `replace(with:)`.
public struct UpstreamSelection: ~Copyable {
  struct Health {
    var consecutiveFailures: UInt32 = 0
    var downUntil: UInt64 = 0
    var caseMismatches: UInt32 = 0
    var caseRandomization = true
    /// Accepted replies from this upstream that were relayed or cached.
    var answers: UInt64 = 0
    /// Attempts sent to this upstream that missed their deadline.
    var timeouts: UInt64 = 0
    /// SERVFAIL/REFUSED/NOTIMP/FORMERR replies, send errors, failed
    /// attempts and lost TCP connections.
    var failures: UInt64 = 0
    /// RFC 6298 §2 smoothed RTT (gain 1/8) of accepted replies, in
    /// microseconds; meaningful once `hasRTTSample`.
    var smoothedRTTMicroseconds: UInt64 = 0
    var hasRTTSample = false
    /// `verify`: answers of this (plain) upstream outside the trusted one's.
    var disagreements: UInt64 = 0
    /// The IP TTL its answers usually arrive with (0: not known yet): the
    /// hop distance is a shape an injector far away cannot easily match.
    var usualTTL: UInt8 = 0
    /// `dnssec auto`: what its probes found (Validation/UpstreamProbes.swift).
    var dnssecProbe = DNSSECProbe()
  }

  /// After this many consecutive failures an upstream is skipped for
  /// `downMilliseconds`, unless every upstream is down.
  static let failuresBeforeDown: UInt32 = 3
  static let downMilliseconds: UInt64 = 30_000
  /// Replies matching in everything but case before 0x20 is turned off for
  /// an upstream that does not preserve case.
  static let caseMismatchesBeforeDisable: UInt32 = 2

  /// In priority order, `resolv-conf` already expanded.
  public private(set) var servers: [UpstreamServer]
  /// One per server (at least one).
  private var health: UnsafeMutablePointer<Health>

  init(servers: [UpstreamServer]) {
    self.servers = servers
    health = .allocate(capacity: max(servers.count, 1))
    health.initialize(repeating: Health(), count: max(servers.count, 1))
  }

  deinit {
    health.deinitialize(count: max(servers.count, 1))
    health.deallocate()
  }

  /// The list in force from now on. An upstream in both lists keeps its
  /// health and figures; the others start afresh.
  mutating func replace(with replacement: [UpstreamServer]) {
    let fresh = UnsafeMutablePointer<Health>.allocate(capacity: max(replacement.count, 1))
    fresh.initialize(repeating: Health(), count: max(replacement.count, 1))
    for index in 0..<replacement.count {
      for old in 0..<servers.count where servers[old] == replacement[index] {
        fresh[index] = health[old]
      }
    }
    health.deinitialize(count: max(servers.count, 1))
    health.deallocate()
    health = fresh
    servers = replacement
  }

  /// The upstream a question asks next: one of `type` for lower-cased
  /// flat `name`, its route group `route`, the upstreams it `tried`;
  /// `isAnswer` for a client's question (not a check of an upstream). A question for a `verify` name asks a trusted upstream that is
  /// up first; with `strict` it asks only trusted ones. Otherwise
  /// `choose`'s order. Not inlined: one copy serves its three callers.
  @inline(never)
  func next(
    type: RRType, tried: UInt64, route: UInt8, isAnswer: Bool, name: UnsafeRawBufferPointer,
    settings: SettingsInForce, now: UInt64
  ) -> Int? {
    let verified = isAnswer && settings.isVerified(name)
    if verified && tried == 0,
      let trusted = choose(
        type: type, tried: 0, trustedOnly: true, route: route, now: now, upOnly: true)
    {
      return trusted
    }
    return choose(
      type: type, tried: tried, trustedOnly: settings.value.strict && verified, route: route,
      now: now)
  }

  /// The first untried upstream (`tried`: one bit each, the first 64) that
  /// serves `route`, can answer `type` (and is trusted, when `trustedOnly`)
  /// and is not down, one whose DNSSEC probe did not fail (`dnssec auto`)
  /// before one whose did; if all such are down, the first of them anyway
  /// (a down upstream beats no answer) unless `upOnly`.
  func choose(
    type: RRType, tried: UInt64, trustedOnly: Bool, route: UInt8, now: UInt64,
    upOnly: Bool = false
  ) -> Int? {
    var fallback: Int? = nil
    var failingDNSSEC: Int? = nil
    for index in 0..<servers.count {
      if index < 64 && tried & (1 << UInt64(index)) != 0 { continue }
      if index >= 64 && tried == ~0 { continue }
      if !canAnswer(type, upstream: index) { continue }
      if trustedOnly && !servers[index].trusted { continue }
      if !servers[index].serves(routeGroup: route) { continue }
      if isDown(index, now: now) {
        if fallback == nil { fallback = index }
      } else if !health[index].dnssecProbe.standing.isFailing {
        return index
      } else if failingDNSSEC == nil {
        failingDNSSEC = index
      }
    }
    return failingDNSSEC ?? (upOnly ? nil : fallback)
  }

  /// Whether `upstream` can answer questions of `type`: the `alibaba` and
  /// `dnspod` HTTPDNS APIs know only A and AAAA.
  func canAnswer(_ type: RRType, upstream: Int) -> Bool {
    servers[upstream].answersEveryType || type == .a || type == .aaaa
  }

  /// Whether `upstream` is skipped after repeated failures.
  public func isDown(_ upstream: Int, now: UInt64) -> Bool {
    health[upstream].consecutiveFailures >= Self.failuresBeforeDown
      && now < health[upstream].downUntil
  }

  /// A failure of `upstream`, counted in its `timeouts` or `failures` and
  /// towards marking it down; reported when this one marked it down.
  /// Ignored for an index outside the list (a question parked across a
  /// reload). Not inlined: it has six callers.
  ///
  /// Not `mutating`: it writes through `health`, so the engine's
  /// `selection` is only read while it runs, and the environment may read
  /// it too when it reports (the loop's log line names the upstream). A
  /// mutating method that calls the environment would be an exclusivity
  /// conflict there: a crash.
  @inline(never)
  func noteFailure<E: EngineEnvironment>(
    _ upstream: Int, now: UInt64, kind: UpstreamFailure, environment: inout E
  ) {
    guard upstream >= 0 && upstream < servers.count else { return }
    switch kind {
    case .timeout: health[upstream].timeouts += 1
    case .error: health[upstream].failures += 1
    }
    health[upstream].consecutiveFailures += 1
    if health[upstream].consecutiveFailures >= Self.failuresBeforeDown {
      health[upstream].downUntil = now + Self.downMilliseconds
    }
    if health[upstream].consecutiveFailures == Self.failuresBeforeDown {
      environment.report(.upstreamDown, upstream: upstream)
    }
  }

  /// `upstream` answered; reported when it had been down. Not `mutating`,
  /// as `noteFailure`.
  func noteSuccess<E: EngineEnvironment>(_ upstream: Int, environment: inout E) {
    let wasDown = health[upstream].consecutiveFailures >= Self.failuresBeforeDown
    health[upstream].consecutiveFailures = 0
    if wasDown { environment.report(.upstreamRecovered, upstream: upstream) }
  }

  /// An accepted reply to an attempt sent at `sentAt` will be relayed or
  /// cached: count it and fold its round-trip time into the smoothed RTT
  /// (RFC 6298 §2.2/2.3, alpha = 1/8).
  mutating func recordAnswer(_ upstream: Int, sentAt: UInt64, now: UInt64) {
    guard upstream >= 0 && upstream < servers.count else { return }
    let sample = (now >= sentAt ? now - sentAt : 0) &* 1000
    health[upstream].answers += 1
    if health[upstream].hasRTTSample {
      health[upstream].smoothedRTTMicroseconds =
        (7 &* health[upstream].smoothedRTTMicroseconds &+ sample) / 8
    } else {
      health[upstream].smoothedRTTMicroseconds = sample
      health[upstream].hasRTTSample = true
    }
  }

  /// `verify`: an answer of `upstream` outside the trusted one's.
  mutating func recordDisagreement(_ upstream: Int) {
    health[upstream].disagreements += 1
  }

  /// A reply in the case the query was sent with: a spoofer must win twice
  /// in a row to turn 0x20 off.
  mutating func recordCaseMatch(_ upstream: Int) {
    health[upstream].caseMismatches = 0
  }

  /// A reply right in all but its case. True when this one turned 0x20 off
  /// for `upstream`.
  mutating func recordCaseMismatch(_ upstream: Int) -> Bool {
    health[upstream].caseMismatches += 1
    guard health[upstream].caseMismatches >= Self.caseMismatchesBeforeDisable,
      health[upstream].caseRandomization
    else { return false }
    health[upstream].caseRandomization = false
    return true
  }

  /// Whether queries to `upstream` use 0x20 case randomization: on in
  /// `settings` and not turned off for this upstream.
  public func usesCaseRandomization(_ upstream: Int, under settings: Settings) -> Bool {
    settings.caseRandomization && health[upstream].caseRandomization
  }

  /// The IP TTL `upstream`'s answers (with an OPT record) arrive with.
  func usualTTL(_ upstream: Int) -> UInt8 { health[upstream].usualTTL }

  /// How an answer looks next to what this upstream usually sends: 2 for
  /// an OPT record (every query carries one, and a server that speaks EDNS
  /// answers with one, RFC 6891 §7; injectors commonly leave it out), 1 for
  /// arriving with the upstream's usual IP TTL (`hold-on`, HoldOn.swift).
  func shapeScore(of reply: Message, ipTTL: UInt8, upstream: Int) -> UInt8 {
    var score: UInt8 = reply.opt != nil ? 2 : 0
    let usual = usualTTL(upstream)
    if ipTTL != 0 && usual != 0 && ipTTL == usual { score += 1 }
    return score
  }

  mutating func recordUsualTTL(_ upstream: Int, _ ipTTL: UInt8) {
    health[upstream].usualTTL = ipTTL
  }

  /// `dnssec auto`: what the probes of `upstream` found and when the next
  /// is due (Validation/UpstreamProbes.swift).
  func dnssecProbe(_ upstream: Int) -> DNSSECProbe { health[upstream].dnssecProbe }

  /// Not `mutating`, as `noteFailure`: the engine reports after it.
  func setDNSSECProbe(_ upstream: Int, _ probe: DNSSECProbe) {
    health[upstream].dnssecProbe = probe
  }

  /// Whether `upstream`'s last DNSSEC probe failed (false for an index
  /// outside the list: a question parked across a reload).
  func failsDNSSEC(_ upstream: Int) -> Bool {
    upstream >= 0 && upstream < servers.count && health[upstream].dnssecProbe.standing.isFailing
  }

  /// `dnssec` is no longer `auto`: what the probes found is forgotten, so
  /// every upstream is validated and chosen alike.
  func forgetDNSSECProbes() {
    for upstream in 0..<servers.count { health[upstream].dnssecProbe = DNSSECProbe() }
  }

  /// The WAN changed: every upstream gets a fresh start.
  mutating func forgetFailures() {
    for upstream in 0..<servers.count {
      health[upstream].consecutiveFailures = 0
      health[upstream].downUntil = 0
    }
  }

  /// Counters and smoothed RTT of upstream `upstream` (0..<servers.count).
  public func statistics(_ upstream: Int) -> UpstreamStatistics {
    let entry = health[upstream]
    return UpstreamStatistics(
      answers: entry.answers, timeouts: entry.timeouts, failures: entry.failures,
      smoothedRTTMilliseconds: (entry.smoothedRTTMicroseconds + 500) / 1000,
      disagreements: entry.disagreements, dnssec: entry.dnssecProbe.standing)
  }
}

/// What one upstream has done since start-up (`UpstreamSelection.statistics`).
public struct UpstreamStatistics: Equatable {
  /// Accepted replies that were relayed to clients or cached.
  public var answers: UInt64
  /// Attempts that missed their deadline.
  public var timeouts: UInt64
  /// SERVFAIL, REFUSED, NOTIMP and FORMERR replies, send errors, attempts
  /// the transport reported failed, and lost TCP connections.
  public var failures: UInt64
  /// Smoothed round-trip time of accepted replies (RFC 6298 §2: the first
  /// sample sets it, then srtt = 7/8 srtt + 1/8 sample), rounded to
  /// milliseconds; 0 before the first answer.
  public var smoothedRTTMilliseconds: UInt64
  /// `verify`: its answers for verified names that were outside the trusted
  /// upstream's answer — evidence that this upstream (or the path to it) lies.
  public var disagreements: UInt64
  /// `dnssec auto`: what its last DNSSEC probe found.
  public var dnssec: DNSSECStanding

  public init(
    answers: UInt64, timeouts: UInt64, failures: UInt64, smoothedRTTMilliseconds: UInt64,
    disagreements: UInt64 = 0, dnssec: DNSSECStanding = .unknown
  ) {
    self.answers = answers
    self.timeouts = timeouts
    self.failures = failures
    self.smoothedRTTMilliseconds = smoothedRTTMilliseconds
    self.disagreements = disagreements
    self.dnssec = dnssec
  }
}

/// Which per-upstream counter a failure goes to.
enum UpstreamFailure {
  /// The attempt missed its deadline (`timeouts`).
  case timeout
  /// An error reply, a send error, a failed attempt or a lost connection
  /// (`failures`).
  case error
}
