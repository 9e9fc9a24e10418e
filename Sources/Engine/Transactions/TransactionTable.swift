import CompiledConfig
import DNSWire

/// The transaction table: every question in flight upstream, the clients
/// waiting for its answer, the index through which a new client joins an
/// identical question, and the deadlines of the attempts. `capacity` slots
/// (`inflight`, a power of two) and as many waiters, allocated once in
/// `init` and freed in `deinit`; nothing here allocates in between.
/// Noncopyable: one owner (the engine), and a method borrows it in place
/// rather than getting a copy of its fields. Every operation is O(1) but
/// the walks (a coalescing bucket, a slot's waiters, the deadline list),
/// which are bounded by `capacity`.
///
/// A slot is addressed by its index and named to the transports by a
/// `TransactionHandle` (index + generation). A slot is two records: the
/// engine's (`slots`, a `Transaction`: the question and its attempt) and
/// the table's own (`links`, a `SlotLinks`: state, generation, deadline,
/// the name's length and hash, and the links). The table's are written only
/// in this file (`fileprivate(set)`), by the methods that keep these
/// invariants:
///
/// 1. Each slot is untouched, free or active. Slots from `touchedSlots` on
///    were never taken: not initialized, never read, so their pages stay
///    out of memory until the load first needs them; `allocate` takes the
///    next one when no other is free. The free ones form a stack through
///    `nextInOrder`; `activeCount` counts the active ones.
/// 2. `generation` changes whenever a slot is taken (`allocate`) or starts
///    a new attempt (`renew`), so the handle of an earlier use or attempt
///    no longer finds it (`slot(for:)`): late replies and socket events for
///    it are stale.
/// 3. The armed slots form a doubly linked list through `previousInOrder`
///    and `nextInOrder`, from `oldest` to `newest`, in non-decreasing
///    deadline order. `arm` is the only way in, and it appends: every
///    attempt gets the same timeout and the clock never goes back, so the
///    newest deadline is the latest. Expiry is found at the oldest end in
///    O(1) (`expired(now:)`), and a slot that finishes early leaves at once
///    (`free`) instead of holding capacity until it reaches the head. A slot
///    is armed from its first dispatch until it is freed; `allocate` leaves
///    it unarmed for its caller to dispatch at once.
/// 4. An active `.answer` slot is in exactly one coalescing bucket, the one
///    its name hash selects, chained through `nextInBucket`; no other slot
///    is in any. So a client only ever joins a question asked for an
///    answer, never a check of an upstream (`.verification`,
///    `.redirectProbe`), whose answer is compared rather than believed.
/// 5. Each waiter is untouched (from `touchedWaiters` on, as for slots), on
///    the free stack, or on exactly one active slot's list (`firstWaiter`,
///    chained through `Waiter.next`); `waitersInUse` counts the latter.
///    Freeing a slot frees its waiters.
struct TransactionTable: ~Copyable {
  /// Bytes kept per slot for its lower-cased question name.
  static let nameStride = Name.maxLength + 1
  let capacity: Int
  let bucketMask: UInt32
  /// The slots' questions and attempts, `capacity` of them.
  let slots: UnsafeMutablePointer<Transaction>
  /// The slots' state, deadline and links, `capacity` of them.
  let links: UnsafeMutablePointer<SlotLinks>
  /// The waiters, `capacity` of them. Read only through `waiters(of:)`.
  let waiterPool: UnsafeMutablePointer<Waiter>
  /// Lower-cased question name of each slot, `nameStride` bytes each. Not
  /// zeroed: a slot's name is written before it is read, and untouched
  /// pages cost no memory (a quiet router uses a few slots).
  let names: UnsafeMutableRawBufferPointer
  /// Coalescing bucket heads, `capacity` of them. The hash is keyed with a
  /// random seed, so that a client cannot aim many names at one bucket.
  let buckets: UnsafeMutablePointer<Int32>
  /// That seed (`nameHash`).
  let hashKey: HashKey
  private(set) var oldest: Int32 = -1
  private(set) var newest: Int32 = -1
  private(set) var freeSlots: Int32 = -1
  private(set) var freeWaiters: Int32 = -1
  private(set) var touchedSlots = 0
  private(set) var touchedWaiters = 0
  private(set) var activeCount = 0
  private(set) var waitersInUse = 0

