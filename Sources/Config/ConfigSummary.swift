import CompiledConfig

extension ConfigGenerator {
  /// A few lines describing the settings, for `dnsward --check` and the
  /// start-up log: every listener and upstream, counts for the tables.
  public static func summary(_ settings: Settings) -> String {
    var lines: [String] = []
    lines.append("listen: " + settings.listen.map { describe($0) }.joined(separator: ", "))
    if settings.allow.isEmpty {
      lines.append(
        "allow: \(defaultAllowPrefixes.count) default prefixes "
          + "(loopback, RFC 1918, RFC 6598, link-local, ULA)")
    } else {
      lines.append(
        "allow: \(settings.allow.count) prefix\(settings.allow.count == 1 ? "" : "es") ("
          + settings.allow.map { describe($0) }.joined(separator: ", ") + ")")
    }
    var upstreams = settings.upstreams.map { server in
      (server.transport == .udp ? "udp " : "tcp ") + describe(server.endpoint)
    }
    if !settings.resolvConfPath.isEmpty {
      upstreams.insert(
        "resolv-conf " + escaped(settings.resolvConfPath), at: settings.resolvConfPosition)
    }
    if upstreams.isEmpty { upstreams = ["none (overrides only)"] }
    lines.append("upstreams: " + upstreams.joined(separator: ", "))
    lines.append(
      "timeout: \(describeDuration(milliseconds: settings.timeoutMilliseconds)), "
        + "inflight: \(settings.inflight)")
    var counts = [0, 0, 0]
    for index in 0..<settings.overrides.count {
      counts[Int(settings.overrides.kind(at: index).rawValue)] += 1
    }
    lines.append(
      "overrides: \(counts[Int(OverrideKind.exact.rawValue)]) exact, "
        + "\(counts[Int(OverrideKind.wildcard.rawValue)]) wildcard, "
        + "\(counts[Int(OverrideKind.block.rawValue)]) blocked; "
        + "override-ttl: \(settings.overrideTTL)s")
    lines.append("user: " + (settings.user.isEmpty ? "unchanged" : escaped(settings.user)))
    lines.append(
      "log: \(logLevelName(settings.logLevel)), "
        + "log-queries: \(settings.logQueries ? "on" : "off")")
    lines.append(
      "tcp-clients: \(settings.tcpClients), "
        + "tcp-idle: \(describeDuration(milliseconds: settings.tcpIdleMilliseconds)), "
        + "workers: \(settings.workers)")
    lines.append(
      "edns-size: \(settings.ednsPayloadSize), "
        + "case-randomization: \(settings.caseRandomization ? "on" : "off")")
    lines.append(cacheSummary(settings))
    lines.append(persistenceSummary(settings))
    return lines.joined(separator: "\n") + "\n"
  }

  /// `cache: 4096 entries, 1048576 bytes; ttl 0...86400s, negative at most
  /// 3600s; stale: off` — every number in its unit, as the fields hold it.
  static func cacheSummary(_ settings: Settings) -> String {
    guard settings.cacheEntries > 0 else { return "cache: off" }
    let negative =
      settings.negativeTTLMax == 0
      ? "negative answers not cached" : "negative at most \(settings.negativeTTLMax)s"
    let stale: String
    if settings.staleSeconds == 0 {
      stale = settings.staleFirst ? "off (stale-first on has no effect)" : "off"
    } else {
      stale = "\(settings.staleSeconds)s, stale-first \(settings.staleFirst ? "on" : "off")"
    }
    return "cache: \(settings.cacheEntries) entries, \(settings.cacheBytes) bytes; "
      + "ttl \(settings.minTTL)...\(settings.maxTTL)s, \(negative); stale: \(stale)"
  }

  /// `cache-file: /tmp/dnsward.cache, saved every 300s; prefetch: 2 names;
  /// prefetch-hits: 10` — with a note when the file can do nothing (loaded
  /// answers are served only as stale answers).
  static func persistenceSummary(_ settings: Settings) -> String {
    var file = "off"
    if !settings.cacheFilePath.isEmpty {
      file =
        escaped(settings.cacheFilePath) + ", saved every \(settings.cacheSaveSeconds)s"
      if settings.cacheEntries == 0 {
        file += " (no effect: the cache is off)"
      } else if settings.staleSeconds == 0 {
        file += " (no effect: loaded answers are served only as stale ones, and stale is off)"
      }
    }
    let count = flatNameRanges(settings.prefetchNames).count
    let prefetch = count == 0 ? "none" : "\(count) name\(count == 1 ? "" : "s")"
    let hits = settings.prefetchHits == 0 ? "off" : "\(settings.prefetchHits)"
    return "cache-file: \(file); prefetch: \(prefetch); prefetch-hits: \(hits)"
  }
}
