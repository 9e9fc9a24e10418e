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

  /// `cache-file`: when it was last written (or the loop started), and the
  /// engine's insert count then; a save with no insert since is skipped,
  /// which spares flash on a quiet network.
  var lastCacheSave: UInt64 = 0
  var insertsAtLastSave: UInt64 = 0

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
    lastCacheSave = lastHousekeeping
    let saveInterval = UInt64(settings.cacheSaveSeconds) * 1000
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
        if persistsCache && now &- lastCacheSave >= saveInterval {
          saveCacheFile(now: now, atShutdown: false)
        }
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
    if persistsCache { saveCacheFile(now: MonotonicClock.nowMilliseconds(), atShutdown: true) }
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

/// `cache-file`: the packet cache saved every `cache-save-interval` and at
/// shutdown, and loaded at start-up (format and trust: `CacheFile`).
extension Server {
  /// Whether the cache file is used: configured, with a cache, and with
  /// `stale` on (loaded answers are served only as stale ones); by worker 0
  /// alone, so that workers never write the file at once.
  public var persistsCache: Bool {
    worker == 0 && !settings.cacheFilePath.isEmpty && engine.cache.isEnabled
      && settings.staleSeconds > 0
  }

  var staleWindowMilliseconds: UInt64 { UInt64(settings.staleSeconds) * 1000 }

  /// Loads the cache file into the empty cache at start-up and logs the
  /// outcome: a missing file is normal the first time; one that cannot be
  /// read, or is corrupt, truncated or from another format, is reported and
  /// ignored (nothing of it is inserted). Returns the entries loaded.
  @discardableResult
  public func loadCacheFile() -> Int {
    let path = settings.cacheFilePath
    guard !path.isEmpty else { return 0 }
    guard persistsCache else {
      log.start(.warning).append("cache-file ").append(path).append(" is not used: ")
        .append(
          engine.cache.isEnabled
            ? "loaded answers are served only as stale ones, and stale is 0"
            : "the cache is off"
        ).emit(.warning)
      return 0
    }
    let bytes: [UInt8]
    do throws(Files.ReadError) {
      // One byte more than the largest file tells a file that is too large.
      // Only a file no other account could have written is trusted at all.
      bytes = try Files.contents(
        path: path, limit: engine.cache.maxFileSize + 1, privateOnly: true)
    } catch {
      switch error {
      case .system(let code) where code == Errno.noSuchFile:
        log.start(.info).append("no cached answers in ").append(path).append(" yet").emit(.info)
      case .system(let code):
        log.start(.warning).append("cannot read ").append(path).append(": ").append(errno: code)
          .emit(.warning)
      case .notPrivate:
        log.start(.warning).append("ignoring ").append(path)
          .append(": not a regular file of this user or root, or writable by others")
          .emit(.warning)
      }
      return 0
    }
    let loaded: Int
    do throws(CacheFileError) {
      loaded = try bytes.withUnsafeBytes { raw in
        Result { () throws(CacheFileError) in
          try engine.cache.load(from: raw, now: MonotonicClock.nowMilliseconds())
        }
      }.get()
    } catch {
      log.start(.warning).append("ignoring ").append(path).append(": ").append(error.reason)
      switch error {
      case .entryOutOfBounds(let entry), .badName(let entry), .badMessage(let entry),
        .keyMismatch(let entry):
        log.append(" (entry ").append(decimal: entry).append(")")
      default: break
      }
      log.emit(.warning)
      return 0
    }
    log.start(.info).append("loaded ").append(decimal: loaded).append(" cached answers from ")
      .append(path).emit(.info)
    return loaded
  }

  /// Writes the cache file (temporary file, fsync, rename), leaving out
  /// entries past the stale window. A periodic save is skipped when nothing
  /// was cached since the last one; the one at shutdown always writes (once
  /// per run is no wear). Logs periodic saves at debug level, the one at
  /// shutdown at info, and failures as warnings (the next save tries again).
  func saveCacheFile(now: UInt64, atShutdown: Bool) {
    lastCacheSave = now
    let inserts = engine.counters.cacheInserts
    guard atShutdown || inserts != insertsAtLastSave else { return }
    var bytes: [UInt8] = []
    let saved = engine.cache.serialize(
      into: &bytes, now: now, keepExpired: staleWindowMilliseconds)
    let path = settings.cacheFilePath
    if let error = Files.writeAtomically(path: path, bytes: bytes) {
      log.start(.warning).append("cannot save cached answers to ").append(path).append(": ")
        .append(errno: error).emit(.warning)
      return
    }
    insertsAtLastSave = inserts
    let severity: LogSeverity = atShutdown ? .info : .debug
    log.start(severity).append("saved ").append(decimal: saved).append(" cached answers to ")
      .append(path).emit(severity)
  }
}
