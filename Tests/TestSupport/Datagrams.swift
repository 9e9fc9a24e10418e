#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Waits for one datagram on the IPv4 UDP socket `fd`, read into `buffer`
/// (what does not fit is dropped): recvfrom's count (negative on an error)
/// and the address it came from. What the tests' fake servers receive by.
public func receiveDatagram(_ fd: Int32, into buffer: inout [UInt8]) -> (
  count: Int, from: sockaddr_in
) {
  var from = sockaddr_in()
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let count = withUnsafeMutablePointer(to: &from) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      recvfrom(fd, &buffer, buffer.count, 0, $0, &length)
    }
  }
  return (count, from)
}
