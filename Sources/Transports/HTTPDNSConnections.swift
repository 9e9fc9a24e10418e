import CompiledConfig
import DNSWire
import Engine
import HTTPDNS
import Platform

/// One HTTP upstream connection's life in the loop: connect, TLS handshake
/// (DoH), the request written, the response read and framed, its DNS form
/// handed to the engine.
extension HTTPDNSUpstreamPool {
  /// Opens a fresh connection for connection `index`'s request.
  func open(_ index: Int, now: UInt64) -> Bool {
    let address = context.upstreamAddresses[connections[index].upstream]
    guard let fd = try? Socket.tcp(for: address) else { return false }
    let generation = connections[index].generation &+ 1
    let connected: Bool
    do {
      connected = try Socket.connect(fd, to: address)
      try context.epoll.add(
        fd, events: Epoll.readable | Epoll.writable,
        token: Token.make(.upstreamHTTP, slot: index, generation: generation))
    } catch {
      logConnectFailure(index, errno: error)
      fd.close()
      return false
    }
    guard channels.start(slot: index, fd: fd) else {
      fd.close()
      return false
    }
    Socket.setNoDelay(fd)
    connections[index].fd = fd
    connections[index].generation = generation
    connections[index].reused = false
    connections[index].state = .connecting
    if connected { established(index, now: now) }
    return true
  }

  /// The TCP connection is up: on to the TLS handshake, or straight to the
  /// request.
  func established(_ index: Int, now: UInt64) {
    if channels.isSecure(index) {
      connections[index].state = .handshaking
      handshake(index, now: now)
    } else {
      connections[index].state = .busy
      flush(index)
    }
  }

  /// Advances a DoH connection's handshake; once established the request
  /// goes out. The socket waits only for what the handshake needs.
  func handshake(_ index: Int, now: UInt64) {
    let events: UInt32
    switch channels.handshake(slot: index, now: now) {
    case .established:
      connections[index].state = .busy
      flush(index)
      return
    case .waitReadable: events = Epoll.readable
    case .waitWritable: events = Epoll.readable | Epoll.writable
    case .refused:
      connections[index].failed = true
      return
    }
    try? context.epoll.modify(
      connections[index].fd, events: events,
      token: Token.make(.upstreamHTTP, slot: index, generation: connections[index].generation))
  }

  func flush(_ index: Int) {
    let request = requests[index]
    var waitWritable = false
    while connections[index].written < connections[index].requestLength {
      let start = connections[index].written
      let step = channels.send(
        slot: index, fd: connections[index].fd,
        UnsafeRawBufferPointer(rebasing: request[start..<connections[index].requestLength]))
      guard case .moved(let sent) = step else {
        if step == .failed || step == .ended {
          connections[index].failed = true
          return
        }
        waitWritable = step == .waitWritable
        break
      }
      connections[index].written += sent
    }
    let events = waitWritable ? Epoll.readable | Epoll.writable : Epoll.readable
    try? context.epoll.modify(
      connections[index].fd, events: events,
      token: Token.make(.upstreamHTTP, slot: index, generation: connections[index].generation))
  }

  func handle(
    event: UInt32, index: Int, generation: UInt32, now: UInt64, environment: inout LoopEnvironment
  ) {
    guard index < count, connections[index].fd.isValid,
      connections[index].generation == generation
    else { return }
    connections[index].lastActivity = now
    if connections[index].state == .connecting {
      guard event & (Epoll.writable | Epoll.hangup) != 0 else { return }
      if let error = Socket.pendingError(connections[index].fd) {
        logConnectFailure(index, errno: error)
        connections[index].failed = true
        return
      }
      established(index, now: now)
      if connections[index].state != .busy { return }
    } else if connections[index].state == .handshaking {
      handshake(index, now: now)
      if connections[index].state != .busy { return }
    } else if event & Epoll.writable != 0 {
      flush(index)
    }
    if event & (Epoll.readable | Epoll.hangup) != 0 || channels.isSecure(index) {
      read(index, now: now, environment: &environment)
    }
  }

