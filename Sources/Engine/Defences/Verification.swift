import CompiledConfig
import DNSWire

/// `verify`: trusted answers kept while a plain upstream is asked the same
/// question, so that its answer can be compared. The client already has
/// the trusted answer (it is never kept waiting for the comparison); the
/// plain answer is only judged, counted and logged: a user sees in the
/// statistics and the log whether the ISP's resolver lies.
///
/// Fixed at start-up: `capacity` entries of up to `addressesPerEntry`
/// addresses; when all are busy, a verification is skipped (the client's
/// answer is unaffected).
struct VerificationTable {
  static let capacity = 16
  static let addressesPerEntry = 8
  let inUse: UnsafeMutablePointer<Bool>
  let rcodes: UnsafeMutablePointer<UInt16>
  let counts: UnsafeMutablePointer<Int>
  /// The trusted answer had more addresses than were kept.
  let partial: UnsafeMutablePointer<Bool>
  let addresses: UnsafeMutablePointer<IPAddress>

  init(enabled: Bool) {
    let entries = enabled ? Self.capacity : 0
    inUse = .allocate(capacity: max(entries, 1))
    inUse.initialize(repeating: true, count: max(entries, 1))
    for index in 0..<entries { inUse[index] = false }
    rcodes = .allocate(capacity: max(entries, 1))
    rcodes.initialize(repeating: 0, count: max(entries, 1))
    counts = .allocate(capacity: max(entries, 1))
    counts.initialize(repeating: 0, count: max(entries, 1))
    partial = .allocate(capacity: max(entries, 1))
    partial.initialize(repeating: false, count: max(entries, 1))
    let addressCount = max(entries, 1) * Self.addressesPerEntry
    addresses = .allocate(capacity: addressCount)
    addresses.initialize(repeating: .anyV6, count: addressCount)
  }

  func deallocate() {
    inUse.deallocate()
    rcodes.deallocate()
    counts.deallocate()
    partial.deallocate()
    addresses.deallocate()
  }

  /// A free entry, taken; nil when every entry is busy (or `verify` is off).
  func take() -> Int? {
    for index in 0..<Self.capacity where !inUse[index] {
      inUse[index] = true
      counts[index] = 0
      partial[index] = false
      return index
    }
    return nil
  }

  /// Gives back `entry` (a check that ended, or could not start).
  func release(_ entry: Int) {
    guard entry >= 0 && entry < Self.capacity else { return }
    inUse[entry] = false
  }

  func contains(_ address: IPAddress, entry: Int) -> Bool {
    let base = entry * Self.addressesPerEntry
    for index in 0..<counts[entry] where addresses[base + index] == address { return true }
    return false
  }

  /// How a plain upstream's answer for a `verify` name differs from the
  /// trusted answer kept in `entry`.
  struct Disagreement {
    /// An address the trusted answer did not have; nil when the response
    /// codes differ.
    var address: IPAddress?
  }

  /// The plain answer `reply` disagrees when its response code differs or
  /// one of its addresses is not among the trusted answer's (when all of
  /// those were kept); nil when it agrees.
  func disagreement(of reply: Message, entry: Int) -> Disagreement? {
    if reply.rcode.rawValue != rcodes[entry] { return Disagreement(address: nil) }
    guard !partial[entry] else { return nil }
    var records = reply.records()
    while let record = records.next(), record.offset < reply.authorityOffset {
      guard record.rrClass == .internet,
        let address = Defences.address(of: record, in: reply.bytes),
        !contains(address, entry: entry)
      else { continue }
      return Disagreement(address: address)
    }
    return nil
  }
}

extension Engine {
  /// A trusted upstream answered `slot`'s question: if the name is a
  /// `verify` name, keep the answer's addresses and ask the first plain
  /// upstream that is not down the same question.
  func startVerification<E: EngineEnvironment>(
    of reply: Message, slot: Int, now: UInt64, environment: inout E
  ) {
    let transaction = transactions[slot]
    let name = table.name(slot)
    guard transaction.type == .a || transaction.type == .aaaa, inForce.isVerified(name) else {
      return
    }
    var plainTried: UInt64 = 0
    var hasPlain = false
    for index in 0..<min(upstreams.count, 64) {
      if upstreams[index].trusted {
        plainTried |= 1 << UInt64(index)
      } else if upstreams[index].serves(routeGroup: transaction.route) {
        hasPlain = true
      }
    }
    guard hasPlain, let entry = defences.verifications.take() else { return }
    defences.verifications.rcodes[entry] = reply.rcode.rawValue
    var records = reply.records()
    let base = entry * VerificationTable.addressesPerEntry
    while let record = records.next(), record.offset < reply.authorityOffset {
      guard record.rrClass == .internet, let address = Defences.address(of: record, in: reply.bytes)
      else { continue }
      if defences.verifications.counts[entry] == VerificationTable.addressesPerEntry {
        defences.verifications.partial[entry] = true
        break
      }
      defences.verifications.addresses[base + defences.verifications.counts[entry]] = address
      defences.verifications.counts[entry] += 1
    }
    guard
      let check = table.allocate(
        name: name, hash: table.nameHash(name), type: transaction.type,
        rrClass: transaction.rrClass, dnssecOK: false, checkingDisabled: false,
        purpose: .verification, route: inForce.routeGroup(name))
    else {
      defences.verifications.release(entry)
      return
    }
    transactions[check].purposeIndex = Int16(entry)
    // Every trusted upstream counts as tried, so the check goes to a plain
    // one and, if that fails, to the next plain one, never to a trusted one.
    transactions[check].tried = plainTried
    dispatch(slot: check, now: now, environment: &environment)
  }

  /// The answer to a check of an upstream (`verify` or a redirect probe):
  /// judged, never relayed or cached.
  func finishCheck<E: EngineEnvironment>(
    _ reply: Message, slot: Int, isFailure: Bool, now: UInt64, environment: inout E
  ) {
    let transaction = transactions[slot]
    let upstream = Int(transaction.upstream)
    if transaction.purpose == .dnssecProbe {
      judgeDNSSECProbe(reply, slot: slot, isFailure: isFailure, now: now, environment: &environment)
      release(slot: slot)
      return
    }
    if isFailure {
      // A resolver may refuse names under TLDs it does not serve; an error
      // for a made-up probe name says nothing of its health for real ones.
      if transaction.purpose == .verification {
        selection.noteFailure(upstream, now: now, kind: .error, environment: &environment)
      }
    } else {
      selection.noteSuccess(upstream, environment: &environment)
      switch transaction.purpose {
      case .verification:
        if let disagreement = defences.verifications.disagreement(
          of: reply, entry: Int(transaction.purposeIndex))
        {
          statistics[.verifyDisagreements] += 1
          selection.recordDisagreement(upstream)
          environment.reportDefence(
            .verificationDisagreed, name: table.name(slot), address: disagreement.address,
            upstream: upstream)
        }
      case .redirectProbe:
        defences.probes.record(
          reply, probe: Int(transaction.purposeIndex), upstream: Int16(upstream))
      case .answer, .dnssecProbe: break
      }
    }
    release(slot: slot)
    judgeProbeRoundIfOver(environment: &environment)
  }
}
