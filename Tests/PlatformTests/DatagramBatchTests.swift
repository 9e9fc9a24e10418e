import CLinux
import Platform
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// recvmmsg/sendmmsg batches over real sockets on 127.0.0.1.
final class DatagramBatchTests: XCTestCase {
  func datagram(_ index: Int, length: Int = 20) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) }
  }

  func testReceivesInBatchesAndReportsPeerAndShortBatchWhenDrained() throws {
    let (receiver, receiverAddress) = try boundSocket()
    let (sender, senderAddress) = try boundSocket()
    defer {
      receiver.close()
      sender.close()
    }
    for index in 0..<20 {
      let bytes = datagram(index)
      let sent = try bytes.withUnsafeBytes { try Socket.send(sender, $0, to: receiverAddress) }
      XCTAssertTrue(sent)
    }
    waitReadable(receiver)
    let batch = DatagramBatch(capacity: 16, slotSize: 64)
    XCTAssertEqual(try batch.receive(from: receiver), 16)
    for index in 0..<16 {
      XCTAssertEqual(Array(batch.bytes(at: index)), datagram(index))
      XCTAssertFalse(batch.isTruncated(at: index))
      XCTAssertEqual(batch.peer(at: index), senderAddress)
    }
    // The remaining four: a short batch means the socket is drained.
    XCTAssertEqual(try batch.receive(from: receiver), 4)
    XCTAssertEqual(Array(batch.bytes(at: 3)), datagram(19))
    XCTAssertEqual(try batch.receive(from: receiver), 0)
  }

  func testDatagramLargerThanSlotIsMarkedTruncated() throws {
    let (receiver, receiverAddress) = try boundSocket()
    let (sender, _) = try boundSocket()
    defer {
      receiver.close()
      sender.close()
    }
    for bytes in [datagram(1, length: 100), datagram(2, length: 64)] {
      _ = try bytes.withUnsafeBytes { try Socket.send(sender, $0, to: receiverAddress) }
    }
    waitReadable(receiver)
    let batch = DatagramBatch(capacity: 4, slotSize: 64)
    XCTAssertEqual(try batch.receive(from: receiver), 2)
    XCTAssertTrue(batch.isTruncated(at: 0))
    XCTAssertEqual(batch.bytes(at: 0).count, 64)
    XCTAssertFalse(batch.isTruncated(at: 1))
    XCTAssertEqual(Array(batch.bytes(at: 1)), datagram(2, length: 64))
  }

  func testQueuedDatagramsLeaveInOneSendToTheirPeers() throws {
    let (first, firstAddress) = try boundSocket()
    let (second, secondAddress) = try boundSocket()
    let (sender, _) = try boundSocket()
    defer {
      first.close()
      second.close()
      sender.close()
    }
    let batch = DatagramBatch(capacity: 4, slotSize: 32)
    for index in 0..<4 {
      let bytes = datagram(index)
      let peer = index % 2 == 0 ? firstAddress : secondAddress
      XCTAssertTrue(bytes.withUnsafeBytes { batch.append($0, to: peer) })
    }
    XCTAssertTrue(batch.isFull)
    XCTAssertFalse(datagram(9).withUnsafeBytes { batch.append($0, to: firstAddress) })
    XCTAssertEqual(batch.send(on: sender), 0)
    XCTAssertEqual(batch.count, 0)
    waitReadable(first)
    waitReadable(second)
    let received = DatagramBatch(capacity: 4, slotSize: 32)
    XCTAssertEqual(try received.receive(from: first), 2)
    XCTAssertEqual(Array(received.bytes(at: 0)), datagram(0))
    XCTAssertEqual(Array(received.bytes(at: 1)), datagram(2))
    XCTAssertEqual(try received.receive(from: second), 2)
    XCTAssertEqual(Array(received.bytes(at: 1)), datagram(3))
  }

  func testDatagramLargerThanSlotIsNotQueued() throws {
    let batch = DatagramBatch(capacity: 2, slotSize: 16)
    let peer = SocketAddress(ipv4: 0x7F00_0001, port: 53)
    XCTAssertFalse(datagram(1, length: 17).withUnsafeBytes { batch.append($0, to: peer) })
    XCTAssertEqual(batch.count, 0)
    XCTAssertTrue(datagram(1, length: 16).withUnsafeBytes { batch.append($0, to: peer) })
  }

  func testRefusedDatagramIsSkippedAndTheRestAreSent() throws {
    let (receiver, receiverAddress) = try boundSocket()
    let (sender, _) = try boundSocket()
    defer {
      receiver.close()
      sender.close()
    }
    let batch = DatagramBatch(capacity: 3, slotSize: 32)
    // An IPv6 destination on an IPv4 socket: the kernel refuses that one.
    let unreachable = SocketAddress(high: 0, low: 1, port: 53, isIPv6: true)
    XCTAssertTrue(datagram(0).withUnsafeBytes { batch.append($0, to: receiverAddress) })
    XCTAssertTrue(datagram(1).withUnsafeBytes { batch.append($0, to: unreachable) })
    XCTAssertTrue(datagram(2).withUnsafeBytes { batch.append($0, to: receiverAddress) })
    XCTAssertEqual(batch.send(on: sender), 1)
    waitReadable(receiver)
    let received = DatagramBatch(capacity: 3, slotSize: 32)
    XCTAssertEqual(try received.receive(from: receiver), 2)
    XCTAssertEqual(Array(received.bytes(at: 0)), datagram(0))
    XCTAssertEqual(Array(received.bytes(at: 1)), datagram(2))
  }
}

/// A disconnected UDP socket gives its kernel-chosen port back.
final class DisconnectTests: XCTestCase {
  func testReconnectDrawsANewPortAndTheOldOneIsClosed() throws {
    let loopback = SocketAddress(ipv4: 0x7F00_0001, port: 0)
    let peer = try Socket.udp(for: loopback)
    try Socket.bind(peer, to: loopback)
    let peerAddress = try XCTUnwrap(Socket.localAddress(peer))
    let client = try Socket.udp(for: loopback)
    defer {
      peer.close()
      client.close()
    }
    var ports: [UInt16] = []
    for _ in 0..<8 {
      XCTAssertTrue(try Socket.connect(client, to: peerAddress))
      ports.append(try XCTUnwrap(Socket.localAddress(client)).port)
      try Socket.disconnect(client)
      XCTAssertEqual(Socket.localAddress(client)?.port, 0, "the port is released")
    }
    XCTAssertGreaterThan(Set(ports).count, 6, "\(ports)")
    // A datagram to a released port reaches nobody.
    var old = peerAddress
    old.port = ports[7]
    let probe: [UInt8] = [1, 2, 3]
    _ = try probe.withUnsafeBytes { try Socket.send(peer, $0, to: old) }
    let batch = DatagramBatch(capacity: 1, slotSize: 16)
    XCTAssertEqual(try batch.receive(from: client), 0)
  }
}
