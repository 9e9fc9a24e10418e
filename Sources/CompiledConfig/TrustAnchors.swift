/// The DNSSEC trust anchors of a config (`trust-anchor`, `trust-anchor-file`
/// and, with `dnssec-root on`, the root's keys): the one table the validator
/// starts its chains of trust from (RFC 4033 §3.1, RFC 4035 §4.4).
///
/// One `TableBytes` of entries back to back, each:
///
/// ```
/// +0      owner         the flat name (RFC 1035 §3.1), lower-cased, ending
///                       in its zero root octet
/// +n      type          2 bytes, big-endian: 43 DS or 48 DNSKEY
/// +n+2    RDATA length  2 bytes, big-endian
/// +n+4    RDATA         as on the wire: DS (RFC 4034 §5.1) key tag, algorithm,
///                       digest type, digest; DNSKEY (RFC 4034 §2.1) flags,
///                       protocol, algorithm, public key
/// ```
///
/// The parser writes only checked entries; a damaged table (a name or an
/// RDATA running past the end) ends the walk there rather than trapping.
public struct TrustAnchors {
  public let bytes: TableBytes

  public init(_ bytes: TableBytes = TableBytes()) { self.bytes = bytes }

  /// The number of entries.
  public var count: Int {
    bytes.withUnsafeBytes { buffer in
      var iterator = TrustAnchorIterator(buffer)
      var count = 0
      while iterator.next() != nil { count += 1 }
      return count
    }
  }

  /// Whether `other` holds the same entries in the same order.
  public func hasSameEntries(as other: TrustAnchors) -> Bool {
    bytes.hasSameBytes(as: other.bytes)
  }

  /// Calls `body` with an iterator over the entries. The anchors' buffers
  /// are valid only inside `body`. No allocation.
  public func withIterator<R>(_ body: (inout TrustAnchorIterator) -> R) -> R {
    bytes.withUnsafeBytes { buffer in
      var iterator = TrustAnchorIterator(buffer)
      return body(&iterator)
    }
  }

  /// Appends one entry's bytes to `table` (the parser's and the tests' way
  /// to build one). `owner` is a lower-cased flat name; `rdata` fits 16 bits.
  public static func append(
    owner: [UInt8], type: TrustAnchorType, rdata: [UInt8], to table: inout [UInt8]
  ) {
    precondition(rdata.count <= 0xFFFF, "RDATA longer than 65535 bytes")
    table += owner
    table += [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF)]
    table += [UInt8(rdata.count >> 8), UInt8(rdata.count & 0xFF)]
    table += rdata
  }

  /// The root zone's key-signing keys as DS records (algorithm 8
  /// RSA/SHA-256, digest type 2 SHA-256): KSK-2017 (key tag 20326) and
  /// KSK-2024 (key tag 38696), from the IANA root trust anchors file
  /// (root-anchors.xml, the format of RFC 9718). The only copy of them:
  /// `dnssec-root on` puts these entries first in a config's table.
  public static let rootEntries: [UInt8] = [
    // . DS 20326 8 2 (KSK-2017)
    0x00, 0x00, 43, 0x00, 36, 0x4F, 0x66, 8, 2,
    0xE0, 0x6D, 0x44, 0xB8, 0x0B, 0x8F, 0x1D, 0x39, 0xA9, 0x5C, 0x0B, 0x0D,
    0x7C, 0x65, 0xD0, 0x84, 0x58, 0xE8, 0x80, 0x40, 0x9B, 0xBC, 0x68, 0x34,
    0x57, 0x10, 0x42, 0x37, 0xC7, 0xF8, 0xEC, 0x8D,
    // . DS 38696 8 2 (KSK-2024)
    0x00, 0x00, 43, 0x00, 36, 0x97, 0x28, 8, 2,
    0x68, 0x3D, 0x2D, 0x0A, 0xCB, 0x8C, 0x9B, 0x71, 0x2A, 0x19, 0x48, 0xB2,
    0x7F, 0x74, 0x12, 0x19, 0x29, 0x8D, 0x0A, 0x45, 0x0D, 0x61, 0x2C, 0x48,
    0x3A, 0xF4, 0x44, 0xA4, 0xC0, 0xFB, 0x2B, 0x16,
  ]

  /// A table of the root's anchors alone: what `Settings()` holds, as a
  /// config without `dnssec-root off` does.
  public static var root: TrustAnchors { TrustAnchors(TableBytes(rootEntries)) }
}

/// The two record types an anchor may be.
public enum TrustAnchorType: UInt16, Equatable, Sendable {
  case ds = 43
  case dnskey = 48
}

/// One entry of `TrustAnchors`; its buffers point into the table.
public struct TrustAnchor {
  /// The lower-cased flat owner name, with its zero root octet.
  public let owner: UnsafeRawBufferPointer
  public let type: TrustAnchorType
  public let rdata: UnsafeRawBufferPointer
}

/// Walks a `TrustAnchors` table entry by entry, with no allocation.
public struct TrustAnchorIterator: IteratorProtocol {
  let buffer: UnsafeRawBufferPointer
  var offset = 0

  public init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

  /// The next entry, or nil at the end or where the table is damaged (the
  /// rest is then skipped).
  public mutating func next() -> TrustAnchor? {
    let start = offset
    var position = start
    // The owner: labels up to the zero octet.
    while position < buffer.count, buffer[position] != 0 {
      position += 1 + Int(buffer[position])
    }
    let header = position + 1
    guard header + 4 <= buffer.count, position - start < 255 else { return end() }
    let rawType = UInt16(buffer[header]) << 8 | UInt16(buffer[header + 1])
    let length = Int(buffer[header + 2]) << 8 | Int(buffer[header + 3])
    let rdataStart = header + 4
    guard let type = TrustAnchorType(rawValue: rawType), rdataStart + length <= buffer.count
    else { return end() }
    offset = rdataStart + length
    return TrustAnchor(
      owner: UnsafeRawBufferPointer(rebasing: buffer[start..<header]), type: type,
      rdata: UnsafeRawBufferPointer(rebasing: buffer[rdataStart..<offset]))
  }

  mutating func end() -> TrustAnchor? {
    offset = buffer.count
    return nil
  }
}
