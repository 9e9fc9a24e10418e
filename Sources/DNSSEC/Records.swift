// Views over the RDATA of the DNSSEC key and signature records (RFC 4034
// §2, §3, §5) in a validated message. Like DNSWire's views they check the
// RDATA once on construction (nil when it is malformed, never a trap) and
// then read it in place: no copy, no allocation.

import DNSWire

/// A range of RDATA in a message (or in a buffer that holds RDATA alone),
/// checked to lie within the bytes.
struct RDATASpan {
  let bytes: UnsafeRawBufferPointer
  let start: Int
  let end: Int

  init?(bytes: UnsafeRawBufferPointer, offset: Int, length: Int) {
    guard offset >= 0, length >= 0, offset + length <= bytes.count else { return nil }
    self.bytes = bytes
    start = offset
    end = offset + length
  }

  var count: Int { end - start }
  var rdata: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[start..<end]) }
  func slice(from offset: Int, to limit: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: bytes[offset..<limit])
  }
}

/// The length of the uncompressed name at `offset`, which must end by
/// `limit` (RFC 4034 §3.1.7 and §4.1.1: the signer and next names are never
/// compressed). Nil for a compression pointer, a reserved label type, a name
/// past `limit` or one longer than 255 octets.
func uncompressedNameLength(in bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int) -> Int? {
  var position = offset
  while position < limit {
    let labelLength = Int(bytes[position])
    guard labelLength <= Name.maxLabelLength else { return nil }
    position += 1 + labelLength
    guard position - offset <= Name.maxLength else { return nil }
    if labelLength == 0 { return position - offset }
  }
  return nil
}

/// DNSKEY RDATA (RFC 4034 §2.1):
///
///     Flags (2) | Protocol (1) | Algorithm (1) | Public Key
public struct DNSKEYRecord {
  let span: RDATASpan
  /// The offset of the owner name in the message, nil for bare RDATA (a
  /// trust anchor read from the configuration).
  public let ownerOffset: Int?

  static let fixedLength = 4
  /// Flags bit 7: a zone key, which may sign the zone (RFC 4034 §2.1.1).
  public static let zoneKeyFlag: UInt16 = 0x0100
  /// Flags bit 8: revoked (RFC 5011 §2.1).
  public static let revokedFlag: UInt16 = 0x0080
  /// Flags bit 15: Secure Entry Point (RFC 4034 §2.1.1, RFC 3757).
  public static let secureEntryPointFlag: UInt16 = 0x0001
  /// The only valid value of the Protocol field (RFC 4034 §2.1.2).
  public static let protocolDNSSEC: UInt8 = 3

  /// A DNSKEY record of `message`; nil for another type or malformed RDATA.
  public init?(_ record: ResourceRecord, in message: Message) {
    guard record.type == .dnskey else { return nil }
    self.init(
      bytes: message.bytes, rdataOffset: record.rdataOffset, rdataLength: record.rdataLength,
      ownerOffset: record.offset)
  }

  /// DNSKEY RDATA at `rdataOffset` in `bytes`. A key needs at least one
  /// octet of public key.
  public init?(
    bytes: UnsafeRawBufferPointer, rdataOffset: Int, rdataLength: Int, ownerOffset: Int? = nil
  ) {
    guard let span = RDATASpan(bytes: bytes, offset: rdataOffset, length: rdataLength),
      span.count > Self.fixedLength
    else { return nil }
    self.span = span
    self.ownerOffset = ownerOffset
  }

  public var flags: UInt16 { span.bytes.getUInt16(at: span.start) }
  public var isZoneKey: Bool { flags & Self.zoneKeyFlag != 0 }
  public var isSecureEntryPoint: Bool { flags & Self.secureEntryPointFlag != 0 }
  public var isRevoked: Bool { flags & Self.revokedFlag != 0 }
  public var protocolField: UInt8 { span.bytes[span.start + 2] }
  public var algorithm: DNSSECAlgorithm {
    DNSSECAlgorithm(rawValue: span.bytes[span.start + 3])
  }
  public var publicKey: UnsafeRawBufferPointer {
    span.slice(from: span.start + Self.fixedLength, to: span.end)
  }
  /// The whole RDATA, as the DS digest and the key tag cover it.
  public var rdata: UnsafeRawBufferPointer { span.rdata }

