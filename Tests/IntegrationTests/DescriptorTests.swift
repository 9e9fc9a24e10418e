import Foundation
import TestSupport
import XCTest

/// Many TCP clients (issue 8, item 3, begun): beyond `tcp-clients` a
/// connection is accepted and closed at once, an idle one is closed after
/// `tcp-idle`, and after hundreds of connections — answered, cut in the
/// middle of a message, silent, refused — dnsward holds exactly the
/// descriptors it held before (counted in /proc/PID/fd; under a qemu
/// runner that is qemu's table, which mirrors the guest's).
final class DescriptorTests: XCTestCase {
  func openDescriptors(_ dnsward: DnswardProcess) -> Int? {
    try? FileManager.default.contentsOfDirectory(
      atPath: "/proc/\(dnsward.process.processIdentifier)/fd"
    ).count
  }

  func testManyTCPClientsLeaveNoDescriptorBehind() throws {
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        override printer.lan 192.168.1.20
        tcp-clients 8
        tcp-idle 1s
        """)
    defer { dnsward.stop() }
    XCTAssertEqual(
      Reply(StubClient.tcp([dnsQuery("printer.lan")], port: dnsward.port).first)?.addresses,
      ["192.168.1.20"])
    Thread.sleep(forTimeInterval: 2.5)  // that connection closed after tcp-idle
    let before = try XCTUnwrap(openDescriptors(dnsward))

    var answered = 0
    for round in 0..<30 {
      // Twelve at once against a cap of eight: some are turned away.
      let clients = (0..<12).compactMap { _ in StubClient.TCPConnection(port: dnsward.port) }
      for (index, client) in clients.enumerated() {
        switch index % 3 {
        case 0:
          let id = UInt16(round * 12 + index)
          if Reply(client.ask(dnsQuery("printer.lan", id: id)))?.id == id { answered += 1 }
        case 1:
          // A length prefix and half a message, then the client vanishes.
          client.send([0, 40, 0x12, 0x34, 1, 0])
        default:
          break  // connects and says nothing
        }
      }
    }  // every client socket is closed here
    XCTAssertGreaterThan(answered, 30, "most asking clients were answered")

    // Closed by the clients or by tcp-idle (checked once a second).
    var after = openDescriptors(dnsward)
    let deadline = Date().addingTimeInterval(5)
    while after != before && Date() < deadline {
      Thread.sleep(forTimeInterval: 0.2)
      after = openDescriptors(dnsward)
    }
    XCTAssertEqual(after, before, "descriptors before and after 360 TCP clients")
    XCTAssertEqual(
      dnsward.ask("printer.lan", id: 7)?.id, 7,
      "still answering")
  }
}
