import Foundation
import TestSupport

/// A server the DNSSEC suite starts itself (knotd, unbound) on a loopback
/// port learned free. That port can be taken before the server binds it;
/// the server then exits, and another port is tried, a bounded number of
/// times. Silence until the deadline is a failure, not a reason to retry.
enum LoopbackServer {
  /// Starts `executable` with the arguments `configure(port)` returns (it
  /// writes the server's config for that port), its output appended to
  /// `logPath`, and waits up to `patience` for `answers(port)`. Returns
  /// the running process and its port, or nil when none answered.
  static func start(
    _ executable: String, logPath: String, environment: [String: String] = [:],
    patience: TimeInterval = 8, configure: (UInt16) throws -> [String],
    answers: (UInt16) -> Bool
  ) throws -> (process: Process, port: UInt16)? {
    for _ in 0..<3 {
      let port = try LoopbackPorts.freeTCP(1)[0]
      let process = try launchProcess(
        URL(fileURLWithPath: executable), try configure(port), environment: environment,
        logPath: logPath)
      let deadline = Date().addingTimeInterval(patience)
      while Date() < deadline && process.isRunning {
        if answers(port) { return (process, port) }
        Thread.sleep(forTimeInterval: 0.05)
      }
      let exited = !process.isRunning
      stopProcess(process)
      if !exited { break }
    }
    return nil
  }
}
