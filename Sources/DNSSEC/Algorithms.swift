// The DNSSEC algorithm numbers and DS digest types dnsward knows, and which
// of them it validates (RFC 8624 §3). A zone signed only with algorithms
// outside the table is insecure, not bogus (RFC 4035 §5.2); a DS with an
// unsupported digest type is as if absent (RFC 4035 §5.2, RFC 6840 §5.2).

import Crypto
import DNSWire

/// DNSKEY, RRSIG and DS algorithm numbers (RFC 4034 Appendix A.1; open).
public struct DNSSECAlgorithm: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let rsaMD5 = DNSSECAlgorithm(rawValue: 1)
  /// RSA/SHA-1 (RFC 3110) and its alias for NSEC3 zones (RFC 5155 §2).
  public static let rsaSHA1 = DNSSECAlgorithm(rawValue: 5)
  public static let rsaSHA1NSEC3SHA1 = DNSSECAlgorithm(rawValue: 7)
  /// RSA/SHA-256 and RSA/SHA-512 (RFC 5702).
  public static let rsaSHA256 = DNSSECAlgorithm(rawValue: 8)
  public static let rsaSHA512 = DNSSECAlgorithm(rawValue: 10)
  /// ECDSA P-256/SHA-256 and P-384/SHA-384 (RFC 6605).
  public static let ecdsaP256SHA256 = DNSSECAlgorithm(rawValue: 13)
  public static let ecdsaP384SHA384 = DNSSECAlgorithm(rawValue: 14)
  /// Ed25519 (RFC 8080).
  public static let ed25519 = DNSSECAlgorithm(rawValue: 15)

  /// The algorithms whose signatures dnsward verifies. The one list:
  /// signature verification dispatches on exactly these.
  public var isSupported: Bool {
    switch self {
    case .rsaSHA1, .rsaSHA1NSEC3SHA1, .rsaSHA256, .rsaSHA512, .ecdsaP256SHA256,
      .ecdsaP384SHA384, .ed25519:
      return true
    default: return false
    }
  }
}

/// DS digest types (RFC 4034 §5.1.3, RFC 4509 §5, RFC 6605 §2; open).
public struct DSDigestType: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let sha1 = DSDigestType(rawValue: 1)
  public static let sha256 = DSDigestType(rawValue: 2)
  public static let gostR341194 = DSDigestType(rawValue: 3)
  public static let sha384 = DSDigestType(rawValue: 4)

  /// The digest types dnsward computes, with their lengths in octets; nil
  /// for the others. The one list: `DigestCheck` computes exactly these.
  public var supportedDigestLength: Int? {
    switch self {
    case .sha1: return 20
    case .sha256: return 32
    case .sha384: return 48
    default: return nil
    }
  }
}

/// The outcome of comparing a DS with a DNSKEY.
public enum DigestCheck: Equatable {
  /// Key tag, algorithm and digest agree.
  case match
  /// The DS does not describe this key.
  case mismatch
  /// The DS's digest type is not one dnsward computes: neither proof nor
  /// disproof (RFC 4035 §5.2).
  case unsupportedDigestType
}

extension DSRecord {
  /// Whether this DS describes `key` (RFC 4034 §5.1.4): digest =
  /// H(canonical owner name | DNSKEY RDATA), compared after the key tag and
  /// algorithm. `keyOwner` is the DNSKEY's owner as a flat name, any case.
  /// The key's flags are not looked at: a key the DS matches still needs
  /// the Zone Key flag to be used (RFC 4035 §5.2).
  public func check(key: DNSKEYRecord, keyOwner: UnsafeRawBufferPointer) -> DigestCheck {
    guard let length = digestType.supportedDigestLength else { return .unsupportedDigestType }
    guard keyTag == key.keyTag, algorithm == key.algorithm, digest.count == length,
      var owner = CanonicalName(keyOwner)
    else { return .mismatch }
    let matches = owner.withBytes { ownerBytes in
      switch digestType {
      case .sha1:
        var hasher = SHA1()
        hasher.update(ownerBytes)
        hasher.update(key.rdata)
        return Self.equal(hasher.finalize(), digest)
      case .sha256:
        var hasher = SHA256()
        hasher.update(ownerBytes)
        hasher.update(key.rdata)
        return Self.equal(hasher.finalize(), digest)
      default:
        var hasher = SHA384()
        hasher.update(ownerBytes)
        hasher.update(key.rdata)
        return Self.equal(hasher.finalize(), digest)
      }
    }
    return matches ? .match : .mismatch
  }

  static func equal<let count: Int>(
    _ computed: InlineArray<count, UInt8>, _ expected: UnsafeRawBufferPointer
  ) -> Bool {
    guard expected.count == count else { return false }
    for index in 0..<count where computed[index] != expected[index] { return false }
    return true
  }
}
