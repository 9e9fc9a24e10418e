import Config
import XCTest

/// Every bad line is reported as `file:line: message` with the right line.
final class ConfigErrorTests: XCTestCase {
  /// A config fragment that fails, the message, and the line of the error
  /// counted from the fragment's first line.
  struct BadLine {
    let lines: String
    let message: String
    let lineInFragment: Int
    init(_ lines: String, _ message: String, at lineInFragment: Int = 1) {
      self.lines = lines
      self.message = message
      self.lineInFragment = lineInFragment
    }
  }

  static let longLabel = String(repeating: "a", count: 64)
  static let longName = Array(repeating: String(repeating: "b", count: 60), count: 5)
    .joined(separator: ".")
  static let addresses256 = (0..<256).map { "10.1.\($0 / 256).\($0 % 256)" }
    .joined(separator: " ")

  static let directiveCases = [
    BadLine("listne 1.2.3.4", "unknown directive 'listne' (did you mean 'listen'?)"),
    BadLine("Timeout 1s", "unknown directive 'Timeout' (did you mean 'timeout'?)"),
    BadLine("frobnicate yes", "unknown directive 'frobnicate'"),
    BadLine(
      "listen",
      "missing argument to 'listen' (usage: listen ADDRESS[:PORT], IPv6 as [ADDRESS]:PORT)"
    ),
    BadLine(
      "timeout 1s 2s",
      "extra argument '2s' to 'timeout' (usage: timeout DURATION, 50ms...60s, e.g. 1500ms or 2s)"),
    BadLine(
      "upstream udp",
      "missing argument to 'upstream' (usage: \(upstreamUsage))"),
    BadLine(
      "override x.lan", "missing argument to 'override' (usage: override NAME ADDRESS...)"),
    BadLine("block a.lan b.lan", "extra argument 'b.lan' to 'block' (usage: block NAME)"),
    BadLine(
      "timeout 1s\n# again\ntimeout 2s", "duplicate 'timeout' directive (first on line 4)", at: 3),
  ]

  static let addressCases = [
    BadLine(
      "listen 1.2.3.256", "bad IPv4 address '1.2.3.256': octet '256' is out of range 0...255"),
    BadLine(
      "listen 010.0.0.1",
      "bad IPv4 address '010.0.0.1': leading zero in octet '010' is ambiguous "
        + "(octal in some parsers)"),
    // A listener may take port 0 (the kernel picks one); a peer may not.
    BadLine(
      "upstream udp 1.2.3.4:0", "bad port '0' in '1.2.3.4:0': expected a number 1...65535"),
    BadLine(
      "listen 1.2.3.4:65536", "bad port '65536' in '1.2.3.4:65536': expected a number 0...65535"),
    BadLine(
      "listen ::1", "bad endpoint '::1': write an IPv6 endpoint in brackets, as [::1]:53"),
    BadLine("listen [::1", "bad endpoint '[::1': missing ']'"),
    BadLine("listen [1::2::3]:53", "bad IPv6 address '1::2::3': '::' may appear only once"),
    BadLine(
      "listen localhost:53", "'localhost' is not an address (host names are not resolved)"),
    BadLine(
      "listen 1.2.3.4\nlisten 1.2.3.4:53", "duplicate listen 1.2.3.4:53 (first on line 4)", at: 2),
    BadLine(
      "allow 192.168.1.1/24",
      "bad prefix '192.168.1.1/24': host bits are set past /24 (the network is 192.168.1.0/24)"),
    BadLine(
      "allow 10.0.0.0/33",
      "bad prefix '10.0.0.0/33': length 33 is too long for IPv4 (at most 32)"),
    BadLine(
      "allow fd00::/129",
      "bad prefix 'fd00::/129': length 129 is too long for IPv6 (at most 128)"),
    BadLine(
      "allow 10.0.0.0/8\nallow 10.0.0.0/8", "duplicate allow 10.0.0.0/8 (first on line 4)", at: 2),
    BadLine(
      "upstream dot 1.1.1.1",
      "unknown upstream transport 'dot' (expected udp, tcp, tls, https, httpdns or resolv-conf)"),
    BadLine(
      "upstream udp 0.0.0.0", "upstream address '0.0.0.0' is unspecified (0.0.0.0 or ::)"),
    BadLine(
      "upstream udp 192.0.2.1\nupstream udp 192.0.2.1:53",
      "duplicate upstream udp 192.0.2.1:53 (first on line 4)", at: 2),
    BadLine(
      "upstream resolv-conf /a\n\nupstream resolv-conf /b",
      "second 'upstream resolv-conf' (first on line 4); at most one is allowed", at: 3),
    BadLine(
      "upstream resolv-conf etc/resolv.conf",
      "resolv-conf path 'etc/resolv.conf' must be absolute"),
  ]

