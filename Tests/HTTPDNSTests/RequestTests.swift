import CompiledConfig
import DNSWire
import TestSupport
import XCTest

@testable import HTTPDNS

/// Golden requests for each API, and the MD5 behind the Alibaba signature.
final class RequestTests: XCTestCase {
  func testAlibabaUnsigned() throws {
    XCTAssertEqual(
      try request(dnsQuery("WWW.Aliyun.com"), .alibaba, account: "100000").get(),
      "GET /100000/d?host=www.aliyun.com HTTP/1.1\r\n"
        + "Accept: application/json\r\nHost: 203.107.1.1\r\n\r\n")
    XCTAssertEqual(
      try request(
        dnsQuery("www.aliyun.com", type: RRType.aaaa.rawValue), .alibaba, account: "100000"
      ).get(),
      "GET /100000/d?host=www.aliyun.com&query=6 HTTP/1.1\r\n"
        + "Accept: application/json\r\nHost: 203.107.1.1\r\n\r\n")
  }

  /// s = md5hex("www.aliyun.com-s3cret-1700000600"), computed independently
  /// (Python's hashlib); t = unixTime + 600.
  func testAlibabaSigned() throws {
    XCTAssertEqual(
      try request(
        dnsQuery("www.aliyun.com"), .alibaba, host: "[2001:db8::1]:8080", account: "100000",
        secret: "s3cret"
      ).get(),
      "GET /100000/sign_d?host=www.aliyun.com&t=1700000600&s=92ac7834d7ecbd61874775bf3235fe83"
        + " HTTP/1.1\r\nAccept: application/json\r\nHost: [2001:db8::1]:8080\r\n\r\n")
    XCTAssertEqual(
      try request(
        dnsQuery("ipv6.example.com.", type: RRType.aaaa.rawValue), .alibaba, account: "100000",
        secret: "s3cret"
      ).get(),
      "GET /100000/sign_d?host=ipv6.example.com&t=1700000600&s=f9499e08416cf1eb69c40a5437765c29"
        + "&query=6 HTTP/1.1\r\nAccept: application/json\r\nHost: 203.107.1.1\r\n\r\n")
  }

  func testDNSPod() throws {
    XCTAssertEqual(
      try request(dnsQuery("www.qq.com"), .dnspod, host: "119.29.29.29").get(),
      "GET /d?dn=www.qq.com&ttl=1 HTTP/1.1\r\nHost: 119.29.29.29\r\n\r\n")
    XCTAssertEqual(
      try request(dnsQuery("www.qq.com", type: RRType.aaaa.rawValue), .dnspod, host: "119.29.29.29")
        .get(),
      "GET /d?dn=www.qq.com&ttl=1&type=AAAA HTTP/1.1\r\nHost: 119.29.29.29\r\n\r\n")
  }

  func testJSON() throws {
    XCTAssertEqual(
      try request(dnsQuery("example.com", type: RRType.mx.rawValue), .json, host: "223.5.5.5")
        .get(),
      "GET /resolve?name=example.com&type=15 HTTP/1.1\r\n"
        + "Accept: application/json\r\nHost: 223.5.5.5\r\n\r\n")
    XCTAssertEqual(
      try request(dnsQuery("", type: RRType.ns.rawValue), .json, host: "223.5.5.5").get(),
      "GET /resolve?name=.&type=2 HTTP/1.1\r\nAccept: application/json\r\nHost: 223.5.5.5\r\n\r\n")
    XCTAssertEqual(
      try request(dnsQuery("x", type: 65535), .json).get().prefix(33),
      "GET /resolve?name=x&type=65535 HT")
  }

  /// Letters, digits, '-', '.', '_' pass; everything else is %XX, and the
  /// signature is over the unencoded name.
  func testPercentEncoding() throws {
    let name: [UInt8] = [3, 0x61, 0x20, 0x62, 4, 0x5F, 0x7E, 0xC3, 0xA9, 3, 0x63, 0x25, 0x2F, 0]
    let query = dnsQuery("", rawName: name)
    XCTAssertEqual(
      try request(query, .json).get().prefix(42), "GET /resolve?name=a%20b._%7E%C3%A9.c%25%2F")
    XCTAssertEqual(
      try request(query, .alibaba, account: "a/b c").get().prefix(40),
      "GET /a%2Fb%20c/d?host=a%20b._%7E%C3%A9.c")
  }

  func testUnsupportedQuestions() {
    // alibaba and dnspod: A and AAAA only.
    for format in [HTTPDNSFormat.alibaba, .dnspod] {
      XCTAssertEqual(
        request(dnsQuery("x.com", type: RRType.mx.rawValue), format).failure, .unsupportedQuestion)
      XCTAssertEqual(
        request(dnsQuery("", type: RRType.a.rawValue), format).failure, .unsupportedQuestion)
    }
    // A label with a dot inside has no text form.
    let dotted = dnsQuery("", rawName: [3, 0x61, 0x2E, 0x62, 0])
    XCTAssertEqual(request(dotted, .json).failure, .unsupportedQuestion)
    // Not a query message.
    XCTAssertEqual(request([1, 2, 3], .json).failure, .unsupportedQuestion)
    var response = dnsQuery("x.com")
    response[2] |= 0x80
    XCTAssertEqual(request(response, .json).failure, .unsupportedQuestion)
    // A compressed question name (a pointer into the header) is refused.
    let compressed: [UInt8] = [0, 1, 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0x02, 0, 1, 0, 1]
    XCTAssertEqual(request(compressed, .json).failure, .unsupportedQuestion)
    // A query with EDNS is fine.
    XCTAssertNotNil(try? request(dnsQuery("x.com", edns: 1232), .json).get())
  }

  func testBufferTooSmall() {
    let query = dnsQuery("www.aliyun.com")
    let full = try! request(query, .alibaba, account: "1", secret: "k").get().utf8.count
    for capacity in 0..<full {
      XCTAssertEqual(
        request(query, .alibaba, account: "1", secret: "k", capacity: capacity).failure,
        .bufferTooSmall)
    }
    XCTAssertNotNil(try? request(query, .alibaba, account: "1", secret: "k", capacity: full).get())
  }

  /// RFC 1321 §A.5.
  func testMD5Vectors() {
    let vectors: [(String, String)] = [
      ("", "d41d8cd98f00b204e9800998ecf8427e"),
      ("a", "0cc175b9c0f1b6a831c399e269772661"),
      ("abc", "900150983cd24fb0d6963f7d28e17f72"),
      ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
      ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
      (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f"
      ),
      (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a"
      ),
      // Several blocks, and a length where the padding needs a block of its own.
      (String(repeating: "a", count: 200), "887f30b43b2867f4a9accceee7d16e6c"),
    ]
    for (input, expected) in vectors {
      var md5 = MD5()
      Array(input.utf8).withUnsafeBytes { md5.update($0) }
      let digest = md5.finalize()
      let text = (0..<16).map {
        let byte = String(digest[$0], radix: 16)
        return byte.count == 1 ? "0" + byte : byte
      }.joined()
      XCTAssertEqual(text, expected, input)
    }
  }
}
