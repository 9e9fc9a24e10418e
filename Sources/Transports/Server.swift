import CompiledConfig
import DNSWire
import Engine
import Platform

/// The epoll loop: owns every socket and buffer, feeds the engine, and
/// carries out what it asks. Everything is allocated in `init`.
public final class Server {
  public let settings: Settings
  public let engine: Engine
  public let log: LogLine
  /// Which of the `workers` processes this is; worker 0 alone keeps the
  /// cache file and logs the start-up summary.
  public let worker: Int
  public internal(set) var counters = TransportCounters()
  let epoll: Epoll
  let random = SecureRandom()
  let signals: FileDescriptor
  var running = true

  /// The UDP listeners, their reads and their replies.
  let udpClients: UDPClients
  /// The TCP listeners, in `listen` order like the UDP ones.
  let tcpListeners: [FileDescriptor]
  /// Where each listener really is (port 0 in a config binds a free port).
  public let boundAddresses: [SocketAddress]

  let upstreamAddresses: [SocketAddress]
  /// UDP queries to the upstreams: a socket per ring slot.
  let udpUpstreams: UDPUpstreamPool
  let tcpClients: TCPClientPool
  let tcpUpstreams: TCPUpstreamPool
  let httpdnsUpstreams: HTTPDNSUpstreamPool
  /// rtnetlink: WAN address, route and link changes (nil where unavailable).
  let routeMonitor: RouteMonitor?
  /// When a burst of route changes is acted on (0: none pending): a PPPoE
  /// reconnect brings a link, addresses and routes one after the other.
  var networkChangeDue: UInt64 = 0
  static let networkChangeSettleMilliseconds: UInt64 = 200
  /// `override-check`: probes of the override addresses (OverrideProbes.swift).
  let overrideProbes: OverrideProber

  /// A name in presentation form for the log: every octet may take four
  /// characters (`\DDD`).
  let nameText: UnsafeMutableRawBufferPointer
  /// Datagrams handled per readiness event before others get a turn.
  static let batchLimit = 64

  /// `cache-file`: loaded at start-up, saved now and then and at shutdown.
  var cacheFile: CachePersistence

  /// The event loop could not be set up: epoll or signalfd failed (`code`),
  /// or TLS for the DoT/DoH upstreams did (`tlsReason`, with mbedTLS's
  /// error code in `tlsCode`, 0 if none): an unreadable `ca-file`, or a
  /// build without TLS.
  public struct StartError: Error {
    public var code: Errno
    public var tlsReason: StaticString? = nil
    public var tlsCode: Int32 = 0
  }

  /// A server on sockets already bound (`Listeners.open`); it owns them
  /// from here on. Random state is drawn here, so each worker process must
  /// make its own server after fork(2).
  public init(
    settings: Settings, upstreams: [UpstreamServer], listeners: Listeners, log: LogLine,
    worker: Int = 0
  ) throws(StartError) {
    self.settings = settings
    self.log = log
    self.worker = worker
    // The largest UDP reply the engine writes (Engine.replyLimit).
    udpClients = UDPClients(
      listeners: listeners.udp, replySize: max(512, Int(settings.ednsPayloadSize)))
    tcpListeners = listeners.tcp
    boundAddresses = listeners.addresses
    do {
      epoll = try Epoll()
      signals = try Signals.descriptor()
    } catch {
      listeners.close()
      throw StartError(code: error)
    }
    let seedSource = SecureRandom()
    engine = Engine(
      settings: settings, upstreams: upstreams,
      hashKey: HashKey(k0: seedSource.nextUInt64(), k1: seedSource.nextUInt64()))
    cacheFile = CachePersistence(settings: settings, engine: engine, log: log, worker: worker)
    upstreamAddresses = upstreams.map { SocketAddress($0.endpoint) }
    udpUpstreams = UDPUpstreamPool(count: settings.inflight)
    tcpClients = TCPClientPool(capacity: settings.tcpClients)
    do throws(TLSSetup.Failure) {
      let setup = try TLSSetup(settings: settings, upstreams: upstreams)
      tcpUpstreams = try TCPUpstreamPool(upstreams: upstreams, setup: setup)
      httpdnsUpstreams = try HTTPDNSUpstreamPool(upstreams: upstreams, setup: setup)
    } catch {
      listeners.close()
      throw StartError(code: Errno(rawValue: 0), tlsReason: error.reason, tlsCode: error.code)
    }
    routeMonitor = upstreams.isEmpty ? nil : RouteMonitor()
    overrideProbes = OverrideProber(settings: settings, log: log, logsSummary: worker == 0)
    nameText = .allocate(byteCount: 4 * Name.maxLength, alignment: 1)
    do {
      try epoll.add(signals, events: Epoll.readable, token: Token.make(.signal, slot: 0))
      if let routeMonitor {
        try epoll.add(
          routeMonitor.descriptor, events: Epoll.readable,
          token: Token.make(.routeMonitor, slot: 0))
      }
      for index in 0..<udpClients.listeners.count {
        try epoll.add(
          udpClients.listeners[index], events: Epoll.readable,
          token: Token.make(.udpListener, slot: index))
        try epoll.add(
          tcpListeners[index], events: Epoll.readable,
          token: Token.make(.tcpListener, slot: index))
      }
    } catch {
      listeners.close()
      throw StartError(code: error)
    }
  }

  deinit {
    nameText.deallocate()
  }