  static let valueCases = [
    BadLine("timeout 1.5s", "bad duration '1.5s': use whole milliseconds, e.g. 1500ms"),
    BadLine("timeout 5m", "unknown unit 'm' in '5m' (use ms or s)"),
    BadLine("timeout 10ms", "timeout 10ms is out of range 50ms...60s"),
    BadLine("timeout 61s", "timeout 61s is out of range 50ms...60s"),
    BadLine("timeout fast", "bad duration 'fast' for 'timeout' (e.g. 1500ms or 2s)"),
    BadLine("tcp-idle 0s", "tcp-idle 0s is out of range 1s...3600s"),
    BadLine("inflight 1000", "inflight 1000 is not a power of two (try 512 or 1024)"),
    BadLine("inflight 8", "inflight 8 is out of range 16...65536"),
    BadLine("inflight 131072", "inflight 131072 is out of range 16...65536"),
    BadLine("inflight many", "'inflight' expects a number, got 'many'"),
    BadLine(
      "inflight 99999999999999999999", "inflight 99999999999999999999 is out of range 16...65536"),
    BadLine("override-ttl 604801", "override-ttl 604801 is out of range 0...604800"),
    BadLine("tcp-clients 0", "tcp-clients 0 is out of range 1...4096"),
    BadLine("edns-size 100", "edns-size 100 is out of range 512...4096"),
    BadLine(
      "log verbose", "unknown log level 'verbose' (expected error, warning, info or debug)"),
    BadLine("case-randomization yes", "'case-randomization' expects on or off, got 'yes'"),
    BadLine(
      "user -root",
      "bad user name '-root' (up to 32 letters, digits, '.', '_' or '-', not starting with '-')"),
  ]

