import DNSSEC
import DNSWire

/// A CNAME whose target the upstream left out. An
/// authoritative upstream answers a name whose CNAME points into a zone
/// it delegates with the CNAME and a referral: no records for the target,
/// no SOA. A resolver asks for the target itself (RFC 1034 §5.3.3, step 4c);
/// so does a validating slot here, since the validator cannot prove an
/// absence nobody claimed:
/// - detected in the engine from the message alone (`chaseTarget`), before
///   the validator, rather than as a new verdict: a walk of the answer
///   section needs no keys, and the validator's contract (the verdicts
///   its tests and the fuzz target switch over) stays as it is; the
///   composed message is then validated like any other, CNAME
///   signatures included;
/// - (target, type) is asked with DO=1 CD=0 as a chain fetch is
///   (`awaitChain`, joined when in flight, counted in `maxFetches`, at
///   most `maxChases` per question), the answer parked meanwhile;
/// - the fetched answer, once settled, is composed in (`compose`): the
///   original header, question and answer section (the CNAMEs and their
///   RRSIGs) where they are, then the fetched answer and authority
///   records (its data or its denial, names written in full); no OPT (a
///   reply writes its own).
///   A bogus or failed fetch makes the original bogus with its EDE; a
///   composed message past a pending buffer is SERVFAIL
///   (`dnssecPendingFull`).
/// A real NODATA or NXDOMAIN for the target carries an SOA: never chased,
/// validated as it is.
extension Engine {
  /// Validates an answer, or chases the CNAME target it left out.
  func validateOrChase<E: EngineEnvironment>(
    _ reply: Message, slot: Int, now: UInt64, environment: inout E
  ) {
    var names = InlineArray<512, UInt8>(repeating: 0)
    let length = withUnsafeMutableBytes(of: &names) {
      ChaseRecords.chaseTarget(of: reply, names: $0)
    }
    guard let length else {
      settle(
        verdict(for: reply, slot: slot, now: now, environment: &environment), reply, slot: slot,
        now: now, environment: &environment)
      return
    }
    withUnsafeBytes(of: &names) { name in
      awaitChain(
        reply, slot: slot, name: UnsafeRawBufferPointer(rebasing: name[0..<length]),
        type: reply.questionType, chase: true, now: now, environment: &environment)
    }
  }

  /// The chase for pending entry `index` (whose message is `original`)
  /// ended: `answer` is the target's settled answer, nil when it failed
  /// or was bogus (`failure`).
  func resumeChase<E: EngineEnvironment>(
    _ index: Int, _ original: Message, answer: Message?, failure: ExtendedDNSError, now: UInt64,
    environment: inout E
  ) {
    validations.entries[index].chasing = false
    let slot = Int(validations.entries[index].slot)
    guard let answer else {
      rejectBogus(original, slot: slot, error: failure, now: now, environment: &environment)
      return
    }
    guard let composed = validations.compose(original, answer, into: index) else {
      failFull(slot: slot, now: now, environment: &environment)
      return
    }
    validateOrChase(composed, slot: slot, now: now, environment: &environment)
  }

  /// A full pool, or an answer that fits no buffer: SERVFAIL.
  func failFull<E: EngineEnvironment>(slot: Int, now: UInt64, environment: inout E) {
    statistics[.dnssecPendingFull] += 1
    replyToWaiters(slot: slot, rcode: .serverFailure, now: now, environment: &environment)
    resumeValidations(awaiting: slot, now: now, environment: &environment)
    release(slot: slot)
  }
}

extension ValidationPool {
  /// Composes the answer in pending entry `index`'s buffer, over
  /// `original` (which is there): its header, question and answer
  /// section stay in place (their compression pointers with them), the
  /// fetched answer and authority records follow, names in full. No OPT:
  /// a reply gets its own. nil when it does not fit.
  func compose(_ original: Message, _ fetched: Message, into index: Int) -> Message? {
    let buffer = buffer(index)
    var flags = original.flags
    flags.rcode = fetched.flags.rcode
    let answers = UInt16(original.answerCount + fetched.answerCount)
    var end = original.authorityOffset
    var records = fetched.records()
    while let record = ChaseRecords.next(&records), record.offset < fetched.additionalOffset {
      guard let next = ChaseRecords.copyRecord(record, of: fetched, into: buffer, at: end) else {
        return nil
      }
      end = next
    }
    buffer.setUInt16(flags.rawValue, at: HeaderField.flags)
    buffer.setUInt16(answers, at: HeaderField.answerCount)
    buffer.setUInt16(UInt16(fetched.authorityCount), at: HeaderField.authorityCount)
    buffer.setUInt16(0, at: HeaderField.additionalCount)
    entries[index].length = end
    return message(index)
  }
}

