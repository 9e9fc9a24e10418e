/// How an upstream is reached.
public enum UpstreamTransport: UInt8, Equatable, Sendable {
  case udp = 0
  case tcp = 1
  /// An HTTP/1.1 DNS API reached by IP (`upstream httpdns`): no DNS is
  /// needed to find it, and port-53 interception does not touch it.
  case httpdns = 2
  /// DNS over TLS (RFC 7858): one persistent connection, pipelined queries
  /// with the 2-byte length of RFC 1035 §4.2.2, like `tcp`.
  case tls = 3
  /// DNS over HTTPS (RFC 8484) over HTTP/1.1 keep-alive, reached by IP:
  /// the `httpdns` connection pool over TLS.
  case https = 4

  /// TCP and DoT: queries pipelined on one connection per upstream and
  /// replies matched by ID (RFC 7766 §7), so IDs must be unique per
  /// connection and a lost connection fails every query on it.
  public var isPipelinedStream: Bool { self == .tcp || self == .tls }
  /// HTTPDNS and DoH: one request per pooled HTTP/1.1 connection, the reply
  /// tied to its transaction by the connection.
  public var isHTTP: Bool { self == .httpdns || self == .https }
  /// DoT and DoH: the connection is TLS, checked against `tlsName`/`pin`.
  public var usesTLS: Bool { self == .tls || self == .https }
}

/// Which HTTPDNS API an `upstream httpdns` speaks.
public enum HTTPDNSFormat: UInt8, Equatable, Sendable {
  /// `GET /{account}/d?host=NAME[&query=4,6]` (signed: `/{account}/sign_d`
  /// with `t` and `s` = MD5(host-secret-t)); JSON `host`, `ips`, `ipsv6`,
  /// `ttl`. A and AAAA only.
  case alibaba = 0
  /// `GET /d?dn=NAME[&type=AAAA]`; plain text `ip;ip`. A and AAAA only.
  case dnspod = 1
  /// `GET /resolve?name=NAME&type=TYPE`; JSON `Status` and `Answer`
  /// records: every type.
  case json = 2
  /// RFC 8484: `POST` of the DNS message as `application/dns-message`, the
  /// response body a DNS message. Every type. The default for `https`.
  case dnsMessage = 3
}

public struct UpstreamServer: Equatable, Sendable {
  public var transport: UpstreamTransport
  public var endpoint: Endpoint
  /// `upstream ... trusted`: a channel the network is believed unable to
  /// rewrite (TCP to an address or port that is not intercepted; later DoT,
  /// DoH, HTTPDNS). `verify` names are asked here first, and plain
  /// upstreams' answers for them are checked against its answer.
  public var trusted: Bool
  /// `upstream httpdns` only: the API, and for `alibaba` the account ID and
  /// the optional signing secret (bytes as written in the config).
  public var httpdnsFormat: HTTPDNSFormat
  public var account: [UInt8]
  public var secret: [UInt8]
  /// `name=`, `tls` and `https`: the server's name, sent as SNI and checked
  /// against its certificate (RFC 6125); for `https` also the Host header.
  /// The upstream is still reached by its IP address: no DNS to find it.
  public var tlsName: [UInt8]
  /// `pin=sha256/BASE64`: the SHA-256 of the certificate's
  /// SubjectPublicKeyInfo (RFC 7469 §2.4), 32 bytes; empty for no pin.
  public var pin: [UInt8]
  /// `path=`, `https` and `httpdns` with `format=dns-message` or `json`: the
  /// request path; empty for the format's usual one (`/dns-query`,
  /// `/resolve`).
  public var path: [UInt8]
  /// `for NAME`, `for-list PATH`: bit g set when the upstream answers the
  /// names of route group g (1…63, `Settings.routes`). 0: it answers the
  /// names no route matches, and only those.
  public var routeGroups: UInt64

  public init(
    transport: UpstreamTransport, endpoint: Endpoint, trusted: Bool = false,
    httpdnsFormat: HTTPDNSFormat = .json, account: [UInt8] = [], secret: [UInt8] = [],
    tlsName: [UInt8] = [], pin: [UInt8] = [], path: [UInt8] = [], routeGroups: UInt64 = 0
  ) {
    self.transport = transport
    self.endpoint = endpoint
    self.trusted = trusted
    self.httpdnsFormat = httpdnsFormat
    self.account = account
    self.secret = secret
    self.tlsName = tlsName
    self.pin = pin
    self.path = path
    self.routeGroups = routeGroups
  }

