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
    var lines = SourceLines()
    return try parse(bytes: bytes, fileName: fileName, readFile: readFile, lines: &lines)
  }

  /// The same, setting `lines` to the lines of the entries that `--check`'s
  /// summary names (`ConfigGenerator.summary(_:lines:)`).
  public static func parse(
    bytes: [UInt8], fileName: String, readFile: ConfigFileReader? = nil,
    lines: inout SourceLines
  ) throws(ConfigError) -> Settings {
    try parse(bytes: bytes, fileName: Array(fileName.utf8), readFile: readFile, lines: &lines)
  }

  /// The same with the file name as bytes, as the firmware has it: the
  /// firmware makes no `String` (see `ConfigError`).
  public static func parse(
    bytes: [UInt8], fileName: [UInt8], readFile: ConfigFileReader? = nil,
    lines: inout SourceLines
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
            fileBytes: error.file ?? fileName, line: error.file == nil ? lineNumber : error.line,
            messageBytes: error.message)
        }
      }
      lineStart = lineEnd + 1
    }
    do throws(LineError) {
      let settings = try reader.finish()
      lines = SourceLines(bogus: reader.bogusLines, bogusNXDomain: reader.bogusNXDomainLines)
      lines.skippedListLines = reader.skippedListLines
      return settings
    } catch {
      // A problem of the whole file, or one reported on the line it stems from.
      throw ConfigError(
        fileBytes: error.file ?? fileName, line: error.file == nil ? 0 : error.line,
        messageBytes: error.message)
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

/// The lines of a parsed config's entries that the summary names, in the
/// order of the `Settings` lists they belong to; empty for settings not
/// read from a file (the compiled-in config).
public struct SourceLines {
  /// `bogus`: the line of each of `Settings.bogusPrefixes`.
  public var bogus: [Int] = []
  /// `bogus-nxdomain`: the line of each of `Settings.bogusNXDomainPrefixes`.
  public var bogusNXDomain: [Int] = []
  /// `for-list` lines that were skipped, each as `LIST:LINE: message`:
  /// `dnsward` logs them and serves the rest, `dnsward-confgen` fails.
  public var skippedListLines: [ConfigError] = []

  public init(bogus: [Int] = [], bogusNXDomain: [Int] = []) {
    self.bogus = bogus
    self.bogusNXDomain = bogusNXDomain
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
  /// `for`, `for-list`: the routed domains (`ConfigReader+Routes`).
  var routes = OverrideTableBuilder()
  /// `nftset`: the domains whose answers fill sets (`ConfigReader+NftSets`).
  var nftsetNames = OverrideTableBuilder()
  var skippedListLines: [ConfigError] = []
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
  let fileName: [UInt8]
  let readFile: ConfigFileReader?
  /// `block-list`: each list's resolved path and the line naming it.
  var blockLists: [(path: [UInt8], line: Int)] = []
  /// `hosts` and `leases`: each file and the line naming it.
  var localNameFiles: [(path: [UInt8], line: Int)] = []
  /// The DNSSEC directives read so far (DNSSEC/, or the stand-in).
  var trustAnchorReading = TrustAnchorReading()

  init(fileName: [UInt8], readFile: ConfigFileReader?) {
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
      settings.timeoutMilliseconds = UInt32(try ConfigValues.number(value, for: directive))
    case .tcpIdle:
      settings.tcpIdleMilliseconds = UInt32(try ConfigValues.number(value, for: directive))
    case .inflight:
      let count = try ConfigValues.number(value, for: directive)
      guard count & (count - 1) == 0 else {
        var next = 16
        while next < count { next <<= 1 }
        throw LineError(
          "inflight \(count) is not a power of two (try \(next / 2) or \(next))")
      }
      settings.inflight = count
    case .overrideTTL: settings.overrideTTL = UInt32(try ConfigValues.number(value, for: directive))
    case .tcpClients: settings.tcpClients = try ConfigValues.number(value, for: directive)
    case .ednsSize:
      settings.ednsPayloadSize = UInt16(try ConfigValues.number(value, for: directive))
    case .user: settings.user = try ConfigValues.userName(value)
    case .log: settings.logLevel = try ConfigValues.logLevel(value)
    case .logQueries: settings.logQueries = try ConfigValues.onOff(value, for: directive)
    case .caseRandomization:
      settings.caseRandomization = try ConfigValues.onOff(value, for: directive)
    case .cache: settings.cacheEntries = try ConfigValues.number(value, for: directive)
    case .cacheBytes: settings.cacheBytes = try ConfigValues.number(value, for: directive)
    case .minTTL:
      settings.minTTL = UInt32(try ConfigValues.number(value, for: directive))
      try checkTTLOrder(at: directive)
    case .maxTTL:
      settings.maxTTL = UInt32(try ConfigValues.number(value, for: directive))
      try checkTTLOrder(at: directive)
    case .negativeTTLMax:
      settings.negativeTTLMax = UInt32(try ConfigValues.number(value, for: directive))
    case .stale: settings.staleSeconds = UInt32(try ConfigValues.number(value, for: directive))
    case .staleFirst: settings.staleFirst = try ConfigValues.onOff(value, for: directive)
    case .cacheFile: settings.cacheFilePath = try ConfigValues.cacheFilePath(value)
    case .cacheSaveInterval:
      settings.cacheSaveSeconds = UInt32(try ConfigValues.number(value, for: directive))
    case .prefetch: try addPrefetch(value, line: line)
    case .blockList: try addBlockList(value, line: line)
    case .prefetchHits:
      settings.prefetchHits = UInt32(try ConfigValues.number(value, for: directive))
    case .workers: settings.workers = try ConfigValues.number(value, for: directive)
    case .bogus, .bogusNXDomain: try addBogus(value, for: directive, line: line)
    case .detectNXDomainRedirect:
      settings.detectNXDomainRedirect = try ConfigValues.onOff(value, for: directive)
    case .verify: try addVerify(value, line: line)
    case .holdOn:
      settings.holdOnMilliseconds = UInt32(try ConfigValues.number(value, for: directive))
    case .rebindProtection:
      settings.rebindProtection = try ConfigValues.onOff(value, for: directive)
    case .strict: settings.strict = try ConfigValues.onOff(value, for: directive)
    case .rebindAllow: try addRebindAllow(value, line: line)
    case .overrideCheck: settings.overrideCheckPort = try overrideCheckPort(value)
    case .overrideCheckInterval:
      settings.overrideCheckSeconds = UInt32(try ConfigValues.number(value, for: directive))
    case .rateLimit: settings.rateLimitPerSecond = try rateLimit(value)
    case .refuseAny: settings.refuseAny = try ConfigValues.onOff(value, for: directive)
    case .forwardSingleLabel:
      settings.forwardSingleLabel = try ConfigValues.onOff(value, for: directive)
    case .forwardPrivateReverse:
      settings.forwardPrivateReverse = try ConfigValues.onOff(value, for: directive)
    case .filterAAAA: settings.filterAAAA = try ConfigValues.onOff(value, for: directive)
    case .caFile: settings.caFile = try ConfigValues.caFilePath(value)
    case .seccomp: settings.seccomp = try ConfigValues.onOff(value, for: directive)
    case .localNames: settings.localNamesCapacity = try ConfigValues.number(value, for: directive)
    case .hosts, .leases: try addLocalNameFile(value, for: directive, line: line)
    case .domain: try setLocalDomain(value)
    case .nftset: try addNftSet(arguments)
    case .metrics:
      #if DNSWARD_NO_METRICS
        throw LineError("metrics: this firmware was built without them (-DDNSWARD_METRICS=OFF)")
      #else
        settings.metrics = try ConfigValues.metricsEndpoint(value)
      #endif
    case .dnssec, .dnssecRoot, .trustAnchor, .trustAnchorFile:
      try readDNSSECDirective(directive, value: value, arguments: arguments, line: line)
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
    try finishRoutes()
    try finishNftSets()
    try finishTrustAnchors()
    return settings
  }
}
