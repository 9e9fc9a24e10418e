import CompiledConfig
import DNSWire
import Engine
import HTTPDNS
import Platform

/// `upstream httpdns`: HTTP/1.1 to an IP address (no DNS needed to find
/// it; port-53 interception does not touch it). Each upstream has a small
/// pool of keep-alive connections; a connection carries one request at a
/// time (no pipelining: the APIs answer in order, but a slow answer would
/// hold up the ones behind it). The codec (module HTTPDNS) turns the
/// engine's DNS query into the request and the HTTP response back into a
/// DNS response with the query's ID and question, which the engine then
/// checks like any other (transaction handle, source, ID, question).
///
/// An `https` upstream (DoH, RFC 8484) is the same pool over TLS, with the
/// `dns-message` format: each connection has its own TLS session.
///
/// Memory: the connections and their buffers are allocated at start-up,
/// for the httpdns and https upstreams only; a request allocates nothing.
final class HTTPDNSUpstreamPool {
  enum State: UInt8 { case closed, connecting, handshaking, idle, busy }

  struct Connection {
    var fd = FileDescriptor.invalid
    var state = State.closed
    var upstream = -1
    var transaction = TransactionHandle(slot: 0, generation: 0)
    var queryLength = 0
    var requestLength = 0
    var written = 0
    var received = 0
    var lastActivity: UInt64 = 0
    /// The request went out on a connection kept alive from an earlier
    /// one, which the server may have closed meanwhile (RFC 9112 §9.3.1):
    /// if it closes without a byte of answer, the request is sent once more
    /// on a fresh connection.
    var reused = false
    var resent = false
    /// Set when the exchange failed inside an engine call; the engine hears
    /// of it after that call returns (it must not be re-entered).
    var failed = false
    /// Carried in the epoll token: events of a closed descriptor are stale.
    var generation: UInt32 = 0
  }

  static let connectionsPerUpstream = 4
  /// A query as the engine writes it (at most 512 octets), padded to a
  /// multiple of 128 octets for DoH (RFC 8467 §4.1).
  static let queryCapacity = 640
  static let requestCapacity = 1024
  /// One whole HTTP response: the APIs answer in a few hundred bytes; a
  /// JSON answer with many records fits in 16 KB.
  static let responseCapacity = 16 * 1024
  /// Servers close idle keep-alive connections after 15–60 s; closing
  /// first at 30 s avoids most reuse of a half-closed one.
  static let idleMilliseconds: UInt64 = 30_000

  let count: Int
  let connections: UnsafeMutablePointer<Connection>
  /// Per connection: its query, the HTTP request, the HTTP response.
  let queries: SlotBuffer
  let requests: SlotBuffer
  let responses: SlotBuffer
  /// The DNS response handed to the engine.
  let dnsResponse: UnsafeMutableRawBufferPointer
  /// Index of each upstream's first connection, -1 for other transports.
  let firstConnection: [Int]
  /// Each upstream's Host header value (`203.107.1.1`, `[2001:db8::1]:8080`),
  /// allocated once.
  let hosts: [UnsafeRawBufferPointer]
  /// TLS sessions of the `https` upstreams' connections.
  let channels: SecureChannels
  /// Queries waiting for a connection of their upstream, all of whose
  /// connections were busy.
  var queue: HTTPWaitQueue

  let context: LoopContext