  /// Runs until SIGINT or SIGTERM.
  public func run() {
    var lastHousekeeping = MonotonicClock.nowMilliseconds()
    cacheFile.lastSave = lastHousekeeping
    while running {
      var now = MonotonicClock.nowMilliseconds()
      var timeout: UInt64 = 1000
      if let deadline = engine.nextDeadline {
        timeout = deadline > now ? min(deadline - now, timeout) : 0
      }
      if let deadline = overrideProbes.nextDeadline {
        timeout = deadline > now ? min(deadline - now, timeout) : 0
      }
      if networkChangeDue != 0 {
        timeout = networkChangeDue > now ? min(networkChangeDue - now, timeout) : 0
      }
      let ready: Int
      do {
        ready = try epoll.wait(timeoutMilliseconds: Int32(timeout))
      } catch {
        log.start(.error).append("epoll_wait failed: errno ").append(
          decimal: Int(error.rawValue)
        ).emit(.error)
        return
      }
      now = MonotonicClock.nowMilliseconds()
      for index in 0..<ready {
        let event = epoll.event(at: index)
        handle(event: event.events, token: event.token, now: now)
      }
      var environment = LoopEnvironment(server: self)
      if networkChangeDue != 0 && now >= networkChangeDue {
        networkChangeDue = 0
        networkChanged(now: now)
      }
      engine.tick(now: now, environment: &environment)
      tcpUpstreams.processBroken(server: self, now: now)
      httpdnsUpstreams.processBroken(server: self, now: now)
      overrideProbes.poll(server: self, now: now)
      udpClients.flush(server: self)
      if now &- lastHousekeeping >= 1000 {
        lastHousekeeping = now
        tcpClients.closeIdle(server: self, now: now)
        tcpUpstreams.closeIdle(server: self, now: now)
        httpdnsUpstreams.closeIdle(now: now)
        cacheFile.saveIfDue(now: now)
      }
    }
    answerPendingClients()
  }

  /// Stopping: every client still waiting on an upstream gets its answer
  /// now — stale or SERVFAIL (Engine.answerPendingAtShutdown) — so that its
  /// resolver asks the next DNS server at once instead of timing out.
  func answerPendingClients() {
    var environment = LoopEnvironment(server: self)
    let waiting = engine.answerPendingAtShutdown(
      now: MonotonicClock.nowMilliseconds(), environment: &environment)
    udpClients.flush(server: self)
    if waiting > 0 {
      log.start(.info).append("answered ").append(decimal: waiting)
        .append(" waiting clients before stopping").emit(.info)
    }
  }

  func handle(event: UInt32, token: UInt64, now: UInt64) {
    guard let kind = Token.kind(token) else { return }
    let slot = Token.slot(token)
    switch kind {
    case .signal:
      while let signal = Signals.next(from: signals) {
        if signal == Signals.interrupt || signal == Signals.terminate {
          log.start(.info).append("stopping on signal ").append(decimal: Int(signal)).emit(.info)
          running = false
        } else if signal == Signals.user1 {
          logCounters()
        }
      }
    case .udpListener:
      udpClients.receive(listener: slot, server: self, now: now)
    case .tcpListener:
      tcpClients.accept(listener: slot, server: self, now: now)
    case .tcpClient:
      tcpClients.handle(
        event: event, slot: slot, generation: Token.generation(token), server: self, now: now)
    case .upstreamUDP:
      udpUpstreams.receive(slot: slot, server: self, now: now)
    case .upstreamTCP:
      tcpUpstreams.handle(event: event, upstream: slot, server: self, now: now)
    case .upstreamHTTP:
      httpdnsUpstreams.handle(
        event: event, index: slot, generation: Token.generation(token), server: self, now: now)
    case .routeMonitor:
      if let routeMonitor, routeMonitor.drain() > 0, networkChangeDue == 0 {
        networkChangeDue = now + Self.networkChangeSettleMilliseconds
      }
    case .overrideProbe:
      overrideProbes.handle(
        event: event, slot: slot, generation: Token.generation(token), server: self, now: now)
    }
  }

  /// The WAN changed: upstream connections are dropped at once and every
  /// query in flight is sent again (Engine.networkChanged), instead of
  /// waiting for the timeouts; answers keep coming from the cache meanwhile.
  func networkChanged(now: UInt64) {
    log.start(.info).append("network changed (address, route or link): ")
      .append("upstream connections re-opened, queries in flight sent again").emit(.info)
    tcpUpstreams.closeAll()
    httpdnsUpstreams.closeAll()
    var environment = LoopEnvironment(server: self)
    engine.networkChanged(now: now, environment: &environment)
  }

  /// Saves the cache file if there is one, and closes every socket; the
  /// process is about to exit.
  public func shutdown() {
    if cacheFile.isUsed { cacheFile.save(now: MonotonicClock.nowMilliseconds(), atShutdown: true) }
    udpClients.flush(server: self)
    udpClients.closeAll()
    for fd in tcpListeners { fd.close() }
    udpUpstreams.closeAll()
    tcpClients.closeAll(server: self)
    tcpUpstreams.closeAll()
    httpdnsUpstreams.closeAll()
    overrideProbes.closeAll()
    routeMonitor?.close()
  }
}

/// `cache-file` (CachePersistence.swift).
extension Server {
  /// Whether the cache file is used (`CachePersistence.isUsed`).
  public var persistsCache: Bool { cacheFile.isUsed }

  /// Loads the cache file into the empty cache at start-up and logs the
  /// outcome; returns the entries loaded (`CachePersistence.load`).
  @discardableResult
  public func loadCacheFile() -> Int { cacheFile.load() }
}
