import CompiledConfig
import Config
import TestSupport
import XCTest

/// `upstream httpdns ADDRESS[:PORT] [format=alibaba|dnspod|json|dns-message]
/// [account=ID] [secret=KEY] [path=/PATH] [trusted]` (issue 7): values,
/// errors with their lines, and that a secret never appears in a message.
final class HTTPDNSDirectiveTests: XCTestCase, ParsesDirectives {
  /// Every printable ASCII character but space, `#` and `"`.
  static let everySecretCharacter = String(
    decoding: (0x21...0x7E).filter { $0 != 0x23 && $0 != 0x22 }, as: UTF8.self)

  func testDefaults() throws {
    let server = try XCTUnwrap(parse("upstream httpdns 223.5.5.5")?.upstreams.first)
    XCTAssertEqual(server.transport, .httpdns)
    XCTAssertEqual(describe(server.endpoint), "223.5.5.5:80")
    XCTAssertEqual(server.httpdnsFormat, .json)
    XCTAssertEqual(server.account, [])
    XCTAssertEqual(server.secret, [])
    XCTAssertFalse(server.trusted)
    XCTAssertTrue(server.answersEveryType)
  }

  func testOptionsInAnyOrder() throws {
    let settings = try XCTUnwrap(
      parse(
        "upstream httpdns 119.29.29.29:8080 trusted format=dnspod\n"
          + "upstream httpdns 203.107.1.1 trusted secret=\(Self.everySecretCharacter) "
          + "account=139450 format=alibaba\n"
          + "upstream httpdns [2001:db8::53] format=json\n"
          + "upstream httpdns 203.107.1.2 format=alibaba account=Ab_-9"))
    XCTAssertEqual(settings.upstreams.map(\.transport), [.httpdns, .httpdns, .httpdns, .httpdns])
    XCTAssertEqual(
      settings.upstreams.map { describe($0.endpoint) },
      ["119.29.29.29:8080", "203.107.1.1:80", "[2001:db8::53]:80", "203.107.1.2:80"])
    XCTAssertEqual(settings.upstreams.map(\.httpdnsFormat), [.dnspod, .alibaba, .json, .alibaba])
    XCTAssertEqual(settings.upstreams.map(\.trusted), [true, true, false, false])
    XCTAssertEqual(settings.upstreams.map(\.answersEveryType), [false, false, true, false])
    XCTAssertEqual(settings.upstreams[1].account, Array("139450".utf8))
    XCTAssertEqual(settings.upstreams[1].secret, Array(Self.everySecretCharacter.utf8))
    XCTAssertEqual(settings.upstreams[3].account, Array("Ab_-9".utf8))
    XCTAssertEqual(settings.upstreams[3].secret, [])
    XCTAssertEqual(settings.upstreams[0].account, [])
  }

  /// `account=` without `format=` means the one format that takes it:
  /// `alibaba` (it used to be refused, the default format being `json`).
  func testAccountWithoutFormatIsAlibaba() throws {
    let settings = try XCTUnwrap(
      parse(
        "upstream httpdns 203.107.1.1 account=139450\n"
          + "upstream httpdns 203.107.1.2 secret=KEY account=7 trusted"))
    XCTAssertEqual(settings.upstreams.map(\.httpdnsFormat), [.alibaba, .alibaba])
    XCTAssertEqual(settings.upstreams.map(\.account), [Array("139450".utf8), Array("7".utf8)])
    XCTAssertEqual(settings.upstreams[1].secret, Array("KEY".utf8))
    XCTAssertEqual(settings.upstreams.map(\.answersEveryType), [false, false])
    // Without `account=` the format stays `json`, and `secret=` alone is
    // still refused for it.
    XCTAssertEqual(parse("upstream httpdns 223.5.5.5")?.upstreams.first?.httpdnsFormat, .json)
    XCTAssertEqual(
      parseError("listen 127.0.0.1\nupstream httpdns 203.107.1.1 secret=KEY\n")?.message,
      "'secret=' is only for format=alibaba (this upstream's format is json)")
  }

  func testLongestAccountAndSecret() throws {
    let account = String(repeating: "a", count: 64)
    let secret = String(repeating: "~", count: 128)
    let server = try XCTUnwrap(
      parse("upstream httpdns 203.107.1.1 format=alibaba account=\(account) secret=\(secret)")?
        .upstreams.first)
    XCTAssertEqual(server.account.count, 64)
    XCTAssertEqual(server.secret.count, 128)
  }