  /// Whether it answers names of route group `group` (0: unrouted names).
  public func serves(routeGroup group: UInt8) -> Bool {
    group == 0 ? routeGroups == 0 : routeGroups & (1 << UInt64(group & 63)) != 0
  }

  /// Whether it can answer every question type; the `alibaba` and `dnspod`
  /// HTTPDNS APIs know only A and AAAA, and other types go to the next
  /// upstream that can answer them.
  public var answersEveryType: Bool {
    !transport.isHTTP || httpdnsFormat == .json || httpdnsFormat == .dnsMessage
  }
}

/// `dnssec off|on|auto` (`Settings.dnssec`).
public enum DNSSECMode: UInt8, Equatable, Sendable {
  /// Answers are forwarded as they come.
  case off
  /// Every answer to a question asked with CD=0 is validated; bogus is SERVFAIL.
  case on
  /// As `on`, except that the answers of an upstream whose probe showed it
  /// cannot pass DNSSEC (RRSIGs stripped, no EDNS, bad keys) are relayed
  /// without validation rather than turned into SERVFAIL.
  case auto

  /// The word a config writes.
  public var word: StaticString {
    switch self {
    case .off: "off"
    case .on: "on"
    case .auto: "auto"
    }
  }
}

public enum LogLevel: UInt8, Comparable, Sendable {
  case error = 0
  case warning = 1
  case info = 2
  case debug = 3
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Every tunable of a compiled `dnsward.conf`, with the defaults a config
/// without the directive gets. The range each directive accepts is declared
/// once, with the directive, in Sources/Config/Directive.swift (a test checks
/// that the defaults declared there are the ones here).
/// One `nftset` directive: where the addresses of answers for its domains
/// go. Names are the bytes `nft` shows (at most 255, NFT_NAME_MAXLEN less
/// its NUL).
public struct NftSetTarget: Equatable, Sendable {
  /// NFPROTO_INET (1), NFPROTO_IPV4 (2) or NFPROTO_IPV6 (10).
  public var family: UInt8
  public var table: [UInt8]
  /// The set for A records' addresses; empty: none.
  public var ipv4Set: [UInt8]
  /// The set for AAAA records' addresses; empty: none.
  public var ipv6Set: [UInt8]

  public init(family: UInt8, table: [UInt8], ipv4Set: [UInt8], ipv6Set: [UInt8]) {
    self.family = family
    self.table = table
    self.ipv4Set = ipv4Set
    self.ipv6Set = ipv6Set
  }

  public static let inet: UInt8 = 1
  public static let ip: UInt8 = 2
  public static let ip6: UInt8 = 10
}

public struct Settings {
  /// `listen`: UDP and TCP sockets for clients.
  public var listen: [Endpoint] = []
  /// `allow`: clients outside every prefix get REFUSED. Empty means
  /// `defaultAllowPrefixes`.
  public var allow: [AddressPrefix] = []
  /// `upstream udp|tcp`: in priority order.
  public var upstreams: [UpstreamServer] = []
  /// `upstream resolv-conf PATH`: the nameservers in this file are read at
  /// start-up and inserted at `resolvConfPosition` in `upstreams`. Empty: none.
  public var resolvConfPath: [UInt8] = []
  public var resolvConfPosition: Int = 0
  /// `timeout`: per-attempt deadline before the next upstream is tried. The
  /// 1.5 s default is the app-level "local DNS" deadline (Sources/README.md,
  /// Threat model).
  public var timeoutMilliseconds: UInt32 = 1500
  /// `inflight`: capacity of the transaction ring, a power of two.
  public var inflight: Int = 1024
  /// `override-ttl`: TTL of locally answered records.
  public var overrideTTL: UInt32 = 300
  /// `user`: the account to switch to after binding; empty keeps the current one.
  public var user: [UInt8] = []
  /// `seccomp`: once the loop runs, every system call it does not need fails
  /// with EPERM (Linux seccomp filter; see SyscallFilter.h for the list).
  public var seccomp: Bool = false
  /// `log`.
  public var logLevel: LogLevel = .info
  /// `log-queries`: one line per answered query (client, name, type,
  /// outcome, upstream, latency) at level info; off, they appear only with
  /// `log debug`.
  public var logQueries: Bool = false
  /// `tcp-clients`: simultaneous client TCP connections; the next is refused.
  public var tcpClients: Int = 32
  /// `workers`: processes, each with its own loop, cache and transaction
  /// ring, sharing the listen addresses through SO_REUSEPORT. Every buffer
  /// above is per worker.
  public var workers: Int = 1
  /// `metrics`: where the Prometheus text format is served over HTTP (to
  /// `allow`ed clients only); nil: nowhere. Port 0 binds a free port, which
  /// the start-up log names.
  public var metrics: Endpoint? = nil
  /// `tcp-idle`: an idle client connection is closed after this (RFC 7766 §6.2.3).
  public var tcpIdleMilliseconds: UInt32 = 10_000
  /// `edns-size`: the UDP payload size dnsward advertises upstream and to
  /// clients; 1232 avoids IP fragmentation (DNS Flag Day 2020).
  public var ednsPayloadSize: UInt16 = 1232
  /// `case-randomization`: 0x20 encoding on UDP upstream queries.
  public var caseRandomization: Bool = true

