import CompiledConfig
import DNSWire

/// The packet cache in the query path: hits, storing accepted answers with
/// their TTLs (RFC 2308 for negative ones), and serve-stale (RFC 8767).
extension Engine {
  /// TTL of an answer served stale (RFC 8767 §4 recommends 30 seconds).
  static let staleTTL: UInt32 = 30

  /// Answers a client from the cache when it can: a fresh entry, or with
  /// `stale-first` an expired one still inside the `stale` window, which is
  /// then refreshed in the background. Returns whether it answered.
  func answerFromCache<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, now: UInt64,
    environment: inout E
  ) -> Bool {
    guard cache.isEnabled else { return false }
    let dnssecOK = query.opt?.dnssecOK ?? false
    let checkingDisabled = query.flags.has(HeaderFlags.checkingDisabled)
    let keyFlags = PacketCache.keyFlags(dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
    guard
      let number = cache.find(
        name: name, type: query.questionType, rrClass: query.questionClass, keyFlags: keyFlags)
    else {
      statistics[.cacheMisses] += 1
      return false
    }
    let expires = cache.expiresAt(number)
    let stale = now >= expires
    guard !stale || (settings.staleFirst && now < expires + settings.staleWindowMilliseconds) else {
      statistics[.cacheMisses] += 1
      return false
    }
    if Self.validationIsBuiltIn && validatesDNSSEC && !checkingDisabled,
      let answered = answerValidatedEntry(
        number, query: query, name: name, client: client, stale: stale, now: now,
        environment: &environment)
    {
      if !answered { statistics[.cacheMisses] += 1 }
      return answered
    }
    let waiter = Waiter(for: query, client: client, now: now, scratch: buffers.casedName)
    cache.noteHit(number)
    sendCached(number, to: waiter, name: name, now: now, stale: stale, environment: &environment)
    if stale {
      statistics[.staleServed] += 1
      refresh(
        name: name, type: query.questionType, rrClass: query.questionClass, dnssecOK: dnssecOK,
        checkingDisabled: checkingDisabled, now: now, environment: &environment)
    } else {
      statistics[.cacheHits] += 1
      // `prefetch-hits`: a popular entry near its end is refreshed in the
      // background (Prefetch.swift).
      if cache.isPopularAndDue(number, hits: settings.prefetchHits, now: now) {
        refresh(
          name: name, type: query.questionType, rrClass: query.questionClass,
          dnssecOK: dnssecOK, checkingDisabled: checkingDisabled, now: now,
          environment: &environment)
      }
    }
    return true
  }

  /// Asks upstream for a question nobody is waiting on (a stale entry being
  /// refreshed); its answer only goes into the cache.
  func refresh<E: EngineEnvironment>(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, dnssecOK: Bool,
    checkingDisabled: Bool, now: UInt64, environment: inout E
  ) {
    let hash = table.nameHash(name)
    guard !upstreams.isEmpty,
      table.findCoalescable(
        name: name, hash: hash, type: type, rrClass: rrClass, dnssecOK: dnssecOK,
        checkingDisabled: checkingDisabled) == nil,
      let slot = table.allocate(
        name: name, hash: hash, type: type, rrClass: rrClass, dnssecOK: dnssecOK,
        checkingDisabled: checkingDisabled, purpose: .answer,
        route: inForce.routeGroup(name))
    else { return }
    statistics[.refreshes] += 1
    dispatch(slot: slot, now: now, environment: &environment)
  }

  /// Every upstream failed for `slot`: clients whose question has an entry
  /// expired less than `stale` ago get it, with TTL 30 (RFC 8767 §5).
  /// Returns whether one was found (then every waiter was answered).
  func serveStale<E: EngineEnvironment>(slot: Int, now: UInt64, environment: inout E) -> Bool {
    guard cache.isEnabled, settings.staleSeconds > 0 else { return false }
    let transaction = transactions[slot]
    let name = table.name(slot)
    let keyFlags = PacketCache.keyFlags(
      dnssecOK: transaction.dnssecOK, checkingDisabled: transaction.checkingDisabled)
    guard
      let number = cache.find(
        name: name, type: transaction.type, rrClass: transaction.rrClass, keyFlags: keyFlags),
      now < cache.expiresAt(number) + settings.staleWindowMilliseconds
    else { return false }
    // With CD=0 only what validation passed (secure or insecure), whose
    // state the waiters' replies carry.
    if validations.validates(transactions[slot], dnssec: validatesDNSSEC) {
      let state = cache.validation(number)
      guard state == Self.secureState || state == Self.insecureState else {
        return false
      }
      validations.note(state: state, slot: slot)
    }
    for waiter in table.waiters(of: slot) {
      statistics[.staleServed] += 1
      sendCached(
        number, to: waiter, name: name, now: now, stale: now >= cache.expiresAt(number),
        waited: true, environment: &environment)
    }
    return true
  }

  /// Writes cache entry `number` as the reply to one client: its ID, RD/CD,
  /// question case and EDNS; AA cleared (a cached answer is not
  /// authoritative, RFC 1035 §6.1); every TTL less the time spent in cache,
  /// or 30 when stale.
  ///
  /// - Parameter waited: whether the client waited on a transaction (a stale
  ///   answer after the upstreams failed): its latency is logged; a cache
  ///   hit answered at once logs 0.
  func sendCached<E: EngineEnvironment>(
    _ number: Int, to waiter: Waiter, name: UnsafeRawBufferPointer, now: UInt64, stale: Bool,
    waited: Bool = false, environment: inout E
  ) {
    let stored = cache.storedMessage(number)
    let output = buffers.replyOutput
    let age = UInt32(truncatingIfNeeded: (now &- cache.storedAt(number)) / 1000)
    guard let message = try? Message(validating: stored) else { return }
    var flags = message.flags
    flags.rawValue &=
      ~(HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled
      | HeaderFlags.authoritative)
    flags.rawValue |= waiter.clientFlags | HeaderFlags.recursionAvailable
    if Self.validationIsBuiltIn && validatesDNSSEC {
      flags.set(
        HeaderFlags.authenticData,
        waiter.wantsAD && cache.validation(number) == Self.secureState)
    }
    var limit = waiter.client.replyLimit(
      hasEDNS: waiter.hasEDNS, payloadSize: waiter.clientPayloadSize,
      ours: settings.ednsPayloadSize)
    let optLength = waiter.hasEDNS ? 11 : 0
    var length = stored.count + optLength
    // Stripped for a DO=0 client, it may fit where the stored form does not.
    let strip = validations.strips(
      dnssecOK: waiter.dnssecOK, type: message.questionType, dnssec: validatesDNSSEC)
    let clientLimit = limit
    if strip { limit = Self.maxMessage }
    if length <= min(limit, output.count) {
      UnsafeMutableRawBufferPointer(rebasing: output[0..<stored.count]).copyMemory(from: stored)
      output.setUInt16(waiter.clientID, at: HeaderField.id)
      output.setUInt16(flags.rawValue, at: HeaderField.flags)
      waiter.clientCase.apply(
        to: name,
        into: UnsafeMutableRawBufferPointer(
          rebasing: output[HeaderField.size..<(HeaderField.size + name.count)]))
      var records = message.records()
      while let record = records.next() {
        let ttl = stale ? Self.staleTTL : (record.ttl > age ? record.ttl - age : 0)
        output.setUInt32(ttl, at: record.ttlOffset)
      }
      if waiter.hasEDNS {
        output.setUInt16(UInt16(message.additionalCount + 1), at: HeaderField.additionalCount)
        var writer = MessageWriter(
          buffer: UnsafeMutableRawBufferPointer(rebasing: output[stored.count...]))
        try? writer.writeClientOPT(payloadSize: settings.ednsPayloadSize, dnssecOK: waiter.dnssecOK)
      }
      if strip {
        length = validations.stripDNSSECRecords(
          in: UnsafeMutableRawBufferPointer(rebasing: buffers.replyOutput[0..<length]))
        limit = clientLimit
      }
    }
    if length > min(limit, output.count) {
      length = buffers.writeTruncated(
        id: waiter.clientID, flags: flags, name: name, clientCase: waiter.clientCase,
        type: message.questionType, rrClass: message.questionClass, hasEDNS: waiter.hasEDNS,
        dnssecOK: waiter.dnssecOK, extendedRcode: 0, ours: settings.ednsPayloadSize)
    }
    send(
      replyLength: length, to: waiter.client,
      latencyMilliseconds: waited ? waiter.latency(at: now) : 0,
      environment: &environment)
    NftSetAnswers.add(
      message, name: name, age: age, stale: stale, settings: inForce, statistics: statistics,
      environment: &environment)
    if environment.logsQueries {
      environment.logQuery(
        client: waiter.client, name: name, type: message.questionType,
        outcome: stale ? .stale : .cached, upstream: -1,
        latencyMilliseconds: waited ? waiter.latency(at: now) : 0)
    }
  }

}

