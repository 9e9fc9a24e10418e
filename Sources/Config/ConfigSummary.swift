import CompiledConfig

extension ConfigGenerator {
  /// A few lines describing the settings, for `dnsward --check` and the
  /// start-up log: every listener and upstream, counts for the tables, and
  /// a note where a setting does nothing or another one overrules it.
  /// `lines` (from `ConfigParser.parse(bytes:fileName:readFile:lines:)`) lets the notes name the
  /// lines of the entries they are about.
  public static func summary(_ settings: Settings, lines: SourceLines = SourceLines()) -> String {
    String(decoding: summaryBytes(settings, lines: lines), as: UTF8.self)
  }

  /// The same as UTF-8 bytes, which the firmware writes out without making
  /// a `String` (see `ConfigError`).
  public static func summaryBytes(_ settings: Settings, lines: SourceLines = SourceLines())
    -> [UInt8]
  {
    var out: MessageText = "listen: "
    for (index, endpoint) in settings.listen.enumerated() {
      out.append("\(separator: index)\(endpoint)")
    }
    #if !DNSWARD_NO_METRICS
      if let metrics = settings.metrics { out.append("\nmetrics: http://\(metrics)/metrics") }
    #endif
    if settings.allow.isEmpty {
      out.append(
        """

        allow: \(defaultAllowPrefixes.count) default prefixes \
        (loopback, RFC 1918, RFC 6598, link-local, ULA)
        """)
    } else {
      let plural: StaticString = settings.allow.count == 1 ? "" : "es"
      out.append("\nallow: \(settings.allow.count) prefix\(plural) (")
      appendList(settings.allow, to: &out)
      out.append(")")
    }
    out.append("\nupstreams: ")
    // `upstream resolv-conf` is listed where it was written among the others.
    var count = 0
    for index in 0...settings.upstreams.count {
      if !settings.resolvConfPath.isEmpty && index == settings.resolvConfPosition {
        out.append("\(separator: count)resolv-conf \(escaped: settings.resolvConfPath)")
        count += 1
      }
      guard index < settings.upstreams.count else { break }
      out.append("\(separator: count)")
      appendUpstream(settings.upstreams[index], to: &out)
      count += 1
    }
    if count == 0 { out.append("none (overrides only)") }
    out.append("\n")
    appendRoutes(settings, to: &out)
    appendNftSets(settings, to: &out)
    appendCAFile(settings, to: &out)
    let timeout = describeDuration(milliseconds: settings.timeoutMilliseconds)
    out.append("timeout: \(timeout), inflight: \(settings.inflight)\n")
    var counts = [0, 0, 0, 0]
    for index in 0..<settings.overrides.count {
      counts[Int(settings.overrides.kind(at: index).rawValue)] += 1
    }
    let exact = counts[Int(OverrideKind.exact.rawValue)]
    let wildcard = counts[Int(OverrideKind.wildcard.rawValue)]
    let blocked = counts[Int(OverrideKind.block.rawValue)]
    out.append(
      """
      overrides: \(exact) exact, \(wildcard) wildcard, \(blocked) blocked; \
      override-ttl: \(settings.overrideTTL)s

      """)
    appendLocalNames(settings, to: &out)
    if settings.user.isEmpty {
      out.append("user: unchanged")
    } else {
      out.append("user: \(escaped: settings.user)")
    }
    out.append(", seccomp: \(onOff(settings.seccomp))\n")
    let tcpIdle = describeDuration(milliseconds: settings.tcpIdleMilliseconds)
    out.append(
      """
      log: \(logLevelName(settings.logLevel)), log-queries: \(onOff(settings.logQueries))
      tcp-clients: \(settings.tcpClients), tcp-idle: \(tcpIdle), workers: \(settings.workers)
      edns-size: \(settings.ednsPayloadSize), \
      case-randomization: \(onOff(settings.caseRandomization))

      """)
    appendCacheSummary(settings, to: &out)
    appendPersistenceSummary(settings, to: &out)
    appendDefenceSummary(settings, lines: lines, to: &out)
    if ConfigReader.dnssecIsBuiltIn { appendDNSSECSummary(settings, to: &out) }
    return out.bytes
  }

