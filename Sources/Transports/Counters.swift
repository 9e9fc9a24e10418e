import CompiledConfig
import Engine
import Platform

/// Counters of the transport layer (the engine counts the DNS side).
public struct TransportCounters {
  /// Datagrams larger than the receive buffer: dropped.
  public var oversized: UInt64 = 0
  /// Client TCP connections refused because every slot was taken.
  public var tcpRejected: UInt64 = 0
  /// Client TCP connections closed: idle, broken framing, or a backlog
  /// that could not take a reply.
  public var tcpClosed: UInt64 = 0
  /// Sends that failed (socket buffer full, network error).
  public var sendErrors: UInt64 = 0
  /// Upstream datagrams still queued after their attempt ended (duplicates,
  /// forgeries): read and dropped.
  public var lateUpstreamReplies: UInt64 = 0
  /// HTTPDNS and DoH answers that could not be used (HTTPDNSConnections).
  public var httpdnsErrors: UInt64 = 0
  /// TLS sessions of both pools (SecureChannels): full handshakes done,
  /// those that resumed a session, and servers refused (certificate, name,
  /// pin). Kept here, not in the pools, so they outlive a reload's new pools.
  public var tlsHandshakes: UInt64 = 0
  public var tlsResumptions: UInt64 = 0
  public var tlsRefusals: UInt64 = 0
  public init() {}
}

/// The transport's counters under one name each, as metrics list them
/// (MetricsText.swift: `dnsward_` and the name in snake case, `_total`):
/// `TransportCounters`.
struct TransportStatistics {
  var counters: TransportCounters

  static let count = 9

  func statistic(at index: Int) -> (name: StaticString, value: UInt64) {
    switch index {
    case 0: return ("oversized", counters.oversized)
    case 1: return ("tcpRejected", counters.tcpRejected)
    case 2: return ("tcpClosed", counters.tcpClosed)
    case 3: return ("sendErrors", counters.sendErrors)
    case 4: return ("lateUpstreamReplies", counters.lateUpstreamReplies)
    case 5: return ("httpdnsErrors", counters.httpdnsErrors)
    case 6: return ("tlsHandshakes", counters.tlsHandshakes)
    case 7: return ("tlsResumptions", counters.tlsResumptions)
    default: return ("tlsRefusals", counters.tlsRefusals)
    }
  }
}

/// The counters log: engine, transport, defences, and one line per
/// upstream.
extension Server {
  /// Starts an info line of the counters log, naming the worker when there
  /// are several.
  private func startCounterLine() {
    log.start(.info)
    if settings.workers > 1 { log.append("worker ").append(decimal: worker).append(" ") }
  }

  /// One log line with every counter (SIGUSR1, and at exit).
  public func logCounters() {
    let engineCounters = engine.counters
    startCounterLine()
    log.append("queries ").append(decimal: engineCounters.queries)
      .append(" forwarded ").append(decimal: engineCounters.forwarded)
      .append(" answered ").append(decimal: engineCounters.answered)
      .append(" overridden ").append(decimal: engineCounters.overridden)
      .append(" blocked ").append(decimal: engineCounters.blocked)
      .append(" cache-hits ").append(decimal: engineCounters.cacheHits)
      .append(" cache-misses ").append(decimal: engineCounters.cacheMisses)
      .append(" stale ").append(decimal: engineCounters.staleServed)
      .append(" coalesced ").append(decimal: engineCounters.coalesced)
      .append(" retransmitted ").append(decimal: engineCounters.retransmissions)
      .append(" servfail ").append(decimal: engineCounters.servFail)
      .append(" timeouts ").append(decimal: engineCounters.timeouts)
      .append(" refused ").append(decimal: engineCounters.refused)
      .append(" formerr ").append(decimal: engineCounters.formErr)
      .append(" notimp ").append(decimal: engineCounters.notImp)
      .append(" dropped ").append(
        decimal: engineCounters.droppedShort + engineCounters.droppedResponses
      )
      .append(" ring-full ").append(decimal: engineCounters.ringFull)
      .append(" truncated ").append(decimal: engineCounters.truncated)
      .append(" mismatched ").append(
        decimal: engineCounters.mismatchedID + engineCounters.mismatchedQuestion
          + engineCounters.mismatchedSource + engineCounters.mismatchedCase
          + engineCounters.malformedReplies
      )
      .emit(.info)
    // The transports' own troubles.
    startCounterLine()
    log.append("transport oversized ").append(decimal: counters.oversized)
      .append(" send-errors ").append(decimal: counters.sendErrors)
      .append(" late-upstream-replies ").append(decimal: counters.lateUpstreamReplies)
      .append(" tcp-rejected ").append(decimal: counters.tcpRejected)
      .append(" httpdns-errors ").append(decimal: counters.httpdnsErrors)
      .append(" tls-handshakes ").append(decimal: counters.tlsHandshakes)
      .append(" tls-resumed ").append(decimal: counters.tlsResumptions)
      .append(" tls-refused ").append(decimal: counters.tlsRefusals)
      .emit(.info)
    // What the hijack defences caught (Sources/README.md: Threat model).
    startCounterLine()
    log.append("defences bogus-dropped ").append(decimal: engineCounters.bogusDropped)
      .append(" redirects-rewritten ").append(decimal: engineCounters.redirectsRewritten)
      .append(" redirects-learned ").append(decimal: engineCounters.redirectAddressesLearned)
      .append(" rebind-blocked ").append(decimal: engineCounters.rebindBlocked)
      .append(" hold-on-conflicts ").append(decimal: engineCounters.holdOnConflicts)
      .append(" verify-disagreements ").append(decimal: engineCounters.verifyDisagreements)
      .append(" rate-limited ").append(decimal: engineCounters.rateLimited)
      .append(" any-refused ").append(decimal: engineCounters.anyRefused)
      .emit(.info)
    // `nftset`: addresses handed to the sets, and what the kernel made of them.
    if !settings.nftsets.isEmpty {
      startCounterLine()
      log.append("nftset addresses ").append(decimal: engineCounters.nftsetAddresses)
        .append(" elements-sent ").append(decimal: engineCounters.nftsetElementsSent)
        .append(" elements-dropped ").append(decimal: engineCounters.nftsetElementsDropped)
        .append(" batches-failed ").append(decimal: engineCounters.nftsetBatchesFailed)
        .append(" elements-failed ").append(decimal: engineCounters.nftsetElementsFailed)
        .append(" elements-unsupported ")
        .append(decimal: engineCounters.nftsetElementsUnsupported)
        .emit(.info)
    }
    // One line per upstream: its answers, timeouts, failures, smoothed RTT
    // and disagreements with the trusted upstream.
    for upstream in 0..<engine.upstreams.count {
      let statistics = engine.upstreamStatistics(upstream)
      startCounterLine()
      log.append("upstream ").append(decimal: upstream)
        .append(" ").append(address: context.upstreamAddresses[upstream])
        .append(" answers ").append(decimal: statistics.answers)
        .append(" timeouts ").append(decimal: statistics.timeouts)
        .append(" failures ").append(decimal: statistics.failures)
        .append(" srtt-ms ").append(decimal: statistics.smoothedRTTMilliseconds)
        .append(" disagreements ").append(decimal: statistics.disagreements)
        .emit(.info)
    }
  }
}
