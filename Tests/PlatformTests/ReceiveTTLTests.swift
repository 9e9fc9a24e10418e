import CLinux
import Platform
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// recvmsg(2) with the IP TTL / hop limit control message, over loopback.
final class ReceiveTTLTests: XCTestCase {
  /// Sends one datagram from a socket with TTL `ttl` (the system default
  /// when nil) to a receiver with or without IP_RECVTTL, and returns what
  /// `receiveWithTTL` reported.
  func roundTrip(
    ttl: UInt8?, enable: Bool = true, on loopback: SocketAddress
  ) throws -> (count: Int, truncated: Bool, from: SocketAddress, ttl: UInt8)? {
    let (receiver, receiverAddress) = try boundSocket(loopback)
    let (sender, senderAddress) = try boundSocket(loopback)
    defer {
      receiver.close()
      sender.close()
    }
    if enable { try Socket.enableReceiveTTL(receiver, ipv6: loopback.isIPv6) }
    if let ttl { try Socket.setTTL(sender, ttl, ipv6: loopback.isIPv6) }
    let payload: [UInt8] = [1, 2, 3, 4, 5]
    XCTAssertTrue(try payload.withUnsafeBytes { try Socket.send(sender, $0, to: receiverAddress) })
    waitReadable(receiver)
    var buffer = [UInt8](repeating: 0, count: 64)
    let received = try buffer.withUnsafeMutableBytes {
      try Socket.receiveWithTTL(receiver, into: $0)
    }
    XCTAssertEqual(received?.count, payload.count)
    XCTAssertEqual(Array(buffer[0..<payload.count]), payload)
    XCTAssertEqual(received?.from, senderAddress)
    XCTAssertEqual(received?.truncated, false)
    // Nothing more: nil, not an error.
    XCTAssertNil(
      try buffer.withUnsafeMutableBytes { try Socket.receiveWithTTL(receiver, into: $0) })
    return received
  }

  static var ipv4Loopback: SocketAddress { SocketAddress(ipv4: 0x7F00_0001, port: 0) }
  static var ipv6Loopback: SocketAddress { SocketAddress(high: 0, low: 1, port: 0, isIPv6: true) }

  /// The kernel's default TTL (net.ipv4.ip_default_ttl, 64 unless changed).
  var defaultTTL: UInt8 {
    let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_default_ttl", encoding: .utf8)
    return text.flatMap { UInt8($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 64
  }

  func testIPv4TTLSetBySenderIsReported() throws {
    XCTAssertEqual(try roundTrip(ttl: 77, on: Self.ipv4Loopback)?.ttl, 77)
  }

  func testIPv4DefaultTTLIsReported() throws {
    XCTAssertEqual(defaultTTL, 64, "this host changed net.ipv4.ip_default_ttl")
    XCTAssertEqual(try roundTrip(ttl: nil, on: Self.ipv4Loopback)?.ttl, defaultTTL)
  }

  func testWithoutTheOptionTTLIsZero() throws {
    XCTAssertEqual(try roundTrip(ttl: 77, enable: false, on: Self.ipv4Loopback)?.ttl, 0)
  }

  func testIPv6HopLimitIsReported() throws {
    let probe: FileDescriptor
    do {
      (probe, _) = try boundSocket(Self.ipv6Loopback)
    } catch {
      throw XCTSkip("no IPv6 loopback here: \(error)")
    }
    probe.close()
    XCTAssertEqual(try roundTrip(ttl: 33, on: Self.ipv6Loopback)?.ttl, 33)
  }

  func testTruncatedDatagramKeepsItsTTL() throws {
    let (receiver, receiverAddress) = try boundSocket(Self.ipv4Loopback)
    let (sender, _) = try boundSocket(Self.ipv4Loopback)
    defer {
      receiver.close()
      sender.close()
    }
    try Socket.enableReceiveTTL(receiver, ipv6: false)
    try Socket.setTTL(sender, 9, ipv6: false)
    let payload = [UInt8](repeating: 0xAB, count: 100)
    XCTAssertTrue(try payload.withUnsafeBytes { try Socket.send(sender, $0, to: receiverAddress) })
    waitReadable(receiver)
    var buffer = [UInt8](repeating: 0, count: 10)
    let received = try buffer.withUnsafeMutableBytes {
      try Socket.receiveWithTTL(receiver, into: $0)
    }
    XCTAssertEqual(received?.count, 10)
    XCTAssertEqual(received?.truncated, true)
    XCTAssertEqual(received?.ttl, 9)
  }
}
