import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `metrics ADDRESS:PORT`: a real dnsward scraped over HTTP on loopback.
/// `metrics 127.0.0.1:0` binds a free port, which the start-up log names
/// before "listening on", so the test learns it without a race.
final class MetricsIntegrationTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:0
    metrics 127.0.0.1:0
    override printer.lan 192.168.1.20
    """

  /// An HTTP response: status code, headers (names lower-cased), body.
  struct Response {
    var status: Int
    var headers: [String: String]
    var body: String
  }

  /// Sends `request` raw over a fresh TCP connection and reads to the end
  /// (the server closes after each response); nil if nothing came back.
  func exchange(_ request: String, port: UInt16) -> Response? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = StubClient.connectToLoopback(fd, port: port)
    guard connected == 0 else { return nil }
    let bytes = Array(request.utf8)
    guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { return nil }
    let headLines = text[..<split.lowerBound].components(separatedBy: "\r\n")
    let statusWords = headLines[0].split(separator: " ")
    guard statusWords.count >= 2, let status = Int(statusWords[1]) else { return nil }
    var headers: [String: String] = [:]
    for line in headLines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    return Response(status: status, headers: headers, body: String(text[split.upperBound...]))
  }

  func get(_ path: String, port: UInt16) -> Response? {
    exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", port: port)
  }

  /// The samples of a scrape: the series (name and labels) → value. Fails
  /// the test on a sample whose metric has no `# TYPE` line before it.
  func samples(_ body: String, file: StaticString = #filePath, line: UInt = #line)
    -> [String: Double]
  {
    var typed: Set<String> = []
    var values: [String: Double] = [:]
    for text in body.split(separator: "\n") {
      if text.hasPrefix("# TYPE ") {
        typed.insert(String(text.split(separator: " ")[2]))
        continue
      }
      if text.hasPrefix("#") { continue }
      guard let space = text.lastIndex(of: " "),
        let value = Double(text[text.index(after: space)...])
      else {
        XCTFail("not a sample: \(text)", file: file, line: line)
        continue
      }
      let series = String(text[..<space])
      let name = String(series.prefix { $0 != "{" })
      let family = ["_bucket", "_sum", "_count"].reduce(name) {
        name.hasSuffix($1) && name.hasPrefix("dnsward_answer_latency")
          ? String(name.dropLast($1.count)) : $0
      }
      XCTAssertTrue(typed.contains(family), "\(series) has no # TYPE", file: file, line: line)
      XCTAssertNil(values[series], "\(series) twice", file: file, line: line)
      values[series] = value
    }
    return values
  }

  func scrape(port: UInt16, file: StaticString = #filePath, line: UInt = #line) -> [String: Double]
  {
    guard let response = get("/metrics", port: port) else {
      XCTFail("no response to GET /metrics", file: file, line: line)
      return [:]
    }
    XCTAssertEqual(response.status, 200, response.body, file: file, line: line)
    return samples(response.body, file: file, line: line)
  }

  /// Whether the binary under test serves metrics: a firmware built with
  /// -DDNSWARD_METRICS=OFF refuses a config with `metrics` at start-up.
  static let binaryHasMetrics = !DnswardProcess.refusesAtStartUp(
    config: "listen 127.0.0.1:0\nmetrics 127.0.0.1:0\n", saying: "built without them")

  override func setUpWithError() throws {
    guard Self.binaryHasMetrics else {
      throw XCTSkip("the binary under test was built without metrics (-DDNSWARD_METRICS=OFF)")
    }
  }

  func metricsPort(_ dnsward: DnswardProcess) throws -> UInt16 {
    guard let port = DnswardProcess.port(after: "metrics on http://127.0.0.1:", in: dnsward.log)
    else {
      XCTFail("no metrics address in the log: \(dnsward.log)")
      throw XCTSkip("no metrics port")
    }
    return port
  }

  func testCountersMoveByTheQueriesSent() throws {
    let dnsward = try DnswardProcess(config: Self.config)
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    let response = try XCTUnwrap(get("/metrics", port: port))
    XCTAssertEqual(response.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8")
    XCTAssertEqual(Int(response.headers["content-length"] ?? ""), response.body.utf8.count)
    let before = samples(response.body)
    XCTAssertEqual(before["dnsward_queries_total"], 0)
    XCTAssertEqual(before["dnsward_workers"], 1)
    XCTAssertEqual(before["dnsward_cache_capacity"], 4096, "a gauge: no _total")
    XCTAssertNotNil(before["dnsward_uptime_seconds"])

    let sent = 12
    for id in 0..<sent {
      let reply = dnsward.ask("printer.lan", id: UInt16(id))
      XCTAssertEqual(reply?.addresses, ["192.168.1.20"])
    }
    let after = scrape(port: port)
    XCTAssertEqual(after["dnsward_queries_total"], Double(sent), "up by exactly the queries sent")
    XCTAssertEqual(after["dnsward_overridden_total"], Double(sent))
    XCTAssertEqual(after["dnsward_answer_latency_seconds_count"], Double(sent))
    XCTAssertEqual(after["dnsward_answer_latency_seconds_bucket{le=\"+Inf\"}"], Double(sent))
    XCTAssertEqual(
      after["dnsward_answer_latency_seconds_bucket{le=\"0.001\"}"], Double(sent),
      "local answers are written in the call that read the query: 0 ms")
    XCTAssertEqual(after["dnsward_cache_hit_ratio"], 0, "no cache lookup for an override")
  }

  /// A statistic is one line of the `Statistic` table
  /// (Sources/Engine/Statistics/Statistic.swift): `upstreamTruncated` was
  /// added so, and shows under its name in `stats` and `stats --json`, and
  /// in snake case in `/metrics`, with nothing else written for it.
  func testAStatisticAddedByOneLineIsInStatsJSONAndMetrics() throws {
    let upstream = try FakeUpstream(.truncating, answer: (192, 0, 2, 30))
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: Self.config + "\nupstream udp 127.0.0.1:\(upstream.port)\n")
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    XCTAssertEqual(dnsward.ask("tc.example", id: 1)?.addresses, ["192.0.2.30"])
    XCTAssertEqual(upstream.tcpQueries, 1, "asked again over TCP")
    let text = try DnswardBinary.run(["stats", "127.0.0.1:\(dnsward.port)"])
    XCTAssertEqual(text.values["upstreamTruncated"], 1, text.output)
    let json = try DnswardBinary.run(["stats", "--json", "127.0.0.1:\(dnsward.port)"])
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], json.output)
    XCTAssertEqual(object["upstreamTruncated"] as? Int, 1)
    XCTAssertEqual(scrape(port: port)["dnsward_upstream_truncated_total"], 1)
  }

  func testUpstreamFiguresCarryTheirAddress() throws {
    let upstream = try FakeUpstream(.honest)
    defer { upstream.stop() }
    let dnsward = try DnswardProcess(
      config: Self.config + "\nupstream udp 127.0.0.1:\(upstream.port)\n")
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    for id in 0..<3 {
      _ = StubClient.udp(dnsQuery("a\(id).example", id: UInt16(id)), port: dnsward.port)
    }
    _ = StubClient.udp(dnsQuery("a0.example", id: 9), port: dnsward.port)
    let values = scrape(port: port)
    let label = "{upstream=\"127.0.0.1:\(upstream.port)\",index=\"0\"}"
    XCTAssertEqual(values["dnsward_upstream_answers_total" + label], 3)
    XCTAssertEqual(values["dnsward_upstream_timeouts_total" + label], 0)
    XCTAssertNotNil(values["dnsward_upstream_srtt_seconds" + label])
    XCTAssertEqual(values["dnsward_cache_hits_total"], 1)
    XCTAssertEqual(values["dnsward_cache_misses_total"], 3)
    XCTAssertEqual(values["dnsward_cache_hit_ratio"], 0.25)
  }

  /// A reload that brings upstreams start-up did not have: their figures
  /// are served under their own labels, and the kept one's go on counting.
  func testUpstreamsOfAReloadAreServed() throws {
    let first = try FakeUpstream(.honest)
    defer { first.stop() }
    let second = try FakeUpstream(.honest)
    defer { second.stop() }
    let config = Self.config + "\nupstream udp 127.0.0.1:\(first.port)\n"
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    _ = StubClient.udp(dnsQuery("a0.example", id: 1), port: dnsward.port)
    try (config + "upstream udp 127.0.0.1:\(second.port)\nupstream udp 127.0.0.1:9\n").write(
      to: dnsward.configURL, atomically: true, encoding: .utf8)
    kill(dnsward.process.processIdentifier, SIGHUP)
    XCTAssertTrue(dnsward.waitForLog("3 upstreams; cache emptied"), dnsward.log)
    _ = StubClient.udp(dnsQuery("a1.example", id: 2), port: dnsward.port)
    let values = scrape(port: port)
    let labels = [first.port, second.port, 9].enumerated().map { index, upstream in
      "{upstream=\"127.0.0.1:\(upstream)\",index=\"\(index)\"}"
    }
    XCTAssertEqual(values["dnsward_upstream_answers_total" + labels[0]], 2, "kept: not reset")
    XCTAssertEqual(values["dnsward_upstream_answers_total" + labels[1]], 0)
    XCTAssertEqual(values["dnsward_upstream_answers_total" + labels[2]], 0)
    XCTAssertEqual(values["dnsward_queries_total"], 2)
  }

  func testOtherPathsAndMethodsAreRefused() throws {
    let dnsward = try DnswardProcess(config: Self.config)
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    XCTAssertEqual(get("/", port: port)?.status, 404)
    XCTAssertEqual(get("/metricsx", port: port)?.status, 404)
    XCTAssertEqual(get("/metrics?name=x", port: port)?.status, 200, "the query part is ignored")
    let post = exchange("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", port: port)
    XCTAssertEqual(post?.status, 405)
    XCTAssertEqual(post?.headers["allow"], "GET")
    XCTAssertEqual(exchange("nonsense\r\n\r\n", port: port)?.status, 400)
    XCTAssertTrue(dnsward.process.isRunning)
  }

  func testClientOutsideAllowIsRefused() throws {
    let dnsward = try DnswardProcess(config: Self.config + "\nallow 10.0.0.0/8\n")
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    let response = get("/metrics", port: port)
    XCTAssertEqual(response?.status, 403)
    XCTAssertFalse(response?.body.contains("dnsward_") ?? true, "no figure leaks")
  }

  /// Queries spread by the kernel over two workers: the scrape (answered
  /// by worker 0) adds both up. Workers publish once a second, so the test
  /// waits for the total; the exit log shows both workers got some.
  func testTwoWorkersAreAddedUp() throws {
    // With the seccomp filter: a scrape needs no system call it does not allow.
    let dnsward = try DnswardProcess(config: Self.config + "\nworkers 2\nseccomp on\n")
    defer { dnsward.stop() }
    XCTAssertTrue(dnsward.waitForLog("workers: 2"), dnsward.log)
    let port = try metricsPort(dnsward)
    let sent = 64
    for id in 0..<sent {
      // A socket of its own per query: the kernel spreads them by port.
      let reply = dnsward.ask("printer.lan", id: UInt16(id))
      XCTAssertEqual(reply?.id, UInt16(id))
    }
    var values: [String: Double] = [:]
    let deadline = Date().addingTimeInterval(5)
    repeat {
      values = scrape(port: port)
      if values["dnsward_queries_total"] == Double(sent) { break }
      Thread.sleep(forTimeInterval: 0.2)
    } while Date() < deadline
    XCTAssertEqual(values["dnsward_queries_total"], Double(sent), "both workers' queries")
    XCTAssertEqual(values["dnsward_overridden_total"], Double(sent))
    XCTAssertEqual(values["dnsward_answer_latency_seconds_count"], Double(sent))
    XCTAssertEqual(values["dnsward_workers"], 2)
    XCTAssertEqual(values["dnsward_cache_capacity"], 2 * 4096, "each worker's own cache")

    dnsward.process.terminate()
    XCTAssertEqual(dnsward.waitForExit(), 0)
    Thread.sleep(forTimeInterval: 0.1)
    var perWorker: [Int: Int] = [:]
    for line in dnsward.log.split(separator: "\n") where line.contains(" queries ") {
      let words = line.split(separator: " ").map(String.init)
      guard let at = words.firstIndex(of: "worker"), let worker = Int(words[at + 1]),
        let queries = words.firstIndex(of: "queries"), let count = Int(words[queries + 1])
      else { continue }
      perWorker[worker] = count
    }
    XCTAssertEqual(perWorker.count, 2, dnsward.log)
    XCTAssertEqual(perWorker.values.reduce(0, +), sent)
    XCTAssertTrue(
      perWorker.values.allSatisfy { $0 > 0 },
      "each worker answered some, so the total is a sum: \(perWorker)")
  }

  /// 64 upstreams (the most listed), half of them IPv6 with long labels:
  /// the body (about 40 KB) fits the response buffer sized for them, and a
  /// scraper reading it slowly through a small receive buffer gets it
  /// whole. (Loopback takes it in one send here, so this does not reach the
  /// EPOLLOUT continuation.)
  func testSixtyFourUpstreamsFitAndASlowReaderGetsItAll() throws {
    var config = Self.config + "\n"
    for index in 0..<64 {
      config +=
        index % 2 == 0
        ? "upstream udp 127.0.0.1:\(10_000 + index)\n"
        : "upstream udp [fd00:1234:5678:9abc:def0:1234:5678:\(1000 + index)]:\(60_000 + index)\n"
    }
    let dnsward = try DnswardProcess(config: config)
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var small: Int32 = 2048
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = StubClient.connectToLoopback(fd, port: port)
    XCTAssertEqual(connected, 0)
    let request = Array("GET /metrics HTTP/1.1\r\n\r\n".utf8)
    XCTAssertEqual(send(fd, request, request.count, Int32(MSG_NOSIGNAL)), request.count)
    Thread.sleep(forTimeInterval: 0.3)
    // The loop is not held up by the unread response.
    let reply = dnsward.ask("printer.lan", id: 3)
    XCTAssertEqual(reply?.addresses, ["192.168.1.20"])
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 512)
    while true {
      let count = recv(fd, &chunk, chunk.count, 0)
      if count <= 0 { break }
      received += chunk[0..<count]
      if received.count % 8192 < 512 { Thread.sleep(forTimeInterval: 0.01) }
    }
    let text = String(decoding: received, as: UTF8.self)
    let split = try XCTUnwrap(text.range(of: "\r\n\r\n"))
    XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), String(text.prefix(40)))
    let body = String(text[split.upperBound...])
    XCTAssertGreaterThan(body.utf8.count, 35_000, "about 40 KB")
    XCTAssertTrue(text.contains("Content-Length: \(body.utf8.count)\r\n"))
    let values = samples(body)
    XCTAssertEqual(values["dnsward_workers"], 1, "the last line arrived")
    XCTAssertNotNil(
      values[
        "dnsward_upstream_disagreements_total{upstream=\"[fd00:1234:5678:9abc:def0:1234:5678:1063]:60063\",index=\"63\"}"
      ])
  }

  /// A TCP connection to 127.0.0.1:`port` that sends nothing; -1 if none.
  func idleConnection(port: UInt16) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let connected = StubClient.connectToLoopback(fd, port: port)
    guard connected == 0 else {
      close(fd)
      return -1
    }
    var timeout = timeval(tv_sec: 9, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return fd
  }

  /// Whether the server closed `fd` (end of stream or reset) within the
  /// socket's receive timeout, sending nothing.
  func closedByServer(_ fd: Int32) -> Bool {
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, 0) <= 0 && errno != EAGAIN
  }

  /// Scrapers that send nothing hold the two connection slots: a third
  /// connection is closed at once, DNS is answered meanwhile, and the idle
  /// ones are closed after the 5-second limit, freeing the slots.
  func testIdleScrapersAreBoundedAndTimedOut() throws {
    let dnsward = try DnswardProcess(config: Self.config)
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    let idle = [idleConnection(port: port), idleConnection(port: port)]
    defer { for fd in idle { close(fd) } }
    XCTAssertFalse(idle.contains(-1))
    Thread.sleep(forTimeInterval: 0.2)
    let third = idleConnection(port: port)
    defer { close(third) }
    let started = Date()
    XCTAssertTrue(closedByServer(third), "no third slot")
    XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    let reply = dnsward.ask("printer.lan", id: 7)
    XCTAssertEqual(reply?.addresses, ["192.168.1.20"], "the loop answers while scrapers idle")
    for fd in idle { XCTAssertTrue(closedByServer(fd), "an idle scraper is closed") }
    let waited = Date().timeIntervalSince(started)
    XCTAssertGreaterThan(waited, 3, "not before the limit")
    XCTAssertLessThan(waited, 8, "at the limit (5 s), checked once a second")
    XCTAssertEqual(get("/metrics", port: port)?.status, 200, "the slots are free again")
  }

  func testMetricsAddressInUseStopsStartUp() throws {
    let dnsward = try DnswardProcess(config: Self.config)
    defer { dnsward.stop() }
    let port = try metricsPort(dnsward)
    let second = try DnswardProcess(
      config: "listen 127.0.0.1:0\nmetrics 127.0.0.1:\(port)\n", waitForListen: false)
    defer { second.stop() }
    XCTAssertEqual(second.waitForExit(), 1, second.log)
    XCTAssertTrue(second.log.contains("cannot serve metrics on 127.0.0.1:\(port)"), second.log)
  }
}
