import CompiledConfig
import DNSSEC
import DNSWire

/// `dnssec auto`: DNSSEC that does not darken a LAN behind an upstream
/// that cannot pass it (an ISP resolver or a CPE relay that strips RRSIGs,
/// drops EDNS, or answers DNSKEY questions with an error).
///
/// Each upstream is asked the DNSKEY RRset of the first trust anchor's
/// zone (the root with `dnssec-root on`) with DO=1 CD=0, as a check
/// transaction (`.dnssecProbe`) that never fails over to another upstream,
/// and the answer is validated from the anchor by the validator itself.
/// What it shows (`DNSSECStanding`, kept with the upstream's health):
/// - an error rcode, no OPT or no DO bit echoed (RFC 3225 §3), no RRSIG
///   in the answer (RFC 4035 §3.1.1), or keys that are not proven from the
///   anchor: failing, for that reason;
/// - a secure RRset: validating;
/// - no answer: unchanged (unknown before the first answer), retried
///   `retryMilliseconds` after its deadline; the third miss in a row is
///   failing (`noAnswer`).
///
/// Probes run at the first tick, every `intervalMilliseconds` per upstream
/// (a failing one too, so a change of ISP is noticed), and for every
/// upstream at once when the list is replaced or the network changes.
///
/// Use: an answer from a failing upstream is delivered without validation
/// (AD=0, cached as insecure; a DS or DNSKEY answer is not cached, so the
/// validator never reads a chain link it did not prove), counted in
/// `dnssecUnvalidated`. An answer from a validating or unknown upstream is
/// validated as with `dnssec on`: one that passed its probe and strips
/// later is SERVFAIL until a probe says otherwise; a bogus answer brings
/// that upstream's probe forward to five seconds later. Upstream selection
/// prefers upstreams that are not failing while any is up, so chain
/// fetches go to them. Each change to or from failing is reported once.
/// Nothing is allocated: the state lives in the per-upstream health table.
extension Engine {
  static let dnssecProbeIntervalMilliseconds: UInt64 = 600_000
  static let dnssecProbeRetryMilliseconds: UInt64 = 5_000
  static let dnssecProbeMissesBeforeFailing: UInt8 = 3

  /// Whether `slot`'s answer is relayed without validation: `dnssec auto`
  /// and its upstream's probe failed.
  func relaysUnvalidated(_ slot: Int) -> Bool {
    settings.dnssec == .auto && selection.failsDNSSEC(Int(transactions[slot].upstream))
  }

  /// An answer of a failing upstream: insecure, never AD; a DS or DNSKEY
  /// answer is relayed but not cached (the validator reads those as links).
  func deliverUnvalidated<E: EngineEnvironment>(
    _ reply: Message, slot: Int, now: UInt64, environment: inout E
  ) {
    statistics[.dnssecUnvalidated] += 1
    validations.note(.insecure, slot: slot)
    let type = transactions[slot].type
    deliver(
      reply, slot: slot, caching: type != .ds && type != .dnskey, now: now,
      environment: &environment)
  }

