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
    line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
  }
}

/// Why a piece of text is not an address, an endpoint or a prefix. The message
/// quotes the text; the config parser adds the file and the line.
public struct AddressSyntaxError: Error, Equatable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// A problem on the line being parsed; `ConfigParser` turns it into a
/// `ConfigError` by adding the file name and line number.
struct LineError: Error {
  let message: String
  init(_ message: String) { self.message = message }
  init(_ error: AddressSyntaxError) { message = error.message }
}

/// Text for a user-supplied token inside a message: in single quotes, with
/// control and non-ASCII-printable bytes escaped as `\xNN` so that a stray
/// byte in a config cannot garble a terminal or a build log.
func quoted<Bytes: Collection>(_ token: Bytes) -> String where Bytes.Element == UInt8 {
  "'" + escaped(token) + "'"
}

/// The bytes as text: printable ASCII as is, every other byte as `\xNN`.
func escaped<Bytes: Collection>(_ token: Bytes) -> String where Bytes.Element == UInt8 {
  var text = ""
  text.reserveCapacity(token.count)
  for byte in token {
    if byte >= 0x20 && byte < 0x7F {
      text.unicodeScalars.append(Unicode.Scalar(byte))
    } else {
      text += "\\x" + hexDigits(UInt64(byte), width: 2)
    }
  }
  return text
}

/// `value` in upper-case hex, zero-padded to `width` digits.
func hexDigits(_ value: UInt64, width: Int) -> String {
  let digits = String(value, radix: 16, uppercase: true)
  guard digits.count < width else { return digits }
  return String(repeating: "0", count: width - digits.count) + digits
}
