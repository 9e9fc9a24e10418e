import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The forwarder on the router, 192.168.77.1:53: the real dnsward binary
/// on a config written by the test, or dnsmasq as the reference plain
/// forwarder. Runs in the router namespace until `stop()`.
final class RouterForwarder {
  let name: String
  private let process: SpawnedProcess
  private var configURL: URL?

  static let environment = ProcessInfo.processInfo.environment

  /// The dnsward under test: `DNSWARD_TEST_BINARY` if set (with
  /// `DNSWARD_TEST_RUNNER`, e.g. qemu-user, in front of it), else the one
  /// SwiftPM built next to the tests.
  static var dnswardBinary: String? {
    if let path = environment["DNSWARD_TEST_BINARY"] { return path }
    let testBundle = URL(fileURLWithPath: CommandLine.arguments[0])
    let candidates = [
      testBundle.deletingLastPathComponent(),
      testBundle.deletingLastPathComponent().deletingLastPathComponent(),
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
        ".build/debug"),
    ]
    return candidates.map { $0.appendingPathComponent("dnsward").path }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  var log: String { process.output }

  /// Starts dnsward on `configLines` and waits until it listens on the LAN.
  static func dnsward(_ configLines: [String], in topology: Topology) throws -> RouterForwarder {
    guard let binary = dnswardBinary else {
      throw XCTSkip("dnsward binary not found next to the tests")
    }
    let configURL = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-lan-\(getpid())-\(UUID().uuidString).conf")
    let config = configLines.joined(separator: "\n") + "\n"
    try config.write(to: configURL, atomically: true, encoding: .utf8)
    let runner = (environment["DNSWARD_TEST_RUNNER"] ?? "").split(separator: " ").map(String.init)
    let forwarder = try RouterForwarder(
      name: "dnsward",
      arguments: ["ip", "netns", "exec", topology.router] + runner
        + [binary, "--config", configURL.path])
    forwarder.configURL = configURL
    let ready = "listening on \(Topology.routerLANAddress):53"
    if !forwarder.waitUntil(timeout: 10, { forwarder.log.contains(ready) }) {
      let log = forwarder.log
      forwarder.stop()
      throw StartError(description: "dnsward did not start on config:\n\(config)log:\n\(log)")
    }
    return forwarder
  }

  /// Starts dnsmasq forwarding everything to `upstream`, with nothing
  /// else: no cache tricks, no rebind or bogus options, no hosts file.
  static func dnsmasq(upstream: String, in topology: Topology) throws -> RouterForwarder {
    guard let dnsmasq = Command.path(of: "dnsmasq") else {
      throw XCTSkip("dnsmasq is not installed; the reference plain forwarder is skipped")
    }
    let forwarder = try RouterForwarder(
      name: "dnsmasq",
      arguments: [
        "ip", "netns", "exec", topology.router, dnsmasq, "--keep-in-foreground",
        "--log-facility=-", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
        "--listen-address=\(Topology.routerLANAddress)", "--bind-interfaces",
        "--server=\(upstream)", "--user=root", "--group=root", "--pid-file=",
      ])
    // Ready once it answers a name that exists (and that no test lies about).
    let ready = forwarder.waitUntil(timeout: 10) {
      Clients.dig("www.example", in: topology, timeoutSeconds: 1).status == "NOERROR"
    }
    if !ready {
      let log = forwarder.log
      forwarder.stop()
      throw StartError(description: "dnsmasq did not answer; log:\n\(log)")
    }
    return forwarder
  }

  private init(name: String, arguments: [String]) throws {
    self.name = name
    process = try SpawnedProcess(arguments)
  }

  private func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition() { return true }
      if !process.isRunning { return false }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return false
  }

  func stop() {
    process.stop()
    if let configURL { try? FileManager.default.removeItem(at: configURL) }
    configURL = nil
  }

  deinit { stop() }
}

struct StartError: Error, CustomStringConvertible {
  let description: String
}
