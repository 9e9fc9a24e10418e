import CLinux
import Platform
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A UDP socket bound to `address` (port 0: one the kernel chooses; by
/// default on 127.0.0.1), and the address it got.
func boundSocket(_ address: SocketAddress = SocketAddress(ipv4: 0x7F00_0001, port: 0)) throws
  -> (FileDescriptor, SocketAddress)
{
  let fd = try Socket.udp(for: address)
  try Socket.bind(fd, to: address)
  return (fd, try XCTUnwrap(Socket.localAddress(fd)))
}

/// Waits up to 2 s until `fd` has something to read (the sockets are
/// non-blocking).
func waitReadable(_ fd: FileDescriptor) {
  var poll = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
  _ = Glibc.poll(&poll, 1, 2000)
}
