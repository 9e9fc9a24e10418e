/// Text forms of IP addresses, parsed from bytes without the C library (no
/// `inet_pton`) and without String, so the firmware can read resolv.conf and
/// the config compiler can explain what is wrong with the same parser.
///
/// - IPv4: exactly four decimal octets 0...255. A leading zero (`010`) is
///   rejected: `inet_aton` reads it as octal, so its meaning is ambiguous.
/// - IPv6: RFC 4291 §2.2 — eight groups of 1...4 hex digits, `::` at most once
///   for one or more zero groups, an optional dotted IPv4 address as the last
///   32 bits. Zone indices (`%eth0`) are not supported.
public enum AddressText {
  /// IPv4 if the text has no colon, IPv6 otherwise.
  public static func parse(_ text: ArraySlice<UInt8>) throws(AddressTextError) -> IPAddress {
    text.contains(colon) ? try parseIPv6(text) : IPAddress(ipv4: try parseIPv4(text))
  }

  /// Four dotted decimal octets.
  public static func parseIPv4(_ text: ArraySlice<UInt8>) throws(AddressTextError) -> UInt32 {
    func failure(_ reason: AddressTextError.Reason, _ part: ArraySlice<UInt8>? = nil)
      -> AddressTextError
    {
      AddressTextError(
        reason: reason, family: .ipv4, address: text.indices,
        part: (part ?? text).indices)
    }
    guard !text.isEmpty else { throw failure(.empty) }
    if let first = text.first, (first | 0x20) &- 0x61 < 26 { throw failure(.hostName) }
    let octets = text.split(separator: dot, omittingEmptySubsequences: false)
    guard octets.count == 4 else { throw failure(.octetCount(octets.count)) }
    var value: UInt32 = 0
    for octet in octets {
      guard !octet.isEmpty else { throw failure(.emptyOctet, octet) }
      if let bad = octet.first(where: { !isDigit($0) }) {
        throw failure(.unexpectedCharacter(bad), octet)
      }
      guard octet.count == 1 || octet.first != UInt8(ascii: "0") else {
        throw failure(.leadingZero, octet)
      }
      guard octet.count <= 3, let number = decimal(octet), number <= 255 else {
        throw failure(.octetOutOfRange, octet)
      }
      value = value << 8 | UInt32(number)
    }
    return value
  }

  /// RFC 4291 §2.2 text forms.
  public static func parseIPv6(_ text: ArraySlice<UInt8>) throws(AddressTextError) -> IPAddress {
    func failure(_ reason: AddressTextError.Reason, _ part: ArraySlice<UInt8>? = nil)
      -> AddressTextError
    {
      AddressTextError(
        reason: reason, family: .ipv6, address: text.indices, part: (part ?? text).indices)
    }
    if text.contains(UInt8(ascii: "%")) { throw failure(.zoneIndex) }
    if firstRun(text, of: colon, length: 3) != nil { throw failure(.tripleColon) }
    // Groups before and after the one `::`, if any.
    var head = text
    var tail: ArraySlice<UInt8>? = nil
    if let gap = firstRun(text, of: colon, length: 2) {
      head = text[text.startIndex..<gap]
      let after = text[(gap + 2)...]
      if firstRun(after, of: colon, length: 2) != nil { throw failure(.secondGap) }
      tail = after
    }
    let headGroups =
      head.isEmpty && tail != nil
      ? [] : head.split(separator: colon, omittingEmptySubsequences: false)
    let tailGroups =
      tail.map { $0.isEmpty ? [] : $0.split(separator: colon, omittingEmptySubsequences: false) }
      ?? []

    // An embedded IPv4 address is the last 32 bits (RFC 4291 §2.2 item 3), so
    // it can be in the head only when there is no `::` after it.
    func words(_ groups: [ArraySlice<UInt8>], holdsLast: Bool) throws(AddressTextError)
      -> [UInt16]
    {
      var result: [UInt16] = []
      for (index, group) in groups.enumerated() {
        guard !group.isEmpty else { throw failure(.emptyGroup) }
        if group.contains(dot) {
          guard holdsLast, index == groups.count - 1 else { throw failure(.ipv4NotLast) }
          let ipv4 = try parseIPv4(group)
          result.append(UInt16(truncatingIfNeeded: ipv4 >> 16))
          result.append(UInt16(truncatingIfNeeded: ipv4))
          continue
        }
        guard group.count <= 4 else { throw failure(.groupTooLong, group) }
        var word: UInt16 = 0
        for byte in group {
          guard let digit = hexValue(byte) else { throw failure(.unexpectedCharacter(byte)) }
          word = word << 4 | UInt16(digit)
        }
        result.append(word)
      }
      return result
    }

    let headWords = try words(headGroups, holdsLast: tail == nil)
    let tailWords = try words(tailGroups, holdsLast: true)
    var all: [UInt16]
    if tail != nil {
      // `::` stands for one or more zero groups (RFC 4291 §2.2 item 2).
      guard headWords.count + tailWords.count <= 7 else { throw failure(.tooManyGroupsForGap) }
      all = headWords
      for _ in 0..<(8 - headWords.count - tailWords.count) { all.append(0) }
      all.append(contentsOf: tailWords)
    } else {
      guard headWords.count == 8 else { throw failure(.groupCount(headWords.count)) }
      all = headWords
    }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for index in 0..<4 {
      high = high << 16 | UInt64(all[index])
      low = low << 16 | UInt64(all[index + 4])
    }
    return IPAddress(high: high, low: low)
  }

