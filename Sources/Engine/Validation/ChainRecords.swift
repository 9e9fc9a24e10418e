import DNSSEC
import DNSWire

/// The packet cache as the validator reads it: DS and DNSKEY answers
/// asked with DO=1 CD=0 (the chain fetches' key), while fresh. Each read
/// counts as a hit, and a read in the entry's last tenth marks it due
/// (`dueChainEntry`), so that a zone's keys in use are asked again before
/// they expire instead of after, when every answer of the zone in flight
/// would wait for them in the pending pool.
struct CachedChainRecords: ValidatedRecordSource {
  let cache: PacketCache
  let now: UInt64

  func withValidatedAnswer<Result>(
    name: UnsafeRawBufferPointer, type: RRType, _ body: (Message, ValidationState) -> Result
  ) -> Result? {
    guard
      let number = cache.find(
        name: name, type: type, rrClass: .internet, keyFlags: PacketCache.doBit),
      now < cache.expiresAt(number),
      let message = try? Message(validating: cache.storedMessage(number))
    else { return nil }
    // A use like a client's hit: the eviction keeps the zone's keys while
    // validations read them.
    cache.noteHit(number)
    if cache.isDueForRefresh(number, now: now) { cache.dueChainEntry = number }
    return body(message, ValidationState(rawValue: cache.validation(number)) ?? .unchecked)
  }
}

extension Engine {
  /// Asks again for the DS or DNSKEY answer a validation found near its end
  /// (`CachedChainRecords`), as a refresh no client waits on, at the next
  /// tick after it (`expirePendingValidations`); one already in flight is not
  /// asked twice (`refresh`).
  func refreshDueChainRecord<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    let number = cache.dueChainEntry
    guard number >= 0 else { return }
    cache.dueChainEntry = -1
    // Marked in this loop turn; should the entry have been replaced since,
    // only a DS or DNSKEY is worth asking for again.
    let (name, type) = cache.question(number)
    guard type == .ds || type == .dnskey else { return }
    refresh(
      name: name, type: type, rrClass: .internet, dnssecOK: true, checkingDisabled: false,
      now: now, environment: &environment)
  }
}
