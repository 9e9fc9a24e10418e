import Engine
import Platform

// Left out of a firmware built with -DDNSWARD_METRICS=OFF (MetricsUnavailable.swift).
#if !DNSWARD_NO_METRICS

  /// The Prometheus text exposition format, version 0.0.4: for each metric a
  /// `# HELP` and a `# TYPE` line, then `name{label="value"} number` samples,
  /// one a line, `\n` line ends. Written as bytes into a buffer allocated at
  /// start-up; past its end nothing is written and `overflowed` is set.
  ///
  /// Names come from the statistics' table (`Statistic`):
  /// `dnsward_` and the name in snake case (`cacheHits` →
  /// `dnsward_cache_hits`), then `_total` for a count.
  struct MetricsText {
    let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0
    private(set) var overflowed = false

    init(buffer: UnsafeMutableRawBufferPointer) {
      self.buffer = buffer
    }

    mutating func append(byte: UInt8) {
      guard count < buffer.count else {
        overflowed = true
        return
      }
      buffer[count] = byte
      count += 1
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
      for byte in bytes { append(byte: byte) }
    }

    mutating func append(_ text: StaticString) {
      append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(never)
    mutating func append(decimal value: UInt64) {
      var divisor: UInt64 = 1
      while divisor <= value / 10 { divisor *= 10 }
      while divisor > 0 {
        append(byte: UInt8(truncatingIfNeeded: 0x30 + (value / divisor) % 10))
        divisor /= 10
      }
    }

    /// `value` thousandths as a decimal fraction: 1234 → `1.234`.
    mutating func append(thousandths value: UInt64) {
      append(decimal: value / 1000)
      append(byte: UInt8(ascii: "."))
      let fraction = value % 1000
      append(byte: UInt8(truncatingIfNeeded: 0x30 + fraction / 100))
      append(byte: UInt8(truncatingIfNeeded: 0x30 + fraction / 10 % 10))
      append(byte: UInt8(truncatingIfNeeded: 0x30 + fraction % 10))
    }

    /// `dnsward_`, then `name` in snake case: an underscore before each
    /// capital that follows a small letter or digit, and every letter small
    /// (`mismatchedID` → `mismatched_id`, `localNXDomain` → `local_nxdomain`).
    @inline(never)
    mutating func appendName(_ name: UnsafeRawBufferPointer, counter: Bool) {
      append("dnsward_")
      var previousIsLower = false
      for byte in name {
        let isUpper = byte &- UInt8(ascii: "A") < 26
        if isUpper && previousIsLower { append(byte: UInt8(ascii: "_")) }
        append(byte: isUpper ? byte | 0x20 : byte)
        previousIsLower = !isUpper
      }
      if counter { append("_total") }
    }

    /// `# HELP` and `# TYPE` of a statistic, then its one sample. The help
    /// names the statistic and its group; what it counts is in
    /// Sources/Engine/Statistics/README.md.
    @inline(never)
    mutating func appendStatistic(_ statistic: Statistic, value: UInt64) {
      let name = statistic.name
      let counter = !statistic.isLevel
      append("# HELP ")
      appendName(name, counter: counter)
      append(" statistic ")
      append(name)
      append(" (")
      append(statistic.group.word.bytes)
      append(")\n# TYPE ")
      appendName(name, counter: counter)
      append(counter ? " counter\n" : " gauge\n")
      appendName(name, counter: counter)
      append(" ")
      append(decimal: value)
      append("\n")
    }

    /// `# HELP` and `# TYPE` lines of a metric written whole (`name` is the
    /// full metric name).
    @inline(never)
    mutating func appendHeader(_ name: StaticString, type: StaticString, help: StaticString) {
      append("# HELP ")
      append(name)
      append(" ")
      append(help)
      append("\n# TYPE ")
      append(name)
      append(" ")
      append(type)
      append("\n")
    }

    /// Every metric, from the workers' figures on `board`; `addresses` are
    /// the upstreams' (engine order), written through `formatter`.
    mutating func appendAll(
      board: MetricsBoard, engine: Engine, addresses: [SocketAddress], formatter: LogLine,
      uptimeSeconds: UInt64
    ) {
      for index in 0..<Statistic.count {
        appendStatistic(Statistic(index: index), value: board.total(index))
      }
      appendHistogram(board: board)
      appendUpstreams(board: board, addresses: addresses, formatter: formatter)
      appendHeader(
        "dnsward_cache_hit_ratio", type: "gauge",
        help: "cache hits / (cache hits + cache misses), 0 before the first lookup")
      let hits = board.total(Statistic.cacheHits.index)
      let lookups = hits &+ board.total(Statistic.cacheMisses.index)
      append("dnsward_cache_hit_ratio ")
      append(thousandths: lookups == 0 ? 0 : hits * 1000 / lookups)
      append("\n")
      appendHeader("dnsward_uptime_seconds", type: "gauge", help: "seconds since start-up")
      append("dnsward_uptime_seconds ")
      append(decimal: uptimeSeconds)
      append("\n")
      appendHeader("dnsward_workers", type: "gauge", help: "worker processes (workers)")
      append("dnsward_workers ")
      append(decimal: UInt64(board.workers))
      append("\n")
    }

    /// `dnsward_answer_latency_seconds`: cumulative buckets, sum and count.
    private mutating func appendHistogram(board: MetricsBoard) {
      let name: StaticString = "dnsward_answer_latency_seconds"
      appendHeader(name, type: "histogram", help: "time from a client's query to its reply")
      var cumulative: UInt64 = 0
      for index in 0..<LatencyHistogram.bucketCount {
        cumulative &+= board.total(MetricsBoard.histogramOffset + index)
        append(name)
        append("_bucket{le=\"")
        let bound = LatencyHistogram.boundMilliseconds(index)
        if bound == UInt64.max { append("+Inf") } else { append(thousandths: bound) }
        append("\"} ")
        append(decimal: cumulative)
        append("\n")
      }
      append(name)
      append("_sum ")
      append(thousandths: board.total(MetricsBoard.histogramOffset + LatencyHistogram.bucketCount))
      append("\n")
      append(name)
      append("_count ")
      append(decimal: board.total(MetricsBoard.histogramOffset + LatencyHistogram.bucketCount + 1))
      append("\n")
    }

    /// Five metrics with one sample per upstream, labelled
    /// `upstream="ADDR",index="N"` (N: its index in the engine).
    private mutating func appendUpstreams(
      board: MetricsBoard, addresses: [SocketAddress], formatter: LogLine
    ) {
      // The board has room for the most upstreams the statistics name; the
      // list in force (a reload may have changed it) says how many are used.
      let count = min(board.upstreams, addresses.count)
      for figure in 0..<MetricsBoard.upstreamFigures where count > 0 {
        let name: StaticString
        switch figure {
        case 0: name = "dnsward_upstream_answers_total"
        case 1: name = "dnsward_upstream_timeouts_total"
        case 2: name = "dnsward_upstream_failures_total"
        case 3: name = "dnsward_upstream_srtt_seconds"
        default: name = "dnsward_upstream_disagreements_total"
        }
        appendHeader(name, type: figure == 3 ? "gauge" : "counter", help: "per upstream")
        for upstream in 0..<count {
          let index = MetricsBoard.upstreamOffset + MetricsBoard.upstreamFigures * upstream + figure
          append(name)
          append(
            formatter.clear().append("{upstream=\"").append(address: addresses[upstream])
              .append("\",index=\"").append(decimal: upstream).append("\"} ").text)
          if figure == 3 {
            append(thousandths: board.mean(index))
          } else {
            append(decimal: board.total(index))
          }
          append("\n")
        }
      }
    }
  }
#endif