extension Settings {
  /// The `stale` window: how long past expiry an answer may be served.
  var staleWindowMilliseconds: UInt64 { UInt64(staleSeconds) * 1000 }

  /// How long an answer may be cached, in seconds, or nil if it may not.
  /// Inlined into `PacketCache.store`, its one caller: called, it would be
  /// handed a copy of the whole Settings (648 bytes) to read three fields.
  @inline(__always)
  func cacheTTL(_ message: Message) -> UInt32? {
    let answers = message.answerCount
    let authorities = message.authorityCount
    var records = message.records()
    if message.rcode == .noError && answers > 0 {
      // The smallest TTL of any record, within min-ttl...max-ttl.
      var smallest = UInt32.max
      while let record = records.next() { smallest = min(smallest, record.ttl) }
      let ttl = min(max(smallest, minTTL), maxTTL)
      return ttl > 0 ? ttl : nil
    }
    // NXDOMAIN or NODATA: the SOA of the authority section says how long.
    for _ in 0..<answers { _ = records.next() }
    for _ in 0..<authorities {
      guard let record = records.next() else { break }
      guard record.type == .soa, record.rdataLength >= 20 else { continue }
      let minimum = message.bytes.getUInt32(at: record.end - 4)
      let ttl = min(record.ttl, minimum, negativeTTLMax)
      return ttl > 0 ? ttl : nil
    }
    return nil
  }
}