  init(upstreams: [UpstreamServer], setup: TLSSetup, context: LoopContext)
    throws(TLSSetup.Failure)
  {
    self.context = context
    var first: [Int] = []
    var hosts: [UnsafeRawBufferPointer] = []
    var total = 0
    for server in upstreams {
      if server.transport.isHTTP {
        first.append(total)
        total += Self.connectionsPerUpstream
      } else {
        first.append(-1)
      }
      let text =
        server.transport == .https
        ? Self.hostHeader(name: server.tlsName, port: server.endpoint.port)
        : Self.hostHeader(server.endpoint)
      let host = UnsafeMutableRawBufferPointer.allocate(byteCount: text.count, alignment: 1)
      host.copyBytes(from: text)
      hosts.append(UnsafeRawBufferPointer(host))
    }
    firstConnection = first
    self.hosts = hosts
    count = total
    connections = .allocate(capacity: max(total, 1))
    connections.initialize(repeating: Connection(), count: max(total, 1))
    var slotUpstreams = [Int](repeating: -1, count: total)
    for index in 0..<upstreams.count where first[index] >= 0 {
      for offset in 0..<Self.connectionsPerUpstream {
        connections[first[index] + offset].upstream = index
        slotUpstreams[first[index] + offset] = index
      }
    }
    channels = try SecureChannels(
      slotUpstreams: slotUpstreams, upstreams: upstreams, secure: .https, setup: setup,
      context: context)
    queue = HTTPWaitQueue(
      capacity: total > 0 ? HTTPWaitQueue.defaultCapacity : 0, queryCapacity: Self.queryCapacity)
    queries = SlotBuffer(count: total, stride: Self.queryCapacity)
    requests = SlotBuffer(count: total, stride: Self.requestCapacity)
    responses = SlotBuffer(count: total, stride: Self.responseCapacity)
    dnsResponse = .allocate(byteCount: total > 0 ? 65_535 : 1, alignment: 8)
  }

  /// The sockets are closed by `closeAll` (the server's shutdown); this
  /// frees the memory.
  deinit {
    connections.deinitialize(count: max(count, 1))
    connections.deallocate()
    dnsResponse.deallocate()
    for host in hosts { host.deallocate() }
  }

  /// Starts the exchange for one query on a free connection of `upstream`,
  /// or queues it when every connection is busy. False (the engine tries
  /// the next upstream) when the queue is full or the request cannot be
  /// written.
  func send(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transaction: TransactionHandle
  ) -> Bool {
    guard upstream < firstConnection.count, firstConnection[upstream] >= 0 else { return false }
    let query = UnsafeRawBufferPointer(rebasing: framed[2...])
    guard query.count + EDNSPadding.maximumQueryGrowth <= Self.queryCapacity else { return false }
    let chosen = freeConnection(of: upstream)
    guard chosen >= 0 else {
      return queue.add(query, upstream: upstream, transaction: transaction)
    }
    return start(query, on: chosen, transaction: transaction)
  }

  /// An idle connection of `upstream` (kept alive: no handshake to wait
  /// for), else a closed one, else -1.
  private func freeConnection(of upstream: Int) -> Int {
    var chosen = -1
    for offset in 0..<Self.connectionsPerUpstream {
      let index = firstConnection[upstream] + offset
      if connections[index].state == .idle && !connections[index].failed { return index }
      if chosen < 0 && connections[index].state == .closed && !connections[index].failed {
        chosen = index
      }
    }
    return chosen
  }

  /// Writes the request for `query` and sends it on connection `chosen`,
  /// opening it first if it is closed. False when that fails at once.
  private func start(
    _ query: UnsafeRawBufferPointer, on chosen: Int, transaction: TransactionHandle
  ) -> Bool {
    let upstream = connections[chosen].upstream
    let settings = context.engine.upstreams[upstream]
    let copy = queries[chosen]
    var queryLength = query.count
    copy.baseAddress!.copyMemory(from: query.baseAddress!, byteCount: queryLength)
    if channels.isSecure(chosen) && settings.httpdnsFormat == .dnsMessage {
      // RFC 8467 §4.1, as for DoT: the request's size says less about the name.
      queryLength = EDNSPadding.padQuery(copy, length: queryLength) ?? queryLength
    }
    let request = UnsafeRawBufferPointer(rebasing: copy[0..<queryLength])
    let length: Int
    do throws(HTTPDNSError) {
      length = try HTTPDNSCodec.writeRequest(
        for: request, format: settings.httpdnsFormat, host: hosts[upstream],
        account: settings.account, secret: settings.secret, path: settings.path,
        unixTime: WallClock.nowSeconds(),
        into: requests[chosen])
    } catch {
      return false
    }
    connections[chosen].queryLength = queryLength
    connections[chosen].requestLength = length
    connections[chosen].written = 0
    connections[chosen].received = 0
    connections[chosen].transaction = transaction
    connections[chosen].resent = false
    connections[chosen].lastActivity = MonotonicClock.nowMilliseconds()
    if connections[chosen].state == .idle {
      connections[chosen].state = .busy
      connections[chosen].reused = true
      flush(chosen)
      // The server closed it meanwhile (EPIPE, ECONNRESET): a fresh one.
      if connections[chosen].failed {
        close(chosen)
        connections[chosen].resent = true
      }
    }
    if connections[chosen].state == .closed {
      let now = MonotonicClock.nowMilliseconds()
      guard channels.mayConnect(upstream: upstream, now: now),
        open(chosen, now: now)
      else { return false }
    }
    // A failure now is reported by returning false: the engine moves on at
    // once, and processBroken must not report it a second time (the slot's
    // next attempt would be failed in its place).
    if connections[chosen].failed {
      close(chosen)
      return false
    }
    return true
  }