  func read(_ index: Int, now: UInt64, environment: inout LoopEnvironment) {
    let response = responses[index]
    while connections[index].fd.isValid && !connections[index].failed {
      let filled = connections[index].received
      guard filled < Self.responseCapacity else {
        connections[index].failed = true
        context.statistics[.httpdnsErrors] += 1
        return
      }
      let step = channels.receive(
        slot: index, fd: connections[index].fd,
        into: UnsafeMutableRawBufferPointer(rebasing: response[filled...]))
      let received: Int
      switch step {
      case .moved(let count): received = count
      case .ended: received = 0
      case .waitReadable: return
      case .waitWritable:
        try? context.epoll.modify(
          connections[index].fd, events: Epoll.readable | Epoll.writable,
          token: Token.make(.upstreamHTTP, slot: index, generation: connections[index].generation))
        return
      case .failed:
        connections[index].failed = true
        return
      }
      let closed = received == 0
      if closed && filled == 0 && connections[index].state == .busy {
        // Closed before a byte of answer: a kept-alive connection the
        // server timed out (processBroken sends the request again), or a
        // server that hung up (the attempt fails over); no HTTP error.
        connections[index].failed = true
        return
      }
      connections[index].received += received
      guard connections[index].state == .busy else {
        // Still connecting: the connect failed. Idle: the server closed it,
        // or sent bytes nobody asked for; it is of no more use.
        if connections[index].state == .connecting || connections[index].state == .handshaking {
          connections[index].failed = true
        } else {
          close(index)
        }
        return
      }
      let frame: (length: Int, keepAlive: Bool)?
      do throws(HTTPDNSError) {
        frame = try HTTPDNSCodec.frame(
          UnsafeRawBufferPointer(rebasing: response[0..<connections[index].received]),
          connectionClosed: closed)
      } catch {
        connections[index].failed = true
        context.statistics[.httpdnsErrors] += 1
        return
      }
      if let frame {
        deliver(
          index, length: frame.length, keepAlive: frame.keepAlive && !closed,
          now: now, environment: &environment)
        return
      }
      if closed {
        connections[index].failed = true
        return
      }
    }
  }

  /// Hands the DNS form of a complete response to the engine. The
  /// connection is made idle (or closed) first, so that the engine's
  /// `releaseUpstream` for this transaction finds nothing left to cancel.
  func deliver(
    _ index: Int, length: Int, keepAlive: Bool, now: UInt64, environment: inout LoopEnvironment
  ) {
    let transaction = connections[index].transaction
    let upstream = connections[index].upstream
    let query = UnsafeRawBufferPointer(
      rebasing: queries[index][0..<connections[index].queryLength])
    let response = UnsafeRawBufferPointer(rebasing: responses[index][0..<length])
    let dnsLength: Int
    do throws(HTTPDNSError) {
      dnsLength = try HTTPDNSCodec.writeDNSResponse(
        to: query, httpResponse: response, format: context.engine.upstreams[upstream].httpdnsFormat,
        into: dnsResponse)
    } catch {
      context.statistics[.httpdnsErrors] += 1
      connections[index].failed = true
      return
    }
    // One request at a time: anything after the response is not ours.
    if keepAlive && connections[index].received == length {
      connections[index].state = .idle
      connections[index].received = 0
    } else {
      close(index)
    }
    context.engine.handleUpstreamReply(
      UnsafeRawBufferPointer(rebasing: dnsResponse[0..<dnsLength]), transaction: transaction,
      upstream: upstream, from: Endpoint(context.upstreamAddresses[upstream]), now: now,
      environment: &environment)
  }

  /// `httpdns upstream 223.5.5.5:80: connect failed, errno 111` (debug: the
  /// attempt fails over and the upstream's failures count it).
  func logConnectFailure(_ index: Int, errno: Errno) {
    let log = context.log
    guard log.enabled(.debug) else { return }
    log.start(.debug).append("httpdns upstream ")
      .append(address: context.upstreamAddresses[connections[index].upstream])
      .append(": connect failed, errno ").append(decimal: Int(errno.rawValue)).emit(.debug)
  }
}
