import Foundation
import TestSupport
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

  var log: String { process.output }

  /// Starts dnsward on `configLines` and waits until it listens on the LAN.
  static func dnsward(_ configLines: [String], in topology: Topology) throws -> RouterForwarder {
    let configURL = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-lan-\(getpid())-\(UUID().uuidString).conf")
    let config = configLines.joined(separator: "\n") + "\n"
    try config.write(to: configURL, atomically: true, encoding: .utf8)
    let forwarder = try RouterForwarder(
      name: "dnsward",
      arguments: ["ip", "netns", "exec", topology.router]
        + DnswardBinary.commandLine(["--config", configURL.path]))
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