/// Reading a CNAME chain's target and copying records into a composed
/// answer (ValidationChase.swift), without allocating.
enum ChaseRecords {
  /// `RecordIterator.next`, in one place for the chase.
  @inline(never)
  static func next(_ records: inout RecordIterator) -> ResourceRecord? { records.next() }

  /// Copies `range` of `message` to `output` at `start`; where it ends,
  /// nil when it does not fit.
  static func copy(
    _ message: Message, _ range: Range<Int>, to output: UnsafeMutableRawBufferPointer,
    at start: Int
  ) -> Int? {
    let end = start + range.count
    guard end <= output.count else { return nil }
    UnsafeMutableRawBufferPointer(rebasing: output[start..<end])
      .copyMemory(from: UnsafeRawBufferPointer(rebasing: message.bytes[range]))
    return end
  }

  /// Writes `record` at `start` of `output` with every name in full: the
  /// owner, and those in the RDATA of the types that may compress them
  /// (RFC 3597 §4); other RDATA as it is. Returns where it ends, nil
  /// when it does not fit.
  static func copyRecord(
    _ record: ResourceRecord, of message: Message, into output: UnsafeMutableRawBufferPointer,
    at start: Int
  ) -> Int? {
    var names = 0
    var before = record.rdataLength
    if record.rrClass == .internet {
      switch record.type {
      case .ns, .cname, .ptr: (names, before) = (1, 0)
      case .mx: (names, before) = (1, 2)
      case .soa: (names, before) = (2, 0)
      default: break
      }
    }
    guard
      let owner = readName(
        message, at: record.offset,
        into: UnsafeMutableRawBufferPointer(rebasing: output[start...])),
      // TYPE, CLASS, TTL, RDLENGTH (set below), the RDATA before its names.
      var end = copy(
        message, record.fixedOffset..<(record.rdataOffset + before), to: output,
        at: start + owner.length)
    else { return nil }
    let rdataStart = end - before
    var position = record.rdataOffset + before
    for _ in 0..<names {
      guard
        let name = readName(
          message, at: position, into: UnsafeMutableRawBufferPointer(rebasing: output[end...]))
      else { return nil }
      end += name.length
      position = name.end
    }
    guard let last = copy(message, position..<record.end, to: output, at: end) else { return nil }
    output.setUInt16(UInt16(last - rdataStart), at: rdataStart - 2)
    return last
  }

  /// `Name.read` of `message`'s name at `offset` into `output`, in one
  /// place for the chase.
  @inline(never)
  static func readName(
    _ message: Message, at offset: Int, into output: UnsafeMutableRawBufferPointer
  ) -> (end: Int, length: Int)? {
    try? Name.read(in: message.bytes, at: offset, into: output, firstTarget: HeaderField.size)
  }

  /// The flat name (its length, written at the start of `names`) where
  /// `reply`'s CNAME chain from the question name ends without data of
  /// the question type, in a NOERROR answer whose authority section has
  /// no SOA; nil when there is nothing to chase. `names`: 512 bytes, the
  /// second half scratch for owner names.
  static func chaseTarget(of reply: Message, names: UnsafeMutableRawBufferPointer) -> Int? {
    let type = reply.questionType
    let target = UnsafeMutableRawBufferPointer(rebasing: names[0..<256])
    let owner = UnsafeMutableRawBufferPointer(rebasing: names[256...])
    guard reply.hasQuestion, reply.rcode == .noError, type != .cname, type != .any,
      type != .rrsig, var length = readName(reply, at: reply.questionOffset, into: target)?.length
    else { return nil }
    // As many links as the validator follows in one message.
    for links in 0...16 {
      var cname = -1
      var records = reply.records()
      while let record = next(&records), record.offset < reply.additionalOffset {
        if record.offset >= reply.authorityOffset {
          if record.type == .soa { return nil }
          continue
        }
        guard record.type == type || record.type == .cname,
          let ownerLength = readName(reply, at: record.offset, into: owner)?.length,
          Name.equalIgnoringCase(
            UnsafeRawBufferPointer(rebasing: owner[0..<ownerLength]),
            UnsafeRawBufferPointer(rebasing: target[0..<length]))
        else { continue }
        if record.type == type { return nil }
        cname = record.rdataOffset
      }
      guard cname >= 0 else { return links > 0 ? length : nil }
      guard let next = readName(reply, at: cname, into: target) else { return nil }
      length = next.length
    }
    return nil
  }
}

extension ValidationPool {
  /// Whether `start` is `slot`, or awaits it through the fetches its
  /// pending validations wait for: joining it would wait forever.
  func awaits(_ start: Int, _ slot: Int) -> Bool {
    var current = start
    for _ in 0...capacity {
      if current == slot { return true }
      let own = Int(slotStates[current].pending)
      guard own >= 0, entries[own].awaitedSlot >= 0 else { return false }
      current = Int(entries[own].awaitedSlot)
    }
    return true
  }
}
