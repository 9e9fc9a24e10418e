import CompiledConfig
import DNSWire

/// The `dnsward.conf` language: one directive per line, tokens separated by
/// spaces or tabs, `#` starts a comment anywhere, blank lines are ignored.
///
/// ```
/// listen 127.0.0.1:8053
/// upstream udp 192.0.2.53
/// override printer.lan 192.168.1.20 fd00::20
/// block ads.example
/// ```
///
/// Parsing stops at the first problem, reported as `file:line: message`.
/// Everything the parser accepts is valid for the engine: ranges, powers of
/// two, name lengths and duplicate or conflicting entries are checked here,
/// so the generated tables need no check at start-up.
public enum ConfigParser {
  public static func parse(
    _ text: String, fileName: String, readFile: ConfigFileReader? = nil
  ) throws(ConfigError) -> Settings {
    try parse(bytes: Array(text.utf8), fileName: fileName, readFile: readFile)
  }

  /// The same for the raw bytes of a file, as the firmware reads them: no
  /// `String` is made of the text, so bytes that are not UTF-8 reach the
  /// messages as `\xNN` escapes rather than as replacement characters.
  ///
  /// `readFile` reads the files the config names (`block-list PATH`, with
  /// PATH relative to the config's folder); without it, naming one is an
  /// error.
  public static func parse(
    bytes: [UInt8], fileName: String, readFile: ConfigFileReader? = nil
  ) throws(ConfigError) -> Settings {
    var reader = ConfigReader(fileName: fileName, readFile: readFile)
    var lineNumber = 0
    var lineStart = 0
    while lineStart < bytes.count {
      lineNumber += 1
      let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      let tokens = tokenize(bytes[lineStart..<lineEnd])
      if !tokens.isEmpty {
        do throws(LineError) {
          try reader.apply(tokens, line: lineNumber)
        } catch {
          throw ConfigError(
            file: error.file ?? fileName, line: error.file == nil ? lineNumber : error.line,
            message: error.message)
        }
      }
      lineStart = lineEnd + 1
    }
    do throws(LineError) {
      return try reader.finish()
    } catch {
      // A problem of the whole file, or one reported on the line it stems from.
      throw ConfigError(
        file: error.file ?? fileName, line: error.file == nil ? 0 : error.line,
        message: error.message)
    }
  }

  /// The tokens of one line: runs of bytes other than space, tab and carriage
  /// return (so CRLF files work), up to the first `#`.
  static func tokenize(_ line: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
    var tokens: [ArraySlice<UInt8>] = []
    var tokenStart: Int? = nil
    var index = line.startIndex
    while index < line.endIndex {
      let byte = line[index]
      if byte == UInt8(ascii: "#") { break }
      let isSeparator = byte == 0x20 || byte == 0x09 || byte == 0x0D
      if isSeparator, let start = tokenStart {
        tokens.append(line[start..<index])
        tokenStart = nil
      } else if !isSeparator && tokenStart == nil {
        tokenStart = index
      }
      index += 1
    }
    if let start = tokenStart { tokens.append(line[start..<index]) }
    return tokens
  }
}

