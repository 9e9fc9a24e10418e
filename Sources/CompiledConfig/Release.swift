/// What this binary is: the one declaration of dnsward's version and release
/// date, and the target and features it was compiled for. `dnsward
/// --version` prints `description`; `version.bind` and `version.server`
/// (CHAOS TXT) answer it.
public enum Release {
  /// Board/packaging reads the version and date lines below for the
  /// packages' Version field and SOURCE_DATE_EPOCH: keep their form.
  public static let version: StaticString = "0.16.0"
  /// The release date (UTC), YYYY-MM-DD. It is also the earliest time the
  /// wall clock can truly show while this binary runs: a board without a
  /// real-time clock boots in the past, and until NTP has run, a clock
  /// earlier than this is known to be wrong (`clockIsKnownWrong`).
  public static let date: StaticString = "2026-12-02"

  /// The CPU, the OS and the C library, as in a target triple.
  #if arch(arm64)
    static let architecture: StaticString = "aarch64"
  #elseif arch(arm)
    static let architecture: StaticString = "armv7"
  #elseif arch(x86_64)
    static let architecture: StaticString = "x86_64"
  #else
    static let architecture: StaticString = "unknown"
  #endif
  #if DNSWARD_LIBC_MUSL
    static let system: StaticString = "-linux-musl"
  #else
    static let system: StaticString = "-linux-gnu"
  #endif
  #if $Embedded
    static let compiler: StaticString = "Embedded Swift"
  #else
    static let compiler: StaticString = "Swift"
  #endif
  #if DNSWARD_NO_DNSSEC
    static let validationFeatures: StaticString = "no DNSSEC"
  #else
    static let validationFeatures: StaticString = "DNSSEC"
  #endif
  #if TLS
    static let transportFeatures: StaticString = "TLS (DoT, DoH)"
  #else
    static let transportFeatures: StaticString = "no TLS"
  #endif
  #if DNSWARD_NO_METRICS
    static let metricsFeatures: StaticString = "no metrics"
  #else
    static let metricsFeatures: StaticString = "metrics"
  #endif
  #if DNSWARD_COMPILED_CONFIG_ONLY
    static let configFeatures: StaticString = "compiled-in config only"
  #else
    static let configFeatures: StaticString = "runtime config"
  #endif

  /// How many parts `descriptionPart` has.
  public static let descriptionPartCount = 17

  /// Part `index` (0..<descriptionPartCount) of `dnsward 0.16.0 (2026-12-02;
  /// aarch64-linux-musl, Embedded Swift; DNSSEC, TLS (DoT, DoH), no metrics,
  /// runtime config)`: each feature a firmware build can leave out is named,
  /// present or `no ...`, so that the binary on a router says what it can do:
  /// written out one after another, without building a string (the
  /// firmware has no `String` machinery, and `version.bind` must not
  /// allocate).
  public static func descriptionPart(_ index: Int) -> StaticString {
    switch index {
    case 0: return "dnsward "
    case 1: return version
    case 2: return " ("
    case 3: return date
    case 4: return "; "
    case 5: return architecture
    case 6: return system
    case 7: return ", "
    case 8: return compiler
    case 9: return "; "
    case 10: return validationFeatures
    case 11: return ", "
    case 12: return transportFeatures
    case 13: return ", "
    case 14: return metricsFeatures
    case 15: return ", "
    default: return configFeatures
    }
  }

  /// Room for the whole description: it is one TXT character-string.
  public static let descriptionCapacity = 255

  /// Copies the description, closing parenthesis included, into `buffer`
  /// (cut at its end) and returns its length.
  @inline(never)
  public static func copyDescription(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    var count = 0
    for index in 0...descriptionPartCount {
      let part: StaticString = index < descriptionPartCount ? descriptionPart(index) : ")"
      let length = min(part.utf8CodeUnitCount, buffer.count - count)
      guard length > 0, let base = buffer.baseAddress else { continue }
      (base + count).copyMemory(from: part.utf8Start, byteCount: length)
      count += length
    }
    return count
  }

  /// `date` as seconds since 1970-01-01 UTC (its midnight).
  public static var dateEpochSeconds: Int64 {
    date.withUTF8Buffer { text in
      func number(_ range: Range<Int>) -> Int64 {
        var value: Int64 = 0
        for index in range { value = value * 10 + Int64(text[index] &- UInt8(ascii: "0")) }
        return value
      }
      return epochSeconds(year: number(0..<4), month: number(5..<7), day: number(8..<10))
    }
  }

  /// Whether `wallClockSeconds` (since 1970, UTC) is earlier than the
  /// release date: then the clock has not been set yet (no real-time clock,
  /// NTP not run), and dates checked against it (certificate validity,
  /// signature inception and expiry) would be wrongly refused.
  public static func clockIsKnownWrong(wallClockSeconds: Int64) -> Bool {
    wallClockSeconds < dateEpochSeconds
  }

  /// Seconds since 1970-01-01 at midnight UTC of a proleptic Gregorian date:
  /// days counted in 400-year eras of 146,097 days, years starting in March
  /// so that the leap day ends a year.
  static func epochSeconds(year: Int64, month: Int64, day: Int64) -> Int64 {
    let marchYear = month <= 2 ? year - 1 : year
    let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
    let yearOfEra = marchYear - era * 400  // 0...399
    let monthFromMarch = month > 2 ? month - 3 : month + 9  // 0...11
    let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1  // 0...365
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    // 719,468 days from 0000-03-01 to 1970-01-01.
    let days = era * 146_097 + dayOfEra - 719_468
    return days * 86_400
  }
}
