import CompiledConfig
import DNSWire

extension HTTPDNSCodec {
  /// The HTTP/1.1 request (RFC 9112 §3) for the one question of the DNS
  /// `query` (as the engine sent it upstream), for `format`:
  ///
  /// - alibaba: `GET /{account}/d?host={name}[&query=6]`, or signed when a
  ///   secret is set: `GET /{account}/sign_d?host={name}&t={t}&s={s}[&query=6]`
  ///   with `t` = `unixTime` + `signatureValidity` and `s` the lower-case hex
  ///   MD5 of `{name}-{secret}-{t}`;
  /// - dnspod: `GET /d?dn={name}&ttl=1[&type=AAAA]`;
  /// - json: `GET {path}?name={name}&type={numeric type}` (`&name=` when the
  ///   path has a query already);
  /// - dnsMessage (RFC 8484 §4.1): `POST {path}` of the query itself as
  ///   `application/dns-message`, its ID set to 0 so that equal questions
  ///   make equal requests (§4.1: cache-friendly); `Accept` asks for the
  ///   same type.
  ///
  /// `{name}` is the question name in presentation form, lower-cased, without
  /// the final dot (`.` for the root), percent-encoded (RFC 3986 §2.1) except
  /// for letters, digits, `-`, `.` and `_`. `host` is the Host field as
  /// written (`203.107.1.1`, `[2001:db8::1]:8080`, or the TLS name for DoH).
  /// `path` is the config's `path=`, written as it is (the config checked
  /// its characters); empty for the format's usual one (`/resolve`,
  /// `/dns-query`). Keep-alive is HTTP/1.1's default, so no Connection
  /// field is sent. Returns the length.
  ///
  /// Size: the head of a dnsMessage request is 119 bytes plus the path and
  /// the host, so a 640-byte query (RFC 8467 padding to 128-byte blocks)
  /// with a path and host of 265 bytes together fits 1 KiB.
  public static func writeRequest(
    for query: UnsafeRawBufferPointer, format: HTTPDNSFormat, host: UnsafeRawBufferPointer,
    account: [UInt8], secret: [UInt8], path: [UInt8] = [], unixTime: UInt64,
    into output: UnsafeMutableRawBufferPointer
  ) throws(HTTPDNSError) -> Int {
    let message = try question(of: query, format: format)
    if format == .dnsMessage {
      var text = TextWriter(buffer: output)
      try text.append("POST ")
      try text.appendPath(path, orDefault: "/dns-query")
      try text.append(" HTTP/1.1\r\nHost: ")
      try text.append(host)
      try text.append("\r\nContent-Type: application/dns-message\r\n")
      try text.append("Accept: application/dns-message\r\nContent-Length: ")
      try text.appendDecimal(UInt64(query.count))
      try text.append("\r\n\r\n")
      let body = text.count
      try text.appendBulk(query)
      output.setUInt16(0, at: body + HeaderField.id)
      return text.count
    }
    let type = message.questionType
    return try withUnsafeTemporaryAllocation(byteCount: Name.maxLength, alignment: 1) {
      (buffer: UnsafeMutableRawBufferPointer) throws(HTTPDNSError) -> Int in
      let name = UnsafeRawBufferPointer(
        rebasing: buffer[0..<message.copyQuestionName(into: buffer, lowercase: true)])
      // A label holding a `.` has no text form these APIs read.
      var position = 0
      while position < name.count, name[position] != 0 {
        let label = (position + 1)..<(position + 1 + Int(name[position]))
        guard HTTPText.find(UInt8(ascii: "."), in: name, label) == nil else {
          throw .unsupportedQuestion
        }
        position = label.upperBound
      }
      guard format == .json || name.count > 1 else { throw .unsupportedQuestion }

      var text = TextWriter(buffer: output)
      try text.append("GET ")
      switch format {
      case .alibaba:
        try text.append(UInt8(ascii: "/"))
        for byte in account { try text.appendEncoded(byte) }
        if secret.isEmpty {
          try text.append("/d?host=")
          try text.appendName(name)
        } else {
          let expiry = unixTime &+ signatureValidity
          try text.append("/sign_d?host=")
          try text.appendName(name)
          try text.append("&t=")
          try text.appendDecimal(expiry)
          try text.append("&s=")
          var md5 = MD5()
          md5.updateName(name)
          md5.update(UInt8(ascii: "-"))
          secret.withUnsafeBytes { md5.update($0) }
          md5.update(UInt8(ascii: "-"))
          var digits = DecimalDigits(expiry)
          digits.withUnsafeBytes { (raw) in md5.update(raw) }
          let digest = md5.finalize()
          for index in 0..<16 { try text.appendHex(digest[index]) }
        }
        if type == .aaaa { try text.append("&query=6") }
        try text.append(" HTTP/1.1\r\nAccept: application/json\r\nHost: ")
      case .dnspod:
        try text.append("/d?dn=")
        try text.appendName(name)
        try text.append("&ttl=1")
        if type == .aaaa { try text.append("&type=AAAA") }
        try text.append(" HTTP/1.1\r\nHost: ")
      case .json:
        let hasQuery = try text.appendPath(path, orDefault: "/resolve")
        try text.append(hasQuery ? "&name=" : "?name=")
        try text.appendName(name)
        try text.append("&type=")
        try text.appendDecimal(UInt64(type.rawValue))
        try text.append(" HTTP/1.1\r\nAccept: application/json\r\nHost: ")
      case .dnsMessage: throw .unsupportedQuestion  // Written above.
      }
      try text.append(host)
      try text.append("\r\n\r\n")
      return text.count
    }
  }
}

