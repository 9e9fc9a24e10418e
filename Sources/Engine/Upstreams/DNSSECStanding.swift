/// `dnssec auto`: what an upstream's DNSSEC probe (its answer to the first
/// trust anchor's DNSKEY RRset, asked with DO=1 CD=0) showed. Each failing
/// case names why its answers are relayed without validation.
public enum DNSSECStanding: UInt8, Equatable, Sendable {
  /// Not probed yet, or its probes timed out fewer than three times in a
  /// row: validated as with `dnssec on`.
  case unknown
  /// The keys came back signed and proven from the trust anchor.
  case validating
  /// The answer had no RRSIG (RFC 4035 §3.1.1 requires them with DO=1).
  case stripsSignatures
  /// No OPT record, or one without the DO bit (RFC 3225 §3).
  case noDNSSECOK
  /// The RRSIGs did not verify, or the keys do not match the anchor.
  case bogusKeys
  /// An error rcode (SERVFAIL, REFUSED, ...).
  case errorRcode
  /// Its probes timed out three times in a row.
  case noAnswer

  /// Whether its answers are relayed without validation.
  public var isFailing: Bool { rawValue >= DNSSECStanding.stripsSignatures.rawValue }

  /// One word for it in the counters log.
  public var word: StaticString {
    switch self {
    case .unknown: "unknown"
    case .validating: "validating"
    case .stripsSignatures: "strips-rrsigs"
    case .noDNSSECOK: "no-do"
    case .bogusKeys: "bogus-keys"
    case .errorRcode: "error-rcode"
    case .noAnswer: "no-answer"
    }
  }

  /// What it says of the upstream, for a log line.
  public var reason: StaticString {
    switch self {
    case .unknown: "is not probed yet"
    case .validating: "passes the DNSSEC probe"
    case .stripsSignatures: "strips RRSIGs"
    case .noDNSSECOK: "answers without EDNS or the DO bit"
    case .bogusKeys: "sends DNSSEC keys that do not verify from the trust anchor"
    case .errorRcode: "answers the DNSSEC probe with an error"
    case .noAnswer: "does not answer the DNSSEC probe"
    }
  }
}

/// `dnssec auto`: one upstream's probe state, kept with its health.
struct DNSSECProbe {
  var standing = DNSSECStanding.unknown
  /// When its next probe is due (engine milliseconds; 0: at the next tick).
  var due: UInt64 = 0
  /// A probe was sent and not judged yet.
  var awaiting = false
  /// Probes in a row that came to nothing (timed out, or failed to send).
  var missed: UInt8 = 0
}
