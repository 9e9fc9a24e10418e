import CompiledConfig
import DNSWire
import Engine
import Platform

/// The epoll loop: owns the pools of sockets and buffers, dispatches each
/// readiness event to the pool whose socket it is, and drives the engine's
/// timers and the housekeeping. Everything is allocated in `init`, and what
/// a reload replaces, by the reload (Reload.swift), never by a query.
///
/// Ownership: the server holds the context, every pool and the engine's
/// environment; each pool holds the context only (LoopContext.swift), and
/// the environment (LoopEnvironment.swift) holds the pools the engine sends
/// through. Nothing refers back to the server.
public final class Server {
  let context: LoopContext
  /// Which of the `workers` processes this is; worker 0 alone keeps the
  /// cache file and logs the start-up summary.
  public let worker: Int
  let signals: FileDescriptor
  var running = true

  public var settings: Settings { _read { yield context.settings } }
  public var engine: Engine { context.engine }
  public var log: LogLine { context.log }

  /// The UDP listeners, their reads and their replies.
  let udpClients: UDPClients
  /// Where each listener really is (port 0 in a config binds a free port).
  public let boundAddresses: [SocketAddress]

  /// UDP queries to the upstreams: a socket per ring slot.
  let udpUpstreams: UDPUpstreamPool
  let tcpClients: TCPClientPool
  /// Made anew when a reload changes the upstreams (Reload.swift).
  var tcpUpstreams: TCPUpstreamPool
  var httpdnsUpstreams: HTTPDNSUpstreamPool
  /// rtnetlink: WAN address, route and link changes (nil where unavailable).
  let routeMonitor: RouteMonitor?
  /// `nftset`: the netlink writer (NftSets.swift); nil without it.
  let nftsets: NftSetSink?
  /// Signatures one loop turn verifies at most before it reads the
  /// clients again (`handleInFairOrder`): about half a millisecond on a PC,
  /// several on a router's core. Fewer make each turn's fixed cost (an
  /// `epoll_wait` of 64 events, a `sendmmsg` of fewer replies) weigh on
  /// every validated miss: with 4, a miss cost 3 % more CPU than with 8
  /// (Tests/Benchmarks/README.md).
  static let verificationsPerTurn: UInt64 = 8
  /// Whether the last turn left upstream UDP replies unread.
  var upstreamRepliesWaiting = false
  /// Upstream UDP sockets holding a light client's reply that a turn's
  /// bound left unread: read first by the next (`handleInFairOrder`).
  var lightReplies = WaitingReplies()
  /// When a burst of route changes is acted on (0: none pending): a PPPoE
  /// reconnect brings a link, addresses and routes one after the other.
  var networkChangeDue: UInt64 = 0
  static let networkChangeSettleMilliseconds: UInt64 = 200
  /// `override-check`: probes of the override addresses (OverrideProbes.swift).
  var overrideProbes: OverrideProber
  /// `metrics`: the scrape listener (worker 0) and the board every worker
  /// publishes to (MetricsServer.swift); nil without `metrics`.
  let metrics: MetricsServer?
  /// What the engine sends through; each engine call gets it `inout`.
  let environment: LoopEnvironment

  /// `cache-file`: loaded at start-up, saved now and then and at shutdown.
  var cacheFile: CachePersistence
  /// `hosts`, `leases`: read at start-up and again when they change.
  var localNameFiles: LocalNameFiles?
  /// SIGHUP and `resolv-conf` (Reload.swift).
  var reloadState: ReloadState

