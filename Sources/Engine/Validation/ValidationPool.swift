import CompiledConfig
import DNSSEC
import DNSWire

/// The answers waiting for their chain of trust (`dnssec on` or `auto`),
/// what validation knows of each transaction slot, and the validator
/// itself: the state of the flow in Validation.swift. Allocated once at
/// start-up, sized by `inflight`.
final class ValidationPool {
  /// One pending answer: the slot whose answer it is, the transaction it
  /// waits for, and the fetches made for it.
  struct Pending {
    /// -1: the entry is free.
    var slot: Int32 = -1
    /// The chain fetch awaited (-1: none; its end wakes this entry).
    var awaitedSlot: Int32 = -1
    var awaitedType = RRType.dnskey
    var awaitedHash: UInt32 = 0
    var length = 0
    var fetches: UInt8 = 0
    /// CNAME targets asked for (ValidationChase.swift), at most `maxChases`.
    var chases: UInt8 = 0
    /// The awaited fetch is a chased target: its answer is composed in.
    var chasing = false
    /// Engine milliseconds; 0 makes the next tick fail it.
    var deadline: UInt64 = 0
  }

  static let bufferBytes = 16_384
  static let maxCapacity = 32
  static let maxFetches: UInt8 = 16
  static let maxChases: UInt8 = 8
  /// How long a bogus answer is remembered (unbound's val-bogus-ttl).
  static let bogusSeconds: UInt32 = 60

  /// What validation knows of one transaction slot: the pending entry
  /// holding its answer while the chain is fetched (-1: none), the state it
  /// found for the answer being delivered (a `ValidationState` raw value,
  /// 0: unchecked) and, for a secure one, the most seconds it may be cached.
  struct SlotState {
    var pending: Int16 = -1
    var state: UInt8 = 0
    var secureTTL: UInt32 = .max
  }

  let capacity: Int
  let entries: UnsafeMutablePointer<Pending>
  /// One per transaction slot while validation is on (`inflight`), reset
  /// when the slot is released; one unused entry when it is off.
  let slotStates: UnsafeMutablePointer<SlotState>
  let buffers: UnsafeMutableRawBufferPointer
  var validator: Validator
  /// Which bogus answers are logged (ValidationReports.swift).
  var bogusReports = BogusReports()
  var reportedUncheckedTimes = false
  /// Start and end offsets of the records a reply to a DO=0 client leaves
  /// out (ValidationStripping.swift), `maxStripped` pairs.
  let strippedRanges: UnsafeMutablePointer<Int32>
  static let maxStripped = 64

  /// `dnssec auto`: when the next upstream's DNSSEC probe is due (0: at
  /// the next tick; nil: not `auto`), the earliest of theirs
  /// (UpstreamProbes.swift).
  var nextProbeRound: UInt64?

  /// Whose answers the verifications were for (ValidationShares.swift).
  var shares: ValidationShares
  /// A bogus answer was cached since the cache was last emptied for
  /// `dnssec auto` (UpstreamProbes.swift, `settle`).
  var bogusCached = false

  /// Allocated once: `min(inflight, maxCapacity)` buffers unless `mode` is off.
  init(mode: DNSSECMode, inflight: Int, hashKey: HashKey) {
    shares = ValidationShares(hashKey: hashKey)
    let enabled = mode != .off
    nextProbeRound = mode == .auto ? 0 : nil
    capacity = enabled ? min(inflight, Self.maxCapacity) : 0
    validator = Validator(remembering: enabled ? Validator.rememberedSignatures : 1)
    entries = .allocate(capacity: max(capacity, 1))
    entries.initialize(repeating: Pending(), count: max(capacity, 1))
    let slots = enabled ? inflight : 1
    slotStates = .allocate(capacity: slots)
    slotStates.initialize(repeating: SlotState(), count: slots)
    buffers = .allocate(byteCount: max(capacity * Self.bufferBytes, 1), alignment: 8)
    strippedRanges = .allocate(capacity: 2 * Self.maxStripped)
    strippedRanges.initialize(repeating: 0, count: 2 * Self.maxStripped)
  }

  deinit {
    entries.deallocate()
    slotStates.deallocate()
    buffers.deallocate()
    strippedRanges.deallocate()
  }

