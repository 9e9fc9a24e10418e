import CompiledConfig
import DNSWire

/// The read-only side of the `TransactionTable`: finding a slot, its name,
/// the walks of the deadline list and of a slot's waiters, and the
/// coalescing lookup. None of these change the table, so none can break
/// its invariants (TransactionTable.swift).
extension TransactionTable {
  func handle(_ slot: Int) -> TransactionHandle {
    TransactionHandle(slot: UInt32(slot), generation: links[slot].generation)
  }

  /// Whether `slot` is active and still in the attempt of `generation`.
  func isCurrent(_ slot: Int, generation: UInt32) -> Bool {
    slot >= 0 && slot < touchedSlots && links[slot].state == .active
      && links[slot].generation == generation
  }

  /// The slot `handle` names, if that attempt is still the current one.
  func slot(for handle: TransactionHandle) -> Int? {
    let slot = Int(handle.slot)
    return isCurrent(slot, generation: handle.generation) ? slot : nil
  }

  /// The lower-cased question name of an active slot.
  func name(_ slot: Int) -> UnsafeRawBufferPointer {
    let start = slot * Self.nameStride
    return UnsafeRawBufferPointer(rebasing: names[start..<(start + links[slot].nameLength)])
  }

  // MARK: Deadlines (invariant 3)

  /// The earliest deadline of an armed slot; nil when none is armed.
  var earliestDeadline: UInt64? { oldest >= 0 ? links[Int(oldest)].deadline : nil }

  /// The armed slot with the earliest deadline, if any.
  var oldestArmed: Int? { oldest >= 0 ? Int(oldest) : nil }

  /// The armed slot with the earliest deadline if that deadline is due at
  /// `now`. The caller frees or re-arms it before asking again, so the
  /// expired attempts are walked as `while let slot = table.expired(now:)`.
  func expired(now: UInt64) -> Int? {
    guard oldest >= 0, links[Int(oldest)].deadline <= now else { return nil }
    return Int(oldest)
  }

  /// The armed slots from the earliest deadline to the latest, as they are
  /// when the walk starts: it stops at the slot that was newest then, so
  /// one re-armed on the way is not seen twice, and it reads a slot's
  /// successor before handing the slot out, so that slot may be freed or
  /// re-armed. (The others must stay armed meanwhile.)
  func inDeadlineOrder() -> DeadlineOrder {
    DeadlineOrder(links: links, upcoming: oldest, last: newest)
  }

  struct DeadlineOrder: Sequence, IteratorProtocol {
    fileprivate let links: UnsafeMutablePointer<SlotLinks>
    fileprivate var upcoming: Int32
    fileprivate let last: Int32

    mutating func next() -> Int? {
      guard upcoming >= 0 else { return nil }
      let slot = Int(upcoming)
      upcoming = upcoming == last ? -1 : links[slot].nextInOrder
      return slot
    }
  }

  // MARK: Coalescing (invariant 4)

  /// The coalescing bucket hash of a lower-cased name (low 32 bits).
  func nameHash(_ name: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(truncatingIfNeeded: Name.hashIgnoringCase(name, key: hashKey))
  }

  /// The active `.answer` slot asking this question — the same lower-cased
  /// `name` (`hash` its coalescing hash), type, class, DO and CD bits, since
  /// the answer differs with each — if there is one. Not inlined into its
  /// three callers (about 200 bytes of aarch64 firmware).
  @inline(never)
  func findCoalescable(
    name: UnsafeRawBufferPointer, hash: UInt32, type: RRType, rrClass: RRClass, dnssecOK: Bool,
    checkingDisabled: Bool
  ) -> Int? {
    var cursor = buckets[Int(hash & bucketMask)]
    while cursor >= 0 {
      let slot = Int(cursor)
      let link = links[slot]
      let candidate = slots[slot]
      if link.nameHash == hash, candidate.type == type, candidate.rrClass == rrClass,
        candidate.dnssecOK == dnssecOK, candidate.checkingDisabled == checkingDisabled,
        link.nameLength == name.count, Name.equalIgnoringCase(self.name(slot), name)
      {
        return slot
      }
      cursor = link.nextInBucket
    }
    return nil
  }

