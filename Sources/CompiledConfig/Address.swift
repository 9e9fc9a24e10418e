/// An IPv4 or IPv6 address held as 128 bits; IPv4 addresses are kept in their
/// IPv4-mapped form `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2), so one prefix test
/// serves both families and a dual-stack socket's mapped peers match IPv4 rules.
public struct IPAddress: Equatable, Sendable {
  public var high: UInt64
  public var low: UInt64

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  public init(ipv4 value: UInt32) {
    high = 0
    low = 0xFFFF_0000_0000 | UInt64(value)
  }

  public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }
  /// The IPv4 address, meaningful when `isIPv4`.
  public var ipv4: UInt32 { UInt32(truncatingIfNeeded: low) }

  /// Byte `index` (0...15) in network order of the 16-byte form.
  public func byte(_ index: Int) -> UInt8 {
    index < 8
      ? UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
      : UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index - 8)))
  }

  /// The address in `count` (4 or 16) network-order bytes at `offset`, as
  /// an A or AAAA record's RDATA holds it; IPv4 in its mapped form.
  public init(networkBytes bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) {
    var high: UInt64 = 0
    var low: UInt64 = count == 4 ? 0xFFFF : 0
    for index in offset..<(offset + count) {
      high = high << 8 | low >> 56
      low = low << 8 | UInt64(bytes[index])
    }
    self.init(high: high, low: low)
  }

  public static let loopbackV6 = IPAddress(high: 0, low: 1)
  public static let anyV6 = IPAddress(high: 0, low: 0)
}

/// An address and a port: a listener, a client or an upstream.
public struct Endpoint: Equatable, Sendable {
  public var address: IPAddress
  public var port: UInt16
  public init(address: IPAddress, port: UInt16) {
    self.address = address
    self.port = port
  }
}

/// A CIDR prefix over the 128-bit form: an IPv4 /n is stored as /(96+n).
public struct AddressPrefix: Equatable, Sendable {
  public var address: IPAddress
  public var length: UInt8

  /// `address` is masked to `length` so that equal prefixes compare equal.
  public init(address: IPAddress, length: UInt8) {
    let bits = min(Int(length), 128)
    self.length = UInt8(bits)
    let highMask: UInt64 = bits >= 64 ? ~0 : (bits == 0 ? 0 : ~0 << UInt64(64 - bits))
    let lowMask: UInt64 = bits <= 64 ? 0 : (bits == 128 ? ~0 : ~0 << UInt64(128 - bits))
    self.address = IPAddress(high: address.high & highMask, low: address.low & lowMask)
  }

  public func contains(_ candidate: IPAddress) -> Bool {
    AddressPrefix(address: candidate, length: length).address == address
  }
}

/// The client ACL used when a config has no `allow` line: loopback, RFC 1918,
/// RFC 6598 shared space, link-local and ULA — the LAN a router serves.
public let defaultAllowPrefixes: [AddressPrefix] = [
  AddressPrefix(address: IPAddress(ipv4: 0x7F00_0000), length: 96 + 8),
  AddressPrefix(address: IPAddress(ipv4: 0x0A00_0000), length: 96 + 8),
  AddressPrefix(address: IPAddress(ipv4: 0xAC10_0000), length: 96 + 12),
  AddressPrefix(address: IPAddress(ipv4: 0xC0A8_0000), length: 96 + 16),
  AddressPrefix(address: IPAddress(ipv4: 0x6440_0000), length: 96 + 10),
  AddressPrefix(address: IPAddress(ipv4: 0xA9FE_0000), length: 96 + 16),
  AddressPrefix(address: IPAddress.loopbackV6, length: 128),
  AddressPrefix(address: IPAddress(high: 0xFC00_0000_0000_0000, low: 0), length: 7),
  AddressPrefix(address: IPAddress(high: 0xFE80_0000_0000_0000, low: 0), length: 10),
]
