// One UDP exchange for the DNSSEC suite, and what a validating resolver's
// reply says: rcode, the AD bit (RFC 4035 §3.2.3) and the Extended DNS Error
// (RFC 8914) it carries.
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

extension StubClient {
  /// One UDP exchange with 127.0.0.1:`port`; nil on timeout. Replies with
  /// another ID are ignored.
  static func udpMatchingID(_ query: [UInt8], port: UInt16, timeout: TimeInterval) -> [UInt8]? {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = loopback(port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected, send(fd, query, query.count, 0) == query.count else { return nil }
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 65535)
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { return nil }
      var wait = timeval(tv_sec: Int(left), tv_usec: Int((left - Double(Int(left))) * 1e6) + 1)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
      let count = recv(fd, &buffer, buffer.count, 0)
      if count < 0 && errno == EINTR { continue }
      guard count >= 12 else { return nil }
      if buffer[0] == query[0] && buffer[1] == query[1] { return Array(buffer[0..<count]) }
    }
  }
}

/// What a validating resolver said about one question: what the case
/// table compares, resolver against resolver.
struct ValidationOutcome: Equatable, CustomStringConvertible {
  var rcode: Int
  var authenticData: Bool
  /// RFC 8914 INFO-CODE of the first Extended DNS Error option, if any.
  var extendedError: UInt16?
  /// Its EXTRA-TEXT (not compared: free text differs between resolvers).
  var extraText = ""

  static func == (left: Self, right: Self) -> Bool {
    left.rcode == right.rcode && left.authenticData == right.authenticData
      && left.extendedError == right.extendedError
  }

  var description: String {
    let rcodeName = [0: "NOERROR", 2: "SERVFAIL", 3: "NXDOMAIN"][rcode] ?? "rcode \(rcode)"
    return "\(rcodeName)\(authenticData ? " AD" : "")"
      + (extendedError.map { " EDE \($0)" } ?? "")
      + (extraText.isEmpty ? "" : " (\(extraText))")
  }

  /// Read from a reply; nil if it is not a well-formed DNS message.
  init?(reply: [UInt8]) {
    guard let message = PlainMessage(reply) else { return nil }
    rcode = message.rcode
    authenticData = message.flags & 0x0020 != 0
    guard let opt = message.additional.first(where: { $0.type == PlainRecord.opt }) else { return }
    // RFC 6891 §6.1.2: options are code, length, data.
    let data = opt.rdata
    var position = 0
    while position + 4 <= data.count {
      let code = Int(data[position]) << 8 | Int(data[position + 1])
      let length = Int(data[position + 2]) << 8 | Int(data[position + 3])
      let start = position + 4
      guard start + length <= data.count else { return }
      // RFC 8914 §2: INFO-CODE (2 octets), then EXTRA-TEXT (UTF-8).
      if code == 15 && length >= 2 && extendedError == nil {
        extendedError = UInt16(data[start]) << 8 | UInt16(data[start + 1])
        extraText = String(decoding: data[(start + 2)..<(start + length)], as: UTF8.self)
      }
      position = start + length
    }
  }

  init(rcode: Int, authenticData: Bool, extendedError: UInt16?) {
    self.rcode = rcode
    self.authenticData = authenticData
    self.extendedError = extendedError
  }
}
