import CompiledConfig
import DNSWire
import Engine
import Platform

/// UDP queries to upstreams (RFC 1035 §4.2.1), one socket per slot of the
/// engine's transaction ring: opened at the slot's first UDP query and
/// kept. Every attempt connects it afresh (a new random port, the kernel's
/// choice) and the end of the attempt disconnects it (the port is released,
/// nothing more is delivered). That costs connect+disconnect per query
/// instead of socket+connect+epoll_ctl+close.
final class UDPUpstreamPool {
  struct Slot {
    var fd = FileDescriptor.invalid
    /// The generation of the slot's current attempt, valid while connected.
    var generation: UInt32 = 0
    /// Whether the socket is connected (an attempt is in flight).
    var connected = false
    var isIPv6 = false
  }

  /// The largest upstream datagram read; a larger one is dropped as
  /// oversized.
  static let receiveSize = 4096

  let count: Int
  let slots: UnsafeMutablePointer<Slot>
  /// One upstream datagram at a time is read here.
  let receiveBuffer: UnsafeMutableRawBufferPointer

  /// `count`: the engine's ring size (`inflight`).
  let context: LoopContext

  init(count: Int, context: LoopContext) {
    self.count = count
    self.context = context
    slots = .allocate(capacity: max(count, 1))
    slots.initialize(repeating: Slot(), count: max(count, 1))
    receiveBuffer = .allocate(byteCount: Self.receiveSize, alignment: 8)
  }

  /// The sockets are closed by `closeAll` (the server's shutdown); this
  /// frees the memory.
  deinit {
    slots.deinitialize(count: max(count, 1))
    slots.deallocate()
    receiveBuffer.deallocate()
  }

  /// A UDP query from the slot's own socket: connect(2) to the upstream
  /// binds it to a port the kernel picks at random from the ephemeral
  /// range, and makes the kernel drop datagrams from any other source
  /// (RFC 5452 §4.5, §9.2). The socket is opened at the slot's first query
  /// (or when the upstream's family differs), set to report each answer's IP
  /// TTL, and registered with epoll once.
  func send(
    _ message: UnsafeRawBufferPointer, upstream: Int, transaction: TransactionHandle
  ) -> Bool {
    let slot = Int(transaction.slot)
    let address = context.upstreamAddresses[upstream]
    endAttempt(slot: slot, generation: slots[slot].generation)
    if slots[slot].fd.isValid && slots[slot].isIPv6 != address.isIPv6 {
      slots[slot].fd.close()
      slots[slot].fd = .invalid
    }
    if !slots[slot].fd.isValid {
      guard let fd = try? Socket.udp(for: address) else {
        context.statistics[.sendErrors] += 1
        return false
      }
      do {
        // Each answer's IP TTL is an input of `hold-on` (receive).
        try Socket.enableReceiveTTL(fd, ipv6: address.isIPv6)
        try context.epoll.add(
          fd, events: Epoll.readable, token: Token.make(.upstreamUDP, slot: slot))
      } catch {
        fd.close()
        context.statistics[.sendErrors] += 1
        return false
      }
      slots[slot].fd = fd
      slots[slot].isIPv6 = address.isIPv6
    }
    let fd = slots[slot].fd
    do {
      guard try Socket.connect(fd, to: address) else { return false }
      slots[slot].connected = true
      slots[slot].generation = transaction.generation
      if try Socket.send(fd, message) == nil {
        // Socket buffer full: the datagram is lost as on a busy network; the
        // deadline will move the query on.
        context.statistics[.sendErrors] += 1
      }
    } catch {
      context.statistics[.sendErrors] += 1
      endAttempt(slot: slot, generation: transaction.generation)
      return false
    }
    return true
  }

  /// Disconnects the slot's socket when attempt `generation` is the one in
  /// flight: its port is released, so nothing more reaches it. A socket that
  /// cannot be disconnected is closed (the next attempt opens another).
  func endAttempt(slot: Int, generation: UInt32) {
    guard slots[slot].connected, slots[slot].generation == generation else { return }
    slots[slot].connected = false
    do {
      try Socket.disconnect(slots[slot].fd)
    } catch {
      slots[slot].fd.close()
      slots[slot].fd = .invalid
    }
  }

  /// Reads the slot's socket until it is drained or `batchLimit` datagrams
  /// were handled, handing the current attempt's answers to the engine. The
  /// pool ends an attempt the engine is done with itself: the engine does
  /// not call back into it.
  func receive(slot: Int, now: UInt64, environment: inout LoopEnvironment) {
    let buffer = receiveBuffer
    let handle = TransactionHandle(slot: UInt32(slot), generation: slots[slot].generation)
    for _ in 0..<LoopContext.batchLimit {
      // A retry may have started a new attempt on this socket: its replies
      // are read on the next event, with its own handle.
      guard slots[slot].fd.isValid,
        !slots[slot].connected || slots[slot].generation == handle.generation
      else { return }
      // Once the engine has finished the attempt (and disconnected the
      // socket), what is still queued arrived for it too late: a duplicate,
      // or a forgery. It is read and dropped here, or the level-triggered
      // socket would stay readable until the slot's next query.
      let current = slots[slot].connected
      let received: (count: Int, truncated: Bool, from: SocketAddress, ttl: UInt8)?
      do {
        received = try Socket.receiveWithTTL(slots[slot].fd, into: buffer)
      } catch {
        // ICMP port unreachable and the like: this attempt cannot succeed.
        // It is ended here, then the engine fails it over.
        if current {
          endAttempt(slot: slot, generation: handle.generation)
          context.engine.attemptFailed(transaction: handle, now: now, environment: &environment)
        }
        return
      }
      guard let received else { return }
      guard current else {
        context.statistics[.lateUpstreamReplies] += 1
        continue
      }
      if received.truncated {
        context.statistics[.oversized] += 1
        continue
      }
      // The engine says when the attempt is over, and the pool ends it
      // here (a new attempt on this socket has a new generation, and
      // ending the old one is then a no-op).
      let over = context.engine.handleUpstreamReply(
        UnsafeRawBufferPointer(rebasing: buffer[0..<received.count]), transaction: handle,
        upstream: -1, from: Endpoint(received.from), ipTTL: received.ttl, now: now,
        environment: &environment)
      if over { endAttempt(slot: slot, generation: handle.generation) }
    }
  }

  func closeAll() {
    for slot in 0..<count where slots[slot].fd.isValid {
      slots[slot].fd.close()
      slots[slot].fd = .invalid
      slots[slot].connected = false
    }
  }
}
