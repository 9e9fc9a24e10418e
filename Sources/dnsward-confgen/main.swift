// dnsward-confgen INPUT.conf OUTPUT.swift [DEPFILE]
//
// Compiles a dnsward.conf into Swift source (see ConfigGenerator). Run at
// build time by ConfigCompilerPlugin and by the firmware's CMake project.
// With DEPFILE, also writes a Make-style dependency file naming the config
// and every file it read (`block-list`, `for-list`, `trust-anchor-file`), so
// the build reruns when one changes.
//
// Exit status: 0 success; 1 config error (printed as `INPUT:LINE: error:
// MESSAGE`, the form compilers use, so the build log points at the line) or
// I/O failure; 2 usage error.
//
// OUTPUT is rewritten only when its content changes, so an edit that does
// not change the settings (a comment) does not recompile the module.

import Config
import Glibc

/// Writes a line to standard error (by descriptor: the C `stderr` global is
/// shared mutable state to Swift 6).
func printError(_ text: String) {
  let line = Array((text + "\n").utf8)
  _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The whole file, or nil with errno set.
func readFile(_ path: String) -> [UInt8]? {
  guard let file = fopen(path, "rb") else { return nil }
  defer { fclose(file) }
  var contents: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    contents.append(contentsOf: chunk[..<count])
    if count < chunk.count {
      return ferror(file) != 0 ? nil : contents
    }
  }
}

/// Writes `bytes` to a temporary file next to `path`, then renames it over
/// `path`, so that a reader never sees half a file.
func writeFileAtomically(_ path: String, _ bytes: [UInt8]) -> Bool {
  let temporary = path + ".tmp"
  guard let file = fopen(temporary, "wb") else { return false }
  let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
  let closed = fclose(file) == 0
  guard written == bytes.count, closed, rename(temporary, path) == 0 else {
    unlink(temporary)
    return false
  }
  return true
}

func systemError() -> String {
  String(cString: strerror(errno))
}

/// The last two components of a path (`DefaultConfig/dnsward.conf`): names
/// the config in the banner without the machine-specific absolute path.
func shortName(_ path: String) -> String {
  let components = path.split(separator: "/", omittingEmptySubsequences: true)
  return components.suffix(2).joined(separator: "/")
}

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count),
  !arguments.dropFirst().contains(where: { $0.hasPrefix("-") })
else {
  printError("usage: dnsward-confgen INPUT.conf OUTPUT.swift [DEPFILE]")
  exit(2)
}
let inputPath = arguments[1]
let outputPath = arguments[2]
let depfilePath = arguments.count == 4 ? arguments[3] : nil

/// The files the config named and the parser read, in order.
nonisolated(unsafe) var listPaths: [String] = []

func readListFile(_ path: [UInt8]) -> Result<[UInt8], ConfigFileError> {
  let name = String(decoding: path, as: UTF8.self)
  listPaths.append(name)
  guard let contents = readFile(name) else {
    return .failure(ConfigFileError(reason: systemError()))
  }
  return .success(contents)
}

guard let input = readFile(inputPath) else {
  printError("\(inputPath): error: cannot read: \(systemError())")
  exit(1)
}

let generated: String
do throws(ConfigError) {
  var lines = SourceLines()
  let settings = try ConfigParser.parse(
    bytes: input, fileName: inputPath, readFile: readListFile, lines: &lines)
  // The compiled-in config is checked at build time: a bad `for-list` line,
  // which `--config` would skip, fails the build.
  if let skipped = lines.skippedListLines.first {
    throw skipped
  }
  generated = ConfigGenerator.swiftSource(settings, sourceName: shortName(inputPath))
} catch {
  let location = error.line > 0 ? "\(error.file):\(error.line)" : error.file
  printError("\(location): error: \(error.message)")
  exit(1)
}

let source = Array(generated.utf8)
if readFile(outputPath) != source {
  guard writeFileAtomically(outputPath, source) else {
    printError("\(outputPath): error: cannot write: \(systemError())")
    exit(1)
  }
}

/// `TARGET: PREREQUISITE...` with spaces, `#` and `$` escaped as Make and
/// Ninja read them (a backslash before any other character is itself).
func depfileLine(target: String, prerequisites: [String]) -> String {
  func escapedPath(_ path: String) -> String {
    var text = ""
    for character in path.unicodeScalars {
      switch character {
      case " ", "#": text += "\\" + String(character)
      case "$": text += "$$"
      default: text.unicodeScalars.append(character)
      }
    }
    return text
  }
  return ([escapedPath(target) + ":"] + prerequisites.map(escapedPath)).joined(separator: " ")
    + "\n"
}

if let depfilePath {
  let dependencies = Array(
    depfileLine(target: outputPath, prerequisites: [inputPath] + listPaths).utf8)
  if readFile(depfilePath) != dependencies {
    guard writeFileAtomically(depfilePath, dependencies) else {
      printError("\(depfilePath): error: cannot write: \(systemError())")
      exit(1)
    }
  }
}
