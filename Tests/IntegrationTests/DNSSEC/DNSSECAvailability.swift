import XCTest

/// Whether the binary under test validates DNSSEC: a firmware built with
/// -DDNSWARD_DNSSEC=OFF (the default firmware, which the integration suite
/// also runs against under qemu) refuses `dnssec on` at start-up.
enum DNSSECAvailability {
  static let binaryValidates = !DnswardProcess.refusesAtStartUp(
    config: "listen 127.0.0.1:0\ndnssec on\n", saying: "built without DNSSEC")

  /// Skips the calling test on a binary without the validator.
  static func requireValidator() throws {
    guard binaryValidates else {
      throw XCTSkip("the binary under test was built without DNSSEC (-DDNSWARD_DNSSEC=OFF)")
    }
  }
}
