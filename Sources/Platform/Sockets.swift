import CLinux

/// Socket operations over `FileDescriptor`. All sockets are non-blocking and
/// close-on-exec; every call goes through `systemCall`.
public enum Socket {
  /// A UDP socket for `address`'s family.
  public static func udp(for address: SocketAddress) throws(Errno) -> FileDescriptor {
    try open(address, type: clinux_sock_dgram())
  }

  /// A TCP socket for `address`'s family.
  public static func tcp(for address: SocketAddress) throws(Errno) -> FileDescriptor {
    try open(address, type: clinux_sock_stream())
  }

  private static func open(_ address: SocketAddress, type: Int32) throws(Errno) -> FileDescriptor {
    let family = address.isIPv6 ? AF_INET6 : AF_INET
    let fd = try systemCall { Int(socket(family, type, 0)) } ?? -1
    return FileDescriptor(rawValue: Int32(fd))
  }

  /// Binds a listener: SO_REUSEADDR, and IPV6_V6ONLY for IPv6 so that an
  /// IPv4 listener on the same port can coexist; SO_REUSEPORT when several
  /// workers share the address.
  ///
  /// An address no interface has yet (EADDRNOTAVAIL) is bound again with
  /// IP_FREEBIND / IPV6_FREEBIND (ip(7), ipv6(7)): at boot dnsward may
  /// start before netifd or systemd-networkd has configured the LAN address,
  /// and the socket receives once the address appears.
  /// - Returns: true when the address was not local and is bound free.
  @discardableResult
  public static func bindListener(
    _ fd: FileDescriptor, to address: SocketAddress, reusePort: Bool = false
  ) throws(Errno) -> Bool {
    _ = clinux_set_int_option(fd.rawValue, SOL_SOCKET, SO_REUSEADDR, 1)
    if reusePort, clinux_set_int_option(fd.rawValue, SOL_SOCKET, SO_REUSEPORT, 1) != 0 {
      throw Errno(rawValue: clinux_errno())
    }
    if address.isIPv6 {
      _ = clinux_set_int_option(fd.rawValue, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1)
    }
    do throws(Errno) {
      try bind(fd, to: address)
      return false
    } catch {
      guard error.rawValue == EADDRNOTAVAIL else { throw error }
    }
    let freeBind =
      address.isIPv6
      ? clinux_set_int_option(fd.rawValue, Int32(IPPROTO_IPV6), IPV6_FREEBIND, 1)
      : clinux_set_int_option(fd.rawValue, Int32(IPPROTO_IP), IP_FREEBIND, 1)
    guard freeBind == 0 else { throw Errno(rawValue: EADDRNOTAVAIL) }
    try bind(fd, to: address)
    return true
  }

  public static func bind(_ fd: FileDescriptor, to address: SocketAddress) throws(Errno) {
    _ = try systemCall {
      address.withSockaddr { pointer, length in Int(CLinux.bind(fd.rawValue, pointer, length)) }
    }
  }

  public static func listen(_ fd: FileDescriptor, backlog: Int32) throws(Errno) {
    _ = try systemCall { Int(CLinux.listen(fd.rawValue, backlog)) }
  }

  /// connect(2). For UDP it fixes the peer, so the kernel drops datagrams
  /// from any other address or port. For a non-blocking TCP socket, returns
  /// false while the connection is in progress (wait for writability).
  public static func connect(_ fd: FileDescriptor, to address: SocketAddress) throws(Errno) -> Bool
  {
    do throws(Errno) {
      _ = try systemCall {
        address.withSockaddr { pointer, length in
          Int(CLinux.connect(fd.rawValue, pointer, length))
        }
      }
      return true
    } catch {
      if error == .inProgress { return false }
      throw error
    }
  }

  /// Dissolves a UDP socket's association (connect to AF_UNSPEC). For a
  /// socket never bound explicitly, Linux also releases its port: datagrams
  /// to it are no longer delivered, and the next `connect` binds a fresh
  /// random port (the kernel's ephemeral-port choice).
  public static func disconnect(_ fd: FileDescriptor) throws(Errno) {
    _ = try systemCall { Int(clinux_disconnect(fd.rawValue)) }
  }

  /// The result of a non-blocking connect, once writable: nil if connected.
  public static func pendingError(_ fd: FileDescriptor) -> Errno? {
    let code = clinux_socket_error(fd.rawValue)
    return code == 0 ? nil : Errno(rawValue: code)
  }