  /// The engine is done with `transaction` (answered elsewhere, timed out):
  /// a connection still waiting for its response is closed, so the late
  /// response cannot be taken for the next request's.
  func release(transaction: TransactionHandle) {
    queue.remove(transaction: transaction)
    for index in 0..<count
    where connections[index].state == .busy || connections[index].state == .connecting
      || connections[index].state == .handshaking
    {
      if connections[index].transaction == transaction && !connections[index].failed {
        close(index)
      }
    }
  }

  /// Fails the attempts of connections that broke over to the next
  /// upstream; a request that went out on a reused connection which closed
  /// without answering is first sent once more on a fresh one. Called by
  /// the loop outside any engine call.
  func processBroken(now: UInt64, environment: inout LoopEnvironment) {
    for index in 0..<count where connections[index].failed {
      let transaction = connections[index].transaction
      let hadRequest =
        connections[index].state == .busy || connections[index].state == .connecting
        || connections[index].state == .handshaking
      let resend =
        hadRequest && connections[index].reused && !connections[index].resent
        && connections[index].received == 0
      close(index)
      if resend {
        connections[index].resent = true
        connections[index].written = 0
        connections[index].transaction = transaction
        if channels.mayConnect(upstream: connections[index].upstream, now: now),
          open(index, now: now)
        {
          continue
        }
      }
      guard hadRequest else { continue }
      context.engine.attemptFailed(transaction: transaction, now: now, environment: &environment)
    }
    startWaiting(now: now, environment: &environment)
  }

  /// Starts the waiting queries, oldest first, whose upstream has a free
  /// connection again. One that cannot start fails over like any attempt.
  private func startWaiting(now: UInt64, environment: inout LoopEnvironment) {
    var position = 0
    while position < queue.count {
      let entry = queue.entry(at: position)
      defer { position += 1 }
      guard entry.active else { continue }
      let chosen = freeConnection(of: entry.upstream)
      guard chosen >= 0 else { continue }
      let started = start(
        queue.query(at: position), on: chosen, transaction: entry.transaction)
      queue.remove(transaction: entry.transaction)
      if !started {
        context.engine.attemptFailed(
          transaction: entry.transaction, now: now, environment: &environment)
      }
    }
    if queue.count == queue.capacity { queue.compact() }
  }

  func close(_ index: Int, polite: Bool = false) {
    channels.stop(slot: index, polite: polite)
    connections[index].fd.close()
    connections[index].fd = .invalid
    connections[index].state = .closed
    connections[index].failed = false
    connections[index].received = 0
  }

  func closeIdle(now: UInt64) {
    for index in 0..<count where connections[index].state == .idle {
      if now &- connections[index].lastActivity >= Self.idleMilliseconds {
        close(index, polite: true)
      }
    }
  }

  /// Closes every connection without telling the engine (the network
  /// changed: the engine sends their queries again itself, releasing the
  /// waiting ones first).
  func closeAll() {
    for index in 0..<count where connections[index].fd.isValid { close(index) }
  }
}
