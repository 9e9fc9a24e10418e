/// An HTTP/1.x response read from received bytes (RFC 9112): the status line
/// (§4), header fields (§5) and the body length (§6.3), without copying.
///
/// Lines end in CRLF; a bare LF is accepted too (§2.2 allows it). Field names
/// compare case-insensitively (RFC 9110 §5.1). Only the fields that decide
/// framing are read (Content-Length, Transfer-Encoding and Connection), and
/// those RFC 8484 answers need: Content-Type, Cache-Control and Age.
struct ResponseHead {
  /// How the body's end is found (RFC 9112 §6.3).
  enum Framing {
    /// 1xx, 204 and 304 responses have none (§6.3 item 1).
    case empty
    case contentLength(Int)
    /// Transfer-Encoding with `chunked` last (§7.1).
    case chunked
    /// Neither: the body runs until the server closes (§6.3 item 8).
    case untilClose
  }

  var status: UInt16
  /// Offset just past the blank line that ends the head.
  var bodyStart: Int
  var framing: Framing
  /// HTTP/1.1 keeps the connection by default, HTTP/1.0 closes it (RFC 9112
  /// §9.3); the `Connection` field overrides either.
  var keepAlive: Bool
  /// The Content-Type value, trimmed; nil without one, and an empty range
  /// when the field is repeated (RFC 9110 §5.3: it is not a list).
  var contentType: Range<Int>? = nil
  /// The smallest `max-age` of the Cache-Control fields (RFC 9111 §5.2.2.1),
  /// seconds; nil without one.
  var maxAge: UInt32? = nil
  /// The Age field (RFC 9111 §5.1), seconds: the first member of the first
  /// Age line, as for any singleton field sent as a list; nil without one,
  /// or when that member is not a number (then the field is ignored).
  var age: UInt32? = nil

  /// Parses the head of the response at `start`; nil while its blank line has
  /// not arrived yet.
  init?(_ bytes: UnsafeRawBufferPointer, at start: Int) throws(HTTPDNSError) {
    // Status line: HTTP-version SP 3DIGIT SP [reason] (§4).
    guard let statusEnd = try HTTPText.lineEnd(bytes, from: start, start: start) else {
      return nil
    }
    let line = HTTPText.lineContent(bytes, start, statusEnd)
    guard line.upperBound - line.lowerBound >= 12,
      HTTPText.matches(bytes, at: line.lowerBound, "http/1."),
      bytes[line.lowerBound + 7] == UInt8(ascii: "0")
        || bytes[line.lowerBound + 7] == UInt8(ascii: "1"),
      bytes[line.lowerBound + 8] == UInt8(ascii: " "),
      line.upperBound - line.lowerBound == 12 || bytes[line.lowerBound + 12] == UInt8(ascii: " ")
    else { throw .malformedHTTP }
    var code: UInt16 = 0
    for index in (line.lowerBound + 9)..<(line.lowerBound + 12) {
      let digit = bytes[index] &- UInt8(ascii: "0")
      guard digit < 10 else { throw .malformedHTTP }
      code = code * 10 + UInt16(digit)
    }
    guard code >= 100 else { throw .malformedHTTP }
    status = code
    keepAlive = bytes[line.lowerBound + 7] == UInt8(ascii: "1")

    var contentLength: Int? = nil
    var chunked = false
    var transferEncoded = false
    var closes = false
    var ageSeen = false
    var position = statusEnd + 1
    while true {
      guard let end = try HTTPText.lineEnd(bytes, from: position, start: start) else { return nil }
      let field = HTTPText.lineContent(bytes, position, end)
      position = end + 1
      if field.isEmpty { break }
      // obs-fold (§5.2) and whitespace before the colon (§5.1) are rejected.
      guard let colon = HTTPText.find(UInt8(ascii: ":"), in: bytes, field),
        colon > field.lowerBound, !HTTPText.isBlank(bytes[field.lowerBound]),
        !HTTPText.isBlank(bytes[colon - 1])
      else { throw .malformedHTTP }
      let name = field.lowerBound..<colon
      let value = HTTPText.trimmed(bytes, (colon + 1)..<field.upperBound)
      if HTTPText.equals(bytes, name, "content-length") {
        // A list of equal values is tolerated (§6.3 item 5).
        var elements = HTTPText.ListElements(range: value)
        while let element = elements.next(in: bytes) {
          let length = try HTTPText.decimal(bytes, element)
          guard contentLength == nil || contentLength == length else { throw .malformedHTTP }
          contentLength = length
        }
      } else if HTTPText.equals(bytes, name, "transfer-encoding") {
        var elements = HTTPText.ListElements(range: value)
        while let element = elements.next(in: bytes) {
          transferEncoded = true
          chunked = HTTPText.equals(bytes, HTTPText.parameterless(bytes, element), "chunked")
        }
      } else if HTTPText.equals(bytes, name, "connection") {
        var elements = HTTPText.ListElements(range: value)
        while let element = elements.next(in: bytes) {
          if HTTPText.equals(bytes, element, "close") { closes = true }
          if HTTPText.equals(bytes, element, "keep-alive") { keepAlive = true }
        }
      } else if HTTPText.equals(bytes, name, "content-type") {
        contentType = contentType == nil ? value : value.lowerBound..<value.lowerBound
      } else if HTTPText.equals(bytes, name, "cache-control") {
        var elements = HTTPText.ListElements(range: value)
        while let element = elements.next(in: bytes) {
          guard let seconds = HTTPText.directive(bytes, element, "max-age") else { continue }
          maxAge = min(maxAge ?? seconds, seconds)
        }
      } else if HTTPText.equals(bytes, name, "age") {
        // Only the first line counts: a later one (valid or not) must not
        // replace it, or the answer outlives its freshness.
        if !ageSeen {
          ageSeen = true
          var elements = HTTPText.ListElements(range: value)
          age = elements.next(in: bytes).flatMap { HTTPText.deltaSeconds(bytes, $0) }
        }
      }
    }
    bodyStart = position
    if closes { keepAlive = false }
    if status < 200 || status == 204 || status == 304 {
      framing = .empty
    } else if transferEncoded {
      // Both at once is a smuggling attempt, to be handled as an error (§6.3 item 3).
      guard contentLength == nil else { throw .malformedHTTP }
      framing = chunked ? .chunked : .untilClose
    } else if let contentLength {
      framing = .contentLength(contentLength)
    } else {
      framing = .untilClose
    }
    if case .untilClose = framing { keepAlive = false }
  }
}

