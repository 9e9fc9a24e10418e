import CompiledConfig
import DNSWire
import XCTest

@testable import Engine

/// Whose answers the verifications were for (Sources/Engine/Validation/
/// ValidationShares.swift): the client that has had more than half of the
/// recent verifications, and at least `heavyFloor`, is heavy.
final class ValidationSharesTests: XCTestCase {
  let flooder = IPAddress(high: 0, low: 0xFFFF_7F00_0001)
  let other = IPAddress(high: 0, low: 0xFFFF_7F00_0002)

  func makeShares() -> ValidationShares {
    ValidationShares(hashKey: HashKey(k0: 0x0123_4567_89AB_CDEF, k1: 0xFEDC_BA98_7654_3210))
  }

  func testTheClientWithMostOfTheVerificationsIsHeavy() {
    var shares = makeShares()
    shares.add(20, for: flooder, now: 1_000)
    shares.add(2, for: other, now: 1_000)
    XCTAssertTrue(shares.isHeavy(flooder))
    XCTAssertFalse(shares.isHeavy(other))
  }

  func testTwoClientsThatValidateAlikeAreBothLight() {
    var shares = makeShares()
    shares.add(20, for: flooder, now: 1_000)
    shares.add(20, for: other, now: 1_000)
    XCTAssertFalse(shares.isHeavy(flooder))
    XCTAssertFalse(shares.isHeavy(other))
  }

  func testFewVerificationsAreNeverHeavy() {
    var shares = makeShares()
    shares.add(Int(ValidationShares.heavyFloor) - 1, for: flooder, now: 1_000)
    XCTAssertFalse(shares.isHeavy(flooder), "under the floor")
    shares.add(1, for: flooder, now: 1_000)
    XCTAssertTrue(shares.isHeavy(flooder), "at the floor, alone")
  }

  /// Counts halve once per second gone by, not once per verification: a
  /// client that flooded a minute ago is light again.
  func testOldWorkFadesWithTheSecondsGoneBy() {
    var shares = makeShares()
    shares.add(200, for: flooder, now: 1_000)
    shares.add(1, for: other, now: 1_500)
    XCTAssertTrue(shares.isHeavy(flooder))
    shares.add(1, for: other, now: 2_000)
    XCTAssertTrue(shares.isHeavy(flooder), "one second: 100 of 101")
    shares.add(1, for: other, now: 62_000)
    XCTAssertFalse(shares.isHeavy(flooder), "a minute later")
  }
}
