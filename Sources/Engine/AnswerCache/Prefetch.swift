import CompiledConfig
import DNSWire

/// Keeping names warm: the `prefetch` names are asked for at start-up and
/// again shortly before their answers expire; with `prefetch-hits`, so is
/// any entry hit more than that many times. The refreshes are ordinary
/// transactions with no client waiting; their answers only go into the cache.
extension Engine {
  /// How often the `prefetch` names are checked, in milliseconds.
  static let prefetchSweepMilliseconds: UInt64 = 10_000

  /// A hit on a popular entry near its end refreshes it in the background.
  func refreshIfPopular<E: EngineEnvironment>(
    _ number: Int, name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass,
    dnssecOK: Bool, checkingDisabled: Bool, now: UInt64, environment: inout E
  ) {
    guard settings.prefetchHits > 0, cache.hits(number) > settings.prefetchHits,
      cache.isDueForRefresh(number, now: now)
    else { return }
    refresh(
      name: name, type: type, rrClass: rrClass, dnssecOK: dnssecOK,
      checkingDisabled: checkingDisabled, now: now, environment: &environment)
  }

  /// Asks for every `prefetch` name (A, and AAAA unless `filter-aaaa`) that is not cached or is
  /// due for refresh. Runs from `tick` every `prefetchSweepMilliseconds`,
  /// the first time at the first tick.
  func sweepPrefetchNames<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    guard !settings.prefetchNames.isEmpty, cache.isEnabled, !upstreams.isEmpty else { return }
    guard
      cache.lastPrefetchSweep == 0
        || now >= cache.lastPrefetchSweep + Self.prefetchSweepMilliseconds
    else { return }
    cache.lastPrefetchSweep = max(now, 1)
    settings.prefetchNames.withUnsafeBytes { names in
      var start = 0
      while start < names.count {
        var end = start
        while end < names.count, names[end] != 0 { end += 1 + Int(names[end]) }
        let name = UnsafeRawBufferPointer(rebasing: names[start..<min(end + 1, names.count)])
        refreshIfDue(name: name, type: .a, now: now, environment: &environment)
        // `filter-aaaa` answers AAAA itself: nothing to keep warm.
        if !settings.filterAAAA {
          refreshIfDue(name: name, type: .aaaa, now: now, environment: &environment)
        }
        start = end + 1
      }
    }
  }

  func refreshIfDue<E: EngineEnvironment>(
    name: UnsafeRawBufferPointer, type: RRType, now: UInt64, environment: inout E
  ) {
    if let number = cache.find(name: name, type: type, rrClass: .internet, keyFlags: 0),
      !cache.isDueForRefresh(number, now: now)
    {
      return
    }
    refresh(
      name: name, type: type, rrClass: .internet, dnssecOK: false, checkingDisabled: false,
      now: now, environment: &environment)
  }
}