/// A response split into its final head and body range, skipping interim
/// (1xx) responses. `frame` finds where it ends; `body` reads it.
struct FramedResponse {
  /// The received bytes up to `end`: offsets are those of the input.
  var bytes: UnsafeRawBufferPointer
  var head: ResponseHead
  /// Where the whole response ends.
  var end: Int

  /// nil while incomplete. `connectionClosed`: the server has closed, so
  /// what has arrived is all there will be.
  init?(_ bytes: UnsafeRawBufferPointer, connectionClosed: Bool) throws(HTTPDNSError) {
    var start = 0
    var interim = 0
    while true {
      guard let head = try ResponseHead(bytes, at: start) else {
        if connectionClosed { throw .closedEarly }
        return nil
      }
      guard head.status < 200, head.status != 101 else {
        self.head = head
        break
      }
      interim += 1
      guard interim <= HTTPDNSLimits.maxInterimResponses else { throw .malformedHTTP }
      start = head.bodyStart
    }
    switch head.framing {
    case .empty:
      end = head.bodyStart
    case .contentLength(let length):
      guard head.bodyStart + length <= bytes.count else {
        if connectionClosed { throw .closedEarly }
        return nil
      }
      end = head.bodyStart + length
    case .untilClose:
      guard connectionClosed else { return nil }
      end = bytes.count
    case .chunked:
      guard let chunkedEnd = try Chunks.end(of: bytes, from: head.bodyStart) else {
        if connectionClosed { throw .closedEarly }
        return nil
      }
      end = chunkedEnd
    }
    self.bytes = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
  }

  /// The body's bytes, de-chunked on the way.
  var body: BodyCursor { BodyCursor(self) }
}

