import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// What a program run to its exit printed.
public struct ProcessResult {
  public var status: Int32
  /// Its standard output; with `mergingErrors`, its standard error as well.
  public var output: Data
  /// Its standard error (empty with `mergingErrors`).
  public var error: String
  /// Whether it was ended for running past its time.
  public var timedOut: Bool

  /// The standard output as UTF-8 text.
  public var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// Runs `executable` with `arguments` to its exit and collects what it
/// printed: the one way the tests run a program and wait for it.
/// `input` is written to its standard input (else it reads /dev/null);
/// `environment` is added to this process's; `mergingErrors` sends its
/// standard error into the output pipe, in the order written, as a
/// terminal shows them. After `timeout` seconds it gets SIGTERM, and
/// SIGKILL 2 s later, and `timedOut` is set.
public func runProcess(
  _ executable: URL, _ arguments: [String], input: String? = nil,
  environment: [String: String] = [:], mergingErrors: Bool = false,
  timeout: TimeInterval? = nil
) throws -> ProcessResult {
  let process = makeProcess(executable, arguments, environment: environment)
  let output = Pipe()
  let error = Pipe()
  let inputPipe = Pipe()
  process.standardOutput = output
  process.standardError = mergingErrors ? output : error
  process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
  try process.run()
  // Every pipe is served at once, before waiting: a child blocked on a full
  // standard error pipe would otherwise never finish its output, and one
  // that never reads its input must not block this thread.
  let errorText = CollectedData()
  let pipesDone = DispatchGroup()
  DispatchQueue.global().async(group: pipesDone) {
    errorText.set(mergingErrors ? Data() : error.fileHandleForReading.readDataToEndOfFile())
  }
  if let input {
    DispatchQueue.global().async(group: pipesDone) {
      inputPipe.fileHandleForWriting.write(Data(input.utf8))
      try? inputPipe.fileHandleForWriting.close()
    }
  }
  let state = RunState()
  if let timeout {
    let pid = process.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
      guard state.expire() else { return }
      kill(pid, SIGTERM)
      DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
        if state.isRunning { kill(pid, SIGKILL) }
      }
    }
  }
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  pipesDone.wait()
  process.waitUntilExit()
  let timedOut = state.finish()
  return ProcessResult(
    status: process.terminationStatus, output: outputData,
    error: String(decoding: errorText.data, as: UTF8.self), timedOut: timedOut)
}

/// Runs `arguments` (the program found on PATH) to its exit: its status,
/// and its output and errors merged; -1 and the error when it cannot start.
public func runCommand(_ arguments: [String]) -> (status: Int32, output: String) {
  do {
    let result = try runProcess(
      URL(fileURLWithPath: "/usr/bin/env"), arguments, mergingErrors: true)
    return (result.status, result.outputText)
  } catch {
    return (-1, "\(error)")
  }
}

/// `nft COMMAND` in the network namespace `namespace` (needs root).
public func nft(_ command: String, in namespace: String) -> (status: Int32, output: String) {
  runCommand(["ip", "netns", "exec", namespace, "nft", command])
}

/// A network namespace for nftables tests, named `prefix` and this process's
/// ID (so that one a crashed run left is replaced), with `ruleset` loaded and,
/// with `loopbackUp`, its loopback up; its caller removes it with `ip netns
/// del`. Skips the test without root, nft, or the right to make one.
public func makeNftablesNamespace(
  _ prefix: String, loopbackUp: Bool = false, ruleset: String,
  file: StaticString = #filePath, line: UInt = #line
) throws -> String {
  guard getuid() == 0 else {
    throw XCTSkip("needs root: it creates a network namespace and nftables sets")
  }
  guard runCommand(["nft", "--version"]).status == 0 else {
    throw XCTSkip("nft is not installed (apt-get install nftables)")
  }
  let namespace = "\(prefix)-\(getpid())"
  _ = runCommand(["ip", "netns", "del", namespace])
  guard runCommand(["ip", "netns", "add", namespace]).status == 0 else {
    throw XCTSkip("cannot create a network namespace (ip netns add)")
  }
  if loopbackUp {
    XCTAssertEqual(
      runCommand(["ip", "-n", namespace, "link", "set", "lo", "up"]).status, 0, file: file,
      line: line)
  }
  let loaded = nft(ruleset, in: namespace)
  XCTAssertEqual(loaded.status, 0, loaded.output, file: file, line: line)
  return namespace
}

