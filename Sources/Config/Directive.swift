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
  case strict
  case caFile
  case seccomp
}

/// How a directive's number is written, and in which unit its range is.
enum ArgumentUnit: UInt8 {
  /// Not a number (a name, an address, `on|off`...): no range.
  case none
  /// A plain decimal count, no unit suffix.
  case count
  /// `1500ms`, `2s`; a bare number is milliseconds.
  case milliseconds
  /// `300`, `5m`, `1h`, `1d`; a bare number is seconds, the unit of a TTL.
  case seconds
  /// `65536`, `512k`, `2m`; a bare number is bytes.
  case bytes
  /// `200/s`: queries per second.
  case perSecond
}

/// One directive's declaration. Only `StaticString`s, integers and flags:
/// it compiles the same in Embedded Swift, where the firmware's config
/// language reads it too, and lands in read-only data.
struct DirectiveDeclaration {
  /// The spelling in the file.
  let name: StaticString
  /// The arguments after the name, e.g. `DURATION` or `NAME ADDRESS...`.
  let syntax: StaticString
  /// May appear on several lines; the others at most once.
  let isRepeatable: Bool
  /// The values the argument may take, in `unit`'s base unit (ms, s, bytes);
  /// meaningless when `unit` is `.none`.
  let range: ClosedRange<Int>
  let unit: ArgumentUnit
  /// 0 turns the feature off (the usage says `0 (off)`).
  let zeroIsOff: Bool
  /// The rest of the usage text: examples or the other forms.
  let note: StaticString
  /// The argument that gives what a config without the directive gets
  /// (`Settings()`), as it would be written; empty when no argument can say
  /// it (a list that is empty, a path that is unset), and `help` then does.
  let defaultValue: StaticString
  /// One line for `--help-config`.
  let help: StaticString

  init(
    _ name: StaticString, _ syntax: StaticString, repeatable: Bool = false,
    range: ClosedRange<Int> = 0...0, unit: ArgumentUnit = .none, zeroIsOff: Bool = false,
    note: StaticString = "", default defaultValue: StaticString = "", help: StaticString
  ) {
    self.name = name
    self.syntax = syntax
    self.isRepeatable = repeatable
    self.range = range
    self.unit = unit
    self.zeroIsOff = zeroIsOff
    self.note = note
    self.defaultValue = defaultValue
    self.help = help
  }
}

