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
    var upstreams = settings.upstreams.map(upstreamSummary)
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
    lines += defenceSummary(settings)
    return lines.joined(separator: "\n") + "\n"
  }

  /// `tcp 9.9.9.9:53 trusted`, `httpdns 203.107.1.1:80 format=alibaba
  /// account=139450 signed (A/AAAA only)`: the upstream as written, but for
  /// the secret, which is never shown.
  static func upstreamSummary(_ server: UpstreamServer) -> String {
    var words = [server.transport.name, describe(server.endpoint)]
    if server.transport == .httpdns {
      words.append("format=" + server.httpdnsFormat.name)
      if !server.account.isEmpty { words.append("account=" + escaped(server.account)) }
      if !server.secret.isEmpty { words.append("signed") }
    }
    if server.trusted { words.append("trusted") }
    if !server.answersEveryType { words.append("(A/AAAA only)") }
    return words.joined(separator: " ")
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

  /// The hijack defences, one line per group, with a note where a setting
  /// can do nothing:
  ///
  ///     bogus: 198.51.100.7/32; bogus-nxdomain: none; detect-nxdomain-redirect: off
  ///     verify: 2 names; hold-on: 30ms
  ///     rebind-protection: on, rebind-allow: 1 name
  ///     override-check: tcp:443 every 60s
  ///     rate-limit: 200/s, refuse-any: on
  static func defenceSummary(_ settings: Settings) -> [String] {
    func prefixList(_ prefixes: [AddressPrefix]) -> String {
      prefixes.isEmpty ? "none" : prefixes.map { describe($0) }.joined(separator: ", ")
    }
    func nameCount(_ names: [UInt8]) -> String {
      let count = flatNameRanges(names).count
      return count == 0 ? "none" : "\(count) name\(count == 1 ? "" : "s")"
    }
    func onOff(_ value: Bool) -> String { value ? "on" : "off" }
    let hasPlainUpstream =
      !settings.resolvConfPath.isEmpty || settings.upstreams.contains { !$0.trusted }
    var detect = onOff(settings.detectNXDomainRedirect)
    if settings.detectNXDomainRedirect && !hasPlainUpstream {
      detect += " (no effect: no upstream that is not trusted)"
    }
    let holdOn =
      settings.holdOnMilliseconds == 0
      ? "off" : describeDuration(milliseconds: settings.holdOnMilliseconds)
    var rebindAllow = nameCount(settings.rebindAllowNames)
    if !settings.rebindProtection && !settings.rebindAllowNames.isEmpty {
      rebindAllow += " (no effect: rebind-protection is off)"
    }
    var overrideCheck = "off"
    if settings.overrideCheckPort != 0 {
      overrideCheck =
        "tcp:\(settings.overrideCheckPort) every \(settings.overrideCheckSeconds)s"
      let hasAddress = (0..<settings.overrides.count).contains { index in
        let match = settings.overrides.match(at: index)
        return match.ipv4Count + match.ipv6Count > 0
      }
      if !hasAddress { overrideCheck += " (no effect: no override addresses)" }
    }
    let rateLimit = settings.rateLimitPerSecond == 0 ? "off" : "\(settings.rateLimitPerSecond)/s"
    return [
      "bogus: \(prefixList(settings.bogusPrefixes)); "
        + "bogus-nxdomain: \(prefixList(settings.bogusNXDomainPrefixes)); "
        + "detect-nxdomain-redirect: \(detect)",
      "verify: \(nameCount(settings.verifyNames)); hold-on: \(holdOn)",
      "rebind-protection: \(onOff(settings.rebindProtection)), rebind-allow: \(rebindAllow)",
      "override-check: \(overrideCheck)",
      "rate-limit: \(rateLimit), refuse-any: \(onOff(settings.refuseAny))",
    ]
  }
}
