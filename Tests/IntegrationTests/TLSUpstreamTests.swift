import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

#if TLS
  /// `upstream tls` (DoT, RFC 7858) and `upstream https` (DoH, RFC 8484)
  /// through the real binary, against dnsdist 1.7 on loopback with
  /// certificates made at test time (TLSHarness.swift): every record type
  /// over UDP and TCP from the client, pipelining, the certificates and pins
  /// that must be refused (and logged), and a restarted server.
  ///
  ///     swift test --traits TLS --scratch-path .build-tls --filter TLSUpstream
  final class TLSUpstreamTests: XCTestCase {
    /// One backend and one dnsdist for the class: a DoT and a DoH listener
    /// per certificate the tests need.
    static var backend: FakeUpstream?
    static var server: Dnsdist?

    override func setUpWithError() throws {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
        throw XCTSkip("openssl is not installed (apt-get install openssl)")
      }
      guard Dnsdist.isInstalled else {
        throw XCTSkip("dnsdist is not installed (apt-get install dnsdist)")
      }
      guard TLSCertificates.made != nil else {
        throw XCTSkip("openssl could not make the test certificates")
      }
    }

    override class func tearDown() {
      server?.stop()
      server = nil
      backend?.stop()
      backend = nil
      TLSCertificates.remove()
    }

    var server: Dnsdist {
      get throws {
        if let server = Self.server { return server }
        let backend = try FakeUpstream(.custom(TestZone.answer))
        Self.backend = backend
        let server = try Dnsdist(
          backend: backend.port,
          [
            (.dot, "good"), (.dot, "other"), (.dot, "expired"), (.dot, "rogue"),
            (.doh, "good"), (.doh, "rogue"),
          ])
        Self.server = server
        return server
      }
    }

    /// A config with `upstreams` (without the word `upstream`) and the test
    /// CA as `ca-file` unless `caFile` is false. `log` nil keeps the default
    /// level (info): what an operator sees.
    func config(_ upstreams: [String], caFile: Bool = true, log: String? = "debug") -> String {
      var lines = ["listen 127.0.0.1:0"]
      if caFile { lines.append("ca-file \(TLSCertificates.path("ca.pem"))") }
      lines += upstreams.map { "upstream \($0)" }
      lines += ["timeout 2s", "cache 0"]
      if let log { lines.append("log \(log)") }
      return lines.joined(separator: "\n") + "\n"
    }

    func dot(_ certificate: String, _ options: String = "name=dns.test") throws -> String {
      "tls 127.0.0.1:\(try server.port(.dot, certificate)) \(options)"
    }

    func doh(_ certificate: String, _ options: String = "name=dns.test") throws -> String {
      "https 127.0.0.1:\(try server.port(.doh, certificate)) \(options)"
    }

    /// Generous timeouts: a TLS handshake in a debug build on a loaded
    /// machine can take a while; these tests are about what is answered.
    func udp(
      _ name: String, type: UInt16 = 1, edns: UInt16? = nil, id: UInt16 = 1,
      _ dnsward: DnswardProcess
    ) -> Reply? {
      let query = dnsQuery(name, type: type, id: id, edns: edns)
      return Reply(StubClient.udp(query, port: dnsward.port, timeout: 8))
    }

    func tcp(_ name: String, type: UInt16 = 1, id: UInt16 = 1, _ dnsward: DnswardProcess)
      -> Reply?
    {
      Reply(StubClient.tcp([dnsQuery(name, type: type, id: id)], port: dnsward.port).first)
    }

    /// Every answer of TestZone through `dnsward`, asked over UDP and over TCP.
    func assertAnswersEveryType(
      _ dnsward: DnswardProcess, file: StaticString = #filePath, line: UInt = #line
    ) {
      var id: UInt16 = 100
      for overTCP in [false, true] {
        let via = overTCP ? "TCP" : "UDP"
        func ask(_ name: String, _ type: UInt16, edns: UInt16? = nil) -> Reply? {
          id += 1
          return overTCP
            ? tcp(name, type: type, id: id, dnsward)
            : udp(name, type: type, edns: edns, id: id, dnsward)
        }
        let a = ask("www.example.test", 1)
        XCTAssertEqual(a?.id, id, "\(via) A: reply to our ID", file: file, line: line)
        XCTAssertEqual(
          a?.addresses, ["192.0.2.80"], "\(via) A; log:\n\(dnsward.log)", file: file, line: line)
        XCTAssertEqual(
          ask("www.example.test", 28)?.addresses, ["2001:db8:0:0:0:0:0:80"], "\(via) AAAA",
          file: file, line: line)
        let mx = ask("www.example.test", 15)
        XCTAssertEqual(mx?.answerTypes, [15], "\(via) MX", file: file, line: line)
        XCTAssertEqual(mx?.contains("mail"), true, "\(via) MX exchange", file: file, line: line)
        let txt = ask("www.example.test", 16)
        XCTAssertEqual(txt?.answerTypes, [16], "\(via) TXT", file: file, line: line)
        XCTAssertEqual(txt?.contains(TestZone.txt), true, "\(via) TXT text", file: file, line: line)
        let chain = ask("alias.example.test", 1)
        XCTAssertEqual(chain?.answerTypes, [5, 5, 1], "\(via) CNAME chain", file: file, line: line)
        XCTAssertEqual(chain?.addresses, ["192.0.2.80"], "\(via) chain", file: file, line: line)
        let nx = ask("nx.example.test", 1)
        XCTAssertEqual(nx?.rcode, 3, "\(via) NXDOMAIN", file: file, line: line)
        XCTAssertEqual(nx?.answerCount, 0, "\(via) NXDOMAIN", file: file, line: line)
        let big = ask("big.example.test", 1, edns: 1232)
        XCTAssertEqual(big?.truncated, false, "\(via) big", file: file, line: line)
        XCTAssertEqual(big?.addresses.count, 60, "\(via) big", file: file, line: line)
        XCTAssertGreaterThan(big?.bytes.count ?? 0, 512, "\(via) big", file: file, line: line)
      }
    }

    /// The first line of the log that has every one of `pieces`, waiting a
    /// little for it (the log is read from a pipe).
    func logLine(_ dnsward: DnswardProcess, with pieces: [String]) -> String? {
      let deadline = Date().addingTimeInterval(3)
      repeat {
        let found = dnsward.log.split(separator: "\n").first { line in
          pieces.allSatisfy { line.localizedCaseInsensitiveContains($0) }
        }
        if let found { return String(found) }
        Thread.sleep(forTimeInterval: 0.05)
      } while Date() < deadline
      return nil
    }

    // MARK: - Answers

    /// The bench without dnsward: kdig asks dnsdist over DoT and DoH with the
    /// test CA, so a failure below is dnsward's, not the bench's.
    func testBenchAnswersKdigOverDoTAndDoH() throws {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/kdig") else {
        throw XCTSkip("kdig is not installed (apt-get install knot-dnsutils)")
      }
      let common = [
        "+short", "+time=5", "+retry=0", "+tls-ca=\(TLSCertificates.path("ca.pem"))",
        "+tls-hostname=dns.test", "@127.0.0.1",
      ]
      let server = try self.server
      for (kind, option) in [(Dnsdist.Kind.dot, "+tls"), (.doh, "+https=/dns-query")] {
        let text = try runProcess(
          URL(fileURLWithPath: "/usr/bin/kdig"),
          common + [option, "-p", "\(server.port(kind, "good"))", "alias.example.test", "A"],
          mergingErrors: true
        ).outputText
        XCTAssertEqual(
          text, "alias2.example.test.\nwww.example.test.\n192.0.2.80\n",
          "\(option); dnsdist:\n\(server.log)")
      }
    }

    func testDoTAnswersEveryTypeOverUDPAndTCP() throws {
      let dnsward = try DnswardProcess(config: config([try dot("good")]))
      defer { dnsward.stop() }
      assertAnswersEveryType(dnsward)
    }

    func testDoHAnswersEveryTypeOverUDPAndTCP() throws {
      let dnsward = try DnswardProcess(config: config([try doh("good")]))
      defer { dnsward.stop() }
      assertAnswersEveryType(dnsward)
    }

    /// `seccomp on`: handshakes, mbedTLS's randomness and clock, and the
    /// records all go through the filter's allow list (natively; qemu-user
    /// refuses the filter, and the test then only checks the answers).
    func testDoTAndDoHAnswerUnderTheSystemCallFilter() throws {
      for upstream in [try dot("good"), try doh("good")] {
        let dnsward = try DnswardProcess(config: config([upstream]) + "seccomp on\n")
        defer { dnsward.stop() }
        if !DnswardBinary.isEmulated {
          XCTAssertNotNil(logLine(dnsward, with: ["system-call filter installed"]), dnsward.log)
        }
        assertAnswersEveryType(dnsward)
      }
    }

    /// `path=`: dnsdist answers DoH on /dns-query and /q only.
    func testDoHWithAnotherPath() throws {
      let dnsward = try DnswardProcess(config: config([try doh("good", "name=dns.test path=/q")]))
      defer { dnsward.stop() }
      XCTAssertEqual(udp("www.example.test", dnsward)?.addresses, ["192.0.2.80"], dnsward.log)
    }

    /// The right pin, on a `trusted` upstream, is accepted (DoT and DoH).
    func testRightPinIsAccepted() throws {
      let pinned = "name=dns.test pin=\(TLSCertificates.goodPin) trusted"
      for upstream in [try dot("good", pinned), try doh("good", pinned)] {
        let dnsward = try DnswardProcess(config: config([upstream]))
        defer { dnsward.stop() }
        XCTAssertEqual(
          udp("www.example.test", dnsward)?.addresses, ["192.0.2.80"], "\(upstream)\n\(dnsward.log)"
        )
      }
    }

    /// 20 clients at once over one DoT upstream: the queries are pipelined
    /// on the connection and dnsdist (maxInFlight) answers them as the
    /// backend does — the slow ones last — so replies come back out of order
    /// and must be matched by ID.
    func testTwentyConcurrentQueriesOverDoTAreAllAnswered() throws {
      try assertTwentyConcurrentQueriesAnswered(through: try dot("good"))
    }

    /// DoH carries one request per connection and dnsward keeps four: the
    /// other sixteen wait for a free one (HTTPWaitQueue) instead of failing.
    func testTwentyConcurrentQueriesOverDoHAreAllAnswered() throws {
      try assertTwentyConcurrentQueriesAnswered(through: try doh("good"))
    }

    func assertTwentyConcurrentQueriesAnswered(through upstream: String) throws {
      let dnsward = try DnswardProcess(config: config([upstream]))
      defer { dnsward.stop() }
      XCTAssertEqual(udp("www.example.test", dnsward)?.addresses, ["192.0.2.80"], "connected")
      let names = (1...20).map { $0 <= 3 ? "slowh\($0).example.test" : "h\($0).example.test" }
      let sockets = names.enumerated().map { index, name -> Int32 in
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var tv = timeval(tv_sec: 8, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let address = StubClient.loopback(dnsward.port)
        let query = dnsQuery(name, id: UInt16(index + 1))
        StubClient.sendDatagram(query, from: fd, to: address)
        return fd
      }
      defer { sockets.forEach { close($0) } }
      for (index, fd) in sockets.enumerated() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        let reply = Reply(count > 0 ? Array(buffer[0..<count]) : nil)
        XCTAssertEqual(reply?.id, UInt16(index + 1), names[index])
        XCTAssertEqual(reply?.rcode, 0, names[index])
        XCTAssertEqual(reply?.addresses, ["192.0.2.\(index + 1)"], names[index])
      }
    }

    /// A reconnection resumes the TLS session: dnsdist closes a DoT
    /// connection idle for 2 s (its TCP receive timeout), and the handshake
    /// for the next question resumes the first one's session — no
    /// certificate exchange — as the counters line at exit shows. So does
    /// the one after: with TLS 1.3 (mbedTLS 3.6) dnsdist sends no new
    /// ticket after a resumption, and the first ticket serves again.
    func testReconnectionResumesTheSession() throws {
      let dnsward = try DnswardProcess(config: config([try dot("good")]))
      XCTAssertEqual(udp("www.example.test", dnsward)?.addresses, ["192.0.2.80"])
      Thread.sleep(forTimeInterval: 3)
      XCTAssertEqual(udp("nx-after-idle.example.test", dnsward)?.rcode, 3, "a fresh question")
      Thread.sleep(forTimeInterval: 3)
      XCTAssertEqual(udp("nx-after-idle-2.example.test", dnsward)?.rcode, 3, "a fresh question")
      dnsward.stop()
      let counters = try XCTUnwrap(logLine(dnsward, with: ["tls-handshakes"]), dnsward.log)
      func count(_ key: String) -> Int? {
        let words = counters.split(separator: " ")
        guard let at = words.firstIndex(where: { $0 == key }), at + 1 < words.count else {
          return nil
        }
        return Int(words[at + 1])
      }
      XCTAssertEqual(count("tls-handshakes"), 3, counters)
      XCTAssertEqual(count("tls-resumptions"), 2, counters)
      XCTAssertEqual(count("tls-refusals"), 0, counters)
    }

    // MARK: - Refusals

    /// `upstream` is refused: the question goes to the plain upstream after
    /// it, which answers 192.0.2.99 and saw the query, and the log (at the
    /// default level) has a line naming the upstream's address and the
    /// reason (`reason`, a word of TLSError.reason).
    func assertRefused(
      _ upstream: String, port: UInt16, reason: String, caFile: Bool = true,
      file: StaticString = #filePath, line: UInt = #line
    ) throws {
      let plain = try FakeUpstream(.honest, answer: (192, 0, 2, 99))
      defer { plain.stop() }
      // dnsdist forwards DoT questions to the backend over TCP (its health
      // checks are UDP): none may arrive over a refused connection.
      let forwarded = Self.backend?.tcpQueries ?? 0
      let dnsward = try DnswardProcess(
        config: config([upstream, "udp 127.0.0.1:\(plain.port)"], caFile: caFile, log: nil))
      defer { dnsward.stop() }
      for id in UInt16(1)...3 {
        XCTAssertEqual(
          udp("www.example.test", id: id, dnsward)?.addresses, ["192.0.2.99"],
          "the plain upstream answers; log:\n\(dnsward.log)", file: file, line: line)
      }
      XCTAssertGreaterThanOrEqual(
        plain.udpQueries, 3, "the plain upstream asked", file: file, line: line)
      if upstream.hasPrefix("tls ") {
        XCTAssertEqual(
          Self.backend?.tcpQueries, forwarded, "nothing sent over the refused connection",
          file: file, line: line)
      }
      XCTAssertNotNil(
        logLine(dnsward, with: ["127.0.0.1:\(port)", "certificate", reason]),
        "a log line with 127.0.0.1:\(port), 'certificate' and '\(reason)':\n\(dnsward.log)",
        file: file, line: line)
    }

    // MARK: - A clock that was never set

    /// libfaketime, which makes the wall clock of a program it is preloaded
    /// into say what FAKETIME says (Debian's faketime package).
    static let libfaketime = [
      "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
      "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
    ].first { FileManager.default.fileExists(atPath: $0) }

    /// The environment that runs dnsward with its wall clock at `time`
    /// (libfaketime's FAKETIME syntax), the monotonic clock left alone.
    func clock(_ time: String) throws -> [String: String] {
      guard !DnswardBinary.isEmulated else {
        throw XCTSkip("libfaketime is preloaded into a native binary, not one under a runner")
      }
      guard let library = Self.libfaketime else {
        throw XCTSkip("faketime is not installed (apt-get install faketime)")
      }
      return ["LD_PRELOAD": library, "FAKETIME": time, "FAKETIME_DONT_FAKE_MONOTONIC": "1"]
    }

    /// A router without a real-time clock boots in the past, where every
    /// certificate is "not yet valid" until NTP has run (and NTP cannot
    /// resolve its servers if the only upstreams are TLS). Before the
    /// release date the clock is known wrong: the dates are let pass, once
    /// logged, while the CA and the name are still checked.
    func testAClockBeforeTheReleaseDateSkipsOnlyTheCertificateDates() throws {
      let past = try clock("@2024-01-01 00:00:00")
      let dnsward = try DnswardProcess(config: config([try dot("good")]), environment: past)
      defer { dnsward.stop() }
      XCTAssertEqual(udp("www.example.test", dnsward)?.addresses, ["192.0.2.80"], dnsward.log)
      XCTAssertEqual(
        udp("www.example.test", type: 28, id: 2, dnsward)?.addresses,
        ["2001:db8:0:0:0:0:0:80"], dnsward.log)
      let warning = "certificate validity dates are not checked"
      XCTAssertNotNil(logLine(dnsward, with: [warning]), dnsward.log)
      XCTAssertEqual(dnsward.log.components(separatedBy: warning).count, 2, "logged once")

      let rogue = try DnswardProcess(config: config([try dot("rogue")]), environment: past)
      defer { rogue.stop() }
      XCTAssertEqual(udp("www.example.test", rogue)?.rcode, 2, "another CA: SERVFAIL")
      XCTAssertNotNil(logLine(rogue, with: ["certificate", "trusted CA"]), rogue.log)
      let other = try DnswardProcess(config: config([try dot("other")]), environment: past)
      defer { other.stop() }
      XCTAssertEqual(udp("www.example.test", other)?.rcode, 2, "another name: SERVFAIL")
    }

    /// Once the clock is past the release date, dates count again: a year
    /// from now the test certificates (30 days) have expired.
    func testAClockPastTheReleaseDateChecksTheDates() throws {
      let future = try clock("+400d")
      let dnsward = try DnswardProcess(config: config([try dot("good")]), environment: future)
      defer { dnsward.stop() }
      XCTAssertEqual(udp("www.example.test", dnsward)?.rcode, 2, dnsward.log)
      XCTAssertNotNil(logLine(dnsward, with: ["certificate", "expired"]), dnsward.log)
      XCTAssertFalse(dnsward.log.contains("dates are not checked"), dnsward.log)
    }

    func testCertificateForAnotherNameIsRefused() throws {
      try assertRefused(
        try dot("other"), port: try server.port(.dot, "other"), reason: "another name")
    }

    func testExpiredCertificateIsRefused() throws {
      try assertRefused(
        try dot("expired"), port: try server.port(.dot, "expired"), reason: "expired")
    }

    /// A MITM: the right name, signed by a CA that is not in the CA file.
    func testCertificateFromAnotherCAIsRefused() throws {
      try assertRefused(
        try dot("rogue"), port: try server.port(.dot, "rogue"), reason: "trusted CA")
      try assertRefused(
        try doh("rogue"), port: try server.port(.doh, "rogue"), reason: "trusted CA")
    }

    /// Without `ca-file` the system bundle is used, which does not know the test CA.
    func testTestCAIsNotTrustedWithoutCAFile() throws {
      try assertRefused(
        try dot("good"), port: try server.port(.dot, "good"), reason: "trusted CA", caFile: false)
    }

    func testWrongPinIsRefused() throws {
      let wrong = "name=dns.test pin=sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
      try assertRefused(try dot("good", wrong), port: try server.port(.dot, "good"), reason: "pin")
      try assertRefused(try doh("good", wrong), port: try server.port(.doh, "good"), reason: "pin")
    }

    /// With no other upstream, a refused certificate is SERVFAIL, never an
    /// answer over the unverified connection.
    func testRefusedCertificateAloneIsServFail() throws {
      let dnsward = try DnswardProcess(config: config([try dot("rogue")], log: nil))
      defer { dnsward.stop() }
      let reply = udp("www.example.test", dnsward)
      XCTAssertEqual(reply?.rcode, 2, "SERVFAIL; log:\n\(dnsward.log)")
      XCTAssertEqual(reply?.answerCount, 0)
      XCTAssertEqual(tcp("www.example.test", id: 2, dnsward)?.rcode, 2, "SERVFAIL over TCP")
      let port = try server.port(.dot, "rogue")
      XCTAssertNotNil(logLine(dnsward, with: ["127.0.0.1:\(port)", "certificate"]), dnsward.log)
    }

    /// A `ca-file` that cannot be read stops dnsward at start-up, saying so
    /// with the path, rather than running with no CA to check against.
    func testUnreadableCAFileStopsStartUp() throws {
      let missing = TLSCertificates.path("missing-ca.pem")
      let text = config([try dot("good")], caFile: false).replacingOccurrences(
        of: "listen 127.0.0.1:0\n", with: "listen 127.0.0.1:0\nca-file \(missing)\n")
      let dnsward = try DnswardProcess(config: text, waitForListen: false)
      defer { dnsward.stop() }
      let status = dnsward.waitForExit(timeout: 10)
      XCTAssertNotNil(status, "still running; log:\n\(dnsward.log)")
      XCTAssertNotEqual(status, 0)
      XCTAssertNotNil(logLine(dnsward, with: ["CA file", missing]), dnsward.log)
    }

    // MARK: - A server that goes away

    /// dnsdist stops and starts again on the same ports under a running
    /// dnsward: while it is down the question fails (SERVFAIL), and once it
    /// is back dnsward connects again and answers.
    func assertReconnects(
      _ kind: Dnsdist.Kind, file: StaticString = #filePath, line: UInt = #line
    ) throws {
      let backend = try FakeUpstream(.custom(TestZone.answer))
      defer { backend.stop() }
      let restarting = try Dnsdist(backend: backend.port, [(kind, "good")])
      defer { restarting.stop() }
      let transport = kind == .dot ? "tls" : "https"
      let dnsward = try DnswardProcess(
        config: config(["\(transport) 127.0.0.1:\(restarting.port(kind, "good")) name=dns.test"]))
      defer { dnsward.stop() }
      var id: UInt16 = 1
      XCTAssertEqual(
        udp("h1.example.test", id: id, dnsward)?.addresses, ["192.0.2.1"], dnsward.log,
        file: file, line: line)

      // A restart between two questions: the kept-alive connection is
      // closed by the server; the next question must find a new one.
      restarting.stop()
      try restarting.start()
      XCTAssertEqual(
        answered("h2.example.test", id: &id, dnsward), ["192.0.2.2"],
        "after a restart; log:\n\(dnsward.log)", file: file, line: line)

      // Down for a while: SERVFAIL, then answers again once it is back.
      restarting.stop()
      id += 1
      XCTAssertEqual(
        udp("h3.example.test", id: id, dnsward)?.rcode, 2, "server down", file: file, line: line)
      try restarting.start()
      XCTAssertEqual(
        answered("h4.example.test", id: &id, dnsward), ["192.0.2.4"],
        "back up; log:\n\(dnsward.log)\ndnsdist:\n\(restarting.log)", file: file, line: line)
    }

    func testDoTServerRestartedUnderDnswardIsReconnected() throws {
      try assertReconnects(.dot)
    }

    func testDoHServerRestartedUnderDnswardIsReconnected() throws {
      try assertReconnects(.doh)
    }

    /// Asks until answered, at most 5 times in about 10 s (a first question
    /// on a connection the server closed may fail); the addresses, or nil.
    func answered(_ name: String, id: inout UInt16, _ dnsward: DnswardProcess) -> [String]? {
      for attempt in 0..<5 {
        id += 1
        if let reply = udp(name, id: id, dnsward), reply.rcode == 0 {
          if attempt > 0 { print("\(name): answered at attempt \(attempt + 1)") }
          return reply.addresses
        }
        Thread.sleep(forTimeInterval: 1)
      }
      return nil
    }
  }
#else
  /// Without the trait there is no DoT/DoH upstream to test.
  final class TLSUpstreamTests: XCTestCase {
    func testNeedsTheTLSTrait() throws {
      throw XCTSkip(
        "built without the TLS trait: swift test --traits TLS --scratch-path .build-tls")
    }
  }
#endif
