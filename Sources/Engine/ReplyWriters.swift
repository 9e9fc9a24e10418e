import CompiledConfig
import DNSWire

/// The replies the engine writes for clients, into `replyOutput`: byte
/// work only. Counting, sending and logging are the pipeline's
/// (Replies.swift). `ours` is our EDNS payload size (`edns-size`); each
/// returns the reply's length.
extension MessageBuffers {
  /// Header, question and OPT with TC=1: what a client gets when the answer
  /// does not fit, so it asks again over TCP (RFC 7766 §5). Not inlined:
  /// three callers, all on a rare path.
  @inline(never)
  func writeTruncated(
    id: UInt16, flags: HeaderFlags, name: UnsafeRawBufferPointer, clientCase: CaseMask,
    type: RRType, rrClass: RRClass, hasEDNS: Bool, dnssecOK: Bool, extendedRcode: UInt8,
    ours: UInt16
  ) -> Int {
    var flags = flags
    flags.set(HeaderFlags.truncated, true)
    var writer = MessageWriter(buffer: replyOutput)
    do throws(WireError) {
      try writer.writeHeader(id: id, flags: flags, questions: 1, additionals: hasEDNS ? 1 : 0)
      try writeQuestion(&writer, name: name, clientCase: clientCase, type: type, rrClass: rrClass)
      if hasEDNS {
        try writer.writeClientOPT(
          payloadSize: ours, dnssecOK: dnssecOK, extendedRcode: extendedRcode)
      }
    } catch {
      preconditionFailure("a truncated reply always fits")
    }
    return writer.count
  }

  /// Header and question rebuilt for the client, then the upstream's records
  /// copied verbatim up to its OPT record. Offsets are unchanged there
  /// because the question is the same length, so compression pointers stay
  /// valid. The OPT and any additional records after it are left out —
  /// removing the OPT would shift their offsets under pointers aimed at them,
  /// and additional data may be omitted (RFC 2181 §9); servers put OPT last
  /// anyway. Our own OPT is added if the client sent one. Not inlined: one
  /// copy serves the relay and the cache.
  @inline(never)
  func writeRelayed(
    _ reply: Message, waiter: Waiter, flags: HeaderFlags, name: UnsafeRawBufferPointer,
    type: RRType, rrClass: RRClass, extendedRcode: UInt8, ours: UInt16
  ) throws(WireError) -> Int {
    var writer = MessageWriter(buffer: replyOutput)
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
    try writeQuestion(
      &writer, name: name, clientCase: waiter.clientCase, type: type, rrClass: rrClass)
    try writer.write(UnsafeRawBufferPointer(rebasing: reply.bytes[reply.answerOffset..<copyEnd]))
    if waiter.hasEDNS {
      try writer.writeClientOPT(
        payloadSize: ours, dnssecOK: waiter.dnssecOK, extendedRcode: extendedRcode)
    }
    return writer.count
  }

