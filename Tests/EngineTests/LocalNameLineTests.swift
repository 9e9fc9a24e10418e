import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// The hosts and lease file formats, line by line, into a `LocalNameTable`:
/// what each kind of line adds, and which lines are bad and skipped.
final class LocalNameLineTests: XCTestCase {
  func makeTable(capacity: Int = 64) -> LocalNameTable {
    LocalNameTable(capacity: capacity, hashKey: HashKey(k0: 1, k1: 2))
  }

  func line(_ text: String) -> ArraySlice<UInt8> { ArraySlice(Array(text.utf8)) }

  /// The addresses of `name`, in the order they were added.
  func addresses(_ table: LocalNameTable, _ name: String) -> [IPAddress] {
    let flat = wireName(name)
    var result: [IPAddress] = []
    var next = flat.withUnsafeBytes { table.firstRecord(named: $0) }
    while let index = next {
      result.append(table.address(of: index))
      next = table.nextRecord(sameNameAs: index)
    }
    return result
  }

  /// The canonical name of `address` (the first name given for it).
  func canonical(_ table: LocalNameTable, _ address: IPAddress) -> String? {
    table.firstRecord(for: address).map { nameText(Array(table.name(of: $0))) }
  }

  func testHostsLines() {
    let table = makeTable()
    XCTAssertEqual(table.addHostsLine(line("# a comment")), .fine)
    XCTAssertEqual(table.addHostsLine(line("   ")), .fine)
    XCTAssertEqual(table.addHostsLine(line("")), .fine)
    XCTAssertEqual(table.addHostsLine(line("192.168.1.10\tNAS.lan nas  # the box\r")), .fine)
    XCTAssertEqual(table.addHostsLine(line("fd00::10 nas")), .fine)
    XCTAssertEqual(
      table.addHostsLine(line("192.168.1.11 printer#no space before the comment")), .fine)
    XCTAssertEqual(table.addHostsLine(line("192.168.1.12 nas")), .fine)
    XCTAssertEqual(table.count, 5)
    XCTAssertEqual(addresses(table, "nas.lan"), [ipv4(192, 168, 1, 10)], "lower-cased")
    XCTAssertEqual(
      addresses(table, "nas"),
      [
        ipv4(192, 168, 1, 10), IPAddress(high: 0xFD00_0000_0000_0000, low: 0x10),
        ipv4(192, 168, 1, 12),
      ],
      "a name on several lines has every address, in file order")
    XCTAssertEqual(addresses(table, "printer"), [ipv4(192, 168, 1, 11)])
    XCTAssertEqual(canonical(table, ipv4(192, 168, 1, 10)), "nas.lan", "the first name")
    XCTAssertEqual(canonical(table, ipv4(192, 168, 1, 12)), "nas")
    XCTAssertNil(canonical(table, ipv4(192, 168, 1, 13)))
    XCTAssertEqual(table.addHostsLine(line("192.168.1.10 nas")), .fine, "a pair again")
    XCTAssertEqual(table.count, 5, "is not added twice")
  }

  func testBadHostsLinesAreSkippedWhole() {
    let table = makeTable()
    XCTAssertEqual(table.addHostsLine(line("192.168.1.300 nas")), .bad(.badAddress))
    XCTAssertEqual(table.addHostsLine(line("fe80::1%eth0 router")), .bad(.badAddress))
    XCTAssertEqual(table.addHostsLine(line("nas 192.168.1.10")), .bad(.badAddress))
    XCTAssertEqual(table.addHostsLine(line("192.168.1.10 good bad!name")), .bad(.badName))
    XCTAssertEqual(table.addHostsLine(line("192.168.1.10 a..b")), .bad(.badName))
    XCTAssertEqual(
      table.addHostsLine(line("192.168.1.10 " + String(repeating: "x", count: 64))),
      .bad(.badName))
    XCTAssertEqual(table.addHostsLine(line("192.168.1.10 # only a comment")), .bad(.noName))
    XCTAssertEqual(table.count, 0, "nothing of a bad line is added, not even 'good'")
    XCTAssertEqual(table.addHostsLine(line("192.168.1.10 good")), .fine)
    XCTAssertEqual(table.count, 1)
  }

