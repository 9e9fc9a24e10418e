import DNSWire
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A scriptable DNS server on 127.0.0.1 (UDP and TCP on the same port) that
/// plays the upstreams of the integration tests: honest, slow, silent,
/// lying, forging, truncating. Runs on its own threads until `stop()`.
final class FakeUpstream: @unchecked Sendable {
  enum Behaviour {
    /// Answers every A question with `answerAddress`; names starting with
    /// `nx` get NXDOMAIN, `chain` a CNAME chain, `big` 60 A records.
    case honest
    /// Like honest, after a delay.
    case slow(milliseconds: Int)
    /// Never answers.
    case silent
    /// First sends a forged answer (wrong ID, bogus address), then the real one.
    case forgedFirst
    /// Answers with the wrong ID only.
    case wrongID
    /// Answers about a different name only.
    case wrongQuestion
    /// UDP answers are empty with TC=1; TCP answers are complete.
    case truncating
    /// Answers with the question name lower-cased (ignores 0x20).
    case caseless
    /// Answers SERVFAIL.
    case servFail
    /// Sends every honest answer twice.
    case duplicated
    /// Answers with the query's ID followed by random bytes (up to 60):
    /// a broken or hostile server.
    case garbage
    /// Resets every TCP connection (RST, through SO_LINGER 0) as soon as a
    /// query arrives on it; UDP questions are answered honestly.
    case resetting
    /// Answers with what the closure returns for the query (a zone of
    /// several record types, say).
    case custom(([UInt8]) -> [[UInt8]])
  }

  /// What it does now. A test may change it while the server runs: an
  /// upstream that goes silent, comes back, or flaps.
  var behaviour: Behaviour {
    get { lock.withLock { _behaviour } }
    set { lock.withLock { _behaviour = newValue } }
  }
  private var _behaviour: Behaviour
  let answerAddress: (UInt8, UInt8, UInt8, UInt8)
  private(set) var port: UInt16 = 0
  private let udp: Int32
  private let tcp: Int32
  private let lock = NSLock()
  private var running = true
  private var _udpQueries = 0
  private var _tcpQueries = 0
  var udpQueries: Int { lock.withLock { _udpQueries } }
  /// The source port of every UDP query, in arrival order.
  private var _udpSourcePorts: [UInt16] = []
  var udpSourcePorts: [UInt16] { lock.withLock { _udpSourcePorts } }
  /// The question name of every UDP query, lower-cased and dotted, in
  /// arrival order.
  private var _udpQuestions: [String] = []
  var udpQuestions: [String] { lock.withLock { _udpQuestions } }
  var tcpQueries: Int { lock.withLock { _tcpQueries } }

  /// `firstPort`, when not 0, is the port the first attempt asks for (a
  /// test's way to make that attempt collide); later attempts ask for 0.
  init(
    _ behaviour: Behaviour, answer: (UInt8, UInt8, UInt8, UInt8) = (192, 0, 2, 1),
    firstPort: UInt16 = 0
  ) throws {
    _ = pipeSignalIgnored
    _behaviour = behaviour
    answerAddress = answer
    (udp, tcp, port) = try Self.openSamePort(firstPort: firstPort)
    listen(tcp, 16)
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(udp, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(tcp, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    Thread.detachNewThread { [self] in serveUDP() }
    Thread.detachNewThread { [self] in serveTCP() }
  }

  /// A UDP and a TCP socket bound to one port number on 127.0.0.1.
  /// Invariant: both sockets share that port. The kernel's port-0 choice
  /// for TCP says nothing about UDP, so the UDP bind to the same number can
  /// fail (EADDRINUSE); then both are closed and a fresh pair tries a new
  /// port-0 choice, a bounded number of times. Also the tampering relay's
  /// (DNSSEC suite): a resolver's `forward-addr` names one port for both.
  static func openSamePort(firstPort: UInt16 = 0, attempts: Int = 8) throws
    -> (udp: Int32, tcp: Int32, port: UInt16)
  {
    var lastError = POSIXError(.EADDRINUSE)
    for attempt in 0..<attempts {
      let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = attempt == 0 ? firstPort.bigEndian : 0
      // TCP first: a free UDP port is often some TCP connection's local port
      // (TIME-WAIT ones included) when tests churn connections; the other
      // way round collides far less.
      var reuse: Int32 = 1
      setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
      do {
        try bind(tcp, &address)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(tcp, $0, &length) }
        }
        try bind(udp, &address)
        return (udp, tcp, UInt16(bigEndian: address.sin_port))
      } catch {
        close(udp)
        close(tcp)
        lastError = error
      }
    }
    throw lastError
  }

