import CompiledConfig
import DNSWire
import Engine
import Platform

/// One persistent TCP connection per upstream (RFC 7766 §6.2.1): opened on
/// first use, queries pipelined with their 2-byte length, replies matched by
/// ID in the engine, closed after a minute without traffic. A `tls`
/// upstream's connection is the same over TLS (DoT, RFC 7858 §3.3), its
/// queries padded to 128-octet blocks (RFC 8467 §4.1).
final class TCPUpstreamPool {
  enum State: UInt8 { case closed, connecting, handshaking, connected }
  struct Connection {
    var fd = FileDescriptor.invalid
    var state = State.closed
    var writeCount = 0
    var readCount = 0
    var lastActivity: UInt64 = 0
    /// Set when a send failed inside an engine call; the engine hears of it
    /// after that call returns (it must not be re-entered).
    var broken = false
  }

  /// Queries waiting to be written; a query is at most 300 octets.
  static let writeCapacity = 16 * 1024
  /// One whole reply: 2-byte length plus up to 65535 octets.
  static let readCapacity = 2 + 65535
  static let idleMilliseconds: UInt64 = 60_000

  let count: Int
  let connections: UnsafeMutablePointer<Connection>
  /// Per upstream: the queries waiting to be written, and the reply being
  /// read.
  let writeBuffers: SlotBuffer
  let readBuffers: SlotBuffer
  /// TLS sessions of the `tls` upstreams (slot = upstream).
  let channels: SecureChannels

  let context: LoopContext

  init(upstreams: [UpstreamServer], setup: TLSSetup, context: LoopContext)
    throws(TLSSetup.Failure)
  {
    let count = upstreams.count
    self.count = count
    self.context = context
    channels = try SecureChannels(
      slotUpstreams: Array(0..<count), upstreams: upstreams, secure: .tls, setup: setup,
      context: context)
    connections = .allocate(capacity: max(count, 1))
    connections.initialize(repeating: Connection(), count: max(count, 1))
    // Only upstreams that can be reached over TCP need the buffers, but any
    // UDP upstream may be retried over TCP after a truncated answer.
    writeBuffers = SlotBuffer(count: count, stride: Self.writeCapacity)
    readBuffers = SlotBuffer(count: count, stride: Self.readCapacity)
  }

  /// The sockets are closed by `closeAll` (the server's shutdown); this
  /// frees the memory.
  deinit {
    connections.deinitialize(count: max(count, 1))
    connections.deallocate()
  }

  /// Queues a framed query and writes what the socket takes; connects first
  /// if needed. False when the query cannot be queued.
  func send(framed: UnsafeMutableRawBufferPointer, upstream: Int) -> Bool {
    guard !connections[upstream].broken else { return false }
    if connections[upstream].state == .closed {
      let now = MonotonicClock.nowMilliseconds()
      guard channels.mayConnect(upstream: upstream, now: now),
        open(upstream: upstream, now: now)
      else { return false }
    }
    let queued = connections[upstream].writeCount
    let room = Self.writeCapacity - queued
    guard framed.count + (channels.isSecure(upstream) ? EDNSPadding.maximumQueryGrowth : 0) <= room
    else { return false }
    let slot = UnsafeMutableRawBufferPointer(rebasing: writeBuffers[upstream][queued...])
    slot.baseAddress!.copyMemory(from: framed.baseAddress!, byteCount: framed.count)
    var length = framed.count - 2
    if channels.isSecure(upstream) {
      // RFC 8467 §4.1: on an encrypted channel, query sizes say less
      // about the name when padded to 128-octet blocks.
      length =
        EDNSPadding.padQuery(
          UnsafeMutableRawBufferPointer(rebasing: slot[2...]), length: length) ?? length
    }
    slot.setUInt16(UInt16(length), at: 0)
    connections[upstream].writeCount += 2 + length
    if connections[upstream].state == .connected { flush(upstream: upstream) }
    return !connections[upstream].broken
  }

  private func open(upstream: Int, now: UInt64) -> Bool {
    let address = context.upstreamAddresses[upstream]
    guard let fd = try? Socket.tcp(for: address) else { return false }
    let connected: Bool
    do {
      connected = try Socket.connect(fd, to: address)
      try context.epoll.add(
        fd, events: Epoll.readable | Epoll.writable,
        token: Token.make(.upstreamTCP, slot: upstream))
    } catch {
      fd.close()
      return false
    }
    guard channels.start(slot: upstream, fd: fd) else {
      fd.close()
      return false
    }
    Socket.setNoDelay(fd)
    let ready: State = channels.isSecure(upstream) ? .handshaking : .connected
    connections[upstream] = Connection(
      fd: fd, state: connected ? ready : .connecting, writeCount: 0, readCount: 0,
      lastActivity: now, broken: false)
    if connected && ready == .handshaking {
      handshake(upstream: upstream, now: now)
    }
    return !connections[upstream].broken
  }

