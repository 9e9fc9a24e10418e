import CompiledConfig
import DNSWire
import Engine
import Platform

/// Client TCP connections (RFC 7766): a fixed pool of `tcp-clients` slots,
/// each with a read buffer for 2-byte-framed queries and a backlog for
/// replies the socket could not take at once. Queries on one connection are
/// handled as they arrive and answered in any order (RFC 7766 §6.2.1.1).
final class TCPClientPool {
  struct Connection {
    var fd = FileDescriptor.invalid
    var generation: UInt32 = 0
    var listener: UInt16 = 0
    var peer = SocketAddress(ipv4: 0, port: 0)
    var readCount = 0
    var backlogCount = 0
    var lastActivity: UInt64 = 0
  }

  /// A query longer than this closes the connection; real queries are far
  /// smaller (a name is at most 255 octets, EDNS padding 468, RFC 8467).
  static let readCapacity = 2 + 1024
  /// Replies waiting for the socket; past this the connection is closed.
  static let backlogCapacity = 16 * 1024

  let capacity: Int
  let connections: UnsafeMutablePointer<Connection>
  /// Per slot: the query being read, and the replies waiting.
  let readBuffers: SlotBuffer
  let backlogs: SlotBuffer
  var inUse = 0
  /// The TCP listeners, in `listen` order like the UDP ones.
  let listeners: [FileDescriptor]
  let context: LoopContext

  init(capacity: Int, listeners: [FileDescriptor], context: LoopContext) {
    self.capacity = capacity
    self.listeners = listeners
    self.context = context
    connections = .allocate(capacity: capacity)
    connections.initialize(repeating: Connection(), count: capacity)
    readBuffers = SlotBuffer(count: capacity, stride: Self.readCapacity)
    backlogs = SlotBuffer(count: capacity, stride: Self.backlogCapacity)
  }

  /// The sockets are closed by `closeAll` (the server's shutdown); this
  /// frees the memory.
  deinit {
    connections.deinitialize(count: capacity)
    connections.deallocate()
  }

  /// The engine's `ClientRef.connection`: slot and generation.
  static func connectionToken(slot: Int, generation: UInt32) -> UInt32 {
    (generation & 0xFFFF) << 16 | UInt32(slot & 0xFFFF)
  }

  func accept(listener: Int, now: UInt64) {
    for _ in 0..<LoopContext.batchLimit {
      guard let accepted = try? Socket.accept(listeners[listener]) else { return }
      let (fd, peer) = accepted
      guard let slot = freeSlot() else {
        context.statistics[.tcpRejected] += 1
        fd.close()
        continue
      }
      connections[slot].generation &+= 1
      let token = Token.make(.tcpClient, slot: slot, generation: connections[slot].generation)
      guard (try? context.epoll.add(fd, events: Epoll.readable, token: token)) != nil else {
        fd.close()
        continue
      }
      Socket.setNoDelay(fd)
      connections[slot].fd = fd
      connections[slot].listener = UInt16(listener)
      connections[slot].peer = peer
      connections[slot].readCount = 0
      connections[slot].backlogCount = 0
      connections[slot].lastActivity = now
      inUse += 1
    }
  }

  private func freeSlot() -> Int? {
    guard inUse < capacity else { return nil }
    for slot in 0..<capacity where !connections[slot].fd.isValid { return slot }
    return nil
  }

  func isCurrent(slot: Int, generation: UInt32) -> Bool {
    slot < capacity && connections[slot].fd.isValid
      && connections[slot].generation & 0xFFFF == generation & 0xFFFF
  }

  func handle(
    event: UInt32, slot: Int, generation: UInt32, now: UInt64, environment: inout LoopEnvironment
  ) {
    guard isCurrent(slot: slot, generation: generation) else { return }
    connections[slot].lastActivity = now
    if event & Epoll.writable != 0 {
      flush(slot: slot)
      guard isCurrent(slot: slot, generation: generation) else { return }
    }
    if event & Epoll.readable != 0 {
      read(slot: slot, generation: generation, now: now, environment: &environment)
    } else if event & Epoll.hangup != 0 {
      close(slot: slot)
    }
  }