extension MD5 {
  /// The presentation form of a flat name, as `TextWriter.appendName` writes
  /// it before percent-encoding.
  mutating func updateName(_ name: UnsafeRawBufferPointer) {
    var position = 0
    while position < name.count, name[position] != 0 {
      if position > 0 { update(UInt8(ascii: ".")) }
      let length = Int(name[position])
      update(UnsafeRawBufferPointer(rebasing: name[(position + 1)..<(position + 1 + length)]))
      position += 1 + length
    }
  }
}

/// Appends request text to a caller's buffer.
struct TextWriter {
  let buffer: UnsafeMutableRawBufferPointer
  var count = 0

  @inline(never)
  mutating func append(_ byte: UInt8) throws(HTTPDNSError) {
    guard count < buffer.count else { throw .bufferTooSmall }
    buffer[count] = byte
    count += 1
  }

  @inline(never)
  mutating func append(_ bytes: UnsafeRawBufferPointer) throws(HTTPDNSError) {
    for byte in bytes { try append(byte) }
  }

  /// Many bytes at once: a DNS message as a request body.
  mutating func appendBulk(_ bytes: UnsafeRawBufferPointer) throws(HTTPDNSError) {
    guard bytes.count <= buffer.count - count else { throw .bufferTooSmall }
    guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
    // Both ranges were bounds-checked above; the caller's query and output
    // are distinct buffers.
    (target + count).copyMemory(from: source, byteCount: bytes.count)
    count += bytes.count
  }

  /// The config's `path=`, or `fallback` when it is empty; whether it has
  /// a query (`?`) already.
  @discardableResult
  @inline(never)
  mutating func appendPath(_ path: [UInt8], orDefault fallback: StaticString)
    throws(HTTPDNSError) -> Bool
  {
    guard !path.isEmpty else {
      try append(fallback)
      return false
    }
    var hasQuery = false
    for byte in path {
      try append(byte)
      hasQuery = hasQuery || byte == UInt8(ascii: "?")
    }
    return hasQuery
  }

  @inline(never)
  mutating func append(_ text: StaticString) throws(HTTPDNSError) {
    try append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func appendHex(_ byte: UInt8) throws(HTTPDNSError) {
    try append(hexDigits.utf8Start[Int(byte >> 4)])
    try append(hexDigits.utf8Start[Int(byte & 0xF)])
  }

  /// Percent-encoding uses upper-case hex digits (RFC 3986 §2.1).
  static func upperHex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x37 + nibble }

  @inline(never)
  mutating func appendDecimal(_ value: UInt64) throws(HTTPDNSError) {
    var digits = DecimalDigits(value)
    try digits.withUnsafeBytes { (raw) throws(HTTPDNSError) in try append(raw) }
  }

  /// Letters, digits, `-`, `.` and `_` as they are, other bytes as `%XX`
  /// (RFC 3986 §2.1, §2.3; `~` is encoded too, which is always allowed).
  @inline(never)
  mutating func appendEncoded(_ byte: UInt8) throws(HTTPDNSError) {
    let lower = byte | 0x20
    if lower &- 0x61 < 26 || byte &- 0x30 < 10 || byte == UInt8(ascii: "-")
      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    {
      try append(byte)
    } else {
      try append(UInt8(ascii: "%"))
      try append(Self.upperHex(byte >> 4))
      try append(Self.upperHex(byte & 0xF))
    }
  }

  /// A flat name in presentation form without the final dot, encoded; the
  /// root is `.`.
  mutating func appendName(_ name: UnsafeRawBufferPointer) throws(HTTPDNSError) {
    guard name.count > 1 else { return try append(UInt8(ascii: ".")) }
    var position = 0
    while position < name.count, name[position] != 0 {
      if position > 0 { try append(UInt8(ascii: ".")) }
      let length = Int(name[position])
      for byte in name[(position + 1)..<(position + 1 + length)] { try appendEncoded(byte) }
      position += 1 + length
    }
  }
}

/// Up to 20 decimal digits of a UInt64, in a fixed inline buffer.
struct DecimalDigits {
  private var digits: InlineArray<20, UInt8> = .init(repeating: 0)
  private var start = 20

  init(_ value: UInt64) {
    var rest = value
    repeat {
      start -= 1
      digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
      rest /= 10
    } while rest > 0
  }

  mutating func withUnsafeBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let start = start
    var span = digits.mutableSpan
    return try span.withUnsafeMutableBytes { (raw) throws(Failure) -> Result in
      try body(UnsafeRawBufferPointer(rebasing: raw[start...]))
    }
  }
}
