#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Free TCP ports on 127.0.0.1 for servers a test starts itself (dnsdist,
/// `openssl s_server`).
public enum LoopbackPorts {
  /// A socket call failed while looking for ports.
  public struct Failure: Error {
    public let errno: Int32
  }

  /// `count` different TCP ports on 127.0.0.1 that were free a moment ago.
  /// Each stays bound until all are known: a port learned and released one
  /// at a time can be drawn again by the next bind to port 0.
  public static func freeTCP(_ count: Int) throws(Failure) -> [UInt16] {
    var descriptors: [Int32] = []
    defer { descriptors.forEach { close($0) } }
    var ports: [UInt16] = []
    for _ in 0..<count {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else { throw Failure(errno: errno) }
      descriptors.append(fd)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
      }
      guard bound else { throw Failure(errno: errno) }
      ports.append(UInt16(bigEndian: address.sin_port))
    }
    return ports
  }
}