  private static func bind(_ fd: Int32, _ address: inout sockaddr_in) throws(POSIXError) {
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    if result != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
  }

  /// The UDP socket it serves on, for an attacker that sends from it: a
  /// forgery whose source address and port are perfectly the upstream's.
  var udpDescriptor: Int32 { udp }

  func stop() {
    lock.withLock { running = false }
    Thread.sleep(forTimeInterval: 0.15)
    close(udp)
    close(tcp)
  }

  private var isRunning: Bool { lock.withLock { running } }

  private func serveUDP() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while isRunning {
      let (count, from) = receiveDatagram(udp, into: &buffer)
      // A response (QR set) is nobody's question: answering it could start
      // an endless exchange with another server that answers everything.
      guard count >= 3, buffer[2] & 0x80 == 0 else { continue }
      lock.withLock {
        _udpQueries += 1
        _udpSourcePorts.append(UInt16(bigEndian: from.sin_port))
      }
      let query = Array(buffer[0..<count])
      let question = Self.questionName(query)
      lock.withLock { _udpQuestions.append(question) }
      let peer = from
      let behaviour = self.behaviour
      let replies = answers(to: query, overTCP: false, behaviour: behaviour)
      let send = { [udp] in
        for reply in replies {
          StubClient.sendDatagram(reply, from: udp, to: peer)
        }
      }
      if case .slow(let milliseconds) = behaviour {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
          send()
        }
      } else {
        send()
      }
    }
  }

  private func serveTCP() {
    while isRunning {
      let connection = accept(tcp, nil, nil)
      guard connection >= 0 else { continue }
      Thread.detachNewThread { [self] in serveConnection(connection) }
    }
  }

  private func serveConnection(_ fd: Int32) {
    defer { close(fd) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    while isRunning {
      guard let query = readFramedMessage(fd) else { return }
      lock.withLock { _tcpQueries += 1 }
      let behaviour = self.behaviour
      if case .resetting = behaviour {
        // l_onoff 1, l_linger 0: close(2) sends RST instead of FIN.
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        return
      }
      if case .slow(let milliseconds) = behaviour {
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
      }
      for reply in answers(to: query, overTCP: true, behaviour: behaviour) {
        let framed = framedMessage(reply)
        _ = framed.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      }
    }
  }

  /// The question name of `query`, lower-cased and dotted ("" if none).
  static func questionName(_ query: [UInt8]) -> String {
    var labels: [String] = []
    var offset = 12
    while offset < query.count, query[offset] != 0, query[offset] < 64 {
      let end = offset + 1 + Int(query[offset])
      guard end <= query.count else { break }
      labels.append(String(decoding: query[(offset + 1)..<end], as: UTF8.self).lowercased())
      offset = end
    }
    return labels.joined(separator: ".")
  }

  /// What this upstream sends back for `query` (possibly nothing, possibly
  /// a forgery first).
  func answers(to query: [UInt8], overTCP: Bool, behaviour: Behaviour) -> [[UInt8]] {
    guard let parsed = query.withUnsafeBytes({ try? Message(validating: $0) }),
      parsed.hasQuestion
    else { return [] }
    let (name, firstLabel) = nameAsked(in: query)
    switch behaviour {
    case .custom(let respond):
      return respond(query)
    case .silent:
      return []
    case .garbage:
      return [
        Array(query[0..<2]) + (0..<Int.random(in: 0...60)).map { _ in UInt8.random(in: 0...255) }
      ]
    case .wrongID:
      var reply = DNSAnswer.build(for: query, name: name, addresses: [answerAddress])
      reply[0] ^= 0x55
      return [reply]
    case .wrongQuestion:
      var other = name
      if other.count > 1 {
        other[1] = other[1] == UInt8(ascii: "z") ? UInt8(ascii: "y") : UInt8(ascii: "z")
      }
      return [DNSAnswer.build(for: query, name: other, addresses: [answerAddress])]
    case .forgedFirst:
      var forged = DNSAnswer.build(for: query, name: name, addresses: [(203, 0, 113, 66)])
      forged[1] ^= 0x33
      return [forged, DNSAnswer.build(for: query, name: name, addresses: [answerAddress])]
    case .truncating where !overTCP:
      return [DNSAnswer.build(for: query, name: name, addresses: [], truncated: true)]
    case .caseless:
      let lowered = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
      return [DNSAnswer.build(for: query, name: lowered, addresses: [answerAddress])]
    case .servFail:
      return [DNSAnswer.build(for: query, name: name, addresses: [], rcode: 2)]
    case .duplicated:
      let reply = DNSAnswer.build(for: query, name: name, addresses: [answerAddress])
      return [reply, reply]
    default:
      break
    }
    if firstLabel.hasPrefix("nx") {
      return [DNSAnswer.build(for: query, name: name, addresses: [], rcode: 3)]
    }
    if firstLabel.hasPrefix("chain") {
      return [DNSAnswer.buildChain(for: query, name: name, address: answerAddress)]
    }
    if firstLabel.hasPrefix("big") {
      let many = (0..<60).map { (UInt8(10), UInt8(0), UInt8(0), UInt8($0)) }
      return [DNSAnswer.build(for: query, name: name, addresses: many)]
    }
    return [DNSAnswer.build(for: query, name: name, addresses: [answerAddress])]
  }
}

