// Real TLS handshakes over loopback with certificates made at test time.
// Only with the trait: swift test --traits TLS --filter TLSTests
#if TLS
  import CLinux
  import Foundation
  import Platform
  import TLS
  import TestSupport
  import XCTest

  #if canImport(Glibc)
    import Glibc
  #endif

  /// The test CA and certificates (TestSupport's), made once per run.
  enum Certificates {
    static let made = TestCertificates(name: "dnsward-tls")

    static func path(_ name: String) -> String { made!.path(name) }
  }

  final class TLSTests: XCTestCase {
    var servers: [Process] = []
    static var config: TLSClientConfig?

    override func setUpWithError() throws {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
        throw XCTSkip("openssl is not installed")
      }
      guard Certificates.made != nil else {
        throw XCTSkip("openssl could not make certificates")
      }
    }

    override class func tearDown() {
      Certificates.made?.remove()
    }

    override func tearDown() {
      servers.forEach(stopProcess)
      servers = []
    }

    /// One config for all tests, trusting only the test CA — as dnsward
    /// shares one config between all its connections.
    func sharedConfig() throws -> TLSClientConfig {
      if let config = Self.config { return config }
      let config = try TLSClientConfig(caFile: Certificates.path("ca.pem"))
      Self.config = config
      return config
    }

    func freePort() throws -> UInt16 { try LoopbackPorts.freeTCP(1)[0] }

    /// `openssl s_server` on 127.0.0.1 with `certificate`, answering each
    /// line with the line reversed (-rev); waits until it accepts. On
    /// `port` when given (a restart), with `options` added (-alpn, -no_ticket).
    func startServer(_ certificate: String, port: UInt16? = nil, options: [String] = [])
      throws -> UInt16
    {
      // A new port is learned free and released (LoopbackPorts) before
      // s_server binds it: another socket can take it meanwhile, and
      // s_server then exits. Fresh ports are tried then, a bounded number
      // of times; a restart keeps its port.
      for _ in 0..<(port == nil ? 4 : 1) {
        let chosen = try port ?? freePort()
        let arguments =
          [
            "s_server", "-accept", "127.0.0.1:\(chosen)", "-cert",
            Certificates.path("\(certificate).pem"),
            "-key", Certificates.path("\(certificate).key"), "-rev",
          ] + options
        if try runServer("/usr/bin/openssl", arguments, listeningOn: chosen) { return chosen }
      }
      throw ServerDidNotStart(command: "openssl s_server")
    }

    struct ServerDidNotStart: Error {
      let command: String
    }

    /// Runs `executable` as a server (stopped in tearDown) and polls `port`
    /// with plain TCP connects (each a handshake the server sees fail):
    /// true once it accepts, false if it exits first (a port it could not
    /// bind) or does not accept within 5 s.
    func runServer(_ executable: String, _ arguments: [String], listeningOn port: UInt16) throws
      -> Bool
    {
      let process = try launchProcess(URL(fileURLWithPath: executable), arguments)
      servers.append(process)
      for _ in 0..<100 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let result = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
        Glibc.close(fd)
        if result == 0 { return true }
        if !process.isRunning { return false }
        usleep(50_000)
      }
      return false
    }

    /// A non-blocking TCP socket connecting to 127.0.0.1:port (in progress).
    func connectSocket(_ port: UInt16) throws -> FileDescriptor {
      let address = SocketAddress(ipv4: 0x7F00_0001, port: port)
      let fd = try Socket.tcp(for: address)
      _ = try Socket.connect(fd, to: address)
      return fd
    }

    func wait(_ fd: FileDescriptor, for events: Int32) {
      var entry = pollfd(fd: fd.rawValue, events: Int16(events), revents: 0)
      _ = Glibc.poll(&entry, 1, 2000)
    }

    /// Runs the handshake as the epoll loop will: call, wait for what it
    /// asks, call again.
    func handshake(_ session: TLSSession, _ fd: FileDescriptor) -> TLSHandshakeResult {
      for _ in 0..<200 {
        let result = session.handshake()
        switch result {
        case .wantRead: wait(fd, for: Int32(POLLIN))
        case .wantWrite: wait(fd, for: Int32(POLLOUT))
        default: return result
        }
      }
      return .failed(.handshake(code: 0))
    }

    /// Connects a session to a server with `certificate` and shakes hands.
    func connect(
      to certificate: String, name: String = "dns.test", pin: SPKIPin? = nil,
      session: TLSSession? = nil
    ) throws -> (TLSSession, FileDescriptor, TLSHandshakeResult) {
      let port = try startServer(certificate)
      let session = try session ?? TLSSession(config: sharedConfig())
      let fd = try connectSocket(port)
      var name = name
      try name.withUTF8 { bytes in
        try session.attach(fd: fd, serverName: UnsafeRawBufferPointer(bytes), pin: pin)
      }
      return (session, fd, handshake(session, fd))
    }

    func pin(_ base64: String) -> SPKIPin? {
      var text = base64.trimmingCharacters(in: .whitespacesAndNewlines)
      return text.withUTF8 { SPKIPin(base64: UnsafeRawBufferPointer($0)) }
    }

    func goodPin() throws -> SPKIPin {
      try XCTUnwrap(pin(String(contentsOfFile: Certificates.path("good.pin"), encoding: .utf8)))
    }

    /// Writes `text` and reads until a newline (s_server -rev answers per line).
    func exchange(_ session: TLSSession, _ fd: FileDescriptor, _ text: String) -> String? {
      var bytes = Array(text.utf8)
      var sent = 0
      while sent < bytes.count {
        let result = bytes.withUnsafeBytes {
          session.write(UnsafeRawBufferPointer(rebasing: $0[sent...]))
        }
        switch result {
        case .bytes(let n): sent += n
        case .wantWrite: wait(fd, for: Int32(POLLOUT))
        case .wantRead: wait(fd, for: Int32(POLLIN))
        default: return nil
        }
      }
      bytes = []
      var buffer = [UInt8](repeating: 0, count: 512)
      for _ in 0..<200 where !bytes.contains(0x0A) {
        let result = buffer.withUnsafeMutableBytes { session.read(into: $0) }
        switch result {
        case .bytes(let n): bytes += buffer[..<n]
        case .wantRead: wait(fd, for: Int32(POLLIN))
        case .wantWrite: wait(fd, for: Int32(POLLOUT))
        default: return nil
        }
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// A new TCP connection from `session` to a running server, shaken hands.
    func reconnect(
      _ session: TLSSession, port: UInt16, name: String = "dns.test", pin: SPKIPin? = nil
    ) throws -> (FileDescriptor, TLSHandshakeResult) {
      let fd = try connectSocket(port)
      try Array(name.utf8).withUnsafeBytes {
        try session.attach(fd: fd, serverName: $0, pin: pin)
      }
      return (fd, handshake(session, fd))
    }

    /// Polite end of a connection, as the transport will do it.
    /// A session with the shared config that made one handshake with the
    /// server on `port`, exchanged a line and hung up: the next handshake
    /// can offer to resume it.
    func sessionAfterOneExchange(
      port: UInt16, pin: SPKIPin? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> TLSSession {
      let session = try TLSSession(config: sharedConfig())
      let (fd, result) = try reconnect(session, port: port, pin: pin)
      XCTAssertEqual(result, .done, file: file, line: line)
      XCTAssertEqual(exchange(session, fd, "a\n"), "a\n", file: file, line: line)
      hangUp(session, fd)
      return session
    }

    func hangUp(_ session: TLSSession, _ fd: FileDescriptor) {
      _ = session.close()
      session.detach()
      fd.close()
    }

    func stopServers() {
      tearDown()
    }

    // MARK: - Tests

    func testGoodCertificateHandshakesAndExchangesData() throws {
      let (session, fd, result) = try connect(to: "good")
      defer { fd.close() }
      XCTAssertEqual(result, .done)
      XCTAssertTrue(session.isEstablished)
      XCTAssertEqual(exchange(session, fd, "hello dnsward\n"), "drawsnd olleh\n")
      XCTAssertEqual(exchange(session, fd, "second line\n"), "enil dnoces\n")
      _ = session.close()
      session.detach()
    }

    func testPeerPinIsTheSPKIHashOpenSSLComputes() throws {
      let (session, fd, result) = try connect(to: "good")
      defer { fd.close() }
      XCTAssertEqual(result, .done)
      XCTAssertEqual(session.peerPin(), try goodPin())
    }

    func testRightPinAccepted() throws {
      let (_, fd, result) = try connect(to: "good", pin: try goodPin())
      defer { fd.close() }
      XCTAssertEqual(result, .done)
    }

    func testWrongPinRefused() throws {
      let wrong = try XCTUnwrap(pin("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="))
      let (session, fd, result) = try connect(to: "good", pin: wrong)
      defer { fd.close() }
      XCTAssertEqual(result, .failed(.pinMismatch))
      XCTAssertFalse(session.isEstablished)
    }

    func testWrongNameRefused() throws {
      let (_, fd, result) = try connect(to: "other")
      defer { fd.close() }
      guard case .failed(.nameMismatch(let flags)) = result else {
        return XCTFail("expected nameMismatch, got \(result)")
      }
      XCTAssertEqual(flags, 0x04)  // MBEDTLS_X509_BADCERT_CN_MISMATCH only
    }

    func testRightCertificateAskedForAnotherNameRefused() throws {
      let (_, fd, result) = try connect(to: "good", name: "cloudflare-dns.com")
      defer { fd.close() }
      guard case .failed(.nameMismatch) = result else {
        return XCTFail("expected nameMismatch, got \(result)")
      }
    }

    func testExpiredRefused() throws {
      let (_, fd, result) = try connect(to: "expired")
      defer { fd.close() }
      guard case .failed(.expiredCertificate(let flags)) = result else {
        return XCTFail("expected expiredCertificate, got \(result)")
      }
      XCTAssertEqual(flags, 0x01)  // MBEDTLS_X509_BADCERT_EXPIRED only
    }

    func testCertificateFromAnotherCARefused() throws {
      let (_, fd, result) = try connect(to: "rogue")
      defer { fd.close() }
      guard case .failed(.untrustedCertificate) = result else {
        return XCTFail("expected untrustedCertificate, got \(result)")
      }
    }

    /// A session slot is reused across connections: refused, then good.
    func testSessionIsReusableAfterARefusal() throws {
      let session = try TLSSession(config: sharedConfig())
      let (_, fd1, first) = try connect(to: "other", session: session)
      fd1.close()
      session.detach()
      guard case .failed(.nameMismatch) = first else { return XCTFail("got \(first)") }
      let (_, fd2, second) = try connect(to: "good", session: session)
      defer { fd2.close() }
      XCTAssertEqual(second, .done)
      XCTAssertEqual(exchange(session, fd2, "again\n"), "niaga\n")
    }

    func testNothingListeningIsAnIOError() throws {
      let port = try freePort()
      let session = try TLSSession(config: sharedConfig())
      let fd = try connectSocket(port)
      defer { fd.close() }
      try Array("dns.test".utf8).withUnsafeBytes {
        try session.attach(fd: fd, serverName: $0, pin: nil)
      }
      XCTAssertEqual(handshake(session, fd), .failed(.io(errno: ECONNREFUSED)))
    }

    /// DNS over TLS (RFC 7858) against dnsdist 1.7 with the good
    /// certificate, answering every A question with 192.0.2.53.
    func testDNSOverTLSExchangeWithDnsdist() throws {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dnsdist") else {
        throw XCTSkip("dnsdist is not installed")
      }
      // Ports learned free and released, as in startServer: dnsdist exits
      // when one was taken meanwhile, and fresh ones are tried.
      var listening: UInt16?
      for _ in 0..<4 where listening == nil {
        let ports = try LoopbackPorts.freeTCP(2)
        let (udpPort, tlsPort) = (ports[0], ports[1])
        let conf = Certificates.path("dnsdist-\(tlsPort).conf")
        try """
        setLocal("127.0.0.1:\(udpPort)")
        addTLSLocal("127.0.0.1:\(tlsPort)", "\(Certificates.path("good.pem"))", "\(Certificates.path("good.key"))")
        addAction(AllRule(), SpoofAction("192.0.2.53"))
        """.write(toFile: conf, atomically: true, encoding: .utf8)
        let arguments = ["--supervised", "--disable-syslog", "-C", conf]
        if try runServer("/usr/bin/dnsdist", arguments, listeningOn: tlsPort) {
          listening = tlsPort
        }
      }
      guard let tlsPort = listening else { throw ServerDidNotStart(command: "dnsdist") }

      let session = try TLSSession(config: sharedConfig())
      let fd = try connectSocket(tlsPort)
      defer { fd.close() }
      try Array("dns.test".utf8).withUnsafeBytes {
        try session.attach(fd: fd, serverName: $0, pin: try goodPin())
      }
      XCTAssertEqual(handshake(session, fd), .done)

      let query: [UInt8] = [
        0x00, 0x1D,  // RFC 7858 §3.3: two-byte length prefix (29)
        0x12, 0x34,  // ID
        0x01, 0x00,  // RD
        0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // QD 1, AN 0, NS 0, AR 0
        0x07, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65,  // "example"
        0x03, 0x63, 0x6F, 0x6D, 0x00,  // "com", root
        0x00, 0x01, 0x00, 0x01,  // A, IN
      ]
      var result = query.withUnsafeBytes { session.write($0) }
      while result == .wantWrite {
        wait(fd, for: Int32(POLLOUT))
        result = query.withUnsafeBytes { session.write($0) }
      }
      XCTAssertEqual(result, .bytes(query.count))

      var response: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 512)
      for _ in 0..<200 {
        if response.count >= 2, response.count >= 2 + (Int(response[0]) << 8 | Int(response[1])) {
          break
        }
        switch buffer.withUnsafeMutableBytes({ session.read(into: $0) }) {
        case .bytes(let n): response += buffer[..<n]
        case .wantRead: wait(fd, for: Int32(POLLIN))
        case .wantWrite: wait(fd, for: Int32(POLLOUT))
        case let other: return XCTFail("read: \(other)")
        }
      }
      XCTAssertGreaterThanOrEqual(response.count, 2 + 12 + 17 + 16)
      XCTAssertEqual(Array(response[2..<4]), [0x12, 0x34])  // our ID
      XCTAssertEqual(response[5] & 0x0F, 0)  // RCODE NOERROR
      XCTAssertEqual(Array(response[8..<10]), [0x00, 0x01])  // ANCOUNT 1
      XCTAssertEqual(Array(response.suffix(4)), [192, 0, 2, 53])  // the A record's address
    }

    func testMissingCAFileIsASetupError() {
      XCTAssertThrowsError(try TLSClientConfig(caFile: "/nonexistent/ca.pem")) { error in
        guard case .setup(.caFile, _) = error as? TLSError else {
          return XCTFail("expected setup(.caFile), got \(error)")
        }
      }
    }

    func testSystemBundleLoads() throws {
      guard FileManager.default.fileExists(atPath: "/etc/ssl/certs/ca-certificates.crt") else {
        throw XCTSkip("no system CA bundle")
      }
      _ = try TLSClientConfig()
    }

    func testBase64Pins() {
      XCTAssertNotNil(pin("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="))  // SHA-256("")
      XCTAssertNil(pin("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuF"))  // not a multiple of 4
      XCTAssertNil(pin("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"))  // 43 characters
      XCTAssertNil(pin("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hS=FU="))  // padding inside
      XCTAssertNil(pin("AAAA"))  // 3 bytes
      XCTAssertNil(pin("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU!"))
    }
    // MARK: Session resumption

    /// The version a handshake with `openssl s_server` (OpenSSL 3, which has
    /// TLS 1.3) must negotiate: 1.3 when this mbedTLS offers it, unless the
    /// server was held to 1.2 with -tls1_2.
    func expectedVersion(_ options: [String]) -> UInt16 {
      TLSClientConfig.offersTLS13 && !options.contains("-tls1_2")
        ? TLSSession.tls13 : TLSSession.tls12
    }

    /// Full handshake first, an abbreviated one on the next TCP connection:
    /// in TLS 1.2 by ticket (RFC 5077; -no_cache leaves the server nothing
    /// else) or, with -no_ticket, by the server's session-ID cache; in TLS
    /// 1.3 by a PSK from a NewSessionTicket (RFC 8446 §2.2; -no_ticket makes
    /// OpenSSL's tickets refer to its cache), which arrives after the
    /// handshake and is taken by the `exchange`'s reads.
    func checkResumption(options: [String]) throws {
      let port = try startServer("good", options: options)
      let session = try TLSSession(config: sharedConfig())
      let pin = try goodPin()
      let (fd1, first) = try reconnect(session, port: port, pin: pin)
      XCTAssertEqual(first, .done)
      XCTAssertEqual(session.negotiatedVersion, expectedVersion(options))
      XCTAssertFalse(session.resumed, "the first handshake must be a full one")
      XCTAssertEqual(exchange(session, fd1, "one\n"), "eno\n")
      hangUp(session, fd1)

      for round in 2...3 {
        let (fd, result) = try reconnect(session, port: port, pin: pin)
        XCTAssertEqual(result, .done, "round \(round)")
        XCTAssertTrue(session.resumed, "round \(round) must resume")
        XCTAssertEqual(session.negotiatedVersion, expectedVersion(options))
        // The pin is checked against the certificate of the full handshake.
        XCTAssertEqual(session.peerPin(), pin)
        XCTAssertEqual(exchange(session, fd, "two\n"), "owt\n")
        hangUp(session, fd)
      }
    }

    func testSecondConnectionResumesWithATicket() throws {
      try checkResumption(options: ["-no_cache"])
    }

    func testSecondConnectionResumesWithASessionID() throws {
      try checkResumption(options: ["-no_ticket"])
    }

    /// TLS 1.2 resumption also where 1.3 is the default (mbedTLS 3.6): the
    /// server is held to 1.2.
    func testTLS12ResumesWithATicketWhereTLS13IsOffered() throws {
      try checkResumption(options: ["-no_cache", "-tls1_2"])
    }

    func testTLS12ResumesWithASessionIDWhereTLS13IsOffered() throws {
      try checkResumption(options: ["-no_ticket", "-tls1_2"])
    }

    /// A connection closed before any read: TLS 1.2 saved its session at the
    /// end of the handshake, so the next one resumes; TLS 1.3 sends its
    /// tickets after the handshake (RFC 8446 §4.6.1) and none was read, so
    /// the next handshake is a full one.
    func testClosedBeforeAnyReadResumesOnlyWithTLS12() throws {
      let port = try startServer("good")
      let session = try TLSSession(config: sharedConfig())
      let (fd1, first) = try reconnect(session, port: port)
      XCTAssertEqual(first, .done)
      let version = session.negotiatedVersion
      hangUp(session, fd1)
      let (fd2, second) = try reconnect(session, port: port)
      XCTAssertEqual(second, .done)
      XCTAssertEqual(session.resumed, version == TLSSession.tls12)
      hangUp(session, fd2)
    }

    // MARK: Versions

    /// TLS 1.3 where both ends have it (mbedTLS 3.6 and OpenSSL 3), 1.2
    /// otherwise, and 1.2 with a server held to it.
    func testNegotiatedVersion() throws {
      for options in [[], ["-tls1_2"]] {
        let port = try startServer("good", options: options)
        let session = try TLSSession(config: sharedConfig())
        XCTAssertEqual(session.negotiatedVersion, 0, "no handshake yet")
        let (fd, result) = try reconnect(session, port: port)
        XCTAssertEqual(result, .done)
        XCTAssertEqual(session.negotiatedVersion, expectedVersion(options), "\(options)")
        XCTAssertEqual(exchange(session, fd, "v\n"), "v\n")
        hangUp(session, fd)
        stopServers()
      }
    }

    /// The mbedTLS loaded at run time is the one compiled against (same
    /// major and minor: dnsward allocates mbedTLS's structs with the
    /// headers' sizes), and, with DNSWARD_EXPECT_MBEDTLS=MAJOR.MINOR (CI's
    /// 3.6 run), that version: a test binary that silently loaded the
    /// system's 2.28 fails here.
    func testLinkedMbedTLSIsTheOneCompiledAgainst() throws {
      func majorMinor(_ version: UInt32) -> String { "\(version >> 24).\((version >> 16) & 0xFF)" }
      let linked = TLSClientConfig.linkedLibraryVersion
      let patch = (linked >> 8) & 0xFF
      print(
        "mbedTLS: linked \(majorMinor(linked)).\(patch), headers",
        majorMinor(TLSClientConfig.libraryVersion), "TLS 1.3:", TLSClientConfig.offersTLS13)
      XCTAssertEqual(majorMinor(linked), majorMinor(TLSClientConfig.libraryVersion))
      if let expected = ProcessInfo.processInfo.environment["DNSWARD_EXPECT_MBEDTLS"] {
        XCTAssertEqual(majorMinor(linked), expected)
      }
    }

    /// A server that can resume nothing: every handshake is a full one, and
    /// `resumed` says so (the offered session is simply not taken).
    func testServerWithoutTicketsOrCacheNeverResumes() throws {
      let port = try startServer("good", options: ["-no_cache", "-no_ticket"])
      let session = try TLSSession(config: sharedConfig())
      for round in 1...3 {
        let (fd, result) = try reconnect(session, port: port, pin: try goodPin())
        XCTAssertEqual(result, .done, "round \(round)")
        XCTAssertFalse(session.resumed, "round \(round)")
        XCTAssertEqual(exchange(session, fd, "full\n"), "lluf\n")
        hangUp(session, fd)
      }
    }

    func testForgetSessionMakesAFullHandshake() throws {
      let port = try startServer("good")
      let session = try sessionAfterOneExchange(port: port)
      session.forgetSession()
      let (fd2, second) = try reconnect(session, port: port)
      XCTAssertEqual(second, .done)
      XCTAssertFalse(session.resumed)
      // Reading takes a TLS 1.3 server's ticket (sent after the handshake).
      XCTAssertEqual(exchange(session, fd2, "b\n"), "b\n")
      hangUp(session, fd2)
      let (fd3, third) = try reconnect(session, port: port)
      XCTAssertEqual(third, .done)
      XCTAssertTrue(session.resumed, "the full handshake saved a new session")
      hangUp(session, fd3)
    }

    /// A server with another certificate on the same address (a MITM that
    /// took over the port) knows neither the ticket key nor the session
    /// cache: the handshake is a full one, and its certificate is refused.
    func testRogueServerOnTheSamePortCannotResume() throws {
      let port = try startServer("good")
      let session = try sessionAfterOneExchange(port: port)

      stopServers()
      _ = try startServer("rogue", port: port)
      let (fd2, second) = try reconnect(session, port: port)
      guard case .failed(.untrustedCertificate) = second else {
        return XCTFail("expected untrustedCertificate, got \(second)")
      }
      XCTAssertFalse(session.resumed)
      XCTAssertFalse(session.isEstablished)
      session.detach()
      fd2.close()

      // The refusal forgot the session: the good server, back, gets a full handshake.
      stopServers()
      _ = try startServer("good", port: port)
      let (fd3, third) = try reconnect(session, port: port)
      XCTAssertEqual(third, .done)
      XCTAssertFalse(session.resumed)
      hangUp(session, fd3)
    }

    /// A rogue server with the *same* certificate would need its private key;
    /// here the pin changes instead (operator rotated it): the resumed
    /// session's certificate no longer matches, so it is refused and forgotten.
    func testPinIsEnforcedOnAResumedSession() throws {
      let port = try startServer("good")
      let session = try sessionAfterOneExchange(port: port, pin: try goodPin())

      let wrong = try XCTUnwrap(pin("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="))
      let (fd2, second) = try reconnect(session, port: port, pin: wrong)
      XCTAssertEqual(second, .failed(.pinMismatch))
      XCTAssertFalse(session.isEstablished)
      session.detach()
      fd2.close()

      let (fd3, third) = try reconnect(session, port: port, pin: try goodPin())
      XCTAssertEqual(third, .done)
      XCTAssertFalse(session.resumed, "a pin failure must forget the session")
      hangUp(session, fd3)
    }

    /// The session is only offered to the name it was verified for.
    func testSessionIsNotOfferedToAnotherName() throws {
      let port = try startServer("good")
      let session = try sessionAfterOneExchange(port: port)
      let (fd2, second) = try reconnect(session, port: port, name: "cloudflare-dns.com")
      guard case .failed(.nameMismatch) = second else {
        return XCTFail("expected nameMismatch (full handshake), got \(second)")
      }
      XCTAssertFalse(session.resumed)
      session.detach()
      fd2.close()
    }

    func testSharedConfigOffersTickets() throws {
      XCTAssertTrue(try sharedConfig().sessionTickets)
    }

    // MARK: ALPN

    func testALPNNegotiatesHTTP11() throws {
      let port = try startServer("good", options: ["-alpn", "http/1.1"])
      let config = try TLSClientConfig(
        caFile: Certificates.path("ca.pem"), alpn: [TLSClientConfig.http11])
      XCTAssertEqual(config.alpnProtocols.count, 1)
      let session = try TLSSession(config: config)
      let (fd, result) = try reconnect(session, port: port)
      XCTAssertEqual(result, .done)
      XCTAssertEqual(session.negotiatedALPN.map { "\($0)" }, "http/1.1")
      XCTAssertTrue(session.negotiatedHTTP11)
      XCTAssertEqual(exchange(session, fd, "GET\n"), "TEG\n")
      hangUp(session, fd)
    }

    func testALPNPicksTheServersChoiceFromOurList() throws {
      let port = try startServer("good", options: ["-alpn", "http/1.1"])
      let config = try TLSClientConfig(
        caFile: Certificates.path("ca.pem"), alpn: [TLSClientConfig.dot, TLSClientConfig.http11])
      let session = try TLSSession(config: config)
      let (fd, result) = try reconnect(session, port: port)
      XCTAssertEqual(result, .done)
      XCTAssertEqual(session.negotiatedALPN.map { "\($0)" }, "http/1.1")
      hangUp(session, fd)
    }

    func testNoALPNWhenNotOffered() throws {
      let port = try startServer("good", options: ["-alpn", "http/1.1"])
      let session = try TLSSession(config: sharedConfig())
      let (fd, result) = try reconnect(session, port: port)
      XCTAssertEqual(result, .done)
      XCTAssertNil(session.negotiatedALPN)
      XCTAssertFalse(session.negotiatedHTTP11)
      hangUp(session, fd)
    }

    func testNoALPNWhenTheServerHasNone() throws {
      let port = try startServer("good")
      let config = try TLSClientConfig(
        caFile: Certificates.path("ca.pem"), alpn: [TLSClientConfig.http11])
      let session = try TLSSession(config: config)
      let (fd, result) = try reconnect(session, port: port)
      XCTAssertEqual(result, .done)
      XCTAssertNil(session.negotiatedALPN)
      XCTAssertFalse(session.negotiatedHTTP11)
      hangUp(session, fd)
    }

    func testBadALPNIsASetupError() {
      XCTAssertThrowsError(
        try TLSClientConfig(caFile: Certificates.path("ca.pem"), alpn: [""])
      ) { error in
        guard case .setup(.configDefaults, _) = error as? TLSError else {
          return XCTFail("expected setup(.configDefaults), got \(error)")
        }
      }
    }
  }
#endif