  /// Advances a DoT handshake; once established, the queries queued
  /// meanwhile go out. The socket waits only for what the handshake needs
  /// (epoll is level-triggered: a writable wait with nothing to write
  /// would spin).
  private func handshake(upstream: Int, now: UInt64) {
    let events: UInt32
    switch channels.handshake(slot: upstream, now: now) {
    case .established:
      connections[upstream].state = .connected
      flush(upstream: upstream)
      return
    case .waitReadable: events = Epoll.readable
    case .waitWritable: events = Epoll.readable | Epoll.writable
    case .refused:
      connections[upstream].broken = true
      return
    }
    try? context.epoll.modify(
      connections[upstream].fd, events: events, token: Token.make(.upstreamTCP, slot: upstream))
  }

  private func flush(upstream: Int) {
    let buffer = writeBuffers[upstream]
    var waitWritable = false
    while connections[upstream].writeCount > 0 {
      let pending = connections[upstream].writeCount
      let step = channels.send(
        slot: upstream, fd: connections[upstream].fd,
        UnsafeRawBufferPointer(rebasing: buffer[0..<pending]))
      guard case .moved(let sent) = step else {
        if step == .failed || step == .ended {
          connections[upstream].broken = true
          return
        }
        waitWritable = step == .waitWritable
        break
      }
      let rest = pending - sent
      if rest > 0 {
        buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + sent, byteCount: rest)
      }
      connections[upstream].writeCount = rest
    }
    let events = waitWritable ? Epoll.readable | Epoll.writable : Epoll.readable
    try? context.epoll.modify(
      connections[upstream].fd, events: events, token: Token.make(.upstreamTCP, slot: upstream))
  }

  func handle(event: UInt32, upstream: Int, now: UInt64, environment: inout LoopEnvironment) {
    guard upstream < count, connections[upstream].fd.isValid else { return }
    connections[upstream].lastActivity = now
    if connections[upstream].state == .connecting {
      guard event & (Epoll.writable | Epoll.hangup) != 0 else { return }
      if Socket.pendingError(connections[upstream].fd) != nil {
        connections[upstream].broken = true
        return
      }
      connections[upstream].state =
        channels.isSecure(upstream) ? .handshaking : .connected
    }
    if connections[upstream].state == .handshaking {
      handshake(upstream: upstream, now: now)
      guard connections[upstream].state == .connected else { return }
    } else if event & Epoll.writable != 0 {
      flush(upstream: upstream)
    }
    if event & Epoll.readable != 0 || channels.isSecure(upstream) {
      read(upstream: upstream, now: now, environment: &environment)
    } else if event & Epoll.hangup != 0 {
      connections[upstream].broken = true
    }
  }

  private func read(upstream: Int, now: UInt64, environment: inout LoopEnvironment) {
    let buffer = readBuffers[upstream]
    while !connections[upstream].broken {
      let filled = connections[upstream].readCount
      let step = channels.receive(
        slot: upstream, fd: connections[upstream].fd,
        into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      guard case .moved(let received) = step else {
        switch step {
        case .waitReadable: break
        case .waitWritable:
          // TLS must write before it reads on (a renegotiation or key
          // update): wake on writable, and flush then calls in again.
          try? context.epoll.modify(
            connections[upstream].fd, events: Epoll.readable | Epoll.writable,
            token: Token.make(.upstreamTCP, slot: upstream))
        case .ended, .failed, .moved: connections[upstream].broken = true
        }
        return
      }
      connections[upstream].readCount += received
      while connections[upstream].readCount >= 2 {
        let length = Int(UnsafeRawBufferPointer(buffer).getUInt16(at: 0))
        guard connections[upstream].readCount >= length + 2 else { break }
        context.engine.handleUpstreamReply(
          UnsafeRawBufferPointer(rebasing: buffer[2..<(2 + length)]), transaction: nil,
          upstream: upstream, from: Endpoint(context.upstreamAddresses[upstream]), now: now,
          environment: &environment)
        let remaining = connections[upstream].readCount - (length + 2)
        if remaining > 0 {
          buffer.baseAddress!.copyMemory(
            from: buffer.baseAddress! + length + 2, byteCount: remaining)
        }
        connections[upstream].readCount = remaining
      }
    }
  }

  /// Closes connections that broke and tells the engine, which fails their
  /// queries over at once. Called by the loop outside any engine call.
  func processBroken(now: UInt64, environment: inout LoopEnvironment) {
    for upstream in 0..<count where connections[upstream].broken {
      close(upstream: upstream)
      context.engine.upstreamConnectionLost(upstream: upstream, now: now, environment: &environment)
    }
  }

  private func close(upstream: Int, polite: Bool = false) {
    channels.stop(slot: upstream, polite: polite)
    connections[upstream].fd.close()
    connections[upstream] = Connection()
  }

  func closeIdle(now: UInt64) {
    for upstream in 0..<count where connections[upstream].state != .closed {
      if now &- connections[upstream].lastActivity >= Self.idleMilliseconds,
        connections[upstream].writeCount == 0
      {
        close(upstream: upstream, polite: true)
      }
    }
  }

  /// Closes every connection without telling the engine (the network
  /// changed: the engine sends their queries again itself).
  func closeAll() {
    for upstream in 0..<count { close(upstream: upstream) }
  }
}
