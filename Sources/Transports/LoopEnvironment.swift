import CompiledConfig
import DNSWire
import Engine
import Platform

/// The engine's view of the loop: sends replies and queries on the server's
/// sockets. A value holding the server, passed `inout` to each engine call.
struct LoopEnvironment: EngineEnvironment {
  let server: Server

  mutating func sendToClient(framed: UnsafeMutableRawBufferPointer, client: ClientRef) {
    if client.isTCP {
      server.tcpClients.send(framed: framed, connection: client.connection, server: server)
      return
    }
    server.udpClients.send(
      UnsafeRawBufferPointer(rebasing: framed[2...]), listener: Int(client.listener),
      to: SocketAddress(client.endpoint), server: server)
  }

  mutating func sendToUpstream(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transport: UpstreamTransport,
    transaction: TransactionHandle
  ) -> Bool {
    if transport.isPipelinedStream {
      return server.tcpUpstreams.send(framed: framed, upstream: upstream, server: server)
    }
    if transport.isHTTP {
      return server.httpdnsUpstreams.send(
        framed: framed, upstream: upstream, transaction: transaction, server: server)
    }
    return server.udpUpstreams.send(
      UnsafeRawBufferPointer(rebasing: framed[2...]), upstream: upstream, transaction: transaction,
      server: server)
  }

  mutating func releaseUpstream(transaction: TransactionHandle, transport: UpstreamTransport) {
    if transport.isHTTP { server.httpdnsUpstreams.release(transaction: transaction) }
    guard transport == .udp else { return }
    server.udpUpstreams.endAttempt(slot: Int(transaction.slot), generation: transaction.generation)
  }

  mutating func randomUInt64() -> UInt64 { server.random.nextUInt64() }

  /// With `log-queries on` the query lines are written at info (shown with
  /// the default `log info`); otherwise at debug.
  var querySeverity: LogSeverity { server.settings.logQueries ? .info : .debug }

  var logsQueries: Bool { server.log.enabled(querySeverity) }

  /// `query 192.168.1.20:40000 udp www.example.com. type 1: rcode 0 from
  /// 127.0.0.1:5300 in 12 ms`
  mutating func logQuery(
    client: ClientRef, name: UnsafeRawBufferPointer, type: RRType, outcome: QueryOutcome,
    upstream: Int, latencyMilliseconds: UInt64
  ) {
    let log = server.log
    let severity = querySeverity
    log.start(severity).append("query ").append(address: SocketAddress(client.endpoint))
    log.append(client.isTCP ? " tcp " : " udp ")
    server.formatName(name)
    log.append(" type ").append(decimal: UInt64(type.rawValue)).append(": ")
    switch outcome {
    case .overridden: log.append("override")
    case .blocked: log.append("blocked")
    case .cached: log.append("cache")
    case .stale: log.append("stale cache")
    case .answered(let rcode):
      log.append("rcode ").append(decimal: UInt64(rcode.rawValue)).append(" from ")
      if upstream >= 0 { log.append(address: server.upstreamAddresses[upstream]) }
    case .servFail: log.append("SERVFAIL")
    case .refused: log.append("REFUSED")
    case .formErr: log.append("FORMERR")
    case .notImp: log.append("NOTIMP")
    case .badVersion: log.append("BADVERS")
    case .chaos: log.append("chaos statistics")
    }
    log.append(" in ").append(decimal: latencyMilliseconds).append(" ms")
    log.emit(severity)
  }

  mutating func report(_ event: EngineEvent, upstream: Int) {
    let log = server.log
    let severity: LogSeverity = event == .upstreamTimeout ? .debug : .warning
    guard log.enabled(severity) else { return }
    log.start(severity).append("upstream ")
      .append(address: server.upstreamAddresses[upstream])
    switch event {
    case .upstreamTimeout: log.append(" timed out")
    case .upstreamDown:
      log.append(" is down after repeated failures; trying others first")
      // A trusted upstream: say what happens to the names that need it.
      if server.engine.upstreams[upstream].trusted && !server.settings.verifyNames.isEmpty {
        log.append(
          server.settings.strict
            ? "; verify names get only trusted answers (strict): stale or SERVFAIL if none"
            : "; verify names fall back to plain upstreams (strict off)")
      }
    case .upstreamRecovered: log.append(" answers again")
    case .caseRandomizationDisabled:
      log.append(" does not preserve the question's case; 0x20 randomization off for it")
    }
    log.emit(severity)
  }

  /// A hijack defence fired. Events that a lying network causes on every
  /// query are logged at debug (the counters show them); a learned redirect
  /// address and a disagreement with the trusted upstream at warning: they
  /// are what a user wants to see — that the network lies.
  mutating func reportDefence(
    _ event: DefenceEvent, name: UnsafeRawBufferPointer, address: IPAddress?, upstream: Int
  ) {
    let log = server.log
    let severity: LogSeverity =
      event == .redirectAddressLearned || event == .verificationDisagreed ? .warning : .debug
    guard log.enabled(severity) else { return }
    log.start(severity).append("upstream ").append(address: server.upstreamAddresses[upstream])
    switch event {
    case .bogusDropped: log.append(" answered a bogus address for ")
    case .redirectRewritten: log.append(" redirected, answered NXDOMAIN instead, for ")
    case .rebindBlocked: log.append(" pointed a public name at a private address, refused: ")
    case .holdOnConflict: log.append(" sent two different answers (injection?) for ")
    case .verificationDisagreed: log.append(" disagrees with the trusted upstream on ")
    case .redirectAddressLearned:
      log.append(" redirects names that do not exist; learned as bogus-nxdomain")
    }
    if !name.isEmpty { server.formatName(name) }
    if let address {
      log.append(": ").append(host: SocketAddress(Endpoint(address: address, port: 0)))
    }
    log.emit(severity)
  }
}

extension Server {
  /// Appends a flat name's presentation form to the current log line.
  func formatName(_ name: UnsafeRawBufferPointer) {
    let written = Name.format(name, into: nameText)
    log.append(UnsafeRawBufferPointer(rebasing: nameText[0..<written]))
  }
}