  // MARK: Packet cache. Durations are whole seconds, the unit of a DNS TTL.

  /// `cache`: entries in the packet cache; 0 turns the cache off. One entry is one answer keyed by (name, type, class, DO bit); a
  /// full cache evicts, it never grows (Sources/README.md, Memory).
  public var cacheEntries: Int = 4096
  /// `cache-bytes`: bytes of wire-format answers the cache holds in all.
  /// The 1 MiB default gives the 4096 default entries about
  /// 256 bytes each, the size of a typical answer, within a router's RAM.
  public var cacheBytes: Int = 1 << 20
  /// `min-ttl`, seconds: a cached answer is kept at least this
  /// long; smaller TTLs are raised to it. 0 keeps the upstream's TTLs;
  /// raising it trades freshness for fewer upstream queries, so it is
  /// capped at an hour.
  public var minTTL: UInt32 = 0
  /// `max-ttl`, seconds, at least `minTTL`: larger TTLs are
  /// lowered to it, so a changed (or poisoned) record is replaced within a
  /// day by default. RFC 8767 §4 recommends capping TTLs at 7 days, the
  /// upper bound.
  public var maxTTL: UInt32 = 86400
  /// `neg-ttl-max`, seconds: an NXDOMAIN or NODATA answer is
  /// cached at most this long. RFC 2308 §5 finds one to three hours work
  /// well (the default is one) and more than a day problematic (the upper
  /// bound). 0: negative answers are not cached.
  public var negativeTTLMax: UInt32 = 3600
  /// `stale`, seconds: how long past its expiry an answer may
  /// still be served when every upstream fails (RFC 8767 serve-stale; its §5
  /// suggests one to three days, the bound is `max-ttl`'s 7 days). 0: off.
  public var staleSeconds: UInt32 = 0
  /// `stale-first`: an expired entry still within `staleSeconds` is answered
  /// at once and refreshed upstream in the background, instead of being
  /// served only after the upstreams failed. Faster, but a changed record is
  /// seen one query later. No effect while `staleSeconds` is 0 (not an
  /// error, so that `stale 0` can switch stale answers off on its own).
  public var staleFirst: Bool = false

  // MARK: Persistent cache and prefetch.

