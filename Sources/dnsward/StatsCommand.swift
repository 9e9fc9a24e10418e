// `dnsward stats [--json] [ADDR]`: asks a running dnsward for its
// statistics — the `stats.dnsward. CH TXT` question its engine answers
// (Engine/Statistics/ChaosAnswers.swift) — and prints one `name value` line per statistic, in
// the server's order; with --json one JSON object (RFC 8259) instead:
// `{"queries": 6, ..., "upstreams": [{"answers": 5, "timeouts": 0, ...}]}`,
// each `upstreamN.key` statistic in the object at index N of `upstreams`.
//
//   ADDR   127.0.0.1 (port 53), 127.0.0.1:8053, ::1, [::1] or [::1]:8053;
//          127.0.0.1:53 when left out.
//
// The question goes over UDP with EDNS (payload 4096); a reply with TC=1 is
// asked again over TCP. No answer within 2 s per attempt: a message on
// stderr and exit status 1. Written for the firmware too: no Foundation and
// no String, only Platform's sockets and DNSWire's views.
import CompiledConfig
import DNSWire
import Platform

enum StatsCommand {
  static let defaultPort: UInt16 = 53
  static let timeoutMilliseconds: UInt64 = 2000
  static let payloadSize: UInt16 = 4096
  /// `stats.dnsward.` in wire form.
  static let question: [UInt8] = [
    5, 0x73, 0x74, 0x61, 0x74, 0x73,  // "stats"
    7, 0x64, 0x6E, 0x73, 0x77, 0x61, 0x72, 0x64,  // "dnsward"
    0,
  ]

  enum Failure: Error {
    case timeout
    case system(Errno)
    /// The server closed the TCP connection before the whole reply came.
    case closed
  }

