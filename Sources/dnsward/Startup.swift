import CompiledConfig
import Platform
import Transports

/// Binds, drops privileges, logs what is in force, and runs the loop until
/// SIGINT/SIGTERM. Returns the process exit status.
func serve(_ settings: Settings) -> Int32 {
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
  let server: Server
  do {
    server = try Server(settings: settings, upstreams: upstreams, log: log)
  } catch {
    switch error {
    case .epoll(let code):
      log.start(.error).append("cannot set up the event loop: ").append(errno: code).emit(.error)
    case .bind(let address, let code):
      log.start(.error).append("cannot listen on ").append(address: address).append(": ")
        .append(errno: code).emit(.error)
    }
    return 1
  }
  if !settings.user.isEmpty {
    if Privileges.effectiveUserID == 0 {
      do {
        try Privileges.drop(to: settings.user)
        log.start(.info).append("running as user ").append(settings.user).emit(.info)
      } catch {
        log.start(.error).append("cannot switch to user ").append(settings.user).append(": ")
        switch error {
        case .unknownUser: log.append("no such user")
        case .failed(let code): log.append(errno: code)
        }
        log.emit(.error)
        return 1
      }
    } else {
      log.start(.debug).append("not root; keeping the current user instead of ")
        .append(settings.user).emit(.debug)
    }
  }
  // After dropping privileges: the file is then read as the account that
  // writes it (its directory must be writable by `user`).
  server.loadCacheFile()
  logStart(server: server, upstreams: upstreams, log: log)
  server.run()
  server.logCounters()
  server.shutdown()
  return 0
}

func logStart(server: Server, upstreams: [UpstreamServer], log: LogLine) {
  let settings = server.settings
  log.start(.info).append("listening on")
  for address in server.boundAddresses { log.append(" ").append(address: address) }
  log.append(" (udp+tcp)").emit(.info)
  log.start(.info).append("upstreams:")
  if upstreams.isEmpty { log.append(" none (only local answers)") }
  for upstream in upstreams {
    log.append(upstream.transport == .tcp ? " tcp:" : " udp:").append(
      address: SocketAddress(
        high: upstream.endpoint.address.high, low: upstream.endpoint.address.low,
        port: upstream.endpoint.port, isIPv6: !upstream.endpoint.address.isIPv4))
  }
  log.emit(.info)
  log.start(.info).append("overrides ").append(decimal: settings.overrides.count)
    .append(", inflight ").append(decimal: settings.inflight)
    .append(", timeout ").append(decimal: UInt64(settings.timeoutMilliseconds)).append("ms")
    .append(", tcp-clients ").append(decimal: settings.tcpClients).emit(.info)
}
