// Ed25519ScalarTests.swift — the scalars of Ed25519 verification (Sources/Crypto/Ed25519.swift):
// the S < L check, the digest reduced mod L (RFC 8032 §5.1.7 steps 1–2) against python3
// integers (n % L), and the width-5 signed digits the double-scalar multiplication reads.

import TestSupport
import XCTest

@testable import Crypto

/// The four little-endian words of a 32-byte little-endian hex number.
private func scalarWords(_ hex: String) -> Ed25519Scalar.Words {
  hexBytes(hex).withUnsafeBytes { Ed25519Scalar.littleEndian($0) }
}

/// A 64-byte digest from hex.
private func digest(_ hex: String) -> InlineArray<64, UInt8> {
  let bytes = hexBytes(hex)
  precondition(bytes.count == 64)
  return InlineArray<64, UInt8> { bytes[$0] }
}

private func words(_ n: Ed25519Scalar.Words) -> [UInt64] { [n[0], n[1], n[2], n[3]] }

final class Ed25519ScalarTests: XCTestCase {
  /// L = 2^252 + 27742317777372353535851937790883648493, little-endian.
  let order = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"

  func testIsBelowOrder() {
    XCTAssertTrue(Ed25519Scalar.isBelowOrder(scalarWords(String(repeating: "00", count: 32))))
    XCTAssertTrue(
      Ed25519Scalar.isBelowOrder(
        scalarWords("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")))
    XCTAssertFalse(Ed25519Scalar.isBelowOrder(scalarWords(order)))
    // L + 2^64: only the second word differs.
    XCTAssertFalse(
      Ed25519Scalar.isBelowOrder(
        scalarWords("edd3f55c1a631258d79cf7a2def9de1400000000000000000000000000000010")))
    // 2^252 + 2^128: above L in the third word, below it in the first two.
    XCTAssertFalse(
      Ed25519Scalar.isBelowOrder(
        scalarWords("0000000000000000000000000000000001000000000000000000000000000010")))
    XCTAssertFalse(Ed25519Scalar.isBelowOrder(scalarWords(String(repeating: "ff", count: 32))))
  }

  func testDigestReducedModOrderMatchesPython() {
    // (digest, digest mod L), both little-endian; the comments say which step of the reduction
    // each exercises (an estimated quotient one too large is put right by adding L).
    let cases: [(String, String)] = [
      (
        String(repeating: "00", count: 64), String(repeating: "00", count: 32)
      ),
      (  // L − 1: L added back once.
        "ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
          + "0000000000000000000000000000000000000000000000000000000000000000",
        "ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
      ),
      (  // L
        order + String(repeating: "00", count: 32), String(repeating: "00", count: 32)
      ),
      (  // L + 1
        "eed3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
          + "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000"
      ),
      (  // (2^259 − 1)·L − 1: L added back seven times.
        "122c0aa3e59ceda72963085d210621ebffffffffffffffffffffffffffffffef"
          + "679faee7d21893c0b2e6bc17f5cef7a600000000000000000000000000000080",
        "ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
      ),
      (  // 2^512 − 1
        String(repeating: "ff", count: 64),
        "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903"
      ),
      (  // random
        "6aad39f4c2aaed1a8a27e534ce4aa7426078fe43c27a88b4ada9dd7491560821"
          + "232cae48c88fff9b500f0b4cca8e9f33a72971aa44125c7294d11bb5905bf031",
        "9e478affb74d1f8b75e6104d62e1c2c9ad9e560eac4b03bd40068a04282be304"
      ),
    ]
    for (input, expected) in cases {
      XCTAssertEqual(
        words(Ed25519Scalar.reduced(digest(input))), words(scalarWords(expected)), input)
    }
  }
}
