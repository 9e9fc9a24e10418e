import CompiledConfig
import Engine
import Platform

/// The counters log (SIGUSR1, and at exit): one info line per
/// `StatisticGroup`, its word then `name value` for each of its statistics
/// in table order (names in kebab case: `cacheHits` → `cache-hits`), then
/// one line per upstream.
extension Server {
  /// Starts an info line of the counters log, naming the worker when there
  /// are several.
  private func startCounterLine() {
    log.start(.info)
    if settings.workers > 1 { log.append("worker ").append(decimal: worker).append(" ") }
  }

  /// One log line per group of statistics, and one per upstream.
  public func logCounters() {
    engine.refreshLevels()
    let statistics = engine.statistics
    for group in StatisticGroup.allCases {
      if group == .nftset && settings.nftsets.isEmpty { continue }
      if group == .dnssec && !settings.validatesDNSSEC { continue }
      startCounterLine()
      log.append(group.word.bytes)
      for index in 0..<Statistic.count {
        let statistic = Statistic(index: index)
        guard statistic.group == group else { continue }
        log.append(" ")
        appendKebabCase(statistic.name)
        log.append(" ").append(decimal: statistics[statistic])
      }
      log.emit(.info)
    }
    // Each upstream's answers, timeouts, failures, smoothed RTT,
    // disagreements with the trusted upstream and, with `dnssec auto`, what
    // its DNSSEC probe found.
    for upstream in 0..<engine.upstreams.count {
      let figures = engine.selection.statistics(upstream)
      startCounterLine()
      log.append("upstream ").append(decimal: upstream)
        .append(" ").append(address: context.upstreamAddresses[upstream])
        .append(" answers ").append(decimal: figures.answers)
        .append(" timeouts ").append(decimal: figures.timeouts)
        .append(" failures ").append(decimal: figures.failures)
        .append(" srtt-ms ").append(decimal: figures.smoothedRTTMilliseconds)
        .append(" disagreements ").append(decimal: figures.disagreements)
      if settings.dnssec == .auto { log.append(" dnssec ").append(figures.dnssec.word) }
      log.emit(.info)
    }
  }

  /// `name` with a hyphen before each capital that follows a small letter
  /// or digit, and every letter small (`mismatchedID` → `mismatched-id`).
  private func appendKebabCase(_ name: UnsafeRawBufferPointer) {
    var previousIsLower = false
    for byte in name {
      let isUpper = byte &- UInt8(ascii: "A") < 26
      if isUpper && previousIsLower { log.append(byte: UInt8(ascii: "-")) }
      log.append(byte: isUpper ? byte | 0x20 : byte)
      previousIsLower = !isUpper
    }
  }
}