  static let colon = UInt8(ascii: ":")
  static let dot = UInt8(ascii: ".")

  public static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    if isDigit(byte) { return byte - 0x30 }
    let lower = byte | 0x20
    return lower &- 0x61 < 6 ? lower - 0x61 + 10 : nil
  }

  /// The value of a run of decimal digits, or nil past 9 digits (no overflow).
  public static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
    guard !digits.isEmpty, digits.count <= 9 else { return nil }
    var value = 0
    for byte in digits {
      guard isDigit(byte) else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }

  /// Where `length` copies of `byte` first stand in a row, if anywhere.
  static func firstRun(_ text: ArraySlice<UInt8>, of byte: UInt8, length: Int) -> Int? {
    var run = 0
    for index in text.indices {
      run = text[index] == byte ? run + 1 : 0
      if run == length { return index - length + 1 }
    }
    return nil
  }
}

/// Why a text is not an IP address, with where: the config compiler turns it
/// into a message, the firmware just skips the line.
public struct AddressTextError: Error, Equatable {
  public enum Reason: Equatable {
    /// Nothing where an address was expected.
    case empty
    /// Starts with a letter: a host name (names are never resolved).
    case hostName
    case octetCount(Int)
    case emptyOctet
    case unexpectedCharacter(UInt8)
    /// `010`: octal to inet_aton, decimal to others.
    case leadingZero
    case octetOutOfRange
    case zoneIndex
    case tripleColon
    /// `::` twice.
    case secondGap
    /// A lone `:` at the start or the end.
    case emptyGroup
    case ipv4NotLast
    case groupTooLong
    case tooManyGroupsForGap
    case groupCount(Int)
  }
  public enum Family: Equatable { case ipv4, ipv6 }

  public var reason: Reason
  /// The address the reason is about: IPv4 reasons inside an IPv6 address
  /// name the embedded IPv4 part.
  public var family: Family
  /// Indices of that address in the text given to the parser.
  public var address: Range<Int>
  /// Indices of the octet or group at fault (the whole address otherwise).
  public var part: Range<Int>
}

extension IPAddress {
  /// The address written in `text`, or nil if it is not one.
  public init?(text: UnsafeRawBufferPointer) {
    let bytes = Array(text)
    guard let address = try? AddressText.parse(bytes[...]) else { return nil }
    self = address
  }
}

/// resolv.conf(5): the `nameserver ADDRESS` lines, in order. Other lines,
/// comments (`#`, `;`) and addresses with a zone (`fe80::1%eth0`) are skipped.
public enum ResolvConf {
  public static func nameservers(in text: UnsafeRawBufferPointer) -> [IPAddress] {
    var result: [IPAddress] = []
    var lineStart = 0
    while lineStart < text.count {
      var lineEnd = lineStart
      while lineEnd < text.count, text[lineEnd] != 0x0A { lineEnd += 1 }
      let line = UnsafeRawBufferPointer(rebasing: text[lineStart..<lineEnd])
      if let address = nameserver(in: line) { result.append(address) }
      lineStart = lineEnd + 1
    }
    return result
  }

  static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D
  }

  static func nameserver(in line: UnsafeRawBufferPointer) -> IPAddress? {
    let keyword: StaticString = "nameserver"
    var index = 0
    while index < line.count, isBlank(line[index]) { index += 1 }
    let keywordLength = keyword.utf8CodeUnitCount
    guard index + keywordLength < line.count else { return nil }
    for offset in 0..<keywordLength where line[index + offset] != keyword.utf8Start[offset] {
      return nil
    }
    index += keywordLength
    guard isBlank(line[index]) else { return nil }
    while index < line.count, isBlank(line[index]) { index += 1 }
    var end = index
    while end < line.count, !isBlank(line[end]), line[end] != UInt8(ascii: "#"),
      line[end] != UInt8(ascii: ";")
    {
      end += 1
    }
    return IPAddress(text: UnsafeRawBufferPointer(rebasing: line[index..<end]))
  }
}
