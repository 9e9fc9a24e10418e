import CLinux

/// The IP TTL (IPv4, RFC 791 §3.1) or hop limit (IPv6, RFC 8200 §3) a
/// datagram arrived with. An answer forged by a host at another distance
/// than the real server arrives with another TTL, which is what `hold-on`
/// compares.
extension Socket {
  /// Asks the kernel to report each received datagram's TTL (IP_RECVTTL or
  /// IPV6_RECVHOPLIMIT); set once on a socket, read with
  /// `receiveWithTTL`.
  public static func enableReceiveTTL(_ fd: FileDescriptor, ipv6: Bool) throws(Errno) {
    _ = try systemCall { Int(clinux_enable_receive_ttl(fd.rawValue, ipv6 ? 1 : 0)) }
  }

  /// The TTL (IPv4) or unicast hop limit (IPv6) of datagrams sent from `fd`.
  public static func setTTL(_ fd: FileDescriptor, _ ttl: UInt8, ipv6: Bool) throws(Errno) {
    _ = try systemCall {
      Int(
        ipv6
          ? clinux_set_int_option(
            fd.rawValue, Int32(IPPROTO_IPV6), clinux_ipv6_unicast_hops(), Int32(ttl))
          : clinux_set_int_option(fd.rawValue, Int32(IPPROTO_IP), clinux_ip_ttl(), Int32(ttl)))
    }
  }

  /// Like `receive(_:into:)`, through recvmsg(2), with the datagram's TTL:
  /// 0 when the socket was not set up with `enableReceiveTTL` (or the
  /// kernel attached none). The control messages go to a buffer on the C
  /// shim's stack, so nothing is allocated per datagram.
  public static func receiveWithTTL(
    _ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer
  ) throws(Errno) -> (count: Int, truncated: Bool, from: SocketAddress, ttl: UInt8)? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    var ttl: Int32 = 0
    let count = try systemCall {
      clinux_receive_with_ttl(
        fd.rawValue, buffer.baseAddress, buffer.count, &storage, &length, &ttl)
    }
    guard let count else { return nil }
    // Only AF_INET and AF_INET6 sockets exist here; anything else is dropped.
    guard let from = SocketAddress(storage: &storage) else {
      return (0, true, SocketAddress(ipv4: 0, port: 0), 0)
    }
    return (
      min(count, buffer.count), count > buffer.count, from,
      UInt8(truncatingIfNeeded: max(0, min(Int(ttl), 255)))
    )
  }
}