  func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
    let start = index * Self.bufferBytes
    return UnsafeMutableRawBufferPointer(rebasing: buffers[start..<(start + Self.bufferBytes)])
  }

  func message(_ index: Int) -> Message? {
    let bytes = UnsafeRawBufferPointer(buffer(index))[0..<entries[index].length]
    return try? Message(
      validating: UnsafeRawBufferPointer(rebasing: bytes), allowTrailingData: true)
  }

  /// `slot`'s validation state (0, unchecked, while validation is off).
  func state(of slot: Int) -> UInt8 { capacity > 0 ? slotStates[slot].state : 0 }

  func isSecure(_ slot: Int) -> Bool { state(of: slot) == ValidationState.secure.rawValue }

  /// How long `slot`'s secure answer may be cached at most.
  func secureTTL(of slot: Int) -> UInt32 { capacity > 0 ? slotStates[slot].secureTTL : .max }

  func freeEntry() -> Int? {
    for index in 0..<capacity where entries[index].slot < 0 { return index }
    return nil
  }

  /// The earliest pending validation's deadline or DNSSEC probe round.
  var earliestDeadline: UInt64? {
    var earliest: UInt64? = nextProbeRound
    for index in 0..<capacity where entries[index].slot >= 0 {
      earliest = min(earliest ?? entries[index].deadline, entries[index].deadline)
    }
    return earliest
  }
}

extension ValidationPool {
  /// Whether `transaction`'s answer is validated: `dnssec` on, a question
  /// for an answer asked with CD=0 (RFC 4035 §3.2.2: CD=1 gets it
  /// unvalidated). Always inlined: called, it would be handed a copy of
  /// the whole `Transaction` to read two fields.
  @inline(__always)
  func validates(_ transaction: Transaction, dnssec: Bool) -> Bool {
    dnssec && !transaction.checkingDisabled && transaction.purpose == .answer
  }

  /// The validator's verdict on `reply` for (`name`, `type`), the chain read
  /// from the cache; `time` nil while the clock is not to be trusted.
  func verdict(
    for reply: Message, name: UnsafeRawBufferPointer, type: RRType, anchors: TrustAnchors,
    cache: PacketCache, now: UInt64, time: UInt32?
  ) -> ValidationVerdict {
    validator.validate(
      reply, questionName: name, questionType: type, anchors: anchors,
      records: CachedChainRecords(cache: cache, now: now), now: time)
  }

  /// How long an answer is cached given its validation `state`: a secure
  /// one no longer than the verdict allows (`secureTTL`, RFC 4035 §5.3.3),
  /// a bogus one `bogusSeconds`.
  static func validatedTTL(_ ttl: UInt32, state: UInt8, secureTTL: UInt32) -> UInt32 {
    switch state {
    case ValidationState.secure.rawValue: return max(min(ttl, secureTTL), 1)
    case ValidationState.bogus.rawValue: return ValidationPool.bogusSeconds
    default: return ttl
    }
  }

  /// Records what validation found for `slot`'s answer.
  func note(_ state: ValidationState, ttl: UInt32 = .max, slot: Int) {
    slotStates[slot].state = state.rawValue
    slotStates[slot].secureTTL = ttl
  }

  /// `slot` is answered from a cache entry validated to `state`.
  func note(state: UInt8, slot: Int) {
    slotStates[slot].state = state
  }

  /// The engine released `slot`: its pending validation (if any) is given back, its
  /// state forgotten, and those awaiting it (a fetch that ended without an
  /// answer to resume them) fail at the next tick.
  func release(slot: Int) {
    guard capacity > 0 else { return }
    let own = Int(slotStates[slot].pending)
    if own >= 0 { entries[own] = ValidationPool.Pending() }
    slotStates[slot] = ValidationPool.SlotState()
    for index in 0..<capacity
    where entries[index].awaitedSlot == Int32(slot) {
      entries[index].awaitedSlot = -1
      entries[index].deadline = 0
    }
  }

  /// Whether answers cached under `running` could be validated differently
  /// under `settings`.
  static func dnssecDiffers(under settings: Settings, from running: Settings) -> Bool {
    settings.dnssec != running.dnssec
      || !settings.trustAnchors.hasSameEntries(as: running.trustAnchors)
  }
}
