import CompiledConfig
import Platform
import Transports

/// Binds, drops privileges, logs what is in force, and runs the loop until
/// SIGINT/SIGTERM; SIGHUP reads the config again through `reload`. Returns
/// the process exit status.
func serve(_ settings: Settings, reload: ReloadSource) -> Int32 {
  let log = LogLine(threshold: LogSeverity(rawValue: settings.logLevel.rawValue) ?? .info)
  let upstreams = resolveUpstreams(settings, log: log)
  // One socket per query in flight, per client TCP connection, per TCP
  // upstream and per listener, and a few for epoll, signals and logging.
  let descriptorsNeeded =
    settings.inflight + settings.tcpClients + upstreams.count + 2 * settings.listen.count + 16
  if let limit = ResourceLimits.raiseOpenFiles(to: descriptorsNeeded), limit < descriptorsNeeded {
    log.start(.warning).append("open-file limit is ").append(decimal: limit)
      .append(" but inflight and tcp-clients need ").append(decimal: descriptorsNeeded)
      .append("; queries past the limit get SERVFAIL").emit(.warning)
  }
  // Before the fork: the board is shared by all workers (MetricsBoard.swift).
  let metrics: MetricsSetup?
  do {
    metrics = try MetricsSetup.open(settings, workers: settings.workers, log: log)
  } catch {
    return 1
  }
  let sets: [Listeners]
  do throws(Listeners.OpenError) {
    sets = try Listeners.open(settings.listen, workers: settings.workers)
  } catch {
    switch error {
    case .bind(let address, let code):
      log.start(.error).append("cannot listen on ").append(address: address).append(": ")
        .append(errno: code).emit(.error)
    }
    return 1
  }
  for address in sets[0].notYetConfigured {
    log.start(.warning).append("listen ").append(address: address)
      .append(": no interface has this address yet; answering there once it is configured")
      .emit(.warning)
  }
  guard dropPrivileges(settings, log: log) else {
    for set in sets { set.close() }
    return 1
  }
  let (worker, children) = startWorkers(count: sets.count, log: log)
  for index in 0..<sets.count where index != worker { sets[index].close() }
  let server: Server
  do {
    server = try Server(
      settings: settings, upstreams: upstreams, listeners: sets[worker], log: log, worker: worker,
      metrics: metrics)
  } catch {
    if let reason = error.tlsReason {
      log.start(.error).append("cannot set up TLS: ").append(reason)
      if error.tlsCode != 0 {
        log.append(" (mbedTLS -0x").append(hex: UInt64(-Int64(error.tlsCode)), digits: 4)
          .append(")")
      }
      if !settings.caFile.isEmpty { log.append("; ca-file ").append(settings.caFile) }
      log.emit(.error)
    } else {
      log.start(.error).append("cannot set up the event loop: ").append(errno: error.code)
        .emit(.error)
    }
    stopWorkers(children)
    return 1
  }
  var reload = reload
  reload.workerProcesses = children
  server.reloadSource = reload
  if worker == 0 {
    // After dropping privileges: the file is then read as the account that
    // writes it (its directory must be writable by `user`).
    server.loadCacheFile()
    logStart(server: server, upstreams: upstreams, log: log)
  }
  if settings.seccomp {
    installSystemCallFilter(
      settings, worker: worker, readsConfig: !reload.configPath.isEmpty, log: log)
  }
  server.run()
  server.logCounters()
  server.shutdown()
  stopWorkers(children)
  return 0
}

/// Switches to `user` when running as root. Returns false (logged) when
/// that fails: better not to run than to run as root by surprise.
func dropPrivileges(_ settings: Settings, log: LogLine) -> Bool {
  guard !settings.user.isEmpty else { return true }
  guard Privileges.effectiveUserID == 0 else {
    log.start(.debug).append("not root; keeping the current user instead of ")
      .append(settings.user).emit(.debug)
    return true
  }
  do {
    // `nftset`: the kernel checks CAP_NET_ADMIN at every netlink batch.
    try Privileges.drop(
      to: settings.user, keepingNetworkAdministration: !settings.nftsets.isEmpty)
    log.start(.info).append("running as user ").append(settings.user).emit(.info)
    return true
  } catch {
    log.start(.error).append("cannot switch to user ").append(settings.user).append(": ")
    switch error {
    case .unknownUser: log.append("no such user")
    case .failed(let code): log.append(errno: code)
    }
    log.emit(.error)
    return false
  }
}

