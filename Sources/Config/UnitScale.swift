import DNSWire

/// How the numbers of one kind of directive are written: decimal digits and
/// an optional unit suffix (`1500ms`, `5m`, `512k`), matched byte for byte
/// and case-sensitively (`m` is minutes for a duration, MiB for a size). A
/// number without a suffix is in the base unit (the suffix that multiplies
/// by 1, or bytes).
///
/// Only switches over literals and integers: text that is printed
/// or compared byte for byte, never as a `String` (Embedded Swift builds
/// stay free of the Unicode tables), and no array to build on each use.
enum UnitScale {
  /// `timeout`, `tcp-idle`, `hold-on`: milliseconds.
  case milliseconds
  /// The TTL, stale and interval directives: seconds, the unit of a DNS TTL.
  case seconds
  /// `cache-bytes`: bytes, `k` = 1024, `m` = 1048576.
  case bytes
  /// `rate-limit`: queries per second, written with its `/s`.
  case perSecond

  /// `duration`, `size` or `rate`, for messages.
  var kind: LiteralText {
    switch self {
    case .milliseconds, .seconds: return "duration"
    case .bytes: return "size"
    case .perSecond: return "rate"
    }
  }

  /// Examples shown when the token is not a number at all.
  var example: LiteralText {
    switch self {
    case .milliseconds: return "e.g. 1500ms or 2s"
    case .seconds: return "e.g. 300 (seconds), 5m, 1h or 1d"
    case .bytes: return "e.g. 65536, 512k or 2m"
    case .perSecond: return "e.g. 200/s"
    }
  }

  /// Shown for a fraction such as `1.5s`.
  var fractionHint: LiteralText {
    switch self {
    case .milliseconds: return "use whole milliseconds, e.g. 1500ms"
    case .seconds: return "use a whole number, e.g. 90m rather than 1.5h"
    case .bytes: return "use a whole number, e.g. 1536k rather than 1.5m"
    case .perSecond: return "use a whole number"
    }
  }

  /// The suffixes, as listed in "unknown unit" messages.
  var unitList: LiteralText {
    switch self {
    case .milliseconds: return "ms or s"
    case .seconds: return "s, m, h or d"
    case .bytes: return "k or m"
    case .perSecond: return "/s"
    }
  }

  /// The suffix at `index` (0: the largest) and what it multiplies the
  /// number by; nil past the last.
  func unit(_ index: Int) -> (suffix: StaticString, multiplier: Int)? {
    switch (self, index) {
    case (.milliseconds, 0): return ("s", 1000)
    case (.milliseconds, 1): return ("ms", 1)
    case (.seconds, 0): return ("d", 86400)
    case (.seconds, 1): return ("h", 3600)
    case (.seconds, 2): return ("m", 60)
    case (.seconds, 3): return ("s", 1)
    case (.bytes, 0): return ("m", 1 << 20)
    case (.bytes, 1): return ("k", 1 << 10)
    case (.perSecond, 0): return ("/s", 1)
    default: return nil
    }
  }

  /// The multiplier of `suffix`, if it is one of the units.
  func multiplier(of suffix: ArraySlice<UInt8>) -> Int? {
    var index = 0
    while let unit = unit(index) {
      if unit.suffix.withUTF8Buffer({ suffix.elementsEqual($0) }) { return unit.multiplier }
      index += 1
    }
    return nil
  }

  /// `value` written with the largest unit that divides it (`60s`, `1h`,
  /// `16k`); otherwise, and for 0, in the unit that multiplies by 1 (`0ms`,
  /// `0s`), or bare (`1000` bytes).
  func describe(_ value: Int) -> MessageText {
    var index = 0
    while let unit = unit(index) {
      if value % unit.multiplier == 0 && (value > 0 || unit.multiplier == 1) {
        return "\(value / unit.multiplier)\(unit.suffix)"
      }
      index += 1
    }
    return "\(value)"
  }
}