  func testLeaseLines() {
    let table = makeTable()
    let now: UInt64 = 1_800_000_000
    XCTAssertEqual(
      table.addLeaseLine(
        line("1800003600 aa:bb:cc:dd:ee:ff 192.168.1.50 laptop 01:aa:bb:cc:dd:ee:ff"), now: now),
      .fine)
    XCTAssertEqual(
      table.addLeaseLine(line("1799999999 aa:bb:cc:dd:ee:01 192.168.1.51 oldphone *"), now: now),
      .fine)
    XCTAssertEqual(
      table.addLeaseLine(line("1800000000 aa:bb:cc:dd:ee:03 192.168.1.53 justnow *"), now: now),
      .fine)
    XCTAssertEqual(
      table.addLeaseLine(line("0 aa:bb:cc:dd:ee:02 192.168.1.52 Static-TV *"), now: now), .fine)
    XCTAssertEqual(
      table.addLeaseLine(line("1800007200 aa:bb:cc:dd:ee:04 192.168.1.54 * *"), now: now), .fine)
    XCTAssertEqual(
      table.addLeaseLine(line("duid 00:01:00:01:2c:1f:7a:3e:aa:bb:cc:dd:ee:ff"), now: now), .fine)
    XCTAssertEqual(
      table.addLeaseLine(line("1800001800 305419896 fd00::50 laptop 00:01:00:01:aa"), now: now),
      .fine)
    XCTAssertEqual(table.addLeaseLine(line(""), now: now), .fine)
    XCTAssertEqual(
      addresses(table, "laptop"),
      [ipv4(192, 168, 1, 50), IPAddress(high: 0xFD00_0000_0000_0000, low: 0x50)])
    XCTAssertEqual(addresses(table, "oldphone"), [], "expired")
    XCTAssertEqual(addresses(table, "justnow"), [], "expires now")
    XCTAssertEqual(addresses(table, "static-tv"), [ipv4(192, 168, 1, 52)], "0: never expires")
    XCTAssertNil(canonical(table, ipv4(192, 168, 1, 54)), "'*': no name")
    XCTAssertEqual(table.count, 3)
    XCTAssertEqual(table.earliestExpiry, 1_800_001_800, "the IPv6 lease ends first")
  }

  func testBadLeaseLinesAreSkipped() {
    let table = makeTable()
    let now: UInt64 = 1_800_000_000
    XCTAssertEqual(
      table.addLeaseLine(line("soon aa:bb:cc:dd:ee:ff 192.168.1.50 laptop *"), now: now),
      .bad(.badExpiry))
    XCTAssertEqual(
      table.addLeaseLine(line("1800003600 aa:bb:cc:dd:ee:ff 192.168.1.50"), now: now),
      .bad(.missingFields))
    XCTAssertEqual(
      table.addLeaseLine(line("1800003600 aa:bb:cc:dd:ee:ff 192.168.1 laptop *"), now: now),
      .bad(.badAddress))
    XCTAssertEqual(
      table.addLeaseLine(line("1800003600 aa:bb:cc:dd:ee:ff 192.168.1.50 lap top! *"), now: now),
      .fine, "fields are blank-separated: 'lap' is the name")
    XCTAssertEqual(
      table.addLeaseLine(line("1800003600 aa:bb:cc:dd:ee:ff 192.168.1.51 bad!name *"), now: now),
      .bad(.badName))
    XCTAssertEqual(table.count, 1)
    XCTAssertEqual(table.earliestExpiry, 1_800_003_600)
  }

  /// Pairs past the capacity are dropped and counted; `clear` empties the
  /// table and its count of drops.
  func testFullTableDropsAndClearEmpties() {
    let table = makeTable(capacity: 16)
    for index in 0..<20 {
      let outcome = table.addHostsLine(line("10.0.0.\(index) host\(index)"))
      XCTAssertEqual(outcome, index < 16 ? .fine : .full, "line \(index)")
    }
    XCTAssertEqual(table.count, 16)
    XCTAssertEqual(table.dropped, 4)
    XCTAssertEqual(addresses(table, "host15"), [ipv4(10, 0, 0, 15)])
    XCTAssertEqual(addresses(table, "host16"), [])
    table.clear()
    XCTAssertEqual(table.count, 0)
    XCTAssertEqual(table.dropped, 0)
    XCTAssertEqual(table.earliestExpiry, UInt64.max)
    XCTAssertEqual(addresses(table, "host1"), [])
    XCTAssertEqual(table.addHostsLine(line("10.0.0.1 host1")), .fine)
    XCTAssertEqual(addresses(table, "host1"), [ipv4(10, 0, 0, 1)])
  }

  /// `swap` makes the table a reload filled the active one, at once.
  func testSwapExchangesTheTables() {
    let names = LocalNames(capacity: 16, domain: [], hashKey: HashKey(k0: 3, k1: 4))
    let filled = names.inactive
    XCTAssertEqual(filled.addHostsLine(line("10.0.0.1 new")), .fine)
    XCTAssertEqual(names.active.count, 0, "queries do not see a table being filled")
    names.swap()
    XCTAssertTrue(names.active === filled)
    XCTAssertEqual(names.active.count, 1)
    XCTAssertFalse(names.inactive === filled)
  }
}