/// The directives. The raw value numbers them from 0, to index per-directive
/// arrays; `name` is the spelling in the file. (Not a `String` raw value:
/// `init(rawValue:)` would compare Strings, which pulls the Unicode tables
/// into Embedded Swift builds.)
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

  /// The directive spelled `token` (case-sensitive), if any.
  static func named(_ token: ArraySlice<UInt8>) -> Directive? {
    var rawValue = 0
    while let candidate = Directive(rawValue: rawValue) {
      if candidate.isSpelled(token) { return candidate }
      rawValue += 1
    }
    return nil
  }

  /// Whether `token` is the directive's spelling, byte for byte.
  func isSpelled(_ token: ArraySlice<UInt8>) -> Bool {
    name.withUTF8Buffer { token.elementsEqual($0) }
  }

  /// The spelling in the file.
  var name: StaticString {
    switch self {
    case .listen: return "listen"
    case .allow: return "allow"
    case .upstream: return "upstream"
    case .timeout: return "timeout"
    case .inflight: return "inflight"
    case .override: return "override"
    case .block: return "block"
    case .overrideTTL: return "override-ttl"
    case .user: return "user"
    case .log: return "log"
    case .logQueries: return "log-queries"
    case .tcpClients: return "tcp-clients"
    case .tcpIdle: return "tcp-idle"
    case .ednsSize: return "edns-size"
    case .caseRandomization: return "case-randomization"
    case .cache: return "cache"
    case .cacheBytes: return "cache-bytes"
    case .minTTL: return "min-ttl"
    case .maxTTL: return "max-ttl"
    case .negativeTTLMax: return "neg-ttl-max"
    case .stale: return "stale"
    case .staleFirst: return "stale-first"
    case .cacheFile: return "cache-file"
    case .cacheSaveInterval: return "cache-save-interval"
    case .prefetch: return "prefetch"
    case .prefetchHits: return "prefetch-hits"
    case .blockList: return "block-list"
    case .workers: return "workers"
    case .bogus: return "bogus"
    case .bogusNXDomain: return "bogus-nxdomain"
    case .detectNXDomainRedirect: return "detect-nxdomain-redirect"
    case .verify: return "verify"
    case .holdOn: return "hold-on"
    case .rebindProtection: return "rebind-protection"
    case .strict: return "strict"
    case .rebindAllow: return "rebind-allow"
    case .overrideCheck: return "override-check"
    case .overrideCheckInterval: return "override-check-interval"
    case .rateLimit: return "rate-limit"
    case .refuseAny: return "refuse-any"
    case .caFile: return "ca-file"
    case .seccomp: return "seccomp"
    }
  }

  /// The directives that may appear on several lines; the others at most once.
  var isRepeatable: Bool {
    switch self {
    case .listen, .allow, .upstream, .override, .block, .prefetch, .blockList: return true
    case .bogus, .bogusNXDomain, .verify, .rebindAllow: return true
    default: return false
    }
  }

  /// How many arguments follow the directive (`override` takes a name and
  /// one or more addresses; `upstream` options, which `addUpstream` counts).
  var argumentCount: ClosedRange<Int> {
    switch self {
    case .override, .upstream: return 2...Int.max
    default: return 1...1
    }
  }

  var usage: StaticString {
    switch self {
    case .listen: return "listen ADDRESS[:PORT], IPv6 as [ADDRESS]:PORT"
    case .allow: return "allow ADDRESS[/LENGTH]"
    case .upstream:
      return """
        upstream udp|tcp ADDRESS[:PORT] [trusted], \
        upstream tls|https|httpdns ADDRESS[:PORT] [OPTION...] or upstream resolv-conf PATH
        """
    case .timeout: return "timeout DURATION, e.g. 1500ms or 2s"
    case .inflight: return "inflight COUNT, a power of two 16...65536"
    case .override: return "override NAME ADDRESS..."
    case .block: return "block NAME"
    case .overrideTTL: return "override-ttl SECONDS"
    case .user: return "user NAME"
    case .log: return "log error|warning|info|debug"
    case .logQueries: return "log-queries on|off"
    case .tcpClients: return "tcp-clients COUNT"
    case .tcpIdle: return "tcp-idle DURATION, e.g. 10s"
    case .ednsSize: return "edns-size BYTES"
    case .caseRandomization: return "case-randomization on|off"
    case .cache: return "cache COUNT, 0 (off)...1048576"
    case .cacheBytes: return "cache-bytes SIZE, 16k...256m, e.g. 512k or 2m"
    case .minTTL: return "min-ttl DURATION, 0s...1h, e.g. 60 (seconds) or 5m"
    case .maxTTL: return "max-ttl DURATION, 1s...7d, e.g. 3600 (seconds) or 1d"
    case .negativeTTLMax: return "neg-ttl-max DURATION, 0s...1d, e.g. 900 (seconds) or 1h"
    case .stale: return "stale DURATION, 0 (off)...7d, e.g. 1d or 86400 (seconds)"
    case .staleFirst: return "stale-first on|off"
    case .cacheFile: return "cache-file PATH, absolute, e.g. /tmp/dnsward.cache"
    case .cacheSaveInterval:
      return "cache-save-interval DURATION, 30s...1d, e.g. 5m or 300 (seconds)"
    case .prefetch: return "prefetch NAME"
    case .prefetchHits: return "prefetch-hits COUNT, 0 (off)...1000000"
    case .blockList: return "block-list PATH, one name per line, relative to this file's folder"
    case .workers: return "workers COUNT, 1...64"
    case .bogus: return "bogus ADDRESS[/LENGTH]"
    case .bogusNXDomain: return "bogus-nxdomain ADDRESS[/LENGTH]"
    case .detectNXDomainRedirect: return "detect-nxdomain-redirect on|off"
    case .verify: return "verify NAME"
    case .holdOn: return "hold-on DURATION, 0 (off)...1000ms, e.g. 30ms"
    case .rebindProtection: return "rebind-protection on|off"
    case .strict: return "strict on|off"
    case .rebindAllow: return "rebind-allow NAME"
    case .overrideCheck: return "override-check tcp:PORT or override-check off, e.g. tcp:443"
    case .overrideCheckInterval:
      return "override-check-interval DURATION, 5s...1d, e.g. 60 (seconds) or 5m"
    case .rateLimit: return "rate-limit COUNT/s, 1...1000000 per second, or off, e.g. 200/s"
    case .refuseAny: return "refuse-any on|off"
    case .caFile: return "ca-file PATH, absolute, PEM certificates for tls and https upstreams"
    case .seccomp: return "seccomp on|off"
    }
  }
}

