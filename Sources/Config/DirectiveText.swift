import DNSWire

/// What the parser and `--help-config` make of the declarations
/// (`Directive.declaration`): spellings, usage text and the reference.
extension Directive {
  /// The spelling in the file.
  var name: DeclaredText { declaration.name }

  /// Whether it may appear on several lines.
  var isRepeatable: Bool { declaration.isRepeatable }

  /// How many arguments follow the directive (`override` takes a name and
  /// one or more addresses; `upstream` options, which `addUpstream` counts).
  var argumentCount: ClosedRange<Int> {
    switch self {
    case .override, .upstream: return 2...Int.max
    case .nftset: return 3...Int.max
    case .trustAnchor: return 1...Int.max
    default: return 1...1
    }
  }

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
    token.elementsEqual(name)
  }

  /// `NAME SYNTAX[, RANGE][, NOTE]`, as messages quote it: e.g.
  /// `hold-on DURATION, 0 (off)...1s, e.g. 30ms`.
  var usage: MessageText {
    let declared = declaration
    var text: MessageText = "\(declared.name) \(declared.syntax)"
    if declared.unit != .none { text.append(", \(declared.rangeText)") }
    if !declared.note.isEmpty { text.append(", \(declared.note)") }
    return text
  }

  /// The usage, then the help indented on the next line with whether the
  /// directive repeats and its default.
  var reference: MessageText {
    let declared = declaration
    var text: MessageText = "\(usage)\n    \(declared.help)"
    if declared.isRepeatable { text.append("; repeatable") }
    if !declared.defaultValue.isEmpty {
      text.append("; default \(declared.defaultValue)")
    }
    text.append("\n")
    return text
  }
}

/// The config language's reference, for `dnsward --help-config`: every
/// directive's usage, help, and default.
public enum ConfigReference {
  public static var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The same as UTF-8 bytes (see `ConfigError` why bytes).
  public static var bytes: [UInt8] {
    var text: MessageText = """
      dnsward.conf: one directive per line; '#' starts a comment.
      DURATION: 300 (seconds), 90s, 5m, 1h or 1d; for
      """
    // The directives whose bare numbers are milliseconds.
    var count = 0
    for directive in Directive.allCases where directive.declaration.unit == .milliseconds {
      text.append(count == 0 ? " " : ", ")
      text.append("\(directive.name)")
      count += 1
    }
    text.append(
      """
      : 1500 (milliseconds), 1500ms or 2s.
      SIZE: 65536 (bytes), 512k or 2m.


      """)
    for directive in Directive.allCases { text.append(directive.reference) }
    return text.bytes
  }
}

extension ConfigReader {
  func unknownDirectiveMessage(_ token: ArraySlice<UInt8>) -> MessageText {
    let lowered = token.map(Name.asciiLowercased)
    var best: (name: DeclaredText, distance: Int)? = nil
    for candidate in Directive.allCases {
      let distance = editDistance(lowered, Array(candidate.name))
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
