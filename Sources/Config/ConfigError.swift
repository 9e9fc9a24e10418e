/// A problem in a `dnsward.conf`, located so that editors and build logs can
/// jump to it.
///
/// Invariant: `line` is 1-based; 0 means the problem belongs to the whole
/// file (for example "no `listen` directive"), and `description` then leaves
/// the line out.
///
/// The file name and the message are kept as their UTF-8 bytes, which the
/// firmware writes out as they are (`descriptionBytes`): the `String`
/// properties are for the host and the tests, and a firmware that never
/// reads them carries none of the standard library's `String` machinery.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
  public let fileBytes: [UInt8]
  public let line: Int
  public let messageBytes: [UInt8]

  public init(file: String, line: Int, message: String) {
    self.init(fileBytes: Array(file.utf8), line: line, messageBytes: Array(message.utf8))
  }

  public init(fileBytes: [UInt8], line: Int, messageBytes: [UInt8]) {
    self.fileBytes = fileBytes
    self.line = line
    self.messageBytes = messageBytes
  }

  public var file: String { String(decoding: fileBytes, as: UTF8.self) }
  public var message: String { String(decoding: messageBytes, as: UTF8.self) }

  /// `file:line: message`, or `file: message` when `line` is 0.
  public var descriptionBytes: [UInt8] {
    let text: MessageText =
      line > 0
      ? "\(bytes: fileBytes):\(line): \(bytes: messageBytes)"
      : "\(bytes: fileBytes): \(bytes: messageBytes)"
    return text.bytes
  }

  public var description: String { String(decoding: descriptionBytes, as: UTF8.self) }

  // `==` compares the bytes: `String`'s own `==` (canonical equivalence)
  // would pull the Unicode normalization tables into Embedded Swift builds.
}

/// Why a piece of text is not an address, an endpoint or a prefix. The message
/// quotes the text; the config parser adds the file and the line.
public struct AddressSyntaxError: Error, Equatable, CustomStringConvertible {
  /// The message's UTF-8 bytes (see `ConfigError` why bytes).
  public let messageBytes: [UInt8]
  public init(_ message: String) { messageBytes = Array(message.utf8) }
  /// Built by `MessageText`'s out-of-line calls (see there why).
  init(text: MessageText) { messageBytes = text.bytes }
  public var message: String { String(decoding: messageBytes, as: UTF8.self) }
  public var description: String { message }
}

/// A problem on the line being parsed; `ConfigParser` turns it into a
/// `ConfigError` by adding the file name and line number. A problem in a
/// file the line names (`block-list`) carries that file and its line.
struct LineError: Error {
  /// UTF-8, as `ConfigError.messageBytes`.
  let message: [UInt8]
  /// The other file, or nil for the config itself.
  var file: [UInt8]? = nil
  /// The 1-based line in `file`; unused when `file` is nil.
  var line = 0
  /// Built by `MessageText`'s out-of-line calls (see there why).
  init(_ message: MessageText) { self.message = message.bytes }
  init(_ error: AddressSyntaxError) { message = error.messageBytes }
  /// `duplicate WHAT (first on line N)`.
  @inline(never)
  static func duplicate(_ what: MessageText, firstOn line: Int) -> LineError {
    LineError("duplicate \(what) (first on line \(line))")
  }
  init(_ message: [UInt8], file: [UInt8], line: Int) {
    self.message = message
    self.file = file
    self.line = line
  }
  init(_ message: MessageText, file: [UInt8], line: Int) {
    self.init(message.bytes, file: file, line: line)
  }
}

/// Text for a user-supplied token inside a message: in single quotes, with
/// control and non-ASCII-printable bytes escaped as `\xNN` so that a stray
/// byte in a config cannot garble a terminal or a build log.
func quoted<Bytes: Collection>(_ token: Bytes) -> String where Bytes.Element == UInt8 {
  "'" + escaped(token) + "'"
}

/// The bytes as text: printable ASCII as is, every other byte as `\xNN`.
func escaped<Bytes: Collection>(_ token: Bytes) -> String where Bytes.Element == UInt8 {
  var text: [UInt8] = []
  text.reserveCapacity(token.count)
  for byte in token {
    if byte >= 0x20 && byte < 0x7F {
      text.append(byte)
    } else {
      text.append(UInt8(ascii: "\\"))
      text.append(UInt8(ascii: "x"))
      text.append(upperHexDigit(byte >> 4))
      text.append(upperHexDigit(byte & 0xF))
    }
  }
  return String(decoding: text, as: UTF8.self)
}

/// The upper-case hex digit for a value 0...15.
func upperHexDigit(_ value: UInt8) -> UInt8 {
  value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
}

/// `value` in upper-case hex, zero-padded to `width` digits.
func hexDigits(_ value: UInt64, width: Int) -> String {
  let digits = String(value, radix: 16, uppercase: true)
  // `utf8.count`, not `count`: the digits are ASCII, and counting
  // characters would pull in the grapheme-break tables.
  let count = digits.utf8.count
  guard count < width else { return digits }
  return String(repeating: "0", count: width - count) + digits
}
