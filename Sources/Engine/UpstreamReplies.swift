import CompiledConfig
import DNSWire

extension Engine {
  /// A packet arrived from an upstream.
  ///
  /// It is accepted only if everything an off-path attacker would have to
  /// guess matches (RFC 5452 §9.1): the transaction is in flight (`handle`
  /// names it, for UDP: its socket, hence local port, is the transaction's
  /// own), the source address and port are the upstream's, the ID is the one
  /// sent, and the question is byte-identical, 0x20 case included. Anything
  /// else is counted and dropped, and the real answer is still awaited.
  ///
  /// - Parameters:
  ///   - transaction: for UDP, the transaction whose socket received it; nil
  ///     for TCP, where replies are matched by ID among the upstream's queries.
  ///   - ipTTL: the IP TTL (IPv6 hop limit) the datagram arrived with, 0 when
  ///     unknown (TCP): part of the shape `hold-on` compares.
  /// - Returns: whether the attempt `transaction` names is over (answered,
  ///   failed, or asked again as a new attempt), for the transport that
  ///   handed the packet over to end it; false while it is still awaited
  ///   (the packet was dropped, or an answer is held for `hold-on`). The
  ///   engine releases no attempt of the transport that is calling it.
  @discardableResult
  public func handleUpstreamReply<E: EngineEnvironment>(
    _ packet: UnsafeRawBufferPointer, transaction: TransactionHandle?, upstream: Int,
    from source: Endpoint, ipTTL: UInt8 = 0, now: UInt64, environment: inout E
  ) -> Bool {
    judge: do {
      guard packet.count >= HeaderField.size else {
        statistics[.malformedReplies] += 1
        break judge
      }
      // Over UDP the socket names the transaction; over TCP the ID does.
      let found =
        if let transaction { table.slot(for: transaction) } else {
          table.pipelinedQuery(upstream: upstream, id: packet.getUInt16(at: 0))
        }
      guard let slot = found else {
        statistics[transaction == nil ? .mismatchedID : .staleReplies] += 1
        break judge
      }
      let transaction = transactions[slot]
      let server = upstreams[Int(transaction.upstream)]
      guard source == server.endpoint else {
        statistics[.mismatchedSource] += 1
        break judge
      }
      guard let reply = try? Message(validating: packet, allowTrailingData: true) else {
        statistics[.malformedReplies] += 1
        break judge
      }
      guard reply.flags.isResponse, reply.id == transaction.sentID, reply.flags.opcode == .query
      else {
        statistics[.mismatchedID] += 1
        break judge
      }
      let rcode = reply.rcode
      let isFailure =
        rcode == .serverFailure || rcode == .refused || rcode == .notImplemented
        || rcode == .formatError
      let upstreamIndex = Int(transaction.upstream)
      // With an answer held for `hold-on`, a later error, truncation or
      // case mismatch is noise or forgery: the held answer stands.
      let holding = defences.holds.heldBuffer(of: slot) >= 0
      if !reply.hasQuestion && isFailure {
        if holding { break judge }
        // Some servers leave the question out of error replies; the ID and
        // socket matched, so take it as this upstream failing.
        selection.noteFailure(upstreamIndex, now: now, kind: .error, environment: &environment)
        statistics[.retried] += 1
        failOver(slot: slot, now: now, environment: &environment)
        break judge
      }
      switch table.questionMatch(reply, slot: slot, scratch: buffers.casedName) {
      case .exact:
        if transaction.sentCase != nil { selection.recordCaseMatch(upstreamIndex) }
      case .caseOnly:
        // The right ID but not the 0x20 case sent: an upstream that does not
        // keep case, or a forgery. Counted per upstream (an answer in the
        // right case resets the count, so a spoofer must win twice in a row);
        // an upstream that keeps doing it gets no more 0x20, and the question
        // is asked once more without it (over UDP, the only 0x20 transport)
        // so the client is not kept waiting.
        statistics[.mismatchedCase] += 1
        guard !holding else { break judge }
        if selection.recordCaseMismatch(upstreamIndex) {
          environment.report(.caseRandomizationDisabled, upstream: upstreamIndex)
        }
        guard transaction.caseAllowed else { break judge }
        transactions[slot].caseAllowed = false
        statistics[.retried] += 1
        failOver(slot: slot, now: now, to: upstreamIndex, over: .udp, environment: &environment)
        break judge
      case .different:
        statistics[.mismatchedQuestion] += 1
        break judge
      }
      let truncated = reply.flags.has(HeaderFlags.truncated)
      if holding && (truncated || isFailure) { break judge }
      if truncated && transaction.transport == .udp {
        // RFC 7766 §5: a truncated UDP answer is asked again over TCP.
        statistics[.upstreamTruncated] += 1
        statistics[.retried] += 1
        failOver(slot: slot, now: now, to: upstreamIndex, over: .tcp, environment: &environment)
        break judge
      }
      if transaction.purpose != .answer {
        finishCheck(reply, slot: slot, isFailure: isFailure, now: now, environment: &environment)
        break judge
      }
      if isFailure {
        // An upstream that keeps answering SERVFAIL is as useless as a silent
        // one: it counts towards marking it down.
        selection.noteFailure(upstreamIndex, now: now, kind: .error, environment: &environment)
        if selection.next(
          type: transaction.type, tried: transaction.tried, route: transaction.route,
          isAnswer: true, name: table.name(slot), settings: inForce, now: now) != nil
        {
          statistics[.retried] += 1
          failOver(slot: slot, now: now, environment: &environment)
          break judge
        }
        // The last upstream failed too: a stale answer beats its SERVFAIL.
        if !serveStale(slot: slot, now: now, environment: &environment) {
          relay(reply, slot: slot, now: now, environment: &environment)
        }
        release(slot: slot)
        break judge
      }
      if defences.screensAnswers(inForce)
        && screen(reply, slot: slot, ipTTL: ipTTL, now: now, environment: &environment)
      {
        break judge
      }
      accept(reply, slot: slot, ipTTL: ipTTL, now: now, environment: &environment)
    }
    // The transport that called ends the attempt (its UDP socket's port)
    // when it is over: the engine does not call back into it.
    return transaction.map { table.slot(for: $0) == nil } ?? true
  }