  init(capacity: Int, hashKey: HashKey) {
    precondition(capacity > 0 && capacity & (capacity - 1) == 0, "inflight must be a power of two")
    self.capacity = capacity
    self.hashKey = hashKey
    bucketMask = UInt32(capacity - 1)
    slots = .allocate(capacity: capacity)
    links = .allocate(capacity: capacity)
    waiterPool = .allocate(capacity: capacity)
    names = .allocate(byteCount: capacity * Self.nameStride, alignment: 8)
    buckets = .allocate(capacity: capacity)
    buckets.initialize(repeating: -1, count: capacity)
  }

  deinit {
    slots.deallocate()
    links.deallocate()
    waiterPool.deallocate()
    names.deallocate()
    buckets.deallocate()
  }

  // MARK: Slots (invariants 1, 2)

  /// Takes a free slot for a question (lower-cased `name`, `hash` its
  /// coalescing hash), every other field at its default, and puts it in its
  /// bucket if it is asked for an answer (invariant 4). Not armed: the
  /// caller dispatches it before returning to the event loop. nil when all
  /// `capacity` slots are active. Not inlined: it has several callers, and
  /// a copy in each costs about 1 KB of aarch64 firmware.
  @inline(never)
  mutating func allocate(
    name: UnsafeRawBufferPointer, hash: UInt32, type: RRType, rrClass: RRClass,
    dnssecOK: Bool, checkingDisabled: Bool, purpose: Transaction.Purpose, route: UInt8
  ) -> Int? {
    let slot: Int
    if freeSlots >= 0 {
      slot = Int(freeSlots)
      freeSlots = links[slot].nextInOrder
    } else if touchedSlots < capacity {
      slot = touchedSlots
      touchedSlots += 1
      (slots + slot).initialize(to: Transaction())
      (links + slot).initialize(to: SlotLinks())
    } else {
      return nil
    }
    activeCount += 1
    var question = Transaction()
    question.purpose = purpose
    question.type = type
    question.rrClass = rrClass
    question.dnssecOK = dnssecOK
    question.checkingDisabled = checkingDisabled
    question.route = route
    slots[slot] = question
    var fresh = SlotLinks()
    fresh.state = .active
    fresh.generation = links[slot].generation &+ 1
    fresh.nameLength = name.count
    fresh.nameHash = hash
    links[slot] = fresh
    let start = slot * Self.nameStride
    UnsafeMutableRawBufferPointer(rebasing: names[start..<(start + Self.nameStride)]).copyMemory(
      from: name)
    if purpose == .answer {
      let bucket = Int(hash & bucketMask)
      links[slot].nextInBucket = buckets[bucket]
      buckets[bucket] = Int32(slot)
    }
    return slot
  }

  /// Frees an active slot: out of its bucket and the deadline list, its
  /// waiters back to the pool (invariants 3–5), itself onto the free stack.
  mutating func free(_ slot: Int) {
    if slots[slot].purpose == .answer { unlinkBucket(slot) }
    var cursor = links[slot].firstWaiter
    while cursor >= 0 {
      let next = waiterPool[Int(cursor)].next
      waiterPool[Int(cursor)].next = freeWaiters
      freeWaiters = cursor
      waitersInUse -= 1
      cursor = next
    }
    links[slot].firstWaiter = -1
    disarm(slot)
    links[slot].state = .free
    links[slot].nextInOrder = freeSlots
    freeSlots = Int32(slot)
    activeCount -= 1
  }

  /// Starts a new attempt in an active slot: a new generation, so replies
  /// and socket events of the old attempt are stale. Its deadline moves when
  /// the attempt is armed.
  func renew(_ slot: Int) {
    links[slot].generation &+= 1
  }

  /// Sets the route group of an active slot's question: after a reload the
  /// `for` domains, and so the groups, may be different.
  func reroute(_ slot: Int, route: UInt8) {
    slots[slot].route = route
  }

  // MARK: Deadlines (invariant 3)

