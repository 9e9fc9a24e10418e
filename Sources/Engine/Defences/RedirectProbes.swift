import CompiledConfig
import DNSWire

/// `detect-nxdomain-redirect`: learning an ISP's redirect address by asking
/// for names that cannot exist.
///
/// A round asks every plain upstream (the first 64; trusted ones are not
/// asked) for A records of `randomProbes` names made of 16 random letters and
/// digits under `.com`, `.net` and `.org` — a registered one is as likely as
/// guessing a 82-bit key — and of the control name `example.com` (RFC 2606,
/// always registered). Rules that keep it from learning a real address:
///
/// - an address is learned only if at least `agreeingProbes` different
///   random names came back with it from the same upstream, so one odd
///   answer (a wildcard zone, a typo-squatted TLD) is not enough;
/// - never an address that the control name, which exists, came back with
///   (a resolver that sends everything to one address is not "redirecting",
///   and the address may be a real server's);
/// - nothing is learned from an upstream whose control answer did not come:
///   without it the rule above cannot be checked.
///
/// Rounds run at the first tick and every `redirectProbeIntervalMilliseconds`.
/// Learned addresses go into a fixed table of `LearnedRedirects.capacity`
/// (the oldest is replaced when full) and count as `bogus-nxdomain`.
struct RedirectProbeRound {
  static let randomProbes = 3
  static let agreeingProbes = 2
  static let candidateCapacity = 32
  /// When the next round starts (0: at the first tick).
  var nextRound: UInt64 = 0
  /// Probes of the current round still in flight.
  var outstanding = 0
  /// Whether a round's results wait to be judged.
  var judging = false
  /// Upstreams (bit per index) whose control question was answered.
  var controlAnswered: UInt64 = 0
  /// Addresses seen in the round: which random probes (bit per probe)
  /// returned each, and whether the control name did.
  let candidates: UnsafeMutablePointer<Candidate>
  var candidateCount = 0

  struct Candidate {
    var address = IPAddress.anyV6
    var upstream: Int16 = 0
    var probesReturningIt: UInt8 = 0
    var controlReturnsIt = false
  }

  init(enabled: Bool) {
    let capacity = enabled ? Self.candidateCapacity : 1
    candidates = .allocate(capacity: capacity)
    candidates.initialize(repeating: Candidate(), count: capacity)
  }

  func deallocate() { candidates.deallocate() }

  /// When the next round is due, if redirect detection is on: `detecting`
  /// (`detect-nxdomain-redirect`) and an upstream to probe. `upstreams` is
  /// read only when detecting: the engine asks this every loop turn, and
  /// reading its list costs a retain and a release.
  func due(detecting: Bool, upstreams: @autoclosure () -> Int) -> UInt64? {
    detecting && upstreams() > 0 ? nextRound : nil
  }

  /// Writes probe `index`'s name: random for 0..<randomProbes, else the
  /// control name. Returns its length.
  static func writeName<E: EngineEnvironment>(
    _ index: Int, into output: UnsafeMutableRawBufferPointer, environment: inout E
  ) -> Int {
    if index >= randomProbes {
      let control = Engine.probeControlName
      for offset in 0..<control.utf8CodeUnitCount { output[offset] = control.utf8Start[offset] }
      return control.utf8CodeUnitCount
    }
    let labelLength = 16
    let alphabet: StaticString = "abcdefghijklmnopqrstuvwxyz0123456789"
    output[0] = UInt8(labelLength)
    var random = environment.randomUInt64()
    for offset in 1...labelLength {
      if offset == 9 { random = environment.randomUInt64() }
      output[offset] = alphabet.utf8Start[Int(random % 36)]
      random /= 36
    }
    let domains = Engine.probeTopLevelDomains
    let domainStart = 4 * (index % 3)
    for offset in 0..<4 {
      output[1 + labelLength + offset] = domains.utf8Start[domainStart + offset]
    }
    output[1 + labelLength + 4] = 0
    return labelLength + 6
  }
}

extension Engine {
  static let redirectProbeIntervalMilliseconds: UInt64 = 3_600_000
  /// `example.com.`, the control name (RFC 2606 §3).
  static let probeControlName: StaticString = "\u{07}example\u{03}com\u{00}"
  static let probeTopLevelDomains: StaticString = "\u{03}com\u{03}net\u{03}org"

