import CLinux

/// Severity of a log line; the order is the config's `log` levels.
public enum LogSeverity: UInt8, Comparable {
  case error = 0
  case warning = 1
  case info = 2
  case debug = 3
  public static func < (lhs: LogSeverity, rhs: LogSeverity) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
  var label: StaticString {
    switch self {
    case .error: return "error: "
    case .warning: return "warning: "
    case .info: return "info: "
    case .debug: return "debug: "
    }
  }
  /// The syslog priority journald reads from a `<N>` prefix (RFC 5424
  /// §6.2.1 severities: 3 error, 4 warning, 6 informational, 7 debug).
  var journalPrefix: StaticString {
    switch self {
    case .error: return "<3>"
    case .warning: return "<4>"
    case .info: return "<6>"
    case .debug: return "<7>"
    }
  }
}

/// Where log lines go, so that the supervisor files them at their priority.
public enum LogDestination {
  /// Info and debug to standard output, warnings and errors to standard
  /// error: procd logs a service's stdout at `daemon.info` and its stderr
  /// at `daemon.err`; on a terminal both show.
  case split
  /// Everything to standard error, each line prefixed `<N>`: stderr is
  /// systemd's journal (`JOURNAL_STREAM`), which reads the priority there.
  case journal

  /// `.journal` when standard error is the journal stream, else `.split`.
  public static var detected: LogDestination {
    clinux_stderr_is_journal() != 0 ? .journal : .split
  }
}

/// Builds one log line in a buffer allocated once and writes it with a
/// single write(2) to the stream `destination` picks for its severity, so
/// lines from a busy loop never interleave and logging allocates nothing.
/// Text past the buffer is cut.
public final class LogLine {
  public var threshold: LogSeverity
  public let destination: LogDestination
  private let buffer: UnsafeMutableRawBufferPointer
  private var count = 0
  private static let capacity = 1024

  public init(threshold: LogSeverity, destination: LogDestination = .detected) {
    self.threshold = threshold
    self.destination = destination
    buffer = .allocate(byteCount: Self.capacity, alignment: 1)
  }

  deinit { buffer.deallocate() }

  /// Whether a line of this severity would be written: check before
  /// formatting anything costly.
  public func enabled(_ severity: LogSeverity) -> Bool { severity <= threshold }

  @discardableResult
  public func start(_ severity: LogSeverity) -> LogLine {
    count = 0
    if case .journal = destination { append(severity.journalPrefix) }
    append("dnsward: ")
    return append(severity.label)
  }

  @discardableResult
  public func append(_ text: StaticString) -> LogLine {
    append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  @discardableResult
  public func append(_ bytes: UnsafeRawBufferPointer) -> LogLine {
    for byte in bytes where count < Self.capacity - 1 {
      buffer[count] = byte
      count += 1
    }
    return self
  }

  @discardableResult
  public func append(byte: UInt8) -> LogLine {
    if count < Self.capacity - 1 {
      buffer[count] = byte
      count += 1
    }
    return self
  }

  @discardableResult
  public func append(_ bytes: [UInt8]) -> LogLine {
    bytes.withUnsafeBytes { append($0) }
  }

  @discardableResult
  public func append(decimal value: UInt64) -> LogLine {
    var divisor: UInt64 = 1
    while divisor <= value / 10 { divisor *= 10 }
    while divisor > 0 {
      append(byte: UInt8(truncatingIfNeeded: 0x30 + (value / divisor) % 10))
      divisor /= 10
    }
    return self
  }

  @discardableResult
  public func append(decimal value: Int) -> LogLine {
    if value < 0 {
      append(byte: UInt8(ascii: "-"))
      return append(decimal: UInt64(-value))
    }
    return append(decimal: UInt64(value))
  }

  @discardableResult
  public func append(hex value: UInt64, digits: Int) -> LogLine {
    let table: StaticString = "0123456789abcdef"
    var shift = (digits - 1) * 4
    while shift >= 0 {
      append(byte: table.utf8Start[Int((value >> UInt64(shift)) & 0xF)])
      shift -= 4
    }
    return self
  }

  /// `1.2.3.4:53` or `[2001:db8::1]:53`.
  @discardableResult
  public func append(address: SocketAddress) -> LogLine {
    if !address.isIPv4Mapped { append(byte: UInt8(ascii: "[")) }
    append(host: address)
    if !address.isIPv4Mapped { append(byte: UInt8(ascii: "]")) }
    return append(byte: UInt8(ascii: ":")).append(decimal: UInt64(address.port))
  }

  /// The address alone: `1.2.3.4` or `2001:db8::1`.
  @discardableResult
  public func append(host address: SocketAddress) -> LogLine {
    if address.isIPv4Mapped {
      let value = UInt32(truncatingIfNeeded: address.low)
      append(decimal: UInt64(value >> 24)).append(byte: UInt8(ascii: "."))
      append(decimal: UInt64((value >> 16) & 0xFF)).append(byte: UInt8(ascii: "."))
      append(decimal: UInt64((value >> 8) & 0xFF)).append(byte: UInt8(ascii: "."))
      return append(decimal: UInt64(value & 0xFF))
    }
    appendIPv6(high: address.high, low: address.low)
    return self
  }

  /// RFC 5952 text: lower case, longest run of two or more zero groups as `::`.
  private func appendIPv6(high: UInt64, low: UInt64) {
    func group(_ index: Int) -> UInt64 {
      let word = index < 4 ? high : low
      return (word >> UInt64(48 - 16 * (index % 4))) & 0xFFFF
    }
    var bestStart = -1
    var bestLength = 1
    var runStart = -1
    for index in 0..<8 {
      if group(index) == 0 {
        if runStart < 0 { runStart = index }
        if index - runStart + 1 > bestLength {
          bestStart = runStart
          bestLength = index - runStart + 1
        }
      } else {
        runStart = -1
      }
    }
    var index = 0
    while index < 8 {
      if index == bestStart {
        append("::")
        index += bestLength
        continue
      }
      if index > 0 && index != bestStart + bestLength { append(byte: UInt8(ascii: ":")) }
      let value = group(index)
      var digits = 1
      while digits < 4 && value >> UInt64(4 * digits) != 0 { digits += 1 }
      append(hex: value, digits: digits)
      index += 1
    }
  }

  /// Empties the buffer without a prefix, to format text that is not
  /// written to the log (read it with `text`).
  @discardableResult
  public func clear() -> LogLine {
    count = 0
    return self
  }

  /// What was appended since `start` or `clear`; valid until the next call.
  public var text: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[0..<count]) }

  /// Writes the line if its severity passes the threshold.
  public func emit(_ severity: LogSeverity) {
    guard enabled(severity) else { return }
    buffer[count] = 0x0A
    let toStandardError: Bool
    switch destination {
    case .split: toStandardError = severity <= .warning
    case .journal: toStandardError = true
    }
    _ = CLinux.write(toStandardError ? 2 : 1, buffer.baseAddress, count + 1)
    count = 0
  }
}