  /// `tcp 9.9.9.9:53 trusted`, `httpdns 203.107.1.1:80 format=alibaba
  /// account=139450 signed (A/AAAA only)`, `tls 9.9.9.9:853 name=dns.quad9.net
  /// pin=sha256/...`, `https 1.1.1.1:443 name=cloudflare-dns.com
  /// format=dns-message`: the upstream as written, but for the secret,
  /// which is never shown (a pin is a public key's hash: it is).
  static func appendUpstream(_ server: UpstreamServer, to out: inout MessageText) {
    out.append("\(server.transport.name) \(server.endpoint)")
    if server.transport.usesTLS { out.append(" name=\(escaped: server.tlsName)") }
    if server.transport.isHTTP {
      out.append(" format=\(server.httpdnsFormat.name)")
      if !server.account.isEmpty { out.append(" account=\(escaped: server.account)") }
      if !server.secret.isEmpty { out.append(" signed") }
      if !server.path.isEmpty { out.append(" path=\(escaped: server.path)") }
    }
    if !server.pin.isEmpty { out.append(" pin=sha256/\(escaped: encodeBase64(server.pin))") }
    if server.trusted { out.append(" trusted") }
    if !server.answersEveryType { out.append(" (A/AAAA only)") }
  }

  /// `routes: N domains` and, for each upstream with `for`, the domains it
  /// answers: `  udp 10.8.0.1:53: 2 domains`. Nothing when no name is routed.
  static func appendRoutes(_ settings: Settings, to out: inout MessageText) {
    let routes = settings.routes
    guard routes.count > 0 else { return }
    var perGroup = [Int](repeating: 0, count: 64)
    for index in 0..<routes.count { perGroup[Int(routes.routeGroup(at: index) & 63)] += 1 }
    let plural: StaticString = routes.count == 1 ? "" : "s"
    out.append(
      "routes: \(routes.count) domain\(plural), the other names to the upstreams without 'for'\n")
    for server in settings.upstreams where server.routeGroups != 0 {
      var domains = 0
      for group in 1..<64 where server.routeGroups & (1 << UInt64(group)) != 0 {
        domains += perGroup[group]
      }
      out.append("  ")
      appendUpstream(server, to: &out)
      let plural: StaticString = domains == 1 ? "" : "s"
      out.append(": \(domains) domain\(plural)\n")
    }
  }

  /// `ca-file: PATH` or `ca-file: the system bundle (...)`, when a tls or
  /// https upstream uses it or the file is set.
  static func appendCAFile(_ settings: Settings, to out: inout MessageText) {
    guard !settings.caFile.isEmpty || settings.upstreams.contains(where: { $0.transport.usesTLS })
    else { return }
    out.append("ca-file: ")
    if settings.caFile.isEmpty {
      out.append("the system bundle (/etc/ssl/certs/ca-certificates.crt)\n")
    } else {
      out.append("\(escaped: settings.caFile)\n")
    }
  }

  /// `A, B, C`: the described prefixes.
  static func appendList(_ prefixes: [AddressPrefix], to out: inout MessageText) {
    for (index, prefix) in prefixes.enumerated() {
      out.append("\(separator: index)\(prefix)")
    }
  }

  static func onOff(_ value: Bool) -> StaticString { value ? "on" : "off" }

  /// `cache: 4096 entries, 1048576 bytes; ttl 0...86400s, negative at most
  /// 3600s; stale: off` — every number in its unit, as the fields hold it.
  static func appendCacheSummary(_ settings: Settings, to out: inout MessageText) {
    guard settings.cacheEntries > 0 else { return out.append("cache: off\n") }
    out.append(
      "cache: \(settings.cacheEntries) entries, \(settings.cacheBytes) bytes; ")
    out.append("ttl \(settings.minTTL)...\(settings.maxTTL)s, ")
    if settings.negativeTTLMax == 0 {
      out.append("negative answers not cached")
    } else {
      out.append("negative at most \(settings.negativeTTLMax)s")
    }
    out.append("; stale: ")
    if settings.staleSeconds == 0 {
      out.append(settings.staleFirst ? "off (stale-first on has no effect)\n" : "off\n")
    } else {
      out.append(
        "\(settings.staleSeconds)s, stale-first \(onOff(settings.staleFirst))\n")
    }
  }

