import CompiledConfig
import DNSWire

/// `nftset`: the addresses of answers sent to clients for the names of an
/// `nftset` directive go to its sets, through the environment
/// (`EngineEnvironment.addToNftSet`), which queues them for the loop's
/// netlink writer and returns at once: an answer is never delayed or
/// dropped for a set.
///
/// Which records. The question name decides, by the longest matching
/// domain as for routes (`Settings.nftsetNames`), and every A and AAAA
/// record of class IN in the answer section counts, whatever its owner: a
/// CNAME chain's final records are what the client will connect to, so
/// `www.video.example CNAME edge.cdn.example` fills the sets of
/// `video.example` with the addresses of `edge.cdn.example` (as dnsmasq
/// does). A name matched only as a CNAME target fills nothing: the
/// question is what a client asked. Only NOERROR answers carry addresses.
///
/// The TTL is the one the client gets: the record's, less the time spent in
/// the cache, or the stale TTL (RFC 8767).
enum NftSetAnswers {
  /// Hands the answer's A and AAAA addresses for `name` to the environment;
  /// `age` seconds in the cache are taken off each TTL (`stale`: the stale
  /// TTL instead). Not inlined: the relay and the cache both call it.
  @inline(never)
  static func add<E: EngineEnvironment>(
    _ message: Message, name: UnsafeRawBufferPointer, age: UInt32 = 0, stale: Bool = false,
    settings: SettingsInForce, statistics: Statistics, environment: inout E
  ) {
    let directives = settings.value.nftsetDirectives(for: name)
    guard directives != 0, message.rcode == .noError else { return }
    var records = message.records()
    var remaining = message.answerCount
    while remaining > 0, let record = records.next() {
      remaining -= 1
      guard record.rrClass == .internet,
        record.type == .a && record.rdataLength == 4
          || record.type == .aaaa && record.rdataLength == 16
      else { continue }
      let ttl = stale ? Engine.staleTTL : (record.ttl > age ? record.ttl - age : 0)
      statistics[.nftsetAddresses] += 1
      environment.addToNftSet(
        directives: directives,
        address: UnsafeRawBufferPointer(rebasing: message.bytes[record.rdataOffset..<record.end]),
        ttl: ttl)
    }
  }
}

extension Settings {
  /// The `nftset` directives (bit per directive) whose domains match the
  /// lower-cased flat `name`; 0 at once without `nftset`.
  func nftsetDirectives(for name: UnsafeRawBufferPointer) -> UInt64 {
    guard nftsetNames.count > 0 else { return 0 }
    let group = Int(nftsetNames.routeGroup(name))
    guard group > 0, group <= nftsetGroups.count else { return 0 }
    return nftsetGroups[group - 1]
  }
}
