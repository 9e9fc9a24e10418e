import CompiledConfig
import DNSWire

extension Engine {
  /// Sends the slot's question to an upstream: `preferred` (a retry over TCP
  /// or without 0x20) or the first untried one that is not down. Tries the
  /// next when sending fails; answers SERVFAIL when none is left.
  func dispatch<E: EngineEnvironment>(
    slot: Int, now: UInt64, preferred: Int? = nil, transport: UpstreamTransport? = nil,
    environment: inout E
  ) {
    var preferred = preferred
    var transportOverride = transport
    while true {
      guard
        let upstream = preferred
          ?? selection.next(
            type: transactions[slot].type, tried: transactions[slot].tried,
            route: transactions[slot].route, isAnswer: transactions[slot].purpose == .answer,
            name: table.name(slot), settings: inForce, now: now)
      else {
        failWaiters(slot: slot, now: now, environment: &environment)
        release(slot: slot)
        return
      }
      let chosenTransport = transportOverride ?? upstreams[upstream].transport
      if upstream < 64 { transactions[slot].tried |= 1 << UInt64(upstream) }
      transactions[slot].upstream = Int16(upstream)
      transactions[slot].transport = chosenTransport
      table.arm(slot, deadline: now + UInt64(settings.timeoutMilliseconds))
      transactions[slot].sentAt = now
      transactions[slot].sentID = table.freshID(
        upstream: upstream, transport: chosenTransport, except: slot, environment: &environment)
      let randomizeCase =
        chosenTransport == .udp && transactions[slot].caseAllowed
        && selection.usesCaseRandomization(upstream, under: settings)
      let written = buffers.writeUpstreamQuery(
        id: transactions[slot].sentID, name: table.name(slot), type: transactions[slot].type,
        rrClass: transactions[slot].rrClass, dnssecOK: transactions[slot].dnssecOK,
        checkingDisabled: transactions[slot].checkingDisabled, ours: settings.ednsPayloadSize,
        validating: Self.validationIsBuiltIn && validatesDNSSEC
          && transactions[slot].purpose != .dnssecProbe, randomizeCase: randomizeCase,
        environment: &environment)
      transactions[slot].sentCase = written.sentCase
      statistics[.forwarded] += 1
      let framed = UnsafeMutableRawBufferPointer(
        rebasing: buffers.query[0..<(Self.framing + written.count)])
      if environment.sendToUpstream(
        framed: framed, upstream: upstream, transport: chosenTransport,
        transaction: table.handle(slot))
      {
        return
      }
      environment.releaseUpstream(transaction: table.handle(slot), transport: chosenTransport)
      selection.noteFailure(upstream, now: now, kind: .error, environment: &environment)
      preferred = nil
      transportOverride = nil
    }
  }

  /// The attempt in `slot` is over (its transport was told, or ends it
  /// itself): the question is asked again as a new attempt (a new
  /// generation, so the old one's late replies are stale): of `upstream`
  /// over `transport` when given (a truncated answer asked over TCP, or
  /// without 0x20), else of the next upstream; with none left, `dispatch`
  /// answers the waiters.
  func failOver<E: EngineEnvironment>(
    slot: Int, now: UInt64, to upstream: Int? = nil, over transport: UpstreamTransport? = nil,
    environment: inout E
  ) {
    table.renew(slot)
    dispatch(
      slot: slot, now: now, preferred: upstream, transport: transport, environment: &environment)
  }

  /// The TCP connection to `upstream` broke: every attempt waiting on it
  /// fails over now rather than at its deadline.
  public func upstreamConnectionLost<E: EngineEnvironment>(
    upstream: Int, now: UInt64, environment: inout E
  ) {
    // Failing over re-arms a slot at the newest end of the deadline list;
    // the walk stops at the newest as it was, so none is visited twice.
    var failed = false
    for slot in table.inDeadlineOrder() {
      let transaction = transactions[slot]
      guard transaction.transport.isPipelinedStream, Int(transaction.upstream) == upstream
      else { continue }
      failed = true
      table.endAttempt(slot, environment: &environment)
      failOver(slot: slot, now: now, environment: &environment)
    }
    if failed {
      selection.noteFailure(upstream, now: now, kind: .error, environment: &environment)
    }
  }
}

extension Engine {
  /// The transport learned that an attempt cannot succeed (an ICMP port
  /// unreachable on its UDP socket, a send error) and ended it: fail over
  /// now.
  public func attemptFailed<E: EngineEnvironment>(
    transaction: TransactionHandle, now: UInt64, environment: inout E
  ) {
    guard let slot = table.slot(for: transaction) else { return }
    selection.noteFailure(
      Int(transactions[slot].upstream), now: now, kind: .error,
      environment: &environment)
    failOver(slot: slot, now: now, environment: &environment)
  }
}

extension MessageBuffers {
  /// Writes an upstream query in `query` after the framing bytes: `id`,
  /// RD, the client's CD, the question (`name` lower-cased)
  /// (0x20-encoded if `randomizeCase`), and an OPT with our payload size
  /// (`ours`) and the client's DO bit. When `validating`, DO=1 and CD=1
  /// whatever the client sent (RFC 6840 §5.9): the upstream returns the
  /// RRSIGs and NSEC(3) records and filters nothing, so dnsward decides
  /// what is bogus itself and can say why. Returns its length and the case
  /// the name went out in (nil: lower case).
  func writeUpstreamQuery<E: EngineEnvironment>(
    id: UInt16, name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, dnssecOK: Bool,
    checkingDisabled: Bool, ours: UInt16, validating: Bool, randomizeCase: Bool,
    environment: inout E
  ) -> (count: Int, sentCase: CaseMask?) {
    let output = UnsafeMutableRawBufferPointer(rebasing: query[Self.framing...])
    var flags = HeaderFlags(rawValue: HeaderFlags.recursionDesired)
    flags.set(HeaderFlags.checkingDisabled, checkingDisabled || validating)
    var writer = MessageWriter(buffer: output)
    let nameStart = HeaderField.size
    // 12 + 255 + 4 + 11 octets always fit the 512-byte query buffer.
    do throws(WireError) {
      try writer.writeHeader(id: id, flags: flags, questions: 1, additionals: 1)
      try writer.writeQuestion(name: name, type: type, rrClass: rrClass, compress: false)
      try writer.writeOPT(udpPayloadSize: ours, dnssecOK: dnssecOK || validating)
    } catch {
      preconditionFailure("upstream query exceeds its buffer")
    }
    guard randomizeCase else { return (writer.count, nil) }
    let sentName = UnsafeMutableRawBufferPointer(
      rebasing: output[nameStart..<(nameStart + name.count)])
    Name.randomizeCase(sentName) { environment.randomUInt64() }
    return (writer.count, CaseMask(of: UnsafeRawBufferPointer(sentName)))
  }
}
