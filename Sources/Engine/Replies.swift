import CompiledConfig
import DNSWire

extension Engine {
  /// `latencyMilliseconds`: since the query arrived (0 when answered in the
  /// same call), for the latency histogram.
  func send<E: EngineEnvironment>(
    replyLength: Int, to client: ClientRef, latencyMilliseconds: UInt64 = 0, environment: inout E
  ) {
    // Only metrics read the histogram: a firmware without them skips it.
    #if !DNSWARD_NO_METRICS
      statistics.answerLatency.record(milliseconds: latencyMilliseconds)
    #endif
    let framed = UnsafeMutableRawBufferPointer(
      rebasing: buffers.reply[0..<(Self.framing + replyLength)])
    environment.sendToClient(framed: framed, client: client)
  }

  /// RFC 8914 §2: the EDNS option code of an Extended DNS Error.
  static let extendedErrorOption: UInt16 = 15

  /// Header, question and OPT with TC=1: what a client gets when the answer
  /// does not fit, so it asks again over TCP (RFC 7766 §5).
  func writeTruncated(
    id: UInt16, flags: HeaderFlags, name: UnsafeRawBufferPointer, clientCase: CaseMask,
    type: RRType, rrClass: RRClass, hasEDNS: Bool, dnssecOK: Bool, extendedRcode: UInt8
  ) -> Int {
    var flags = flags
    flags.set(HeaderFlags.truncated, true)
    var writer = MessageWriter(buffer: buffers.replyOutput)
    do throws(WireError) {
      try writer.writeHeader(id: id, flags: flags, questions: 1, additionals: hasEDNS ? 1 : 0)
      try buffers.writeQuestion(
        &writer, name: name, clientCase: clientCase, type: type, rrClass: rrClass)
      if hasEDNS {
        try writer.writeClientOPT(
          payloadSize: settings.ednsPayloadSize, dnssecOK: dnssecOK, extendedRcode: extendedRcode)
      }
    } catch {
      preconditionFailure("a truncated reply always fits")
    }
    statistics[.truncated] += 1
    return writer.count
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
        addToNftSets(reply, name: name, environment: &environment)
      }
      // RA: dnsward offers recursion whatever the upstream says of itself.
      var flags = reply.flags
      flags.rawValue &= ~(HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled)
      flags.rawValue |= waiter.clientFlags | HeaderFlags.recursionAvailable
      if Self.validationIsBuiltIn && settings.dnssec {
        flags.set(HeaderFlags.authenticData, waiter.wantsAD && secure)
      }
      let limit = waiter.client.replyLimit(
        hasEDNS: waiter.hasEDNS, payloadSize: waiter.clientPayloadSize,
        ours: settings.ednsPayloadSize)
      let extendedRcode = reply.opt?.extendedRcode ?? 0
      var length = 0
      do throws(WireError) {
        length = try writeRelayed(
          reply, waiter: waiter, flags: flags, name: name, type: transaction.type,
          rrClass: transaction.rrClass, extendedRcode: extendedRcode)
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
          dnssecOK: waiter.dnssecOK, type: transaction.type, dnssec: settings.dnssec)
      {
        length = validations.stripDNSSECRecords(
          in: UnsafeMutableRawBufferPointer(rebasing: buffers.replyOutput[0..<length]))
      }
      if length > limit {
        length = writeTruncated(
          id: waiter.clientID, flags: flags, name: name, clientCase: waiter.clientCase,
          type: transaction.type, rrClass: transaction.rrClass, hasEDNS: waiter.hasEDNS,
          dnssecOK: waiter.dnssecOK,
          extendedRcode: extendedRcode)
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

  /// Header and question rebuilt for the client, then the upstream's records
  /// copied verbatim up to its OPT record. Offsets are unchanged there
  /// because the question is the same length, so compression pointers stay
  /// valid. The OPT and any additional records after it are left out —
  /// removing the OPT would shift their offsets under pointers aimed at them,
  /// and additional data may be omitted (RFC 2181 §9); servers put OPT last
  /// anyway. Our own OPT is added if the client sent one.
  func writeRelayed(
    _ reply: Message, waiter: Waiter, flags: HeaderFlags, name: UnsafeRawBufferPointer,
    type: RRType, rrClass: RRClass, extendedRcode: UInt8
  ) throws(WireError) -> Int {
    var writer = MessageWriter(buffer: buffers.replyOutput)
    let copyEnd = reply.opt?.offset ?? reply.end
    var additionals = 0
    var position = reply.additionalOffset
    while position < copyEnd, let record = try? ResourceRecord(in: reply.bytes, at: position) {
      additionals += 1
      position = record.end
    }
    if waiter.hasEDNS { additionals += 1 }
    try writer.writeHeader(
      id: waiter.clientID, flags: flags, questions: 1, answers: UInt16(reply.answerCount),
      authorities: UInt16(reply.authorityCount), additionals: UInt16(additionals))
    try buffers.writeQuestion(
      &writer, name: name, clientCase: waiter.clientCase, type: type, rrClass: rrClass)
    try writer.write(UnsafeRawBufferPointer(rebasing: reply.bytes[reply.answerOffset..<copyEnd]))
    if waiter.hasEDNS {
      try writer.writeClientOPT(
        payloadSize: settings.ednsPayloadSize, dnssecOK: waiter.dnssecOK,
        extendedRcode: extendedRcode)
    }
    return writer.count
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

  /// One waiter's reply with `rcode` and no records.
  func sendFailure<E: EngineEnvironment>(
    to waiter: Waiter, name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass,
    rcode: ResponseCode, extendedError: UInt16, upstream: Int, now: UInt64, environment: inout E
  ) {
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable | waiter.clientFlags)
    flags.rcode = rcode
    var writer = MessageWriter(buffer: buffers.replyOutput)
    do throws(WireError) {
      try writer.writeHeader(
        id: waiter.clientID, flags: flags, questions: 1, additionals: waiter.hasEDNS ? 1 : 0)
      try buffers.writeQuestion(
        &writer, name: name, clientCase: waiter.clientCase, type: type, rrClass: rrClass)
      if waiter.hasEDNS {
        try writer.writeClientOPT(
          payloadSize: settings.ednsPayloadSize, dnssecOK: waiter.dnssecOK,
          extendedError: extendedError)
      }
    } catch {
      preconditionFailure("a header and question always fit")
    }
    let isServFail = rcode == .serverFailure
    if isServFail { statistics[.servFail] += 1 } else { statistics[.answered] += 1 }
    send(
      replyLength: writer.count, to: waiter.client,
      latencyMilliseconds: waiter.latency(at: now), environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: waiter.client, name: name, type: type,
        outcome: isServFail ? .servFail : .answered(rcode),
        upstream: isServFail ? -1 : upstream,
        latencyMilliseconds: waiter.latency(at: now))
    }
  }