  /// Transport and endpoint make an upstream: the same address over tcp
  /// and httpdns are two upstreams; in priority order with the others.
  func testMixedWithOtherUpstreams() throws {
    let settings = try XCTUnwrap(
      parse(
        "upstream tcp 223.5.5.5:80\nupstream resolv-conf /etc/resolv.conf\n"
          + "upstream httpdns 223.5.5.5\nupstream udp 223.5.5.5"))
    XCTAssertEqual(settings.upstreams.map(\.transport), [.tcp, .httpdns, .udp])
    XCTAssertEqual(settings.resolvConfPosition, 1)
    XCTAssertEqual(settings.upstreams.map(\.endpoint.port), [80, 80, 53])
  }

  /// `verify` needs a trusted upstream; a trusted httpdns one counts.
  func testVerifyAcceptsATrustedHTTPDNSUpstream() throws {
    XCTAssertEqual(
      parse("upstream udp 192.0.2.53\nverify bank.example\nupstream httpdns 223.5.5.5 trusted")?
        .verifyNames, flatName("bank.example"))
    XCTAssertNotNil(
      parse(
        "verify bank.example\nupstream httpdns 203.107.1.1 format=alibaba account=1 trusted"))
    let error = try XCTUnwrap(
      parseError("listen 127.0.0.1\nupstream httpdns 223.5.5.5\nverify bank.example\n"))
    XCTAssertEqual(
      error.description,
      "test.conf:3: verify needs an upstream marked trusted (e.g. upstream tcp 9.9.9.9 trusted)")
  }

  static let directiveUsage = upstreamUsage
  static let badSecret =
    "bad httpdns secret (up to 128 printable ASCII characters, no spaces, '#' or '\"')"

