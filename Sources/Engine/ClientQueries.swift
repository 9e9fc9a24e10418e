import CompiledConfig
import DNSWire

extension Engine {
  /// A client packet arrived on a listener (UDP datagram or one TCP message).
  public func handleClientQuery<E: EngineEnvironment>(
    _ packet: UnsafeRawBufferPointer, from client: ClientRef, now: UInt64,
    environment: inout E
  ) {
    counters.queries += 1
    // Garbage shorter than a header has no ID to answer: drop it.
    guard packet.count >= HeaderField.size else {
      counters.droppedShort += 1
      return
    }
    let flags = HeaderFlags(rawValue: packet.getUInt16(at: HeaderField.flags))
    guard !flags.isResponse else {
      counters.droppedResponses += 1
      return
    }
    // Before any work: an over-limit client costs one bucket update.
    if settings.rateLimitPerSecond > 0 && !withinRateLimit(client.endpoint.address, now: now) {
      counters.rateLimited += 1
      return
    }
    let query = try? Message(validating: packet)
    guard isAllowed(client.endpoint.address) else {
      counters.refused += 1
      replyError(.refused, to: packet, query: query, client: client, environment: &environment)
      return
    }
    guard flags.opcode == .query else {
      counters.notImp += 1
      replyError(
        .notImplemented, to: packet, query: query, client: client, environment: &environment)
      return
    }
    guard let query, query.hasQuestion else {
      counters.formErr += 1
      replyError(.formatError, to: packet, query: nil, client: client, environment: &environment)
      return
    }
    // RFC 6891 §6.1.3: only EDNS version 0 exists; others get BADVERS.
    if let opt = query.opt, opt.version != 0 {
      counters.badVersion += 1
      replyError(.badVersion, to: packet, query: query, client: client, environment: &environment)
      return
    }
    let nameLength = query.copyQuestionName(into: scratchName, lowercase: true)
    let lowercased = UnsafeRawBufferPointer(rebasing: scratchName[0..<nameLength])
    if query.questionClass == .chaos,
      answerChaos(query: query, name: lowercased, client: client, environment: &environment)
    {
      return
    }
    if let match = settings.overrides.lookup(lowercased),
      !overrideFallsBack(match, type: query.questionType)
    {
      answerLocally(
        query: query, name: lowercased, match: match, client: client, environment: &environment)
      return
    }
    if settings.refuseAny && query.questionType == .any && !client.isTCP {
      answerMinimalANY(query: query, name: lowercased, client: client, environment: &environment)
      return
    }
    if answerFromCache(
      query: query, name: lowercased, client: client, now: now, environment: &environment)
    {
      return
    }
    forward(query: query, name: lowercased, client: client, now: now, environment: &environment)
  }

  /// The coalescing bucket hash of a lower-cased name (low 32 bits).
  func nameHash(_ name: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(truncatingIfNeeded: Name.hashIgnoringCase(name, key: hashKey))
  }

  func isAllowed(_ address: IPAddress) -> Bool {
    for prefix in allowPrefixes where prefix.contains(address) {
      return true
    }
    return false
  }