  // MARK: Waiters (invariant 5)

  /// Whether a client can be added to a slot.
  var hasFreeWaiter: Bool { freeWaiters >= 0 || touchedWaiters < capacity }

  /// Whether `client` already waits on `slot` with this ID (a UDP client
  /// retransmitting before the answer came).
  func isWaiting(_ client: ClientRef, id: UInt16, on slot: Int) -> Bool {
    for waiter in waiters(of: slot) where waiter.clientID == id && waiter.client == client {
      return true
    }
    return false
  }

  /// The clients waiting on `slot`, newest first. Each waiter's successor is
  /// read before the waiter is handed out.
  func waiters(of slot: Int) -> WaiterList {
    WaiterList(pool: waiterPool, cursor: links[slot].firstWaiter)
  }

  struct WaiterList: Sequence, IteratorProtocol {
    fileprivate let pool: UnsafeMutablePointer<Waiter>
    fileprivate var cursor: Int32

    mutating func next() -> Waiter? {
      guard cursor >= 0 else { return nil }
      let waiter = pool[Int(cursor)]
      cursor = waiter.next
      return waiter
    }
  }
}

extension TransactionTable {
  /// The slot of the active query on a pipelined stream (TCP, DoT) to `upstream` with `id`, if any.
  func pipelinedQuery(upstream: Int, id: UInt16, except: Int = -1) -> Int? {
    for slot in inDeadlineOrder() {
      let candidate = slots[slot]
      if slot != except, candidate.transport.isPipelinedStream, Int(candidate.upstream) == upstream,
        candidate.sentID == id
      {
        return slot
      }
    }
    return nil
  }

  /// Tells the transport that the attempt in `slot` is over (its UDP
  /// socket's port is released). For the loop's own calls (a deadline, a
  /// reload, a WAN change, shutdown): a transport that hands the engine a
  /// reply or a failure ends that attempt itself, so the engine never calls
  /// back into it (`Engine.handleUpstreamReply` returns whether it is over).
  /// Not inlined: six callers.
  @inline(never)
  func endAttempt<E: EngineEnvironment>(_ slot: Int, environment: inout E) {
    environment.releaseUpstream(transaction: handle(slot), transport: slots[slot].transport)
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
        pipelinedQuery(upstream: upstream, id: id, except: slot) != nil
      else { return id }
    }
  }
}

extension TransactionTable {
  enum QuestionMatch { case exact, caseOnly, different }

  /// Whether `reply`'s question is the one `slot` sent: the same type,
  /// class and name, in the 0x20 case sent (`caseOnly` when only the case
  /// differs). `scratch` holds the reply's name as written.
  func questionMatch(
    _ reply: Message, slot: Int, scratch: UnsafeMutableRawBufferPointer
  ) -> QuestionMatch {
    let transaction = slots[slot]
    let expected = name(slot)
    guard reply.hasQuestion, reply.questionType == transaction.type,
      reply.questionClass == transaction.rrClass,
      reply.questionNameLength == expected.count,
      // The answer's records are copied with their offsets, so the question
      // must be written uncompressed, as it was sent.
      reply.questionEnd == HeaderField.size + expected.count + 4
    else { return .different }
    let length = reply.copyQuestionName(into: scratch, lowercase: false)
    let received = UnsafeRawBufferPointer(rebasing: scratch[0..<length])
    guard Name.equalIgnoringCase(received, expected) else { return .different }
    // Without 0x20 the case was never a secret: any case is fine.
    guard let sentCase = transaction.sentCase else { return .exact }
    return CaseMask(of: received) == sentCase ? .exact : .caseOnly
  }
}
