import CLinux
import TestSupport
import XCTest

@testable import Platform

#if canImport(Glibc)
  import Glibc
#endif

/// The bytes of an nftset batch, against what `nft` itself sends.
///
/// The reference batches were captured once from nftables v1.0.6 on Linux
/// 6.18, in a network namespace made for it:
///
/// ```
/// ip netns add cap
/// ip netns exec cap nft 'table inet t { set s4 { type ipv4_addr; flags timeout; };
///                                       set s6 { type ipv6_addr; flags timeout; }; }'
/// ip netns exec cap strace -e trace=sendmsg -e write=3 nft add element inet t s4 { 192.0.2.1 }
/// ```
///
/// and the same for the other elements; `-e write=3` dumps the bytes of the
/// one sendmsg that carries the batch. Where dnsward differs from nft, on
/// purpose, `expected(fromNFT:)` states it and applies it.
final class NetfilterBatchTests: XCTestCase {
  /// BEGIN (20 bytes), NEWSETELEM (header, nfgenmsg, "t", "s4", SET_ID,
  /// the elements list), END: `add element inet t s4 { 192.0.2.1 }`.
  static let nftIPv4 = hexBytes(
    """
    14 00 00 00 10 00 01 00  00 00 00 00 00 00 00 00
    00 00 00 0a 40 00 00 00  0c 0a 01 04 01 00 00 00
    00 00 00 00 01 00 00 00  06 00 01 00 74 00 00 00
    07 00 02 00 73 34 00 00  08 00 04 00 00 00 00 01
    14 00 03 80 10 00 01 80  0c 00 01 80 08 00 01 00
    c0 00 02 01 14 00 00 00  11 00 01 00 02 00 00 00
    00 00 00 00 00 00 00 0a
    """)
  // Field by field:
  //   14000000 1000 0100 00000000 00000000   BEGIN: length 20, type 0x10, NLM_F_REQUEST, seq 0, pid 0
  //   00 00 000a                             nfgenmsg: AF_UNSPEC, NFNETLINK_V0, res_id htons(10)
  //   40000000 0c0a 0104 01000000 00000000   NEWSETELEM: length 64, type 10<<8|12, REQUEST|CREATE, seq 1
  //   01 00 0000                             nfgenmsg: NFPROTO_INET, V0, res_id 0
  //   0600 0100 "t\0" pad                    NFTA_SET_ELEM_LIST_TABLE
  //   0700 0200 "s4\0" pad                   NFTA_SET_ELEM_LIST_SET
  //   0800 0400 00000001                     NFTA_SET_ELEM_LIST_SET_ID 1 (nft's own cache id)
  //   1400 0380                              NFTA_SET_ELEM_LIST_ELEMENTS, nested, 20 bytes
  //     1000 0180                            NFTA_LIST_ELEM, nested
  //       0c00 0180                          NFTA_SET_ELEM_KEY, nested
  //         0800 0100 c0000201               NFTA_DATA_VALUE 192.0.2.1
  //   14000000 1100 0100 02000000 00000000   END: type 0x11, seq 2
  //   00 00 000a                             nfgenmsg as in BEGIN

  /// `add element inet t s6 { 2001:db8::1 }`.
  static let nftIPv6 = hexBytes(
    """
    14 00 00 00 10 00 01 00  00 00 00 00 00 00 00 00
    00 00 00 0a 4c 00 00 00  0c 0a 01 04 01 00 00 00
    00 00 00 00 01 00 00 00  06 00 01 00 74 00 00 00
    07 00 02 00 73 36 00 00  08 00 04 00 00 00 00 02
    20 00 03 80 1c 00 01 80  18 00 01 80 14 00 01 00
    20 01 0d b8 00 00 00 00  00 00 00 00 00 00 00 01
    14 00 00 00 11 00 01 00  02 00 00 00 00 00 00 00
    00 00 00 0a
    """)