  /// The key tag (RFC 4034 Appendix B): a ones'-complement-like sum of the
  /// RDATA as 16-bit words; for algorithm 1 (RSA/MD5) the second and third
  /// last octets of the modulus (Appendix B.1).
  public var keyTag: UInt16 { Self.keyTag(rdata: rdata) }

  public static func keyTag(rdata: UnsafeRawBufferPointer) -> UInt16 {
    if rdata.count > fixedLength, rdata[3] == 1 {
      guard rdata.count >= fixedLength + 3 else { return 0 }
      return UInt16(rdata[rdata.count - 3]) << 8 | UInt16(rdata[rdata.count - 2])
    }
    var sum: UInt32 = 0
    for index in 0..<rdata.count {
      sum &+= index & 1 == 0 ? UInt32(rdata[index]) << 8 : UInt32(rdata[index])
    }
    sum &+= (sum >> 16) & 0xFFFF
    return UInt16(truncatingIfNeeded: sum)
  }

  /// The exponent and modulus of an RSA key (RFC 3110 §2): a one-octet
  /// exponent length, or 0 and a two-octet length; both parts non-empty.
  /// Nil when the key does not parse that way.
  public var rsaPublicKey: (exponent: UnsafeRawBufferPointer, modulus: UnsafeRawBufferPointer)? {
    let key = publicKey
    var position = 1
    var exponentLength = Int(key[0])
    if exponentLength == 0 {
      guard key.count >= 3 else { return nil }
      exponentLength = Int(key.getUInt16(at: 1))
      position = 3
    }
    guard exponentLength > 0, position + exponentLength < key.count else { return nil }
    return (
      UnsafeRawBufferPointer(rebasing: key[position..<(position + exponentLength)]),
      UnsafeRawBufferPointer(rebasing: key[(position + exponentLength)...])
    )
  }
}

/// DS RDATA (RFC 4034 §5.1):
///
///     Key Tag (2) | Algorithm (1) | Digest Type (1) | Digest
public struct DSRecord {
  let span: RDATASpan
  static let fixedLength = 4

  public init?(_ record: ResourceRecord, in message: Message) {
    guard record.type == .ds else { return nil }
    self.init(
      bytes: message.bytes, rdataOffset: record.rdataOffset, rdataLength: record.rdataLength)
  }

  /// DS RDATA at `rdataOffset` in `bytes`; the digest has at least one octet.
  public init?(bytes: UnsafeRawBufferPointer, rdataOffset: Int, rdataLength: Int) {
    guard let span = RDATASpan(bytes: bytes, offset: rdataOffset, length: rdataLength),
      span.count > Self.fixedLength
    else { return nil }
    self.span = span
  }

  public var keyTag: UInt16 { span.bytes.getUInt16(at: span.start) }
  public var algorithm: DNSSECAlgorithm { DNSSECAlgorithm(rawValue: span.bytes[span.start + 2]) }
  public var digestType: DSDigestType { DSDigestType(rawValue: span.bytes[span.start + 3]) }
  public var digest: UnsafeRawBufferPointer {
    span.slice(from: span.start + Self.fixedLength, to: span.end)
  }
}

/// RRSIG RDATA (RFC 4034 §3.1):
///
///     Type Covered (2) | Algorithm (1) | Labels (1) | Original TTL (4)
///     Signature Expiration (4) | Signature Inception (4) | Key Tag (2)
///     Signer's Name (uncompressed) | Signature
public struct RRSIGRecord {
  let span: RDATASpan
  /// The owner name's offset in the message, its class: the RRset's.
  public let ownerOffset: Int
  public let rrClass: RRClass
  /// Length of the signer's name; the signature follows it.
  public let signerNameLength: Int

  static let fixedLength = 18

