import CLinux
import Foundation
import Platform
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The nftset writer against the kernel: real nftables sets in a network
/// namespace each test creates, checked with `nft list set`. Root only, and
/// `ip` and `nft` must be installed; otherwise the tests skip and say why.
final class NetfilterSetWriterTests: XCTestCase {
  var namespace = ""
  let log = LogLine(threshold: .info)

  override func setUpWithError() throws {
    namespace = try makeNftablesNamespace(
      "dwnft",
      ruleset: """
        table inet t {
          set s4 { type ipv4_addr; flags timeout; }
          set s6 { type ipv6_addr; }
          set si { type ipv4_addr; flags interval; }
        }
        """)
  }

  override func tearDown() {
    if !namespace.isEmpty { _ = runCommand(["ip", "netns", "del", namespace]) }
  }

  static let ipv4: [UInt8] = [192, 0, 2, 1]
  static let otherIPv4: [UInt8] = [198, 51, 100, 7]
  static let ipv6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]

  func testElementsReachTheirSetsAndATimedOneExpires() throws {
    let writer = try makeWriter()
    let s4 = try addSet(writer, "s4", keyLength: 4)
    let s6 = try addSet(writer, "s6", keyLength: 16)
    XCTAssertTrue(writer.isLearned(s4) && writer.isLearned(s6))
    XCTAssertTrue(writer.timeouts(of: s4), "flags timeout")
    XCTAssertFalse(writer.timeouts(of: s6), "no flags: a timeout would be refused (EINVAL)")
    XCTAssertTrue(add(writer, Self.ipv4, s4, 2000))
    XCTAssertTrue(add(writer, Self.ipv4, s4, 2000), "the same address twice in one batch")
    XCTAssertTrue(add(writer, Self.otherIPv4, s4, 600_000))
    XCTAssertTrue(add(writer, Self.ipv6, s6, 2000))
    XCTAssertFalse(add(writer, Self.ipv6, s4, 2000), "an IPv6 address for an IPv4 set")
    XCTAssertFalse(add(writer, Self.ipv4, s6, 2000), "an IPv4 address for an IPv6 set")
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.counters.elementsQueued, 4)
    XCTAssertEqual(writer.counters.elementsSkipped, 2)
    XCTAssertEqual(writer.counters.batchesSent, 2)
    XCTAssertEqual(writer.counters.elementsSent, 4)
    XCTAssertEqual(writer.counters.batchesAcknowledged, 2)
    XCTAssertEqual(writer.counters.batchesFailed, 0)

    var s4Listing = nft("list set inet t s4", in: namespace).output
    XCTAssertTrue(s4Listing.contains("192.0.2.1 timeout 2s"), s4Listing)
    XCTAssertTrue(s4Listing.contains("198.51.100.7 timeout 10m"), s4Listing)
    XCTAssertTrue(nft("list set inet t s6", in: namespace).output.contains("2001:db8::1"))

    // Adding an element that is already there is no error (no NLM_F_EXCL).
    XCTAssertTrue(add(writer, Self.otherIPv4, s4, 600_000))
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.counters.batchesAcknowledged, 3)
    XCTAssertEqual(writer.counters.batchesFailed, 0)

    // The 2 s element goes; the others stay.
    let deadline = Date().addingTimeInterval(10)
    while s4Listing.contains("192.0.2.1 "), Date() < deadline {
      usleep(100_000)
      s4Listing = nft("list set inet t s4", in: namespace).output
    }
    XCTAssertFalse(s4Listing.contains("192.0.2.1 "), "still there after 10 s: \(s4Listing)")
    XCTAssertTrue(s4Listing.contains("198.51.100.7"), s4Listing)
    XCTAssertTrue(nft("list set inet t s6", in: namespace).output.contains("2001:db8::1"))
  }

  /// Re-adding an element is acknowledged; on a kernel with the element
  /// timeout update it takes the new timeout, longer or shorter (older
  /// kernels keep the first: the test then skips, saying so).
  func testReAddingAnElementSetsItsNewTimeout() throws {
    let writer = try makeWriter()
    let s4 = try addSet(writer, "s4", keyLength: 4)
    for minutes: UInt64 in [10, 20, 5] {
      XCTAssertTrue(add(writer, Self.otherIPv4, s4, minutes * 60_000))
      writer.flush()
      writer.drainReplies()
      let listing = nft("list set inet t s4", in: namespace).output
      if minutes != 10, listing.contains("timeout 10m") {
        throw XCTSkip("this kernel keeps an element's first timeout when it is added again")
      }
      XCTAssertTrue(listing.contains("198.51.100.7 timeout \(minutes)m"), listing)
    }
    XCTAssertEqual(writer.counters.batchesAcknowledged, 3)
  }

  /// An unknown set is refused, counted for that set and logged; the other
  /// set's batch, sent in the same flush, still lands.
  func testARefusedBatchIsCountedForItsSetAlone() throws {
    let writer = try makeWriter()
    let missing = try addSet(writer, "nosuch", keyLength: 4)
    let s4 = try addSet(writer, "s4", keyLength: 4)
    XCTAssertFalse(writer.isLearned(missing))
    XCTAssertTrue(add(writer, Self.ipv4, missing, 0))
    XCTAssertTrue(add(writer, Self.otherIPv4, missing, 0))
    XCTAssertTrue(add(writer, Self.otherIPv4, s4, 60_000))
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.counters.batchesSent, 2)
    XCTAssertEqual(writer.counters.batchesFailed, 1)
    XCTAssertEqual(writer.counters.elementsFailed, 2)
    XCTAssertEqual(writer.counters.batchesAcknowledged, 1)
    XCTAssertEqual(writer.failures(of: missing), 1)
    XCTAssertEqual(writer.failures(of: s4), 0)
    XCTAssertTrue(nft("list set inet t s4", in: namespace).output.contains("198.51.100.7"))

    // Refused again: counted again (logged only once).
    XCTAssertTrue(add(writer, Self.ipv4, missing, 0))
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.failures(of: missing), 2)
    XCTAssertEqual(writer.counters.elementsFailed, 3)
  }

  /// An interval set (which would read a lone address as an interval open
  /// to the end of the address space) and a set whose key is of the other
  /// family are described by the kernel and then left alone.
  func testSetsTheWriterCannotFillAreLeftAlone() throws {
    let writer = try makeWriter()
    let interval = try addSet(writer, "si", keyLength: 4)
    let otherFamily = try addSet(writer, "s6", keyLength: 4)
    XCTAssertTrue(writer.isLearned(interval))
    XCTAssertFalse(writer.isUsable(interval))
    XCTAssertTrue(writer.isLearned(otherFamily))
    XCTAssertFalse(writer.isUsable(otherFamily))
    XCTAssertFalse(add(writer, Self.ipv4, interval, 60_000))
    XCTAssertFalse(add(writer, Self.ipv4, otherFamily, 60_000))
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.counters.elementsUnsupported, 2)
    XCTAssertEqual(writer.counters.batchesSent, 0)
    XCTAssertFalse(nft("list set inet t si", in: namespace).output.contains("192.0.2.1"))
  }

  /// A set made after start-up, without timeouts: the first batch, written
  /// with the timeout the writer assumes, is refused (EINVAL); the refusal
  /// asks the kernel again, and the next batch lands, without a timeout.
  func testASetMadeLaterIsLearnedFromItsFirstRefusal() throws {
    let writer = try makeWriter()
    let late = try addSet(writer, "late", keyLength: 4)
    XCTAssertFalse(writer.isLearned(late))
    XCTAssertTrue(writer.timeouts(of: late), "assumed until the kernel says")
    let made = nft("add set inet t late { type ipv4_addr; }", in: namespace)
    XCTAssertEqual(made.status, 0, made.output)
    XCTAssertTrue(add(writer, Self.ipv4, late, 60_000))
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.failures(of: late), 1)
    XCTAssertTrue(writer.isLearned(late))
    XCTAssertFalse(writer.timeouts(of: late))
    XCTAssertTrue(add(writer, Self.ipv4, late, 60_000))
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.failures(of: late), 1)
    XCTAssertEqual(writer.counters.batchesAcknowledged, 1)
    let listing = nft("list set inet t late", in: namespace).output
    XCTAssertTrue(listing.contains("192.0.2.1") && !listing.contains("timeout"), listing)
  }

  /// The kernel checks CAP_NET_ADMIN in the process that writes, so a
  /// writer in a process that switched to an unprivileged user is refused
  /// (EPERM) for every batch, and counts it; with
  /// `keepingNetworkAdministration` the same switch leaves it working.
  /// Each in a forked child that switches to `nobody`.
  func testAfterTheUserSwitchOnlyAKeptCAPNETADMINLetsTheWriterWrite() throws {
    guard getpwnam("nobody") != nil else { throw XCTSkip("no user nobody") }
    let writer = try makeWriter()
    let s4 = try addSet(writer, "s4", keyLength: 4)
    let nobody = Array("nobody".utf8)
    let refused = Self.inChild {
      do { try Privileges.drop(to: nobody) } catch { return 90 }
      if getuid() == 0 { return 91 }
      _ = add(writer, Self.ipv4, s4, 60_000)
      writer.flush()
      writer.drainReplies()
      return writer.counters.batchesFailed == 1 && writer.failures(of: s4) == 1 ? 0 : 1
    }
    XCTAssertEqual(refused, 0, "90/91: the switch to nobody failed")
    XCTAssertFalse(nft("list set inet t s4", in: namespace).output.contains("192.0.2.1"))

    let accepted = Self.inChild {
      do { try Privileges.drop(to: nobody, keepingNetworkAdministration: true) } catch {
        return 90
      }
      if getuid() == 0 || geteuid() == 0 { return 91 }
      _ = add(writer, Self.ipv4, s4, 60_000)
      writer.flush()
      writer.drainReplies()
      return writer.counters.batchesAcknowledged == 1 ? 0 : 1
    }
    XCTAssertEqual(accepted, 0, "90/91: the switch to nobody failed")
    XCTAssertTrue(nft("list set inet t s4", in: namespace).output.contains("192.0.2.1"))
  }

  /// A writer opened before `seccomp on` keeps working under the filter,
  /// without `allowNetfilterSockets`: it needs no system call beyond the
  /// loop's (write and read).
  func testAWriterOpenedBeforeTheSystemCallFilterWorksUnderIt() throws {
    let writer = try makeWriter()
    let s4 = try addSet(writer, "s4", keyLength: 4)
    let status = Self.inChild {
      if SystemCallFilter.install(allowFiles: false) != nil { return 99 }
      _ = add(writer, Self.ipv4, s4, 60_000)
      writer.flush()
      writer.drainReplies()
      return writer.counters.batchesAcknowledged == 1 ? 0 : 1
    }
    XCTAssertEqual(status, 0, "99: the filter was not installed")
    XCTAssertTrue(nft("list set inet t s4", in: namespace).output.contains("192.0.2.1"))
  }

  // MARK: - Helpers

  /// Adds set `name` of table `t` (inet) and reads what the kernel says of it.
  func addSet(_ writer: NetfilterSetWriter, _ name: String, keyLength: Int) throws -> Int {
    let set = try XCTUnwrap(
      writer.addSet(family: .inet, table: [0x74], set: Array(name.utf8), keyLength: keyLength))
    writer.querySets()
    writer.drainReplies()
    return set
  }

  func add(_ writer: NetfilterSetWriter, _ address: [UInt8], _ set: Int, _ milliseconds: UInt64)
    -> Bool
  {
    address.withUnsafeBytes { writer.add($0, to: set, timeoutMilliseconds: milliseconds) }
  }

  /// A writer whose socket lives in the test's namespace: the thread enters
  /// it (setns), opens the socket, and comes back; a socket keeps the
  /// namespace it was made in.
  func makeWriter() throws -> NetfilterSetWriter {
    let made = try inNetworkNamespace(namespace) {
      Result { () throws(Errno) in
        try NetfilterSetWriter(log: log, setCapacity: 4, bytesPerSet: 4096)
      }
    }
    switch made {
    case .success(let writer):
      return writer
    case .failure(let error):
      throw XCTSkip("no NETLINK_NETFILTER socket here: errno \(error.rawValue)")
    }
  }

  /// Runs `body` in a forked child and returns its exit status.
  static func inChild(_ body: () -> Int32) -> Int32 {
    let pid = ProcessControl.forkWorker()
    if pid == 0 { _exit(body()) }
    return ProcessControl.wait(pid)
  }
}