  /// `cache-file: /tmp/dnsward.cache, saved every 300s; prefetch: 2 names;
  /// prefetch-hits: 10` — with a note when the file can do nothing (loaded
  /// answers are served only as stale answers).
  static func appendPersistenceSummary(_ settings: Settings, to out: inout MessageText) {
    out.append("cache-file: ")
    if settings.cacheFilePath.isEmpty {
      out.append("off")
    } else {
      out.append(
        "\(escaped: settings.cacheFilePath), saved every \(settings.cacheSaveSeconds)s")
      if settings.cacheEntries == 0 {
        out.append(" (no effect: the cache is off)")
      } else if settings.staleSeconds == 0 {
        out.append(
          " (no effect: loaded answers are served only as stale ones, and stale is off)")
      }
    }
    out.append("; prefetch: ")
    appendNameCount(settings.prefetchNames, to: &out)
    out.append("; prefetch-hits: ")
    if settings.prefetchHits == 0 {
      out.append("off\n")
    } else {
      out.append("\(settings.prefetchHits)\n")
    }
  }

  /// `none`, `1 name` or `N names`: how many flat names `names` holds (its
  /// zero root octets, as `flatNameRanges` walks it, without the array).
  static func appendNameCount(_ names: [UInt8], to out: inout MessageText) {
    var count = 0
    var position = 0
    while position < names.count {
      let length = Int(names[position])
      position += 1 + length
      if length == 0 { count += 1 }
    }
    guard count > 0 else { return out.append("none") }
    let plural: StaticString = count == 1 ? "" : "s"
    out.append("\(count) name\(plural)")
  }

  /// The hijack defences, one line per group, with a note where a setting
  /// can do nothing:
  ///
  ///     bogus: 198.51.100.7/32; bogus-nxdomain: none; detect-nxdomain-redirect: off
  ///     verify: 2 names; hold-on: 30ms
  ///     rebind-protection: on, rebind-allow: 1 name
  ///     override-check: tcp:443 every 60s
  ///     rate-limit: 200/s, refuse-any: on
  ///     forward-single-label: off, forward-private-reverse: off, filter-aaaa: off
  static func appendDefenceSummary(
    _ settings: Settings, lines: SourceLines, to out: inout MessageText
  ) {
    out.append("bogus: ")
    appendPrefixes(settings.bogusPrefixes, to: &out)
    out.append("; bogus-nxdomain: ")
    appendPrefixes(settings.bogusNXDomainPrefixes, to: &out)
    out.append(
      "; detect-nxdomain-redirect: \(onOff(settings.detectNXDomainRedirect))")
    let hasPlainUpstream =
      !settings.resolvConfPath.isEmpty || settings.upstreams.contains { !$0.trusted }
    if settings.detectNXDomainRedirect && !hasPlainUpstream {
      out.append(" (no effect: no upstream that is not trusted)")
    }
    appendBogusOverlaps(settings, lines: lines, to: &out)
    out.append("\nverify: ")
    appendNameCount(settings.verifyNames, to: &out)
    if settings.strict { out.append(" (strict: trusted answers only)") }
    out.append("; hold-on: ")
    if settings.holdOnMilliseconds == 0 {
      out.append("off")
    } else {
      out.append(describeDuration(milliseconds: settings.holdOnMilliseconds))
    }
    out.append(
      "\nrebind-protection: \(onOff(settings.rebindProtection)), rebind-allow: ")
    appendNameCount(settings.rebindAllowNames, to: &out)
    if !settings.rebindProtection && !settings.rebindAllowNames.isEmpty {
      out.append(" (no effect: rebind-protection is off)")
    }
    out.append("\noverride-check: ")
    if settings.overrideCheckPort == 0 {
      out.append("off")
    } else {
      out.append(
        "tcp:\(settings.overrideCheckPort) every \(settings.overrideCheckSeconds)s")
      let hasAddress = (0..<settings.overrides.count).contains { index in
        let match = settings.overrides.match(at: index)
        return match.ipv4Count + match.ipv6Count > 0
      }
      if !hasAddress { out.append(" (no effect: no override addresses)") }
    }
    out.append("\nrate-limit: ")
    if settings.rateLimitPerSecond == 0 {
      out.append("off")
    } else {
      out.append("\(settings.rateLimitPerSecond)/s")
    }
    out.append(", refuse-any: \(onOff(settings.refuseAny))\n")
    out.append(
      """
      forward-single-label: \(onOff(settings.forwardSingleLabel)), \
      forward-private-reverse: \(onOff(settings.forwardPrivateReverse)), \
      filter-aaaa: \(onOff(settings.filterAAAA))

      """)
  }

