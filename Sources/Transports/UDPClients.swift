import CompiledConfig
import DNSWire
import Engine
import Platform

/// The UDP listeners' side (RFC 1035 §4.2.1): client datagrams arrive a
/// batch at a time through recvmmsg(2), and replies wait until the events
/// of one loop turn are handled (or the batch fills), then leave in one
/// sendmmsg(2).
final class UDPClients {
  /// Datagrams larger than this are dropped as oversized.
  static let receiveSize = 4096
  /// Client datagrams arrive through one recvmmsg(2) per `batchSize`.
  static let batchSize = 16

  /// Listening sockets, in `listen` order; the index is the engine's
  /// `ClientRef.listener`.
  let listeners: [FileDescriptor]
  let inbound: DatagramBatch
  /// Every queued reply goes out of `outboundListener`.
  let outbound: DatagramBatch
  var outboundListener = 0

  /// `replySize`: the largest UDP reply the engine writes.
  let context: LoopContext

  init(listeners: [FileDescriptor], replySize: Int, context: LoopContext) {
    self.listeners = listeners
    self.context = context
    inbound = DatagramBatch(capacity: Self.batchSize, slotSize: Self.receiveSize)
    outbound = DatagramBatch(capacity: Self.batchSize, slotSize: replySize)
  }

  /// Reads client datagrams a batch at a time until the socket is drained
  /// (a short batch) or `batchLimit` were handled.
  func receive(listener: Int, now: UInt64, environment: inout LoopEnvironment) {
    let fd = listeners[listener]
    var handled = 0
    while handled < LoopContext.batchLimit {
      guard let received = try? inbound.receive(from: fd), received > 0 else { return }
      for index in 0..<received {
        guard !inbound.isTruncated(at: index), let peer = inbound.peer(at: index) else {
          context.statistics[.oversized] += 1
          continue
        }
        let client = ClientRef(endpoint: Endpoint(peer), listener: UInt16(listener))
        context.engine.handleClientQuery(
          inbound.bytes(at: index), from: client, now: now, environment: &environment)
      }
      handled += received
      if received < inbound.capacity { return }
    }
  }

  /// Queues a UDP reply for the next sendmmsg(2); sends at once what cannot
  /// wait (a full batch, another listener, a reply larger than a slot).
  func send(
    _ message: UnsafeRawBufferPointer, listener: Int, to peer: SocketAddress
  ) {
    if outbound.count > 0, listener != outboundListener || outbound.isFull {
      flush()
    }
    outboundListener = listener
    if outbound.append(message, to: peer) { return }
    let sent = (try? Socket.send(listeners[listener], message, to: peer)) ?? false
    if !sent { context.statistics[.sendErrors] += 1 }
  }

  /// Sends the queued replies.
  func flush() {
    guard outbound.count > 0 else { return }
    context.statistics[.sendErrors] += UInt64(outbound.send(on: listeners[outboundListener]))
  }

  func closeAll() {
    for fd in listeners { fd.close() }
  }
}