  /// `cache-file`: an absolute path where the cache is saved every
  /// `cacheSaveSeconds` and on a clean shutdown, and from which it is loaded
  /// at start-up, so that after a restart or a reboot the LAN gets answers
  /// at once, even before the WAN link or the upstreams are up. Empty (the
  /// default): no persistence. Loaded answers count as already expired:
  /// they are served only as stale answers (RFC 8767), so the file is of
  /// use only with `staleSeconds` above 0, and answers at once (rather than
  /// after the upstreams failed) only with `staleFirst`. The file is read
  /// and written after privileges are dropped, so its directory must be
  /// writable by `user`; it is written mode 0600 (it tells which names the
  /// LAN asked for), and one that another account could have written is
  /// ignored, like a corrupt one. It is rewritten whole each time
  /// (temporary file, fsync, rename): on a router, put it on tmpfs (`/tmp`
  /// on OpenWrt, which then survives restarts but not reboots) or give flash
  /// a long interval.
  public var cacheFilePath: [UInt8] = []
  /// `cache-save-interval`, seconds: how often the cache file
  /// is rewritten. Not on every change: flash wears with each write, and a
  /// few minutes of new answers is all a crash loses. Default 5 minutes.
  public var cacheSaveSeconds: UInt32 = 300
  /// `prefetch NAME`: names kept warm by refreshing them shortly before they
  /// expire. Concatenated lower-cased flat wire names (RFC 1035 §3.1, each
  /// ending in its zero root octet, so the list is walked name by name with
  /// no separator), in config order, without duplicates; empty: none.
  public var prefetchNames: [UInt8] = []
  /// `prefetch-hits`: a cache entry hit more than this many
  /// times is refreshed shortly before it expires, so popular answers never
  /// lapse. 0: off.
  public var prefetchHits: UInt32 = 0

  // MARK: Hijack defence (Sources/README.md, Threat model).

  /// `bogus ADDRESS[/LENGTH]`: addresses that only a forger or a redirecting
  /// ISP answers with. An upstream answer with an A or AAAA record inside one
  /// of these prefixes is dropped and counted; over UDP the real answer from
  /// the same upstream is still awaited until the deadline (injected answers
  /// arrive first), then the next upstream is asked. In config order.
  public var bogusPrefixes: [AddressPrefix] = []
  /// `bogus-nxdomain ADDRESS[/LENGTH]`: an answer whose A/AAAA records all
  /// fall inside these prefixes is an ISP's redirect page for a name that
  /// does not exist: the client gets NXDOMAIN instead (dnsmasq's option of
  /// that name).
  public var bogusNXDomainPrefixes: [AddressPrefix] = []
  /// `detect-nxdomain-redirect on|off`: ask each plain upstream, at start-up
  /// and every hour, for random names that cannot exist; an address that
  /// several of them come back with (and that a real name does not) is
  /// learned as a `bogus-nxdomain` address.
  public var detectNXDomainRedirect: Bool = false
  /// `verify NAME`: sensitive names (and every name below them) asked of a
  /// trusted upstream first; the first plain upstream is asked too, and an
  /// answer of it outside the trusted answer's addresses is counted as a
  /// disagreement and logged. Concatenated lower-cased flat wire names, like
  /// `prefetchNames`; empty: none. Needs an upstream marked `trusted`.
  public var verifyNames: [UInt8] = []
  /// `strict on|off`: `verify` names are answered only by trusted
  /// upstreams. When every trusted upstream fails, their clients get a stale
  /// answer or SERVFAIL, never a plain upstream's answer. Off (the default),
  /// a plain upstream answers them then — the "degrade to local DNS when
  /// the secure channel is unavailable" choice, made explicit and logged.
  public var strict: Bool = false
  /// `hold-on DURATION`, milliseconds, 0 for off: after the first answer to a UDP
  /// query, wait this long for a second, different one (an injected answer
  /// races the real one); if two arrive, the one that is not bogus and
  /// whose shape (IP TTL, EDNS) matches the upstream's usual answers wins.
  public var holdOnMilliseconds: UInt32 = 0
  /// `rebind-protection on|off`: an upstream answer pointing a name at a
  /// private, loopback, link-local, CGNAT or ULA address is dropped (the next
  /// upstream is asked), unless the name is overridden or in `rebindAllowNames`.
  public var rebindProtection: Bool = false
  /// `rebind-allow NAME`: names (and every name below them) that may resolve
  /// to private addresses. Concatenated lower-cased flat wire names.
  public var rebindAllowNames: [UInt8] = []
  /// `override-check tcp:PORT`: every override address is probed with a TCP
  /// connect to PORT every `overrideCheckSeconds`; one that fails is left out
  /// of the override's answers, and a name whose every address failed is
  /// resolved normally until one recovers. 0: off.
  public var overrideCheckPort: UInt16 = 0
  /// `override-check-interval DURATION`, seconds: how often the override
  /// addresses are probed.
  public var overrideCheckSeconds: UInt32 = 60
  /// `rate-limit COUNT/s`, 0 for off: queries per second a single
  /// client address may make (token bucket, burst of one second's worth);
  /// more are dropped and counted.
  public var rateLimitPerSecond: UInt32 = 0
  /// `refuse-any on|off`: a QTYPE ANY question over UDP gets the RFC 8482
  /// §4.2 minimal answer (one synthesized HINFO record) instead of being
  /// forwarded, so the proxy is no amplifier. Over TCP it is forwarded.
  public var refuseAny: Bool = true
  /// `forward-single-label on|off`: off (the default), an A, AAAA, ANY or
  /// HTTPS question of class IN about a name of one label gets NXDOMAIN at
  /// once (dnsmasq's `domain-needed`); on, it is forwarded.
  public var forwardSingleLabel: Bool = false
  /// `forward-private-reverse on|off`: off (the default), questions at or
  /// below the locally served zones of RFC 6303 §4 and RFC 7793 are
  /// answered at once (dnsmasq's `bogus-priv`); on, they are forwarded.
  public var forwardPrivateReverse: Bool = false
  /// `filter-aaaa on|off`: an AAAA question that would be forwarded gets
  /// NODATA at once (dnsmasq's `filter-AAAA`); overrides still answer AAAA.
  public var filterAAAA: Bool = false
  /// `ca-file PATH`: the PEM certificates that `tls` and `https` upstreams'
  /// chains must lead to; empty for the system bundle
  /// (`/etc/ssl/certs/ca-certificates.crt`, about 460 KB of heap once
  /// loaded: a file with only the upstreams' CAs is kinder to a router).
  public var caFile: [UInt8] = []