  /// An answer that passed every check: counted for its upstream, then
  /// validated (`dnssec`, Validation.swift) and delivered.
  func accept<E: EngineEnvironment>(
    _ reply: Message, slot: Int, ipTTL: UInt8, now: UInt64, environment: inout E
  ) {
    let transaction = transactions[slot]
    let upstream = Int(transaction.upstream)
    selection.noteSuccess(upstream, environment: &environment)
    selection.recordAnswer(upstream, sentAt: transaction.sentAt, now: now)
    // Only an answer with EDNS teaches the usual IP TTL: an injected one
    // without it must not.
    if ipTTL != 0 && reply.opt != nil { selection.recordUsualTTL(upstream, ipTTL) }
    if validations.validates(transactions[slot], dnssec: validatesDNSSEC) {
      validateAccepted(reply, slot: slot, now: now, environment: &environment)
      return
    }
    deliver(reply, slot: slot, now: now, environment: &environment)
  }

  /// A good answer is cached (unless not `caching`) and relayed; a trusted
  /// answer for a `verify` name is then checked against a plain upstream
  /// (unless it is DNSSEC secure: a forger cannot sign, so there is nothing
  /// to compare).
  func deliver<E: EngineEnvironment>(
    _ reply: Message, slot: Int, caching: Bool = true, now: UInt64, environment: inout E
  ) {
    let upstream = Int(transactions[slot].upstream)
    if caching
      && cache.store(
        reply, name: table.name(slot), type: transactions[slot].type,
        rrClass: transactions[slot].rrClass, keyFlags: transactions[slot].keyFlags,
        validation: validations.state(of: slot), secureTTL: validations.secureTTL(of: slot),
        settings: inForce, buffers: buffers, now: now)
    {
      statistics[.cacheInserts] += 1
    }
    relay(reply, slot: slot, now: now, environment: &environment)
    var checks =
      upstream >= 0 && upstream < upstreams.count && upstreams[upstream].trusted
      && !settings.verifyNames.isEmpty
    checks = checks && !validations.isSecure(slot)
    // A chain fetch: the validations awaiting it can go on.
    resumeValidations(awaiting: slot, answer: reply, now: now, environment: &environment)
    if checks { startVerification(of: reply, slot: slot, now: now, environment: &environment) }
    release(slot: slot)
  }

  /// The hijack defences on an accepted, successful answer (Sources/README.md,
  /// Threat model). Returns true when it dealt with the answer itself.
  func screen<E: EngineEnvironment>(
    _ reply: Message, slot: Int, ipTTL: UInt8, now: UInt64, environment: inout E
  ) -> Bool {
    let transaction = transactions[slot]
    let upstream = Int(transaction.upstream)
    let screen = defences.screen(reply, settings: inForce)
    let name = table.name(slot)
    // A redirect answer first: its addresses may also lie in a `bogus`
    // prefix, and the `bogus-nxdomain` entry names that exact answer, so
    // the more specific statement wins (Sources/Config/README.md).
    if screen.isRedirect {
      statistics[.redirectsRewritten] += 1
      environment.reportDefence(.redirectRewritten, name: name, address: nil, upstream: upstream)
      selection.noteSuccess(upstream, environment: &environment)
      replyToWaiters(slot: slot, rcode: .nameError, now: now, environment: &environment)
      release(slot: slot)
      return true
    }
    if screen.hasBogusAddress {
      statistics[.bogusDropped] += 1
      environment.reportDefence(.bogusDropped, name: name, address: nil, upstream: upstream)
      // Over UDP the real answer may still come (an injected one arrives
      // first); the deadline moves on to the next upstream if it does not.
      // Over TCP nothing more will come for this query.
      if transaction.transport != .udp { failOver(slot: slot, now: now, environment: &environment) }
      return true
    }
    // A name routed to an upstream on a private address (a VPN's or the
    // LAN's resolver) is private by nature: implicitly `rebind-allow`ed.
    if settings.rebindProtection && screen.hasPrivateAddress
      && !(transaction.route != 0 && defences.isPrivate(upstreams[upstream].endpoint.address))
      && !Name.isNameOrBelow(name, anyOf: settings.rebindAllowNames)
      && settings.overrides.lookup(name) == nil
    {
      statistics[.rebindBlocked] += 1
      environment.reportDefence(.rebindBlocked, name: name, address: nil, upstream: upstream)
      failOver(slot: slot, now: now, environment: &environment)
      return true
    }
    if settings.holdOnMilliseconds > 0 && transaction.transport == .udp {
      if isSecureBeforeHold(reply, slot: slot, now: now, environment: &environment) {
        return false
      }
      return holdAnswer(
        reply, screen: screen, ipTTL: ipTTL, slot: slot, now: now, environment: &environment)
    }
    return false
  }
}
