import CompiledConfig
import DNSSEC
import DNSWire

/// DNSSEC validation in the query path (`dnssec on` or `auto`). The
/// validator (DNSSEC module) is pure; this file gives it the cache to read
/// DS and DNSKEY answers from, fetches the links of the chain it finds
/// missing, and turns its verdicts into replies and cache entries.
///
/// An answer to a question asked with CD=0 is validated when it is
/// accepted (after the screens, `UpstreamReplies.swift`):
/// - `.secure`: cached as secure (TTL capped by the verdict), relayed with
///   AD=1 to clients that set DO or AD (RFC 6840 §5.8);
/// - `.insecure`: cached and relayed as without validation, AD=0;
/// - `.bogus(EDE)`: every waiter gets SERVFAIL with the Extended DNS Error
///   (RFC 8914); the bogus state is cached for `bogusSeconds` and answered
///   the same way on hits; logged once per zone among the last 16, at
///   most 16 lines a minute (ValidationReports.swift);
/// - `.needs(type)`: the answer is copied into a pending-validation buffer
///   (`ValidationPool`), its slot is parked (no upstream attempt, out of the
///   deadline list, waiters kept), and (neededName, type) is asked with DO=1
///   CD=0 as an ordinary `.answer` transaction with no client, or joined if
///   one is in flight. That answer is validated in turn and cached with its
///   state, then every pending validation awaiting it runs again.
/// Before the validator, an answer whose CNAME target the upstream left
/// out (a referral) is parked the same way while the target is asked
/// (ValidationChase.swift).
///
/// Bounds: at most `maxFetches` links per pending validation; a pending
/// validation ends bogus (EDE 9) after `3 × timeout`, when the link it awaits
/// fails (all upstreams SERVFAIL or silent), or when the same link is still
/// missing after its fetch; a full pool or an answer larger than a buffer
/// is SERVFAIL (`dnssecPendingFull`). Nothing is allocated per query.
extension Engine {
  static let secureState = ValidationState.secure.rawValue
  static let insecureState = ValidationState.insecure.rawValue
  /// This build validates (the stand-in says false).
  static let validationIsBuiltIn = true

  /// The validator's verdict on `reply` for `slot`'s question, its
  /// signatures' times checked against the environment's wall clock; not
  /// checked (reported once) while that clock is before the build date
  /// (Release.clockIsKnownWrong), as for TLS certificates: a router
  /// without a real-time clock before NTP.
  func verdict<E: EngineEnvironment>(
    for reply: Message, slot: Int, now: UInt64, environment: inout E
  ) -> ValidationVerdict {
    let seconds = environment.wallClockSeconds
    var time: UInt32? = UInt32(truncatingIfNeeded: seconds)
    if Release.clockIsKnownWrong(wallClockSeconds: seconds) {
      time = nil
      let upstream = Int(transactions[slot].upstream)
      if !validations.reportedUncheckedTimes, upstream >= 0, upstream < upstreams.count {
        validations.reportedUncheckedTimes = true
        environment.report(.dnssecTimesUnchecked, upstream: upstream)
      }
    }
    let verdict = validations.verdict(
      for: reply, name: table.name(slot), type: transactions[slot].type,
      anchors: settings.trustAnchors, cache: cache, now: now, time: time)
    countVerifications(validations.validator.verifications, for: slot, now: now)
    return verdict
  }

  /// `hold-on` is for answers a forger could have sent: a secure one
  /// needs no wait. Validates before the hold; true (the verdict kept for
  /// `accept`) when secure.
  func isSecureBeforeHold<E: EngineEnvironment>(
    _ reply: Message, slot: Int, now: UInt64, environment: inout E
  ) -> Bool {
    guard validations.validates(transactions[slot], dnssec: validatesDNSSEC),
      !relaysUnvalidated(slot),
      case .secure(let ttl) = verdict(for: reply, slot: slot, now: now, environment: &environment)
    else { return false }
    validations.note(.secure, ttl: ttl, slot: slot)
    return true
  }

  /// An accepted answer of a validating slot (its attempt already ended);
  /// with `dnssec auto`, one of an upstream whose probe failed is relayed
  /// unvalidated.
  func validateAccepted<E: EngineEnvironment>(
    _ reply: Message, slot: Int, now: UInt64, environment: inout E
  ) {
    if relaysUnvalidated(slot) {
      deliverUnvalidated(reply, slot: slot, now: now, environment: &environment)
      return
    }
    if validations.isSecure(slot) {
      settle(
        .secure(ttl: validations.secureTTL(of: slot)), reply, slot: slot, now: now,
        environment: &environment)
      return
    }
    validateOrChase(reply, slot: slot, now: now, environment: &environment)
  }

