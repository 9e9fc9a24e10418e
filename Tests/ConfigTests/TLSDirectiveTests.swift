import CompiledConfig
import Config
import TestSupport
import XCTest

/// `upstream tls ADDRESS[:PORT] name=NAME [pin=sha256/BASE64] [trusted]`,
/// `upstream https ADDRESS[:PORT] name=NAME [path=/PATH]
/// [format=dns-message|json] [pin=sha256/BASE64] [trusted]`, `path=` and
/// `format=dns-message` for httpdns, and `ca-file PATH` (issue 7).
final class TLSDirectiveTests: XCTestCase, ParsesDirectives {
  /// Bytes 0...31 and 200...231, and their base64.
  static let pin = [UInt8](0..<32)
  static let pinText = "sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
  static let otherPin = [UInt8](200..<232)
  static let otherPinText = "sha256/yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5uc="

  func testTLSDefaults() throws {
    let server = try XCTUnwrap(parse("upstream tls 9.9.9.9 name=dns.quad9.net")?.upstreams.first)
    XCTAssertEqual(server.transport, .tls)
    XCTAssertEqual(describe(server.endpoint), "9.9.9.9:853")
    XCTAssertEqual(server.tlsName, Array("dns.quad9.net".utf8))
    XCTAssertEqual(server.pin, [])
    XCTAssertEqual(server.path, [])
    XCTAssertEqual(server.account, [])
    XCTAssertEqual(server.secret, [])
    XCTAssertFalse(server.trusted)
    XCTAssertTrue(server.answersEveryType)
  }

  func testHTTPSDefaults() throws {
    let server = try XCTUnwrap(
      parse("upstream https 1.1.1.1 name=cloudflare-dns.com")?.upstreams.first)
    XCTAssertEqual(server.transport, .https)
    XCTAssertEqual(describe(server.endpoint), "1.1.1.1:443")
    XCTAssertEqual(server.httpdnsFormat, .dnsMessage)
    XCTAssertEqual(server.tlsName, Array("cloudflare-dns.com".utf8))
    XCTAssertEqual(server.path, [])
    XCTAssertEqual(server.pin, [])
    XCTAssertFalse(server.trusted)
    XCTAssertTrue(server.answersEveryType)
  }

  func testOptionsInAnyOrder() throws {
    let settings = try XCTUnwrap(
      parse(
        """
        upstream tls [2620:fe::fe]:8853 trusted pin=\(Self.pinText) name=DNS.Quad9.net.
        upstream https 8.8.8.8 format=json path=/resolve?ct=json name=dns.google trusted
        upstream https 1.1.1.1:8443 pin=\(Self.otherPinText) path=/dns-query name=a-1.b
        upstream httpdns 223.5.5.5 format=dns-message
        upstream httpdns 223.5.5.6 path=/resolve trusted
        upstream tcp 9.9.9.9 trusted
        """))
    XCTAssertEqual(
      settings.upstreams.map(\.transport), [.tls, .https, .https, .httpdns, .httpdns, .tcp])
    XCTAssertEqual(
      settings.upstreams.map { describe($0.endpoint) },
      [
        "[2620:fe::fe]:8853", "8.8.8.8:443", "1.1.1.1:8443", "223.5.5.5:80", "223.5.5.6:80",
        "9.9.9.9:53",
      ])
    XCTAssertEqual(settings.upstreams.map(\.trusted), [true, true, false, false, true, true])
    // The final dot is dropped; the case is kept (names compare without it).
    XCTAssertEqual(
      settings.upstreams.map { String(decoding: $0.tlsName, as: UTF8.self) },
      ["DNS.Quad9.net", "dns.google", "a-1.b", "", "", ""])
    XCTAssertEqual(settings.upstreams.map(\.pin), [Self.pin, [], Self.otherPin, [], [], []])
    XCTAssertEqual(
      settings.upstreams.map { String(decoding: $0.path, as: UTF8.self) },
      ["", "/resolve?ct=json", "/dns-query", "", "/resolve", ""])
    XCTAssertEqual(
      settings.upstreams[1...4].map(\.httpdnsFormat), [.json, .dnsMessage, .dnsMessage, .json])
    XCTAssertEqual(settings.upstreams.map(\.answersEveryType), Array(repeating: true, count: 6))
  }

