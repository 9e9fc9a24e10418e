import CompiledConfig
import DNSWire

/// Reads a file a config names, by path bytes as the config resolved them;
/// fails with the reason (`No such file or directory`).
public typealias ConfigFileReader = (_ path: [UInt8]) -> Result<[UInt8], ConfigFileError>

/// Why a file named by a config could not be read.
public struct ConfigFileError: Error {
  /// The reason's UTF-8 bytes (see `ConfigError` why bytes).
  public let reasonBytes: [UInt8]
  public var reason: String { String(decoding: reasonBytes, as: UTF8.self) }
  public init(reason: String) { reasonBytes = Array(reason.utf8) }
  public init(_ reason: StaticString) { self.init(text: "\(reason)") }
  init(text: MessageText) { reasonBytes = text.bytes }

  /// `larger than N MiB` (built without `String` interpolation: see
  /// `MessageText`).
  public static func larger(thanMebibytes limit: Int) -> ConfigFileError {
    ConfigFileError(text: "larger than \(limit) MiB")
  }

  /// `errno N`, for a failure without a name of its own here.
  public static func system(errno code: Int) -> ConfigFileError {
    ConfigFileError(text: "errno \(code)")
  }
}

/// `block-list PATH`: a file of names to block, one per line.
///
/// A list file has one name per line; `#` starts a comment, blank lines,
/// spaces, tabs and CRLF line ends are ignored. A problem in it is reported
/// as `LIST:LINE: message`, LIST being the path as resolved here.
///
/// Lists are third-party data that the operator refreshes, so unlike the
/// config's own `block` lines they never conflict:
/// - a name listed twice, in several lists, or also on a `block` line, is
///   blocked once (`OverrideTableBuilder.build` keeps one block per name);
/// - a listed name that also has an `override` keeps both entries, and the
///   override wins where it applies: an exact override answers the name
///   itself (names below it stay blocked), a wildcard answers the names
///   below it.
extension ConfigReader {
  mutating func addBlockList(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let path = try listPath(token, directive: "block-list")
    if let first = blockLists.first(where: { $0.path == path }) {
      throw .duplicate("block-list \(quoted: token)", firstOn: first.line)
    }
    blockLists.append((path, line))
    let contents = try readList(path, directive: "block-list")
    try Self.forEachListLine(contents) { (tokens, lineNumber) throws(LineError) in
      do throws(LineError) {
        try addListedName(tokens)
      } catch {
        throw LineError(error.message, file: path, line: lineNumber)
      }
    }
  }

  /// The path of a list file (`block-list`, `for-list`) as written: as is
  /// when absolute, else relative to the config's folder.
  func listPath(_ token: ArraySlice<UInt8>, directive: StaticString) throws(LineError) -> [UInt8] {
    guard token.count < 4096, !token.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      throw LineError("bad \(directive) path \(quoted: token)")
    }
    return resolvedPath(token)
  }

  /// The contents of a list file; unreadable, it fails the config.
  func readList(_ path: [UInt8], directive: StaticString) throws(LineError) -> [UInt8] {
    let read = readFile?(path) ?? .failure(ConfigFileError("files cannot be read here"))
    switch read {
    case .success(let bytes): return bytes
    case .failure(let error):
      throw LineError("cannot read \(directive) \(quoted: path): \(bytes: error.reasonBytes)")
    }
  }

  /// `token` as is when absolute, else relative to the config's folder
  /// (the current directory for a config named without a `/`).
  func resolvedPath(_ token: ArraySlice<UInt8>) -> [UInt8] {
    let slash = UInt8(ascii: "/")
    guard token.first != slash, let lastSlash = fileName.lastIndex(of: slash) else {
      return Array(token)
    }
    return Array(fileName[...lastSlash]) + token
  }

  /// Calls `body` with the tokens and the 1-based number of each line of a
  /// list file that has any, stopping at the first error it throws.
  static func forEachListLine(
    _ contents: [UInt8], _ body: ([ArraySlice<UInt8>], Int) throws(LineError) -> Void
  ) throws(LineError) {
    var lineNumber = 0
    var lineStart = 0
    while lineStart < contents.count {
      lineNumber += 1
      let lineEnd = contents[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? contents.count
      let tokens = ConfigParser.tokenize(contents[lineStart..<lineEnd])
      lineStart = lineEnd + 1
      if !tokens.isEmpty { try body(tokens, lineNumber) }
    }
  }

  mutating func addListedName(_ tokens: [ArraySlice<UInt8>]) throws(LineError) {
    guard tokens.count == 1 else {
      throw LineError(
        """
        one name per line, found \(quoted: tokens[1]) after \(quoted: tokens[0]) \
        (from a hosts file, keep only the names)
        """)
    }
    let token = tokens[0]
    if token.first == UInt8(ascii: "*") {
      throw LineError(
        "a block list takes names, not wildcards: a listed name already covers every name below it"
      )
    }
    let name = try ConfigValues.flatName(token, written: token)
    guard name != Name.root else {
      throw LineError("the root name cannot be blocked (that would block every name)")
    }
    try addEntry(OverrideTableBuilder.Entry(name: name, kind: .block))
  }

  /// Adds an entry to the override table, if it has room.
  mutating func addEntry(_ entry: OverrideTableBuilder.Entry) throws(LineError) {
    guard overrides.hasRoom(for: entry) else {
      throw LineError(
        """
        too many names: the override table holds at most \(OverrideRecord.offsetLimit >> 20) \
        MiB of names and addresses
        """)
    }
    overrides.add(entry)
  }
}
