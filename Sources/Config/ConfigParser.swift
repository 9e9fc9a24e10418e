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
  public static func parse(_ text: String, fileName: String) throws(ConfigError) -> Settings {
    let bytes = Array(text.utf8)
    var reader = ConfigReader()
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
          throw ConfigError(file: fileName, line: lineNumber, message: error.message)
        }
      }
      lineStart = lineEnd + 1
    }
    do throws(LineError) {
      return try reader.finish()
    } catch {
      throw ConfigError(file: fileName, line: 0, message: error.message)
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

/// The directives, spelled as in the file.
enum Directive: String, CaseIterable {
  case listen, allow, upstream, timeout, inflight, override, block
  case overrideTTL = "override-ttl"
  case user, log
  case tcpClients = "tcp-clients"
  case tcpIdle = "tcp-idle"
  case ednsSize = "edns-size"
  case caseRandomization = "case-randomization"

  /// The directives that may appear on several lines; the others at most once.
  var isRepeatable: Bool {
    switch self {
    case .listen, .allow, .upstream, .override, .block: return true
    default: return false
    }
  }

  /// How many arguments follow the directive (`override` takes a name and
  /// one or more addresses).
  var argumentCount: ClosedRange<Int> {
    switch self {
    case .upstream: return 2...2
    case .override: return 2...Int.max
    default: return 1...1
    }
  }

  var usage: String {
    switch self {
    case .listen: return "listen ADDRESS[:PORT], IPv6 as [ADDRESS]:PORT"
    case .allow: return "allow ADDRESS[/LENGTH]"
    case .upstream: return "upstream udp|tcp ADDRESS[:PORT] or upstream resolv-conf PATH"
    case .timeout: return "timeout DURATION, e.g. 1500ms or 2s"
    case .inflight: return "inflight COUNT, a power of two 16...65536"
    case .override: return "override NAME ADDRESS..."
    case .block: return "block NAME"
    case .overrideTTL: return "override-ttl SECONDS"
    case .user: return "user NAME"
    case .log: return "log error|warning|info|debug"
    case .tcpClients: return "tcp-clients COUNT"
    case .tcpIdle: return "tcp-idle DURATION, e.g. 10s"
    case .ednsSize: return "edns-size BYTES"
    case .caseRandomization: return "case-randomization on|off"
    }
  }
}

/// The lines on which a name was overridden or blocked (0: not yet), to
/// report duplicates and conflicts with the line of the first one.
struct NameLines {
  var exact = 0
  var wildcard = 0
  var block = 0
}

/// The state of one parse: what has been read so far.
struct ConfigReader {
  var settings = Settings()
  var overrides = OverrideTableBuilder()
  var firstLine: [Directive: Int] = [:]
  var listenLines: [Int] = []
  var allowLines: [Int] = []
  var upstreamLines: [Int] = []
  var resolvConfLine = 0
  var nameLines: [[UInt8]: NameLines] = [:]

  mutating func apply(_ tokens: [ArraySlice<UInt8>], line: Int) throws(LineError) {
    let directiveText = String(decoding: tokens[0], as: UTF8.self)
    guard let directive = Directive(rawValue: directiveText) else {
      throw LineError(unknownDirectiveMessage(tokens[0]))
    }
    let arguments = Array(tokens.dropFirst())
    if arguments.count < directive.argumentCount.lowerBound {
      throw LineError("missing argument to '\(directive.rawValue)' (usage: \(directive.usage))")
    }
    if arguments.count > directive.argumentCount.upperBound {
      let extra = arguments[directive.argumentCount.upperBound]
      throw LineError(
        "extra argument \(quoted(extra)) to '\(directive.rawValue)' (usage: \(directive.usage))")
    }
    if !directive.isRepeatable {
      if let first = firstLine[directive] {
        throw LineError("duplicate '\(directive.rawValue)' directive (first on line \(first))")
      }
      firstLine[directive] = line
    }
    switch directive {
    case .listen: try addListen(arguments[0], line: line)
    case .allow: try addAllow(arguments[0], line: line)
    case .upstream: try addUpstream(arguments[0], arguments[1], line: line)
    case .override: try addOverride(arguments[0], arguments[1...], line: line)
    case .block: try addBlock(arguments[0], line: line)
    case .timeout:
      settings.timeoutMilliseconds = try duration(
        arguments[0], for: directive, range: 50...60_000)
    case .tcpIdle:
      settings.tcpIdleMilliseconds = try duration(
        arguments[0], for: directive, range: 1_000...3_600_000)
    case .inflight:
      let count = try number(arguments[0], for: directive, range: 16...65_536)
      guard count & (count - 1) == 0 else {
        var next = 16
        while next < count { next <<= 1 }
        throw LineError(
          "inflight \(count) is not a power of two (try \(next / 2) or \(next))")
      }
      settings.inflight = count
    case .overrideTTL:
      // One week: RFC 8767 §5 caps stale serving at 7 days for the same reason.
      settings.overrideTTL = UInt32(try number(arguments[0], for: directive, range: 0...604_800))
    case .tcpClients:
      settings.tcpClients = try number(arguments[0], for: directive, range: 1...4096)
    case .ednsSize:
      // RFC 6891 §6.2.5: values below 512 are treated as 512.
      settings.ednsPayloadSize = UInt16(
        try number(arguments[0], for: directive, range: 512...4096))
    case .user: settings.user = try userName(arguments[0])
    case .log: settings.logLevel = try logLevel(arguments[0])
    case .caseRandomization: settings.caseRandomization = try onOff(arguments[0], for: directive)
    }
  }

  mutating func finish() throws(LineError) -> Settings {
    guard !settings.listen.isEmpty else {
      throw LineError(
        "no 'listen' directive: dnsward needs at least one address to serve, "
          + "e.g. listen 127.0.0.1:53")
    }
    settings.overrides = overrides.build()
    return settings
  }

  func unknownDirectiveMessage(_ token: ArraySlice<UInt8>) -> String {
    let lowered = String(decoding: token.map(Name.asciiLowercased), as: UTF8.self)
    var best: (name: String, distance: Int)? = nil
    for candidate in Directive.allCases {
      let distance = editDistance(Array(lowered.utf8), Array(candidate.rawValue.utf8))
      if distance <= 2, distance < best?.distance ?? Int.max {
        best = (candidate.rawValue, distance)
      }
    }
    let hint = best.map { " (did you mean '\($0.name)'?)" } ?? ""
    return "unknown directive \(quoted(token))\(hint)"
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
