import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The outcome of one finished command.
struct CommandResult: CustomStringConvertible {
  let arguments: [String]
  let status: Int32
  let output: String
  let error: String

  var description: String {
    "`\(arguments.joined(separator: " "))` exited \(status); stdout: \(output) stderr: \(error)"
  }
}

struct CommandError: Error, CustomStringConvertible {
  let result: CommandResult
  var description: String { result.description }
}

/// Runs programs (ip, dig, kdig, getent, nft) and collects what they print.
enum Command {
  /// Where programs are looked for: PATH, then the sbin folders that a
  /// test runner's PATH may lack.
  static let searchPath: [String] = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin"]
  }()

  static func path(of program: String) -> String? {
    if program.hasPrefix("/") {
      return FileManager.default.isExecutableFile(atPath: program) ? program : nil
    }
    for folder in searchPath {
      let candidate = "\(folder)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Runs `arguments` to completion, killing it after `timeout` seconds.
  static func run(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 15)
    -> CommandResult
  {
    guard let program = path(of: arguments[0]) else {
      return CommandResult(
        arguments: arguments, status: 127, output: "", error: "\(arguments[0]) not found")
    }
    do {
      let result = try runProcess(
        URL(fileURLWithPath: program), Array(arguments.dropFirst()), input: input,
        timeout: timeout)
      return CommandResult(
        arguments: arguments, status: result.status, output: result.outputText,
        error: result.error)
    } catch {
      return CommandResult(
        arguments: arguments, status: 126, output: "", error: "cannot run: \(error)")
    }
  }

  /// Runs `arguments` and throws unless it exits 0.
  @discardableResult
  static func require(_ arguments: [String], input: String? = nil) throws -> CommandResult {
    let result = run(arguments, input: input)
    guard result.status == 0 else { throw CommandError(result: result) }
    return result
  }
}
