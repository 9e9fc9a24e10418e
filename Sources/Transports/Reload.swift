import CompiledConfig
import Engine
import Platform

/// What a reload needs beside the server's own state: where the config is
/// read again, and the worker processes to pass the signal on to.
public struct ReloadSource {
  /// The config file (`--config`); empty for the compiled-in config.
  public var configPath: [UInt8]
  /// The config read again; nil when it was refused (the closure logged
  /// why to the log it is given, as `file:line: message`).
  public var read: (LogLine) -> Settings?
  /// Worker 0 only: the other workers' pids (`workers`).
  public var workerProcesses: [Int32] = []

  public init(configPath: [UInt8], read: @escaping (LogLine) -> Settings?) {
    self.configPath = configPath
    self.read = read
  }
}

/// The loop's reload state (one stored property of `Server`).
struct ReloadState {
  var source: ReloadSource?
  /// SIGHUP arrived: the reload runs after this loop turn's events, so no
  /// event of a socket the reload closes is handled after it closed.
  var requested = false
  /// `resolv-conf`: the file as last read (nil: missing).
  var resolvConfStamp: FileStamp?
  /// Its path with a NUL for stat(2), made once (polling allocates nothing).
  var resolvConfTerminatedPath: [UInt8] = []
  /// The defences whose tables were made at start-up (on then): a reload
  /// may turn them off and on again, but not on when they have none.
  var startedWithHoldOn = false
  var startedWithVerify = false
  var startedWithRedirectProbes = false
  var startedWithRateLimit = false

  init(startup settings: Settings) {
    startedWithHoldOn = settings.holdOnMilliseconds > 0
    startedWithVerify = !settings.verifyNames.isEmpty
    startedWithRedirectProbes = settings.detectNXDomainRedirect
    startedWithRateLimit = settings.rateLimitPerSecond > 0
  }
}

/// Settings a reload cannot change: each sized a table, a socket or a
/// process at start-up. The loop keeps the running value, and says so.
struct StartupValues {
  let log: LogLine

  // Not inlined: one copy per type of setting instead of one per directive
  // (the firmware's size budget).
  @inline(never)
  func keep<Value: Equatable>(
    _ value: inout Value, running: Value, _ directive: StaticString
  ) {
    guard value != running else { return }
    value = running
    warn(directive)
  }

  @inline(never)
  func warn(_ directive: StaticString) {
    log.start(.warning).append("reload: ").append(directive)
      .append(" changed; it takes effect at the next restart").emit(.warning)
  }

  /// `read` with every start-up value of `running`.
  static func applied(
    to read: Settings, running: Settings, startup: ReloadState, engine: Engine, log: LogLine
  ) -> Settings {
    let kept = StartupValues(log: log)
    var result = read
    kept.keep(&result.listen, running: running.listen, "listen")
    kept.keep(&result.workers, running: running.workers, "workers")
    kept.keep(&result.user, running: running.user, "user")
    kept.keep(&result.seccomp, running: running.seccomp, "seccomp")
    kept.keep(&result.inflight, running: running.inflight, "inflight")
    kept.keep(&result.tcpClients, running: running.tcpClients, "tcp-clients")
    kept.keep(&result.ednsPayloadSize, running: running.ednsPayloadSize, "edns-size")
    kept.keep(&result.cacheEntries, running: running.cacheEntries, "cache")
    kept.keep(&result.cacheBytes, running: running.cacheBytes, "cache-bytes")
    kept.keep(&result.cacheFilePath, running: running.cacheFilePath, "cache-file")
    kept.keep(&result.cacheSaveSeconds, running: running.cacheSaveSeconds, "cache-save-interval")
    kept.keep(&result.localNamesCapacity, running: running.localNamesCapacity, "local-names")
    kept.keep(&result.localDomain, running: running.localDomain, "domain")
    kept.keep(&result.nftsets, running: running.nftsets, "nftset")
    kept.keep(&result.metrics, running: running.metrics, "metrics")
    result.nftsetNames = running.nftsetNames
    result.nftsetGroups = running.nftsetGroups
    // Turned on only at start-up: off, they have no table (Engine.init).
    // Turned off, they simply stop.
    if engine.local.names.active.capacity == 0 {
      kept.keep(&result.hostsFiles, running: running.hostsFiles, "hosts")
      kept.keep(&result.leaseFiles, running: running.leaseFiles, "leases")
    }
    if !startup.startedWithHoldOn {
      kept.keep(&result.holdOnMilliseconds, running: 0, "hold-on")
    }
    if !startup.startedWithVerify { kept.keep(&result.verifyNames, running: [], "verify") }
    if !startup.startedWithRedirectProbes {
      kept.keep(&result.detectNXDomainRedirect, running: false, "detect-nxdomain-redirect")
    }
    if !startup.startedWithRateLimit {
      kept.keep(&result.rateLimitPerSecond, running: 0, "rate-limit")
    }
    return result
  }
}

