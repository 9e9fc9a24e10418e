import Foundation

/// The `dnsward` binary the integration and LAN tests drive, and how to run
/// it. By default it is the one SwiftPM built next to the tests; the same
/// suites run against another build — the ARM firmware under qemu-user,
/// say — through two environment variables: `DNSWARD_TEST_BINARY` (its
/// path) and `DNSWARD_TEST_RUNNER` (a command line to run it with, e.g.
/// `qemu-aarch64 -L /usr/aarch64-linux-gnu`).
public enum DnswardBinary {
  /// A product the tests need is missing: a test fails on it rather than
  /// skipping, since `swift test` always builds them.
  public struct Missing: Error, CustomStringConvertible {
    public let product: String
    public var description: String {
      "\(product) not found next to the tests (nor at DNSWARD_TEST_BINARY)"
    }
  }

  /// What a run to exit printed.
  public struct Run {
    public var status: Int32
    public var output: String
    public var errors: String
    /// Whether it was ended for running past its time.
    public var timedOut: Bool
  }

  static let environment = ProcessInfo.processInfo.environment

  /// Whether the binary under test is another build than SwiftPM's.
  public static var isExternal: Bool { environment["DNSWARD_TEST_BINARY"] != nil }

  /// The runner's command line (empty: the binary runs natively).
  public static var runner: [String] {
    (environment["DNSWARD_TEST_RUNNER"] ?? "").split(separator: " ").map(String.init)
  }

  /// Whether the binary runs under an emulator (slower; no seccomp).
  public static var isEmulated: Bool { !runner.isEmpty }

  /// The binary under test.
  public static func url() throws(Missing) -> URL {
    if let path = environment["DNSWARD_TEST_BINARY"] { return URL(fileURLWithPath: path) }
    return try built("dnsward")
  }

  /// A product SwiftPM built next to the tests.
  public static func built(_ product: String) throws(Missing) -> URL {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
    let candidates = [
      bundle.deletingLastPathComponent(),
      bundle.deletingLastPathComponent().deletingLastPathComponent(),
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
        ".build/debug"),
    ]
    for directory in candidates {
      let url = directory.appendingPathComponent(product)
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw Missing(product: product)
  }

  /// The command line that runs the binary under test with `arguments`:
  /// the runner's words, the binary's path, then `arguments`.
  public static func commandLine(_ arguments: [String]) throws(Missing) -> [String] {
    runner + [try url().path] + arguments
  }

  /// A `Process` set up to run the binary under test with `arguments`.
  public static func process(_ arguments: [String]) throws(Missing) -> Process {
    let process = Process()
    let words = try commandLine(arguments)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = words
    return process
  }

  /// Runs the binary under test with `arguments` to its exit, at most
  /// `timeout` seconds (then it is ended and `timedOut` is set).
  public static func run(_ arguments: [String], timeout: TimeInterval = 10) throws -> Run {
    let result = try runProcess(
      URL(fileURLWithPath: "/usr/bin/env"), try commandLine(arguments), timeout: timeout)
    return Run(
      status: result.status, output: result.outputText, errors: result.error,
      timedOut: result.timedOut)
  }
}
