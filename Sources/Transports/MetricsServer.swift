import CompiledConfig
import Engine
import Platform

// Left out of a firmware built with -DDNSWARD_METRICS=OFF (MetricsUnavailable.swift).
#if !DNSWARD_NO_METRICS

  /// `metrics ADDRESS:PORT`: the Prometheus text format (MetricsText.swift)
  /// over HTTP/1.1, served from the loop. `GET /metrics` gets the figures of
  /// every worker added up (MetricsBoard.swift); another path gets 404,
  /// another method 405, a client outside `allow` 403, and each response
  /// closes its connection (`Connection: close`).
  ///
  /// Worker 0 alone listens; every worker publishes its figures to the board
  /// once a second (`housekeeping`), and worker 0 its own again just before
  /// it answers. Nothing blocks and nothing is allocated after `init`: at
  /// most `connectionLimit` scrapes at once (another is closed at once), each
  /// with a request buffer and a response buffer sized at start-up for the
  /// upstreams; a response the socket cannot take at once is continued on
  /// EPOLLOUT; a scrape not done within `timeoutMilliseconds` is closed.
  final class MetricsServer {
    struct Connection {
      var fd = FileDescriptor.invalid
      var generation: UInt32 = 0
      var openedAt: UInt64 = 0
      var peer = SocketAddress(ipv4: 0, port: 0)
      var readCount = 0
      /// The response being sent: bytes `sendOffset..<sendEnd` of the slot's
      /// response buffer; `sendEnd` 0 while the request is read.
      var sendOffset = 0
      var sendEnd = 0
    }

    static let connectionLimit = 2
    /// A request head longer than this closes the connection (a scraper's
    /// is a few hundred bytes).
    static let requestCapacity = 2048
    static let timeoutMilliseconds: UInt64 = 5000
    /// Bytes before the body kept for the status line and headers.
    static let headerRoom = 192
    /// The body without upstreams is about 12 KB (HELP, TYPE and a sample for
    /// each `Statistic`, about 150 bytes each, and the histogram); each
    /// upstream adds five samples of at most about 120 bytes (a 37-byte name,
    /// the longest IPv6 address and port in its label, a 20-digit value). A
    /// body past the buffer gets 500.
    static let bodyBase = 16 * 1024
    static let bodyPerUpstream = 640

    let context: LoopContext
    let board: MetricsBoard
    let worker: Int
    /// Invalid in every worker but 0.
    let listener: FileDescriptor
    /// Formats the upstreams' addresses for their labels (LogLine's
    /// address text, never written to the log).
    let formatter = LogLine(threshold: .error)
    let startedAt: UInt64
    let connections: UnsafeMutablePointer<Connection>
    let requests: SlotBuffer
    let responses: SlotBuffer
    var inUse = 0

    init(
      setup: MetricsSetup, worker: Int, context: LoopContext
    ) {
      self.context = context
      board = setup.board
      self.worker = worker
      startedAt = MonotonicClock.nowMilliseconds()
      let serves = worker == 0
      if serves {
        listener = setup.listener
      } else {
        setup.listener.close()
        listener = .invalid
      }
      let slots = serves ? Self.connectionLimit : 0
      connections = .allocate(capacity: Self.connectionLimit)
      connections.initialize(repeating: Connection(), count: Self.connectionLimit)
      requests = SlotBuffer(count: slots, stride: Self.requestCapacity)
      responses = SlotBuffer(
        count: slots,
        stride: Self.headerRoom + Self.bodyBase + Self.bodyPerUpstream * setup.board.upstreams)
      if serves {
        try? context.epoll.add(
          listener, events: Epoll.readable, token: Token.make(.metricsListener, slot: 0))
      }
    }

    deinit {
      connections.deinitialize(count: Self.connectionLimit)
      connections.deallocate()
    }

    /// Copies this worker's figures to the board.
    func publish() {
      board.publish(worker: worker, engine: context.engine)
    }

    /// Once a second: publish, and close scrapes that took too long.
    func housekeeping(now: UInt64) {
      publish()
      for slot in 0..<requests.count where connections[slot].fd.isValid {
        if now &- connections[slot].openedAt >= Self.timeoutMilliseconds { close(slot: slot) }
      }
    }

    /// An event on the listener or a connection (`Token.metricsListener`,
    /// `.metricsClient`).
    func handle(event: UInt32, token: UInt64, now: UInt64) {
      guard Token.kind(token) == .metricsClient else {
        accept(now: now)
        return
      }
      let slot = Token.slot(token)
      guard slot < requests.count, connections[slot].fd.isValid,
        connections[slot].generation == Token.generation(token)
      else { return }
      if connections[slot].sendEnd > 0 {
        if event & (Epoll.writable | Epoll.hangup) != 0 { send(slot: slot) }
      } else if event & (Epoll.readable | Epoll.hangup) != 0 {
        read(slot: slot)
      }
    }

    private func accept(now: UInt64) {
      for _ in 0..<LoopContext.batchLimit {
        guard let (fd, peer) = try? Socket.accept(listener) else { return }
        var free = -1
        for slot in 0..<requests.count where !connections[slot].fd.isValid { free = slot }
        guard free >= 0 else {
          fd.close()
          continue
        }
        connections[free].generation &+= 1
        let token = Token.make(
          .metricsClient, slot: free, generation: connections[free].generation)
        guard (try? context.epoll.add(fd, events: Epoll.readable, token: token)) != nil else {
          fd.close()
          continue
        }
        connections[free].fd = fd
        connections[free].peer = peer
        connections[free].openedAt = now
        connections[free].readCount = 0
        connections[free].sendOffset = 0
        connections[free].sendEnd = 0
        inUse += 1
      }
    }

    /// Reads until the end of the request head, then answers.
    private func read(slot: Int) {
      let buffer = requests[slot]
      let count = connections[slot].readCount
      let received: Int?
      do throws(Errno) {
        guard count < buffer.count else { throw Errno(rawValue: 0) }
        received = try connections[slot].fd.read(
          into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
      } catch {
        close(slot: slot)
        return
      }
      guard let received else { return }
      guard received > 0 else {
        close(slot: slot)
        return
      }
      connections[slot].readCount += received
      let request = UnsafeRawBufferPointer(rebasing: buffer[0..<(count + received)])
      guard Self.headEnds(request) else { return }
      answer(slot: slot, request: request)
    }

    /// Whether `request` holds a blank line: the end of an HTTP head
    /// (RFC 9112 §2.1), CRLF or a bare LF (§2.2).
    static func headEnds(_ request: UnsafeRawBufferPointer) -> Bool {
      let lineFeed = UInt8(ascii: "\n")
      let carriageReturn = UInt8(ascii: "\r")
      for index in 0..<request.count where request[index] == lineFeed {
        if index + 1 < request.count, request[index + 1] == lineFeed { return true }
        if index + 2 < request.count, request[index + 1] == carriageReturn,
          request[index + 2] == lineFeed
        {
          return true
        }
      }
      return false
    }

    enum Route { case metrics, notFound, wrongMethod, forbidden, badRequest }

    /// What a request head asks for: the method and the path of its request
    /// line (RFC 9112 §3), the query part ignored.
    static func route(_ request: UnsafeRawBufferPointer) -> Route {
      guard let space = request.firstIndex(of: UInt8(ascii: " ")) else { return .badRequest }
      let get: StaticString = "GET"
      guard Self.equals(request[0..<space], get) else { return .wrongMethod }
      var end = space + 1
      while end < request.count, request[end] != UInt8(ascii: " "),
        request[end] != UInt8(ascii: "?"),
        request[end] != UInt8(ascii: "\r"), request[end] != UInt8(ascii: "\n")
      {
        end += 1
      }
      let path: StaticString = "/metrics"
      return Self.equals(request[(space + 1)..<end], path) ? .metrics : .notFound
    }

    static func equals(_ bytes: Slice<UnsafeRawBufferPointer>, _ text: StaticString) -> Bool {
      bytes.elementsEqual(
        UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private func answer(slot: Int, request: UnsafeRawBufferPointer) {
      var route = Self.route(request)
      if !context.engine.defences.isAllowed(Endpoint(connections[slot].peer).address) {
        route = .forbidden
      }
      let response = responses[slot]
      var body = MetricsText(
        buffer: UnsafeMutableRawBufferPointer(rebasing: response[Self.headerRoom...]))
      // An error's body is its status line's reason.
      var status: StaticString
      switch route {
      case .metrics: status = "200 OK"
      case .notFound: status = "404 Not Found"
      case .wrongMethod: status = "405 Method Not Allowed"
      case .forbidden: status = "403 Forbidden"
      case .badRequest: status = "400 Bad Request"
      }
      if case .metrics = route {
        publish()
        body.appendAll(
          board: board, engine: context.engine, addresses: context.upstreamAddresses,
          formatter: formatter,
          uptimeSeconds: (MonotonicClock.nowMilliseconds() &- startedAt) / 1000)
        if body.overflowed {
          // Not expected: the buffer is sized for the upstreams.
          status = "500 Internal Server Error"
          body = MetricsText(
            buffer: UnsafeMutableRawBufferPointer(rebasing: response[Self.headerRoom...]))
        }
      }
      if body.count == 0 {
        body.append(status)
        body.append("\n")
      }
      var head = MetricsText(
        buffer: UnsafeMutableRawBufferPointer(rebasing: response[0..<Self.headerRoom]))
      head.append("HTTP/1.1 ")
      head.append(status)
      head.append("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: ")
      head.append(decimal: UInt64(body.count))
      if case .wrongMethod = route { head.append("\r\nAllow: GET") }
      head.append("\r\nConnection: close\r\n\r\n")
      let start = Self.headerRoom - head.count
      (response.baseAddress! + start).copyMemory(from: response.baseAddress!, byteCount: head.count)
      connections[slot].sendOffset = start
      connections[slot].sendEnd = Self.headerRoom + body.count
      send(slot: slot)
    }

    /// Sends what the socket takes; the rest on EPOLLOUT; closes when done.
    private func send(slot: Int) {
      let response = responses[slot]
      let offset = connections[slot].sendOffset
      let end = connections[slot].sendEnd
      let sent: Int?
      do throws(Errno) {
        sent = try Socket.send(
          connections[slot].fd, UnsafeRawBufferPointer(rebasing: response[offset..<end]))
      } catch {
        close(slot: slot)
        return
      }
      guard let sent else {
        let token = Token.make(
          .metricsClient, slot: slot, generation: connections[slot].generation)
        try? context.epoll.modify(connections[slot].fd, events: Epoll.writable, token: token)
        return
      }
      connections[slot].sendOffset += sent
      if connections[slot].sendOffset >= end {
        close(slot: slot)
      } else if sent > 0 {
        let token = Token.make(
          .metricsClient, slot: slot, generation: connections[slot].generation)
        try? context.epoll.modify(connections[slot].fd, events: Epoll.writable, token: token)
      }
    }

    func close(slot: Int) {
      guard connections[slot].fd.isValid else { return }
      connections[slot].fd.close()
      connections[slot].fd = .invalid
      inUse -= 1
    }

    func closeAll() {
      for slot in 0..<requests.count { close(slot: slot) }
      listener.close()
    }
  }
#endif