  /// An RRSIG record of `message`; nil for another type or malformed RDATA:
  /// fixed fields cut short, a compressed or overlong signer name, or no
  /// signature octets.
  public init?(_ record: ResourceRecord, in message: Message) {
    guard record.type == .rrsig,
      let span = RDATASpan(
        bytes: message.bytes, offset: record.rdataOffset, length: record.rdataLength),
      span.count > Self.fixedLength,
      let nameLength = uncompressedNameLength(
        in: span.bytes, at: span.start + Self.fixedLength, limit: span.end),
      span.start + Self.fixedLength + nameLength < span.end
    else { return nil }
    self.span = span
    ownerOffset = record.offset
    rrClass = record.rrClass
    signerNameLength = nameLength
  }

  public var typeCovered: RRType { RRType(rawValue: span.bytes.getUInt16(at: span.start)) }
  public var algorithm: DNSSECAlgorithm { DNSSECAlgorithm(rawValue: span.bytes[span.start + 2]) }
  /// Labels of the original owner, without the root or a leading `*`
  /// (RFC 4034 §3.1.3).
  public var labels: Int { Int(span.bytes[span.start + 3]) }
  public var originalTTL: UInt32 { span.bytes.getUInt32(at: span.start + 4) }
  public var expiration: UInt32 { span.bytes.getUInt32(at: span.start + 8) }
  public var inception: UInt32 { span.bytes.getUInt32(at: span.start + 12) }
  public var keyTag: UInt16 { span.bytes.getUInt16(at: span.start + 16) }
  /// The signer's name, flat, as written (any case).
  public var signerName: UnsafeRawBufferPointer {
    span.slice(from: span.start + Self.fixedLength, to: signatureOffset)
  }
  public var signature: UnsafeRawBufferPointer { span.slice(from: signatureOffset, to: span.end) }
  /// The RDATA up to the signer's name: the first part of the signed data.
  var fixedFields: UnsafeRawBufferPointer {
    span.slice(from: span.start, to: span.start + Self.fixedLength)
  }
  var signatureOffset: Int { span.start + Self.fixedLength + signerNameLength }

  /// Whether `key` may have made this signature (RFC 4035 §5.3.1): its
  /// owner (`keyOwner`, flat, any case) is the signer's name, its algorithm
  /// and key tag are the RRSIG's, it is a zone key with protocol 3. A key
  /// tag is not unique: every key that passes is tried. A revoked key
  /// passes; RFC 5011 §2.1 lets it sign only its own DNSKEY RRset, which is
  /// the caller's rule.
  public func mayBeSigned(by key: DNSKEYRecord, keyOwner: UnsafeRawBufferPointer) -> Bool {
    key.keyTag == keyTag && key.algorithm == algorithm && key.isZoneKey
      && key.protocolField == DNSKEYRecord.protocolDNSSEC
      && Name.equalIgnoringCase(signerName, keyOwner)
  }

  /// Whether the signer's name is the owner or one of its ancestors, as the
  /// zone that holds the RRset must be (RFC 4035 §5.3.1), and the Labels
  /// field is not more than the owner's labels.
  public func signerEnclosesOwner(in message: Message) -> Bool {
    guard var owner = CanonicalName(in: message, at: ownerOffset) else { return false }
    let signer = signerName
    return owner.withBytes { name in
      var labelCount = Name.labelCount(name)
      if labelCount > 0, name[0] == 1, name[1] == UInt8(ascii: "*") { labelCount -= 1 }
      guard labels <= labelCount, signer.count <= name.count else { return false }
      // The signer must start at a label boundary of the owner.
      var position = 0
      while name.count - position > signer.count { position += 1 + Int(name[position]) }
      return name.count - position == signer.count
        && Name.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: name[position...]), signer)
    }
  }

  /// Whether `now` (seconds since 1970, modulo 2^32) lies in the validity
  /// interval, inception ≤ now ≤ expiration, compared in serial number
  /// arithmetic (RFC 4034 §3.1.5, RFC 1982 §3.2) so that the times wrap in
  /// 2106.
  public func isCurrent(at now: UInt32) -> Bool {
    !serialLess(now, inception) && !serialLess(expiration, now)
  }
}

/// `lhs < rhs` in 32-bit serial number arithmetic (RFC 1982 §3.2); values
/// exactly 2^31 apart are unordered and compare false.
func serialLess(_ lhs: UInt32, _ rhs: UInt32) -> Bool {
  let difference = rhs &- lhs
  return difference != 0 && difference < 0x8000_0000
}
