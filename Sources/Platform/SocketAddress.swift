import CLinux

/// An IPv4 or IPv6 socket address as plain values. IPv4 is held in the last
/// four bytes of the IPv4-mapped form, `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2).
public struct SocketAddress: Equatable {
  /// Network-order address bytes 0...7 and 8...15.
  public var high: UInt64
  public var low: UInt64
  public var port: UInt16
  /// Whether the socket address is AF_INET6 (an IPv4-mapped address may still
  /// be AF_INET6, on a dual-stack socket).
  public var isIPv6: Bool

  public init(high: UInt64, low: UInt64, port: UInt16, isIPv6: Bool) {
    self.high = high
    self.low = low
    self.port = port
    self.isIPv6 = isIPv6
  }

  public init(ipv4: UInt32, port: UInt16) {
    self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(ipv4), port: port, isIPv6: false)
  }

  public var isIPv4Mapped: Bool { high == 0 && low >> 32 == 0xFFFF }

  /// Fills a sockaddr_storage and returns its length.
  func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    var storage = sockaddr_storage()
    let length = write(into: &storage)
    return withUnsafePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }

  /// Writes this address as a sockaddr into `storage`; returns its length.
  func write(into storage: inout sockaddr_storage) -> socklen_t {
    var bytes: (UInt64, UInt64) = (high.bigEndian, low.bigEndian)
    return withUnsafeBytes(of: &bytes) { raw in
      clinux_make_sockaddr(
        &storage, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), port, isIPv6 ? 1 : 0)
    }
  }

  /// Reads a sockaddr_storage; nil for families other than IPv4 and IPv6.
  init?(storage: inout sockaddr_storage) {
    var bytes: (UInt64, UInt64) = (0, 0)
    var port: UInt16 = 0
    let family = withUnsafeMutableBytes(of: &bytes) { raw in
      clinux_read_sockaddr(&storage, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), &port)
    }
    guard family != 0 else { return nil }
    self.init(
      high: UInt64(bigEndian: bytes.0), low: UInt64(bigEndian: bytes.1), port: port,
      isIPv6: family == 6)
  }
}