  /// The local address a socket is bound to (to learn a kernel-chosen port).
  public static func localAddress(_ fd: FileDescriptor) -> SocketAddress? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(fd.rawValue, $0, &length)
      }
    }
    guard result == 0 else { return nil }
    return SocketAddress(storage: &storage)
  }

  /// accept4(2), non-blocking and close-on-exec; nil when none is waiting.
  public static func accept(_ listener: FileDescriptor) throws(Errno) -> (
    FileDescriptor, SocketAddress
  )? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let fd = try withUnsafeMutablePointer(to: &storage) { pointer throws(Errno) in
      try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(Errno) in
        try systemCall { Int(accept4(listener.rawValue, address, &length, clinux_accept_flags())) }
      }
    }
    guard let fd else { return nil }
    guard let peer = SocketAddress(storage: &storage) else {
      FileDescriptor(rawValue: Int32(fd)).close()
      return nil
    }
    return (FileDescriptor(rawValue: Int32(fd)), peer)
  }

  /// recvfrom(2). A datagram larger than `buffer` is reported with
  /// `truncated` set (MSG_TRUNC), so callers can drop it rather than parse a
  /// cut message. nil when nothing is waiting.
  public static func receive(
    _ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer
  ) throws(Errno) -> (count: Int, truncated: Bool, from: SocketAddress)? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let count = try withUnsafeMutablePointer(to: &storage) { pointer throws(Errno) in
      try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(Errno) in
        try systemCall {
          recvfrom(
            fd.rawValue, buffer.baseAddress, buffer.count, clinux_msg_trunc(), address,
            &length)
        }
      }
    }
    guard let count else { return nil }
    // Only AF_INET and AF_INET6 sockets exist here; anything else is dropped.
    guard let from = SocketAddress(storage: &storage) else {
      return (0, true, SocketAddress(ipv4: 0, port: 0))
    }
    return (min(count, buffer.count), count > buffer.count, from)
  }

  /// sendto(2); false when the socket buffer is full (the datagram is lost,
  /// as it would be on the network).
  public static func send(
    _ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, to address: SocketAddress
  ) throws(Errno) -> Bool {
    try systemCall {
      address.withSockaddr { pointer, length in
        sendto(fd.rawValue, bytes.baseAddress, bytes.count, clinux_msg_nosignal(), pointer, length)
      }
    } != nil
  }

  /// send(2) on a connected socket; nil when it would block.
  public static func send(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws(Errno)
    -> Int?
  {
    try systemCall {
      CLinux.send(fd.rawValue, bytes.baseAddress, bytes.count, clinux_msg_nosignal())
    }
  }

  public static func setNoDelay(_ fd: FileDescriptor) {
    _ = clinux_set_int_option(fd.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
  }
}

/// Signals as loop events (signalfd).
public enum Signals {
  public static var interrupt: Int32 { SIGINT }
  public static var terminate: Int32 { SIGTERM }
  public static var hangup: Int32 { SIGHUP }
  public static var user1: Int32 { SIGUSR1 }

  /// Blocks the signals dnsward handles and returns a descriptor reporting them.
  public static func descriptor() throws(Errno) -> FileDescriptor {
    let fd = clinux_signalfd()
    guard fd >= 0 else { throw Errno(rawValue: clinux_errno()) }
    return FileDescriptor(rawValue: fd)
  }

  /// The next pending signal number, or nil.
  public static func next(from fd: FileDescriptor) -> Int32? {
    let signal = clinux_read_signal(fd.rawValue)
    return signal == 0 ? nil : signal
  }
}

public enum Privileges {
  public enum DropError: Error { case unknownUser, failed(Errno) }

  /// Switches to `user` (a NUL-free name) after the sockets are bound.
  /// With `keepingNetworkAdministration` CAP_NET_ADMIN (and nothing else)
  /// survives the switch, for `nftset`: the kernel checks it at every
  /// change to a set, in the process that writes.
  public static func drop(to user: [UInt8], keepingNetworkAdministration: Bool = false)
    throws(DropError)
  {
    var name = user
    name.append(0)
    let result = name.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        keepingNetworkAdministration
          ? clinux_drop_privileges_keeping_net_admin($0.baseAddress!)
          : clinux_drop_privileges($0.baseAddress!)
      }
    }
    if result == -1 { throw .unknownUser }
    if result != 0 { throw .failed(Errno(rawValue: result)) }
  }

  public static var effectiveUserID: UInt32 { UInt32(geteuid()) }
}
