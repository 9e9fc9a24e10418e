import CompiledConfig
import DNSWire

/// A reload (the loop's SIGHUP, or a `resolv-conf` file that changed):
/// new settings and a new upstream list between two loop turns. What may
/// change here is what sizes nothing: the loop keeps the start-up value of
/// every setting that sized a table (Transports, `Reconfiguration`).
extension Engine {
  /// Puts `settings` in force for the next query, with the values that
  /// derive from them.
  public func reconfigure(settings: Settings) {
    inForce = SettingsInForce(settings)
    defences.reconfigure(settings)
    // `dnssec` turned on by a reload: its pool, once, as at start-up.
    if settings.validatesDNSSEC && validations.capacity == 0 {
      validations = ValidationPool(
        mode: settings.dnssec, inflight: table.capacity,
        hashKey: HashKey(k0: table.hashKey.k0 ^ 0x5851_F42D_4C95_7F2D, k1: ~table.hashKey.k1))
    }
    reconfigureDNSSECProbes()
  }

  /// First half of an upstream change, while the old upstreams' transports
  /// are still there: each question in flight gives up its attempt (the
  /// transport releases what it holds for it; a late reply finds a new
  /// generation and is dropped). A held `hold-on` answer is given now; a
  /// check of an old upstream (`verify`, a redirect or DNSSEC probe) ends. The
  /// questions for clients keep their slots and waiters and are asked again
  /// by `resendQueriesInFlight`. Then `replacement` is the list in force:
  /// an upstream in both lists keeps its health and figures, the others
  /// start afresh; with `dnssec auto` all are probed at the next tick.
  public func withdrawQueriesInFlight<E: EngineEnvironment>(
    replacingUpstreamsWith replacement: [UpstreamServer], now: UInt64, environment: inout E
  ) {
    for slot in table.inDeadlineOrder() {
      table.endAttempt(slot, environment: &environment)
      if defences.holds.heldBuffer(of: slot) >= 0 {
        finishHold(slot: slot, now: now, environment: &environment)
        continue
      }
      if transactions[slot].purpose != .answer {
        release(slot: slot)
        continue
      }
      table.renew(slot)
      transactions[slot].upstream = -1
      transactions[slot].tried = 0
    }
    // A redirect probe round judged the old upstreams (its candidates
    // name their indexes): dropped, and the new ones probed at the next tick.
    defences.probes.judging = false
    defences.probes.candidateCount = 0
    defences.probes.controlAnswered = 0
    if settings.detectNXDomainRedirect { defences.probes.nextRound = now }
    selection.replace(with: replacement)
    restartDNSSECProbes(now: now)
  }

  /// Asks every question withdrawn by `withdrawQueriesInFlight` again, of
  /// the upstreams now in force, under the routes now in force.
  public func resendQueriesInFlight<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    // Dispatching re-arms a slot at the newest end of the deadline list;
    // the walk stops at the newest as it was, so none is visited twice.
    for slot in table.inDeadlineOrder() where transactions[slot].upstream < 0 {
      table.reroute(slot, route: inForce.routeGroup(table.name(slot)))
      dispatch(slot: slot, now: now, environment: &environment)
    }
  }
}

extension Settings {
  /// Whether answers cached under `running` could be answered differently
  /// under these settings (upstreams aside, which the loop compares): the `for`
  /// routes, answer screening (`bogus`, `bogus-nxdomain`, `rebind-*`,
  /// `filter-aaaa`), TTL limits, and DNSSEC (`dnssec`, and the trust anchors
  /// that `dnssec-root`, `trust-anchor` and `trust-anchor-file` give): a
  /// reload that changes one empties the cache.
  public func cachedAnswersDiffer(from running: Settings) -> Bool {
    !routes.hasSameEntries(as: running.routes)
      || bogusPrefixes != running.bogusPrefixes
      || bogusNXDomainPrefixes != running.bogusNXDomainPrefixes
      || rebindProtection != running.rebindProtection
      || rebindAllowNames != running.rebindAllowNames
      || minTTL != running.minTTL || maxTTL != running.maxTTL
      || negativeTTLMax != running.negativeTTLMax
      || filterAAAA != running.filterAAAA
      || ValidationPool.dnssecDiffers(under: self, from: running)
  }
}
