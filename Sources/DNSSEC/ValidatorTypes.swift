// What the validator (Validator.swift) hands the engine: the state a cached
// answer was validated to, the RFC 8914 reasons a validation fails with, the
// verdict of one validation, and the engine's cache as the validator reads
// it: this is the whole of the validator's interface to the engine.

import CompiledConfig
import DNSWire

/// What validation found for a cached answer; the engine stores one per cache entry.
public enum ValidationState: UInt8, Sendable {
  case unchecked = 0
  case secure = 1
  case insecure = 2
  case bogus = 3
}

/// RFC 8914 §4 INFO-CODEs a validation can end with.
public struct ExtendedDNSError: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let unsupportedDNSKEYAlgorithm = ExtendedDNSError(rawValue: 1)
  public static let unsupportedDSDigestType = ExtendedDNSError(rawValue: 2)
  public static let dnssecIndeterminate = ExtendedDNSError(rawValue: 5)
  public static let dnssecBogus = ExtendedDNSError(rawValue: 6)
  public static let signatureExpired = ExtendedDNSError(rawValue: 7)
  public static let signatureNotYetValid = ExtendedDNSError(rawValue: 8)
  public static let dnskeyMissing = ExtendedDNSError(rawValue: 9)
  public static let rrsigsMissing = ExtendedDNSError(rawValue: 10)
  public static let nsecMissing = ExtendedDNSError(rawValue: 12)
}

public enum ValidationVerdict: Equatable, Sendable {
  /// Every RRset verified and every denial proven. `ttl`: the most seconds
  /// the answer may be kept as secure (RFC 4035 §5.3.3: no record's TTL
  /// above its RRSIG's Original TTL, and not past any RRSIG's expiration);
  /// UInt32.max when signature times were not checked.
  case secure(ttl: UInt32)
  /// Proven to be outside any signed zone (an insecure delegation, opt-out,
  /// only unsupported algorithms or digests, RFC 9276 iterations), or under
  /// no trust anchor.
  case insecure
  case bogus(ExtendedDNSError)
  /// A DS or DNSKEY RRset is needed that `records` does not hold: its owner
  /// name is in `validator.neededName`. The engine asks for (neededName,
  /// type) with DO=1, validates that answer in turn (its own question),
  /// caches it with its state, then calls validate again.
  case needs(RRType)
}

/// The engine's cache as the validator reads it: previously validated DS
/// and DNSKEY answers.
public protocol ValidatedRecordSource {
  /// Calls `body` with the cached answer to (name, type, class IN) — the
  /// whole DNS message as it was received (answer, authority with
  /// RRSIG/NSEC/NSEC3/SOA kept) — and the state it was stored with; nil when
  /// none is cached (or it expired). `name` is flat and lower-cased.
  func withValidatedAnswer<Result>(
    name: UnsafeRawBufferPointer, type: RRType, _ body: (Message, ValidationState) -> Result
  ) -> Result?
}