  /// The cache directives: counts, sizes with `k`/`m`, durations in seconds
  /// with `s`/`m`/`h`/`d`, the one-line rule, and `max-ttl` >= `min-ttl`.
  static let cacheCases = [
    // cache COUNT: a plain number, no suffix.
    BadLine("cache lots", "'cache' expects a number, got 'lots'"),
    BadLine("cache -1", "'cache' expects a number, got '-1'"),
    BadLine("cache 4k", "'cache' expects a number, got '4k'"),
    BadLine("cache 1048577", "cache 1048577 is out of range 0...1048576"),
    BadLine("cache 99999999999", "cache 99999999999 is out of range 0...1048576"),
    // cache-bytes SIZE.
    BadLine("cache-bytes big", "bad size 'big' for 'cache-bytes' (e.g. 65536, 512k or 2m)"),
    BadLine("cache-bytes k", "bad size 'k' for 'cache-bytes' (e.g. 65536, 512k or 2m)"),
    BadLine("cache-bytes 1g", "unknown unit 'g' in '1g' (use k or m)"),
    BadLine("cache-bytes 2M", "unknown unit 'M' in '2M' (use k or m)"),
    BadLine("cache-bytes 512kb", "unknown unit 'kb' in '512kb' (use k or m)"),
    BadLine(
      "cache-bytes 1.5m", "bad size '1.5m': use a whole number, e.g. 1536k rather than 1.5m"),
    BadLine("cache-bytes 8k", "cache-bytes 8k is out of range 16k...256m"),
    BadLine("cache-bytes 16383", "cache-bytes 16383 is out of range 16k...256m"),
    BadLine("cache-bytes 257m", "cache-bytes 257m is out of range 16k...256m"),
    BadLine("cache-bytes 268435457", "cache-bytes 268435457 is out of range 16k...256m"),
    BadLine("cache-bytes 999999999m", "cache-bytes 999999999m is out of range 16k...256m"),
    BadLine(
      "cache-bytes 99999999999999999999k",
      "cache-bytes 99999999999999999999k is out of range 16k...256m"),
    // Durations in seconds: min-ttl, max-ttl, neg-ttl-max, stale.
    BadLine("min-ttl 3601", "min-ttl 3601 is out of range 0s...1h"),
    BadLine("min-ttl 61m", "min-ttl 61m is out of range 0s...1h"),
    BadLine("min-ttl 500ms", "unknown unit 'ms' in '500ms' (use s, m, h or d)"),
    BadLine("max-ttl 0", "max-ttl 0 is out of range 1s...7d"),
    BadLine("max-ttl 0d", "max-ttl 0d is out of range 1s...7d"),
    BadLine("max-ttl 8d", "max-ttl 8d is out of range 1s...7d"),
    BadLine("max-ttl 604801", "max-ttl 604801 is out of range 1s...7d"),
    BadLine(
      "max-ttl 1.5h", "bad duration '1.5h': use a whole number, e.g. 90m rather than 1.5h"),
    BadLine("max-ttl 1w", "unknown unit 'w' in '1w' (use s, m, h or d)"),
    BadLine("neg-ttl-max 25h", "neg-ttl-max 25h is out of range 0s...1d"),
    BadLine(
      "neg-ttl-max forever",
      "bad duration 'forever' for 'neg-ttl-max' (e.g. 300 (seconds), 5m, 1h or 1d)"),
    BadLine("stale 604801", "stale 604801 is out of range 0s...7d"),
    BadLine("stale 1D", "unknown unit 'D' in '1D' (use s, m, h or d)"),
    BadLine("stale 999999999d", "stale 999999999d is out of range 0s...7d"),
    BadLine("stale-first yes", "'stale-first' expects on or off, got 'yes'"),
    // Arguments and spelling.
    BadLine(
      "stale",
      "missing argument to 'stale' (usage: stale DURATION, 0 (off)...7d, e.g. 1d or 86400 "
        + "(seconds))"),
    BadLine(
      "cache-bytes 1m 2m",
      "extra argument '2m' to 'cache-bytes' (usage: cache-bytes SIZE, 16k...256m, "
        + "e.g. 512k or 2m)"),
    BadLine(
      "min-ttl",
      "missing argument to 'min-ttl' (usage: min-ttl DURATION, 0s...1h, e.g. 60 (seconds) "
        + "or 5m)"),
    BadLine("max_ttl 1d", "unknown directive 'max_ttl' (did you mean 'max-ttl'?)"),
    BadLine("stale-frist on", "unknown directive 'stale-frist' (did you mean 'stale-first'?)"),
    // Each at most once, like the other tunables.
    BadLine("cache 10\ncache 20", "duplicate 'cache' directive (first on line 4)", at: 2),
    BadLine(
      "cache-bytes 1m\n\ncache-bytes 1m", "duplicate 'cache-bytes' directive (first on line 4)",
      at: 3),
    BadLine("min-ttl 0\nmin-ttl 0", "duplicate 'min-ttl' directive (first on line 4)", at: 2),
    BadLine("max-ttl 1d\nmax-ttl 2d", "duplicate 'max-ttl' directive (first on line 4)", at: 2),
    BadLine(
      "neg-ttl-max 1h\nneg-ttl-max 1h", "duplicate 'neg-ttl-max' directive (first on line 4)",
      at: 2),
    BadLine("stale 1d\nstale 0", "duplicate 'stale' directive (first on line 4)", at: 2),
    BadLine(
      "stale-first on\nstale-first off", "duplicate 'stale-first' directive (first on line 4)",
      at: 2),
    // max-ttl below min-ttl, reported on the later of the two lines.
    BadLine(
      "min-ttl 300\nmax-ttl 60",
      "max-ttl 60s is less than min-ttl 300s on line 4 (max-ttl must be at least min-ttl)",
      at: 2),
    BadLine(
      "max-ttl 1m\n# later\nmin-ttl 1h",
      "min-ttl 3600s is more than max-ttl 60s on line 4 (max-ttl must be at least min-ttl)",
      at: 3),
    BadLine(
      "min-ttl 1h\nstale 1d\nmax-ttl 3599",
      "max-ttl 3599s is less than min-ttl 3600s on line 4 (max-ttl must be at least min-ttl)",
      at: 3),
  ]

