// The records that deny existence, NSEC (RFC 4034 §4) and NSEC3 (RFC 5155
// §3, §4), their type bitmaps, and which names they cover or match.

import DNSWire

/// A type bitmap (RFC 4034 §4.1.2, RFC 5155 §3.2.1): windows in increasing
/// order, each `window (1) | length (1, 1...32) | bitmap (length)`.
public struct TypeBitmap {
  let bytes: UnsafeRawBufferPointer
  let start: Int
  let end: Int

  /// Checks the windows from `start` to `end`; nil for a window length of 0
  /// or above 32, a window past the end, or windows out of order. An empty
  /// bitmap is valid (an NSEC3 for an empty non-terminal).
  init?(bytes: UnsafeRawBufferPointer, start: Int, end: Int) {
    var position = start
    var previousWindow = -1
    while position < end {
      guard position + 2 <= end else { return nil }
      let window = Int(bytes[position])
      let length = Int(bytes[position + 1])
      guard window > previousWindow, length >= 1, length <= 32, position + 2 + length <= end else {
        return nil
      }
      previousWindow = window
      position += 2 + length
    }
    self.bytes = bytes
    self.start = start
    self.end = end
  }

  /// Whether the bitmap has `type`'s bit set.
  public func contains(_ type: RRType) -> Bool {
    let window = Int(type.rawValue >> 8)
    let low = Int(type.rawValue & 0xFF)
    var position = start
    while position < end {
      let blockWindow = Int(bytes[position])
      let length = Int(bytes[position + 1])
      if blockWindow == window {
        guard low / 8 < length else { return false }
        return bytes[position + 2 + low / 8] & (0x80 >> UInt8(low % 8)) != 0
      }
      if blockWindow > window { return false }
      position += 2 + length
    }
    return false
  }
}

/// NSEC RDATA (RFC 4034 §4.1): `Next Domain Name (uncompressed) | Type Bit Maps`.
public struct NSECRecord {
  let bytes: UnsafeRawBufferPointer
  public let ownerOffset: Int
  let nextNameOffset: Int
  let nextNameLength: Int
  public let types: TypeBitmap

  /// An NSEC record of `message`; nil for another type, a compressed or
  /// overlong next name, or a malformed bitmap.
  public init?(_ record: ResourceRecord, in message: Message) {
    guard record.type == .nsec,
      let nameLength = uncompressedNameLength(
        in: message.bytes, at: record.rdataOffset, limit: record.end),
      let types = TypeBitmap(
        bytes: message.bytes, start: record.rdataOffset + nameLength, end: record.end)
    else { return nil }
    bytes = message.bytes
    ownerOffset = record.offset
    nextNameOffset = record.rdataOffset
    nextNameLength = nameLength
    self.types = types
  }

  /// The next owner name in the zone, flat, as written.
  public var nextName: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: bytes[nextNameOffset..<(nextNameOffset + nextNameLength)])
  }

  /// Whether `name` (flat) is the owner, ignoring case.
  public func matches(_ name: UnsafeRawBufferPointer, in message: Message) -> Bool {
    guard var owner = CanonicalName(in: message, at: ownerOffset) else { return false }
    return owner.withBytes { Name.equalIgnoringCase($0, name) }
  }

  /// Whether `name` (flat) falls strictly between the owner and the next
  /// name in canonical order (RFC 4034 §6.1), so it does not exist. The last
  /// NSEC of a zone, whose next name is the apex and sorts before the owner,
  /// covers every name after the owner (RFC 4034 §4.1.1); whether the name
  /// is in the zone at all is the caller's check.
  public func covers(_ name: UnsafeRawBufferPointer, in message: Message) -> Bool {
    guard var owner = CanonicalName(in: message, at: ownerOffset) else { return false }
    return owner.withBytes { ownerName in
      let afterOwner = CanonicalOrder.compare(ownerName, name) < 0
      let beforeNext = CanonicalOrder.compare(name, nextName) < 0
      if CanonicalOrder.compare(ownerName, nextName) < 0 { return afterOwner && beforeNext }
      return afterOwner || beforeNext
    }
  }
}

/// An NSEC3 hash (RFC 5155 §5), 20 octets of SHA-1, the one hash algorithm.
public struct NSEC3Hash: Equatable {
  public static let length = 20
  /// The base32hex text of a hash is 32 characters (RFC 4648 §7).
  public static let textLength = 32
  public var octets: InlineArray<20, UInt8> = .init(repeating: 0)

  public init() {}

  public static func == (lhs: NSEC3Hash, rhs: NSEC3Hash) -> Bool { compare(lhs, rhs) == 0 }

  /// Orders hashes as unsigned octet strings (RFC 5155 §1.3, hash order).
  public static func compare(_ lhs: NSEC3Hash, _ rhs: NSEC3Hash) -> Int {
    for index in 0..<length where lhs.octets[index] != rhs.octets[index] {
      return lhs.octets[index] < rhs.octets[index] ? -1 : 1
    }
    return 0
  }