  // MARK: DNSSEC.

  /// `dnssec off|on|auto`: off, answers are forwarded as they come; on,
  /// they are validated from `trustAnchors` (RFC 4035 §5); auto, as on but
  /// for the upstreams whose DNSSEC probe fails (Engine, UpstreamProbes.swift).
  public var dnssec: DNSSECMode = .off
  /// Whether answers are validated at all: `dnssec on` or `auto`.
  public var validatesDNSSEC: Bool { dnssec != .off }
  /// `trust-anchor`, `trust-anchor-file` and, unless `dnssec-root off`, the
  /// root's keys (`TrustAnchors.rootEntries`) first: where validation
  /// starts. Kept (unused) when `dnssec` is off.
  #if DNSWARD_NO_DNSSEC
    /// A firmware without DNSSEC never reads them (not even the root's).
    public var trustAnchors = TrustAnchors()
  #else
    public var trustAnchors: TrustAnchors = .root
  #endif

  // MARK: Local names (Engine/LocalNames.swift).

  /// `local-names COUNT`: (name, address) pairs the hosts and lease files
  /// may give, in each of the two tables allocated at start-up (only when a
  /// file is named); more are dropped, counted and logged.
  public var localNamesCapacity: Int = 4096
  /// `hosts PATH`: files in /etc/hosts format, re-read when they change.
  public var hostsFiles: [[UInt8]] = []
  /// `leases PATH`: dnsmasq lease files, re-read when they change.
  public var leaseFiles: [[UInt8]] = []
  /// `domain NAME`: the LAN's domain as a lower-cased flat wire name; empty:
  /// none. Bare local names answer as NAME.DOMAIN too, and unknown names at
  /// or below it are NXDOMAIN, never forwarded.
  public var localDomain: [UInt8] = []

  /// The static override and block table.
  public var overrides: OverrideTable = OverrideTable()
  /// `upstream ... for NAME` and `for-list PATH`: each routed domain with
  /// its route group (`OverrideKind.route` entries); the upstreams of group
  /// g are those whose `routeGroups` has bit g. Empty: nothing is routed.
  public var routes: OverrideTable = OverrideTable()
  /// `nftset FAMILY TABLE SET[,SET6] for NAME | for-list PATH`: the sets, one
  /// per directive, in config order.
  public var nftsets: [NftSetTarget] = []
  /// The domains of the `nftset` directives (`OverrideKind.route` entries, as
  /// in `routes`); the directives of group g are the bits of
  /// `nftsetGroups[g - 1]`. Empty: no name is looked up.
  public var nftsetNames: OverrideTable = OverrideTable()
  public var nftsetGroups: [UInt64] = []

  public init() {}

  /// The ACL in force.
  public var effectiveAllow: [AddressPrefix] { allow.isEmpty ? defaultAllowPrefixes : allow }
}
