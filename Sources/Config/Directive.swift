/// The directives of `dnsward.conf`. The raw value numbers them from 0, to
/// index per-directive arrays. (Not a `String` raw value: `init(rawValue:)`
/// would compare Strings, which pulls the Unicode tables into Embedded Swift
/// builds.)
///
/// Every fact about a directive is written once, in `declaration` below:
/// the parser's usage text and range checks, `--help-config` and the
/// reference test (ConfigTests, against Sources/Config/README.md) read it.
enum Directive: Int, CaseIterable {
  case listen, allow, upstream, timeout, inflight, override, block
  case overrideTTL
  case user, log, logQueries
  case tcpClients
  case tcpIdle
  case ednsSize
  case caseRandomization
  case cache, cacheBytes
  case minTTL, maxTTL, negativeTTLMax
  case stale, staleFirst
  case cacheFile, cacheSaveInterval
  case prefetch, prefetchHits
  case blockList
  case workers
  case bogus, bogusNXDomain, detectNXDomainRedirect
  case verify, holdOn
  case rebindProtection, rebindAllow
  case overrideCheck, overrideCheckInterval
  case rateLimit, refuseAny
  case forwardSingleLabel, forwardPrivateReverse, filterAAAA
  case strict
  case caFile
  case seccomp
  case localNames, hosts, leases, domain
  case nftset
  case metrics
  case dnssec, dnssecRoot, trustAnchor, trustAnchorFile
}