/// The lines on which a name was overridden or blocked (0: not yet), to
/// report duplicates and conflicts with the line of the first one.
struct NameLines {
  var exact = 0
  var wildcard = 0
  var block = 0
  var prefetch = 0
  var verify = 0
  var rebindAllow = 0
}

/// The state of one parse: what has been read so far.
struct ConfigReader {
  var settings = Settings()
  var overrides = OverrideTableBuilder()
  /// Indexed by `Directive.rawValue`; 0: not seen yet.
  var firstLine = [Int](repeating: 0, count: Directive.allCases.count)
  var listenLines: [Int] = []
  var allowLines: [Int] = []
  var upstreamLines: [Int] = []
  var bogusLines: [Int] = []
  var bogusNXDomainLines: [Int] = []
  /// The first `verify` line (0: none), where a missing trusted upstream is reported.
  var firstVerifyLine = 0
  var resolvConfLine = 0
  var nameLines = NameLinesIndex()
  /// The config's file name, and where `block-list` files are read.
  let fileName: String
  let readFile: ConfigFileReader?
  /// `block-list`: each list's resolved path and the line naming it.
  var blockLists: [(path: [UInt8], line: Int)] = []

  init(fileName: String, readFile: ConfigFileReader?) {
    self.fileName = fileName
    self.readFile = readFile
  }

  mutating func apply(_ tokens: [ArraySlice<UInt8>], line: Int) throws(LineError) {
    guard let directive = Directive.named(tokens[0]) else {
      throw LineError(unknownDirectiveMessage(tokens[0]))
    }
    let arguments = Array(tokens.dropFirst())
    if arguments.count < directive.argumentCount.lowerBound {
      throw LineError("missing argument to '\(directive.name)' (usage: \(directive.usage))")
    }
    if arguments.count > directive.argumentCount.upperBound {
      let extra = arguments[directive.argumentCount.upperBound]
      throw LineError(
        "extra argument \(quoted: extra) to '\(directive.name)' (usage: \(directive.usage))")
    }
    if !directive.isRepeatable {
      let first = firstLine[directive.rawValue]
      if first != 0 {
        throw .duplicate("'\(directive.name)' directive", firstOn: first)
      }
      firstLine[directive.rawValue] = line
    }
    // Every directive takes at least one argument (`argumentCount`).
    let value = arguments[0]
    switch directive {
    case .listen: try addListen(value, line: line)
    case .allow: try addAllow(value, line: line)
    case .upstream:
      try addUpstream(value, arguments[1], arguments[2...], line: line)
    case .override: try addOverride(value, arguments[1...], line: line)
    case .block: try addBlock(value, line: line)
    case .timeout:
      settings.timeoutMilliseconds = try duration(
        value, for: directive, range: 50...60_000)
    case .tcpIdle:
      settings.tcpIdleMilliseconds = try duration(
        value, for: directive, range: 1_000...3_600_000)
    case .inflight:
      let count = try number(value, for: directive, range: 16...65_536)
      guard count & (count - 1) == 0 else {
        var next = 16
        while next < count { next <<= 1 }
        throw LineError(
          "inflight \(count) is not a power of two (try \(next / 2) or \(next))")
      }
      settings.inflight = count
    case .overrideTTL:
      // One week: the TTL cap RFC 8767 §4 recommends.
      settings.overrideTTL = UInt32(try number(value, for: directive, range: 0...604_800))
    case .tcpClients:
      settings.tcpClients = try number(value, for: directive, range: 1...4096)
    case .ednsSize:
      // RFC 6891 §6.2.5: values below 512 are treated as 512.
      settings.ednsPayloadSize = UInt16(
        try number(value, for: directive, range: 512...4096))
    case .user: settings.user = try userName(value)
    case .log: settings.logLevel = try logLevel(value)
    case .logQueries: settings.logQueries = try onOff(value, for: directive)
    case .caseRandomization: settings.caseRandomization = try onOff(value, for: directive)
    case .cache:
      settings.cacheEntries = try number(value, for: directive, range: 0...1_048_576)
    case .cacheBytes:
      settings.cacheBytes = try quantity(
        value, for: directive, scale: .bytes, range: (16 << 10)...(256 << 20))
    case .minTTL:
      settings.minTTL = try seconds(value, for: directive, range: 0...3600)
      try checkTTLOrder(at: directive)
    case .maxTTL:
      settings.maxTTL = try seconds(value, for: directive, range: 1...604_800)
      try checkTTLOrder(at: directive)
    case .negativeTTLMax:
      settings.negativeTTLMax = try seconds(value, for: directive, range: 0...86_400)
    case .stale:
      settings.staleSeconds = try seconds(value, for: directive, range: 0...604_800)
    case .staleFirst: settings.staleFirst = try onOff(value, for: directive)
    case .cacheFile: settings.cacheFilePath = try cacheFilePath(value)
    case .cacheSaveInterval:
      // At least 30 s: the file is rewritten whole, and flash wears.
      settings.cacheSaveSeconds = try seconds(value, for: directive, range: 30...86_400)
    case .prefetch: try addPrefetch(value, line: line)
    case .blockList: try addBlockList(value, line: line)
    case .prefetchHits:
      settings.prefetchHits = UInt32(try number(value, for: directive, range: 0...1_000_000))
    case .workers:
      settings.workers = try number(value, for: directive, range: 1...64)
    case .bogus, .bogusNXDomain: try addBogus(value, for: directive, line: line)
    case .detectNXDomainRedirect:
      settings.detectNXDomainRedirect = try onOff(value, for: directive)
    case .verify: try addVerify(value, line: line)
    case .holdOn:
      // Past a second the wait costs more than the injection it catches:
      // every UDP answer is held that long.
      settings.holdOnMilliseconds = try duration(value, for: directive, range: 0...1000)
    case .rebindProtection: settings.rebindProtection = try onOff(value, for: directive)
    case .strict: settings.strict = try onOff(value, for: directive)
    case .rebindAllow: try addRebindAllow(value, line: line)
    case .overrideCheck: settings.overrideCheckPort = try overrideCheckPort(value)
    case .overrideCheckInterval:
      // At least 5 s: each round connects to every override address.
      settings.overrideCheckSeconds = try seconds(value, for: directive, range: 5...86_400)
    case .rateLimit: settings.rateLimitPerSecond = try rateLimit(value)
    case .refuseAny: settings.refuseAny = try onOff(value, for: directive)
    case .caFile: settings.caFile = try caFilePath(value)
    case .seccomp: settings.seccomp = try onOff(value, for: directive)
    }
  }

