import CompiledConfig
import Config
import TestSupport
import XCTest

final class AddressSyntaxTests: XCTestCase {
  func address(_ text: String) -> ParsedAddress? {
    try? AddressSyntax.parseAddress(text)
  }

  func message(_ text: String) -> String {
    do throws(AddressSyntaxError) {
      _ = try AddressSyntax.parseAddress(text)
      return "accepted"
    } catch {
      return error.message
    }
  }

  func testIPv4() {
    XCTAssertEqual(address("0.0.0.0"), .ipv4(0))
    XCTAssertEqual(address("127.0.0.1"), .ipv4(0x7F00_0001))
    XCTAssertEqual(address("255.255.255.255"), .ipv4(0xFFFF_FFFF))
    XCTAssertEqual(address("192.168.1.20"), .ipv4(0xC0A8_0114))
    XCTAssertEqual(address("10.0.0.0")?.address, IPAddress(ipv4: 0x0A00_0000))
  }

  func testIPv4Rejections() {
    XCTAssertEqual(
      message("1.2.3.256"), "bad IPv4 address '1.2.3.256': octet '256' is out of range 0...255")
    XCTAssertEqual(
      message("010.0.0.1"),
      "bad IPv4 address '010.0.0.1': leading zero in octet '010' is ambiguous "
        + "(octal in some parsers)")
    XCTAssertEqual(message("1.2.3"), "bad IPv4 address '1.2.3': expected 4 dotted octets, found 3")
    XCTAssertEqual(
      message("1.2.3.4.5"), "bad IPv4 address '1.2.3.4.5': expected 4 dotted octets, found 5")
    XCTAssertEqual(message("1..3.4"), "bad IPv4 address '1..3.4': empty octet")
    XCTAssertEqual(
      message("1.2.3.4."), "bad IPv4 address '1.2.3.4.': expected 4 dotted octets, found 5")
    XCTAssertEqual(message("1.2.3.-4"), "bad IPv4 address '1.2.3.-4': unexpected character '-'")
    XCTAssertEqual(
      message("1.2.3.99999999999"),
      "bad IPv4 address '1.2.3.99999999999': octet '99999999999' is out of range 0...255")
    XCTAssertEqual(
      message("localhost"), "'localhost' is not an address (host names are not resolved)")
    XCTAssertEqual(message(""), "missing address")
    XCTAssertNotNil(address("0.0.0.0"))
    XCTAssertNil(address("00.0.0.0"))
    XCTAssertNil(address(" 1.2.3.4"))
  }

