// The signed zones the DNSSEC suite validates: keys made with keymgr,
// zones signed by knotd itself (`dnssec-signing: on`, one policy per zone),
// served on 127.0.0.1. A second knotd with the same keys runs with its
// wall clock 40 days back (libfaketime) and short-lived signatures: its
// RRSIGs are genuine but expired, for the relay to replay.
import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// One zone of the tree under `dnssec.test.`.
struct SignedZone {
  /// nsec3Salted: an 8-octet salt, which RFC 9276 §3.1 tells signers to
  /// leave out and validators must still handle.
  enum Denial { case nsec, nsec3, nsec3Salted, nsec3OptOut, unsigned }
  /// Without the trailing dot: "rsa.dnssec.test".
  let name: String
  /// RFC 8624 algorithm number: 8 RSA/SHA-256, 13 ECDSA P-256, 15 Ed25519.
  let algorithm: Int
  let denial: Denial
  /// Zone-file lines after the SOA and NS (relative owners).
  let records: [String]

  var isSigned: Bool { denial != .unsigned }
}

/// The tree, top first. Every child is delegated from `dnssec.test.`
/// (`sub.optout` from `optout`) to the same knotd, which answers for all.
enum TestZones {
  static let top = "dnssec.test"
  static let zones: [SignedZone] = [
    SignedZone(
      name: top, algorithm: 13, denial: .nsec,
      records: [
        "ns A 127.0.0.1", "www A 192.0.2.1", "addr A 192.0.2.10", "nosig A 192.0.2.11",
        "expired A 192.0.2.12", "*.wild A 192.0.2.42",
        // A CNAME chain through two signed zones, and one into an unsigned zone.
        "alias CNAME www.rsa.dnssec.test.", "plainalias CNAME www.plain.dnssec.test.",
      ] + delegated.map { "\($0) NS ns.dnssec.test." } + floodNames.map { "\($0) A 192.0.2.99" }),
    SignedZone(
      name: "rsa.\(top)", algorithm: 8, denial: .nsec,
      records: ["www A 192.0.2.8", "addr A 192.0.2.9"]),
    SignedZone(
      name: "ed.\(top)", algorithm: 15, denial: .nsec,
      records: ["www A 192.0.2.15", "addr A 192.0.2.16"]),
    SignedZone(
      name: "nsec3.\(top)", algorithm: 13, denial: .nsec3,
      records: ["www A 192.0.2.3", "*.wild A 192.0.2.43"]),
    SignedZone(
      name: "salted.\(top)", algorithm: 13, denial: .nsec3Salted, records: ["www A 192.0.2.4"]),
    SignedZone(
      name: "optout.\(top)", algorithm: 13, denial: .nsec3OptOut,
      records: ["www A 192.0.2.50", "sub NS ns.dnssec.test."]),
    SignedZone(
      name: "sub.optout.\(top)", algorithm: 0, denial: .unsigned, records: ["www A 192.0.2.51"]),
    SignedZone(
      name: "plain.\(top)", algorithm: 0, denial: .unsigned, records: ["www A 192.0.2.52"]),
    SignedZone(name: "dsswap.\(top)", algorithm: 13, denial: .nsec, records: ["www A 192.0.2.61"]),
    SignedZone(name: "keyswap.\(top)", algorithm: 13, denial: .nsec, records: ["www A 192.0.2.62"]),
    // Its parent publishes (and signs) the DS of another zone's key: a
    // chain broken at the source, not on the way.
    SignedZone(name: "wrongds.\(top)", algorithm: 13, denial: .nsec, records: ["www A 192.0.2.63"]),
  ]
  /// The labels delegated from the top zone.
  static let delegated = [
    "rsa", "ed", "nsec3", "salted", "optout", "plain", "dsswap", "keyswap", "wrongds",
  ]
  /// Whose key's DS the top zone publishes for `wrongds`.
  static let wrongDSDonor = "nsec3.\(top)"
  /// Names signed one by one (no wildcard: each answer's RRSIG is its own,
  /// so each costs the validator one verification): the validation
  /// flood of ValidationFloodTests.
  static let floodNames = (0..<floodCount).map { "f\($0).flood" }
  static let floodCount = 160
}

/// The zones, keys and the two knotd processes, in one temporary directory.
final class SignedZones {
  static let knotd = "/usr/sbin/knotd"
  static let keymgr = "/usr/sbin/keymgr"
  static let libfaketime = [
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
  ].first { FileManager.default.fileExists(atPath: $0) }

