import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The bench itself: the servers are where the drawing says, they answer
/// over UDP and TCP, and the forged datagram really comes first with its
/// own IP TTL and no OPT.
final class BenchTests: LANTestCase {
  func testUpstreamsAnswerTheRouterOverUDPAndTCP() throws {
    let truth = Records.truth["www.example"]!
    let servers: [(String, UInt16)] = [
      (Topology.honestUpstreamAddress, 53), (Topology.honestUpstreamAddress, 5353),
      (Topology.ispAddress, 53),
    ]
    for (server, port) in servers {
      for tcp in [false, true] {
        let answer = Clients.dig(
          "www.example", in: topology, server: server, port: port, tcp: tcp,
          from: topology.router)
        XCTAssertEqual(answer.addresses, [truth], "\(answer)")
        let missing = Clients.dig(
          Records.nonexistent, in: topology, server: server, port: port, tcp: tcp,
          from: topology.router)
        XCTAssertEqual(missing.status, "NXDOMAIN", "\(missing)")
      }
    }
    XCTAssertEqual(honestUpstream.queries(port: 53, over: .tcp), 2)
    XCTAssertEqual(honestUpstream.queries(port: 5353, over: .udp), 2)
    XCTAssertEqual(isp.queries(port: 53, over: .udp), 2)
  }

  func testClientResolvesThroughTheRouterOnly() throws {
    try startDnsward(plainConfig(upstream: "udp \(Topology.ispAddress)"))
    assertEveryClientGets(Records.truth["www.example"]!, for: "www.example")
    assertEveryClientGetsNXDOMAIN(for: Records.nonexistent)
    XCTAssertGreaterThan(isp.queries(port: 53), 0)
    // The counters the defended tests read come through the same way.
    assertCounter("forwarded", reaches: 2)
  }

  func testForgedDatagramArrivesFirstWithItsOwnIPTTLAndNoOPT() throws {
    try restartISP(telling: .forgedFirst)
    let datagrams = try Topology.inNamespace(topology.router) {
      try UDPProbe.ask("www.example", server: Topology.ispAddress, expecting: 2)
    }
    XCTAssertEqual(datagrams.count, 2)
    guard datagrams.count == 2 else { return }
    XCTAssertEqual(datagrams[0].ipTTL, Int(Records.forgedIPTTL))
    XCTAssertEqual(datagrams[0].hasOPT, false)
    XCTAssertEqual(datagrams[0].firstAddress, Records.forged)
    XCTAssertEqual(datagrams[1].ipTTL, 64)
    XCTAssertEqual(datagrams[1].hasOPT, true)
    XCTAssertEqual(datagrams[1].firstAddress, Records.truth["www.example"])
  }
}

/// A raw UDP question with EDNS, and each reply datagram with its IP TTL.
enum UDPProbe {
  struct Datagram {
    let bytes: [UInt8]
    let ipTTL: Int?

    var hasOPT: Bool { DNSQuery.word(bytes, 10) > 0 }

    /// The data of the first answer record, dotted (its owner is a
    /// two-byte pointer to the question, as the bench's servers write it).
    var firstAddress: String? {
      var offset = 12
      while offset < bytes.count && bytes[offset] != 0 { offset += Int(bytes[offset]) + 1 }
      offset += 5 + 2 + 8 + 2  // root, type+class; owner pointer; type, class, ttl; length
      guard DNSQuery.word(bytes, 6) > 0, offset + 4 <= bytes.count else { return nil }
      return bytes[offset..<offset + 4].map(String.init).joined(separator: ".")
    }
  }

  static func ask(_ name: String, server: String, expecting count: Int) throws -> [Datagram] {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw NamespaceError("socket: errno \(errno)") }
    defer { close(fd) }
    var on: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_IP), IP_RECVTTL, &on, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var query: [UInt8] = [0x4C, 0x41, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]
    for label in name.split(separator: ".") { query += [UInt8(label.utf8.count)] + label.utf8 }
    query += [0, 0, 1, 0, 1]  // root, type A, class IN
    query += [0, 0, 41, 0x04, 0xD0, 0, 0, 0, 0, 0, 0]  // OPT: 1232 bytes, no options
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr(server)
    address.sin_port = UInt16(53).bigEndian
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sendto(fd, query, query.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var datagrams: [Datagram] = []
    while datagrams.count < count, let datagram = receive(fd) { datagrams.append(datagram) }
    return datagrams
  }

  /// One datagram and the IP_TTL control message that comes with it.
  private static func receive(_ fd: Int32) -> Datagram? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var control = [UInt8](repeating: 0, count: 64)
    let received = buffer.withUnsafeMutableBytes { data in
      control.withUnsafeMutableBytes { controlBytes in
        var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
        return withUnsafeMutablePointer(to: &vector) { vectorPointer in
          var header = msghdr()
          header.msg_iov = vectorPointer
          header.msg_iovlen = 1
          header.msg_control = controlBytes.baseAddress
          header.msg_controllen = controlBytes.count
          let count = recvmsg(fd, &header, 0)
          return (count, header.msg_controllen)
        }
      }
    }
    guard received.0 > 0 else { return nil }
    return Datagram(
      bytes: Array(buffer[0..<received.0]), ipTTL: ipTTL(in: control, length: received.1))
  }

  /// Walks the control messages (cmsghdr: size_t length, int level, int
  /// type, then the data, each aligned to size_t) for IPPROTO_IP/IP_TTL.
  private static func ipTTL(in control: [UInt8], length: Int) -> Int? {
    let headerSize = MemoryLayout<cmsghdr>.size
    let align = MemoryLayout<Int>.size
    var offset = 0
    while offset + headerSize <= length {
      let header = control.withUnsafeBytes {
        $0.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
      }
      guard header.cmsg_len >= headerSize else { return nil }
      if header.cmsg_level == Int32(IPPROTO_IP) && header.cmsg_type == IP_TTL {
        return Int(
          control.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: offset + headerSize, as: Int32.self)
          })
      }
      offset += (Int(header.cmsg_len) + align - 1) / align * align
    }
    return nil
  }
}