  func settle<E: EngineEnvironment>(
    _ verdict: ValidationVerdict, _ reply: Message, slot: Int, now: UInt64, environment: inout E
  ) {
    switch verdict {
    case .secure(let ttl):
      statistics[.dnssecSecure] += 1
      validations.note(.secure, ttl: ttl, slot: slot)
      deliver(
        validations.keepingValidatedRecords(reply), slot: slot, now: now, environment: &environment)
    case .insecure:
      statistics[.dnssecInsecure] += 1
      validations.note(.insecure, slot: slot)
      deliver(reply, slot: slot, now: now, environment: &environment)
    case .bogus(let error):
      rejectBogus(reply, slot: slot, error: error, now: now, environment: &environment)
    case .needs(let type):
      awaitChain(
        reply, slot: slot, name: validations.validator.neededName, type: type, chase: false,
        now: now, environment: &environment)
    }
  }

  /// Every waiter gets SERVFAIL with the EDE; the bogus state is cached
  /// briefly; pending validations awaiting this answer run again (and find
  /// it bogus).
  func rejectBogus<E: EngineEnvironment>(
    _ reply: Message?, slot: Int, error: ExtendedDNSError, now: UInt64, environment: inout E
  ) {
    statistics[.dnssecBogus] += 1
    reportBogus(reply, slot: slot, error: error, now: now, environment: &environment)
    bringDNSSECProbeForward(of: Int(transactions[slot].upstream), now: now)
    validations.note(.bogus, slot: slot)
    if let reply,
      cache.store(
        reply, name: table.name(slot), type: transactions[slot].type,
        rrClass: transactions[slot].rrClass, keyFlags: transactions[slot].keyFlags,
        validation: validations.state(of: slot), secureTTL: validations.secureTTL(of: slot),
        extendedError: UInt8(truncatingIfNeeded: error.rawValue),
        settings: inForce, buffers: buffers, now: now)
    {
      statistics[.cacheInserts] += 1
      validations.bogusCached = true
    }
    replyToWaiters(
      slot: slot, rcode: .serverFailure, extendedError: error.rawValue, now: now,
      environment: &environment)
    resumeValidations(awaiting: slot, failure: error, now: now, environment: &environment)
    release(slot: slot)
  }

  /// `.needs(type)`, or a CNAME target to chase (`chase`): keeps the
  /// answer (once) and asks for (name, type).
  func awaitChain<E: EngineEnvironment>(
    _ reply: Message, slot: Int, name needed: UnsafeRawBufferPointer, type: RRType, chase: Bool,
    now: UInt64, environment: inout E
  ) {
    var index = Int(validations.slotStates[slot].pending)
    if index < 0 {
      guard reply.bytes.count <= ValidationPool.bufferBytes, let free = validations.freeEntry()
      else {
        failFull(slot: slot, now: now, environment: &environment)
        return
      }
      index = free
      // A chain fetch's own validation: its links count towards the
      // question it was fetched for (`maxFetches` per client question).
      var inherited: UInt8 = 0
      var inheritedChases: UInt8 = 0
      for other in 0..<validations.capacity
      where validations.entries[other].awaitedSlot == Int32(slot) {
        inherited = max(inherited, validations.entries[other].fetches)
        inheritedChases = max(inheritedChases, validations.entries[other].chases)
      }
      UnsafeMutableRawBufferPointer(rebasing: validations.buffer(index)[0..<reply.bytes.count])
        .copyMemory(from: reply.bytes)
      validations.entries[index] = ValidationPool.Pending(
        slot: Int32(slot), length: reply.bytes.count, fetches: inherited,
        deadline: now + 3 * UInt64(settings.timeoutMilliseconds))
      validations.entries[index].chases = inheritedChases
      validations.slotStates[slot].pending = Int16(index)
      table.park(slot)
    }
    let hash = table.nameHash(needed)
    let pending = validations.entries[index]
    // The same link still missing after its fetch ended: it cannot be had.
    if pending.fetches >= ValidationPool.maxFetches
      || (chase && pending.chases >= ValidationPool.maxChases)
      || (pending.awaitedSlot < 0 && pending.fetches > 0 && pending.awaitedType == type
        && pending.awaitedHash == hash)
    {
      rejectBogus(
        validations.message(index), slot: slot, error: .dnskeyMissing, now: now,
        environment: &environment)
      return
    }
    validations.entries[index].fetches += 1
    validations.entries[index].chases += chase ? 1 : 0
    validations.entries[index].chasing = chase
    validations.entries[index].awaitedType = type
    validations.entries[index].awaitedHash = hash
    if let inFlight = table.findCoalescable(
      name: needed, hash: hash, type: type, rrClass: .internet, dnssecOK: true,
      checkingDisabled: false)
    {
      guard !validations.awaits(inFlight, slot) else {
        rejectBogus(
          validations.message(index), slot: slot, error: .dnskeyMissing, now: now,
          environment: &environment)
        return
      }
      validations.entries[index].awaitedSlot = Int32(inFlight)
      return
    }
    guard !upstreams.isEmpty,
      let fetch = table.allocate(
        name: needed, hash: hash, type: type, rrClass: .internet, dnssecOK: true,
        checkingDisabled: false, purpose: .answer, route: inForce.routeGroup(needed))
    else {
      statistics[.ringFull] += 1
      rejectBogus(
        validations.message(index), slot: slot, error: .dnskeyMissing, now: now,
        environment: &environment)
      return
    }
    statistics[.dnssecFetches] += 1
    validations.entries[index].awaitedSlot = Int32(fetch)
    // A failed send frees the fetch, which fails this entry at the next tick.
    dispatch(slot: fetch, now: now, environment: &environment)
  }

