import CompiledConfig
import DNSWire

extension Engine {
  /// A client packet arrived on a listener (UDP datagram or one TCP message).
  public func handleClientQuery<E: EngineEnvironment>(
    _ packet: UnsafeRawBufferPointer, from client: ClientRef, now: UInt64,
    environment: inout E
  ) {
    statistics[.queries] += 1
    // Garbage shorter than a header has no ID to answer: drop it.
    guard packet.count >= HeaderField.size else {
      statistics[.droppedShort] += 1
      return
    }
    let flags = HeaderFlags(rawValue: packet.getUInt16(at: HeaderField.flags))
    guard !flags.isResponse else {
      statistics[.droppedResponses] += 1
      return
    }
    // Before any work: an over-limit client costs one bucket update.
    if settings.rateLimitPerSecond > 0
      && !defences.rateLimiter.admits(
        client.endpoint.address, now: now, perSecond: settings.rateLimitPerSecond)
    {
      statistics[.rateLimited] += 1
      return
    }
    let query = try? Message(validating: packet)
    guard defences.isAllowed(client.endpoint.address) else {
      statistics[.refused] += 1
      replyError(.refused, to: packet, query: query, client: client, environment: &environment)
      return
    }
    guard flags.opcode == .query else {
      statistics[.notImp] += 1
      replyError(
        .notImplemented, to: packet, query: query, client: client, environment: &environment)
      return
    }
    guard let query, query.hasQuestion else {
      statistics[.formErr] += 1
      replyError(.formatError, to: packet, query: nil, client: client, environment: &environment)
      return
    }
    // RFC 6891 §6.1.3: only EDNS version 0 exists; others get BADVERS.
    if let opt = query.opt, opt.version != 0 {
      statistics[.badVersion] += 1
      replyError(.badVersion, to: packet, query: query, client: client, environment: &environment)
      return
    }
    let nameLength = query.copyQuestionName(into: buffers.name, lowercase: true)
    let lowercased = UnsafeRawBufferPointer(rebasing: buffers.name[0..<nameLength])
    if query.questionClass == .chaos,
      answerChaos(query: query, name: lowercased, client: client, environment: &environment)
    {
      return
    }
    // Precedence: override/block > local names > routed names > names
    // never forwarded (unknown in `domain`, single-label, RFC 6303 zones) >
    // forwarded; the local authority lets routed names through.
    if let reply = local.answer(query, name: lowercased, settings: inForce, buffers: buffers) {
      sendLocal(reply, query: query, name: lowercased, client: client, environment: &environment)
      return
    }
    // `filter-aaaa`: every AAAA question that would be forwarded, routed or
    // not (as dnsmasq filters them all), gets NODATA.
    if settings.filterAAAA && query.questionType == .aaaa && query.questionClass == .internet {
      statistics[.aaaaFiltered] += 1
      replyError(.noError, to: packet, query: query, client: client, environment: &environment)
      return
    }
    if settings.refuseAny && query.questionType == .any && !client.isTCP {
      sendLocal(
        buffers.writeMinimalANY(query, ours: settings.ednsPayloadSize), query: query,
        name: lowercased, client: client, environment: &environment)
      return
    }
    if answerFromCache(
      query: query, name: lowercased, client: client, now: now, environment: &environment)
    {
      return
    }
    forward(query: query, name: lowercased, client: client, now: now, environment: &environment)
  }

  /// Joins an identical question in flight, or starts a transaction.
  func forward<E: EngineEnvironment>(
    query: Message, name: UnsafeRawBufferPointer, client: ClientRef, now: UInt64,
    environment: inout E
  ) {
    let dnssecOK = query.opt?.dnssecOK ?? false
    let checkingDisabled = query.flags.has(HeaderFlags.checkingDisabled)
    let hash = table.nameHash(name)
    guard table.hasFreeWaiter else {
      statistics[.ringFull] += 1
      replyError(
        .serverFailure, to: query.bytes, query: query, client: client, environment: &environment)
      return
    }
    if let slot = table.findCoalescable(
      name: name, hash: hash, type: query.questionType, rrClass: query.questionClass,
      dnssecOK: dnssecOK, checkingDisabled: checkingDisabled)
    {
      if table.isWaiting(client, id: query.id, on: slot) {
        statistics[.retransmissions] += 1
        return
      }
      statistics[.coalesced] += 1
      table.addWaiter(
        Waiter(for: query, client: client, now: now, scratch: buffers.casedName), to: slot)
      return
    }
    guard !upstreams.isEmpty,
      let slot = table.allocate(
        name: name, hash: hash, type: query.questionType, rrClass: query.questionClass,
        dnssecOK: dnssecOK, checkingDisabled: checkingDisabled, purpose: .answer,
        // Not `inForce.routeGroup`: a method of the engine's `inForce`
        // retains and releases it, and for that release Swift copies the
        // query (112 bytes) on entry here, for every forwarded question.
        // Tested first, the route table is copied for routed configs only.
        route: settings.routes.count == 0 ? 0 : settings.routes.routeGroup(name))
    else {
      if upstreams.isEmpty { statistics[.servFail] += 1 } else { statistics[.ringFull] += 1 }
      replyError(
        .serverFailure, to: query.bytes, query: query, client: client, environment: &environment)
      return
    }
    table.addWaiter(
      Waiter(for: query, client: client, now: now, scratch: buffers.casedName), to: slot)
    dispatch(slot: slot, now: now, environment: &environment)
  }
}