extension Directive {
  /// The declaration: the one place each directive is described. A bound
  /// with a reason carries it in a comment.
  var declaration: DirectiveDeclaration {
    switch self {
    case .listen:
      return .init(
        "listen", "ADDRESS[:PORT]", repeatable: true, note: "IPv6 as [ADDRESS]:PORT",
        help: "a UDP and TCP address to serve; port 53 if omitted; at least one is required")
    case .allow:
      return .init(
        "allow", "ADDRESS[/LENGTH]", repeatable: true,
        help: "clients that may ask; without any: loopback, RFC 1918, RFC 6598, link-local, ULA")
    case .upstream:
      return .init(
        "upstream", "udp|tcp ADDRESS[:PORT] [trusted]", repeatable: true,
        note: "upstream tls|https|httpdns ADDRESS[:PORT] [OPTION...] or upstream resolv-conf PATH",
        help: """
          a server to forward to, in priority order; OPTION: tls name=NAME \
          [pin=sha256/BASE64]; https name=NAME [path=/PATH] [format=dns-message|json] \
          [pin=...]; httpdns [format=alibaba|dnspod|json|dns-message] [account=ID] \
          [secret=KEY] [path=/PATH] (format=alibaba with account=, else json); \
          trusted: verify asks it
          """)
    case .timeout:
      return .init(
        "timeout", "DURATION", range: 50...60_000, unit: .milliseconds,
        note: "e.g. 1500ms or 2s", default: "1500ms",
        help: "the deadline of one upstream attempt, then the next upstream is asked")
    case .inflight:
      return .init(
        "inflight", "COUNT", range: 16...65_536, unit: .count, note: "a power of two",
        default: "1024", help: "upstream questions in flight; when all are taken, SERVFAIL")
    case .override:
      return .init(
        "override", "NAME ADDRESS...", repeatable: true,
        help: "answer NAME (*.NAME: every name below it) with these A and AAAA addresses")
    case .block:
      return .init(
        "block", "NAME", repeatable: true, help: "NXDOMAIN for NAME and every name below it")
    case .overrideTTL:
      // One week: the TTL cap RFC 8767 §4 recommends.
      return .init(
        "override-ttl", "SECONDS", range: 0...604_800, unit: .count, default: "300",
        help: "the TTL of override answers")
    case .user:
      return .init(
        "user", "NAME", help: "the account to switch to after binding; else the current one")
    case .log:
      return .init(
        "log", "error|warning|info|debug", default: "info",
        help: "the least severe messages logged")
    case .logQueries:
      return .init(
        "log-queries", "on|off", default: "off",
        help: "one info line per answered query (client, name, type, outcome, latency)")
    case .tcpClients:
      return .init(
        "tcp-clients", "COUNT", range: 1...4096, unit: .count, default: "32",
        help: "simultaneous client TCP connections; more are refused")
    case .tcpIdle:
      return .init(
        "tcp-idle", "DURATION", range: 1_000...3_600_000, unit: .milliseconds,
        note: "e.g. 10s", default: "10s",
        help: "an idle client TCP connection is closed after this (RFC 7766 §6.2.3)")
    case .ednsSize:
      // RFC 6891 §6.2.5: values below 512 are treated as 512.
      return .init(
        "edns-size", "BYTES", range: 512...4096, unit: .count, default: "1232",
        help: "the EDNS(0) UDP payload size advertised upstream and to clients")
    case .caseRandomization:
      return .init(
        "case-randomization", "on|off", default: "on",
        help: "random letter case (0x20) in upstream UDP questions")
    case .cache:
      return .init(
        "cache", "COUNT", range: 0...1_048_576, unit: .count, zeroIsOff: true,
        default: "4096", help: "entries in the packet cache")
    case .cacheBytes:
      return .init(
        "cache-bytes", "SIZE", range: (16 << 10)...(256 << 20), unit: .bytes,
        note: "e.g. 512k or 2m", default: "1m",
        help: "bytes of cached answers, allocated at start-up")
    case .minTTL:
      // Raising TTLs trades freshness for fewer queries: at most an hour.
      return .init(
        "min-ttl", "DURATION", range: 0...3600, unit: .seconds,
        note: "e.g. 60 (seconds) or 5m", default: "0",
        help: "cached answers are kept at least this long")
    case .maxTTL:
      // RFC 8767 §4: cap TTLs at 7 days.
      return .init(
        "max-ttl", "DURATION", range: 1...604_800, unit: .seconds,
        note: "e.g. 3600 (seconds) or 1d", default: "1d",
        help: "cached answers are kept at most this long; at least min-ttl")
    case .negativeTTLMax:
      // RFC 2308 §5: more than a day is problematic.
      return .init(
        "neg-ttl-max", "DURATION", range: 0...86_400, unit: .seconds,
        note: "e.g. 900 (seconds) or 1h", default: "1h",
        help: "NXDOMAIN and NODATA are cached at most this long; 0: not cached")
    case .stale:
      return .init(
        "stale", "DURATION", range: 0...604_800, unit: .seconds, zeroIsOff: true,
        note: "e.g. 1d or 86400 (seconds)", default: "0",
        help: "when every upstream fails, answer from an entry expired this recently (RFC 8767)")
    case .staleFirst:
      return .init(
        "stale-first", "on|off", default: "off",
        help: "answer such an expired entry at once and refresh it in the background")
    case .cacheFile:
      return .init(
        "cache-file", "PATH", note: "absolute, e.g. /tmp/dnsward.cache",
        help: "save the cache here and load it at start-up; without it none is kept")
    case .cacheSaveInterval:
      // At least 30 s: the file is rewritten whole, and flash wears.
      return .init(
        "cache-save-interval", "DURATION", range: 30...86_400, unit: .seconds,
        note: "e.g. 5m or 300 (seconds)", default: "5m",
        help: "how often the cache file is rewritten")
    case .prefetch:
      return .init(
        "prefetch", "NAME", repeatable: true, help: "keep NAME's A and AAAA answers warm")
    case .prefetchHits:
      return .init(
        "prefetch-hits", "COUNT", range: 0...1_000_000, unit: .count, zeroIsOff: true,
        default: "0", help: "an entry hit more than this often is refreshed before it expires")
    case .blockList:
      return .init(
        "block-list", "PATH", repeatable: true,
        note: "one name per line, relative to this file's folder",
        help: "block every name in the file and every name below each")
    case .workers:
      return .init(
        "workers", "COUNT", range: 1...64, unit: .count, default: "1",
        help: "processes sharing the listen addresses, each with its own cache")
    case .bogus:
      return .init(
        "bogus", "ADDRESS[/LENGTH]", repeatable: true,
        help: "an answer with an address in it is forged: dropped, the real one awaited")
    case .bogusNXDomain:
      return .init(
        "bogus-nxdomain", "ADDRESS[/LENGTH]", repeatable: true,
        help: "an answer whose addresses all lie in such prefixes becomes NXDOMAIN")
    case .detectNXDomainRedirect:
      return .init(
        "detect-nxdomain-redirect", "on|off", default: "off",
        help: "learn where plain upstreams redirect names that cannot exist, as bogus-nxdomain")
    case .verify:
      return .init(
        "verify", "NAME", repeatable: true,
        help: "NAME and the names below it are asked of a trusted upstream too")
    case .holdOn:
      // Past a second the wait costs more than the injection it catches:
      // every UDP answer is held that long.
      return .init(
        "hold-on", "DURATION", range: 0...1000, unit: .milliseconds, zeroIsOff: true,
        note: "e.g. 30ms", default: "0",
        help: "wait this long after a UDP answer for a second one; keep the one not forged")
    case .rebindProtection:
      return .init(
        "rebind-protection", "on|off", default: "off",
        help: "drop answers that point a name at a private, loopback or link-local address")
    case .rebindAllow:
      return .init(
        "rebind-allow", "NAME", repeatable: true,
        help: "NAME and the names below it may resolve to private addresses")
    case .overrideCheck:
      return .init(
        "override-check", "tcp:PORT or override-check off", note: "e.g. tcp:443",
        default: "off", help: "probe override addresses by TCP; failing ones are left out")
    case .overrideCheckInterval:
      // At least 5 s: each round connects to every override address.
      return .init(
        "override-check-interval", "DURATION", range: 5...86_400, unit: .seconds,
        note: "e.g. 60 (seconds) or 5m", default: "60",
        help: "how often the override addresses are probed")
    case .rateLimit:
      return .init(
        "rate-limit", "COUNT/s", range: 1...1_000_000, unit: .perSecond,
        note: "or off, e.g. 200/s", default: "off",
        help: "queries per second one client address may make; more are dropped")
    case .refuseAny:
      return .init(
        "refuse-any", "on|off", default: "on",
        help: "a UDP question of type ANY gets the RFC 8482 minimal answer")
    case .strict:
      return .init(
        "strict", "on|off", default: "off",
        help: "verify names are answered only by trusted upstreams, never by a plain one")
    case .caFile:
      return .init(
        "ca-file", "PATH", note: "absolute, PEM certificates for tls and https upstreams",
        help: "the CAs of tls and https upstreams; else the system bundle")
    case .seccomp:
      return .init(
        "seccomp", "on|off", default: "off",
        help: "a seccomp filter lets the loop make only the system calls it needs")
    }
  }
}
