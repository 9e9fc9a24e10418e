/// How the numbers of one kind of directive are written: decimal digits and
/// an optional unit suffix (`1500ms`, `5m`, `512k`), matched byte for byte
/// and case-sensitively (`m` is minutes for a duration, MiB for a size).
///
/// The scales are built on use rather than stored in globals, and hold only
/// `StaticString`s: text that is printed or compared byte for byte, never as
/// a `String` (Embedded Swift builds stay free of the Unicode tables).
struct UnitScale {
  /// `duration` or `size`, for messages.
  let kind: StaticString
  /// The suffixes and what each multiplies the number by, smallest first.
  let units: [(suffix: StaticString, multiplier: Int)]
  /// What a number without a suffix is multiplied by.
  let bareMultiplier: Int
  /// Examples shown when the token is not a number at all.
  let example: StaticString
  /// Shown for a fraction such as `1.5s`.
  let fractionHint: StaticString
  /// The suffixes, as listed in "unknown unit" messages.
  let unitList: StaticString

  /// `timeout`, `tcp-idle`: milliseconds; a bare number is milliseconds.
  static var milliseconds: UnitScale {
    UnitScale(
      kind: "duration", units: [("ms", 1), ("s", 1000)], bareMultiplier: 1,
      example: "e.g. 1500ms or 2s", fractionHint: "use whole milliseconds, e.g. 1500ms",
      unitList: "ms or s")
  }

  /// The TTL and stale directives: seconds, the unit of a DNS TTL; a bare
  /// number is seconds.
  static var seconds: UnitScale {
    UnitScale(
      kind: "duration", units: [("s", 1), ("m", 60), ("h", 3600), ("d", 86400)],
      bareMultiplier: 1,
      example: "e.g. 300 (seconds), 5m, 1h or 1d",
      fractionHint: "use a whole number, e.g. 90m rather than 1.5h", unitList: "s, m, h or d")
  }

  /// `cache-bytes`: bytes, `k` = 1024, `m` = 1048576; a bare number is bytes.
  static var bytes: UnitScale {
    UnitScale(
      kind: "size", units: [("k", 1 << 10), ("m", 1 << 20)], bareMultiplier: 1,
      example: "e.g. 65536, 512k or 2m",
      fractionHint: "use a whole number, e.g. 1536k rather than 1.5m", unitList: "k or m")
  }

  /// `rate-limit`: queries per second, always written with its `/s`.
  static var perSecond: UnitScale {
    UnitScale(
      kind: "rate", units: [("/s", 1)], bareMultiplier: 1, example: "e.g. 200/s",
      fractionHint: "use a whole number", unitList: "/s")
  }

  /// The multiplier of `suffix`, if it is one of the units.
  func multiplier(of suffix: ArraySlice<UInt8>) -> Int? {
    for unit in units where unit.suffix.withUTF8Buffer({ suffix.elementsEqual($0) }) {
      return unit.multiplier
    }
    return nil
  }

  /// `value` written with the largest unit that divides it (`60s`, `1h`,
  /// `16k`); otherwise, and for 0, in the unit that multiplies by 1 (`0ms`,
  /// `0s`, `1000`).
  func describe(_ value: Int) -> MessageText {
    var index = units.count - 1
    while index >= 0 {
      let unit = units[index]
      if value % unit.multiplier == 0 && (value > 0 || unit.multiplier == 1) {
        return "\(value / unit.multiplier)\(unit.suffix)"
      }
      index -= 1
    }
    return "\(value)"
  }
}