  /// Sets the deadline of the attempt in `slot` and moves it to the newest
  /// end of the deadline list. `deadline` is `now` plus the one timeout, so
  /// no armed deadline is later. (Were the clock to step back, an expiry
  /// behind a later one would come late, never be lost.)
  mutating func arm(_ slot: Int, deadline: UInt64) {
    disarm(slot)
    links[slot].deadline = deadline
    links[slot].previousInOrder = newest
    links[slot].nextInOrder = -1
    if newest >= 0 {
      links[Int(newest)].nextInOrder = Int32(slot)
    } else {
      oldest = Int32(slot)
    }
    newest = Int32(slot)
  }

  /// `dnssec`: the slot's answer waits for a chain of trust
  /// (Validation.swift): its attempt is over (a new generation, so a late
  /// reply is stale) and it leaves the deadline list, so the timeout does not
  /// fail it over to another upstream; its waiters and its bucket stay, and
  /// the pending validation's own deadline bounds the wait. Dispatching it
  /// again arms it as usual.
  mutating func park(_ slot: Int) {
    disarm(slot)
    links[slot].generation &+= 1
  }

  /// Takes `slot` out of the deadline list, if it is in it.
  private mutating func disarm(_ slot: Int) {
    let previous = links[slot].previousInOrder
    let next = links[slot].nextInOrder
    guard previous >= 0 || oldest == Int32(slot) else { return }
    if previous >= 0 {
      links[Int(previous)].nextInOrder = next
    } else {
      oldest = next
    }
    if next >= 0 {
      links[Int(next)].previousInOrder = previous
    } else {
      newest = previous
    }
    links[slot].previousInOrder = -1
    links[slot].nextInOrder = -1
  }

  // MARK: Coalescing (invariant 4)

  private func unlinkBucket(_ slot: Int) {
    let bucket = Int(links[slot].nameHash & bucketMask)
    let after = links[slot].nextInBucket
    links[slot].nextInBucket = -1
    if buckets[bucket] == Int32(slot) {
      buckets[bucket] = after
      return
    }
    var cursor = buckets[bucket]
    while cursor >= 0 {
      let next = links[Int(cursor)].nextInBucket
      if next == Int32(slot) {
        links[Int(cursor)].nextInBucket = after
        return
      }
      cursor = next
    }
  }

  // MARK: Waiters (invariant 5)

  /// Adds a waiting client to an active slot; there must be a free waiter
  /// (`hasFreeWaiter`).
  mutating func addWaiter(_ waiter: Waiter, to slot: Int) {
    let index: Int
    if freeWaiters >= 0 {
      index = Int(freeWaiters)
      freeWaiters = waiterPool[index].next
    } else {
      precondition(touchedWaiters < capacity, "no free waiter")
      index = touchedWaiters
      touchedWaiters += 1
      (waiterPool + index).initialize(to: Waiter())
    }
    waitersInUse += 1
    waiterPool[index] = waiter
    waiterPool[index].next = links[slot].firstWaiter
    links[slot].firstWaiter = Int32(index)
  }
}

/// The question of one in-flight upstream query and its current attempt:
/// the engine's half of a `TransactionTable` slot, plain values only. The
/// question is set by the table when the slot is taken (`fileprivate(set)`);
/// the attempt fields are the engine's.
struct Transaction {
  /// Why the question is asked. Only `.answer` transactions are found by
  /// coalescing, relayed to clients and cached; the others check upstreams.
  enum Purpose: UInt8 {
    /// For waiting clients, or a refresh whose answer goes into the cache.
    case answer
    /// `verify`: the plain upstream's view, compared with a trusted answer
    /// already given (`purposeIndex`: the entry in the verification table).
    case verification
    /// `detect-nxdomain-redirect`: a name that cannot exist, or the control
    /// name (`purposeIndex`: which probe of the round).
    case redirectProbe
    /// `dnssec auto`: the first trust anchor's DNSKEY RRset, asked of one
    /// upstream with DO=1 CD=0 (Validation/UpstreamProbes.swift).
    case dnssecProbe
  }
  fileprivate(set) var purpose: Purpose = .answer
  var purposeIndex: Int16 = 0
  fileprivate(set) var type: RRType = .a
  fileprivate(set) var rrClass: RRClass = .internet
  /// DO and CD bits of the question: part of the coalescing key, since the
  /// answer differs with them.
  fileprivate(set) var dnssecOK = false
  fileprivate(set) var checkingDisabled = false
  /// The route group of the name (`OverrideTable.routeGroup`), computed once when
  /// the slot is taken: only upstreams serving it are asked. 0: unrouted.
  fileprivate(set) var route: UInt8 = 0
  /// When the current attempt was sent (the `now` of its dispatch), for the
  /// upstream's smoothed RTT.
  var sentAt: UInt64 = 0
  var upstream: Int16 = -1
  var transport: UpstreamTransport = .udp
  /// Upstreams already tried, one bit each (the first 64).
  var tried: UInt64 = 0
  /// ID of the query as sent upstream.
  var sentID: UInt16 = 0
  /// The 0x20 pattern of the name as sent, nil when it went out in lower
  /// case: then the reply's case carries no information and a case-only
  /// difference is accepted.
  var sentCase: CaseMask? = nil
  /// False after an upstream answered in the wrong case: this transaction's
  /// next attempt goes out without 0x20.
  var caseAllowed = true
}