/// The question name of `query` as it came (empty where it cannot be read),
/// and its first label in lower case: what the fake servers answer by.
func nameAsked(in query: [UInt8]) -> (name: [UInt8], firstLabel: String) {
  let name = query.withUnsafeBytes { bytes -> [UInt8] in
    var output = [UInt8](repeating: 0, count: 256)
    let length = output.withUnsafeMutableBytes {
      (try? Name.read(in: bytes, at: HeaderField.size, into: $0).length) ?? 0
    }
    return Array(output[0..<length])
  }
  let firstLabel = String(decoding: name.dropFirst().prefix(Int(name.first ?? 0)), as: UTF8.self)
    .lowercased()
  return (name, firstLabel)
}

/// Builds upstream answers the way a real server would: the query's header
/// and question echoed with QR and RA, records pointing at the question name.
enum DNSAnswer {
  static func header(for query: [UInt8], rcode: UInt8, answers: Int, truncated: Bool) -> [UInt8] {
    var header = Array(query[0..<12])
    header[2] = 0x80 | (query[2] & 0x79) | (truncated ? 0x02 : 0)  // QR, opcode, RD, TC
    header[3] = 0x80 | rcode  // RA
    header[4] = 0
    header[5] = 1
    header[6] = UInt8(answers >> 8)
    header[7] = UInt8(answers & 0xFF)
    header[8] = 0
    header[9] = 0
    header[10] = 0
    header[11] = 0
    return header
  }

  static func question(_ query: [UInt8], name: [UInt8]) -> [UInt8] {
    let parsed = query.withUnsafeBytes { try! Message(validating: $0) }
    let typeAndClass = Array(query[(parsed.questionEnd - 4)..<parsed.questionEnd])
    return name + typeAndClass
  }

  static func build(
    for query: [UInt8], name: [UInt8], addresses: [(UInt8, UInt8, UInt8, UInt8)],
    rcode: UInt8 = 0, truncated: Bool = false
  ) -> [UInt8] {
    var message = header(for: query, rcode: rcode, answers: addresses.count, truncated: truncated)
    message += question(query, name: name)
    for address in addresses {
      message += [0xC0, 0x0C, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x0E, 0x10, 0x00, 0x04]
      message += [address.0, address.1, address.2, address.3]
    }
    return message
  }

  /// NAME CNAME target.example. ; target.example. A address
  static func buildChain(for query: [UInt8], name: [UInt8], address: (UInt8, UInt8, UInt8, UInt8))
    -> [UInt8]
  {
    var message = header(for: query, rcode: 0, answers: 2, truncated: false)
    message += question(query, name: name)
    let target: [UInt8] = [6] + Array("target".utf8) + [7] + Array("example".utf8) + [0]
    message += [0xC0, 0x0C, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x0E, 0x10]
    message += [UInt8(target.count >> 8), UInt8(target.count & 0xFF)]
    let targetOffset = message.count
    message += target
    message += [0xC0 | UInt8(targetOffset >> 8), UInt8(targetOffset & 0xFF)]
    message += [0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x0E, 0x10, 0x00, 0x04]
    message += [address.0, address.1, address.2, address.3]
    return message
  }
}
