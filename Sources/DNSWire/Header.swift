/// The 12-byte message header (RFC 1035 §4.1.1):
///
///                                     1  1  1  1  1  1
///       0  1  2  3  4  5  6  7  8  9  0  1  2  3  4  5
///     +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
///     |                      ID                       |
///     +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
///     |QR|   Opcode  |AA|TC|RD|RA| Z|AD|CD|   RCODE   |
///     +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
///     |                    QDCOUNT                    |
///     |                    ANCOUNT                    |
///     |                    NSCOUNT                    |
///     |                    ARCOUNT                    |
///     +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
public enum HeaderField {
  public static let id = 0
  public static let flags = 2
  public static let questionCount = 4
  public static let answerCount = 6
  public static let authorityCount = 8
  public static let additionalCount = 10
  public static let size = 12
}

/// The flag word of the header, as an open bit set.
public struct HeaderFlags: Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public static let response: UInt16 = 0x8000
  public static let authoritative: UInt16 = 0x0400
  public static let truncated: UInt16 = 0x0200
  public static let recursionDesired: UInt16 = 0x0100
  public static let recursionAvailable: UInt16 = 0x0080
  public static let authenticData: UInt16 = 0x0020
  public static let checkingDisabled: UInt16 = 0x0010

  public func has(_ bit: UInt16) -> Bool { rawValue & bit != 0 }
  public mutating func set(_ bit: UInt16, _ on: Bool) {
    if on { rawValue |= bit } else { rawValue &= ~bit }
  }
  public var isResponse: Bool { has(Self.response) }
  public var opcode: Opcode {
    get { Opcode(rawValue: UInt8(truncatingIfNeeded: (rawValue >> 11) & 0xF)) }
    set { rawValue = (rawValue & ~0x7800) | (UInt16(newValue.rawValue & 0xF) << 11) }
  }
  /// The low four bits of the response code; EDNS adds eight more (RFC 6891 §6.1.3).
  public var rcode: ResponseCode {
    get { ResponseCode(rawValue: rawValue & 0xF) }
    set { rawValue = (rawValue & ~0xF) | (newValue.rawValue & 0xF) }
  }
}

/// RFC 1035 §4.1.1 and the IANA registry; open, so unknown codes are carried.
public struct Opcode: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let query = Opcode(rawValue: 0)
  public static let notify = Opcode(rawValue: 4)
  public static let update = Opcode(rawValue: 5)
}

/// RFC 1035 §4.1.1, RFC 6891 §9; open, 12 bits wide with EDNS.
public struct ResponseCode: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let noError = ResponseCode(rawValue: 0)
  public static let formatError = ResponseCode(rawValue: 1)
  public static let serverFailure = ResponseCode(rawValue: 2)
  public static let nameError = ResponseCode(rawValue: 3)
  public static let notImplemented = ResponseCode(rawValue: 4)
  public static let refused = ResponseCode(rawValue: 5)
  public static let badVersion = ResponseCode(rawValue: 16)
}

/// RFC 1035 §3.2.2, RFC 3596, RFC 6891; open.
public struct RRType: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let a = RRType(rawValue: 1)
  public static let ns = RRType(rawValue: 2)
  public static let cname = RRType(rawValue: 5)
  public static let soa = RRType(rawValue: 6)
  public static let ptr = RRType(rawValue: 12)
  public static let mx = RRType(rawValue: 15)
  public static let txt = RRType(rawValue: 16)
  public static let aaaa = RRType(rawValue: 28)
  public static let opt = RRType(rawValue: 41)
  public static let https = RRType(rawValue: 65)
  public static let any = RRType(rawValue: 255)
}

/// RFC 1035 §3.2.4; open.
public struct RRClass: RawRepresentable, Equatable, Sendable {
  public var rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public static let internet = RRClass(rawValue: 1)
  public static let chaos = RRClass(rawValue: 3)
  /// NONE and ANY (RFC 2136 §2.4, RFC 1035 §3.2.5): not `.none`, which an
  /// optional class would read as nil.
  public static let noneClass = RRClass(rawValue: 254)
  public static let anyClass = RRClass(rawValue: 255)
}

/// Big-endian accessors over raw bytes at absolute offsets. Callers have
/// checked the bounds once (the views validate on construction).
extension UnsafeRawBufferPointer {
  @inline(__always)
  public func getUInt16(at offset: Int) -> UInt16 {
    UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
  }
  @inline(__always)
  public func getUInt32(at offset: Int) -> UInt32 {
    UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
      | UInt32(self[offset + 3])
  }
}

extension UnsafeMutableRawBufferPointer {
  @inline(__always)
  public func setUInt16(_ value: UInt16, at offset: Int) {
    self[offset] = UInt8(truncatingIfNeeded: value >> 8)
    self[offset + 1] = UInt8(truncatingIfNeeded: value)
  }
  @inline(__always)
  public func setUInt32(_ value: UInt32, at offset: Int) {
    self[offset] = UInt8(truncatingIfNeeded: value >> 24)
    self[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
    self[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
    self[offset + 3] = UInt8(truncatingIfNeeded: value)
  }
  @inline(__always)
  public func getUInt16(at offset: Int) -> UInt16 {
    UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
  }
}