extension PacketCache {
  /// Stores an accepted upstream answer for a slot's question (`name`,
  /// `type`, `rrClass`, the DO and CD `keyFlags`) if it may be
  /// cached: NOERROR with answers (TTL: the smallest of its records, within
  /// min-ttl and max-ttl), or NXDOMAIN/NODATA with an SOA in the authority section (TTL:
  /// the smaller of the SOA's TTL and MINIMUM, at most neg-ttl-max, RFC 2308
  /// §5). Not SERVFAIL or other errors, not TC=1. With `dnssec`, stored
  /// with the slot's validation state: a secure answer's TTL at most the
  /// verdict's; a bogus one (`extendedError`, its INFO-CODE) for
  /// `ValidationPool.bogusSeconds`, answered SERVFAIL on hits. `name` is
  /// the slot's lower-cased question name; the stored form is written in
  /// `buffers.replyOutput` first. `validation` and `secureTTL` are the
  /// slot's (`ValidationPool`). Returns whether it was stored.
  func store(
    _ reply: Message, name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass,
    keyFlags: UInt8,
    validation: UInt8, secureTTL: UInt32, extendedError: UInt8 = 0, settings: SettingsInForce,
    buffers: borrowing MessageBuffers, now: UInt64
  ) -> Bool {
    guard isEnabled, !reply.flags.has(HeaderFlags.truncated) else { return false }
    let rcode = reply.rcode
    guard rcode == .noError || rcode == .nameError else { return false }
    // The stored form is the relayed form for a lower-case, EDNS-less client.
    var plain = Waiter()
    plain.clientID = 0
    plain.clientFlags =
      reply.flags.rawValue
      & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled)
    guard
      let length = try? buffers.writeRelayed(
        reply, waiter: plain, flags: reply.flags, name: name, type: type,
        rrClass: rrClass, extendedRcode: 0, ours: settings.value.ednsPayloadSize)
    else { return false }
    let stored = UnsafeMutableRawBufferPointer(rebasing: buffers.replyOutput[0..<length])
    guard let message = try? Message(validating: UnsafeRawBufferPointer(stored)),
      let cacheable = settings.value.cacheTTL(message)
    else { return false }
    let ttl = ValidationPool.validatedTTL(cacheable, state: validation, secureTTL: secureTTL)
    let positive = rcode == .noError && message.answerCount > 0
    var records = message.records()
    while let record = records.next() {
      // Positive: each TTL within min-ttl...max-ttl, so none is below the
      // entry's. Negative: none above the negative TTL (RFC 2308 §5).
      let clamped =
        positive
        ? min(max(record.ttl, settings.value.minTTL), settings.value.maxTTL) : min(record.ttl, ttl)
      // Secure: no record outlives what validation allows (RFC 4035 §5.3.3).
      let adjusted = validation == Engine.secureState ? min(clamped, ttl) : clamped
      stored.setUInt32(adjusted, at: record.ttlOffset)
    }
    return insert(
      name: name, type: type, rrClass: rrClass, keyFlags: keyFlags,
      message: UnsafeRawBufferPointer(stored), now: now,
      expiresAt: now + UInt64(ttl) * 1000, validation: validation, extendedError: extendedError)
  }
}

extension Transaction {
  /// The DO and CD bits of the question, as the cache keys its answer.
  var keyFlags: UInt8 {
    PacketCache.keyFlags(dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
  }
}