  /// `add element inet t s4 { 192.0.2.1 timeout 2s }`: the element holds
  /// NFTA_SET_ELEM_TIMEOUT (0c00 0400, 2,000 ms big-endian) before its key.
  static let nftIPv4Timeout = hexBytes(
    """
    14 00 00 00 10 00 01 00  00 00 00 00 00 00 00 00
    00 00 00 0a 4c 00 00 00  0c 0a 01 04 01 00 00 00
    00 00 00 00 01 00 00 00  06 00 01 00 74 00 00 00
    07 00 02 00 73 34 00 00  08 00 04 00 00 00 00 01
    20 00 03 80 1c 00 01 80  0c 00 04 00 00 00 00 00
    00 00 07 d0 0c 00 01 80  08 00 01 00 c0 00 02 01
    14 00 00 00 11 00 01 00  02 00 00 00 00 00 00 00
    00 00 00 0a
    """)

  /// `add element inet t s6 { 2001:db8::1 timeout 2s }`.
  static let nftIPv6Timeout = hexBytes(
    """
    14 00 00 00 10 00 01 00  00 00 00 00 00 00 00 00
    00 00 00 0a 58 00 00 00  0c 0a 01 04 01 00 00 00
    00 00 00 00 01 00 00 00  06 00 01 00 74 00 00 00
    07 00 02 00 73 36 00 00  08 00 04 00 00 00 00 02
    2c 00 03 80 28 00 01 80  0c 00 04 00 00 00 00 00
    00 00 07 d0 18 00 01 80  14 00 01 00 20 01 0d b8
    00 00 00 00 00 00 00 00  00 00 00 01 14 00 00 00
    11 00 01 00 02 00 00 00  00 00 00 00 00 00 00 0a
    """)

  /// `add element inet t s4 { 192.0.2.1, 192.0.2.2 }`: libnftnl numbers
  /// the element nests 1, 2, ... (1000 0180, then 1000 0280).
  static let nftTwoIPv4 = hexBytes(
    """
    14 00 00 00 10 00 01 00  00 00 00 00 00 00 00 00
    00 00 00 0a 50 00 00 00  0c 0a 01 04 01 00 00 00
    00 00 00 00 01 00 00 00  06 00 01 00 74 00 00 00
    07 00 02 00 73 34 00 00  08 00 04 00 00 00 00 01
    24 00 03 80 10 00 01 80  0c 00 01 80 08 00 01 00
    c0 00 02 01 10 00 02 80  0c 00 01 80 08 00 01 00
    c0 00 02 02 14 00 00 00  11 00 01 00 02 00 00 00
    00 00 00 00 00 00 00 0a
    """)

  static let sequence: UInt32 = 0x0001_0003

  /// nft's batch turned into dnsward's, with each difference named:
  /// 1. no NFTA_SET_ELEM_LIST_SET_ID (8 bytes at offset 56): it names a
  ///    set created in the same transaction, which dnsward never does, so
  ///    the NEWSETELEM length is 8 less;
  /// 2. NLM_F_ACK on NEWSETELEM, so that every batch is confirmed or
  ///    refused and a set's failure can be logged once and its recovery seen;
  /// 3. one sequence number in all three messages (a refusal of the batch as
  ///    a whole names BEGIN's), where nft counts 0, 1, 2;
  /// 4. every element nest has type NFTA_LIST_ELEM (1), as nf_tables.h
  ///    documents; the kernel ignores the type, libnftnl counts 1, 2, ...
  static func expected(fromNFT nft: [UInt8], sequence: UInt32) -> [UInt8] {
    XCTAssertEqual(Array(nft[56..<60]), [0x08, 0x00, 0x04, 0x00], "SET_ID where expected")
    var bytes = Array(nft[0..<56]) + Array(nft[64...])
    bytes[20] -= 8
    bytes[26] |= 0x04
    for offset in [8, 28, bytes.count - 12] {
      withUnsafeBytes(of: sequence) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
    }
    // The elements: list header at 56, first element nest at 60.
    var element = 60
    while element < bytes.count - 20 {
      bytes[element + 2] = 0x01
      element += Int(bytes[element]) | Int(bytes[element + 1]) << 8
    }
    return bytes
  }

