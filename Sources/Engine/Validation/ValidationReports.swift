import CompiledConfig
import DNSSEC
import DNSWire

/// A bogus answer is logged once per zone: an upstream that
/// strips signatures, or a path that alters a zone's data, would
/// otherwise write a warning for every name asked. The zone is found from
/// what failed:
/// - the signer of the answer's first RRSIG, when it has one (data changed
///   on the way, a signature expired, a wrong key);
/// - without any RRSIG (stripped on the way), the closest enclosing zone
///   known signed: a trust anchor's, or one the chain of trust proved
///   signed — a secure DNSKEY answer, or a secure DS answer holding DS
///   records, in the cache as the validator reads it (RFC 4035 §5.2);
/// - else the root.
/// A zone is logged again once 16 others have been, and at most 16 lines
/// are written a minute (`BogusReports`).
extension Engine {
  /// Reports `slot`'s bogus answer unless its zone was among the last ones
  /// reported or this minute's lines are spent (`BogusReports`).
  func reportBogus<E: EngineEnvironment>(
    _ reply: Message?, slot: Int, error: ExtendedDNSError, now: UInt64, environment: inout E
  ) {
    let upstream = Int(transactions[slot].upstream)
    guard upstream >= 0, upstream < upstreams.count else { return }
    let name = table.name(slot)
    let zone = BogusReports.zone(
      of: reply, name: name, chain: CachedChainRecords(cache: cache, now: now), settings: inForce)
    guard validations.bogusReports.shouldLog(zoneHash: table.nameHash(zone), now: now) else {
      return
    }
    environment.reportBogus(
      name: name, zone: zone, extendedError: error.rawValue, upstream: upstream)
  }
}

/// Which bogus answers are logged: each zone once while it stays among the
/// last `recentZones` logged, and at most `linesPerMinute` lines a minute
/// whatever the zones, so that a path that breaks many zones cannot flood
/// a router's log (the `dnssecBogus` counter counts every one).
struct BogusReports: ~Copyable {
  /// The zone a bogus answer is logged under (see `reportBogus`): a slice
  /// of `reply`'s bytes or of `name` (flat, lower-cased), valid while they
  /// are.
  static func zone(
    of reply: Message?, name: UnsafeRawBufferPointer, chain: CachedChainRecords,
    settings: SettingsInForce
  ) -> UnsafeRawBufferPointer {
    if let reply {
      var records = reply.records()
      while let record = records.next(), record.offset < reply.additionalOffset {
        if let rrsig = RRSIGRecord(record, in: reply) { return rrsig.signerName }
      }
    }
    var offset = 0
    while let parent = Name.parentOffset(name, from: offset) {
      let suffix = UnsafeRawBufferPointer(rebasing: name[offset...])
      if chain.provesSigned(suffix, .dnskey) || chain.provesSigned(suffix, .ds)
        || settings.value.isTrustAnchor(suffix)
      {
        return suffix
      }
      offset = parent
    }
    return UnsafeRawBufferPointer(rebasing: name[min(offset, name.count)...])
  }

  static let recentZones = 16
  static let linesPerMinute = 16
  static let minute: UInt64 = 60_000

  /// Name hashes of the zones logged last, a ring.
  let recent: UnsafeMutablePointer<UInt32>
  var nextRecent = 0
  /// The engine millisecond the current minute began, and its lines.
  var minuteStart: UInt64 = 0
  var linesThisMinute = 0

  init() {
    recent = .allocate(capacity: Self.recentZones)
    recent.initialize(repeating: 0, count: Self.recentZones)
  }

  deinit { recent.deallocate() }

  /// Whether a failure in the zone whose name hashes to `zoneHash` is
  /// logged at `now` (engine milliseconds); a logged zone is remembered.
  mutating func shouldLog(zoneHash: UInt32, now: UInt64) -> Bool {
    for index in 0..<Self.recentZones where recent[index] == zoneHash { return false }
    if linesThisMinute == 0 || now &- minuteStart >= Self.minute {
      minuteStart = now
      linesThisMinute = 0
    }
    guard linesThisMinute < Self.linesPerMinute else { return false }
    linesThisMinute += 1
    recent[nextRecent] = zoneHash
    nextRecent = (nextRecent + 1) % Self.recentZones
    return true
  }
}

extension CachedChainRecords {
  /// Whether the validator reads a secure, non-empty answer to (`name`,
  /// `type`): the zone is signed (its keys, or a DS for it).
  func provesSigned(_ name: UnsafeRawBufferPointer, _ type: RRType) -> Bool {
    withValidatedAnswer(name: name, type: type) { message, state in
      state == .secure && message.answerCount > 0
    } ?? false
  }
}

extension Settings {
  /// Whether a `trust-anchor` (or the root's) is for `name`.
  func isTrustAnchor(_ name: UnsafeRawBufferPointer) -> Bool {
    trustAnchors.withIterator { anchors in
      while let anchor = anchors.next() {
        if Name.equalIgnoringCase(anchor.owner, name) { return true }
      }
      return false
    }
  }
}