  /// An error reply built from the client's own packet: its ID, opcode and
  /// RD bit, its question if it parsed, and an OPT if it sent one (which also
  /// carries the upper bits of `rcode`, e.g. BADVERS, RFC 6891 §6.1.3). Also
  /// the empty NXDOMAIN and NODATA of questions never forwarded.
  func replyError<E: EngineEnvironment>(
    _ rcode: ResponseCode, to packet: UnsafeRawBufferPointer, query: Message?, client: ClientRef,
    environment: inout E
  ) {
    let received = HeaderFlags(rawValue: packet.getUInt16(at: HeaderField.flags))
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable
        | received.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    flags.opcode = received.opcode
    flags.rcode = ResponseCode(rawValue: rcode.rawValue & 0xF)
    var writer = MessageWriter(buffer: buffers.replyOutput)
    let hasQuestion = query?.hasQuestion ?? false
    let hasEDNS = query?.opt != nil
    do throws(WireError) {
      try writer.writeHeader(
        id: packet.getUInt16(at: HeaderField.id), flags: flags, questions: hasQuestion ? 1 : 0,
        additionals: hasEDNS ? 1 : 0)
      if let query, hasQuestion {
        let length = query.copyQuestionName(into: buffers.casedName)
        try writer.writeQuestion(
          name: UnsafeRawBufferPointer(rebasing: buffers.casedName[0..<length]),
          type: query.questionType, rrClass: query.questionClass, compress: false)
      }
      if hasEDNS {
        try writer.writeClientOPT(
          payloadSize: settings.ednsPayloadSize, dnssecOK: query?.opt?.dnssecOK ?? false,
          extendedRcode: UInt8(truncatingIfNeeded: rcode.rawValue >> 4))
      }
    } catch {
      preconditionFailure("an error reply always fits")
    }
    send(replyLength: writer.count, to: client, environment: &environment)
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

  /// Answers from the override table: addresses for A/AAAA/ANY, NODATA for
  /// other types, NXDOMAIN for blocked names. Authoritative, like a hosts file.
  /// Addresses `override-check` marked down are left out (OverrideHealth.swift).
  /// `lowercased` is the question name as the override table was searched.
  func answerLocally<E: EngineEnvironment>(
    query: Message, name lowercased: UnsafeRawBufferPointer, match: OverrideMatch,
    client: ClientRef, environment: inout E
  ) {
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.authoritative | HeaderFlags.recursionAvailable
        | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    let isBlock = match.kind == .block
    flags.rcode = isBlock ? .nameError : .noError
    let type = query.questionType
    let inInternet = query.questionClass == .internet
    let wantsIPv4 = !isBlock && inInternet && (type == .a || type == .any)
    let wantsIPv6 = !isBlock && inInternet && (type == .aaaa || type == .any)
    let health = local.overrideHealth
    let filtersDown = health.count > 0
    let up = health.addressesUp(match, in: settings.overrides)
    let ipv4Count = wantsIPv4 ? up.ipv4 : 0
    let ipv6Count = wantsIPv6 ? up.ipv6 : 0
    let hasEDNS = query.opt != nil
    let nameLength = query.copyQuestionName(into: buffers.casedName)
    let name = UnsafeRawBufferPointer(rebasing: buffers.casedName[0..<nameLength])
    let ttl = settings.overrideTTL
    var writer = MessageWriter(buffer: buffers.replyOutput)
    var fits = true
    settings.overrides.addressBytes.withUnsafeBytes { addresses in
      do throws(WireError) {
        try writer.writeHeader(
          id: query.id, flags: flags, questions: 1, answers: UInt16(ipv4Count + ipv6Count),
          additionals: hasEDNS ? 1 : 0)
        try writer.writeQuestion(
          name: name, type: type, rrClass: query.questionClass, compress: false)
        for index in 0..<(wantsIPv4 ? match.ipv4Count : 0) {
          let start = match.ipv4Offset + 4 * index
          if filtersDown && health.isDown(ipv4: addresses, at: start) { continue }
          try writer.writeRecord(
            pointerTo: HeaderField.size, type: .a, rrClass: .internet, ttl: ttl,
            rdata: UnsafeRawBufferPointer(rebasing: addresses[start..<(start + 4)]))
        }
        for index in 0..<(wantsIPv6 ? match.ipv6Count : 0) {
          let start = match.ipv6Offset + 16 * index
          if filtersDown && health.isDown(ipv6: addresses, at: start) { continue }
          try writer.writeRecord(
            pointerTo: HeaderField.size, type: .aaaa, rrClass: .internet, ttl: ttl,
            rdata: UnsafeRawBufferPointer(rebasing: addresses[start..<(start + 16)]))
        }
        try writer.writeClientOPT(answering: query, payloadSize: settings.ednsPayloadSize)
      } catch {
        fits = false
      }
    }
    let length = fitLocalReply(
      length: fits ? writer.count : Int.max, query: query, client: client, flags: flags,
      name: lowercased, clientCase: CaseMask(of: name), type: type, rrClass: query.questionClass)
    if isBlock { statistics[.blocked] += 1 } else { statistics[.overridden] += 1 }
    send(replyLength: length, to: client, environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: client, name: lowercased, type: type, outcome: isBlock ? .blocked : .overridden,
        upstream: -1, latencyMilliseconds: 0)
    }
  }

  /// A reply the engine wrote itself (`length` bytes, `Int.max` when it did
  /// not fit the buffer) as the client may receive it: unchanged if within
  /// its size, else header and question with TC=1 (RFC 7766 §5).
  func fitLocalReply(
    length: Int, query: Message, client: ClientRef, flags: HeaderFlags,
    name: UnsafeRawBufferPointer, clientCase: CaseMask, type: RRType, rrClass: RRClass
  ) -> Int {
    let hasEDNS = query.opt != nil
    let limit = client.replyLimit(
      hasEDNS: hasEDNS, payloadSize: query.opt?.udpPayloadSize ?? 512,
      ours: settings.ednsPayloadSize)
    guard length > limit else { return length }
    return writeTruncated(
      id: query.id, flags: flags, name: name, clientCase: clientCase, type: type,
      rrClass: rrClass, hasEDNS: hasEDNS, dnssecOK: query.opt?.dnssecOK ?? false,
      extendedRcode: 0)
  }
}
