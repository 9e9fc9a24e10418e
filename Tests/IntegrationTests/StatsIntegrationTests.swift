import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `dnsward stats [ADDR]` against the real server: the CLI asks
/// `stats.dnsward. CH TXT` and prints `name value` lines.
final class StatsIntegrationTests: XCTestCase {
  /// Runs the dnsward under test with `arguments` to its exit, failing
  /// the test if it has to be ended.
  func runDnsward(
    _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
  ) throws -> DnswardBinary.Run {
    let run = try DnswardBinary.run(arguments)
    XCTAssertFalse(run.timedOut, "dnsward \(arguments) did not exit", file: file, line: line)
    return run
  }

  static let config = """
    listen 127.0.0.1:0
    override printer.lan 192.168.1.20
    override nas.lan 192.168.1.21
    override tv.lan 192.168.1.22
    block ads.example
    cache 64
    """

  func testStatsCommandPrintsTheServersCounters() throws {
    // The list is over the default 1232 bytes; 4096 fits it in one datagram.
    let dnsward = try DnswardProcess(config: Self.config + "\nedns-size 4096\n")
    defer { dnsward.stop() }
    for (index, name) in ["printer.lan", "NAS.lan", "tv.lan", "printer.lan"].enumerated() {
      let query = dnsQuery(name, id: UInt16(index))
      let reply = Reply(StubClient.udp(query, port: dnsward.port))
      XCTAssertEqual(reply?.rcode, 0, name)
    }
    XCTAssertEqual(
      dnsward.ask("ads.example", id: 9)?.rcode, 3)

    let run = try runDnsward(["stats", "127.0.0.1:\(dnsward.port)"])
    XCTAssertEqual(run.status, 0, run.errors)
    let values = run.values
    XCTAssertEqual(values["overridden"], 4)
    XCTAssertEqual(values["blocked"], 1)
    XCTAssertEqual(values["queries"], 6, "five client queries and the stats query")
    XCTAssertEqual(values["chaosAnswered"], 1)
    XCTAssertEqual(values["forwarded"], 0)
    XCTAssertEqual(values["cacheCapacity"], 64)
    XCTAssertEqual(values["truncated"], 0, "it fits the server's EDNS size: one UDP exchange")
    XCTAssertEqual(run.output.split(separator: "\n").first, "queries 6", "the documented order")
    XCTAssertEqual(values.count, run.output.split(separator: "\n").count, "no name twice")
  }

  func testStatsCommandRetriesOverTCPWhenTruncated() throws {
    // With a 512-byte EDNS limit the list never fits in UDP.
    let dnsward = try DnswardProcess(config: Self.config + "\nedns-size 512\n")
    defer { dnsward.stop() }
    _ = StubClient.udp(dnsQuery("printer.lan"), port: dnsward.port)
    let run = try runDnsward(["stats", "127.0.0.1:\(dnsward.port)"])
    XCTAssertEqual(run.status, 0, run.errors)
    let values = run.values
    XCTAssertEqual(values["truncated"], 1, "the UDP answer was truncated...")
    XCTAssertEqual(values["chaosAnswered"], 2, "...and asked again over TCP")
    XCTAssertEqual(values["overridden"], 1)
  }

  func testStatsCommandOverIPv6() throws {
    guard StubClient.hasIPv6Loopback else { throw XCTSkip("no IPv6 loopback on this machine") }
    let dnsward = try DnswardProcess(config: Self.config + "\nlisten [::1]:0\n")
    defer { dnsward.stop() }
    let port = try XCTUnwrap(DnswardProcess.port(after: "[::1]:", in: dnsward.log))
    _ = StubClient.udp6(dnsQuery("tv.lan"), port: port)
    let run = try runDnsward(["stats", "[::1]:\(port)"])
    XCTAssertEqual(run.status, 0, run.errors)
    XCTAssertEqual(run.values["overridden"], 1)
  }

  func testStatsCommandTimesOutWithExitStatus1() throws {
    // A UDP socket that never answers.
    let (silent, port) = try XCTUnwrap(StubClient.boundUDPSocket())
    defer { close(silent) }
    let started = Date()
    let run = try runDnsward(["stats", "127.0.0.1:\(port)"])
    XCTAssertEqual(run.status, 1)
    XCTAssertTrue(run.errors.contains("no answer from 127.0.0.1:\(port) within 2 s"), run.errors)
    XCTAssertEqual(run.output, "")
    XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.9)
  }

  /// `stats --json`: one JSON object with the same figures as the text,
  /// each upstream's in its own object of `upstreams`.
  func testStatsJSONHoldsTheSameFiguresAsTheText() throws {
    let upstream = try FakeUpstream(.honest, answer: (192, 0, 2, 20))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: Self.config + "\nupstream udp 127.0.0.1:\(upstream.port)\nedns-size 4096\n")
    defer { dnsward.stop() }
    for (index, name) in ["printer.lan", "www.example", "ads.example"].enumerated() {
      XCTAssertNotNil(
        dnsward.ask(name, id: UInt16(index)))
    }
    let json = try runDnsward(["stats", "--json", "127.0.0.1:\(dnsward.port)"])
    XCTAssertEqual(json.status, 0, json.errors)
    XCTAssertTrue(json.output.hasSuffix("}\n"), json.output)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], json.output)
    let text = try runDnsward(["stats", "127.0.0.1:\(dnsward.port)"]).values
    XCTAssertEqual(object["overridden"] as? Int, 1)
    XCTAssertEqual(object["blocked"] as? Int, 1)
    XCTAssertEqual(object["forwarded"] as? Int, 1)
    let upstreams = try XCTUnwrap(object["upstreams"] as? [[String: Any]], json.output)
    XCTAssertEqual(upstreams.count, 1)
    XCTAssertEqual(upstreams.first?["answers"] as? Int, 1)
    XCTAssertNotNil(upstreams.first?["srtt-ms"] as? Int)
    // Every text line is in the object (the second run counts one more
    // query and one more CHAOS answer; the rest is unchanged).
    for (name, value) in text {
      if name.hasPrefix("upstream0.") {
        let key = String(name.dropFirst("upstream0.".count))
        XCTAssertNotNil(upstreams.first?[key] as? Int, name)
      } else if name != "queries" && name != "chaosAnswered" && name != "queriesUDP" {
        XCTAssertEqual((object[name] as? Int).map(UInt64.init), value, name)
      }
    }
  }

  func testStatsCommandRejectsABadAddress() throws {
    let run = try runDnsward(["stats", "printer.lan:53"])
    XCTAssertEqual(run.status, 2)
    XCTAssertTrue(run.errors.contains("not an address"), run.errors)
  }
}

extension DnswardBinary.Run {
  /// `name value` lines as a dictionary (and checks their shape).
  var values: [String: UInt64] {
    var result: [String: UInt64] = [:]
    for line in output.split(separator: "\n") {
      let parts = line.split(separator: " ")
      XCTAssertEqual(parts.count, 2, "line: \(line)")
      if parts.count == 2 { result[String(parts[0])] = UInt64(parts[1]) }
    }
    return result
  }
}