/// setns(2) with CLONE_NEWNET: this thread joins the network namespace open
/// at `fd`; 0, or -1 with errno set. Glibc's Swift module leaves out the GNU
/// extensions of <sched.h>, so the function is looked up by name.
public func joinNetworkNamespace(_ fd: Int32) -> Int32 {
  typealias SetNS = @convention(c) (Int32, Int32) -> Int32
  let cloneNewNet: Int32 = 0x4000_0000  // CLONE_NEWNET, <linux/sched.h>
  guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "setns") else {
    errno = ENOSYS
    return -1
  }
  return unsafeBitCast(symbol, to: SetNS.self)(fd, cloneNewNet)
}

/// Why a thread could not enter a network namespace.
public struct NetworkNamespaceError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// Runs `body` on this thread inside the network namespace `namespace` (of
/// `ip netns add`): the sockets it opens and the processes it starts are
/// in it, and a socket keeps the namespace it was made in. Then the thread
/// comes back to its own namespace (a test failure if it cannot).
public func inNetworkNamespace<Value>(
  _ namespace: String, file: StaticString = #filePath, line: UInt = #line,
  _ body: () throws -> Value
) throws -> Value {
  let home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
  let target = open("/run/netns/\(namespace)", O_RDONLY | O_CLOEXEC)
  defer {
    if home >= 0 { close(home) }
    if target >= 0 { close(target) }
  }
  guard home >= 0, target >= 0 else {
    throw NetworkNamespaceError("cannot open this thread's or \(namespace)'s namespace")
  }
  guard joinNetworkNamespace(target) == 0 else {
    throw NetworkNamespaceError("entering \(namespace): errno \(errno)")
  }
  defer {
    XCTAssertEqual(
      joinNetworkNamespace(home), 0, "coming back from \(namespace)", file: file, line: line)
  }
  return try body()
}

/// Starts `executable` with `arguments` and returns it running: a server a
/// test stops with `stopProcess`. Its standard input is /dev/null; its
/// output and errors are appended to `logPath` (created if need be), or
/// discarded without one. `environment` is added to this process's.
public func launchProcess(
  _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
  logPath: String? = nil
) throws -> Process {
  let process = makeProcess(executable, arguments, environment: environment)
  var log: FileHandle?
  if let logPath {
    if !FileManager.default.fileExists(atPath: logPath) {
      _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    }
    log = FileHandle(forWritingAtPath: logPath)
    log?.seekToEndOfFile()
  }
  process.standardInput = FileHandle.nullDevice
  process.standardOutput = log ?? FileHandle.nullDevice
  process.standardError = log ?? FileHandle.nullDevice
  try process.run()
  return process
}

/// A `Process` for `executable` and `arguments`, with `environment` added
/// to this process's.
private func makeProcess(
  _ executable: URL, _ arguments: [String], environment: [String: String]
) -> Process {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  if !environment.isEmpty {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  return process
}

/// SIGTERM, up to 5 s to go, then SIGKILL; only the process given.
public func stopProcess(_ process: Process) {
  guard process.isRunning else { return }
  process.terminate()
  let deadline = Date().addingTimeInterval(5)
  while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
  if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  process.waitUntilExit()
}

/// What a reader thread collected.
private final class CollectedData: @unchecked Sendable {
  private let lock = NSLock()
  private var value = Data()

  func set(_ data: Data) { lock.withLock { value = data } }
  var data: Data { lock.withLock { value } }
}

/// Whether a run has ended, and whether its time ran out first: once the
/// run has been waited for, the watchdog signals nothing (its process ID
/// may belong to another process by then).
private final class RunState: @unchecked Sendable {
  private let lock = NSLock()
  private var finished = false
  private var expired = false

  /// Marks the time as run out; false when the run had already ended.
  func expire() -> Bool {
    lock.withLock {
      expired = !finished
      return expired
    }
  }

  var isRunning: Bool { lock.withLock { !finished } }

  /// Marks the run as ended; whether its time had run out.
  func finish() -> Bool {
    lock.withLock {
      finished = true
      return expired
    }
  }
}