  /// `max-ttl` must be at least `min-ttl`. Checked when the second of the
  /// two is read, and reported on its line (the defaults, 0 and 86400, are
  /// in order, and neither range reaches past the other's default).
  func checkTTLOrder(at directive: Directive) throws(LineError) {
    guard settings.maxTTL < settings.minTTL else { return }
    let minimum: MessageText = "min-ttl \(settings.minTTL)s"
    let maximum: MessageText = "max-ttl \(settings.maxTTL)s"
    let rule: StaticString = "(max-ttl must be at least min-ttl)"
    if case .maxTTL = directive {
      throw LineError(
        "\(maximum) is less than \(minimum) \(lineOf(.minTTL)) \(rule)")
    }
    throw LineError("\(minimum) is more than \(maximum) \(lineOf(.maxTTL)) \(rule)")
  }

  /// `on line N` for a directive already read, `by default` for one not written.
  func lineOf(_ directive: Directive) -> MessageText {
    let line = firstLine[directive.rawValue]
    return line == 0 ? "by default" : "on line \(line)"
  }

  mutating func finish() throws(LineError) -> Settings {
    guard !settings.listen.isEmpty else {
      throw LineError(
        """
        no 'listen' directive: dnsward needs at least one address to serve, \
        e.g. listen 127.0.0.1:53
        """)
    }
    try checkVerifyHasTrustedUpstream()
    settings.overrides = overrides.build()
    return settings
  }

  func unknownDirectiveMessage(_ token: ArraySlice<UInt8>) -> MessageText {
    let lowered = token.map(Name.asciiLowercased)
    var best: (name: StaticString, distance: Int)? = nil
    for candidate in Directive.allCases {
      let distance = candidate.name.withUTF8Buffer { editDistance(lowered, Array($0)) }
      if distance <= 2, distance < best?.distance ?? Int.max {
        best = (candidate.name, distance)
      }
    }
    guard let best else { return "unknown directive \(quoted: token)" }
    return "unknown directive \(quoted: token) (did you mean '\(best.name)'?)"
  }
}

/// Levenshtein distance, for "did you mean" hints on short words.
func editDistance(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
  var previous = Array(0...rhs.count)
  for (leftIndex, left) in lhs.enumerated() {
    var current = [leftIndex + 1]
    for (rightIndex, right) in rhs.enumerated() {
      let substitution = previous[rightIndex] + (left == right ? 0 : 1)
      current.append(min(substitution, previous[rightIndex + 1] + 1, current[rightIndex] + 1))
    }
    previous = current
  }
  return previous[rhs.count]
}