/// `seccomp on`: from here on only the loop's system calls are allowed. A
/// kernel without seccomp filters (or qemu-user) is logged at warning and
/// dnsward runs unfiltered: a LAN without its resolver would be worse.
func installSystemCallFilter(_ settings: Settings, worker: Int, readsConfig: Bool, log: LogLine) {
  // The cache file is written; hosts, lease and resolv-conf files are read
  // again when they change, and the config file (with its lists) at SIGHUP.
  let writesFiles = !settings.cacheFilePath.isEmpty
  let readsFiles =
    readsConfig || !settings.hostsFiles.isEmpty || !settings.leaseFiles.isEmpty
    || !settings.resolvConfPath.isEmpty
  if let refusal = SystemCallFilter.install(
    allowFiles: writesFiles || readsFiles, writesFiles: writesFiles)
  {
    log.start(.warning).append("seccomp: the kernel refused the system-call filter (")
      .append(errno: refusal).append("); running without it").emit(.warning)
  } else if worker == 0 {
    log.start(.info).append("seccomp: system-call filter installed").emit(.info)
  }
}

/// `workers N`: forks workers 1..<N, each to run its own loop on its own
/// listener set. Returns this process's worker number and, in worker 0
/// (the original process), the children's pids. A worker that cannot be
/// forked is logged and left out; its listeners are closed, so the kernel
/// gives its share of clients to the others.
func startWorkers(count: Int, log: LogLine) -> (worker: Int, children: [Int32]) {
  var children: [Int32] = []
  for worker in 1..<max(count, 1) {
    let pid = ProcessControl.forkWorker()
    if pid == 0 { return (worker, []) }
    if pid < 0 {
      log.start(.warning).append("cannot start worker ").append(decimal: worker).append(": ")
        .append(errno: Errno(rawValue: ProcessControl.lastError)).emit(.warning)
      continue
    }
    children.append(pid)
  }
  if count > 1 {
    log.start(.info).append("workers: ").append(decimal: children.count + 1).emit(.info)
  }
  return (0, children)
}

/// Asks every worker to stop (SIGTERM) and waits for them.
func stopWorkers(_ children: [Int32]) {
  for pid in children { ProcessControl.terminate(pid) }
  for pid in children { _ = ProcessControl.wait(pid) }
}

func logStart(server: Server, upstreams: [UpstreamServer], log: LogLine) {
  let settings = server.settings
  log.start(.info).append("listening on")
  for address in server.boundAddresses { log.append(" ").append(address: address) }
  log.append(" (udp+tcp)").emit(.info)
  log.start(.info).append("upstreams:")
  if upstreams.isEmpty { log.append(" none (only local answers)") }
  for upstream in upstreams {
    let transport: StaticString
    switch upstream.transport {
    case .udp: transport = " udp:"
    case .tcp: transport = " tcp:"
    case .httpdns: transport = " httpdns:"
    case .tls: transport = " tls:"
    case .https: transport = " https:"
    }
    log.append(transport).append(
      address: SocketAddress(
        high: upstream.endpoint.address.high, low: upstream.endpoint.address.low,
        port: upstream.endpoint.port, isIPv6: !upstream.endpoint.address.isIPv4))
    if upstream.transport.usesTLS {
      log.append(" (").append(upstream.tlsName)
      if !upstream.pin.isEmpty { log.append(", pinned") }
      log.append(")")
    }
    if upstream.trusted { log.append(" trusted") }
  }
  log.emit(.info)
  var usesTLS = false
  for upstream in upstreams where upstream.transport.usesTLS { usesTLS = true }
  if usesTLS {
    log.start(.info).append("tls: certificates checked against ")
    if settings.caFile.isEmpty {
      log.append("the system CA bundle")
    } else {
      log.append(settings.caFile)
    }
    log.emit(.info)
  }
  log.start(.info).append("overrides ").append(decimal: settings.overrides.count)
    .append(", inflight ").append(decimal: settings.inflight)
    .append(", timeout ").append(decimal: UInt64(settings.timeoutMilliseconds)).append("ms")
    .append(", tcp-clients ").append(decimal: settings.tcpClients).emit(.info)
}