  /// From `tick`: probes every upstream whose probe is due; one still
  /// awaited then counts as missed.
  @inline(never)
  func probeUpstreamsIfDue<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    guard let due = validations.nextProbeRound, now >= due else { return }
    var next: UInt64? = nil
    for upstream in 0..<upstreams.count where upstreams[upstream].answersEveryType {
      var probe = selection.dnssecProbe(upstream)
      if probe.due <= now {
        if probe.awaiting {
          probe.missed = min(probe.missed + 1, Self.dnssecProbeMissesBeforeFailing)
          if probe.missed >= Self.dnssecProbeMissesBeforeFailing {
            settle(.noAnswer, upstream: upstream, probe: &probe, environment: &environment)
          }
        }
        probe.due =
          now + UInt64(settings.timeoutMilliseconds) + Self.dnssecProbeRetryMilliseconds
        probe.awaiting = true
        selection.setDNSSECProbe(upstream, probe)
        sendDNSSECProbe(to: upstream, now: now, environment: &environment)
      }
      next = min(next ?? probe.due, probe.due)
    }
    validations.nextProbeRound = next
  }

  /// Asks `upstream` for the first trust anchor's DNSKEY RRset, DO=1 CD=0.
  func sendDNSSECProbe<E: EngineEnvironment>(to upstream: Int, now: UInt64, environment: inout E) {
    let output = buffers.name
    let length = settings.trustAnchors.withIterator { anchors -> Int in
      guard let anchor = anchors.next() else { return 0 }
      UnsafeMutableRawBufferPointer(rebasing: output[0..<anchor.owner.count])
        .copyMemory(from: anchor.owner)
      return anchor.owner.count
    }
    guard length > 0,
      let slot = table.allocate(
        name: UnsafeRawBufferPointer(rebasing: output[0..<length]), hash: 0, type: .dnskey,
        rrClass: .internet, dnssecOK: true, checkingDisabled: false, purpose: .dnssecProbe,
        route: 0)
    else { return }
    // No failing over: the probe is about this upstream.
    transactions[slot].tried = ~0
    dispatch(slot: slot, now: now, preferred: upstream, environment: &environment)
  }

  /// The answer to a DNSSEC probe (`finishCheck` releases its slot).
  func judgeDNSSECProbe<E: EngineEnvironment>(
    _ reply: Message, slot: Int, isFailure: Bool, now: UInt64, environment: inout E
  ) {
    let upstream = Int(transactions[slot].upstream)
    guard settings.dnssec == .auto, upstream >= 0, upstream < upstreams.count else { return }
    if !isFailure { selection.noteSuccess(upstream, environment: &environment) }
    let standing: DNSSECStanding
    if reply.rcode != .noError {
      standing = .errorRcode
    } else if reply.opt?.dnssecOK != true {
      standing = .noDNSSECOK
    } else if !Self.answerHasSignatures(reply) {
      standing = .stripsSignatures
    } else if case .secure = verdict(for: reply, slot: slot, now: now, environment: &environment) {
      standing = .validating
    } else {
      standing = .bogusKeys
    }
    var probe = selection.dnssecProbe(upstream)
    probe.awaiting = false
    probe.missed = 0
    probe.due = now + Self.dnssecProbeIntervalMilliseconds
    settle(standing, upstream: upstream, probe: &probe, environment: &environment)
  }

  /// Puts `standing` in `probe`, stored for `upstream`; a change to or
  /// from failing is reported once.
  func settle<E: EngineEnvironment>(
    _ standing: DNSSECStanding, upstream: Int, probe: inout DNSSECProbe, environment: inout E
  ) {
    let previous = probe.standing
    probe.standing = standing
    selection.setDNSSECProbe(upstream, probe)
    if standing != previous && (standing.isFailing || previous.isFailing) {
      environment.report(.dnssecStandingChanged(standing), upstream: upstream)
    }
    // What it answered while validated strictly may be cached bogus, and
    // would stay SERVFAIL for `bogusSeconds` although it is now relayed
    // unvalidated: the cache starts again (rare: a change of ISP or CPE),
    // unless no bogus answer was cached since it last did.
    if standing.isFailing && !previous.isFailing && validations.bogusCached {
      validations.bogusCached = false
      cache.removeAll()
    }
  }

  /// A bogus answer from `upstream` while it is not known to fail: its
  /// probe is brought forward to `dnssecProbeRetryMilliseconds` from now
  /// (never sooner: a bogus zone asked in a loop costs one probe per
  /// period), so an upstream that began to strip is noticed in seconds,
  /// not at the next round. The answer itself stays SERVFAIL.
  func bringDNSSECProbeForward(of upstream: Int, now: UInt64) {
    guard settings.dnssec == .auto, upstream >= 0, upstream < upstreams.count else { return }
    var probe = selection.dnssecProbe(upstream)
    let due = now + Self.dnssecProbeRetryMilliseconds
    guard !probe.awaiting, !probe.standing.isFailing, probe.due > due else { return }
    probe.due = due
    selection.setDNSSECProbe(upstream, probe)
    validations.nextProbeRound = min(validations.nextProbeRound ?? due, due)
  }

  static func answerHasSignatures(_ reply: Message) -> Bool {
    var records = reply.records()
    while let record = records.next(), record.offset < reply.authorityOffset {
      if record.type == .rrsig { return true }
    }
    return false
  }

  /// The upstream list was replaced or the network changed: every
  /// upstream is probed at the next tick (what it showed stands until then).
  func restartDNSSECProbes(now: UInt64) {
    guard validations.nextProbeRound != nil else { return }
    for upstream in 0..<upstreams.count {
      var probe = selection.dnssecProbe(upstream)
      probe.due = now
      probe.awaiting = false
      selection.setDNSSECProbe(upstream, probe)
    }
    validations.nextProbeRound = now
  }

  /// A reload: `auto` (again) probes at the next tick; any other mode
  /// forgets what the probes found.
  func reconfigureDNSSECProbes() {
    guard settings.dnssec == .auto else {
      validations.nextProbeRound = nil
      selection.forgetDNSSECProbes()
      return
    }
    if validations.nextProbeRound == nil { validations.nextProbeRound = 0 }
  }
}
