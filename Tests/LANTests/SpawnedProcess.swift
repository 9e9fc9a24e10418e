import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A long-running child started with posix_spawn, its stdout and stderr
/// going to a file. Not a Foundation `Process`: Foundation notices a
/// child's exit through a descriptor the child inherits, and dnsmasq closes
/// every inherited descriptor, after which Foundation blocks in waitpid on
/// it and no other child's exit is ever seen.
final class SpawnedProcess {
  let pid: pid_t
  let outputURL: URL
  private var exitStatus: Int32?

  init(_ arguments: [String]) throws {
    guard let program = Command.path(of: arguments[0]) else {
      throw NamespaceError("\(arguments[0]) not found")
    }
    outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-lan-\(getpid())-\(UUID().uuidString).log")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 1, outputURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = ([program] + arguments.dropFirst()).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let result = posix_spawn(&child, program, &actions, nil, argv, environ)
    guard result == 0 else { throw NamespaceError("posix_spawn \(program): error \(result)") }
    pid = child
  }

  /// What the child has written so far.
  var output: String {
    (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
  }

  var isRunning: Bool {
    guard exitStatus == nil else { return false }
    var status: Int32 = 0
    if waitpid(pid, &status, WNOHANG) == pid {
      exitStatus = status
      return false
    }
    return true
  }

  /// SIGTERM, then SIGKILL after two seconds; reaps the child. `ip netns
  /// exec` exec-s its command, so the pid is the forwarder's own.
  func stop() {
    if isRunning {
      kill(pid, SIGTERM)
      let deadline = Date().addingTimeInterval(2)
      while isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
      if isRunning {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = status
      }
    }
    try? FileManager.default.removeItem(at: outputURL)
  }

  deinit { stop() }
}
