import Foundation
import XCTest

/// Whether the binary under test validates DNSSEC: a firmware built with
/// -DDNSWARD_DNSSEC=OFF (the default firmware, which the integration suite
/// also runs against under qemu) refuses `dnssec on` at start-up.
enum DNSSECAvailability {
  static let binaryValidates: Bool = {
    guard
      let probe = try? DnswardProcess(
        config: "listen 127.0.0.1:0\ndnssec on\n", waitForListen: false)
    else { return true }
    defer { probe.stop() }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline && !probe.log.contains("listening on") {
      if probe.log.contains("built without DNSSEC") { return false }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return true
  }()

  /// Skips the calling test on a binary without the validator.
  static func requireValidator() throws {
    guard binaryValidates else {
      throw XCTSkip("the binary under test was built without DNSSEC (-DDNSWARD_DNSSEC=OFF)")
    }
  }
}
