import DNSWire

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

/// One directive's declaration: its text, and the flags and range that
/// the parser checks. The text is one string literal of lines:
///
/// - first, `NAME SYNTAX`: the spelling in the file and the arguments after
///   it (`timeout DURATION`, `override NAME ADDRESS...`);
/// - last, one line of help for `--help-config`;
/// - between them, optionally, the rest of the usage text (examples, other
///   forms) and `default VALUE`: the argument that gives what a config
///   without the directive gets (`Settings()`), where an argument can say
///   it; otherwise (a list that is empty, a path that is unset) the help
///   does.
///
/// Only a literal's address, integers and flags, built by a `switch`: it
/// compiles the same in Embedded Swift, where the firmware's config
/// language reads it too, and one literal per directive keeps the code
/// that builds it small.
struct DirectiveDeclaration {
  /// Only its address (`LiteralText`): the table is smaller so.
  let text: LiteralText
  /// May appear on several lines; the others at most once.
  let isRepeatable: Bool
  /// The values the argument may take, in `unit`'s base unit (ms, s, bytes);
  /// meaningless when `unit` is `.none`.
  let range: ClosedRange<Int>
  let unit: ArgumentUnit
  /// 0 turns the feature off (the usage says `0 (off)`).
  let zeroIsOff: Bool

  init(
    _ text: StaticString, repeatable: Bool = false, range: ClosedRange<Int> = 0...0,
    unit: ArgumentUnit = .none, zeroIsOff: Bool = false
  ) {
    self.text = LiteralText(text)
    self.isRepeatable = repeatable
    self.range = range
    self.unit = unit
    self.zeroIsOff = zeroIsOff
  }
}

/// Bytes of a declaration's text: a static literal, valid for the
/// program's lifetime.
typealias DeclaredText = UnsafeBufferPointer<UInt8>

/// The fields of the text (see `DirectiveDeclaration` for its lines).
extension DirectiveDeclaration {
  var bytes: DeclaredText { DeclaredText(start: text.start, count: text.count) }

  /// The first line: `NAME SYNTAX`.
  var head: DeclaredText {
    let all = bytes
    return DeclaredText(rebasing: all[..<(all.firstIndex(of: newline) ?? all.endIndex)])
  }

  /// The spelling in the file.
  var name: DeclaredText { DeclaredText(rebasing: head.prefix { $0 != UInt8(ascii: " ") }) }

  /// The arguments after the name.
  var syntax: DeclaredText { DeclaredText(rebasing: head.dropFirst(name.count + 1)) }

  /// The last line.
  var help: DeclaredText {
    let all = bytes
    return DeclaredText(rebasing: all[((all.lastIndex(of: newline) ?? -1) + 1)...])
  }

  /// The rest of the usage text, or nothing.
  var note: DeclaredText { middleLine(isDefault: false) }

  /// The default, as an argument, or nothing.
  var defaultValue: DeclaredText { middleLine(isDefault: true) }

  /// The line between the first and the last that is (or is not) the
  /// `default VALUE` line, without its `default `.
  func middleLine(isDefault: Bool) -> DeclaredText {
    let all = bytes
    guard var start = all.firstIndex(of: newline), let end = all.lastIndex(of: newline) else {
      return DeclaredText(start: nil, count: 0)
    }
    let label: StaticString = "default "
    while start < end {
      let line = all[(start + 1)..<(all[(start + 1)...].firstIndex(of: newline) ?? end)]
      let isDefaultLine = label.withUTF8Buffer { line.starts(with: $0) }
      if isDefaultLine == isDefault {
        return DeclaredText(rebasing: line.dropFirst(isDefault ? label.utf8CodeUnitCount : 0))
      }
      start = line.endIndex
    }
    return DeclaredText(start: nil, count: 0)
  }

  /// `LOWER...UPPER` as the unit writes them, the lower one as `0 (off)`
  /// when 0 switches the feature off.
  var rangeText: MessageText {
    let scale = unit.scale
    var text: MessageText =
      zeroIsOff && range.lowerBound == 0
      ? "0 (off)" : scale?.describe(range.lowerBound) ?? "\(range.lowerBound)"
    text.append("...\(scale?.describe(range.upperBound) ?? "\(range.upperBound)")")
    return text
  }

  var newline: UInt8 { UInt8(ascii: "\n") }
}

extension ArgumentUnit {
  /// How numbers of this unit are written; nil for a plain count and for
  /// an argument that is not a number.
  var scale: UnitScale? {
    switch self {
    case .none, .count: return nil
    case .milliseconds: return .milliseconds
    case .seconds: return .seconds
    case .bytes: return .bytes
    case .perSecond: return .perSecond
    }
  }
}
