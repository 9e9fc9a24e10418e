import CompiledConfig
import DNSWire

/// Surviving the WAN: when the router's WAN address or
/// routes change (a PPPoE reconnect, a DHCP renew with a new address, a
/// link that went down and up), every UDP attempt in flight was sent from
/// a source that may no longer exist, and an upstream marked down may have
/// failed only because the link was. The transport tells the engine; the
/// engine starts over at once instead of waiting for the timeouts.
extension Engine {
  /// Sends every attempt in flight again to the same upstream over the same
  /// transport (a fresh UDP socket, bound to whatever source the new routes
  /// give; for TCP and HTTPDNS a fresh connection: the transport closes the
  /// old ones, without telling the engine, before it calls this), forgets
  /// the upstreams' failure runs, and probes for NXDOMAIN redirection and
  /// (`dnssec auto`) DNSSEC again (a new uplink may be a different ISP). An answer held for `hold-on`
  /// stands.
  public func networkChanged<E: EngineEnvironment>(now: UInt64, environment: inout E) {
    statistics[.networkChanges] += 1
    selection.forgetFailures()
    if settings.detectNXDomainRedirect && defences.probes.outstanding == 0 {
      defences.probes.nextRound = now
    }
    restartDNSSECProbes(now: now)
    // Asking again re-arms a slot at the newest end of the deadline list; the
    // walk stops at the newest as it was, so none is visited twice.
    for slot in table.inDeadlineOrder() {
      let transaction = transactions[slot]
      guard defences.holds.heldBuffer(of: slot) < 0 else { continue }
      table.endAttempt(slot, environment: &environment)
      failOver(
        slot: slot, now: now, to: Int(transaction.upstream), over: transaction.transport,
        environment: &environment)
    }
  }
}
