import CompiledConfig
import DNSWire

/// The names and records of the CHAOS answers (ChaosAnswers.swift): which
/// names are ours, and TXT records of one character-string written without
/// allocating (RFC 1035 §3.3.14).
enum ChaosTXT {
  /// Whether the last label of the flat lower-cased `name` is `bind`,
  /// `server` or `dnsward`.
  static func isChaosZone(_ name: UnsafeRawBufferPointer) -> Bool {
    var position = 0
    var last = -1
    while position < name.count, name[position] != 0 {
      last = position
      position += 1 + Int(name[position])
    }
    guard last >= 0, position < name.count else { return false }
    let label = UnsafeRawBufferPointer(rebasing: name[last..<(position + 1)])
    return flat(label, is: "bind") || flat(label, is: "server") || flat(label, is: "dnsward")
  }

  /// Whether the flat name (wire labels, root-terminated) is exactly the
  /// dotted lower-case `text` (no trailing dot). A label holding a dot never
  /// matches, so `\4hits.bind` is not `hits.bind`.
  static func flat(_ name: UnsafeRawBufferPointer, is text: StaticString) -> Bool {
    let dot = UInt8(ascii: ".")
    let textBytes = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    var position = 0
    var index = 0
    while position < name.count {
      let length = Int(name[position])
      if length == 0 { return position + 1 == name.count && index == textBytes.count && index > 0 }
      if index > 0 {
        guard index < textBytes.count, textBytes[index] == dot else { return false }
        index += 1
      }
      guard position + 1 + length <= name.count, index + length <= textBytes.count else {
        return false
      }
      for offset in 0..<length {
        let byte = name[position + 1 + offset]
        guard byte != dot, byte == textBytes[index + offset] else { return false }
      }
      position += 1 + length
      index += length
    }
    return false
  }

  // MARK: - TXT records

  /// Owner, TYPE TXT, CLASS CH, TTL 0 and RDLENGTH of a record holding one
  /// character-string of `stringLength` bytes (RFC 1035 §3.3.14), and that
  /// string's length byte. The owner points at the question name.
  static func writeTXTPrefix(_ writer: inout MessageWriter, stringLength: Int) throws(WireError) {
    guard stringLength <= 255 else { throw .bufferFull }
    try writer.writeUInt16(0xC000 | UInt16(HeaderField.size))
    try writer.writeUInt16(RRType.txt.rawValue)
    try writer.writeUInt16(RRClass.chaos.rawValue)
    try writer.writeUInt32(0)
    try writer.writeUInt16(UInt16(1 + stringLength))
    try writer.writeUInt8(UInt8(stringLength))
  }

  static func writeTXT(_ writer: inout MessageWriter, value: UInt64) throws(WireError) {
    try writeTXTPrefix(&writer, stringLength: decimalLength(value))
    try writeDecimal(&writer, value)
  }

  static func writeTXT(_ writer: inout MessageWriter, text: StaticString) throws(WireError) {
    try writeTXTPrefix(&writer, stringLength: text.utf8CodeUnitCount)
    try writer.write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// `Release`'s description as one character-string.
  static func writeReleaseTXT(_ writer: inout MessageWriter) throws(WireError) {
    try withUnsafeTemporaryAllocation(byteCount: Release.descriptionCapacity, alignment: 1) {
      buffer throws(WireError) in
      let length = Release.copyDescription(into: buffer)
      try writeTXTPrefix(&writer, stringLength: length)
      try writer.write(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
    }
  }

  /// `key=value`. Not inlined: a copy in each writer of a statistic costs
  /// 400 bytes of aarch64 firmware.
  @inline(never)
  static func writeTXT(_ writer: inout MessageWriter, key: UnsafeRawBufferPointer, value: UInt64)
    throws(WireError)
  {
    try writeTXTPrefix(&writer, stringLength: key.count + 1 + decimalLength(value))
    try writer.write(key)
    try writer.writeUInt8(UInt8(ascii: "="))
    try writeDecimal(&writer, value)
  }

  /// `upstreamN.key=value`.
  static func writeTXT(
    _ writer: inout MessageWriter, upstream: Int, key: StaticString, value: UInt64
  ) throws(WireError) {
    let prefix: StaticString = "upstream"
    let index = UInt64(upstream)
    try writeTXTPrefix(
      &writer,
      stringLength: prefix.utf8CodeUnitCount + decimalLength(index) + 1 + key.utf8CodeUnitCount
        + 1 + decimalLength(value))
    try writer.write(
      UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    try writeDecimal(&writer, index)
    try writer.writeUInt8(UInt8(ascii: "."))
    try writer.write(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    try writer.writeUInt8(UInt8(ascii: "="))
    try writeDecimal(&writer, value)
  }

  /// Digits in the decimal form of `value` (1 for 0).
  static func decimalLength(_ value: UInt64) -> Int {
    var digits = 1
    var rest = value / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    return digits
  }

  /// `value` in decimal ASCII, most significant digit first.
  static func writeDecimal(_ writer: inout MessageWriter, _ value: UInt64) throws(WireError) {
    let digits = decimalLength(value)
    let start = writer.count
    for _ in 0..<digits { try writer.writeUInt8(0) }
    var rest = value
    var position = start + digits - 1
    while position >= start {
      writer.buffer[position] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
      position -= 1
    }
  }
}

/// What a CHAOS question in our zones is answered with. (Payloads keep
/// the compiler from deriving Hashable, whose per-process seed would pull
/// `arc4random_buf` into the Embedded build.)
enum ChaosAnswer {
  /// One TXT string: a number in decimal.
  case number(UInt64)
  case text(StaticString)
  /// `Release`'s description: version, date, target and features.
  case release
  /// `stats.dnsward.`: one RR per statistic.
  case statistics

  /// The answer for a lower-cased flat name in our zones, nil if we have none.
  init?(_ name: UnsafeRawBufferPointer, statistics: Statistics, cacheCapacity: Int) {
    if ChaosTXT.flat(name, is: "hits.bind") {
      self = .number(statistics[.cacheHits])
    } else if ChaosTXT.flat(name, is: "misses.bind") {
      self = .number(statistics[.cacheMisses])
    } else if ChaosTXT.flat(name, is: "cachesize.bind") {
      self = .number(UInt64(cacheCapacity))
    } else if ChaosTXT.flat(name, is: "insertions.bind") {
      self = .number(statistics[.cacheInserts])
    } else if ChaosTXT.flat(name, is: "version.bind") || ChaosTXT.flat(name, is: "version.server") {
      self = .release
    } else if ChaosTXT.flat(name, is: "stats.dnsward") {
      self = .statistics
    } else {
      return nil
    }
  }
}
