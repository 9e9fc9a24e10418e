import CompiledConfig
import DNSWire

/// Keeping names warm: the `prefetch` names are asked for at start-up and
/// again shortly before their answers expire; with `prefetch-hits`, so is
/// any entry hit more than that many times. The refreshes are ordinary
/// transactions with no client waiting; their answers only go into the cache.
extension Engine {
  /// How often the `prefetch` names are checked, in milliseconds.
  static let prefetchSweepMilliseconds: UInt64 = 10_000

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
        if cache.needsRefresh(name: name, type: .a, now: now) {
          refresh(
            name: name, type: .a, rrClass: .internet, dnssecOK: false, checkingDisabled: false,
            now: now, environment: &environment)
        }
        // `filter-aaaa` answers AAAA itself: nothing to keep warm.
        if !settings.filterAAAA && cache.needsRefresh(name: name, type: .aaaa, now: now) {
          refresh(
            name: name, type: .aaaa, rrClass: .internet, dnssecOK: false,
            checkingDisabled: false, now: now, environment: &environment)
        }
        start = end + 1
      }
    }
  }
}

extension PacketCache {
  /// `prefetch-hits`: whether entry `number` was hit more than `hits`
  /// times (0: off) and is due for refresh.
  func isPopularAndDue(_ number: Int, hits: UInt32, now: UInt64) -> Bool {
    hits > 0 && self.hits(number) > hits && isDueForRefresh(number, now: now)
  }

  /// A `prefetch` name's (`name`, `type`, class IN, asked plainly): not
  /// cached, or due for refresh.
  func needsRefresh(name: UnsafeRawBufferPointer, type: RRType, now: UInt64) -> Bool {
    guard let number = find(name: name, type: type, rrClass: .internet, keyFlags: 0) else {
      return true
    }
    return isDueForRefresh(number, now: now)
  }
}