  /// One `warning:` line for each `bogus` and `bogus-nxdomain` entry of
  /// which one contains the other (the same prefix in both is refused by
  /// the parser). The engine turns an answer whose addresses all lie in
  /// `bogus-nxdomain` entries into NXDOMAIN before it checks `bogus`: the
  /// more specific, explicit statement wins over dropping the answer.
  static func appendBogusOverlaps(
    _ settings: Settings, lines: SourceLines, to out: inout MessageText
  ) {
    for (bogusIndex, bogus) in settings.bogusPrefixes.enumerated() {
      for (nxIndex, nx) in settings.bogusNXDomainPrefixes.enumerated() {
        let bogusHoldsNX = bogus.length <= nx.length && bogus.contains(nx.address)
        guard bogusHoldsNX || (nx.length < bogus.length && nx.contains(bogus.address)) else {
          continue
        }
        let bogusEntry = entry("bogus", bogus, lines.bogus, bogusIndex)
        let nxEntry = entry("bogus-nxdomain", nx, lines.bogusNXDomain, nxIndex)
        if bogusHoldsNX {
          let what: MessageText = nx.length == 128 ? "that address" : "addresses in \(nx)"
          out.append(
            """

            warning: \(bogusEntry) contains \(nxEntry): an answer with only \(what) \
            becomes NXDOMAIN
            """)
        } else {
          let what: StaticString = bogus.length == 128 ? "that address" : "those addresses"
          out.append(
            """

            warning: \(nxEntry) contains \(bogusEntry): an answer with only addresses in \(nx) \
            becomes NXDOMAIN, even with \(what)
            """)
        }
      }
    }
  }

  /// `bogus 198.51.100.7 (line 3)`: a directive's prefix (a single address
  /// without its length) and its line, when `lines` has one at `index`.
  static func entry(
    _ directive: StaticString, _ prefix: AddressPrefix, _ lines: [Int], _ index: Int
  ) -> MessageText {
    var text: MessageText = "\(directive) "
    if prefix.length == 128 { text.append("\(prefix.address)") } else { text.append("\(prefix)") }
    if index < lines.count { text.append(" (line \(lines[index]))") }
    return text
  }

  /// The described prefixes, or `none`.
  static func appendPrefixes(_ prefixes: [AddressPrefix], to out: inout MessageText) {
    guard !prefixes.isEmpty else { return out.append("none") }
    appendList(prefixes, to: &out)
  }
}

extension ConfigGenerator {
  /// `local names: ...` when a hosts or lease file or a domain is set.
  static func appendLocalNames(_ settings: Settings, to out: inout MessageText) {
    let hosts = settings.hostsFiles.count
    let leases = settings.leaseFiles.count
    guard hosts + leases > 0 || !settings.localDomain.isEmpty else { return }
    let domain: MessageText =
      settings.localDomain.isEmpty ? "none" : "\(name: settings.localDomain)"
    out.append(
      """
      local names: \(hosts) hosts and \(leases) lease files, \
      up to \(settings.localNamesCapacity) names; domain \
      \(domain)

      """)
  }
}
