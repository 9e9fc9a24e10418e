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
          ?? chooseUpstream(for: slot, now: now)
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
      transactions[slot].sentID = freshID(
        upstream: upstream, transport: chosenTransport, except: slot, environment: &environment)
      let randomizeCase =
        chosenTransport == .udp && transactions[slot].caseAllowed
        && selection.usesCaseRandomization(upstream, under: settings)
      let length = writeUpstreamQuery(
        slot: slot, randomizeCase: randomizeCase, environment: &environment)
      statistics[.forwarded] += 1
      let framed = UnsafeMutableRawBufferPointer(
        rebasing: buffers.query[0..<(Self.framing + length)])
      if environment.sendToUpstream(
        framed: framed, upstream: upstream, transport: chosenTransport,
        transaction: table.handle(slot))
      {
        return
      }
      environment.releaseUpstream(transaction: table.handle(slot), transport: chosenTransport)
      noteFailure(upstream: upstream, now: now, kind: .error, environment: &environment)
      preferred = nil
      transportOverride = nil
    }
  }

  /// A random ID for an upstream query. Over TCP, replies are matched by ID
  /// among the queries pipelined on one connection, so the ID must not be in
  /// use there already (RFC 7766 §7); over UDP each query has its own socket.
  func freshID<E: EngineEnvironment>(
    upstream: Int, transport: UpstreamTransport, except slot: Int, environment: inout E
  ) -> UInt16 {
    while true {
      let id = UInt16(truncatingIfNeeded: environment.randomUInt64())
      guard transport.isPipelinedStream,
        table.pipelinedQuery(upstream: upstream, id: id, except: slot) != nil
      else { return id }
    }
  }

  /// The next upstream for `slot`'s question (`UpstreamSelection.choose`:
  /// untried, serving its route group and type, trusted for a `strict`
  /// verify name, not down if any such is up).
  func chooseUpstream(for slot: Int, now: UInt64) -> Int? {
    let transaction = transactions[slot]
    return selection.choose(
      type: transaction.type, tried: transaction.tried,
      trustedOnly: settings.strict && transaction.purpose == .answer
        && settings.isVerified(table.name(slot)),
      route: transaction.route, now: now)
  }

  /// Builds the upstream query in `buffers.query` after the framing bytes:
  /// fresh ID, RD, the client's CD, the question (0x20-encoded if asked),
  /// and an OPT with our payload size and the client's DO bit. With
  /// `dnssec`, DO=1 and CD=1 whatever the client sent (RFC 6840 §5.9): the
  /// upstream returns the RRSIGs and NSEC(3) records and filters nothing, so
  /// dnsward decides what is bogus itself and can say why.
  func writeUpstreamQuery<E: EngineEnvironment>(
    slot: Int, randomizeCase: Bool, environment: inout E
  ) -> Int {
    let transaction = transactions[slot]
    let output = UnsafeMutableRawBufferPointer(rebasing: buffers.query[Self.framing...])
    var flags = HeaderFlags(rawValue: HeaderFlags.recursionDesired)
    let validating = Self.validationIsBuiltIn && settings.dnssec
    flags.set(HeaderFlags.checkingDisabled, transaction.checkingDisabled || validating)
    var writer = MessageWriter(buffer: output)
    let nameStart = HeaderField.size
    // 12 + 255 + 4 + 11 octets always fit the 512-byte query buffer.
    do throws(WireError) {
      try writer.writeHeader(id: transaction.sentID, flags: flags, questions: 1, additionals: 1)
      try writer.writeQuestion(
        name: table.name(slot), type: transaction.type, rrClass: transaction.rrClass,
        compress: false)
      try writer.writeOPT(
        udpPayloadSize: settings.ednsPayloadSize, dnssecOK: transaction.dnssecOK || validating)
    } catch {
      preconditionFailure("upstream query exceeds its buffer")
    }
    let sentName = UnsafeMutableRawBufferPointer(
      rebasing: output[nameStart..<(nameStart + table.name(slot).count)])
    if randomizeCase {
      Name.randomizeCase(sentName) { environment.randomUInt64() }
      transactions[slot].sentCase = CaseMask(of: UnsafeRawBufferPointer(sentName))
    } else {
      transactions[slot].sentCase = nil
    }
    return writer.count
  }

  /// Counts a failure of `upstream` towards marking it down, and in its
  /// `timeouts` or `failures`. `kind` defaults to `.timeout` because the
  /// deadline expiry in `tick` calls this without it; every other caller
  /// passes `.error`.
  func noteFailure<E: EngineEnvironment>(
    upstream: Int, now: UInt64, kind: UpstreamFailure, environment: inout E
  ) {
    guard upstream >= 0 && upstream < upstreams.count else { return }
    if selection.recordFailure(upstream, now: now, kind: kind) {
      environment.report(.upstreamDown, upstream: upstream)
    }
  }

  func noteSuccess<E: EngineEnvironment>(upstream: Int, environment: inout E) {
    if selection.recordSuccess(upstream) {
      environment.report(.upstreamRecovered, upstream: upstream)
    }
  }

  /// The attempt in `slot` failed: release it and try the next upstream as a
  /// new attempt (new generation, armed with the newest deadline), or answer
  /// SERVFAIL.
  func failOver<E: EngineEnvironment>(slot: Int, now: UInt64, environment: inout E) {
    environment.releaseUpstream(
      transaction: table.handle(slot), transport: transactions[slot].transport)
    guard
      chooseUpstream(for: slot, now: now) != nil
    else {
      failWaiters(slot: slot, now: now, environment: &environment)
      release(slot: slot)
      return
    }
    table.renew(slot)
    dispatch(slot: slot, now: now, environment: &environment)
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
      failOver(slot: slot, now: now, environment: &environment)
    }
    if failed {
      noteFailure(upstream: upstream, now: now, kind: .error, environment: &environment)
    }
  }
}

extension Engine {
  /// The transport learned that an attempt cannot succeed (an ICMP port
  /// unreachable on its UDP socket, a send error): fail over now.
  public func attemptFailed<E: EngineEnvironment>(
    transaction: TransactionHandle, now: UInt64, environment: inout E
  ) {
    guard let slot = table.slot(for: transaction) else { return }
    noteFailure(
      upstream: Int(transactions[slot].upstream), now: now, kind: .error,
      environment: &environment)
    failOver(slot: slot, now: now, environment: &environment)
  }
}
