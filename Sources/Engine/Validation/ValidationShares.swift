import CompiledConfig
import DNSWire

/// Whose answers the signature verifications were for, so that one client
/// that floods the validator cannot hold back the answers of the others:
/// the loop verifies the upstream replies for light clients before those
/// for a heavy one (Server.handleInFairOrder), within the same bound per
/// turn. Work-conserving: a heavy client's replies wait only while a light
/// one's are ready.
///
/// A client's verifications are counted in one of `bucketCount` buckets,
/// chosen by its address hashed with a random key (a client cannot aim at
/// another's bucket; two LAN devices share one rarely, and then only
/// their order among themselves). Every count halves each second, so the
/// figures are the work of the last few seconds. A client is heavy while
/// its bucket holds more than half of all the counts and at least
/// `heavyFloor`: two clients that validate alike are both light.
/// Allocated once at start-up; nothing per query.
struct ValidationShares: ~Copyable {
  static let bucketCount = 256
  static let heavyFloor: UInt32 = 8
  static let halvingMilliseconds: UInt64 = 1000

  private let counts: UnsafeMutablePointer<UInt32>
  private var total: UInt32 = 0
  private var lastHalving: UInt64 = 0
  private let hashKey: HashKey

  init(hashKey: HashKey) {
    counts = .allocate(capacity: Self.bucketCount)
    counts.initialize(repeating: 0, count: Self.bucketCount)
    self.hashKey = hashKey
  }

  deinit { counts.deallocate() }

  private func bucket(_ address: IPAddress) -> Int {
    var hasher = SipHasher(key: hashKey)
    hasher.combine(address.high)
    hasher.combine(address.low)
    return Int(truncatingIfNeeded: hasher.finalize()) & (Self.bucketCount - 1)
  }

  /// `verifications` more for `address`'s answers at `now`.
  mutating func add(_ verifications: Int, for address: IPAddress, now: UInt64) {
    // Halved once for each whole second since the last halving: a client
    // that flooded a minute ago is light again at once.
    let periods = (now &- lastHalving) / Self.halvingMilliseconds
    if periods > 0 {
      lastHalving = now
      let shift = UInt32(truncatingIfNeeded: min(periods, 31))
      total = 0
      for index in 0..<Self.bucketCount {
        counts[index] >>= shift
        total &+= counts[index]
      }
    }
    let added = UInt32(truncatingIfNeeded: min(verifications, 1 << 16))
    counts[bucket(address)] &+= added
    total &+= added
  }

  /// Whether `address` has had more than half of the recent verifications.
  func isHeavy(_ address: IPAddress) -> Bool {
    let count = counts[bucket(address)]
    return count >= Self.heavyFloor && count > total / 2
  }
}

extension Engine {
  /// Whether the transaction in `slot` answers a client that has had most
  /// of the recent verifications (ValidationShares); false for one with
  /// no client (a chain fetch or a probe: others wait for it).
  public func answersAHeavyValidationClient(transaction slot: Int) -> Bool {
    guard validations.capacity > 0, slot >= 0, slot < table.capacity else { return false }
    var waiters = table.waiters(of: slot)
    guard let waiter = waiters.next() else { return false }
    return validations.shares.isHeavy(waiter.client.endpoint.address)
  }

  /// Counts the last validation's verifications against `slot`'s client.
  func countVerifications(_ verifications: Int, for slot: Int, now: UInt64) {
    statistics[.dnssecVerifications] += UInt64(verifications)
    var waiters = table.waiters(of: slot)
    guard verifications > 0, let waiter = waiters.next() else { return }
    validations.shares.add(verifications, for: waiter.client.endpoint.address, now: now)
  }
}
