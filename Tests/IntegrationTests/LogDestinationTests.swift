import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Where log lines go (issue 17, item 4): info and debug on standard output
/// and warnings and errors on standard error, which procd files as
/// `daemon.info` and `daemon.err`; or, when standard error is systemd's
/// journal (`JOURNAL_STREAM` names it), everything there with a `<N>`
/// priority prefix that journald reads. The query log names types and rcodes.
final class LogDestinationTests: XCTestCase {
  /// A config that logs one warning at start-up: 192.0.2.1 (TEST-NET-1) is
  /// no address of this machine, so it is bound free (IP_FREEBIND) and the
  /// start says so.
  func config(upstreamPort: UInt16) -> String {
    """
    listen 127.0.0.1:0
    listen 192.0.2.1:0
    upstream udp 127.0.0.1:\(upstreamPort)
    log-queries on
    timeout 1000ms
    """
  }

  /// Runs dnsward on `config` with stdout and stderr on pipes of their own,
  /// asks it `questions` (name, type), stops it, and returns both streams.
  func run(
    _ config: String, journal: (Pipe) -> String?, questions: [(String, UInt16)]
  ) throws -> (output: String, errors: String) {
    let configURL = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-log-\(UUID().uuidString).conf")
    try config.write(to: configURL, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: configURL) }
    let process = try DnswardBinary.process(["--config", configURL.path])
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    var environment = ProcessInfo.processInfo.environment
    environment["JOURNAL_STREAM"] = journal(errors)
    process.environment = environment
    let collected = Collected()
    output.fileHandleForReading.readabilityHandler = {
      collected.add($0.availableData, error: false)
    }
    errors.fileHandleForReading.readabilityHandler = {
      collected.add($0.availableData, error: true)
    }
    try process.run()
    defer {
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
    }
    var port: UInt16?
    let deadline = Date().addingTimeInterval(10)
    while port == nil && Date() < deadline && process.isRunning {
      port = DnswardProcess.listenPort(in: collected.all)
      if port == nil { Thread.sleep(forTimeInterval: 0.02) }
    }
    let listening = try XCTUnwrap(port, "no listening line: \(collected.all)")
    for (index, question) in questions.enumerated() {
      let query = dnsQuery(question.0, type: question.1, id: UInt16(index + 1))
      XCTAssertNotNil(StubClient.udp(query, port: listening), question.0)
    }
    process.terminate()
    process.waitUntilExit()
    Thread.sleep(forTimeInterval: 0.1)  // the handlers' last reads
    output.fileHandleForReading.readabilityHandler = nil
    errors.fileHandleForReading.readabilityHandler = nil
    return (collected.text(error: false), collected.text(error: true))
  }

  func testInfoGoesToStandardOutputAndWarningsToStandardError() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 20))
    defer { upstream.stop() }
    let streams = try run(
      config(upstreamPort: upstream.port), journal: { _ in nil },
      questions: [("www.example", 1), ("odd.example", 65280)])
    XCTAssertTrue(streams.output.contains("dnsward: info: listening on 127.0.0.1:"), streams.output)
    XCTAssertTrue(
      streams.output.contains(" udp www.example. A: NOERROR from 127.0.0.1:\(upstream.port) in "),
      streams.output)
    XCTAssertTrue(
      streams.output.contains(" udp odd.example. TYPE65280: NOERROR from "), streams.output)
    XCTAssertFalse(streams.output.contains("warning:"), streams.output)
    XCTAssertTrue(
      streams.errors.contains("dnsward: warning: listen 192.0.2.1:")
        && streams.errors.contains(": no interface has this address yet"), streams.errors)
    XCTAssertFalse(streams.errors.contains("info:"), streams.errors)
  }

  func testTheJournalStreamGetsEveryLineWithItsPriority() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 20))
    defer { upstream.stop() }
    let streams = try run(
      config(upstreamPort: upstream.port),
      journal: { pipe in
        var status = stat()
        guard fstat(pipe.fileHandleForWriting.fileDescriptor, &status) == 0 else { return nil }
        return "\(status.st_dev):\(status.st_ino)"
      }, questions: [("www.example", 28)])
    XCTAssertEqual(streams.output, "", "nothing on standard output")
    let lines = streams.errors.split(separator: "\n")
    XCTAssertTrue(
      lines.contains { $0.hasPrefix("<6>dnsward: info: listening on ") }, streams.errors)
    XCTAssertTrue(
      lines.contains { $0.hasPrefix("<4>dnsward: warning: listen 192.0.2.1:") }, streams.errors)
    XCTAssertTrue(
      lines.contains { $0.hasPrefix("<6>dnsward: info: query ") && $0.contains(" AAAA: NOERROR") },
      streams.errors)
    XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("<") }, streams.errors)
  }

  /// A config error stops the start with `file:line: message` at the
  /// error priority.
  func testAConfigErrorReachesTheJournalAsAnError() throws {
    let configURL = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-log-\(UUID().uuidString).conf")
    try "listen 127.0.0.1:0\ninflight 1000\n".write(
      to: configURL, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: configURL) }
    let process = try DnswardBinary.process(["--config", configURL.path])
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    var status = stat()
    XCTAssertEqual(fstat(errors.fileHandleForWriting.fileDescriptor, &status), 0)
    var environment = ProcessInfo.processInfo.environment
    environment["JOURNAL_STREAM"] = "\(status.st_dev):\(status.st_ino)"
    process.environment = environment
    try process.run()
    try errors.fileHandleForWriting.close()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 1)
    XCTAssertTrue(text.hasPrefix("<3>\(configURL.path):2: "), text)
  }

  /// A `JOURNAL_STREAM` inherited from a parent whose stream this is not
  /// (another device and inode) changes nothing.
  func testAJournalStreamOfAnotherFileIsIgnored() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 20))
    defer { upstream.stop() }
    let streams = try run(
      config(upstreamPort: upstream.port), journal: { _ in "1:2" }, questions: [])
    XCTAssertTrue(streams.output.contains("dnsward: info: listening on "), streams.output)
    XCTAssertFalse(streams.errors.contains("<"), streams.errors)
  }
}

/// Both streams' bytes as they arrive, and the two together in order.
private final class Collected: @unchecked Sendable {
  private let lock = NSLock()
  private var output = Data()
  private var errors = Data()
  private var both = Data()

  func add(_ data: Data, error: Bool) {
    lock.withLock {
      if error { errors.append(data) } else { output.append(data) }
      both.append(data)
    }
  }

  func text(error: Bool) -> String {
    lock.withLock { String(decoding: error ? errors : output, as: UTF8.self) }
  }

  var all: String { lock.withLock { String(decoding: both, as: UTF8.self) } }
}
