import CompiledConfig
import DNSWire
import Engine
import Platform

/// The engine's view of the loop: the pools it sends replies and queries
/// through, its random bits, and its log lines. One object, made by the
/// server and passed `inout` to each engine call (a borrowed reference: no
/// copy, no reference count per call). A pool gets it as a parameter on
/// the paths that call the engine, never keeps it: the environment holds
/// the pools, so a pool holding it would be a cycle.
final class LoopEnvironment: EngineEnvironment {
  let context: LoopContext
  let udpClients: UDPClients
  let tcpClients: TCPClientPool
  let udpUpstreams: UDPUpstreamPool
  /// Replaced with the server's when a reload changes the upstreams.
  var tcpUpstreams: TCPUpstreamPool
  var httpdnsUpstreams: HTTPDNSUpstreamPool
  /// `nftset`: nil without it.
  let nftsets: NftSetSink?
  let random = SecureRandom()
  /// A name in presentation form for the log: every octet may take four
  /// characters (`\DDD`).
  let nameText: UnsafeMutableRawBufferPointer

  init(
    context: LoopContext, udpClients: UDPClients, tcpClients: TCPClientPool,
    udpUpstreams: UDPUpstreamPool, tcpUpstreams: TCPUpstreamPool,
    httpdnsUpstreams: HTTPDNSUpstreamPool, nftsets: NftSetSink?
  ) {
    self.context = context
    self.udpClients = udpClients
    self.tcpClients = tcpClients
    self.udpUpstreams = udpUpstreams
    self.tcpUpstreams = tcpUpstreams
    self.httpdnsUpstreams = httpdnsUpstreams
    self.nftsets = nftsets
    nameText = .allocate(byteCount: 4 * Name.maxLength, alignment: 1)
  }

  deinit { nameText.deallocate() }

  func sendToClient(framed: UnsafeMutableRawBufferPointer, client: ClientRef) {
    if client.isTCP {
      tcpClients.send(framed: framed, connection: client.connection)
      return
    }
    udpClients.send(
      UnsafeRawBufferPointer(rebasing: framed[2...]), listener: Int(client.listener),
      to: SocketAddress(client.endpoint))
  }

  func sendToUpstream(
    framed: UnsafeMutableRawBufferPointer, upstream: Int, transport: UpstreamTransport,
    transaction: TransactionHandle
  ) -> Bool {
    if transport.isPipelinedStream {
      return tcpUpstreams.send(framed: framed, upstream: upstream)
    }
    if transport.isHTTP {
      return httpdnsUpstreams.send(
        framed: framed, upstream: upstream, transaction: transaction)
    }
    return udpUpstreams.send(
      UnsafeRawBufferPointer(rebasing: framed[2...]), upstream: upstream, transaction: transaction)
  }

  func releaseUpstream(transaction: TransactionHandle, transport: UpstreamTransport) {
    if transport.isHTTP { httpdnsUpstreams.release(transaction: transaction) }
    guard transport == .udp else { return }
    udpUpstreams.endAttempt(slot: Int(transaction.slot), generation: transaction.generation)
  }

  func randomUInt64() -> UInt64 { random.nextUInt64() }

  func addToNftSet(directives: UInt64, address: UnsafeRawBufferPointer, ttl: UInt32) {
    nftsets?.add(directives: directives, address: address, ttl: ttl)
  }

  /// With `log-queries on` the query lines are written at info (shown with
  /// the default `log info`); otherwise at debug.
  var querySeverity: LogSeverity { context.settings.logQueries ? .info : .debug }

  /// Read only while validating: the engine reads no clock.
  var wallClockSeconds: Int64 { Int64(WallClock.nowSeconds()) }
  var logsQueries: Bool { context.log.enabled(querySeverity) }

