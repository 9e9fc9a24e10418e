import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `cache-file` with the real binary: what one run learned is answered by
/// the next even though its upstream is silent (a reboot before the WAN is
/// up), and a corrupt file is reported and ignored.
final class CacheFileIntegrationTests: ScratchDirectoryTestCase {
  override class var scratchPrefix: String { "dnsward-cachefile" }

  var cachePath: String { directory.appendingPathComponent("dnsward.cache").path }

  func config(upstream: UInt16, timeout: String = "200ms", extra: String = "") -> String {
    """
    listen 127.0.0.1:0
    upstream udp 127.0.0.1:\(upstream)
    timeout \(timeout)
    stale 1d
    cache-file \(cachePath)
    \(extra)
    """
  }

  /// Stops dnsward with SIGTERM and waits for it to exit and for `line` in
  /// its log (the log arrives through a pipe, a little after the exit).
  func stop(_ dnsward: DnswardProcess, expecting line: String) {
    dnsward.process.terminate()
    XCTAssertEqual(dnsward.waitForExit(), 0)
    XCTAssertTrue(dnsward.waitForLog(line, seconds: 2), dnsward.log)
    dnsward.stop()
  }

  /// Runs dnsward with an honest upstream until it has cached `name` and
  /// saved it to the file at shutdown.
  func saveOneAnswer(for name: String, address: (UInt8, UInt8, UInt8, UInt8)) throws {
    let honest = try FakeUpstream(.honest, answer: address)
    defer { honest.stop() }
    let first = try DnswardProcess(config: config(upstream: honest.port))
    _ = StubClient.udp(dnsQuery(name), port: first.port)
    stop(first, expecting: "saved 1 cached answers")
  }

