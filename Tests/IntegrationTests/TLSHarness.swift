// What the DoT/DoH integration tests (TLSUpstreamTests) run against:
// certificates made at test time, dnsdist 1.7 serving DNS over TLS and DNS
// over HTTPS on loopback, and a small zone answered by a FakeUpstream behind
// it. Only with the trait: swift test --traits TLS --scratch-path .build-tls
#if TLS
  import DNSWire
  import Foundation
  import TestSupport
  import XCTest

  #if canImport(Glibc)
    import Glibc
  #endif

  /// The test CA and certificates (TestSupport's), made once per run, in
  /// a directory of their own.
  enum TLSCertificates {
    static let made = TestCertificates(name: "dnsward-tls-upstream")

    static func path(_ name: String) -> String { made!.path(name) }

    /// `sha256/BASE64` of good.pem's public key, as the config's `pin=` takes it.
    static var goodPin: String { made!.goodPin }

    static func remove() { made?.remove() }
  }

  /// dnsdist 1.7 on 127.0.0.1 with DoT listeners (`addTLSLocal`) and DoH
  /// listeners (`addDOHLocal`, paths /dns-query and /q), each with one of
  /// TLSCertificates' leaves, forwarding to a backend on 127.0.0.1.
  ///
  /// DoH over HTTP/1.1: dnsdist 1.7's DoH is h2o, which offers only h2 in
  /// ALPN; a client offering `http/1.1` (or no ALPN) gets no ALPN answer
  /// and h2o speaks HTTP/1.1 with keep-alive on it — no option needed
  /// (checked with curl --http1.1 and Python's ssl against 1.7.3).
  final class Dnsdist {
    enum Kind { case dot, doh }
    struct Listener {
      let kind: Kind
      let certificate: String
      let port: UInt16
    }

    static let executable = "/usr/bin/dnsdist"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    private(set) var listeners: [Listener] = []
    private let configPath: String
    private let logPath: String
    private var process: Process?

    init(backend: UInt16, _ wanted: [(Kind, String)]) throws {
      let id = UUID().uuidString
      configPath = TLSCertificates.path("dnsdist-\(id).conf")
      logPath = TLSCertificates.path("dnsdist-\(id).log")
      // The ports are learned free and released (LoopbackPorts) before
      // dnsdist binds them: another socket can take one meanwhile (setLocal's
      // UDP side was never checked), and dnsdist then exits at start. Fresh
      // ports are tried then, a bounded number of times.
      var attemptsLeft = 4
      while true {
        attemptsLeft -= 1
        // One port per listener and one for setLocal, all different.
        let ports = try LoopbackPorts.freeTCP(wanted.count + 1)
        listeners = zip(wanted, ports).map { Listener(kind: $0.0, certificate: $0.1, port: $1) }
        try writeConfig(backend: backend, setLocal: ports[wanted.count])
        switch try launch() {
        case .listening: return
        case .exited where attemptsLeft > 0: continue
        default: try failToStart()
        }
      }
    }

    /// setLocal: the plain listener, else dnsdist takes port 53. No
    /// security poll (it would ask the network). maxInFlight: queries on
    /// one DoT connection are answered as they come back, out of order.
    private func writeConfig(backend: UInt16, setLocal: UInt16) throws {
      var lines = [
        "setLocal(\"127.0.0.1:\(setLocal)\")",
        "setSecurityPollSuffix(\"\")",
        "newServer({address=\"127.0.0.1:\(backend)\"})",
      ]
      for listener in listeners {
        let files =
          "\"\(TLSCertificates.path("\(listener.certificate).pem"))\", "
          + "\"\(TLSCertificates.path("\(listener.certificate).key"))\""
        switch listener.kind {
        case .dot:
          lines.append("addTLSLocal(\"127.0.0.1:\(listener.port)\", \(files), {maxInFlight=100})")
        case .doh:
          lines.append(
            "addDOHLocal(\"127.0.0.1:\(listener.port)\", \(files), {\"/dns-query\", \"/q\"})")
        }
      }
      try lines.joined(separator: "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    func port(_ kind: Kind, _ certificate: String) -> UInt16 {
      listeners.first { $0.kind == kind && $0.certificate == certificate }!.port
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts dnsdist and waits until every listener accepts connections
    /// (dnsdist checks its backend before it starts listening).
    func start() throws {
      if try launch() != .listening { try failToStart() }
    }

    private enum Launch { case listening, exited, notListening }

    /// Starts dnsdist and waits for its listeners; stops it again unless all
    /// listen. `exited`: it ended by itself (a port it could not bind).
    private func launch() throws -> Launch {
      // Each start begins a new log.
      _ = FileManager.default.createFile(atPath: logPath, contents: nil)
      let process = try launchProcess(
        URL(fileURLWithPath: Self.executable),
        ["--supervised", "--disable-syslog", "-C", configPath], logPath: logPath)
      self.process = process
      for listener in listeners where !waitListening(listener.port) {
        let outcome: Launch = process.isRunning ? .notListening : .exited
        stop()
        return outcome
      }
      return .listening
    }

    private func failToStart() throws -> Never {
      let ports = listeners.map { "\($0.port)" }.joined(separator: ", ")
      XCTFail("dnsdist did not listen on 127.0.0.1 ports \(ports); its log:\n\(log)")
      throw XCTSkip("dnsdist did not start")
    }

    func stop() {
      guard let process else { return }
      self.process = nil
      stopProcess(process)
    }

    /// Polls with plain TCP connects (dnsdist logs each as a failed handshake).
    private func waitListening(_ port: UInt16) -> Bool {
      for _ in 0..<200 {
        if StubClient.TCPConnection(port: port) != nil { return true }
        if process?.isRunning != true { return false }
        Thread.sleep(forTimeInterval: 0.05)
      }
      return false
    }
  }

  /// The zone behind dnsdist (a FakeUpstream `.custom` responder), every
  /// answer built by type like an authoritative server's:
  ///
  ///     www.example.test     A 192.0.2.80, AAAA 2001:db8::80,
  ///                          MX 10 mail.example.test, TXT "dnsward over tls"
  ///     alias.example.test   CNAME alias2.example.test
  ///     alias2.example.test  CNAME www.example.test   (both in the answer)
  ///     big.example.test     60 A 198.51.100.1-60     (989 octets, over 512)
  ///     hN.example.test      A 192.0.2.N              (distinct answers)
  ///     slowhN.example.test  A 192.0.2.N after 300 ms (out-of-order replies)
  ///     nx*                  NXDOMAIN
  ///
  /// Any other name gets the same records as www.
  enum TestZone {
    static let txt = "dnsward over tls"

    static func answer(_ query: [UInt8]) -> [[UInt8]] {
      guard let parsed = query.withUnsafeBytes({ try? Message(validating: $0) }),
        parsed.hasQuestion
      else { return [] }
      let qtype = UInt16(query[parsed.questionEnd - 4]) << 8 | UInt16(query[parsed.questionEnd - 3])
      let (name, first) = nameAsked(in: query)
      let owner: [UInt8] = [0xC0, 0x0C]  // the question name
      var records: [[UInt8]] = []
      var rcode: UInt8 = 0
      if first.hasPrefix("nx") {
        rcode = 3
      } else if first == "alias", qtype == 1 || qtype == 5 {
        records.append(record(owner, type: 5, wire("alias2.example.test")))
        if qtype == 1 {
          records.append(record(wire("alias2.example.test"), type: 5, wire("www.example.test")))
          records.append(record(wire("www.example.test"), type: 1, [192, 0, 2, 80]))
        }
      } else if first == "big", qtype == 1 {
        records = (1...60).map { record(owner, type: 1, [198, 51, 100, UInt8($0)]) }
      } else if let number = numbered(first, prefix: "slowh") ?? numbered(first, prefix: "h"),
        qtype == 1
      {
        if first.hasPrefix("slow") { Thread.sleep(forTimeInterval: 0.3) }
        records.append(record(owner, type: 1, [192, 0, 2, number]))
      } else {
        switch qtype {
        case 1: records.append(record(owner, type: 1, [192, 0, 2, 80]))
        case 28:
          records.append(
            record(
              owner, type: 28, [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [0x80])
          )
        case 15: records.append(record(owner, type: 15, [0, 10] + wire("mail.example.test")))
        case 16: records.append(record(owner, type: 16, [UInt8(txt.utf8.count)] + Array(txt.utf8)))
        default: break
        }
      }
      var message = DNSAnswer.header(
        for: query, rcode: rcode, answers: records.count, truncated: false)
      message += DNSAnswer.question(query, name: name)
      for record in records { message += record }
      return [message]
    }

    static func numbered(_ label: String, prefix: String) -> UInt8? {
      guard label.hasPrefix(prefix) else { return nil }
      return UInt8(label.dropFirst(prefix.count))
    }

    static func wire(_ name: String) -> [UInt8] {
      var bytes: [UInt8] = []
      for label in name.split(separator: ".") { bytes += [UInt8(label.utf8.count)] + label.utf8 }
      return bytes + [0]
    }

    /// OWNER TYPE IN 3600 RDATA
    static func record(_ owner: [UInt8], type: UInt16, _ rdata: [UInt8]) -> [UInt8] {
      owner + [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1, 0, 0, 0x0E, 0x10]
        + [UInt8(rdata.count >> 8), UInt8(rdata.count & 0xFF)] + rdata
    }
  }

  extension Reply {
    /// The types of the records in the answer section, in order.
    var answerTypes: [UInt16] {
      bytes.withUnsafeBytes { raw in
        guard let message = try? Message(validating: raw) else { return [] }
        var records = message.records()
        var types: [UInt16] = []
        while types.count < answerCount, let record = records.next() {
          types.append(record.type.rawValue)
        }
        return types
      }
    }

    func contains(_ text: String) -> Bool {
      let needle = Array(text.utf8)
      guard needle.count <= bytes.count else { return false }
      return (0...(bytes.count - needle.count)).contains {
        Array(bytes[$0..<($0 + needle.count)]) == needle
      }
    }
  }
#endif
