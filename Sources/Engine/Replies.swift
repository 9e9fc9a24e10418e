import CompiledConfig
import DNSWire

extension Engine {
  /// Sends the reply written in `buffers.replyOutput`, every reply's one
  /// way out, where a truncated one (TC=1) is counted.
  /// `latencyMilliseconds`: since the query arrived (0 when answered in the
  /// same call), for the latency histogram.
  func send<E: EngineEnvironment>(
    replyLength: Int, to client: ClientRef, latencyMilliseconds: UInt64 = 0, environment: inout E
  ) {
    // Only metrics read the histogram: a firmware without them skips it.
    #if !DNSWARD_NO_METRICS
      statistics.answerLatency.record(milliseconds: latencyMilliseconds)
    #endif
    let flags = HeaderFlags(rawValue: buffers.replyOutput.getUInt16(at: HeaderField.flags))
    if flags.has(HeaderFlags.truncated) { statistics[.truncated] += 1 }
    let framed = UnsafeMutableRawBufferPointer(
      rebasing: buffers.reply[0..<(Self.framing + replyLength)])
    environment.sendToClient(framed: framed, client: client)
  }

  /// Sends an accepted upstream answer to every waiting client, each with its
  /// own ID, RD/CD bits, question case and EDNS, truncated to its size.
  /// `now` (when the answer arrived) gives each client's logged latency.
  func relay<E: EngineEnvironment>(
    _ reply: Message, slot: Int, now: UInt64, environment: inout E
  ) {
    let transaction = transactions[slot]
    let name = table.name(slot)
    var sentToAClient = false
    let secure = validations.isSecure(slot)
    for waiter in table.waiters(of: slot) {
      if !sentToAClient {
        sentToAClient = true
        NftSetAnswers.add(
          reply, name: name, settings: inForce, statistics: statistics,
          environment: &environment)
      }
      // RA: dnsward offers recursion whatever the upstream says of itself. AA: it is not
      // the authority for what it relays (RFC 1035 §4.1.1), as the cache says too.
      var flags = reply.flags
      flags.rawValue &=
        ~(HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled | HeaderFlags.authoritative)
      flags.rawValue |= waiter.clientFlags | HeaderFlags.recursionAvailable
      if Self.validationIsBuiltIn && validatesDNSSEC {
        flags.set(HeaderFlags.authenticData, waiter.wantsAD && secure)
      }
      let limit = waiter.client.replyLimit(
        hasEDNS: waiter.hasEDNS, payloadSize: waiter.clientPayloadSize,
        ours: settings.ednsPayloadSize)
      let extendedRcode = reply.opt?.extendedRcode ?? 0
      var length = 0
      do throws(WireError) {
        length = try buffers.writeRelayed(
          reply, waiter: waiter, flags: flags, name: name, type: transaction.type,
          rrClass: transaction.rrClass, extendedRcode: extendedRcode, ours: settings.ednsPayloadSize
        )
      } catch {
        length = Int.max
      }
      if length != Int.max && secure {
        validations.capTTLs(
          in: UnsafeMutableRawBufferPointer(rebasing: buffers.replyOutput[0..<length]),
          to: validations.secureTTL(of: slot))
      }
      if length != Int.max
        && validations.strips(
          dnssecOK: waiter.dnssecOK, type: transaction.type, dnssec: validatesDNSSEC)
      {
        length = validations.stripDNSSECRecords(
          in: UnsafeMutableRawBufferPointer(rebasing: buffers.replyOutput[0..<length]))
      }
      if length > limit {
        length = buffers.writeTruncated(
          id: waiter.clientID, flags: flags, name: name, clientCase: waiter.clientCase,
          type: transaction.type, rrClass: transaction.rrClass, hasEDNS: waiter.hasEDNS,
          dnssecOK: waiter.dnssecOK, extendedRcode: extendedRcode, ours: settings.ednsPayloadSize)
      }
      statistics[.answered] += 1
      send(
        replyLength: length, to: waiter.client,
        latencyMilliseconds: waiter.latency(at: now), environment: &environment)
      if environment.logsQueries {
        environment.logQuery(
          client: waiter.client, name: name, type: transaction.type,
          outcome: .answered(reply.rcode), upstream: Int(transaction.upstream),
          latencyMilliseconds: waiter.latency(at: now))
      }
    }
  }

  /// Every upstream failed for `slot`: its clients get a stale answer if
  /// the cache has one (RFC 8767), SERVFAIL otherwise.
  func failWaiters<E: EngineEnvironment>(slot: Int, now: UInt64, environment: inout E) {
    if serveStale(slot: slot, now: now, environment: &environment) { return }
    replyToWaiters(slot: slot, rcode: .serverFailure, now: now, environment: &environment)
  }