  static let nameCases = [
    BadLine(
      "override a.lan 10.0.0.1\noverride A.LAN. 10.0.0.2",
      "duplicate override of 'A.LAN.' (first on line 4)", at: 2),
    BadLine(
      "override *.dev.lan 10.0.0.1\noverride *.dev.lan 10.0.0.2",
      "duplicate override of '*.dev.lan' (first on line 4)", at: 2),
    BadLine(
      "block ads.example\nblock ads.example",
      "duplicate block of 'ads.example' (first on line 4)", at: 2),
    BadLine(
      "block ads.example\noverride ads.example 10.0.0.1",
      "override of 'ads.example' conflicts with the block on line 4", at: 2),
    BadLine(
      "override ads.example 10.0.0.1\nblock ads.example",
      "block of 'ads.example' conflicts with the override on line 4", at: 2),
    BadLine(
      "block dev.lan\noverride *.dev.lan 10.0.0.1",
      "override of '*.dev.lan' conflicts with the block on line 4, "
        + "which already covers every name below it", at: 2),
    BadLine(
      "override *.dev.lan 10.0.0.1\nblock dev.lan",
      "block of 'dev.lan' conflicts with the override on line 4", at: 2),
    BadLine(
      "override bad!name 10.0.0.1",
      "bad name 'bad!name': unexpected character '!' (use letters, digits, '-' and '_')"),
    BadLine(
      "override a..lan 10.0.0.1",
      "bad name 'a..lan': empty label (two dots in a row, or a leading dot)"),
    BadLine(
      "override .lan 10.0.0.1",
      "bad name '.lan': empty label (two dots in a row, or a leading dot)"),
    BadLine(
      "override a.*.lan 10.0.0.1",
      "bad name 'a.*.lan': '*' is allowed only as the whole first label, as in *.dev.lan"),
    BadLine("override * 10.0.0.1", "'*' alone would match every name; write *.NAME"),
    BadLine("override *. 10.0.0.1", "bad name '*.': nothing after '*.'"),
    BadLine("override . 10.0.0.1", "the root name cannot be overridden"),
    BadLine("block .", "the root name cannot be blocked (that would block every name)"),
    BadLine(
      "block *.ads.example",
      "block takes a name, not a wildcard: 'block NAME' already covers every name below NAME"),
    BadLine(
      "override \(longLabel).lan 10.0.0.1",
      "bad name '\(longLabel).lan': label '\(longLabel.prefix(20))'... is 64 characters long, "
        + "more than 63 (RFC 1035 §2.3.4)"),
    BadLine(
      "override \(longName) 10.0.0.1",
      "bad name '\(longName)': longer than 255 octets in wire form (RFC 1035 §2.3.4)"),
    BadLine(
      "override x.lan 10.0.0.1 10.0.0.1", "duplicate address '10.0.0.1' for 'x.lan'"),
    BadLine(
      "override x.lan 10.0.0.1 fd00::1 fd00:0::1", "duplicate address 'fd00:0::1' for 'x.lan'"),
    BadLine(
      "override x.lan 10.0.0.300",
      "bad IPv4 address '10.0.0.300': octet '300' is out of range 0...255"),
    BadLine(
      "override x.lan \(addresses256)", "more than 255 IPv4 addresses for 'x.lan'"),
    BadLine(
      "listen 127.0.0.2\noverride caf\u{E9}.lan 10.0.0.1",
      "bad name 'caf\\xC3\\xA9.lan': unexpected character '\\xC3' "
        + "(use letters, digits, '-' and '_')", at: 2),
  ]

  func testBadLines() {
    let cases =
      Self.directiveCases + Self.addressCases + Self.valueCases + Self.nameCases
      + Self.cacheCases
    XCTAssertGreaterThanOrEqual(cases.count, 20)
    assertBadLines(cases.map { ($0.lines, $0.message, $0.lineInFragment) })
  }

  func testNoListenIsAFileLevelError() throws {
    let error = try XCTUnwrap(parseError("# only upstreams\nupstream udp 192.0.2.1\n"))
    XCTAssertEqual(error.line, 0)
    XCTAssertEqual(
      error.description,
      "test.conf: no 'listen' directive: dnsward needs at least one address to serve, "
        + "e.g. listen 127.0.0.1:53")
    XCTAssertEqual(parseError("")?.line, 0)
  }

  func testFirstErrorWins() throws {
    let error = try XCTUnwrap(parseError("listen 127.0.0.1\ninflight 3\ntimeout 1ns\n"))
    XCTAssertEqual(error.line, 2)
  }

  func testControlBytesAreEscapedInMessages() throws {
    let error = try XCTUnwrap(parseError("listen 127.0.0.1\nlog in\u{1B}[31mfo\n"))
    XCTAssertEqual(
      error.message, "unknown log level 'in\\x1B[31mfo' (expected error, warning, info or debug)")
  }
}