  func batch(
    keyLength: Int, timeouts: Bool, addresses: [[UInt8]], timeoutMilliseconds: UInt64 = 2000
  ) throws -> [UInt8] {
    let batches = NetfilterBatches(capacity: 2, bytesPerSet: 4096)
    let name: [UInt8] = keyLength == 4 ? [0x73, 0x34] : [0x73, 0x36]
    let set = try XCTUnwrap(
      batches.addSet(
        family: .inet, table: [0x74], set: name, keyLength: keyLength, timeouts: timeouts))
    for address in addresses {
      XCTAssertTrue(batches.hasRoom(set))
      address.withUnsafeBytes {
        batches.append($0, to: set, timeoutMilliseconds: timeoutMilliseconds)
      }
    }
    return Array(batches.seal(set, sequence: Self.sequence))
  }

  static let ipv4: [UInt8] = [192, 0, 2, 1]
  static let ipv6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]

  /// Each batch, byte for byte, is what `nft` sends for the same elements.
  func testBatchesAreWhatNFTSends() throws {
    let cases: [(String, keyLength: Int, timeouts: Bool, addresses: [[UInt8]], nft: [UInt8])] = [
      ("IPv4 without timeout", 4, false, [Self.ipv4], Self.nftIPv4),
      ("IPv6 without timeout", 16, false, [Self.ipv6], Self.nftIPv6),
      ("IPv4 with timeout", 4, true, [Self.ipv4], Self.nftIPv4Timeout),
      ("IPv6 with timeout", 16, true, [Self.ipv6], Self.nftIPv6Timeout),
      (
        "two IPv4 elements in one message", 4, false, [Self.ipv4, [192, 0, 2, 2]], Self.nftTwoIPv4
      ),
    ]
    for (name, keyLength, timeouts, addresses, nft) in cases {
      XCTAssertEqual(
        try batch(keyLength: keyLength, timeouts: timeouts, addresses: addresses),
        Self.expected(fromNFT: nft, sequence: Self.sequence), name)
    }
  }

  /// A TTL of 0 must not become timeout 0, which the kernel reads as
  /// "never expires".
  func testATimeoutIsAtLeastOneSecond() throws {
    let bytes = try batch(
      keyLength: 4, timeouts: true, addresses: [Self.ipv4], timeoutMilliseconds: 0)
    // The timeout's value follows the element nest and its own header.
    XCTAssertEqual(Array(bytes[64..<68]), [0x0c, 0x00, 0x04, 0x00])
    XCTAssertEqual(Array(bytes[68..<76]), [0, 0, 0, 0, 0, 0, 0x03, 0xe8])
  }

  func testEachFamilyHasItsNumberAndName() {
    let names: [(String, NetfilterFamily, UInt8)] = [
      ("inet", .inet, 1), ("ip", .ip, 2), ("ip6", .ip6, 10), ("bridge", .bridge, 7),
      ("netdev", .netdev, 5),
    ]
    for (text, family, number) in names {
      XCTAssertEqual(NetfilterFamily(name: Array(text.utf8)), family, text)
      XCTAssertEqual(family.rawValue, number, text)
      XCTAssertEqual(family.name.description, text)
    }
    XCTAssertNil(NetfilterFamily(name: Array("arp".utf8)))
    XCTAssertNil(NetfilterFamily(name: Array("inet6".utf8)))
    XCTAssertNil(NetfilterFamily(name: []))
  }

  func testBadNamesKeysAndAFullWriterAreRefused() {
    let batches = NetfilterBatches(capacity: 1, bytesPerSet: 4096)
    let long = [UInt8](repeating: 0x61, count: 256)
    XCTAssertNil(batches.addSet(family: .ip, table: [], set: [0x73], keyLength: 4, timeouts: false))
    XCTAssertNil(
      batches.addSet(family: .ip, table: long, set: [0x73], keyLength: 4, timeouts: false))
    XCTAssertNil(
      batches.addSet(family: .ip, table: [0x74, 0], set: [0x73], keyLength: 4, timeouts: false))
    XCTAssertNil(
      batches.addSet(family: .ip, table: [0x74], set: [0x73], keyLength: 6, timeouts: false))
    XCTAssertEqual(
      batches.addSet(
        family: .ip, table: Array(long.dropLast()), set: [0x73], keyLength: 4, timeouts: false), 0)
    XCTAssertNil(
      batches.addSet(family: .ip, table: [0x74], set: [0x73], keyLength: 4, timeouts: false))
  }

  /// A region fills up to its last whole element; after `reset` it holds
  /// none, and the names written at start-up are still there.
  func testARegionFillsToItsCapacityAndEmpties() throws {
    let batches = NetfilterBatches(capacity: 1, bytesPerSet: 1024)
    let set = try XCTUnwrap(
      batches.addSet(family: .ip6, table: [0x74], set: [0x73], keyLength: 16, timeouts: true))
    var added = 0
    while batches.hasRoom(set) {
      Self.ipv6.withUnsafeBytes { batches.append($0, to: set, timeoutMilliseconds: 5000) }
      added += 1
    }
    // 1,024 bytes less 60 before the first element (two message heads, the
    // names, the list header) and 20 of END: 944, 40 per element.
    XCTAssertEqual(added, 23)
    let sealed = batches.seal(set, sequence: 7)
    XCTAssertLessThanOrEqual(sealed.count, 1024)
    XCTAssertEqual(sealed.count % 4, 0, "NLMSG_ALIGN")
    batches.reset(set)
    XCTAssertEqual(batches.elements(in: set), 0)
    XCTAssertEqual(batches.seal(set, sequence: 8).count, 0)
    XCTAssertEqual(Array(batches.tableName(of: set)), [0x74])
    XCTAssertEqual(Array(batches.setName(of: set)), [0x73])
  }

  /// A batch the socket will not take is dropped and counted, never
  /// retried or waited for; a region that fills is sent at once. The
  /// socket's send buffer is made smaller than any batch here, so every
  /// write fails with EMSGSIZE before the kernel's nftables sees it: this
  /// runs without root and never touches the machine's sets.
  func testABatchTheSocketRefusesIsDroppedAndCounted() throws {
    let writer: NetfilterSetWriter
    do {
      writer = try NetfilterSetWriter(
        log: LogLine(threshold: .error), setCapacity: 1, bytesPerSet: 65_536)
    } catch {
      throw XCTSkip("no NETLINK_NETFILTER socket here: errno \(error.rawValue)")
    }
    var size: Int32 = 1
    XCTAssertEqual(
      setsockopt(writer.descriptor.rawValue, SOL_SOCKET, SO_SNDBUF, &size, 4), 0)
    var length = socklen_t(4)
    XCTAssertEqual(
      getsockopt(writer.descriptor.rawValue, SOL_SOCKET, SO_SNDBUF, &size, &length), 0)
    guard size < 16_384 else { throw XCTSkip("the send buffer stays at \(size) bytes") }
    let set = try XCTUnwrap(
      writer.addSet(family: .ip6, table: [0x74], set: [0x73], keyLength: 16))
    // (65,536 - 80) / 40 = 1,636 elements fill the region; the rest, 1,364,
    // are 54 KB.
    for _ in 0..<3000 {
      XCTAssertTrue(Self.ipv6.withUnsafeBytes { writer.add($0, to: set, timeoutMilliseconds: 1) })
    }
    XCTAssertEqual(writer.counters.batchesDropped, 1, "the full region, sent at once")
    XCTAssertEqual(writer.counters.elementsDropped, 1636)
    writer.flush()
    writer.drainReplies()
    XCTAssertEqual(writer.counters.batchesDropped, 2)
    XCTAssertEqual(writer.counters.elementsDropped, 3000)
    XCTAssertEqual(writer.counters.elementsQueued, 3000)
    XCTAssertEqual(writer.counters.batchesSent, 0)
    XCTAssertEqual(writer.counters.batchesAcknowledged + writer.counters.batchesFailed, 0)
    XCTAssertEqual(writer.batches.elements(in: set), 0, "nothing left to send")
  }
}