/// The chunked transfer coding (RFC 9112 §7.1):
///
///     chunked-body = *chunk last-chunk trailer-section CRLF
///     chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
///     last-chunk   = 1*("0") [ chunk-ext ] CRLF
enum Chunks {
  /// The chunk-size line at `position`: the size and where its data starts;
  /// nil while the line is incomplete. Extensions are skipped (§7.1.1).
  static func line(_ bytes: UnsafeRawBufferPointer, at position: Int) throws(HTTPDNSError)
    -> (size: Int, dataStart: Int)?
  {
    var index = position
    var size = 0
    while index < bytes.count, let digit = HTTPText.hexValue(bytes[index]) {
      guard index - position < HTTPDNSLimits.maxChunkSizeDigits else { throw .malformedHTTP }
      size = size << 4 | Int(digit)
      index += 1
    }
    let digitsEnd = index
    let limit = min(bytes.count, position + HTTPDNSLimits.maxChunkLineBytes)
    while index < limit, bytes[index] != HTTPText.lf { index += 1 }
    guard index < limit else {
      if limit == position + HTTPDNSLimits.maxChunkLineBytes { throw .malformedHTTP }
      return nil
    }
    guard digitsEnd > position else { throw .malformedHTTP }
    // After the digits: BWS and `;` extensions, or the line's end.
    var rest = digitsEnd
    while rest < index, HTTPText.isBlank(bytes[rest]) { rest += 1 }
    guard
      rest == index || bytes[rest] == UInt8(ascii: ";")
        || (bytes[rest] == HTTPText.cr && rest + 1 == index)
    else { throw .malformedHTTP }
    return (size, index + 1)
  }

  /// The CRLF (or LF) after a chunk's data at `position`: where the next
  /// chunk starts; nil while incomplete.
  static func afterData(_ bytes: UnsafeRawBufferPointer, at position: Int) throws(HTTPDNSError)
    -> Int?
  {
    var index = position
    if index < bytes.count, bytes[index] == HTTPText.cr { index += 1 }
    guard index < bytes.count else { return nil }
    guard bytes[index] == HTTPText.lf else { throw .malformedHTTP }
    return index + 1
  }

  /// Where the chunked body starting at `start` ends, trailers included; nil
  /// while incomplete.
  static func end(of bytes: UnsafeRawBufferPointer, from start: Int) throws(HTTPDNSError) -> Int? {
    var position = start
    while true {
      guard let (size, dataStart) = try line(bytes, at: position) else { return nil }
      if size == 0 {
        // The trailer section: field lines up to an empty line (§7.1.2), ignored.
        var fieldStart = dataStart
        while true {
          guard let end = try HTTPText.lineEnd(bytes, from: fieldStart, start: dataStart) else {
            return nil
          }
          if HTTPText.lineContent(bytes, fieldStart, end).isEmpty { return end + 1 }
          fieldStart = end + 1
        }
      }
      guard dataStart + size <= bytes.count,
        let next = try afterData(bytes, at: dataStart + size)
      else { return nil }
      position = next
    }
  }
}

/// The body of a complete response, read a byte at a time across chunks.
/// Made only from a `FramedResponse`, whose framing was checked, so a chunk
/// line that fails to parse here cannot happen; it would just end the body.
struct BodyCursor {
  let bytes: UnsafeRawBufferPointer
  var position: Int
  /// The end of the current run of body bytes (a chunk's data).
  var runEnd: Int
  let chunked: Bool
  /// Chunked: `position` is at a chunk-size line, not after chunk data.
  var atChunkLine: Bool
  var finished = false

  init(_ response: FramedResponse) {
    bytes = response.bytes
    position = response.head.bodyStart
    if case .chunked = response.head.framing { chunked = true } else { chunked = false }
    runEnd = chunked ? position : response.end
    atChunkLine = true
  }

  /// The next byte of the body without consuming it; nil at its end.
  @inline(never)
  mutating func peek() -> UInt8? {
    guard position < runEnd || nextRun() else { return nil }
    return bytes[position]
  }

  /// Moves to the next chunk's data; false at the end of the body.
  @inline(never)
  private mutating func nextRun() -> Bool {
    while position >= runEnd {
      guard chunked, !finished else { return false }
      if !atChunkLine {
        guard let next = try? Chunks.afterData(bytes, at: position) else {
          finished = true
          return false
        }
        position = next
      }
      guard let (size, dataStart) = try? Chunks.line(bytes, at: position), size > 0,
        dataStart + size <= bytes.count
      else {
        finished = true
        return false
      }
      position = dataStart
      runEnd = dataStart + size
      atChunkLine = false
    }
    return true
  }

  /// Consumes the byte `peek` returned.
  mutating func advance() { position += 1 }

  @inline(never)
  mutating func next() -> UInt8? {
    guard let byte = peek() else { return nil }
    position += 1
    return byte
  }
}