  /// `query 192.168.1.20:40000 udp www.example.com. A: NOERROR from
  /// 127.0.0.1:5300 in 12 ms` (`TYPE65280`, `RCODE11` for codes without a
  /// mnemonic).
  func logQuery(
    client: ClientRef, name: UnsafeRawBufferPointer, type: RRType, outcome: QueryOutcome,
    upstream: Int, latencyMilliseconds: UInt64
  ) {
    let log = context.log
    let severity = querySeverity
    log.start(severity).append("query ").append(address: SocketAddress(client.endpoint))
    log.append(client.isTCP ? " tcp " : " udp ")
    formatName(name)
    log.append(" ")
    if let mnemonic = type.mnemonic {
      log.append(mnemonic.bytes)
    } else {
      log.append("TYPE").append(decimal: UInt64(type.rawValue))
    }
    log.append(": ")
    switch outcome {
    case .overridden: log.append("override")
    case .blocked: log.append("blocked")
    case .cached: log.append("cache")
    case .stale: log.append("stale cache")
    case .answered(let rcode):
      if let mnemonic = rcode.mnemonic {
        log.append(mnemonic.bytes)
      } else {
        log.append("RCODE").append(decimal: UInt64(rcode.rawValue))
      }
      log.append(" from ")
      if upstream >= 0 { log.append(address: context.upstreamAddresses[upstream]) }
    case .servFail: log.append("SERVFAIL")
    case .refused: log.append("REFUSED")
    case .formErr: log.append("FORMERR")
    case .notImp: log.append("NOTIMP")
    case .badVersion: log.append("BADVERS")
    case .chaos: log.append("chaos statistics")
    case .localName: log.append("local name")
    }
    log.append(" in ").append(decimal: latencyMilliseconds).append(" ms")
    log.emit(severity)
  }

  func report(_ event: EngineEvent, upstream: Int) {
    let log = context.log
    let severity: LogSeverity = event == .upstreamTimeout ? .debug : .warning
    guard log.enabled(severity) else { return }
    log.start(severity)
    if case .dnssecStandingChanged = event { log.append("dnssec auto: ") }
    log.append("upstream ").append(address: context.upstreamAddresses[upstream])
    switch event {
    case .upstreamTimeout: log.append(" timed out")
    case .upstreamDown:
      log.append(" is down after repeated failures; trying others first")
      // A trusted upstream: say what happens to the names that need it.
      if context.engine.upstreams[upstream].trusted && !context.settings.verifyNames.isEmpty {
        log.append(
          context.settings.strict
            ? "; verify names get only trusted answers (strict): stale or SERVFAIL if none"
            : "; verify names fall back to plain upstreams (strict off)")
      }
    case .upstreamRecovered: log.append(" answers again")
    case .caseRandomizationDisabled:
      log.append(" does not preserve the question's case; 0x20 randomization off for it")
    case .dnssecTimesUnchecked:
      log.append(
        " answered before the wall clock passed the build date: DNSSEC signature times unchecked")
    case .dnssecStandingChanged(let standing):
      log.append(" ").append(standing.reason)
      log.append(
        standing.isFailing
          ? ": its answers are used without validation" : " again: its answers are validated")
    }
    log.emit(severity)
  }

  /// A hijack defence fired. Events that a lying network causes on every
  /// query are logged at debug (the counters show them); a learned redirect
  /// address and a disagreement with the trusted upstream at warning: they
  /// are what a user wants to see — that the network lies.
  func reportDefence(
    _ event: DefenceEvent, name: UnsafeRawBufferPointer, address: IPAddress?, upstream: Int
  ) {
    let log = context.log
    let severity: LogSeverity =
      event == .redirectAddressLearned || event == .verificationDisagreed ? .warning : .debug
    guard log.enabled(severity) else { return }
    log.start(severity).append("upstream ").append(address: context.upstreamAddresses[upstream])
    switch event {
    case .bogusDropped: log.append(" answered a bogus address for ")
    case .redirectRewritten: log.append(" redirected, answered NXDOMAIN instead, for ")
    case .rebindBlocked: log.append(" pointed a public name at a private address, refused: ")
    case .holdOnConflict: log.append(" sent two different answers (injection?) for ")
    case .verificationDisagreed: log.append(" disagrees with the trusted upstream on ")
    case .redirectAddressLearned:
      log.append(" redirects names that do not exist; learned as bogus-nxdomain")
    }
    if !name.isEmpty { formatName(name) }
    if let address {
      log.append(": ").append(host: SocketAddress(Endpoint(address: address, port: 0)))
    }
    log.emit(severity)
  }

  /// Appends a flat name's presentation form to the current log line.
  func formatName(_ name: UnsafeRawBufferPointer) {
    let written = Name.format(name, into: nameText)
    context.log.append(UnsafeRawBufferPointer(rebasing: nameText[0..<written]))
  }
}
