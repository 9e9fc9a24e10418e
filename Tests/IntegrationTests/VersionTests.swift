import Foundation
import TestSupport
import XCTest

/// `dnsward --version` and `version.bind`: the binary under test (the host
/// build, or a firmware under qemu in CI) says what it is, the same way on
/// the command line and over DNS.
final class VersionTests: XCTestCase {
  func testVersionFlagAndVersionBindTellTheSame() throws {
    let run = try DnswardBinary.run(["--version"])
    XCTAssertFalse(run.timedOut)
    XCTAssertEqual(run.status, 0, run.errors)
    let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(lines.count, 2, "one line: \(run.output)")
    let description = String(lines[0])
    // dnsward 0.16.0 (2026-12-02; aarch64-linux-gnu, Embedded Swift; DNSSEC, no TLS,
    // no metrics, runtime config)
    let pattern =
      #"^dnsward [0-9]+\.[0-9]+\.[0-9]+ \([0-9]{4}-[0-9]{2}-[0-9]{2}; "#
      + #"(aarch64|armv7|x86_64)-linux-(gnu|musl), (Embedded )?Swift; "#
      + #"(no DNSSEC|DNSSEC), (no TLS|TLS \(DoT, DoH\)), (no metrics|metrics), "#
      + #"(runtime config|compiled-in config only)\)$"#
    XCTAssertNotNil(description.range(of: pattern, options: .regularExpression), description)

    let dnsward = try DnswardProcess(config: "listen 127.0.0.1:0\n")
    defer { dnsward.stop() }
    var query = dnsQuery("version.bind", type: 16, id: 0x7676)
    query[query.count - 1] = 3  // class CH
    let reply = try XCTUnwrap(Reply(StubClient.udp(query, port: dnsward.port)))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertEqual(reply.texts, [description])
  }
}
