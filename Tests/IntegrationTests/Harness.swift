import DNSWire
import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A write to a connection or pipe whose other end has gone must fail with
/// EPIPE in the test process, not kill it with SIGPIPE (and every test after
/// it with it): the test binary, unlike dnsward, is not built to ignore it.
let pipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// The real `dnsward` binary, started on a config written for the test with
/// `listen 127.0.0.1:0`; the port it got is read from its start-up log.
///
/// The binary is `DnswardBinary`'s: SwiftPM's, or the one the environment
/// names (the ARM firmware under qemu-user, say).
final class DnswardProcess {
  let process: Process
  let configURL: URL
  private let errorPipe = Pipe()
  private let logLock = NSLock()
  private var logText = ""
  private(set) var port: UInt16 = 0

  var log: String { logLock.withLock { logText } }

  /// Starts the binary under test on `config` (or with `arguments`), with
  /// `environment` added to this process's.
  init(
    config: String, arguments: [String]? = nil, waitForListen: Bool = true,
    environment: [String: String] = [:]
  ) throws {
    _ = pipeSignalIgnored
    configURL = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-test-\(UUID().uuidString).conf")
    try config.write(to: configURL, atomically: true, encoding: .utf8)
    process = try DnswardBinary.process(arguments ?? ["--config", configURL.path])
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    // Log lines at info and debug go to standard output, warnings and
    // errors to standard error (LogDestination.split): one log of both.
    process.standardError = errorPipe
    process.standardOutput = errorPipe
    errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard let self, !data.isEmpty else { return }
      self.logLock.withLock { self.logText += String(decoding: data, as: UTF8.self) }
    }
    try process.run()
    guard waitForListen else { return }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if let found = Self.listenPort(in: log) {
        port = found
        return
      }
      if !process.isRunning { break }
      Thread.sleep(forTimeInterval: 0.02)
    }
    stop()
    if log.contains("cannot listen on") {
      // Only fixed ports can be taken (the default config's 8053).
      throw XCTSkip("the listen port is taken by another program: \(log)")
    }
    XCTFail("dnsward did not start; log:\n\(log)")
    throw XCTSkip("dnsward did not start")
  }

  /// Whether the binary under test refuses `config` at start-up with a
  /// log line containing `refusal`: how the suites tell a firmware built
  /// without an option (metrics, DNSSEC) from one built with it. A binary
  /// that cannot be started counts as not refusing (its tests then fail).
  static func refusesAtStartUp(config: String, saying refusal: String) -> Bool {
    guard let probe = try? DnswardProcess(config: config, waitForListen: false) else {
      return false
    }
    defer { probe.stop() }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline && !probe.log.contains("listening on") {
      if probe.log.contains(refusal) { return true }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return false
  }

  static func listenPort(in log: String) -> UInt16? {
    port(after: "listening on 127.0.0.1:", in: log)
  }

  /// The port written right after `marker` in the log (`[::1]:` for IPv6).
  static func port(after marker: String, in log: String) -> UInt16? {
    guard let range = log.range(of: marker) else { return nil }
    let digits = log[range.upperBound...].prefix { $0.isNumber }
    return UInt16(digits)
  }

  /// Waits until the log contains `text`; false after `seconds`. Lines
  /// logged after "listening on" (the worker count, the seccomp line,
  /// anything at exit) arrive a moment after `init` returns — later still
  /// under qemu-user — so a test that reads one waits for it.
  @discardableResult
  func waitForLog(_ text: String, seconds: TimeInterval = 5) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !log.contains(text) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    return log.contains(text)
  }

  /// Waits for the process to exit and returns its status.
  @discardableResult
  func waitForExit(timeout: TimeInterval = 5) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    return process.isRunning ? nil : process.terminationStatus
  }

  func stop() {
    if process.isRunning {
      process.terminate()
      waitForExit()
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(at: configURL)
  }

  deinit { stop() }
}

/// A stub client for the tests: sends a query (see `dnsQuery`) over UDP or
/// TCP to 127.0.0.1 or [::1], and returns the reply bytes.
enum StubClient {
  static func udp(_ packet: [UInt8], port: UInt16, timeout: TimeInterval = 3) -> [UInt8]? {
    udpBurst([packet], to: loopback(port), family: AF_INET, timeout: timeout).first
  }

  static func udp6(_ packet: [UInt8], port: UInt16, timeout: Int = 3) -> [UInt8]? {
    udpBurst([packet], to: loopback6(port), family: AF_INET6, timeout: TimeInterval(timeout))
      .first
  }

  /// Sends every packet from one socket at once, then collects the
  /// replies (in arrival order) until all came or `timeout` passes with
  /// none: a burst of truly concurrent questions.
  static func udpBurst(_ packets: [[UInt8]], port: UInt16, timeout: TimeInterval = 3)
    -> [[UInt8]]
  {
    udpBurst(packets, to: loopback(port), family: AF_INET, timeout: timeout)
  }