  /// Answers every client waiting on `slot` with `rcode` and no records
  /// (SERVFAIL when the upstreams failed, NXDOMAIN for a redirect answer),
  /// with an Extended DNS Error when `extendedError` is not 0.
  func replyToWaiters<E: EngineEnvironment>(
    slot: Int, rcode: ResponseCode, extendedError: UInt16 = 0, now: UInt64, environment: inout E
  ) {
    let transaction = transactions[slot]
    let name = table.name(slot)
    for waiter in table.waiters(of: slot) {
      sendFailure(
        to: waiter, name: name, type: transaction.type, rrClass: transaction.rrClass,
        rcode: rcode, extendedError: extendedError, upstream: Int(transaction.upstream),
        now: now, environment: &environment)
    }
  }

  /// One waiter's reply with `rcode` and no records (`writeFailure`).
  func sendFailure<E: EngineEnvironment>(
    to waiter: Waiter, name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass,
    rcode: ResponseCode, extendedError: UInt16, upstream: Int, now: UInt64, environment: inout E
  ) {
    let length = buffers.writeFailure(
      to: waiter, name: name, type: type, rrClass: rrClass, rcode: rcode,
      extendedError: extendedError, ours: settings.ednsPayloadSize)
    let isServFail = rcode == .serverFailure
    if isServFail { statistics[.servFail] += 1 } else { statistics[.answered] += 1 }
    send(
      replyLength: length, to: waiter.client,
      latencyMilliseconds: waiter.latency(at: now), environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: waiter.client, name: name, type: type,
        outcome: isServFail ? .servFail : .answered(rcode),
        upstream: isServFail ? -1 : upstream,
        latencyMilliseconds: waiter.latency(at: now))
    }
  }

  /// Sends an error reply made from the client's own packet
  /// (`MessageBuffers.writeError`) and logs it.
  func replyError<E: EngineEnvironment>(
    _ rcode: ResponseCode, to packet: UnsafeRawBufferPointer, query: Message?, client: ClientRef,
    environment: inout E
  ) {
    let length = buffers.writeError(
      rcode, to: packet, query: query, ours: settings.ednsPayloadSize)
    send(replyLength: length, to: client, environment: &environment)
    if environment.logsQueries {
      let outcome: QueryOutcome
      switch rcode {
      case .refused: outcome = .refused
      case .formatError: outcome = .formErr
      case .notImplemented: outcome = .notImp
      case .badVersion: outcome = .badVersion
      case .serverFailure: outcome = .servFail
      // NXDOMAIN and NODATA for questions never forwarded (NeverForwarded.swift).
      default: outcome = .answered(rcode)
      }
      let length = query?.copyQuestionName(into: buffers.name, lowercase: true) ?? 0
      environment.logQuery(
        client: client, name: UnsafeRawBufferPointer(rebasing: buffers.name[0..<length]),
        type: query?.questionType ?? RRType(rawValue: 0), outcome: outcome, upstream: -1,
        latencyMilliseconds: 0)
    }
  }

  /// Sends a reply a stage made itself (`LocalReply`, in
  /// `buffers.replyOutput`) to the client of `query` (lower-cased `name`):
  /// as written if within the client's size, else header and question
  /// with TC=1 (RFC 7766 §5); counted in its statistic and logged.
  func sendLocal<E: EngineEnvironment>(
    _ reply: LocalReply, query: Message, name: UnsafeRawBufferPointer, client: ClientRef,
    environment: inout E
  ) {
    let hasEDNS = query.opt != nil
    let limit = client.replyLimit(
      hasEDNS: hasEDNS, payloadSize: query.opt?.udpPayloadSize ?? 512,
      ours: settings.ednsPayloadSize)
    var length = reply.length
    if length > limit {
      let casedLength = query.copyQuestionName(into: buffers.casedName)
      let clientCase = CaseMask(
        of: UnsafeRawBufferPointer(rebasing: buffers.casedName[0..<casedLength]))
      length = buffers.writeTruncated(
        id: query.id, flags: reply.flags, name: name, clientCase: clientCase,
        type: query.questionType, rrClass: query.questionClass, hasEDNS: hasEDNS,
        dnssecOK: query.opt?.dnssecOK ?? false, extendedRcode: 0, ours: settings.ednsPayloadSize)
    }
    if let statistic = reply.statistic { statistics[statistic] += 1 }
    send(replyLength: length, to: client, environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: client, name: name, type: query.questionType, outcome: reply.outcome,
        upstream: -1, latencyMilliseconds: 0)
    }
  }
}