  /// `fetch`'s answer is in the cache: the validations awaiting it run
  /// again; a chase composes `answer` in (none, or bogus: it fails with
  /// `failure`).
  func resumeValidations<E: EngineEnvironment>(
    awaiting fetch: Int, answer: Message? = nil, failure: ExtendedDNSError = .dnskeyMissing,
    now: UInt64, environment: inout E
  ) {
    for index in 0..<validations.capacity
    where validations.entries[index].slot >= 0
      && validations.entries[index].awaitedSlot == Int32(fetch)
    {
      validations.entries[index].awaitedSlot = -1
      let slot = Int(validations.entries[index].slot)
      // Parked across a reload that replaced the upstreams: its index
      // may name none now (logged without one).
      if Int(transactions[slot].upstream) >= upstreams.count { transactions[slot].upstream = -1 }
      guard let message = validations.message(index) else {
        rejectBogus(nil, slot: slot, error: .dnssecBogus, now: now, environment: &environment)
        continue
      }
      if validations.entries[index].chasing {
        resumeChase(
          index, message, answer: answer, failure: failure, now: now, environment: &environment)
        continue
      }
      settle(
        verdict(for: message, slot: slot, now: now, environment: &environment), message,
        slot: slot, now: now, environment: &environment)
    }
  }

  /// Shutdown: the clients of answers still waiting for their chain
  /// (parked slots are in no deadline list) get SERVFAIL.
  func failPendingAtShutdown<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    for index in 0..<validations.capacity where validations.entries[index].slot >= 0 {
      let slot = Int(validations.entries[index].slot)
      replyToWaiters(slot: slot, rcode: .serverFailure, now: now, environment: &environment)
      release(slot: slot)
    }
  }

  /// From `tick`: pending validations past their deadline end bogus.
  /// Bounded: each failure frees its entry. Then the DNSSEC probes due.
  func expirePendingValidations<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    defer { probeUpstreamsIfDue(now: now, environment: &environment) }
    refreshDueChainRecord(now: now, environment: &environment)
    var failed = true
    while failed {
      failed = false
      for index in 0..<validations.capacity
      where validations.entries[index].slot >= 0 && validations.entries[index].deadline <= now {
        failed = true
        rejectBogus(
          validations.message(index), slot: Int(validations.entries[index].slot),
          error: .dnskeyMissing, now: now, environment: &environment)
      }
    }
  }

  /// A cache entry for a client that asked with CD=0: nil to answer it as
  /// usual, false to treat it as a miss (never validated: from a cache
  /// file, or stored before `dnssec on`), true when it was answered here
  /// (bogus: SERVFAIL with its EDE, while fresh).
  func answerValidatedEntry<E: EngineEnvironment>(
    _ number: Int, query: Message, name: UnsafeRawBufferPointer, client: ClientRef,
    stale: Bool, now: UInt64, environment: inout E
  ) -> Bool? {
    switch cache.validation(number) {
    case ValidationState.unchecked.rawValue: return false
    case ValidationState.bogus.rawValue:
      guard !stale else { return false }
      let waiter = Waiter(for: query, client: client, now: now, scratch: buffers.casedName)
      statistics[.dnssecBogus] += 1
      sendFailure(
        to: waiter, name: name, type: query.questionType, rrClass: query.questionClass,
        rcode: .serverFailure, extendedError: UInt16(cache.extendedError(number)), upstream: -1,
        now: now, environment: &environment)
      return true
    default: return nil
    }
  }
}
