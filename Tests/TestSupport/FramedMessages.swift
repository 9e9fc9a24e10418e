#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Exactly `count` bytes from the socket `fd`; nil at end of file, on an
/// error or on a receive timeout. While `retrying()` is true, a timeout
/// (EAGAIN) or an interrupted call is tried again instead.
public func readExactly(_ fd: Int32, _ count: Int, retrying: () -> Bool = { false }) -> [UInt8]? {
  var result = [UInt8](repeating: 0, count: count)
  var filled = 0
  while filled < count {
    let received = result.withUnsafeMutableBytes {
      recv(fd, $0.baseAddress! + filled, count - filled, 0)
    }
    if received < 0 && (errno == EAGAIN || errno == EINTR) && retrying() { continue }
    if received <= 0 { return nil }
    filled += received
  }
  return result
}

/// One DNS message over TCP (RFC 1035 §4.2.2): a two-octet length, then
/// that many octets; nil as for `readExactly`.
public func readFramedMessage(_ fd: Int32, retrying: () -> Bool = { false }) -> [UInt8]? {
  guard let length = readExactly(fd, 2, retrying: retrying) else { return nil }
  return readExactly(fd, Int(length[0]) << 8 | Int(length[1]), retrying: retrying)
}

/// `message` with its two-octet length in front, as TCP carries it.
public func framedMessage(_ message: [UInt8]) -> [UInt8] {
  [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
}
