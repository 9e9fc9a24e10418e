/// A problem in a `dnsward.conf`, located so that editors and build logs can
/// jump to it.
///
/// Invariant: `line` is 1-based; 0 means the problem belongs to the whole
/// file (for example "no `listen` directive"), and `description` then leaves
/// the line out.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
  public let file: String
  public let line: Int
  public let message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  /// `file:line: message`, or `file: message` when `line` is 0.
  public var description: String {
    let text: MessageText = line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    return text.string
  }

  /// Equal when the line and the UTF-8 bytes of the file name and the
  /// message are: `String`'s own `==` (canonical equivalence) would pull the
  /// Unicode normalization tables into Embedded Swift builds.
  public static func == (lhs: ConfigError, rhs: ConfigError) -> Bool {
    lhs.line == rhs.line && lhs.file.utf8.elementsEqual(rhs.file.utf8)
      && lhs.message.utf8.elementsEqual(rhs.message.utf8)
  }
}

/// Why a piece of text is not an address, an endpoint or a prefix. The message
/// quotes the text; the config parser adds the file and the line.
public struct AddressSyntaxError: Error, Equatable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  /// Built by `MessageText`'s out-of-line calls (see there why).
  init(text: MessageText) { message = text.string }
  public var description: String { message }

  /// Equal when the messages' UTF-8 bytes are (see `ConfigError.==`).
  public static func == (lhs: AddressSyntaxError, rhs: AddressSyntaxError) -> Bool {
    lhs.message.utf8.elementsEqual(rhs.message.utf8)
  }
}

/// A problem on the line being parsed; `ConfigParser` turns it into a
/// `ConfigError` by adding the file name and line number. A problem in a
/// file the line names (`block-list`) carries that file and its line.
struct LineError: Error {
  let message: String
  /// The other file, or nil for the config itself.
  var file: String? = nil
  /// The 1-based line in `file`; unused when `file` is nil.
  var line = 0
  /// Built by `MessageText`'s out-of-line calls (see there why).
  init(_ message: MessageText) { self.message = message.string }
  init(_ error: AddressSyntaxError) { message = error.message }
  /// `duplicate WHAT (first on line N)`.
  @inline(never)
  static func duplicate(_ what: MessageText, firstOn line: Int) -> LineError {
    LineError("duplicate \(what) (first on line \(line))")
  }
  init(_ message: String, file: String, line: Int) {
    self.message = message
    self.file = file
    self.line = line
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