  /// Joins an identical question in flight, or starts a transaction.
  func forward<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, now: UInt64,
    environment: inout E
  ) {
    let dnssecOK = query.opt?.dnssecOK ?? false
    let checkingDisabled = query.flags.has(HeaderFlags.checkingDisabled)
    let hash = nameHash(name)
    guard freeWaiters >= 0 else {
      counters.ringFull += 1
      replyError(
        .serverFailure, to: query.bytes, query: query, client: client, environment: &environment)
      return
    }
    if let slot = findInFlight(
      name: name, hash: hash, type: query.questionType, rrClass: query.questionClass,
      dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
    {
      if isWaiting(client, id: query.id, on: slot) {
        counters.retransmissions += 1
        return
      }
      counters.coalesced += 1
      addWaiter(to: slot, query: query, client: client, now: now)
      return
    }
    guard !upstreams.isEmpty,
      let slot = beginTransaction(
        name: name, hash: hash, type: query.questionType, rrClass: query.questionClass,
        dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
    else {
      if upstreams.isEmpty { counters.servFail += 1 } else { counters.ringFull += 1 }
      replyError(
        .serverFailure, to: query.bytes, query: query, client: client, environment: &environment)
      return
    }
    addWaiter(to: slot, query: query, client: client, now: now)
    dispatch(
      slot: slot, now: now, preferred: preferredUpstream(for: slot, now: now),
      environment: &environment)
  }

  /// For a `verify` name, a trusted upstream (and with `strict`, only
  /// trusted ones from now on); nil (normal order) otherwise, or when every
  /// trusted upstream that can answer the type is down.
  func preferredUpstream(for slot: Int, now: UInt64) -> Int? {
    guard !settings.verifyNames.isEmpty, isVerified(name(slot: slot)) else { return nil }
    transactions[slot].trustedOnly = settings.strict
    return trustedUpstream(for: transactions[slot].type, now: now)
  }

  /// Takes a slot for a new question (lower-cased `name`), links it for
  /// coalescing if it is asked for an answer, and leaves it for the caller
  /// to add waiters and dispatch. Checks of upstreams (`purpose`
  /// `.verification`, `.redirectProbe`) are not linked: a client must never
  /// join one, since their answers are compared, not believed.
  func beginTransaction(
    name: UnsafeRawBufferPointer, hash: UInt32, type: RRType, rrClass: RRClass,
    dnssecOK: Bool, checkingDisabled: Bool, purpose: Transaction.Purpose = .answer
  ) -> Int? {
    guard let slot = allocateSlot() else { return nil }
    transactions[slot].purpose = purpose
    transactions[slot].type = type
    transactions[slot].rrClass = rrClass
    transactions[slot].dnssecOK = dnssecOK
    transactions[slot].checkingDisabled = checkingDisabled
    transactions[slot].nameLength = name.count
    transactions[slot].nameHash = hash
    transactions[slot].tried = 0
    transactions[slot].caseAllowed = true
    nameBuffer(slot: slot).copyMemory(from: name)
    if purpose == .answer { linkBucket(slot: slot) }
    return slot
  }

  func findInFlight(
    name: UnsafeRawBufferPointer, hash: UInt32, type: RRType, rrClass: RRClass, dnssecOK: Bool,
    checkingDisabled: Bool
  ) -> Int? {
    var cursor = buckets[Int(hash & bucketMask)]
    while cursor >= 0 {
      let slot = Int(cursor)
      let candidate = transactions[slot]
      if candidate.state == .active, candidate.nameHash == hash, candidate.type == type,
        candidate.rrClass == rrClass, candidate.dnssecOK == dnssecOK,
        candidate.checkingDisabled == checkingDisabled, candidate.nameLength == name.count,
        Name.equalIgnoringCase(self.name(slot: slot), name)
      {
        return slot
      }
      cursor = candidate.nextInBucket
    }
    return nil
  }

  /// Whether `client` already waits on `slot` with this ID (a UDP client
  /// retransmitting before the answer came).
  func isWaiting(_ client: ClientRef, id: UInt16, on slot: Int) -> Bool {
    var cursor = transactions[slot].firstWaiter
    while cursor >= 0 {
      let waiter = waiters[Int(cursor)]
      if waiter.clientID == id && waiter.client == client { return true }
      cursor = waiter.next
    }
    return false
  }

  func addWaiter(to slot: Int, query: Message, client: ClientRef, now: UInt64) {
    let index = Int(freeWaiters)
    freeWaiters = waiters[index].next
    waitersInUse += 1
    var waiter = makeWaiter(for: query, client: client, now: now)
    waiter.next = transactions[slot].firstWaiter
    waiters[index] = waiter
    transactions[slot].firstWaiter = Int32(index)
  }

  func linkBucket(slot: Int) {
    let bucket = Int(transactions[slot].nameHash & bucketMask)
    transactions[slot].nextInBucket = buckets[bucket]
    buckets[bucket] = Int32(slot)
  }

  func unlinkBucket(slot: Int) {
    let bucket = Int(transactions[slot].nameHash & bucketMask)
    if buckets[bucket] == Int32(slot) {
      buckets[bucket] = transactions[slot].nextInBucket
      return
    }
    var cursor = buckets[bucket]
    while cursor >= 0 {
      let next = transactions[Int(cursor)].nextInBucket
      if next == Int32(slot) {
        transactions[Int(cursor)].nextInBucket = transactions[slot].nextInBucket
        return
      }
      cursor = next
    }
  }

  /// Returns a slot's waiters, hold buffer and verification entry to their
  /// pools and frees it.
  func release(slot: Int) {
    releaseHold(slot: slot)
    switch transactions[slot].purpose {
    case .answer: unlinkBucket(slot: slot)
    case .verification: releaseVerification(Int(transactions[slot].purposeIndex))
    case .redirectProbe: redirectProbeEnded()
    }
    var cursor = transactions[slot].firstWaiter
    while cursor >= 0 {
      let next = waiters[Int(cursor)].next
      waiters[Int(cursor)].next = freeWaiters
      freeWaiters = cursor
      waitersInUse -= 1
      cursor = next
    }
    transactions[slot].firstWaiter = -1
    freeSlot(slot)
  }
}