  /// One waiter's reply with `rcode` and no records, with an Extended DNS
  /// Error when `extendedError` is not 0.
  func writeFailure(
    to waiter: Waiter, name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass,
    rcode: ResponseCode, extendedError: UInt16, ours: UInt16
  ) -> Int {
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable | waiter.clientFlags)
    flags.rcode = rcode
    var writer = MessageWriter(buffer: replyOutput)
    do throws(WireError) {
      try writer.writeHeader(
        id: waiter.clientID, flags: flags, questions: 1, additionals: waiter.hasEDNS ? 1 : 0)
      try writeQuestion(
        &writer, name: name, clientCase: waiter.clientCase, type: type, rrClass: rrClass)
      if waiter.hasEDNS {
        try writer.writeClientOPT(
          payloadSize: ours, dnssecOK: waiter.dnssecOK, extendedError: extendedError)
      }
    } catch {
      preconditionFailure("a header and question always fit")
    }
    return writer.count
  }

  /// An error reply built from the client's own packet: its ID, opcode, RD
  /// bit and (for QUERY) CD bit, with RA for QUERY, its question if it parsed, and an OPT if it sent one (which also
  /// carries the upper bits of `rcode`, e.g. BADVERS, RFC 6891 §6.1.3). Also
  /// the empty NXDOMAIN and NODATA of questions never forwarded.
  func writeError(
    _ rcode: ResponseCode, to packet: UnsafeRawBufferPointer, query: Message?, ours: UInt16
  ) -> Int {
    let received = HeaderFlags(rawValue: packet.getUInt16(at: HeaderField.flags))
    // RA, AD and CD are defined for QUERY only (RFC 1035 §4.1.1, RFC 4035 §3.2.2–3.2.3):
    // a reply to another opcode copies RD alone.
    let isQuery = received.opcode == .query
    var flags = HeaderFlags(
      rawValue: HeaderFlags.response | (isQuery ? HeaderFlags.recursionAvailable : 0)
        | received.rawValue
        & (HeaderFlags.recursionDesired | (isQuery ? HeaderFlags.checkingDisabled : 0)))
    flags.opcode = received.opcode
    flags.rcode = ResponseCode(rawValue: rcode.rawValue & 0xF)
    var writer = MessageWriter(buffer: replyOutput)
    let hasQuestion = query?.hasQuestion ?? false
    let hasEDNS = query?.opt != nil
    do throws(WireError) {
      try writer.writeHeader(
        id: packet.getUInt16(at: HeaderField.id), flags: flags, questions: hasQuestion ? 1 : 0,
        additionals: hasEDNS ? 1 : 0)
      if let query, hasQuestion {
        let length = query.copyQuestionName(into: casedName)
        try writer.writeQuestion(
          name: UnsafeRawBufferPointer(rebasing: casedName[0..<length]),
          type: query.questionType, rrClass: query.questionClass, compress: false)
      }
      if hasEDNS {
        try writer.writeClientOPT(
          payloadSize: ours, dnssecOK: query?.opt?.dnssecOK ?? false,
          extendedRcode: UInt8(truncatingIfNeeded: rcode.rawValue >> 4))
      }
    } catch {
      preconditionFailure("an error reply always fits")
    }
    return writer.count
  }
}

extension HeaderFlags {
  /// The flags of a reply the engine makes itself to `query`: QR and RA
  /// set, the client's RD and CD copied, AA when `authoritative`, and
  /// `rcode`.
  init(replyingTo query: Message, rcode: ResponseCode, authoritative: Bool) {
    self.init(
      rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable
        | (authoritative ? HeaderFlags.authoritative : 0)
        | query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled))
    self.rcode = rcode
  }
}

extension MessageBuffers {
  /// Starts a reply the engine makes itself to `query` in `replyOutput`:
  /// the header with its ID, `flags` and the counts given (one additional
  /// more when the client sent an OPT, which the caller writes last with
  /// `writeClientOPT(answering:payloadSize:)`), then the question as the
  /// client wrote it. Both always fit. Not inlined: the local answers,
  /// CHAOS and minimal ANY all start here.
  @inline(never)
  func startReply(
    to query: Message, flags: HeaderFlags, answers: UInt16 = 0, authorities: UInt16 = 0
  ) -> MessageWriter {
    var writer = MessageWriter(buffer: replyOutput)
    let length = query.copyQuestionName(into: casedName)
    do throws(WireError) {
      try writer.writeHeader(
        id: query.id, flags: flags, questions: 1, answers: answers, authorities: authorities,
        additionals: query.opt != nil ? 1 : 0)
      try writer.writeQuestion(
        name: UnsafeRawBufferPointer(rebasing: casedName[0..<length]), type: query.questionType,
        rrClass: query.questionClass, compress: false)
    } catch {
      preconditionFailure("a header and question always fit")
    }
    return writer
  }
}
