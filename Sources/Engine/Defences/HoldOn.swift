import CompiledConfig
import DNSWire

/// `hold-on`: buffers for first answers that wait for a possible second one.
/// An on-path injector answers a UDP query before the real server does;
/// the real answer still arrives, a few milliseconds later. Holding the
/// first answer for a short window lets both be seen and the one with the
/// upstream's usual shape win.
///
/// Fixed at start-up: `capacity` buffers of the advertised EDNS size (an
/// upstream answer over UDP is no larger), a free stack, and a FIFO of the
/// windows. Every window has the same length, so the FIFO is in order of
/// expiry and the next end is at its head. A buffer goes back to the free
/// stack only when its window leaves the FIFO, even if its slot finished
/// earlier, so the FIFO never holds more than `capacity` windows.
///
/// The pool keeps its own per-slot state: which buffer a transaction slot
/// holds (`heldBuffer(of:)`, -1 for none), and per buffer the held
/// answer's digest, shape score and IP TTL. With `hold-on` off there are no
/// buffers and no slot table, and no slot holds anything.
struct HoldPool {
  static let maxCapacity = 64
  let capacity: Int
  let bufferBytes: Int
  let buffers: UnsafeMutableRawBufferPointer
  /// Per buffer: what it holds.
  let answers: UnsafeMutablePointer<HeldAnswer>
  /// Per transaction slot (`slotCapacity` of them when on): the buffer it
  /// holds, -1 for none.
  let slotBuffers: UnsafeMutablePointer<Int16>
  /// Free buffers, a stack of indices.
  let free: UnsafeMutablePointer<Int16>
  var freeCount: Int
  /// Holding slots in order of their window's end.
  let queue: UnsafeMutablePointer<HeldSlot>
  var queueHead = 0
  var queueCount = 0

  /// A held answer's length, digest, shape score and IP TTL.
  struct HeldAnswer {
    var length = 0
    var digest: UInt64 = 0
    var score: UInt8 = 0
    var ipTTL: UInt8 = 0
  }

  struct HeldSlot {
    var buffer: Int16 = 0
    var slot: Int32 = 0
    var generation: UInt32 = 0
    var ends: UInt64 = 0
  }

  init(capacity: Int, bufferBytes: Int, slotCapacity: Int) {
    self.capacity = capacity
    self.bufferBytes = bufferBytes
    buffers = .allocate(byteCount: max(capacity * bufferBytes, 1), alignment: 8)
    answers = .allocate(capacity: max(capacity, 1))
    answers.initialize(repeating: HeldAnswer(), count: max(capacity, 1))
    let slots = capacity > 0 ? slotCapacity : 1
    slotBuffers = .allocate(capacity: slots)
    slotBuffers.initialize(repeating: -1, count: slots)
    free = .allocate(capacity: max(capacity, 1))
    for index in 0..<capacity { (free + index).initialize(to: Int16(index)) }
    freeCount = capacity
    queue = .allocate(capacity: max(capacity, 1))
    queue.initialize(repeating: HeldSlot(), count: max(capacity, 1))
  }

  func deallocate() {
    buffers.deallocate()
    answers.deallocate()
    slotBuffers.deallocate()
    free.deallocate()
    queue.deallocate()
  }

  /// The buffer transaction slot `slot` holds an answer in, -1 for none.
  func heldBuffer(of slot: Int) -> Int16 {
    capacity > 0 ? slotBuffers[slot] : -1
  }

  /// Slot `slot` holds `packet`'s answer in buffer `index` from now on.
  func hold(slot: Int, buffer index: Int16, digest: UInt64, score: UInt8, ipTTL: UInt8) {
    slotBuffers[slot] = index
    answers[Int(index)].digest = digest
    answers[Int(index)].score = score
    answers[Int(index)].ipTTL = ipTTL
  }

  /// The slot no longer holds an answer (its buffer stays with its window).
  func release(slot: Int) {
    if capacity > 0 { slotBuffers[slot] = -1 }
  }

  /// When the oldest window ends, if any slot holds an answer.
  var earliestEnd: UInt64? { queueCount > 0 ? queue[queueHead].ends : nil }

