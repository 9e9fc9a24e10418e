import Foundation
import XCTest

/// `workers N`: N processes on one listen address through SO_REUSEPORT.
final class WorkersTests: XCTestCase {
  /// The pids whose parent is `pid` (from /proc/*/stat, field 4).
  func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> Int32? in
      guard let candidate = Int32(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && Int32(fields[1]) == pid ? candidate : nil
    }
  }

  /// The `queries N` count each worker logged at exit, by worker number.
  func queriesPerWorker(in log: String) -> [Int: Int] {
    var counts: [Int: Int] = [:]
    for line in log.split(separator: "\n") where line.contains(" queries ") {
      let words = line.split(separator: " ").map(String.init)
      guard let at = words.firstIndex(of: "worker"), let worker = Int(words[at + 1]),
        let queries = words.firstIndex(of: "queries"), let count = Int(words[queries + 1])
      else { continue }
      counts[worker] = count
    }
    return counts
  }

  func testTwoWorkersShareTheAddressAndStopTogether() throws {
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        override printer.lan 192.168.1.20
        workers 2
        """)
    defer { dnsward.stop() }
    let deadline = Date().addingTimeInterval(5)
    while !dnsward.log.contains("workers: 2") && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    XCTAssertTrue(dnsward.log.contains("workers: 2"), dnsward.log)
    let workers = children(of: dnsward.process.processIdentifier)
    XCTAssertEqual(workers.count, 1, "one forked worker besides the first")
    // Each query from a socket of its own: the kernel spreads them by port.
    let queries = 64
    for id in 0..<queries {
      let reply = Reply(
        StubClient.udp(StubClient.query("printer.lan", id: UInt16(id)), port: dnsward.port))
      XCTAssertEqual(reply?.id, UInt16(id))
      XCTAssertEqual(reply?.addresses, ["192.168.1.20"])
    }
    dnsward.process.terminate()
    XCTAssertEqual(dnsward.waitForExit(), 0)
    // The first worker waits for the others before it exits.
    for pid in workers {
      XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/\(pid)"), "worker \(pid) left")
    }
    Thread.sleep(forTimeInterval: 0.1)
    let counts = queriesPerWorker(in: dnsward.log)
    XCTAssertEqual(counts.count, 2, dnsward.log)
    XCTAssertEqual(counts.values.reduce(0, +), queries)
    XCTAssertGreaterThan(counts[0] ?? 0, 0, "worker 0 answered none")
    XCTAssertGreaterThan(counts[1] ?? 0, 0, "worker 1 answered none")
  }

  func testWorkersOutOfRangeIsAConfigError() throws {
    let dnsward = try DnswardProcess(
      config: "listen 127.0.0.1:0\nworkers 0\n", waitForListen: false)
    defer { dnsward.stop() }
    XCTAssertEqual(dnsward.waitForExit(), 1)
    XCTAssertTrue(dnsward.log.contains(":2: "), dnsward.log)
  }
}

/// RFC 5452 §9.2: every upstream query from a fresh random source port.
final class SourcePortTests: XCTestCase {
  func testEveryUpstreamQueryComesFromAFreshPort() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 80))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream udp 127.0.0.1:\(upstream.port)
        cache 0
        """)
    defer { dnsward.stop() }
    let queries = 40
    for index in 0..<queries {
      // One at a time: each reuses the ring slot (and socket) of the last.
      let reply = Reply(StubClient.udp(StubClient.query("n\(index).example"), port: dnsward.port))
      XCTAssertEqual(reply?.addresses, ["192.0.2.80"])
    }
    let ports = upstream.udpSourcePorts
    XCTAssertEqual(ports.count, queries)
    // Random draws from the ephemeral range may repeat now and then, but
    // not often, and never twice in a row from one reused socket.
    XCTAssertGreaterThan(Set(ports).count, queries - 3, "\(ports)")
    for index in 1..<ports.count {
      XCTAssertNotEqual(ports[index], ports[index - 1], "\(ports)")
    }
  }

  /// A second answer still queued when the attempt ends must not leave the
  /// slot's socket readable forever (a busy loop): dnsward stays idle.
  func testDuplicateAnswersLeaveTheLoopIdle() throws {
    let upstream = try FakeUpstream(.duplicated, answer: (192, 0, 2, 80))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream udp 127.0.0.1:\(upstream.port)
        cache 0
        """)
    defer { dnsward.stop() }
    for index in 0..<20 {
      let reply = Reply(StubClient.udp(StubClient.query("d\(index).example"), port: dnsward.port))
      XCTAssertEqual(reply?.addresses, ["192.0.2.80"])
    }
    func cpuTicks() -> Int {
      guard
        let stat = try? String(
          contentsOfFile: "/proc/\(dnsward.process.processIdentifier)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return 0 }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
    Thread.sleep(forTimeInterval: 0.2)
    let before = cpuTicks()
    Thread.sleep(forTimeInterval: 1)
    // Idle is ~0 ticks; a busy loop burns ~100 (a whole second).
    XCTAssertLessThan(cpuTicks() - before, 30, "dnsward kept the CPU busy while idle")
  }
}
