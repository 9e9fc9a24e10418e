import CompiledConfig
import DNSWire

/// Stopping (SIGINT/SIGTERM). The clients waiting on the
/// ring are answered before the process exits rather than left to their own
/// timeouts: a stub resolver that gets SERVFAIL moves on to the LAN's next
/// DNS server at once (glibc, Android, Windows all do), while one that gets
/// nothing waits its full timeout (5 s for glibc) first. Router restarts and
/// upgrades are exactly when that matters.
extension Engine {
  /// Ends every transaction in flight: a held answer (`hold-on`) is relayed,
  /// as its window would have; otherwise the waiting clients get what they
  /// would get if every upstream failed now — a stale answer if the cache
  /// has one, SERVFAIL otherwise. Checks of upstreams (verify, redirect
  /// probes) just end. Bounded: each pass frees the oldest slot, and a held
  /// answer may start at most one verification check, itself freed by a
  /// later pass, so at most twice `inflight` passes. Allocates nothing.
  /// Returns how many clients were waiting.
  @discardableResult
  public func answerPendingAtShutdown<E: EngineEnvironment>(
    now: UInt64, environment: inout E
  ) -> Int {
    let waiting = waitersInUse
    var passes = 0
    while let slot = table.oldestArmed, passes < 2 * table.capacity {
      passes += 1
      table.endAttempt(slot, environment: &environment)
      if defences.holds.heldBuffer(of: slot) >= 0 {
        finishHold(slot: slot, now: now, environment: &environment)
        continue
      }
      failWaiters(slot: slot, now: now, environment: &environment)
      release(slot: slot)
    }
    failPendingAtShutdown(now: now, environment: &environment)
    return waiting
  }
}
