import Crypto
import TestSupport
import XCTest

/// SHA-1, SHA-256, SHA-384 and SHA-512 against the FIPS 180-4 example messages
/// (NIST's "abc", the 448- and 896-bit messages, one million "a"), plus checks
/// that the split of the input into `update` calls and the message length at
/// every padding boundary give the right digest.
final class HashTests: XCTestCase {
  static let message448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
  static let message896 =
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"

  func testSHA1() {
    checkVectors(
      SHA1.self, byteCount: 20,
      empty: "da39a3ee5e6b4b0d3255bfef95601890afd80709",
      abc: "a9993e364706816aba3e25717850c26c9cd0d89d",
      message448: "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
      message896: "a49b2446a02c645bf419f995b67091253a04a259",
      millionA: "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
      pattern300: "2b498a2177b181ad0e5eddbd5cb58b8d52cf6941",
      digestOfPrefixDigests: "df5736ae6a869640f1beb31c89c67958106d4641"
    )
  }

  func testSHA256() {
    checkVectors(
      SHA256.self, byteCount: 32,
      empty: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      abc: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      message448: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
      message896: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
      millionA: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
      pattern300: "04773f8726c81cafcfa1a09a82664b98b00d2021031a1715bca1154f2dad3472",
      digestOfPrefixDigests: "3c9753cda0977fb999060d770c7f9a57e36d06694066435979186e4daefb5264"
    )
  }

  func testSHA512() {
    checkVectors(
      SHA512.self, byteCount: 64,
      empty:
        "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
      abc:
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
      message448:
        "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
      message896:
        "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
      millionA:
        "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
      pattern300:
        "46e56ad30db9ef50f8b6762ba55839737f3fba34ab47863c9daff7b3f58f97fe3465a52dd364560db47f802909ced49093322621ea0aebf8e0696b85ca8f81f0",
      digestOfPrefixDigests:
        "01e7687bda825089b074893332a411400fa96c8b225589a4f9086c82ce9bb7eb4b7d1da28809897dd6fcae37c7ccbb5b89170b420c9ce8b7016db2c8a8fdcdc1"
    )
  }

  func testSHA384() {
    checkVectors(
      SHA384.self, byteCount: 48,
      empty:
        "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
      abc:
        "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
      message448:
        "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b",
      message896:
        "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
      millionA:
        "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985",
      pattern300:
        "060eb8e1c01cc6c6c8c03fcb7898155f2b836fb97c9d331a7a296a1a209aac9d261b2b268c4ba3c7299a3dd12b5bf81f",
      digestOfPrefixDigests:
        "c5912e8971e6e6843a3f6d8e5d137b8af8d77110500d49503214145019855729894b846daec04391bca2b2aab45ce610"
    )
  }

  /// An empty buffer without a base address is a valid, empty input.
  func testEmptyBufferWithoutAddressIsEmptyInput() {
    let nothing = UnsafeRawBufferPointer(start: nil, count: 0)
    XCTAssertEqual(hexString(SHA512.hash(nothing)), SHA512.hexDigest([]))
    var hasher = SHA384()
    hasher.update(nothing)
    hasher.update(nothing)
    XCTAssertEqual(hexString(hasher.finalize()), SHA384.hexDigest([]))
  }

  // MARK: - Shared checks

  /// The vectors for one hash, `digestOfPrefixDigests` being the digest of the
  /// concatenated digests of `pattern(0)` through `pattern(257)`: every length
  /// across two blocks, so every place the padding can fall.
  func checkVectors<Hash: HashUnderTest>(
    _ hash: Hash.Type, byteCount: Int, empty: String, abc: String, message448: String,
    message896: String, millionA: String, pattern300: String, digestOfPrefixDigests: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(Hash.digestByteCount, byteCount, file: file, line: line)
    XCTAssertEqual(Hash.hexDigest(bytesOf("")), empty, "empty", file: file, line: line)
    XCTAssertEqual(Hash.hexDigest(bytesOf("abc")), abc, "abc", file: file, line: line)
    XCTAssertEqual(
      Hash.hexDigest(bytesOf(Self.message448)), message448, "448-bit", file: file, line: line)
    XCTAssertEqual(
      Hash.hexDigest(bytesOf(Self.message896)), message896, "896-bit", file: file, line: line)

    // One million "a", in 1,000 updates of 1,000 bytes: never a whole block.
    let thousandA = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    var hasher = Hash()
    thousandA.withUnsafeBytes { chunk in
      for _ in 0..<1000 { hasher.update(chunk) }
    }
    XCTAssertEqual(hasher.finalHexDigest(), millionA, "a million a", file: file, line: line)

    // The same 300 bytes split in two at every offset, and in three.
    let message = pattern(300)
    XCTAssertEqual(Hash.hexDigest(message), pattern300, "300 bytes", file: file, line: line)
    message.withUnsafeBytes { bytes in
      for split in 0..<130 {
        var twoParts = Hash()
        twoParts.update(UnsafeRawBufferPointer(rebasing: bytes[..<split]))
        twoParts.update(UnsafeRawBufferPointer(rebasing: bytes[split...]))
        XCTAssertEqual(
          twoParts.finalHexDigest(), pattern300, "split at \(split)", file: file, line: line)

        var threeParts = Hash()
        threeParts.update(UnsafeRawBufferPointer(rebasing: bytes[..<split]))
        threeParts.update(UnsafeRawBufferPointer(rebasing: bytes[split..<(split + 7)]))
        threeParts.update(UnsafeRawBufferPointer(rebasing: bytes[(split + 7)...]))
        XCTAssertEqual(
          threeParts.finalHexDigest(), pattern300, "split at \(split), +7", file: file, line: line)
      }
    }

    var digests: [UInt8] = []
    for length in 0..<258 { digests += hexBytes(Hash.hexDigest(pattern(length))) }
    XCTAssertEqual(
      Hash.hexDigest(digests), digestOfPrefixDigests, "lengths 0..<258", file: file,
      line: line)
  }
}

/// The 300-byte (or shorter) test message: byte i is (7 i + 3) mod 256.
func pattern(_ length: Int) -> [UInt8] {
  (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
}

func bytesOf(_ text: String) -> [UInt8] { Array(text.utf8) }

/// What the checks need of each hash; the digest as hexadecimal text comes
/// from its bytes in memory (an `InlineArray` of UInt8 is just its bytes).
protocol HashUnderTest {
  associatedtype Digest
  static var digestByteCount: Int { get }
  init()
  mutating func update(_ bytes: UnsafeRawBufferPointer)
  mutating func finalize() -> Digest
  static func hash(_ bytes: UnsafeRawBufferPointer) -> Digest
}

extension HashUnderTest {
  mutating func finalHexDigest() -> String {
    let digest = finalize()
    return withUnsafeBytes(of: digest) { hexString($0) }
  }

  static func hexDigest(_ bytes: [UInt8]) -> String {
    let digest = bytes.withUnsafeBytes { hash($0) }
    return withUnsafeBytes(of: digest) { hexString($0) }
  }
}

extension SHA512: HashUnderTest {}
extension SHA384: HashUnderTest {}
extension SHA256: HashUnderTest {}
extension SHA1: HashUnderTest {}