  /// `udpBurst` to `address`, a `sockaddr_in` or `sockaddr_in6` of `family`.
  private static func udpBurst<Address>(
    _ packets: [[UInt8]], to address: Address, family: Int32, timeout: TimeInterval
  ) -> [[UInt8]] {
    let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    for packet in packets { sendDatagram(packet, from: fd, to: address) }
    var replies: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 65535)
    while replies.count < packets.count {
      let count = recv(fd, &buffer, buffer.count, 0)
      guard count > 0 else { break }
      replies.append(Array(buffer[0..<count]))
    }
    return replies
  }

  /// One datagram from the socket `fd` to `address` (a `sockaddr_in` or
  /// `sockaddr_in6`), its outcome ignored.
  static func sendDatagram<Address>(_ packet: [UInt8], from fd: Int32, to address: Address) {
    var address = address
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
  }

  /// Sends raw bytes without waiting for anything.
  static func fire(_ packet: [UInt8], port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    sendDatagram(packet, from: fd, to: loopback(port))
  }

  static func tcp(_ packets: [[UInt8]], port: UInt16, ipv6: Bool = false) -> [[UInt8]] {
    guard let connection = TCPConnection(port: port, ipv6: ipv6) else { return [] }
    var out: [UInt8] = []
    for packet in packets {
      out += framedMessage(packet)
    }
    connection.send(out)
    var replies: [[UInt8]] = []
    for _ in packets {
      guard let reply = connection.receive() else { break }
      replies.append(reply)
    }
    return replies
  }

  /// One client TCP connection to 127.0.0.1 or [::1], closed on deinit.
  final class TCPConnection {
    let fd: Int32

    init?(port: UInt16, ipv6: Bool = false, timeout: Int = 3) {
      fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var tv = timeval(tv_sec: timeout, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
      var connected: Int32
      if ipv6 {
        var address = loopback6(port)
        connected = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
          }
        }
      } else {
        connected = StubClient.connectToLoopback(fd, port: port)
      }
      if connected != 0 {
        close(fd)
        return nil
      }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
      _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// One length-framed message, or nil on EOF, reset or timeout.
    func receive() -> [UInt8]? {
      readFramedMessage(fd)
    }

    /// Sends one query and waits for one reply.
    func ask(_ query: [UInt8]) -> [UInt8]? {
      send(framedMessage(query))
      return receive()
    }
  }

  /// Whether a UDP socket can be bound to [::1] here.
  static var hasIPv6Loopback: Bool {
    let probe = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(probe) }
    var address = loopback6(0)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
      }
    }
  }

  /// A UDP socket bound to 127.0.0.1 on a port the kernel chose, and that
  /// port: something that holds the port and never answers. Nil if the
  /// bind fails.
  static func boundUDPSocket() -> (fd: Int32, port: UInt16)? {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = loopback(0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      return nil
    }
    return (fd, UInt16(bigEndian: address.sin_port))
  }

  /// connect(2) of the socket `fd` to 127.0.0.1:`port`: 0, or -1 and errno.
  static func connectToLoopback(_ fd: Int32, port: UInt16) -> Int32 {
    var address = loopback(port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  static func loopback6(_ port: UInt16) -> sockaddr_in6 {
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    address.sin6_port = port.bigEndian
    return address
  }

  static func loopback(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return address
  }
}

extension Reply {
  /// Whether DNSWire, stricter than `PlainMessage`, accepts the reply.
  var isValid: Bool { bytes.withUnsafeBytes { (try? Message(validating: $0)) != nil } }
}

extension DnswardProcess {
  /// dnsward on `listen 127.0.0.1:0` forwarding over UDP to `upstream`,
  /// `config` holding the rest of its config.
  convenience init(forwardingTo upstream: FakeUpstream, _ config: String = "") throws {
    try self.init(
      config: "listen 127.0.0.1:0\nupstream udp 127.0.0.1:\(upstream.port)\n" + config)
  }

  /// The reply to `dnsQuery(name, type:, id:, edns:)` asked over UDP,
  /// waiting up to `timeout` seconds.
  func ask(
    _ name: String, type: UInt16 = 1, id: UInt16 = 0x1234, edns: UInt16? = nil,
    timeout: TimeInterval = 3
  ) -> Reply? {
    Reply(
      StubClient.udp(dnsQuery(name, type: type, id: id, edns: edns), port: port, timeout: timeout))
  }

  /// dnsward's counters, asked over TCP as `stats.dnsward. CH TXT` (one
  /// `name=value` string per record); empty if it did not answer.
  func counters() -> [String: UInt64] {
    var query = dnsQuery("stats.dnsward", type: 16, id: 0x5757)
    query[query.count - 1] = 3  // class CH
    guard let reply = Reply(StubClient.tcp([query], port: port).first) else { return [:] }
    var result: [String: UInt64] = [:]
    for text in reply.texts {
      let parts = text.split(separator: "=")
      if parts.count == 2 { result[String(parts[0])] = UInt64(parts[1]) }
    }
    return result
  }

  /// How many descriptors it holds (/proc/PID/fd; under a qemu runner
  /// that is qemu's table, which mirrors the guest's); nil once it exited.
  var openDescriptors: Int? {
    try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd")
      .count
  }
}

/// A test case with a scratch directory of its own for each test (named
/// `scratchPrefix` and a UUID), removed after it.
class ScratchDirectoryTestCase: XCTestCase {
  var directory: URL!

  class var scratchPrefix: String { "dnsward-test" }

  override func setUpWithError() throws {
    directory = try makeScratchDirectory(Self.scratchPrefix)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }
}