  private func read(slot: Int, generation: UInt32, now: UInt64, environment: inout LoopEnvironment)
  {
    let buffer = readBuffers[slot]
    while isCurrent(slot: slot, generation: generation) {
      let count = connections[slot].readCount
      let received: Int?
      do {
        received = try connections[slot].fd.read(
          into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
      } catch {
        close(slot: slot)
        return
      }
      guard let received else { return }
      if received == 0 {
        close(slot: slot)
        return
      }
      connections[slot].readCount += received
      // Every complete message in the buffer goes to the engine.
      while isCurrent(slot: slot, generation: generation), connections[slot].readCount >= 2 {
        let length = Int(UnsafeRawBufferPointer(buffer).getUInt16(at: 0))
        guard length + 2 <= Self.readCapacity else {
          close(slot: slot)
          return
        }
        guard connections[slot].readCount >= length + 2 else { break }
        let client = ClientRef(
          endpoint: Endpoint(connections[slot].peer), listener: connections[slot].listener,
          connection: Self.connectionToken(slot: slot, generation: generation), isTCP: true)
        context.engine.handleClientQuery(
          UnsafeRawBufferPointer(rebasing: buffer[2..<(2 + length)]), from: client, now: now,
          environment: &environment)
        guard isCurrent(slot: slot, generation: generation) else { return }
        let remaining = connections[slot].readCount - (length + 2)
        if remaining > 0 {
          buffer.baseAddress!.copyMemory(
            from: buffer.baseAddress! + length + 2, byteCount: remaining)
        }
        connections[slot].readCount = remaining
      }
    }
  }

  /// Sends a framed reply (`framed[0..<2]` is free for the length).
  func send(framed: UnsafeMutableRawBufferPointer, connection: UInt32) {
    let slot = Int(connection & 0xFFFF)
    guard isCurrent(slot: slot, generation: connection >> 16) else { return }
    framed.setUInt16(UInt16(framed.count - 2), at: 0)
    var offset = 0
    if connections[slot].backlogCount == 0 {
      do {
        offset = try Socket.send(connections[slot].fd, UnsafeRawBufferPointer(framed)) ?? 0
      } catch {
        close(slot: slot)
        return
      }
      if offset == framed.count { return }
    }
    let rest = framed.count - offset
    let backlogCount = connections[slot].backlogCount
    guard backlogCount + rest <= Self.backlogCapacity else {
      close(slot: slot)
      return
    }
    (backlogs[slot].baseAddress! + backlogCount).copyMemory(
      from: framed.baseAddress! + offset, byteCount: rest)
    connections[slot].backlogCount += rest
    if backlogCount == 0 {
      let token = Token.make(.tcpClient, slot: slot, generation: connections[slot].generation)
      try? context.epoll.modify(
        connections[slot].fd, events: Epoll.readable | Epoll.writable, token: token)
    }
  }

  private func flush(slot: Int) {
    let count = connections[slot].backlogCount
    guard count > 0 else { return }
    let backlog = backlogs[slot]
    let pending = UnsafeRawBufferPointer(rebasing: backlog[0..<count])
    let sent: Int
    do {
      sent = try Socket.send(connections[slot].fd, pending) ?? 0
    } catch {
      close(slot: slot)
      return
    }
    let rest = count - sent
    if rest > 0 && sent > 0 {
      backlog.baseAddress!.copyMemory(from: backlog.baseAddress! + sent, byteCount: rest)
    }
    connections[slot].backlogCount = rest
    if rest == 0 {
      let token = Token.make(.tcpClient, slot: slot, generation: connections[slot].generation)
      try? context.epoll.modify(connections[slot].fd, events: Epoll.readable, token: token)
    }
  }

  func close(slot: Int) {
    guard connections[slot].fd.isValid else { return }
    connections[slot].fd.close()
    connections[slot].fd = .invalid
    connections[slot].readCount = 0
    connections[slot].backlogCount = 0
    inUse -= 1
    context.statistics[.tcpClosed] += 1
  }

  /// RFC 7766 §6.2.3: idle connections are closed so they cannot pin slots.
  func closeIdle(now: UInt64) {
    let idle = UInt64(context.settings.tcpIdleMilliseconds)
    for slot in 0..<capacity where connections[slot].fd.isValid {
      if now &- connections[slot].lastActivity >= idle { close(slot: slot) }
    }
  }

  /// Closes every connection and the listeners.
  func closeAll() {
    for slot in 0..<capacity { close(slot: slot) }
    for fd in listeners { fd.close() }
  }
}