  /// Starts a probe round if one is due and the last one is over.
  func startRedirectProbesIfDue<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    judgeProbeRoundIfOver(environment: &environment)
    guard
      let due = defences.probes.due(
        detecting: settings.detectNXDomainRedirect, upstreams: upstreams.count),
      now >= due, defences.probes.outstanding == 0,
      !defences.probes.judging
    else {
      return
    }
    defences.probes.nextRound = now + Self.redirectProbeIntervalMilliseconds
    defences.probes.controlAnswered = 0
    defences.probes.candidateCount = 0
    for upstream in 0..<min(upstreams.count, 64) where !upstreams[upstream].trusted {
      for probe in 0...RedirectProbeRound.randomProbes {
        let length = RedirectProbeRound.writeName(
          probe, into: buffers.name, environment: &environment)
        let name = UnsafeRawBufferPointer(rebasing: buffers.name[0..<length])
        guard
          let slot = table.allocate(
            name: name, hash: 0, type: .a, rrClass: .internet, dnssecOK: false,
            checkingDisabled: false, purpose: .redirectProbe,
            route: inForce.routeGroup(name))
        else { break }
        transactions[slot].purposeIndex = Int16(probe)
        // No failing over: the probe is about this upstream.
        transactions[slot].tried = ~0
        defences.probes.outstanding += 1
        defences.probes.judging = true
        statistics[.redirectProbes] += 1
        dispatch(slot: slot, now: now, preferred: upstream, environment: &environment)
      }
    }
  }

  /// Once every probe of a round has ended, learns the addresses the rules
  /// (see `RedirectProbeRound`) allow.
  func judgeProbeRoundIfOver<E: EngineEnvironment>(environment: inout E) {
    guard defences.probes.judging, defences.probes.outstanding == 0 else { return }
    defences.probes.judging = false
    for index in 0..<defences.probes.candidateCount {
      let candidate = defences.probes.candidates[index]
      guard candidate.probesReturningIt.nonzeroBitCount >= RedirectProbeRound.agreeingProbes,
        !candidate.controlReturnsIt,
        defences.probes.controlAnswered & (1 << UInt64(candidate.upstream)) != 0,
        !defences.isRedirectAddress(candidate.address, inForce)
      else { continue }
      defences.learnedRedirects.learn(candidate.address)
      statistics[.redirectAddressesLearned] += 1
      environment.reportDefence(
        .redirectAddressLearned, name: UnsafeRawBufferPointer(start: nil, count: 0),
        address: candidate.address, upstream: Int(candidate.upstream))
    }
    defences.probes.candidateCount = 0
  }
}

extension RedirectProbeRound {
  /// Notes the addresses a probe's answer came back with.
  /// `probe` is its place in the round, `upstream` the one that answered.
  mutating func record(_ reply: Message, probe: Int, upstream: Int16) {
    let isControl = probe >= Self.randomProbes
    if isControl && reply.rcode == .noError {
      controlAnswered |= 1 << UInt64(upstream)
    }
    var records = reply.records()
    while let record = records.next(), record.offset < reply.authorityOffset {
      guard record.rrClass == .internet,
        let address = Defences.address(of: record, in: reply.bytes),
        let index = candidate(address, upstream: upstream)
      else { continue }
      if isControl {
        candidates[index].controlReturnsIt = true
      } else {
        candidates[index].probesReturningIt |= 1 << UInt8(probe)
      }
    }
  }

  /// The candidate entry for `address` from `upstream`, added if new; nil
  /// when the table is full.
  mutating func candidate(_ address: IPAddress, upstream: Int16) -> Int? {
    for index in 0..<candidateCount
    where candidates[index].address == address
      && candidates[index].upstream == upstream
    {
      return index
    }
    guard candidateCount < Self.candidateCapacity else { return nil }
    let index = candidateCount
    candidates[index] = Self.Candidate(
      address: address, upstream: upstream, probesReturningIt: 0, controlReturnsIt: false)
    candidateCount += 1
    return index
  }
}