  /// Decodes 32 base32hex characters, either case, no padding (RFC 4648 §7);
  /// nil for any other text.
  public init?(base32Hex text: UnsafeRawBufferPointer) {
    guard text.count == Self.textLength else { return nil }
    var accumulator: UInt64 = 0
    var bits = 0
    var written = 0
    for index in 0..<text.count {
      guard let value = Self.base32HexValue(text[index]) else { return nil }
      accumulator = accumulator << 5 | UInt64(value)
      bits += 5
      if bits >= 8 {
        bits -= 8
        octets[written] = UInt8(truncatingIfNeeded: accumulator >> UInt64(bits))
        written += 1
      }
    }
  }

  static func base32HexValue(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "v"): return character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "V"): return character - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}

/// The NSEC3 parameters shared by NSEC3 and NSEC3PARAM RDATA (RFC 5155 §3.2,
/// §4.2): `Hash Algorithm (1) | Flags (1) | Iterations (2) | Salt Length (1) | Salt`.
public struct NSEC3Parameters {
  let bytes: UnsafeRawBufferPointer
  let start: Int
  /// Offset just past the salt.
  let end: Int

  /// SHA-1, the only hash algorithm defined (RFC 5155 §11).
  public static let sha1: UInt8 = 1
  /// Flags bit 7 of NSEC3: Opt-Out (RFC 5155 §3.1.2.1).
  public static let optOutFlag: UInt8 = 0x01

  init?(bytes: UnsafeRawBufferPointer, start: Int, limit: Int) {
    guard start + 5 <= limit else { return nil }
    let end = start + 5 + Int(bytes[start + 4])
    guard end <= limit else { return nil }
    self.bytes = bytes
    self.start = start
    self.end = end
  }

  public var hashAlgorithm: UInt8 { bytes[start] }
  public var flags: UInt8 { bytes[start + 1] }
  public var isOptOut: Bool { flags & Self.optOutFlag != 0 }
  public var iterations: Int { Int(bytes.getUInt16(at: start + 2)) }
  public var salt: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: bytes[(start + 5)..<end])
  }
}

/// NSEC3 RDATA (RFC 5155 §3.2): the parameters, then
/// `Hash Length (1) | Next Hashed Owner Name | Type Bit Maps`.
public struct NSEC3Record {
  public let parameters: NSEC3Parameters
  /// The hash the owner's first label spells.
  public let ownerHash: NSEC3Hash
  public let nextHashedOwner: NSEC3Hash
  public let types: TypeBitmap

  /// An NSEC3 record of `message`; nil for another type, RDATA cut short
  /// (a salt or hash past the end), a malformed bitmap, or a hash that is
  /// not SHA-1's 20 octets, in the RDATA or as the owner's first label
  /// (an NSEC3 of an unknown algorithm is ignored, RFC 5155 §8.1).
  public init?(_ record: ResourceRecord, in message: Message) {
    guard record.type == .nsec3,
      let parameters = NSEC3Parameters(
        bytes: message.bytes, start: record.rdataOffset, limit: record.end),
      parameters.hashAlgorithm == NSEC3Parameters.sha1, parameters.end < record.end,
      Int(message.bytes[parameters.end]) == NSEC3Hash.length,
      parameters.end + 1 + NSEC3Hash.length <= record.end,
      let types = TypeBitmap(
        bytes: message.bytes, start: parameters.end + 1 + NSEC3Hash.length, end: record.end),
      var owner = CanonicalName(in: message, at: record.offset),
      let ownerHash = owner.withBytes({ name -> NSEC3Hash? in
        guard name.count > 1, Int(name[0]) == NSEC3Hash.textLength else { return nil }
        return NSEC3Hash(
          base32Hex: UnsafeRawBufferPointer(rebasing: name[1...NSEC3Hash.textLength]))
      })
    else { return nil }
    self.parameters = parameters
    self.ownerHash = ownerHash
    var next = NSEC3Hash()
    for index in 0..<NSEC3Hash.length {
      next.octets[index] = message.bytes[parameters.end + 1 + index]
    }
    nextHashedOwner = next
    self.types = types
  }

  /// Whether `hash` is this record's owner hash (RFC 5155 §8.3).
  public func matches(_ hash: NSEC3Hash) -> Bool { hash == ownerHash }

  /// Whether `hash` falls strictly between the owner hash and the next
  /// hashed owner (RFC 5155 §8.3). The last NSEC3 of the chain, whose next
  /// hash is the smallest, covers the hashes after its owner and those
  /// before the next; a chain of one record covers every other hash.
  public func covers(_ hash: NSEC3Hash) -> Bool {
    let afterOwner = NSEC3Hash.compare(ownerHash, hash) < 0
    let beforeNext = NSEC3Hash.compare(hash, nextHashedOwner) < 0
    if NSEC3Hash.compare(ownerHash, nextHashedOwner) < 0 { return afterOwner && beforeNext }
    return (afterOwner || beforeNext) && hash != ownerHash
  }
}

/// NSEC3PARAM RDATA (RFC 5155 §4.2): the parameters alone.
public struct NSEC3PARAMRecord {
  public let parameters: NSEC3Parameters

  public init?(_ record: ResourceRecord, in message: Message) {
    guard record.type == .nsec3param,
      let parameters = NSEC3Parameters(
        bytes: message.bytes, start: record.rdataOffset, limit: record.end),
      parameters.end == record.end
    else { return nil }
    self.parameters = parameters
  }
}
