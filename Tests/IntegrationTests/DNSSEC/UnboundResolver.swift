// unbound, the reference validator: on 127.0.0.1, the test's trust anchor
// only, every question forwarded to one address (the tampering relay).
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

final class UnboundResolver {
  static let executable = "/usr/sbin/unbound"
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

  let directory: URL
  private(set) var port: UInt16 = 0
  private var process: Process?
  private var logPath: String { directory.appendingPathComponent("unbound.log").path }
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// Starts unbound and waits until it answers (LoopbackServer: another
  /// port when the one learned free was taken meanwhile).
  init(directory: URL, trustAnchor: String, forwardTo forwardPort: UInt16) throws {
    self.directory = directory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let configPath = directory.appendingPathComponent("unbound.conf")
    guard
      let started = try LoopbackServer.start(
        Self.executable, logPath: directory.appendingPathComponent("unbound.log").path,
        configure: { port in
          try Self.config(
            directory: directory, port: port, trustAnchor: trustAnchor, forwardPort: forwardPort
          ).write(to: configPath, atomically: true, encoding: .utf8)
          return ["-d", "-c", configPath.path]
        }, answers: Self.answersVersionQuery)
    else { throw FixtureError("unbound did not answer on 127.0.0.1; its log:\n\(log)") }
    (process, port) = started
  }

  deinit { stop() }

  /// unbound.conf(5) of 1.17. Notes for whoever changes it:
  /// - `test.` is one of unbound's default local zones (RFC 6761), answered
  ///   NXDOMAIN without asking anyone unless `nodefault`;
  /// - `aggressive-nsec: no`: answers synthesized from cached NSEC/NSEC3
  ///   (RFC 8198) would keep a tampered question from ever reaching the relay;
  /// - `trust-anchor-signaling: no`: no RFC 8145 `_ta-XXXX` questions;
  /// - `ede: yes` (1.16 and later): RFC 8914 codes in SERVFAIL answers;
  /// - `val-log-level: 2`: why each answer is bogus, in the log.
  private static func config(
    directory: URL, port: UInt16, trustAnchor: String, forwardPort: UInt16
  ) -> String {
    let path = directory.path
    return """
      server:
          interface: 127.0.0.1
          port: \(port)
          do-ip6: no
          do-daemonize: no
          chroot: ""
          username: ""
          directory: "\(path)"
          pidfile: "\(path)/unbound.pid"
          use-syslog: no
          logfile: ""
          log-time-ascii: yes
          verbosity: \(ProcessInfo.processInfo.environment["DNSWARD_UNBOUND_VERBOSITY"] ?? "1")
          val-log-level: 2
          ede: yes
          num-threads: 1
          do-not-query-localhost: no
          qname-minimisation: no
          aggressive-nsec: no
          trust-anchor-signaling: no
          root-key-sentinel: no
          msg-cache-size: 1m
          rrset-cache-size: 1m
          key-cache-size: 1m
          neg-cache-size: 256k
          local-zone: "test." nodefault
          trust-anchor: "\(trustAnchor)"
      forward-zone:
          name: "."
          forward-addr: 127.0.0.1@\(forwardPort)

      """
  }

  /// `version.server. CH TXT`, which unbound answers itself.
  private static func answersVersionQuery(port: UInt16) -> Bool {
    var query = dnsQuery("version.server", type: 16, id: 1, edns: 1232)
    query[query.count - 12] = 3  // class CH (low octet), before the 11-octet OPT
    let reply = StubClient.udpMatchingID(query, port: port, timeout: 0.2).flatMap(PlainMessage.init)
    return reply?.rcode == 0
  }

  func stop() {
    guard let process else { return }
    self.process = nil
    stopProcess(process)
  }
}