  /// How SIGHUP reads the config again; nil: SIGHUP is ignored.
  public var reloadSource: ReloadSource? {
    get { reloadState.source }
    set { reloadState.source = newValue }
  }

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
    worker: Int = 0, metrics metricsSetup: MetricsSetup? = nil
  ) throws(StartError) {
    self.worker = worker
    boundAddresses = listeners.addresses
    reloadState = ReloadState(startup: settings)
    // Two steps: a noncopyable value must be set on every path out of one.
    let epoll: Epoll
    do {
      epoll = try Epoll()
    } catch {
      listeners.close()
      throw StartError(code: error)
    }
    do {
      signals = try Signals.descriptor()
    } catch {
      listeners.close()
      throw StartError(code: error)
    }
    let seedSource = SecureRandom()
    let engine = Engine(
      settings: settings, upstreams: upstreams,
      hashKey: HashKey(k0: seedSource.nextUInt64(), k1: seedSource.nextUInt64()))
    context = LoopContext(
      epoll: epoll, engine: engine, log: log, settings: settings,
      upstreamAddresses: upstreams.map { SocketAddress($0.endpoint) })
    cacheFile = CachePersistence(settings: settings, engine: engine, log: log, worker: worker)
    if settings.hostsFiles.isEmpty && settings.leaseFiles.isEmpty {
      localNameFiles = nil
    } else {
      localNameFiles = LocalNameFiles(
        context: context,
        fingerprintKey: HashKey(k0: seedSource.nextUInt64(), k1: seedSource.nextUInt64()))
      localNameFiles?.poll()
    }
    // The largest UDP reply the engine writes (Engine.replyLimit).
    udpClients = UDPClients(
      listeners: listeners.udp, replySize: max(512, Int(settings.ednsPayloadSize)),
      context: context)
    udpUpstreams = UDPUpstreamPool(count: settings.inflight, context: context)
    tcpClients = TCPClientPool(
      capacity: settings.tcpClients, listeners: listeners.tcp, context: context)
    do throws(TLSSetup.Failure) {
      let setup = try TLSSetup(settings: settings, upstreams: upstreams)
      tcpUpstreams = try TCPUpstreamPool(upstreams: upstreams, setup: setup, context: context)
      httpdnsUpstreams = try HTTPDNSUpstreamPool(
        upstreams: upstreams, setup: setup, context: context)
    } catch {
      listeners.close()
      throw StartError(code: Errno(rawValue: 0), tlsReason: error.reason, tlsCode: error.code)
    }
    // Also without upstreams: a reload or `resolv-conf` may bring some.
    routeMonitor = RouteMonitor()
    nftsets = NftSetSink(settings: settings, engine: engine, log: log)
    overrideProbes = OverrideProber(context: context, logsSummary: worker == 0)
    if let metricsSetup {
      metrics = MetricsServer(setup: metricsSetup, worker: worker, context: context)
    } else {
      metrics = nil
    }
    environment = LoopEnvironment(
      context: context, udpClients: udpClients, tcpClients: tcpClients,
      udpUpstreams: udpUpstreams, tcpUpstreams: tcpUpstreams, httpdnsUpstreams: httpdnsUpstreams,
      nftsets: nftsets)
    do {
      try context.epoll.add(signals, events: Epoll.readable, token: Token.make(.signal, slot: 0))
      if let routeMonitor {
        try context.epoll.add(
          routeMonitor.descriptor, events: Epoll.readable,
          token: Token.make(.routeMonitor, slot: 0))
      }
      if let nftsets {
        try context.epoll.add(
          nftsets.writer.descriptor, events: Epoll.readable,
          token: Token.make(.nftsetWriter, slot: 0))
      }
      for index in 0..<udpClients.listeners.count {
        try context.epoll.add(
          udpClients.listeners[index], events: Epoll.readable,
          token: Token.make(.udpListener, slot: index))
        try context.epoll.add(
          tcpClients.listeners[index], events: Epoll.readable,
          token: Token.make(.tcpListener, slot: index))
      }
    } catch {
      listeners.close()
      throw StartError(code: error)
    }
  }

  /// Runs until SIGINT or SIGTERM.
  public func run() {
    var lastHousekeeping = MonotonicClock.nowMilliseconds()
    cacheFile.lastSave = lastHousekeeping
    // One reference for the whole run: each engine call borrows it.
    var environment = self.environment
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
        ready = try context.epoll.wait(timeoutMilliseconds: Int32(timeout))
      } catch {
        log.start(.error).append("epoll_wait failed: errno ").append(
          decimal: Int(error.rawValue)
        ).emit(.error)
        return
      }
      now = MonotonicClock.nowMilliseconds()
      handleInFairOrder(ready: ready, now: now, environment: &environment)
      if reloadState.requested { reload(now: now, environment: &environment) }
      if networkChangeDue != 0 && now >= networkChangeDue {
        networkChangeDue = 0
        networkChanged(now: now, environment: &environment)
      }
      engine.tick(now: now, environment: &environment)
      tcpUpstreams.processBroken(now: now, environment: &environment)
      httpdnsUpstreams.processBroken(now: now, environment: &environment)
      overrideProbes.poll(now: now)
      udpClients.flush()
      nftsets?.flush()
      if now &- lastHousekeeping >= 1000 {
        lastHousekeeping = now
        tcpClients.closeIdle(now: now)
        tcpUpstreams.closeIdle(now: now)
        httpdnsUpstreams.closeIdle(now: now)
        cacheFile.saveIfDue(now: now)
        localNameFiles?.poll()
        pollResolvConf(now: now, environment: &environment)
        metrics?.housekeeping(now: now)
      }
    }
    answerPendingClients(environment: &environment)
  }

  /// Stopping: every client still waiting on an upstream gets its answer
  /// now — stale or SERVFAIL (Engine.answerPendingAtShutdown) — so that its
  /// resolver asks the next DNS server at once instead of timing out.
  func answerPendingClients(environment: inout LoopEnvironment) {
    let waiting = engine.answerPendingAtShutdown(
      now: MonotonicClock.nowMilliseconds(), environment: &environment)
    udpClients.flush()
    nftsets?.flush()
    if waiting > 0 {
      log.start(.info).append("answered ").append(decimal: waiting)
        .append(" waiting clients before stopping").emit(.info)
    }
  }

  /// One loop turn's events, in an order that keeps a validation flood
  /// from holding back other clients' answers: clients first (a cached
  /// answer or an override costs microseconds), then the upstreams' UDP
  /// replies while this turn has verified fewer than
  /// `verificationsPerTurn` signatures. Replies left unread stay queued in
  /// their sockets (level-triggered: reported again at once), and while
  /// some are, the UDP listeners are read at the start of every turn
  /// whether or not this turn's events name them: epoll hands out at most
  /// `Epoll.capacity` ready descriptors a call, in turn, so behind a few
  /// hundred waiting replies a listener would be reported only every few
  /// turns. A turn thus does at most `verificationsPerTurn` verifications
  /// (plus those of the last answer read) besides answering the clients,
  /// and the replies for a client that has had most of the recent
  /// verifications come after the others' (ValidationShares).
  func handleInFairOrder(ready: Int, now: UInt64, environment: inout LoopEnvironment) {
    if upstreamRepliesWaiting {
      for listener in 0..<udpClients.listeners.count {
        udpClients.receive(listener: listener, now: now, environment: &environment)
      }
    }
    var upstreamReplies = 0
    for index in 0..<ready {
      let event = context.epoll.event(at: index)
      switch Token.kind(event.token) {
      case .upstreamUDP: upstreamReplies += 1
      case .udpListener where upstreamRepliesWaiting: break
      default: handle(event: event.events, token: event.token, now: now, environment: &environment)
      }
    }
    upstreamRepliesWaiting = false
    guard upstreamReplies > 0 || lightReplies.count > 0 else { return }
    let verificationsBefore = engine.signatureVerifications
    // Light clients' replies left unread by an earlier turn first; one
    // whose client has turned heavy since is dropped from the list (its
    // socket stays readable: epoll reports it again).
    var kept = 0
    for index in 0..<lightReplies.count {
      let slot = lightReplies.slots[index]
      if engine.answersAHeavyValidationClient(transaction: Int(slot)) { continue }
      if engine.signatureVerifications &- verificationsBefore >= Self.verificationsPerTurn {
        lightReplies.slots[kept] = slot
        kept += 1
        continue
      }
      udpUpstreams.receive(slot: Int(slot), now: now, environment: &environment)
    }
    lightReplies.count = kept
    upstreamRepliesWaiting = kept > 0
    // Then this turn's: light clients' replies, then a heavy client's
    // (ValidationShares). `handled` has a bit per event (at most
    // Epoll.capacity, 64). A light reply the bound leaves unread is kept
    // for the next turn: epoll would report it again only after every
    // other ready socket, behind the heavy client's replies.
    var handled: UInt64 = 0
    for pass in 0..<2 {
      for index in 0..<ready where handled & (1 << UInt64(index)) == 0 {
        let event = context.epoll.event(at: index)
        guard Token.kind(event.token) == .upstreamUDP else { continue }
        let slot = Token.slot(event.token)
        let heavy = engine.answersAHeavyValidationClient(transaction: slot)
        if pass == 0 && heavy { continue }
        handled |= 1 << UInt64(index)
        if engine.signatureVerifications &- verificationsBefore >= Self.verificationsPerTurn {
          upstreamRepliesWaiting = true
          if heavy { return }
          lightReplies.keep(slot)
          continue
        }
        handle(event: event.events, token: event.token, now: now, environment: &environment)
      }
    }
  }

  func handle(event: UInt32, token: UInt64, now: UInt64, environment: inout LoopEnvironment) {
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
        } else if signal == Signals.hangup {
          reloadState.requested = true
        }
      }
    case .udpListener:
      udpClients.receive(listener: slot, now: now, environment: &environment)
    case .tcpListener:
      tcpClients.accept(listener: slot, now: now)
    case .tcpClient:
      tcpClients.handle(
        event: event, slot: slot, generation: Token.generation(token), now: now,
        environment: &environment)
    case .upstreamUDP:
      udpUpstreams.receive(slot: slot, now: now, environment: &environment)
    case .upstreamTCP:
      tcpUpstreams.handle(event: event, upstream: slot, now: now, environment: &environment)
    case .upstreamHTTP:
      httpdnsUpstreams.handle(
        event: event, index: slot, generation: Token.generation(token), now: now,
        environment: &environment)
    case .routeMonitor:
      if let routeMonitor, routeMonitor.drain() > 0, networkChangeDue == 0 {
        networkChangeDue = now + Self.networkChangeSettleMilliseconds
      }
    case .nftsetWriter:
      nftsets?.drainReplies()
    case .metricsListener, .metricsClient:
      metrics?.handle(event: event, token: token, now: now)
    case .overrideProbe:
      overrideProbes.handle(
        event: event, slot: slot, generation: Token.generation(token), now: now)
    }
  }

  /// The WAN changed: upstream connections are dropped at once and every
  /// query in flight is sent again (Engine.networkChanged), instead of
  /// waiting for the timeouts; answers keep coming from the cache meanwhile.
  func networkChanged(now: UInt64, environment: inout LoopEnvironment) {
    log.start(.info).append("network changed (address, route or link): ")
      .append("upstream connections re-opened, queries in flight sent again").emit(.info)
    tcpUpstreams.closeAll()
    httpdnsUpstreams.closeAll()
    engine.networkChanged(now: now, environment: &environment)
  }

  /// Saves the cache file if there is one, and closes every socket; the
  /// process is about to exit.
  public func shutdown() {
    if cacheFile.isUsed { cacheFile.save(now: MonotonicClock.nowMilliseconds(), atShutdown: true) }
    udpClients.flush()
    udpClients.closeAll()
    udpUpstreams.closeAll()
    tcpClients.closeAll()
    tcpUpstreams.closeAll()
    httpdnsUpstreams.closeAll()
    overrideProbes.closeAll()
    metrics?.closeAll()
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

/// Transaction slots whose upstream UDP reply waits to be read, at most
/// `Epoll.capacity` (one turn's events); allocated once.
struct WaitingReplies: ~Copyable {
  let slots = UnsafeMutablePointer<Int32>.allocate(capacity: Epoll.capacity)
  var count = 0

  deinit { slots.deallocate() }

  /// Adds `slot` unless it is there already (or there is no room: its
  /// socket stays readable, and epoll reports it again).
  mutating func keep(_ slot: Int) {
    for index in 0..<count where slots[index] == Int32(slot) { return }
    guard count < Epoll.capacity else { return }
    slots[count] = Int32(slot)
    count += 1
  }
}