/// The table's half of a slot: what its invariants are about.
struct SlotLinks {
  enum State: UInt8 { case free, active }
  fileprivate(set) var state: State = .free
  /// Changed at every use and attempt of the slot (invariant 2).
  fileprivate(set) var generation: UInt32 = 0
  /// When the attempt expires (set by `arm`, invariant 3).
  fileprivate(set) var deadline: UInt64 = 0
  /// Length and coalescing hash of the lower-cased name in `names`.
  fileprivate(set) var nameLength: Int = 0
  fileprivate(set) var nameHash: UInt32 = 0
  /// First waiting client in the waiter pool, -1 when none.
  fileprivate(set) var firstWaiter: Int32 = -1
  /// Next transaction in the same coalescing bucket, -1 at the end.
  fileprivate(set) var nextInBucket: Int32 = -1
  /// Neighbours in the deadline list while armed; `nextInOrder` links the
  /// free stack while free.
  fileprivate(set) var previousInOrder: Int32 = -1
  fileprivate(set) var nextInOrder: Int32 = -1
}

/// A client waiting for a transaction's answer.
struct Waiter {
  var client = ClientRef(endpoint: Endpoint(address: .anyV6, port: 0), listener: 0)
  var clientID: UInt16 = 0
  /// The client's RD and CD bits, copied into its reply (RFC 1035 §4.1.1).
  var clientFlags: UInt16 = 0
  var clientCase = CaseMask()
  var hasEDNS = false
  /// The client's DO bit, copied into its reply's OPT (RFC 3225 §3).
  var dnssecOK = false
  /// `dnssec`: the client set DO or AD, so a secure answer gets AD=1
  /// (RFC 6840 §5.8).
  var wantsAD = false
  var clientPayloadSize: UInt16 = 512
  /// When the query arrived (engine milliseconds): its logged latency is
  /// measured from here.
  var askedAt: UInt64 = 0
  /// The next waiter on the same slot, or on the free stack (invariant 5).
  fileprivate(set) var next: Int32 = -1

  /// Milliseconds this client has waited at `now` (0 if the clock went back).
  func latency(at now: UInt64) -> UInt64 {
    now >= askedAt ? now - askedAt : 0
  }
}

extension Waiter {
  /// The waiter record of `client`'s query, asked at `now`: one answered at
  /// once (from the cache), or one waiting on a transaction. `scratch`
  /// holds the question name while its case is read.
  init(
    for query: Message, client: ClientRef, now: UInt64, scratch: UnsafeMutableRawBufferPointer
  ) {
    var waiter = Waiter()
    waiter.client = client
    waiter.askedAt = now
    waiter.clientID = query.id
    waiter.clientFlags =
      query.flags.rawValue & (HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled)
    let length = query.copyQuestionName(into: scratch, lowercase: false)
    waiter.clientCase = CaseMask(
      of: UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
    if let opt = query.opt {
      waiter.hasEDNS = true
      waiter.dnssecOK = opt.dnssecOK
      waiter.clientPayloadSize = max(opt.udpPayloadSize, 512)
    }
    waiter.wantsAD =
      Engine.validationIsBuiltIn && (waiter.dnssecOK || query.flags.has(HeaderFlags.authenticData))
    self = waiter
  }
}