  /// A fragment after three preamble lines, its message, and its line in
  /// the fragment.
  static let badLines: [(String, String, Int)] = [
    // Unknown options, with a hint when one is close.
    (
      "upstream httpdns 223.5.5.5 formt=json",
      "unknown httpdns option 'formt=' (did you mean 'format='?)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 format",
      "unknown httpdns option 'format' (did you mean 'format='?)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 Trusted",
      "unknown httpdns option 'Trusted' (did you mean 'trusted'?)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 trusted=yes",
      "unknown httpdns option 'trusted=' (did you mean 'trusted'?)", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba acount=139450",
      "unknown httpdns option 'acount=' (did you mean 'account='?)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 pth=/resolve",
      "unknown httpdns option 'pth=' (did you mean 'path='?)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 =json",
      "unknown httpdns option '=' (expected format=, account=, secret=, path= or trusted)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 name=dns.alidns.com",
      "unknown httpdns option 'name=' (expected format=, account=, secret=, path= or trusted)", 1
    ),
    // The account: required for alibaba, allowed for nothing else.
    (
      "upstream httpdns 203.107.1.1 format=alibaba",
      "format=alibaba needs account=ID (the account ID of the Alibaba Cloud HTTPDNS service)", 1
    ),
    (
      "upstream httpdns 203.107.1.1 secret=k3y format=alibaba trusted",
      "format=alibaba needs account=ID (the account ID of the Alibaba Cloud HTTPDNS service)", 1
    ),
    (
      "upstream httpdns 119.29.29.29 format=dnspod account=139450",
      "'account=' is only for format=alibaba (this upstream's format is dnspod)", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=json account=139450",
      "'account=' is only for format=alibaba (this upstream's format is json)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 secret=k3y format=json",
      "'secret=' is only for format=alibaba (this upstream's format is json)", 1
    ),
    // Values.
    (
      "upstream httpdns 223.5.5.5 format=google",
      "unknown httpdns format 'google' (expected alibaba, dnspod, json or dns-message)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 format=JSON",
      "unknown httpdns format 'JSON' (expected alibaba, dnspod, json or dns-message)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 format=",
      "empty value for httpdns option 'format=' (a value must follow the '=')", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=",
      "empty value for httpdns option 'account=' (a value must follow the '=')", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=1 secret=",
      "empty value for httpdns option 'secret=' (a value must follow the '=')", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=139.450",
      "bad httpdns account '139.450' (up to 64 letters, digits, '_' or '-')", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=\(String(repeating: "7", count: 65))",
      "bad httpdns account '\(String(repeating: "7", count: 65))' (up to 64 letters, digits, "
        + "'_' or '-')", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=caf\u{E9}",
      "bad httpdns account 'caf\\xC3\\xA9' (up to 64 letters, digits, '_' or '-')", 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=1 secret=\"quoted\"",
      badSecret, 1
    ),
    (
      "upstream httpdns 203.107.1.1 format=alibaba account=1 "
        + "secret=\(String(repeating: "k", count: 129))",
      badSecret, 1
    ),
    ("upstream httpdns 203.107.1.1 format=alibaba account=1 secret=s\u{E9}same", badSecret, 1),
    // Each option at most once.
    (
      "upstream httpdns 223.5.5.5 format=json format=dnspod",
      "duplicate httpdns option 'format=' (each option at most once)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 format=json format=json",
      "duplicate httpdns option 'format=' (each option at most once)", 1
    ),
    (
      "upstream httpdns 223.5.5.5 trusted format=json trusted",
      "duplicate httpdns option 'trusted' (each option at most once)", 1
    ),
    (
      "upstream httpdns 203.107.1.1 account=1 format=alibaba account=2",
      "duplicate httpdns option 'account=' (each option at most once)", 1
    ),
    // One server speaks one API: the same address twice is a duplicate,
    // whatever the formats.
    (
      "upstream httpdns 223.5.5.5 format=json\nupstream httpdns 223.5.5.5:80 format=dnspod",
      "duplicate upstream httpdns 223.5.5.5:80 (first on line 4)", 2
    ),
    (
      "upstream httpdns 223.5.5.5\n\nupstream httpdns 223.5.5.5 trusted",
      "duplicate upstream httpdns 223.5.5.5:80 (first on line 4)", 3
    ),
    (
      "upstream httpdns [2001:DB8::53]:8080\nupstream httpdns [2001:db8::53]:8080",
      "duplicate upstream httpdns [2001:db8::53]:8080 (first on line 4)", 2
    ),
    // The address.
    (
      "upstream httpdns 0.0.0.0 format=json",
      "upstream address '0.0.0.0' is unspecified (0.0.0.0 or ::)", 1
    ),
    (
      "upstream httpdns dns.alidns.com",
      "'dns.alidns.com' is not an address (host names are not resolved)", 1
    ),
    (
      "upstream httpdns 223.5.5.5:0",
      "bad port '0' in '223.5.5.5:0': expected a number 1...65535", 1
    ),
    ("upstream httpdns", "missing argument to 'upstream' (usage: \(directiveUsage))", 1),
    // The other transports take no httpdns options.
    (
      "upstream htpdns 223.5.5.5",
      "unknown upstream transport 'htpdns' (expected udp, tcp, tls, https, httpdns or resolv-conf)",
      1
    ),
    (
      "upstream udp 223.5.5.5 format=json",
      "unknown upstream option 'format=json' (expected trusted; usage: \(directiveUsage))", 1
    ),
    (
      "upstream tcp 9.9.9.9 trusted format=json",
      "extra argument 'format=json' to 'upstream' (usage: \(directiveUsage))", 1
    ),
    (
      "upstream resolv-conf /etc/resolv.conf format=json",
      "extra argument 'format=json' to 'upstream' (usage: \(directiveUsage))", 1
    ),
  ]

  func testErrorsAreReportedWithFileAndLine() {
    assertBadLines(Self.badLines)
  }

  /// A message quotes the option's name, never a secret: messages end up
  /// in build logs.
  func testSecretsAreNeverQuoted() throws {
    let secret = "Sesame-0pen"
    for lines in [
      "upstream httpdns 203.107.1.1 format=alibaba account=1 secret=\(secret) secret=\(secret)",
      "upstream httpdns 203.107.1.1 format=alibaba account=1 secrt=\(secret)",
      "upstream httpdns 203.107.1.1 format=alibaba secret=\(secret)",
      "upstream httpdns 203.107.1.1 format=dnspod secret=\(secret)",
      "upstream httpdns 203.107.1.1 format=alibaba account=1 secret=\(secret)\u{7F}",
    ] {
      let error = try XCTUnwrap(parseError(badLinePreamble + lines))
      XCTAssertFalse(error.description.contains(secret), error.description)
    }
    let settings = try XCTUnwrap(
      parse("upstream httpdns 203.107.1.1 format=alibaba account=1 secret=\(secret)"))
    XCTAssertFalse(ConfigGenerator.summary(settings).contains(secret))
    XCTAssertFalse(
      ConfigGenerator.swiftSource(settings, sourceName: "s.conf").contains(secret))
  }
}