  /// Resolves through an honest upstream, stops with SIGTERM: the file is
  /// written. A new dnsward with a silent upstream loads it and still
  /// answers the name, stale (TTL 30), after the upstream timed out.
  func testAnswersSurviveARestartWithTheUpstreamsDown() throws {
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 70))
    defer { honest.stop() }
    let first = try DnswardProcess(config: config(upstream: honest.port))
    XCTAssertTrue(first.log.contains("no cached answers in \(cachePath) yet"), first.log)
    let fresh = first.ask("Saved.Example")
    XCTAssertEqual(fresh?.addresses, ["192.0.2.70"])
    XCTAssertEqual(fresh?.firstTTL, 3600)
    stop(first, expecting: "saved 1 cached answers to \(cachePath)")
    XCTAssertTrue(FileManager.default.fileExists(atPath: cachePath))
    XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".tmp"))
    let file = try XCTUnwrap(FileManager.default.contents(atPath: cachePath))
    XCTAssertEqual(Array(file.prefix(8)), Array("DNSWARDC".utf8))

    let silent = try FakeUpstream(.silent)
    defer { silent.stop() }
    let second = try DnswardProcess(config: config(upstream: silent.port))
    defer { second.stop() }
    XCTAssertTrue(second.log.contains("loaded 1 cached answers from \(cachePath)"), second.log)
    let stale = second.ask("saved.example", id: 77)
    XCTAssertEqual(stale?.id, 77)
    XCTAssertEqual(stale?.rcode, 0)
    XCTAssertEqual(stale?.addresses, ["192.0.2.70"])
    XCTAssertEqual(stale?.firstTTL, 30, "loaded answers are stale answers (RFC 8767)")
    XCTAssertGreaterThanOrEqual(silent.udpQueries, 1, "asked upstream first")
    // A name that was never cached still fails.
    let unknown = second.ask("other.example")
    XCTAssertEqual(unknown?.rcode, 2)
  }

  /// With stale-first, a loaded answer is given at once, long before the
  /// slow upstream answers or times out.
  func testStaleFirstAnswersLoadedNamesAtOnce() throws {
    let honest = try FakeUpstream(.honest, answer: (192, 0, 2, 71))
    defer { honest.stop() }
    let first = try DnswardProcess(config: config(upstream: honest.port))
    XCTAssertEqual(
      first.ask("quick.example")?.addresses,
      ["192.0.2.71"])
    stop(first, expecting: "saved 1 cached answers")

    let slow = try FakeUpstream(.slow(milliseconds: 2500))
    defer { slow.stop() }
    let second = try DnswardProcess(
      config: config(upstream: slow.port, timeout: "2500ms", extra: "stale-first on"))
    defer { second.stop() }
    let started = Date()
    let reply = second.ask("quick.example")
    XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
    XCTAssertEqual(reply?.addresses, ["192.0.2.71"])
    XCTAssertEqual(reply?.firstTTL, 30)
  }

  /// A damaged file is reported and ignored; dnsward starts all the same,
  /// and its next save replaces the file.
  func testCorruptFileIsReportedAndIgnored() throws {
    try saveOneAnswer(for: "kept.example", address: (192, 0, 2, 72))
    var bytes = try XCTUnwrap(FileManager.default.contents(atPath: cachePath))
    bytes[bytes.count / 2] ^= 0x20
    try bytes.write(to: URL(fileURLWithPath: cachePath))

    let silent = try FakeUpstream(.silent)
    defer { silent.stop() }
    let second = try DnswardProcess(config: config(upstream: silent.port))
    defer { second.stop() }
    XCTAssertTrue(
      second.log.contains("ignoring \(cachePath): checksum mismatch (truncated or corrupt)"),
      second.log)
    let reply = second.ask("kept.example")
    XCTAssertEqual(reply?.rcode, 2, "nothing of the corrupt file was trusted")

    // Truncated to a few bytes, and not a cache file at all.
    try Data(bytes.prefix(10)).write(to: URL(fileURLWithPath: cachePath))
    let third = try DnswardProcess(config: config(upstream: silent.port))
    defer { third.stop() }
    XCTAssertTrue(third.log.contains("ignoring \(cachePath): truncated"), third.log)
    try Data("nameserver 192.0.2.53\n".utf8).write(to: URL(fileURLWithPath: cachePath))
    let fourth = try DnswardProcess(config: config(upstream: silent.port))
    defer { fourth.stop() }
    XCTAssertTrue(
      fourth.log.contains("ignoring \(cachePath): not a dnsward cache file"), fourth.log)
  }

  /// The file is written 0600, and one that another account could have
  /// written (here: writable by everyone) is not read at all.
  func testFileOthersCouldWriteIsNotTrusted() throws {
    try saveOneAnswer(for: "private.example", address: (192, 0, 2, 73))
    let attributes = try FileManager.default.attributesOfItem(atPath: cachePath)
    XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    XCTAssertEqual(chmod(cachePath, 0o666), 0)

    let silent = try FakeUpstream(.silent)
    defer { silent.stop() }
    let second = try DnswardProcess(config: config(upstream: silent.port))
    defer { second.stop() }
    XCTAssertTrue(
      second.log.contains(
        "ignoring \(cachePath): not a regular file of this user or root, or writable by others"),
      second.log)
    XCTAssertEqual(
      second.ask("private.example")?.rcode, 2)
  }

  /// A leftover `PATH.tmp` (a crash mid-save, or a symlink someone planted)
  /// is replaced, never written through.
  func testLeftoverTemporaryFileOrSymlinkIsReplaced() throws {
    let honest = try FakeUpstream(.honest)
    defer { honest.stop() }
    let victim = directory.appendingPathComponent("victim")
    try Data("precious\n".utf8).write(to: victim)
    try FileManager.default.createSymbolicLink(
      atPath: cachePath + ".tmp", withDestinationPath: victim.path)
    let dnsward = try DnswardProcess(config: config(upstream: honest.port))
    _ = StubClient.udp(dnsQuery("x.example"), port: dnsward.port)
    stop(dnsward, expecting: "saved 1 cached answers")
    XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "precious\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".tmp"))
    let file = try XCTUnwrap(FileManager.default.contents(atPath: cachePath))
    XCTAssertEqual(Array(file.prefix(8)), Array("DNSWARDC".utf8))
  }

  /// A file that cannot be written is a warning at shutdown, not a failure.
  func testUnwritableDirectoryIsAWarning() throws {
    let honest = try FakeUpstream(.honest)
    defer { honest.stop() }
    let missing = directory.appendingPathComponent("no-such-dir/dnsward.cache").path
    let dnsward = try DnswardProcess(
      forwardingTo: honest,
      """
      stale 1d
      cache-file \(missing)
      """)
    _ = StubClient.udp(dnsQuery("x.example"), port: dnsward.port)
    stop(dnsward, expecting: "warning: cannot save cached answers to \(missing): ")
  }

  /// Without `stale` a loaded answer could never be served: the file is
  /// neither read nor written, and the log says why.
  func testWithoutStaleTheFileIsNotUsed() throws {
    let honest = try FakeUpstream(.honest)
    defer { honest.stop() }
    let dnsward = try DnswardProcess(
      forwardingTo: honest,
      """
      cache-file \(cachePath)
      """)
    XCTAssertTrue(dnsward.log.contains("cache-file \(cachePath) is not used"), dnsward.log)
    _ = StubClient.udp(dnsQuery("x.example"), port: dnsward.port)
    dnsward.process.terminate()
    XCTAssertEqual(dnsward.waitForExit(), 0)
    dnsward.stop()
    XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath))
  }
}
