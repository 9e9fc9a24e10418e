import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One datagram or TCP message a server sends in reply to a query.
struct Outgoing {
  var bytes: [UInt8]
  /// Sent this long after the query arrived (UDP only; TCP sends in order).
  var delayMilliseconds = 0
  /// The IP TTL of the datagram; nil for the system default (64).
  var ipTTL: Int32? = nil
}

enum ServerTransport { case udp, tcp }

/// A DNS server on UDP and TCP ports of one address inside a network
/// namespace, played by threads of the test process until `stop()`.
/// `respond` turns each query into the datagrams or messages to send back.
final class DNSServer: @unchecked Sendable {
  typealias Responder = (DNSQuery, ServerTransport) -> [Outgoing]

  let address: String
  private let respond: Responder
  private let lock = NSLock()
  private var running = true
  private var queryCounts: [String: Int] = [:]
  private var nameCounts: [String: Int] = [:]
  private var sockets: [Int32] = []
  private var connections: Set<Int32> = []
  private let threads = DispatchGroup()

  init(namespace: String, address: String, ports: [UInt16], respond: @escaping Responder) throws {
    self.address = address
    self.respond = respond
    let bound = try Topology.inNamespace(namespace) { () throws -> [(UInt16, Int32, Int32)] in
      var bound: [(UInt16, Int32, Int32)] = []
      do {
        for port in ports {
          let udp = try Self.boundSocket(type: SOCK_DGRAM, address: address, port: port)
          bound.append((port, udp, -1))
          let tcp = try Self.boundSocket(type: SOCK_STREAM, address: address, port: port)
          bound[bound.count - 1].2 = tcp
          guard listen(tcp, 16) == 0 else { throw NamespaceError("listen: errno \(errno)") }
        }
      } catch {
        for (_, udp, tcp) in bound {
          close(udp)
          if tcp >= 0 { close(tcp) }
        }
        throw error
      }
      return bound
    }
    for (port, udp, tcp) in bound {
      sockets += [udp, tcp]
      startThread { [self] in serveUDP(udp, port: port) }
      startThread { [self] in acceptTCP(tcp, port: port) }
    }
  }

  /// How many queries arrived over `transport` on `port`.
  func queries(port: UInt16 = 53, over transport: ServerTransport = .udp) -> Int {
    lock.withLock { queryCounts["\(transport)/\(port)"] ?? 0 }
  }

  /// How many queries for `name` (lower-case, no final dot) arrived, over
  /// any transport and port.
  func queries(for name: String) -> Int {
    lock.withLock { nameCounts[name] ?? 0 }
  }

  /// How many queries arrived for `name` or a name below it.
  func queries(atOrBelow name: String) -> Int {
    lock.withLock {
      nameCounts.filter { $0.key == name || $0.key.hasSuffix("." + name) }.values.reduce(0, +)
    }
  }

  func stop() {
    let open = lock.withLock { () -> Set<Int32> in
      running = false
      return connections
    }
    for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    _ = threads.wait(timeout: .now() + 3)
    for fd in sockets { close(fd) }
    sockets = []
  }

  deinit { stop() }

  private var isRunning: Bool { lock.withLock { running } }

  private func startThread(_ body: @escaping () -> Void) {
    threads.enter()
    Thread.detachNewThread { [threads] in
      body()
      threads.leave()
    }
  }

  private func count(_ query: DNSQuery, _ transport: ServerTransport, port: UInt16) {
    lock.withLock {
      queryCounts["\(transport)/\(port)", default: 0] += 1
      nameCounts[query.name, default: 0] += 1
    }
  }

  private func serveUDP(_ fd: Int32, port: UInt16) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while isRunning {
      let (received, peer) = receiveDatagram(fd, into: &buffer)
      guard received > 0, let query = DNSQuery(Array(buffer[0..<received])) else { continue }
      count(query, .udp, port: port)
      let asker = peer
      for outgoing in respond(query, .udp) {
        if outgoing.delayMilliseconds == 0 {
          sendDatagram(fd, outgoing, to: asker)
        } else {
          DispatchQueue.global().asyncAfter(
            deadline: .now() + .milliseconds(outgoing.delayMilliseconds)
          ) { [self] in
            if isRunning { sendDatagram(fd, outgoing, to: asker) }
          }
        }
      }
    }
  }

  /// Sends under the lock: the IP TTL is a socket option, set for this one
  /// datagram and put back to the default (-1) right after.
  private func sendDatagram(_ fd: Int32, _ outgoing: Outgoing, to peer: sockaddr_in) {
    lock.withLock {
      var destination = peer
      if var ttl = outgoing.ipTTL {
        setsockopt(fd, Int32(IPPROTO_IP), IP_TTL, &ttl, socklen_t(MemoryLayout<Int32>.size))
      }
      _ = withUnsafePointer(to: &destination) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(
            fd, outgoing.bytes, outgoing.bytes.count, 0, $0,
            socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      if outgoing.ipTTL != nil {
        var systemDefault: Int32 = -1
        setsockopt(
          fd, Int32(IPPROTO_IP), IP_TTL, &systemDefault, socklen_t(MemoryLayout<Int32>.size))
      }
    }
  }

  private func acceptTCP(_ fd: Int32, port: UInt16) {
    while isRunning {
      let connection = accept(fd, nil, nil)
      guard connection >= 0 else { continue }
      Self.setReceiveTimeout(connection)
      let accepted = lock.withLock { () -> Bool in
        guard running else { return false }
        connections.insert(connection)
        return true
      }
      guard accepted else {
        close(connection)
        break
      }
      startThread { [self] in
        serveTCP(connection, port: port)
        lock.withLock { _ = connections.remove(connection) }
        close(connection)
      }
    }
  }

  /// Length-framed messages (RFC 1035 §4.2.2) until EOF or `stop()`.
  private func serveTCP(_ fd: Int32, port: UInt16) {
    while let message = readFramedMessage(fd, retrying: { isRunning }) {
      guard let query = DNSQuery(message) else { return }
      count(query, .tcp, port: port)
      for outgoing in respond(query, .tcp) {
        let framed = framedMessage(outgoing.bytes)
        guard send(fd, framed, framed.count, Int32(MSG_NOSIGNAL)) == framed.count else { return }
      }
    }
  }

  private static func setReceiveTimeout(_ fd: Int32) {
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  private static func boundSocket(type: __socket_type, address: String, port: UInt16) throws
    -> Int32
  {
    let fd = socket(AF_INET, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw NamespaceError("socket: errno \(errno)") }
    var reuse: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    setReceiveTimeout(fd)
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_addr.s_addr = inet_addr(address)
    socketAddress.sin_port = port.bigEndian
    let bound = withUnsafePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let code = errno
      close(fd)
      throw NamespaceError("bind \(address):\(port): errno \(code)")
    }
    return fd
  }
}