  func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
    UnsafeMutableRawBufferPointer(
      rebasing: buffers[(index * bufferBytes)..<((index + 1) * bufferBytes)])
  }

  func message(_ index: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: buffer(index)[0..<answers[index].length])
  }

  /// Copies `packet` into a free buffer; nil when none is free or it is too big.
  mutating func keep(_ packet: UnsafeRawBufferPointer) -> Int16? {
    guard freeCount > 0, fits(packet) else { return nil }
    freeCount -= 1
    let index = free[freeCount]
    replace(Int(index), with: packet)
    return index
  }

  /// Whether `packet` fits a buffer. A UDP answer can be larger than the
  /// EDNS size that sized them (a server may ignore it, an injector will).
  func fits(_ packet: UnsafeRawBufferPointer) -> Bool { packet.count <= bufferBytes }

  /// Overwrites buffer `index` with `packet`, which must fit (`fits`): the
  /// slice bounds are checked only in debug builds, so a longer packet
  /// would run into the next buffer, or past the pool.
  func replace(_ index: Int, with packet: UnsafeRawBufferPointer) {
    precondition(fits(packet), "held answer larger than its buffer")
    UnsafeMutableRawBufferPointer(rebasing: buffer(index)[0..<packet.count]).copyMemory(
      from: packet)
    answers[index].length = packet.count
  }

  mutating func giveBack(_ index: Int16) {
    free[freeCount] = index
    freeCount += 1
  }

  /// One buffer is taken per queued window, so the queue never overflows.
  mutating func enqueue(_ held: HeldSlot) {
    queue[(queueHead + queueCount) % capacity] = held
    queueCount += 1
  }

  mutating func dequeue() -> HeldSlot {
    let held = queue[queueHead]
    queueHead = (queueHead + 1) % capacity
    queueCount -= 1
    return held
  }
}

extension Engine {
  /// An accepted, screened UDP answer while `hold-on` is on. Returns true
  /// if it was taken here (held, or compared with the held one); false if
  /// it is to be relayed at once (no buffer free, or too big to keep).
  func holdAnswer<E: EngineEnvironment>(
    _ reply: Message, screen: AnswerScreen, ipTTL: UInt8, slot: Int, now: UInt64,
    environment: inout E
  ) -> Bool {
    let upstream = Int(transactions[slot].upstream)
    let score = selection.shapeScore(of: reply, ipTTL: ipTTL, upstream: upstream)
    let heldBuffer = defences.holds.heldBuffer(of: slot)
    if heldBuffer >= 0 {
      // The same answer twice (a retransmitting server) changes nothing.
      guard screen.digest != defences.holds.answers[Int(heldBuffer)].digest else { return true }
      statistics[.holdOnConflicts] += 1
      // Ties go to the later answer: an injector is nearer, so first. One
      // too large to hold cannot take the held one's place (and an upstream
      // answering over UDP above the advertised EDNS size is not usual).
      let secondWins =
        score >= defences.holds.answers[Int(heldBuffer)].score && defences.holds.fits(reply.bytes)
      if secondWins {
        statistics[.holdOnReplaced] += 1
        defences.holds.replace(Int(heldBuffer), with: reply.bytes)
        defences.holds.hold(
          slot: slot, buffer: heldBuffer, digest: screen.digest, score: score, ipTTL: ipTTL)
      }
      environment.reportDefence(
        .holdOnConflict, name: table.name(slot), address: nil, upstream: upstream)
      finishHold(slot: slot, now: now, environment: &environment)
      return true
    }
    guard let index = defences.holds.keep(reply.bytes) else { return false }
    defences.holds.hold(
      slot: slot, buffer: index, digest: screen.digest, score: score, ipTTL: ipTTL)
    defences.holds.enqueue(
      HoldPool.HeldSlot(
        buffer: index, slot: Int32(slot), generation: table.handle(slot).generation,
        ends: now + UInt64(settings.holdOnMilliseconds)))
    return true
  }

  /// Relays the answers whose window is over.
  func endDueHolds<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    while let ends = defences.holds.earliestEnd, ends <= now {
      let held = defences.holds.dequeue()
      let slot = Int(held.slot)
      if table.isCurrent(slot, generation: held.generation),
        defences.holds.heldBuffer(of: slot) == held.buffer
      {
        table.endAttempt(slot, environment: &environment)
        finishHold(slot: slot, now: now, environment: &environment)
      }
      defences.holds.giveBack(held.buffer)
    }
  }

  /// The held answer won: relay and cache it like any accepted answer.
  func finishHold<E: EngineEnvironment>(slot: Int, now: UInt64, environment: inout E) {
    let index = Int(defences.holds.heldBuffer(of: slot))
    guard
      let reply = try? Message(validating: defences.holds.message(index), allowTrailingData: true)
    else {
      // Validated when it was kept; cannot happen, but never trap on it,
      // and never leave the waiting clients without an answer.
      failWaiters(slot: slot, now: now, environment: &environment)
      release(slot: slot)
      return
    }
    accept(
      reply, slot: slot, ipTTL: defences.holds.answers[index].ipTTL, now: now,
      environment: &environment)
  }
}
