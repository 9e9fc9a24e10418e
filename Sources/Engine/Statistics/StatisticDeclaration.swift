import DNSWire

/// One line of the `Statistic` table, `"NAME GROUP [level]"`, read in
/// place from the string literal: nothing is copied or allocated. A host
/// test (StatisticTableTests) checks that every line has this form, that
/// NAME is the case's name and that every GROUP is known; the
/// accessors here may therefore assume it.
public struct StatisticDeclaration: ExpressibleByStringLiteral, Equatable {
  /// Only its address (`LiteralText`): `Statistic.rawValue` becomes a
  /// table of addresses, not code for each case.
  let text: LiteralText

  public init(stringLiteral text: StaticString) {
    self.text = LiteralText(text)
  }

  var bytes: UnsafeRawBufferPointer { text.bytes }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.bytes.elementsEqual(rhs.bytes)
  }

  /// Word `index` (0: NAME, 1: GROUP, 2: `level` or nothing); empty past
  /// the last.
  func word(_ index: Int) -> UnsafeRawBufferPointer {
    let bytes = self.bytes
    var start = 0
    var position = 0
    var word = 0
    while position < bytes.count {
      if bytes[position] == UInt8(ascii: " ") {
        if word == index { break }
        word += 1
        start = position + 1
      }
      position += 1
    }
    return UnsafeRawBufferPointer(rebasing: bytes[(word == index ? start : position)..<position])
  }

  public var name: UnsafeRawBufferPointer { word(0) }

  public var isLevel: Bool { Self.word(word(2), is: "level") }

  public var group: StatisticGroup {
    let text = word(1)
    for group in StatisticGroup.allCases where text.elementsEqual(group.word.bytes) { return group }
    return .clients
  }

  static func word(_ bytes: UnsafeRawBufferPointer, is text: StaticString) -> Bool {
    bytes.elementsEqual(
      UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }
}

/// The lines of the counters log (SIGUSR1 and at exit): each group's
/// statistics on one line, which starts with the group's word.
public enum StatisticGroup: CaseIterable {
  /// What clients asked and how they were answered locally.
  case clients
  case cache
  /// Questions sent upstream and what came back.
  case upstreams
  /// The hijack defences (Sources/README.md, Threat model): each counts one
  /// defence firing.
  case defences
  /// `nftset`: logged only when sets are configured.
  case nftset
  /// DNSSEC validation: logged only with `dnssec on`.
  case dnssec
  /// The sockets' own troubles.
  case transport

  /// Its word in the table and the log.
  public var word: LiteralText {
    switch self {
    case .clients: "clients"
    case .cache: "cache"
    case .upstreams: "upstreams"
    case .defences: "defences"
    case .nftset: "nftset"
    case .dnssec: "dnssec"
    case .transport: "transport"
    }
  }
}
