import Foundation

@testable import HTTPDNS

#if canImport(Glibc)
  import Glibc
#endif

/// An HTTPDNS server on 127.0.0.1 for the integration tests: the three APIs
/// dnsward speaks (issue 7), over HTTP/1.1 with keep-alive, one thread per
/// connection. Knows a few names:
///
/// - `www.example.test`: A 192.0.2.1, AAAA 2001:db8::1;
/// - `chain.example.test` (json only): CNAME www.example.test, then its A;
/// - `mail.example.test` (json only): MX 10 www.example.test;
/// - `*.burst.example.test` (json only): A 192.0.2.1;
/// - names starting with `nx`: nothing (json: Status 3).
final class FakeHTTPDNS: @unchecked Sendable {
  enum Behaviour {
    case honest
    /// Answers after a delay.
    case slow(milliseconds: Int)
    /// Answers 200 with a body that is not JSON.
    case garbage
    /// Closes every connection after its response (Connection: close).
    case closing
    /// Answers the first request of a connection; at the second it hangs up
    /// without a word, as a server whose keep-alive timer just ran out.
    case hangsUpOnReuse
  }

  let behaviour: Behaviour
  /// alibaba: requests must be signed with this secret when not empty.
  let secret: String
  private(set) var port: UInt16 = 0
  private let listener: Int32
  private let lock = NSLock()
  private var running = true
  private var _paths: [String] = []
  private var _connections = 0
  /// Every request target, in arrival order.
  var paths: [String] { lock.withLock { _paths } }
  /// TCP connections accepted.
  var connections: Int { lock.withLock { _connections } }

  init(_ behaviour: Behaviour = .honest, secret: String = "") throws {
    _ = pipeSignalIgnored
    self.behaviour = behaviour
    self.secret = secret
    listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  /// Idempotent: `deinit` calls it again after the test's own call, and a
  /// second close(2) would close whatever socket has reused the number
  /// meanwhile (the next test's listener, which then refuses connections).
  func stop() {
    let wasRunning = lock.withLock { () -> Bool in
      defer { running = false }
      return running
    }
    guard wasRunning else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  deinit { stop() }

  private var isRunning: Bool { lock.withLock { running } }

  private func acceptLoop() {
    while isRunning {
      let fd = accept(listener, nil, nil)
      guard fd >= 0 else { return }
      lock.withLock { _connections += 1 }
      Thread.detachNewThread { [self] in serve(fd) }
    }
  }

  private func serve(_ fd: Int32) {
    defer { close(fd) }
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var answered = 0
    while isRunning {
      while let end = Self.headerEnd(pending) {
        let head = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        if case .hangsUpOnReuse = behaviour, answered == 1 { return }
        answered += 1
        let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        lock.withLock { _paths.append(target) }
        if case .slow(let milliseconds) = behaviour {
          Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
        }
        let (status, body) = respond(to: target)
        var closing = false
        if case .closing = behaviour { closing = true }
        let response =
          "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\n"
          + "Content-Length: \(body.utf8.count)\r\n" + (closing ? "Connection: close\r\n" : "")
          + "\r\n" + body
        let bytes = Array(response.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if closing { return }
      }
      let count = recv(fd, &chunk, chunk.count, 0)
      guard count > 0 else { return }
      pending += chunk[0..<count]
    }
  }

  static func headerEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 0...(bytes.count - 4)
    where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13
      && bytes[index + 3] == 10
    {
      return index
    }
    return nil
  }

  /// The status line and body for one request target.
  func respond(to target: String) -> (String, String) {
    let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
    let path = parts[0]
    var query: [String: String] = [:]
    for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
      let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
      query[keyValue[0]] = keyValue.count > 1 ? keyValue[1].removingPercentEncoding : ""
    }
    if case .garbage = behaviour { return ("200 OK", "{\"Status\": 0, \"Answer\": [ {oops") }
    if path == "/resolve" {
      return ("200 OK", json(name: query["name"] ?? "", type: query["type"]))
    }
    if path == "/d" { return ("200 OK", dnspod(name: query["dn"] ?? "", type: query["type"])) }
    if path.hasSuffix("/sign_d") || path.hasSuffix("/d") {
      let host = query["host"] ?? ""
      if !secret.isEmpty {
        guard path.hasSuffix("/sign_d"), let t = query["t"],
          query["s"] == Self.md5Hex("\(host)-\(secret)-\(t)")
        else { return ("403 Forbidden", "{\"code\":\"SignatureMismatch\"}") }
      }
      return ("200 OK", alibaba(name: host, ipv6: query["query"] == "6"))
    }
    return ("404 Not Found", "")
  }

  static func md5Hex(_ text: String) -> String {
    var md5 = MD5()
    Array(text.utf8).withUnsafeBytes { md5.update($0) }
    let digest = md5.finalize()
    return (0..<16).map { String(format: "%02x", digest[$0]) }.joined()
  }

  func json(name: String, type: String?) -> String {
    let name = name.hasSuffix(".") ? String(name.dropLast()) : name
    let type = Int(type ?? "1") ?? 1
    func record(_ owner: String, _ type: Int, _ data: String) -> String {
      "{\"name\":\"\(owner).\",\"type\":\(type),\"TTL\":300,\"data\":\"\(data)\"}"
    }
    var answers: [String] = []
    switch (name, type) {
    case ("www.example.test", 1): answers = [record(name, 1, "192.0.2.1")]
    case ("www.example.test", 28): answers = [record(name, 28, "2001:db8::1")]
    case ("chain.example.test", 1):
      answers = [record(name, 5, "www.example.test."), record("www.example.test", 1, "192.0.2.1")]
    case ("mail.example.test", 15): answers = [record(name, 15, "10 www.example.test.")]
    case (_, 1) where name.hasSuffix(".burst.example.test"):
      answers = [record(name, 1, "192.0.2.1")]
    default: break
    }
    let status = name.hasPrefix("nx") ? 3 : 0
    return "{\"Status\":\(status),\"TC\":false,\"RD\":true,\"RA\":true,\"Question\":"
      + "[{\"name\":\"\(name).\",\"type\":\(type)}],\"Answer\":[\(answers.joined(separator: ","))]}"
  }

  func dnspod(name: String, type: String?) -> String {
    guard name == "www.example.test" else { return "" }
    return type == "AAAA" ? "2001:db8::1,120" : "192.0.2.1;192.0.2.2,120"
  }

  func alibaba(name: String, ipv6: Bool) -> String {
    let known = name == "www.example.test"
    let ips = known && !ipv6 ? "\"192.0.2.1\"" : ""
    let ipsv6 = known && ipv6 ? "\"2001:db8::1\"" : ""
    return
      "{\"host\":\"\(name)\",\"ips\":[\(ips)],\"ipsv6\":[\(ipsv6)],\"ttl\":60,\"origin_ttl\":600}"
  }
}
