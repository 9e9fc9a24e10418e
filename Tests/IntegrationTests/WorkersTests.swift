import Foundation
import TestSupport
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
    XCTAssertTrue(dnsward.waitForLog("workers: 2"), dnsward.log)
    let workers = children(of: dnsward.process.processIdentifier)
    XCTAssertEqual(workers.count, 1, "one forked worker besides the first")
    // Each query from a socket of its own: the kernel spreads them by port.
    let queries = 64
    for id in 0..<queries {
      let reply = dnsward.ask("printer.lan", id: UInt16(id))
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
    XCTAssertTrue(dnsward.waitForLog(":2: "), dnsward.log)
  }
}