extension Server {
  /// Reads the config again and puts it in force (`ReloadSource`). A
  /// refused config leaves everything as it was. The loop waits meanwhile
  /// (the time is logged): queries arriving wait in the sockets' buffers.
  func reload(now: UInt64, environment: inout LoopEnvironment) {
    reloadState.requested = false
    guard let source = reloadState.source else { return }
    for pid in source.workerProcesses { ProcessControl.hangUp(pid) }
    guard let read = source.read(log) else {
      log.start(.error).append("reload refused; the running config stays").emit(.error)
      return
    }
    let settings = StartupValues.applied(
      to: read, running: self.settings, startup: reloadState, engine: engine, log: log)
    let upstreams = resolveUpstreams(settings, log: log)
    guard
      let cacheEmptied = apply(
        settings: settings, upstreams: upstreams, now: now, environment: &environment)
    else { return }
    if let localNameFiles {
      self.localNameFiles = LocalNameFiles(
        context: context, fingerprintKey: localNameFiles.fingerprintKey)
      self.localNameFiles?.reload()
    }
    log.start(.info).append("reloaded ")
    if source.configPath.isEmpty { log.append("the compiled-in config") }
    log.append(source.configPath).append(": ").append(decimal: settings.overrides.count)
      .append(" overrides, ").append(decimal: upstreams.count).append(" upstreams; cache ")
      .append(cacheEmptied ? "emptied" : "kept").append(" (")
      .append(decimal: MonotonicClock.nowMilliseconds() &- now).append(" ms)").emit(.info)
  }

  /// `resolv-conf`: reads the file again when it changed (a stat(2) a
  /// second otherwise), and puts its nameservers in force.
  func pollResolvConf(now: UInt64, environment: inout LoopEnvironment) {
    guard !settings.resolvConfPath.isEmpty else { return }
    if !reloadState.resolvConfTerminatedPath.dropLast().elementsEqual(settings.resolvConfPath) {
      reloadState.resolvConfTerminatedPath = settings.resolvConfPath + [0]
    }
    let stamp = try? Files.stamp(terminatedPath: reloadState.resolvConfTerminatedPath)
    guard stamp != reloadState.resolvConfStamp else { return }
    reloadState.resolvConfStamp = stamp
    let upstreams = resolveUpstreams(settings, log: log)
    guard upstreams != engine.upstreams else { return }
    _ = apply(settings: settings, upstreams: upstreams, now: now, environment: &environment)
    log.start(.info).append("resolv-conf ").append(settings.resolvConfPath).append(": ")
      .append(decimal: upstreams.count).append(" upstreams in force").emit(.info)
  }

  /// Puts `settings` and `upstreams` in force. When the upstreams (or
  /// `ca-file`) changed, their transports are made anew and every question
  /// in flight is asked again of the new ones (Engine/Reload.swift). The
  /// cache is emptied when what it holds may now be answered differently:
  /// other upstreams, `for` routes, answer screening, TTL limits or DNSSEC
  /// (`Settings.cachedAnswersDiffer`).
  /// Returns whether it was, or nil (logged) when the new upstreams'
  /// transports cannot be set up: then nothing changed.
  func apply(
    settings: Settings, upstreams: [UpstreamServer], now: UInt64,
    environment: inout LoopEnvironment
  ) -> Bool? {
    let running = self.settings
    let upstreamsChanged = upstreams != engine.upstreams || settings.caFile != running.caFile
    if upstreamsChanged {
      let newTCP: TCPUpstreamPool
      let newHTTP: HTTPDNSUpstreamPool
      do throws(TLSSetup.Failure) {
        let setup = try TLSSetup(settings: settings, upstreams: upstreams)
        newTCP = try TCPUpstreamPool(upstreams: upstreams, setup: setup, context: context)
        newHTTP = try HTTPDNSUpstreamPool(upstreams: upstreams, setup: setup, context: context)
      } catch {
        log.start(.error).append("reload refused: cannot set up TLS: ").append(error.reason)
          .append("; the running config stays").emit(.error)
        return nil
      }
      engine.withdrawQueriesInFlight(
        replacingUpstreamsWith: upstreams, now: now, environment: &environment)
      tcpUpstreams.closeAll()
      httpdnsUpstreams.closeAll()
      tcpUpstreams = newTCP
      httpdnsUpstreams = newHTTP
      environment.tcpUpstreams = newTCP
      environment.httpdnsUpstreams = newHTTP
      context.upstreamAddresses = upstreams.map { SocketAddress($0.endpoint) }
    }
    let answersChanged =
      upstreamsChanged || settings.cachedAnswersDiffer(from: running)
    context.settings = settings
    engine.reconfigure(settings: settings)
    log.threshold = LogSeverity(rawValue: settings.logLevel.rawValue) ?? .info
    if answersChanged { engine.cache.removeAll() }
    if upstreamsChanged { engine.resendQueriesInFlight(now: now, environment: &environment) }
    if settings.overrideCheckPort != 0 || running.overrideCheckPort != 0 {
      overrideProbes.closeAll()
      engine.local.overrideHealth.markAllUp()
      overrideProbes = OverrideProber(context: context, logsSummary: worker == 0)
    }
    return answersChanged
  }
}