  func testIPv6Forms() {
    let cases: [(String, UInt64, UInt64)] = [
      ("::", 0, 0),
      ("::1", 0, 1),
      ("1::", 0x0001_0000_0000_0000, 0),
      ("2001:db8::1", 0x2001_0DB8_0000_0000, 1),
      ("2001:DB8:0:0:8:800:200C:417A", 0x2001_0DB8_0000_0000, 0x0008_0800_200C_417A),
      ("fd00::20", 0xFD00_0000_0000_0000, 0x20),
      ("1:2:3:4:5:6:7:8", 0x0001_0002_0003_0004, 0x0005_0006_0007_0008),
      ("1:2:3:4:5:6:7::", 0x0001_0002_0003_0004, 0x0005_0006_0007_0000),
      ("::2:3:4:5:6:7:8", 0x0000_0002_0003_0004, 0x0005_0006_0007_0008),
      ("1::8", 0x0001_0000_0000_0000, 8),
      ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ~0, ~0),
      ("::ffff:1.2.3.4", 0, 0x0000_FFFF_0102_0304),
      ("::1.2.3.4", 0, 0x0102_0304),
      ("64:ff9b::192.0.2.33", 0x0064_FF9B_0000_0000, 0xC000_0221),
      ("1:2:3:4:5:6:1.2.3.4", 0x0001_0002_0003_0004, 0x0005_0006_0102_0304),
      ("0:0:0:0:0:0:0:0", 0, 0),
      ("000f::0001", 0x000F_0000_0000_0000, 1),
    ]
    for (text, high, low) in cases {
      XCTAssertEqual(address(text), .ipv6(IPAddress(high: high, low: low)), text)
    }
    // Written as IPv6, a mapped address stays an AAAA-style address but is
    // the same 128 bits as the IPv4 text.
    XCTAssertEqual(address("::ffff:1.2.3.4")?.address, address("1.2.3.4")?.address)
  }

  func testIPv6Rejections() {
    let cases: [(String, String)] = [
      (":::", "':::' is not valid"),
      ("1:::2", "':::' is not valid"),
      ("1::2::3", "'::' may appear only once"),
      (":1::", "empty group"),
      ("::1:", "empty group"),
      (":1:2:3:4:5:6:7:8", "empty group"),
      ("1:2:3:4:5:6:7:8:", "empty group"),
      ("1:2:3:4:5:6:7", "7 groups instead of 8"),
      ("1:2:3:4:5:6:7:8:9", "9 groups instead of 8"),
      ("1:2:3:4:5:6:7:8::", "too many groups to leave room for '::'"),
      ("::1:2:3:4:5:6:7:8", "too many groups to leave room for '::'"),
      ("12345::", "group '12345' has more than 4 hex digits"),
      ("g::", "unexpected character 'g'"),
      ("fe80::1%eth0", "zone indices"),
      ("1.2.3.4::", "an embedded IPv4 address must come last"),
      ("::1.2.3.4:5", "an embedded IPv4 address must come last"),
      ("1:2:3:4:5:6:7:1.2.3.4", "9 groups instead of 8"),
      ("::ffff:1.2.3.256", "octet '256' is out of range"),
      ("::ffff:01.2.3.4", "leading zero"),
    ]
    for (text, expected) in cases {
      let text = message(text)
      XCTAssertTrue(text.contains(expected), "\(text) should contain \(expected)")
    }
  }

  func testEndpoints() throws {
    XCTAssertEqual(
      try AddressSyntax.parseEndpoint("127.0.0.1:8053"),
      Endpoint(address: IPAddress(ipv4: 0x7F00_0001), port: 8053))
    XCTAssertEqual(
      try AddressSyntax.parseEndpoint("127.0.0.1"),
      Endpoint(address: IPAddress(ipv4: 0x7F00_0001), port: 53))
    XCTAssertEqual(
      try AddressSyntax.parseEndpoint("[::1]:5300"), Endpoint(address: .loopbackV6, port: 5300))
    XCTAssertEqual(
      try AddressSyntax.parseEndpoint("[::1]"), Endpoint(address: .loopbackV6, port: 53))
    XCTAssertEqual(
      try AddressSyntax.parseEndpoint("[::1]", defaultPort: 853).port, 853)
    XCTAssertEqual(try AddressSyntax.parseEndpoint("1.2.3.4:65535").port, 65535)
    let bad: [(String, String)] = [
      ("1.2.3.4:0", "bad port '0' in '1.2.3.4:0': expected a number 1...65535"),
      ("1.2.3.4:65536", "bad port '65536'"),
      ("1.2.3.4:", "missing port after ':'"),
      ("1.2.3.4:5x", "bad port '5x'"),
      ("::1", "write an IPv6 endpoint in brackets, as [::1]:53"),
      ("[::1", "missing ']'"),
      ("[::1]53", "expected ':PORT' after ']'"),
      ("[1.2.3.4]:53", "brackets are only for IPv6 addresses"),
      ("[::1]:", "missing port after ':'"),
      ("localhost:53", "is not an address (host names are not resolved)"),
    ]
    for (text, expected) in bad {
      do throws(AddressSyntaxError) {
        _ = try AddressSyntax.parseEndpoint(text)
        XCTFail("\(text) accepted")
      } catch {
        XCTAssertTrue(error.message.contains(expected), "\(error.message) ~ \(expected)")
      }
    }
  }

  func testPrefixes() throws {
    XCTAssertEqual(
      try AddressSyntax.parsePrefix("10.0.0.0/8"),
      AddressPrefix(address: IPAddress(ipv4: 0x0A00_0000), length: 104))
    XCTAssertEqual(
      try AddressSyntax.parsePrefix("192.168.1.7"),
      AddressPrefix(address: IPAddress(ipv4: 0xC0A8_0107), length: 128))
    XCTAssertEqual(try AddressSyntax.parsePrefix("0.0.0.0/0").length, 96)
    XCTAssertEqual(try AddressSyntax.parsePrefix("::/0").length, 0)
    XCTAssertEqual(try AddressSyntax.parsePrefix("fe80::/10").length, 10)
    XCTAssertEqual(try AddressSyntax.parsePrefix("::1").length, 128)
    let prefix = try AddressSyntax.parsePrefix("fd00::/8")
    XCTAssertTrue(prefix.contains(try AddressSyntax.parseAddress("fd12::1").address))
    XCTAssertFalse(prefix.contains(try AddressSyntax.parseAddress("fe00::1").address))
    let bad: [(String, String)] = [
      ("192.168.1.1/24", "host bits are set past /24 (the network is 192.168.1.0/24)"),
      ("fd00::1/8", "host bits are set past /8 (the network is fd00::/8)"),
      ("10.0.0.0/33", "length 33 is too long for IPv4 (at most 32)"),
      ("::/129", "length 129 is too long for IPv6 (at most 128)"),
      ("10.0.0.0/", "missing length after '/'"),
      ("10.0.0.0/x", "length 'x' is not a number"),
      ("10.0.0.0/8/8", "length '8/8' is not a number"),
    ]
    for (text, expected) in bad {
      do throws(AddressSyntaxError) {
        _ = try AddressSyntax.parsePrefix(text)
        XCTFail("\(text) accepted")
      } catch {
        XCTAssertTrue(error.message.contains(expected), "\(error.message) ~ \(expected)")
      }
    }
  }

  func testDescribeUsesRFC5952() throws {
    let cases: [(String, String)] = [
      ("::", "::"),
      ("::1", "::1"),
      ("1::", "1::"),
      ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
      ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
      ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
      ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
      ("fd00:0000:0000:0000:0000:0000:0000:0020", "fd00::20"),
      ("::ffff:192.0.2.1", "192.0.2.1"),
      ("10.1.2.3", "10.1.2.3"),
    ]
    for (text, expected) in cases {
      XCTAssertEqual(describe(try AddressSyntax.parseAddress(text).address), expected)
    }
    XCTAssertEqual(describe(Endpoint(address: .loopbackV6, port: 53)), "[::1]:53")
    XCTAssertEqual(describe(try AddressSyntax.parseEndpoint("10.0.0.1:5300")), "10.0.0.1:5300")
    XCTAssertEqual(describe(try AddressSyntax.parsePrefix("172.16.0.0/12")), "172.16.0.0/12")
    XCTAssertEqual(describe(try AddressSyntax.parsePrefix("fc00::/7")), "fc00::/7")
    XCTAssertEqual(describeName(flatName("Printer.LAN")), "printer.lan.")
  }
}