extension Directive {
  /// The declaration: the one place each directive is described. A bound
  /// with a reason carries it in a comment.
  var declaration: DirectiveDeclaration {
    switch self {
    case .listen:
      return .init(
        """
        listen ADDRESS[:PORT]
        IPv6 as [ADDRESS]:PORT
        a UDP and TCP address to serve; port 53 if omitted; at least one is required
        """, repeatable: true)
    case .allow:
      return .init(
        """
        allow ADDRESS[/LENGTH]
        clients that may ask; without any: loopback, RFC 1918, RFC 6598, link-local, ULA
        """, repeatable: true)
    case .upstream:
      return .init(
        """
        upstream udp|tcp ADDRESS[:PORT] [trusted]
        upstream tls|https|httpdns ADDRESS[:PORT] [OPTION...] or upstream resolv-conf PATH
        a server to forward to, in priority order; OPTION: tls name=NAME \
        [pin=sha256/BASE64]; https name=NAME [path=/PATH] [format=dns-message|json] \
        [pin=...]; httpdns [format=alibaba|dnspod|json|dns-message] [account=ID] \
        [secret=KEY] [path=/PATH] (format=alibaba with account=, else json); \
        trusted: verify asks it; for DOMAIN, for-list PATH: it answers only those names
        """, repeatable: true)
    case .timeout:
      return .init(
        """
        timeout DURATION
        e.g. 1500ms or 2s
        default 1500ms
        the deadline of one upstream attempt, then the next upstream is asked
        """, range: 50...60_000, unit: .milliseconds)
    case .inflight:
      return .init(
        """
        inflight COUNT
        a power of two
        default 1024
        upstream questions in flight; when all are taken, SERVFAIL
        """, range: 16...65_536, unit: .count)
    case .override:
      return .init(
        """
        override NAME ADDRESS...
        answer NAME (*.NAME: every name below it) with these A and AAAA addresses
        """, repeatable: true)
    case .block:
      return .init(
        """
        block NAME
        NXDOMAIN for NAME and every name below it
        """, repeatable: true)
    case .overrideTTL:
      // One week: the TTL cap RFC 8767 §4 recommends.
      return .init(
        """
        override-ttl SECONDS
        default 300
        the TTL of override answers
        """, range: 0...604_800, unit: .count)
    case .user:
      return .init(
        """
        user NAME
        the account to switch to after binding; else the current one
        """)
    case .log:
      return .init(
        """
        log error|warning|info|debug
        default info
        the least severe messages logged
        """)
    case .logQueries:
      return .init(
        """
        log-queries on|off
        default off
        one info line per answered query (client, name, type, outcome, latency)
        """)
    case .tcpClients:
      return .init(
        """
        tcp-clients COUNT
        default 32
        simultaneous client TCP connections; more are refused
        """, range: 1...4096, unit: .count)
    case .tcpIdle:
      return .init(
        """
        tcp-idle DURATION
        e.g. 10s
        default 10s
        an idle client TCP connection is closed after this (RFC 7766 §6.2.3)
        """, range: 1_000...3_600_000, unit: .milliseconds)
    case .ednsSize:
      // RFC 6891 §6.2.5: values below 512 are treated as 512.
      return .init(
        """
        edns-size BYTES
        default 1232
        the EDNS(0) UDP payload size advertised upstream and to clients
        """, range: 512...4096, unit: .count)
    case .caseRandomization:
      return .init(
        """
        case-randomization on|off
        default on
        random letter case (0x20) in upstream UDP questions
        """)
    case .cache:
      return .init(
        """
        cache COUNT
        default 4096
        entries in the packet cache
        """, range: 0...1_048_576, unit: .count, zeroIsOff: true)
    case .cacheBytes:
      return .init(
        """
        cache-bytes SIZE
        e.g. 512k or 2m
        default 1m
        bytes of cached answers, allocated at start-up
        """, range: (16 << 10)...(256 << 20), unit: .bytes)
    case .minTTL:
      // Raising TTLs trades freshness for fewer queries: at most an hour.
      return .init(
        """
        min-ttl DURATION
        e.g. 60 (seconds) or 5m
        default 0
        cached answers are kept at least this long
        """, range: 0...3600, unit: .seconds)
    case .maxTTL:
      // RFC 8767 §4: cap TTLs at 7 days.
      return .init(
        """
        max-ttl DURATION
        e.g. 3600 (seconds) or 1d
        default 1d
        cached answers are kept at most this long; at least min-ttl
        """, range: 1...604_800, unit: .seconds)
    case .negativeTTLMax:
      // RFC 2308 §5: more than a day is problematic.
      return .init(
        """
        neg-ttl-max DURATION
        e.g. 900 (seconds) or 1h
        default 1h
        NXDOMAIN and NODATA are cached at most this long; 0: not cached
        """, range: 0...86_400, unit: .seconds)
    case .stale:
      return .init(
        """
        stale DURATION
        e.g. 1d or 86400 (seconds)
        default 0
        when every upstream fails, answer from an entry expired this recently (RFC 8767)
        """, range: 0...604_800, unit: .seconds, zeroIsOff: true)
    case .staleFirst:
      return .init(
        """
        stale-first on|off
        default off
        answer such an expired entry at once and refresh it in the background
        """)
    case .cacheFile:
      return .init(
        """
        cache-file PATH
        absolute, e.g. /tmp/dnsward.cache
        save the cache here and load it at start-up; without it none is kept
        """)
    case .cacheSaveInterval:
      // At least 30 s: the file is rewritten whole, and flash wears.
      return .init(
        """
        cache-save-interval DURATION
        e.g. 5m or 300 (seconds)
        default 5m
        how often the cache file is rewritten
        """, range: 30...86_400, unit: .seconds)
    case .prefetch:
      return .init(
        """
        prefetch NAME
        keep NAME's A and AAAA answers warm
        """, repeatable: true)
    case .prefetchHits:
      return .init(
        """
        prefetch-hits COUNT
        default 0
        an entry hit more than this often is refreshed before it expires
        """, range: 0...1_000_000, unit: .count, zeroIsOff: true)
    case .blockList:
      return .init(
        """
        block-list PATH
        one name per line, relative to this file's folder
        block every name in the file and every name below each
        """, repeatable: true)
    case .workers:
      return .init(
        """
        workers COUNT
        default 1
        processes sharing the listen addresses, each with its own cache
        """, range: 1...64, unit: .count)
    case .metrics:
      return .init(
        """
        metrics ADDRESS:PORT
        e.g. 127.0.0.1:9153 or [::1]:9153; port 0 picks a free port
        serve Prometheus metrics over HTTP at /metrics, to allowed clients only
        """)
    case .bogus:
      return .init(
        """
        bogus ADDRESS[/LENGTH]
        an answer with an address in it is forged: dropped, the real one awaited
        """, repeatable: true)
    case .bogusNXDomain:
      return .init(
        """
        bogus-nxdomain ADDRESS[/LENGTH]
        an answer whose addresses all lie in such prefixes becomes NXDOMAIN
        """, repeatable: true)
    case .detectNXDomainRedirect:
      return .init(
        """
        detect-nxdomain-redirect on|off
        default off
        learn where plain upstreams redirect names that cannot exist, as bogus-nxdomain
        """)
    case .verify:
      return .init(
        """
        verify NAME
        NAME and the names below it are asked of a trusted upstream too
        """, repeatable: true)
    case .holdOn:
      // Past a second the wait costs more than the injection it catches:
      // every UDP answer is held that long.
      return .init(
        """
        hold-on DURATION
        e.g. 30ms
        default 0
        wait this long after a UDP answer for a second one; keep the one not forged
        """, range: 0...1000, unit: .milliseconds, zeroIsOff: true)
    case .rebindProtection:
      return .init(
        """
        rebind-protection on|off
        default off
        drop answers that point a name at a private, loopback or link-local address
        """)
    case .rebindAllow:
      return .init(
        """
        rebind-allow NAME
        NAME and the names below it may resolve to private addresses
        """, repeatable: true)
    case .overrideCheck:
      return .init(
        """
        override-check tcp:PORT or override-check off
        e.g. tcp:443
        default off
        probe override addresses by TCP; failing ones are left out
        """)
    case .overrideCheckInterval:
      // At least 5 s: each round connects to every override address.
      return .init(
        """
        override-check-interval DURATION
        e.g. 60 (seconds) or 5m
        default 60
        how often the override addresses are probed
        """, range: 5...86_400, unit: .seconds)
    case .rateLimit:
      return .init(
        """
        rate-limit COUNT/s
        or off, e.g. 200/s
        default off
        queries per second one client address may make; more are dropped
        """, range: 1...1_000_000, unit: .perSecond)
    case .refuseAny:
      return .init(
        """
        refuse-any on|off
        default on
        a UDP question of type ANY gets the RFC 8482 minimal answer
        """)
    case .forwardSingleLabel:
      return .init(
        """
        forward-single-label on|off
        default off
        off: A, AAAA, ANY and HTTPS questions for a one-label name get NXDOMAIN at once
        """)
    case .forwardPrivateReverse:
      return .init(
        """
        forward-private-reverse on|off
        default off
        off: questions in the RFC 6303 private reverse zones are answered at once
        """)
    case .filterAAAA:
      return .init(
        """
        filter-aaaa on|off
        default off
        AAAA questions that would be forwarded get NODATA at once
        """)
    case .strict:
      return .init(
        """
        strict on|off
        default off
        verify names are answered only by trusted upstreams, never by a plain one
        """)
    case .caFile:
      return .init(
        """
        ca-file PATH
        absolute, PEM certificates for tls and https upstreams
        the CAs of tls and https upstreams; else the system bundle
        """)
    case .seccomp:
      return .init(
        """
        seccomp on|off
        default off
        a seccomp filter lets the loop make only the system calls it needs
        """)
    case .localNames:
      // Two tables of this many entries are allocated when a file is named.
      return .init(
        """
        local-names COUNT
        default 4096
        (name, address) pairs the hosts and lease files may give; more are dropped
        """, range: 16...1_048_576, unit: .count)
    case .hosts:
      return .init(
        """
        hosts PATH
        absolute, e.g. /etc/hosts or /tmp/hosts/odhcpd
        answer the names of this /etc/hosts-format file; re-read when it changes
        """, repeatable: true)
    case .leases:
      return .init(
        """
        leases PATH
        absolute, e.g. /tmp/dhcp.leases
        answer the names of this dnsmasq lease file; re-read when it changes
        """, repeatable: true)
    case .domain:
      return .init(
        """
        domain NAME
        e.g. lan
        the LAN's domain: bare local names answer as NAME.DOMAIN too; other names in it NXDOMAIN
        """)
    case .nftset:
      return .init(
        """
        nftset inet|ip|ip6 TABLE SET[,SET6] for DOMAIN [for DOMAIN...] | for-list PATH
        e.g. nftset inet fw vpn4,vpn6 for video.example
        add the A (SET) and AAAA (SET6) addresses of answers for DOMAIN to nftables sets
        """, repeatable: true)
    case .dnssec, .dnssecRoot, .trustAnchor, .trustAnchorFile:
      return dnssecDeclaration
    }
  }
}