  /// Why the suite cannot run here, or nil.
  static var missingTool: String? {
    for tool in [knotd, keymgr] where !FileManager.default.isExecutableFile(atPath: tool) {
      return "\(tool) is not installed (apt-get install knot)"
    }
    if libfaketime == nil { return "libfaketime is not installed (apt-get install faketime)" }
    return nil
  }

  let directory: URL
  /// The trust anchor: the top zone's DS (digest type 2), presentation form.
  private(set) var trustAnchor = ""
  /// Each signed zone's DS (digest type 2) lines, by zone name.
  private(set) var dsLines: [String: String] = [:]
  private(set) var honest: KnotServer!
  private(set) var expired: KnotServer!

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dnsward-dnssec-\(UUID().uuidString)")
    // A fixture that fails half-way leaves no process and no directory.
    do { try build() } catch {
      remove()
      throw error
    }
  }

  private func build() throws {
    let honestDirectory = directory.appendingPathComponent("honest")
    for part in ["zones", "db"] {
      try FileManager.default.createDirectory(
        at: honestDirectory.appendingPathComponent(part), withIntermediateDirectories: true)
    }
    // keymgr reads the same config knotd will: it finds the key database
    // and each zone's policy there.
    try KnotServer.writeConfig(in: honestDirectory, port: 0, zones: TestZones.zones, expired: false)
    for zone in TestZones.zones where zone.isSigned {
      // One CSK (KSK and ZSK in one key, flags 257), active 60 days back
      // so that the faketime instance 40 days back signs with it too.
      try keymgr(
        honestDirectory, zone.name, "generate", "algorithm=\(zone.algorithm)", "ksk=yes",
        "zsk=yes", "created=-60d", "publish=-60d", "active=-60d")
      let lines = try keymgr(honestDirectory, zone.name, "ds").split(separator: "\n")
      // "NAME. DS TAG ALG 2 HEX": SHA-256 only (RFC 4509).
      guard let line = lines.first(where: { $0.split(separator: " ")[safe: 4] == "2" }) else {
        throw FixtureError("keymgr ds printed no SHA-256 DS for \(zone.name): \(lines)")
      }
      dsLines[zone.name] = String(line)
    }
    trustAnchor = dsLines[TestZones.top]!
    for zone in TestZones.zones {
      try zoneFile(zone).write(
        to: honestDirectory.appendingPathComponent("zones/\(zone.name).zone"), atomically: true,
        encoding: .utf8)
    }
    // The expired instance: the top zone only, its keys copied.
    let expiredDirectory = directory.appendingPathComponent("expired")
    try FileManager.default.createDirectory(
      at: expiredDirectory.appendingPathComponent("zones"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: expiredDirectory.appendingPathComponent("db"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: honestDirectory.appendingPathComponent("db/keys"),
      to: expiredDirectory.appendingPathComponent("db/keys"))
    try FileManager.default.copyItem(
      at: honestDirectory.appendingPathComponent("zones/\(TestZones.top).zone"),
      to: expiredDirectory.appendingPathComponent("zones/\(TestZones.top).zone"))

    honest = try KnotServer(directory: honestDirectory, zones: TestZones.zones, expired: false)
    expired = try KnotServer(
      directory: expiredDirectory, zones: [TestZones.zones[0]], expired: true)
  }

  deinit { stop() }

  func stop() {
    honest?.stop()
    expired?.stop()
  }

  func remove() {
    stop()
    try? FileManager.default.removeItem(at: directory)
  }

  /// The zone file: SOA, NS, the zone's records, and for the top zone the
  /// DS of every signed child (and the wrong one for `wrongds`).
  private func zoneFile(_ zone: SignedZone) -> String {
    var lines = [
      "$ORIGIN \(zone.name).", "$TTL 300",
      "@ SOA ns.dnssec.test. hostmaster.dnssec.test. 1 3600 600 86400 300",
      "@ NS ns.dnssec.test.",
    ]
    lines += zone.records
    if zone.name == TestZones.top {
      for label in TestZones.delegated {
        let child = "\(label).\(TestZones.top)"
        if label == "wrongds" {
          let donor = dsLines[TestZones.wrongDSDonor]!.split(separator: " ").dropFirst()
          lines.append("\(child). " + donor.joined(separator: " "))
        } else if let ds = dsLines[child] {
          lines.append(ds)
        }
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  @discardableResult
  private func keymgr(_ directory: URL, _ arguments: String...) throws -> String {
    let config = directory.appendingPathComponent("knot.conf").path
    let result = try runProcess(URL(fileURLWithPath: Self.keymgr), ["-c", config] + arguments)
    guard result.status == 0 else {
      throw FixtureError("keymgr \(arguments.joined(separator: " ")): \(result.error)")
    }
    return String(decoding: result.output, as: UTF8.self)
  }
}

struct FixtureError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// One knotd on 127.0.0.1 (UDP and TCP), its files in `directory`.
final class KnotServer {
  let directory: URL
  private(set) var port: UInt16 = 0
  private var process: Process?
  private var logPath: String { directory.appendingPathComponent("knotd.log").path }
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// Starts knotd and waits until it answers for the top zone
  /// (LoopbackServer: another port when the one learned free was taken
  /// meanwhile). Up to 8 s: knotd signs every zone before it answers (RSA
  /// included). `expired`: knotd runs 40 days in the past (libfaketime).
  init(directory: URL, zones: [SignedZone], expired: Bool) throws {
    self.directory = directory
    var environment: [String: String] = [:]
    if expired, let library = SignedZones.libfaketime {
      environment = [
        "LD_PRELOAD": library, "FAKETIME": "-40d", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
      ]
    }
    guard
      let started = try LoopbackServer.start(
        SignedZones.knotd, logPath: directory.appendingPathComponent("knotd.log").path,
        environment: environment,
        configure: { port in
          try Self.writeConfig(in: directory, port: port, zones: zones, expired: expired)
          return ["-c", directory.appendingPathComponent("knot.conf").path]
        }, answers: Self.answersTopSOA)
    else { throw FixtureError("knotd did not answer on 127.0.0.1; its log:\n\(log)") }
    (process, port) = started
  }

  deinit { stop() }

  /// knot.conf (Knot 3.2 syntax, knot.conf(5)). Signed zones get a policy
  /// each; `manual: on` keeps keymgr's keys and never rolls them. The
  /// signed zone is never written back to the file (`zonefile-sync: -1`).
  /// Expired: signatures live 2 days (refreshed 1 day before), which under
  /// a clock 40 days back expired 38 days ago.
  static func writeConfig(in directory: URL, port: UInt16, zones: [SignedZone], expired: Bool)
    throws
  {
    let path = directory.path
    var lines = [
      "server:",
      "    rundir: \"\(path)\"",
      "    pidfile: \"\(path)/knotd.pid\"",
    ]
    // keymgr's copy (port 0) has no listener: Knot refuses port 0.
    if port != 0 { lines.append("    listen: 127.0.0.1@\(port)") }
    lines += [
      "    udp-workers: 1",
      "    tcp-workers: 1",
      "    background-workers: 1",
      "database:",
      "    storage: \"\(path)/db\"",
      "log:",
      "  - target: stderr",
      "    any: info",
      "template:",
      "  - id: default",
      "    storage: \"\(path)/zones\"",
      "    file: \"%s.zone\"",
      "    zonefile-sync: -1",
      "    journal-content: none",
      "policy:",
    ]
    for zone in zones where zone.isSigned {
      lines += [
        "  - id: \(zone.name)",
        "    manual: on",
        "    algorithm: \(["8": "rsasha256", "13": "ecdsap256sha256", "15": "ed25519"]["\(zone.algorithm)"]!)",
      ]
      if expired { lines += ["    rrsig-lifetime: 2d", "    rrsig-refresh: 1d"] }
      if zone.denial == .nsec3 || zone.denial == .nsec3OptOut {
        // RFC 9276 §3.1: no extra iterations, no salt.
        lines += ["    nsec3: on", "    nsec3-iterations: 0", "    nsec3-salt-length: 0"]
      }
      if zone.denial == .nsec3Salted {
        lines += ["    nsec3: on", "    nsec3-iterations: 0", "    nsec3-salt-length: 8"]
      }
      if zone.denial == .nsec3OptOut { lines.append("    nsec3-opt-out: on") }
    }
    lines.append("zone:")
    for zone in zones {
      lines.append("  - domain: \(zone.name).")
      if zone.isSigned {
        lines += ["    dnssec-signing: on", "    dnssec-policy: \(zone.name)"]
      }
    }
    try (lines.joined(separator: "\n") + "\n").write(
      to: directory.appendingPathComponent("knot.conf"), atomically: true, encoding: .utf8)
  }

  /// An authoritative answer with the top zone's SOA: knotd has loaded
  /// and signed it.
  private static func answersTopSOA(port: UInt16) -> Bool {
    let query = dnsQuery(TestZones.top, type: 6, id: 1, edns: 1232)
    guard
      let reply = StubClient.udpMatchingID(query, port: port, timeout: 0.2).flatMap(
        PlainMessage.init)
    else { return false }
    return reply.flags & 0x0400 != 0 && reply.rcode == 0 && !reply.answer.isEmpty
  }

  func stop() {
    guard let process else { return }
    self.process = nil
    stopProcess(process)
  }
}
