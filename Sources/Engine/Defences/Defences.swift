import CompiledConfig
import DNSWire

/// The hijack defences' state (Sources/README.md, Threat model): who may
/// ask, which answers are forged or redirected, the first answers held
/// for `hold-on`, the trusted answers being verified, the redirect probe
/// round and the rate limiter's buckets. Every table is sized here from
/// the start-up settings and is empty (or one entry) when its defence is
/// off; the engine asks the decisions (`isAllowed`, `screen`) and runs
/// the steps that send (HoldOn.swift, Verification.swift,
/// RedirectProbes.swift).
public struct Defences: ~Copyable {
  /// The ACL in force, fetched once here: the default list is a lazily
  /// initialised global, which would otherwise allocate at the first query.
  private(set) var allowPrefixes: [AddressPrefix]
  /// `rebind-protection`'s private ranges, fetched here for the same reason
  /// (empty when it is off).
  private(set) var rebindRanges: [AddressPrefix]
  /// Keys the answer digests (SipHash-1-3), so an injector cannot make two
  /// different answers look alike.
  let digestKey: HashKey
  /// Redirect addresses learned by `detect-nxdomain-redirect`.
  var learnedRedirects = LearnedRedirects()
  /// The current probe round (RedirectProbes.swift).
  var probes: RedirectProbeRound
  /// `hold-on` buffers (HoldOn.swift).
  var holds: HoldPool
  /// `verify`: the trusted answers being compared (Verification.swift).
  var verifications: VerificationTable
  /// `rate-limit`: one token bucket per recent client address.
  let rateLimiter: RateLimiter

  init(settings: Settings, hashKey: HashKey) {
    allowPrefixes = []
    rebindRanges = []
    digestKey = hashKey
    holds = HoldPool(
      capacity: settings.holdOnMilliseconds > 0 ? min(settings.inflight, HoldPool.maxCapacity) : 0,
      bufferBytes: Int(settings.ednsPayloadSize), slotCapacity: settings.inflight)
    verifications = VerificationTable(enabled: !settings.verifyNames.isEmpty)
    probes = RedirectProbeRound(enabled: settings.detectNXDomainRedirect)
    rateLimiter = RateLimiter(enabled: settings.rateLimitPerSecond > 0, hashKey: hashKey)
    reconfigure(settings)
  }

  deinit {
    holds.deallocate()
    verifications.deallocate()
    probes.deallocate()
  }

  /// After a reload: the ranges that derive from the new settings (the
  /// tables keep their start-up sizes).
  mutating func reconfigure(_ settings: Settings) {
    allowPrefixes = settings.effectiveAllow
    rebindRanges = settings.rebindProtection ? rebindPrefixes : []
  }

  /// A transaction ended (answered, failed or timed out): what it held
  /// here is given back (its `hold-on` buffer, its `verify` entry, its
  /// place among the probes of the round).
  mutating func release(slot: Int, purpose: Transaction.Purpose, purposeIndex: Int16) {
    holds.release(slot: slot)
    switch purpose {
    case .answer, .dnssecProbe: break
    case .verification: verifications.release(Int(purposeIndex))
    case .redirectProbe: if probes.outstanding > 0 { probes.outstanding -= 1 }
    }
  }

  /// Whether `allow` admits `address` (also asked of metrics scrapers).
  public func isAllowed(_ address: IPAddress) -> Bool {
    for prefix in allowPrefixes where prefix.contains(address) {
      return true
    }
    return false
  }
}