  /// Every character a path may hold, and the longest name and path.
  func testLimits() throws {
    let path = "/" + "azAZ09-._~%!$&'()*+,;=:@/?"
    let label = String(repeating: "a", count: 63)
    let name = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".")
    XCTAssertEqual(name.utf8.count, 253)
    let longPath = "/" + String(repeating: "p", count: 199)
    // name= and path= together at most 250 (a request must fit 1 KiB).
    let fifty = String(repeating: "n", count: 50)
    let settings = try XCTUnwrap(
      parse(
        "upstream tls 192.0.2.1 name=\(name).\n"
          + "upstream https 192.0.2.1 name=\(fifty) path=\(longPath)\n"
          + "upstream https 192.0.2.2 name=x path=\(path)"))
    XCTAssertEqual(settings.upstreams[0].tlsName, Array(name.utf8))
    XCTAssertEqual(settings.upstreams[1].path.count, 200)
    XCTAssertEqual(settings.upstreams[2].path, Array(path.utf8))
    XCTAssertEqual(
      parseError(
        "listen 127.0.0.1\nupstream https 192.0.2.1 name=\(fifty)n path=\(longPath)")?.message,
      "name= and path= together are longer than 250 characters (a request must fit "
        + "dnsward's 1 KiB buffer)")
  }

  /// tls, https, tcp and httpdns to one address are four upstreams; the
  /// same transport and endpoint twice is a duplicate whatever the names.
  func testTransportAndEndpointMakeAnUpstream() throws {
    let settings = try XCTUnwrap(
      parse(
        "upstream tcp 9.9.9.9:853\nupstream tls 9.9.9.9 name=dns.quad9.net\n"
          + "upstream https 9.9.9.9:853 name=dns.quad9.net\nupstream httpdns 9.9.9.9:853"))
    XCTAssertEqual(settings.upstreams.map(\.transport), [.tcp, .tls, .https, .httpdns])
  }

  /// `verify` needs a trusted upstream; a trusted tls one counts.
  func testVerifyAcceptsATrustedTLSUpstream() throws {
    XCTAssertEqual(
      parse("upstream udp 192.0.2.53\nverify bank.example\nupstream tls 9.9.9.9 name=x trusted")?
        .verifyNames, flatName("bank.example"))
  }

  func testCAFile() throws {
    XCTAssertEqual(try XCTUnwrap(parse("")).caFile, [])
    let settings = try XCTUnwrap(
      parse("ca-file /etc/dnsward/ca.pem\nupstream tls 9.9.9.9 name=dns.quad9.net"))
    XCTAssertEqual(settings.caFile, Array("/etc/dnsward/ca.pem".utf8))
  }

  static let badPin =
    "(expected sha256/ and the base64 of the SHA-256 of the server's public key, 44 characters, "
    + "RFC 7469 §2.4)"
  static let notAHostName =
    "is not a host name (labels of 1...63 letters, digits and '-', not starting or ending with "
    + "'-', joined by dots, 253 characters at most; RFC 1123 §2.1)"
  static let badPath =
    "(a '/', then up to 199 letters, digits and -._~%!$&'()*+,;=:@/?, e.g. path=/dns-query; "
    + "RFC 3986 §3.3)"

  /// A fragment after three preamble lines, its message, and its line in
  /// the fragment.
  static let badLines: [(String, String, Int)] = [
    // name= is required, and is a host name.
    (
      "upstream tls 9.9.9.9",
      "upstream tls needs name=NAME, the name its certificate is issued to "
        + "(e.g. name=dns.quad9.net); the server is still reached by its address", 1
    ),
    (
      "upstream https 1.1.1.1 trusted path=/dns-query",
      "upstream https needs name=NAME, the name its certificate is issued to "
        + "(e.g. name=dns.quad9.net); the server is still reached by its address", 1
    ),
    (
      "upstream tls 1.1.1.1 name=1.1.1.1",
      "name='1.1.1.1' looks like an IP address; give the host name the server's certificate "
        + "is issued to (e.g. name=dns.google): the address goes before the options", 1
    ),
    (
      "upstream tls 1.1.1.1 name=[2606:4700::1111]",
      "name='[2606:4700::1111]' looks like an IP address; give the host name the server's "
        + "certificate is issued to (e.g. name=dns.google): the address goes before the options",
      1
    ),
    ("upstream tls 1.1.1.1 name=.", "name='.' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=one..one", "name='one..one' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=.one.one", "name='.one.one' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=one.one..", "name='one.one..' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=dns_google.com", "name='dns_google.com' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=*.example", "name='*.example' \(notAHostName)", 1),
    (
      "upstream tls 1.1.1.1 name=caf\u{E9}.example", "name='caf\\xC3\\xA9.example' \(notAHostName)",
      1
    ),
    ("upstream tls 1.1.1.1 name=dns-.example", "name='dns-.example' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=dns.-example", "name='dns.-example' \(notAHostName)", 1),
    (
      "upstream tls 1.1.1.1 name=\(String(repeating: "a", count: 64)).example",
      "name='\(String(repeating: "a", count: 64)).example' \(notAHostName)", 1
    ),
    (
      "upstream tls 1.1.1.1 name=\(String(repeating: "a.", count: 127))a",
      "name='\(String(repeating: "a.", count: 127))a' \(notAHostName)", 1
    ),
    ("upstream tls 1.1.1.1 name=-", "name='-' \(notAHostName)", 1),
    ("upstream tls 1.1.1.1 name=a-", "name='a-' \(notAHostName)", 1),
    // pin=
    (
      "upstream tls 1.1.1.1 name=x pin=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
      "bad pin 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=' \(badPin)", 1
    ),
    (
      "upstream tls 1.1.1.1 name=x pin=sha1/AAECAwQFBgcICQoLDA0ODxAREhMUFRYX",
      "bad pin 'sha1/AAECAwQFBgcICQoLDA0ODxAREhMUFRYX' \(badPin)", 1
    ),
    // 43 characters, no padding.
    (
      "upstream tls 1.1.1.1 name=x pin=sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
      "bad pin 'sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8' \(badPin)", 1
    ),
    // Bits left over by the padding that are not zero.
    (
      "upstream tls 1.1.1.1 name=x pin=sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=",
      "bad pin 'sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=' \(badPin)", 1
    ),
    // 33 bytes.
    (
      "upstream tls 1.1.1.1 name=x pin=sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g",
      "bad pin 'sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g' \(badPin)", 1
    ),
    // base64url is not base64.
    (
      "upstream https 1.1.1.1 name=x pin=sha256/yMnKy8zNzs_Q0dLT1NXW19jZ2tvc3d7f4OHi4-Tl5uc=",
      "bad pin 'sha256/yMnKy8zNzs_Q0dLT1NXW19jZ2tvc3d7f4OHi4-Tl5uc=' \(badPin)", 1
    ),
    (
      "upstream https 1.1.1.1 name=x pin=sha256/====",
      "bad pin 'sha256/====' \(badPin)", 1
    ),
    // path=
    ("upstream https 1.1.1.1 name=x path=dns-query", "bad path 'dns-query' \(badPath)", 1),
    ("upstream https 1.1.1.1 name=x path=/dns\"query", "bad path '/dns\"query' \(badPath)", 1),
    ("upstream httpdns 223.5.5.5 path=/dns\\query", "bad path '/dns\\query' \(badPath)", 1),
    (
      "upstream https 1.1.1.1 name=x path=/\(String(repeating: "p", count: 200))",
      "bad path '/\(String(repeating: "p", count: 200))' \(badPath)", 1
    ),
    (
      "upstream httpdns 119.29.29.29 format=dnspod path=/d",
      "'path=' is only for format=json or dns-message (format=dnspod has its own paths)", 1
    ),
    (
      "upstream httpdns 203.107.1.1 path=/d format=alibaba account=1",
      "'path=' is only for format=json or dns-message (format=alibaba has its own paths)", 1
    ),
    // format=
    (
      "upstream https 1.1.1.1 name=x format=alibaba",
      "unknown https format 'alibaba' (expected dns-message or json; alibaba and dnspod are "
        + "plain-HTTP APIs, for upstream httpdns)", 1
    ),
    (
      "upstream https 1.1.1.1 name=x format=dnspod",
      "unknown https format 'dnspod' (expected dns-message or json; alibaba and dnspod are "
        + "plain-HTTP APIs, for upstream httpdns)", 1
    ),
    (
      "upstream https 1.1.1.1 name=x format=wire",
      "unknown https format 'wire' (expected dns-message or json; alibaba and dnspod are "
        + "plain-HTTP APIs, for upstream httpdns)", 1
    ),
    // Options of other transports, near misses, empty values, repeats.
    (
      "upstream tls 1.1.1.1 name=x path=/dns-query",
      "unknown tls option 'path=' (expected name=, pin= or trusted)", 1
    ),
    (
      "upstream tls 1.1.1.1 name=x format=json",
      "unknown tls option 'format=' (expected name=, pin= or trusted)", 1
    ),
    (
      "upstream https 1.1.1.1 name=x account=1",
      "unknown https option 'account=' (expected name=, path=, format=, pin= or trusted)", 1
    ),
    (
      "upstream https 1.1.1.1 name=x secret=Sesame",
      "unknown https option 'secret=' (expected name=, path=, format=, pin= or trusted)", 1
    ),
    ("upstream tls 1.1.1.1 nme=x", "unknown tls option 'nme=' (did you mean 'name='?)", 1),
    ("upstream tls 1.1.1.1 name=x pin", "unknown tls option 'pin' (did you mean 'pin='?)", 1),
    (
      "upstream httpdns 223.5.5.5 pin=\(pinText)",
      "unknown httpdns option 'pin=' (expected format=, account=, secret=, path= or trusted)", 1
    ),
    (
      "upstream tls 1.1.1.1 name=",
      "empty value for tls option 'name=' (a value must follow the '=')", 1
    ),
    (
      "upstream https 1.1.1.1 name=x path=",
      "empty value for https option 'path=' (a value must follow the '=')", 1
    ),
    (
      "upstream tls 1.1.1.1 name=x name=y",
      "duplicate tls option 'name=' (each option at most once)", 1
    ),
    (
      "upstream https 1.1.1.1 trusted name=x trusted",
      "duplicate https option 'trusted' (each option at most once)", 1
    ),
    // Duplicates and transports.
    (
      "upstream tls 9.9.9.9 name=a\nupstream tls 9.9.9.9:853 name=b",
      "duplicate upstream tls 9.9.9.9:853 (first on line 4)", 2
    ),
    (
      "upstream https 1.1.1.1 name=a\n\nupstream https 1.1.1.1:443 name=a format=json",
      "duplicate upstream https 1.1.1.1:443 (first on line 4)", 3
    ),
    (
      "upstream doh 1.1.1.1",
      "unknown upstream transport 'doh' (expected udp, tcp, tls, https, httpdns or resolv-conf)", 1
    ),
    (
      "upstream DoT 1.1.1.1",
      "unknown upstream transport 'DoT' (expected udp, tcp, tls, https, httpdns or resolv-conf)", 1
    ),
    (
      "upstream tls dns.quad9.net name=dns.quad9.net",
      "'dns.quad9.net' is not an address (host names are not resolved)", 1
    ),
    // ca-file
    ("ca-file ca.pem", "ca-file path 'ca.pem' must be absolute", 1),
    (
      "ca-file /etc/ssl/certs/",
      "ca-file path '/etc/ssl/certs/' names a directory; name a file of PEM certificates, "
        + "e.g. /etc/ssl/certs/ca-certificates.crt", 1
    ),
    ("ca-file /a\u{7F}", "bad ca-file path '/a\\x7F'", 1),
    ("ca-file /a.pem\n\nca-file /b.pem", "duplicate 'ca-file' directive (first on line 4)", 3),
    (
      "ca-file /a.pem /b.pem",
      "extra argument '/b.pem' to 'ca-file' (usage: ca-file PATH, absolute, PEM certificates "
        + "for tls and https upstreams)", 1
    ),
  ]

  func testErrorsAreReportedWithFileAndLine() {
    assertBadLines(Self.badLines)
  }
}
