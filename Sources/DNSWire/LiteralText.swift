/// A string literal kept as its address alone. Swift ends every string
/// literal with a NUL (`StaticString.utf8Start` is documented as
/// NUL-terminated), which marks its end, so a literal must not contain
/// `\0`.
///
/// Why not `StaticString`: that is an address, a length and flags, and a
/// `switch` that returns one of many literals spends code on each of the
/// three in every case. A `switch` that returns only an address becomes a
/// table the compiler indexes (the `Statistic` and `Directive` tables),
/// or two instructions a case. Reading the length costs a scan, done where
/// the text is written out (logs, `--help-config`), never per query.
public struct LiteralText: ExpressibleByStringLiteral {
  public let start: UnsafePointer<UInt8>

  public init(stringLiteral text: StaticString) {
    start = text.utf8Start
  }

  public init(_ text: StaticString) {
    start = text.utf8Start
  }

  /// Its length in bytes, without the NUL.
  public var count: Int {
    var count = 0
    while start[count] != 0 { count += 1 }
    return count
  }

  /// The literal's bytes, without the NUL.
  public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }
}