  /// Runs the command and returns the exit status.
  static func run(_ arguments: ArraySlice<[UInt8]>) -> Int32 {
    let log = LogLine(threshold: .error)
    var target = SocketAddress(ipv4: 0x7F00_0001, port: defaultPort)
    var arguments = arguments
    let json = arguments.first.map { isFlag($0, "--json") } ?? false
    if json { arguments = arguments.dropFirst() }
    if let text = arguments.first {
      guard arguments.count == 1, let parsed = parseTarget(text) else {
        log.start(.error).append("stats: not an address: ").append(arguments.first ?? [])
          .append(" (expected 127.0.0.1:53, [::1]:8053, ...)").emit(.error)
        return 2
      }
      target = parsed
    }
    // Allocated once for the life of the command: the query with two bytes
    // of headroom for the TCP length, and room for the largest reply and
    // its length.
    let queryBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 + 64, alignment: 8)
    let replyBuffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: 2 + Int(UInt16.max), alignment: 8)
    defer {
      queryBuffer.deallocate()
      replyBuffer.deallocate()
    }
    let id = UInt16(truncatingIfNeeded: SecureRandom().nextUInt64())
    let queryLength = writeQuery(
      id: id, into: UnsafeMutableRawBufferPointer(rebasing: queryBuffer[2...]))
    queryBuffer.setUInt16(UInt16(queryLength), at: 0)
    let framed = UnsafeRawBufferPointer(rebasing: queryBuffer[0..<(2 + queryLength)])
    var reply: UnsafeRawBufferPointer
    do throws(Failure) {
      reply = try exchangeUDP(
        UnsafeRawBufferPointer(rebasing: framed[2...]), id: id, with: target,
        buffer: replyBuffer)
      if HeaderFlags(rawValue: reply.getUInt16(at: HeaderField.flags))
        .has(HeaderFlags.truncated)
      {
        reply = try exchangeTCP(framed, id: id, with: target, buffer: replyBuffer)
      }
    } catch {
      let line = log.start(.error).append("stats: ")
      switch error {
      case .timeout:
        line.append("no answer from ").append(address: target).append(" within 2 s")
      case .system(let code):
        line.append("cannot ask ").append(address: target).append(": ").append(errno: code)
      case .closed:
        line.append(address: target).append(" closed the connection")
      }
      line.emit(.error)
      return 1
    }
    return printStatistics(reply, from: target, json: json, log: log)
  }

  // MARK: - The address

  /// `a.b.c.d[:port]`, `[v6][:port]` or a bare IPv6 address.
  static func parseTarget(_ text: [UInt8]) -> SocketAddress? {
    let colon = UInt8(ascii: ":")
    var host = text[...]
    var port = defaultPort
    if text.first == UInt8(ascii: "[") {
      guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return nil }
      host = text[1..<close]
      let rest = text[(close + 1)...]
      if !rest.isEmpty {
        guard rest.first == colon, let value = parsePort(rest.dropFirst()) else { return nil }
        port = value
      }
    } else {
      var colons = 0
      for byte in text where byte == colon { colons += 1 }
      if colons == 1, let separator = text.firstIndex(of: colon) {
        host = text[..<separator]
        guard let value = parsePort(text[(separator + 1)...]) else { return nil }
        port = value
      }
    }
    guard let address = try? AddressText.parse(host) else { return nil }
    return SocketAddress(
      high: address.high, low: address.low, port: port, isIPv6: !address.isIPv4)
  }

  static func parsePort(_ digits: ArraySlice<UInt8>) -> UInt16? {
    guard digits.count <= 5, let value = AddressText.decimal(digits), value >= 1,
      value <= 65535
    else { return nil }
    return UInt16(value)
  }

  // MARK: - The query

  /// `stats.dnsward. CH TXT`, RD clear, with an OPT offering 4096 bytes.
  /// Returns its length.
  static func writeQuery(id: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    var writer = MessageWriter(buffer: buffer)
    do throws(WireError) {
      try writer.writeHeader(id: id, flags: HeaderFlags(rawValue: 0), questions: 1, additionals: 1)
      for byte in question { try writer.writeUInt8(byte) }
      try writer.writeUInt16(RRType.txt.rawValue)
      try writer.writeUInt16(RRClass.chaos.rawValue)
      try writer.writeOPT(udpPayloadSize: payloadSize)
    } catch {
      preconditionFailure("the stats query fits in 64 bytes")
    }
    return writer.count
  }

  /// Whether `reply` answers our query: QR set, our ID, our question.
  static func answers(_ reply: UnsafeRawBufferPointer, id: UInt16) -> Bool {
    guard reply.count >= HeaderField.size + question.count + 4,
      reply.getUInt16(at: HeaderField.id) == id,
      HeaderFlags(rawValue: reply.getUInt16(at: HeaderField.flags)).isResponse,
      reply.getUInt16(at: HeaderField.questionCount) == 1
    else { return false }
    for index in 0..<question.count
    where Name.asciiLowercased(reply[HeaderField.size + index]) != question[index] {
      return false
    }
    let fields = HeaderField.size + question.count
    return reply.getUInt16(at: fields) == RRType.txt.rawValue
      && reply.getUInt16(at: fields + 2) == RRClass.chaos.rawValue
  }

  // MARK: - UDP, then TCP

  /// A UDP or TCP socket for `target`'s family.
  static func openSocket(for target: SocketAddress, tcp: Bool) throws(Failure) -> FileDescriptor {
    do throws(Errno) {
      return try tcp ? Socket.tcp(for: target) : Socket.udp(for: target)
    } catch {
      throw .system(error)
    }
  }

  /// Sends `query` over UDP and returns the first datagram that answers
  /// it, in `buffer`.
  static func exchangeUDP(
    _ query: UnsafeRawBufferPointer, id: UInt16, with target: SocketAddress,
    buffer: UnsafeMutableRawBufferPointer
  ) throws(Failure) -> UnsafeRawBufferPointer {
    let deadline = MonotonicClock.nowMilliseconds() + timeoutMilliseconds
    let poller = try Poller()
    defer { poller.close() }
    let fd = try openSocket(for: target, tcp: false)
    defer { fd.close() }
    do throws(Errno) {
      // Connected: the kernel drops datagrams from anyone else.
      _ = try Socket.connect(fd, to: target)
      // A fresh socket's buffer is empty: the datagram goes out whole.
      _ = try Socket.send(fd, query)
    } catch {
      throw .system(error)
    }
    try poller.watch(fd, events: Epoll.readable)
    while true {
      try poller.wait(until: deadline)
      while true {
        let received: (count: Int, truncated: Bool, from: SocketAddress)?
        do throws(Errno) {
          received = try Socket.receive(fd, into: buffer)
        } catch {
          // ICMP port unreachable: nobody listens there.
          throw .system(error)
        }
        guard let received else { break }
        let reply = UnsafeRawBufferPointer(rebasing: buffer[0..<received.count])
        if !received.truncated && answers(reply, id: id) { return reply }
      }
    }
  }

  /// Sends the length-prefixed `framed` query over TCP and returns the
  /// reply, in `buffer`.
  static func exchangeTCP(
    _ framed: UnsafeRawBufferPointer, id: UInt16, with target: SocketAddress,
    buffer: UnsafeMutableRawBufferPointer
  ) throws(Failure) -> UnsafeRawBufferPointer {
    let deadline = MonotonicClock.nowMilliseconds() + timeoutMilliseconds
    let poller = try Poller()
    defer { poller.close() }
    let fd = try openSocket(for: target, tcp: true)
    defer { fd.close() }
    var connected = false
    do throws(Errno) {
      connected = try Socket.connect(fd, to: target)
    } catch {
      throw .system(error)
    }
    try poller.watch(fd, events: Epoll.writable)
    if !connected {
      try poller.wait(until: deadline)
      if let error = Socket.pendingError(fd) { throw .system(error) }
    }
    // RFC 1035 §4.2.2: a two-byte length, then the message.
    var sent = 0
    while sent < framed.count {
      let count: Int?
      do throws(Errno) {
        count = try Socket.send(fd, UnsafeRawBufferPointer(rebasing: framed[sent...]))
      } catch {
        throw .system(error)
      }
      if let count { sent += count } else { try poller.wait(until: deadline) }
    }
    try poller.change(fd, events: Epoll.readable)
    var filled = 0
    while true {
      let view = UnsafeRawBufferPointer(buffer)
      let wanted = filled >= 2 ? 2 + Int(view.getUInt16(at: 0)) : 2
      if filled >= wanted {
        let reply = UnsafeRawBufferPointer(rebasing: view[2..<wanted])
        // Anything else on our own connection is not worth waiting for.
        guard answers(reply, id: id) else { throw .closed }
        return reply
      }
      let count: Int?
      do throws(Errno) {
        count = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<wanted]))
      } catch {
        throw .system(error)
      }
      guard let count else {
        try poller.wait(until: deadline)
        continue
      }
      guard count > 0 else { throw .closed }
      filled += count
    }
  }

  /// One epoll instance for one descriptor: waits with a deadline.
  struct Poller: ~Copyable {
    let epoll: Epoll

    init() throws(Failure) {
      do throws(Errno) {
        epoll = try Epoll()
      } catch {
        throw .system(error)
      }
    }

    func watch(_ fd: FileDescriptor, events: UInt32) throws(Failure) {
      do throws(Errno) {
        try epoll.add(fd, events: events, token: 0)
      } catch {
        throw .system(error)
      }
    }

    func change(_ fd: FileDescriptor, events: UInt32) throws(Failure) {
      do throws(Errno) {
        try epoll.modify(fd, events: events, token: 0)
      } catch {
        throw .system(error)
      }
    }

    /// Returns once the descriptor is ready; throws `.timeout` at `deadline`.
    func wait(until deadline: UInt64) throws(Failure) {
      while true {
        let now = MonotonicClock.nowMilliseconds()
        guard now < deadline else { throw .timeout }
        let ready: Int
        do throws(Errno) {
          ready = try epoll.wait(timeoutMilliseconds: Int32(deadline - now))
        } catch {
          throw .system(error)
        }
        if ready > 0 { return }
      }
    }

    func close() { epoll.descriptor.close() }
  }

  // MARK: - Output

  /// Prints `name value` for each `name=value` TXT string of the answer
  /// (a string without `=` is printed as it is), or with `json` the JSON
  /// object. Returns the exit status.
  static func printStatistics(
    _ raw: UnsafeRawBufferPointer, from target: SocketAddress, json: Bool, log: LogLine
  ) -> Int32 {
    guard let message = try? Message(validating: raw, allowTrailingData: true) else {
      log.start(.error).append("stats: ").append(address: target)
        .append(" sent a malformed reply").emit(.error)
      return 1
    }
    guard message.rcode == .noError else {
      log.start(.error).append("stats: ").append(address: target).append(" answered rcode ")
        .append(decimal: UInt64(message.rcode.rawValue))
      if message.rcode == .refused { log.append(" (REFUSED: is this host in its allow list?)") }
      log.emit(.error)
      return 1
    }
    var text: [UInt8] = []
    var object = StatisticsJSON()
    var records = message.records()
    var index = 0
    while let record = records.next(), index < message.answerCount {
      index += 1
      guard record.type == .txt, record.rrClass == .chaos else { continue }
      // RDATA: one or more <character-string>s (RFC 1035 §3.3.14).
      var position = record.rdataOffset
      let end = record.rdataOffset + record.rdataLength
      while position < end {
        let stringEnd = min(position + 1 + Int(raw[position]), end)
        let string = UnsafeRawBufferPointer(rebasing: raw[(position + 1)..<stringEnd])
        let separator = string.firstIndex(of: UInt8(ascii: "=")) ?? string.count
        let name = UnsafeRawBufferPointer(rebasing: string[0..<separator])
        let value = UnsafeRawBufferPointer(
          rebasing: string[min(separator + 1, string.count)..<string.count])
        if json {
          object.add(name: name, value: value)
        } else {
          text.append(contentsOf: name)
          if separator < string.count {
            text.append(UInt8(ascii: " "))
            text.append(contentsOf: value)
          }
          text.append(0x0A)
        }
        position = stringEnd
      }
    }
    object.finish()
    writeAll(json ? object.bytes : text, to: FileDescriptor(rawValue: 1))
    return 0
  }

  static func writeAll(_ bytes: [UInt8], to fd: FileDescriptor) {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { raw in
        (try? fd.write(UnsafeRawBufferPointer(rebasing: raw[written...]))) ?? nil
      }
      guard let count, count > 0 else { return }
      written += count
    }
  }
}
