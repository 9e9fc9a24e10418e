import CompiledConfig
import Engine
import XCTest

/// Which reloads empty the cache (`Settings.cachedAnswersDiffer`): those that
/// change how an answer is screened, limited or validated; not those that
/// change what is looked up before the cache.
final class ReloadCacheTests: XCTestCase {
  static let base = "listen 127.0.0.1\nupstream udp 192.0.2.53\n"
  static let exampleDS =
    "trust-anchor dskey.example.com. DS 60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118"

  func differs(_ before: String, _ after: String) -> Bool {
    makeSettings(Self.base + after).cachedAnswersDiffer(from: makeSettings(Self.base + before))
  }

  func testDNSSECChangesEmptyTheCache() {
    XCTAssertFalse(differs("dnssec on\n", "dnssec on\n"))
    XCTAssertFalse(differs("", "dnssec off\ndnssec-root on\n"), "the defaults")
    XCTAssertTrue(differs("", "dnssec on\n"))
    XCTAssertTrue(differs("dnssec on\n", "dnssec off\n"))
    XCTAssertTrue(differs("", "dnssec-root off\n"))
    XCTAssertTrue(differs("", Self.exampleDS + "\n"))
    XCTAssertFalse(differs(Self.exampleDS + "\n", Self.exampleDS + "\n"))
    XCTAssertTrue(differs(Self.exampleDS + "\n", Self.exampleDS.replacing("60485", with: "60486")))
  }

  func testOtherSettings() {
    XCTAssertFalse(differs("", "override a.lan 192.168.1.1\nlog debug\n"))
    XCTAssertTrue(differs("", "filter-aaaa on\n"))
    XCTAssertTrue(differs("", "max-ttl 1h\n"))
    XCTAssertTrue(differs("", "bogus 198.51.100.7\n"))
  }
}
