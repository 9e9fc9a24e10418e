import Foundation
// A validation flood must not hold back another client's cached answers
// (Server.handleInFairOrder): the signed-zone fixture of
// DNSSECReferenceTests, dnsward asking knotd directly.
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

extension DNSSECReferenceTests {
  /// www of the top zone, DO=1: the name the flood tests cache first.
  static let cachedQuestion = dnsQuery(
    "www.\(TestZones.top)", id: 0xCAC4, edns: 1232, dnssecOK: true)

  /// dnsward with `dnssec on` asking knotd directly, `cachedQuestion`
  /// answered (validated) so that the zone's keys are cached: each flood
  /// answer then costs one verification and no chain fetch.
  func dnswardWithTheZoneKeysCached(_ fixture: Fixture) throws -> DnswardProcess {
    let dnsward = try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream udp 127.0.0.1:\(fixture.zones.honest.port)
        timeout 20s
        dnssec on
        dnssec-root off
        trust-anchor \(fixture.zones.trustAnchor)
        """)
    let first = StubClient.udp(Self.cachedQuestion, port: dnsward.port).flatMap(PlainMessage.init)
    XCTAssertEqual(first?.rcode, 0)
    XCTAssertNotEqual((first?.flags ?? 0) & ProbeReply.authenticData, 0, "www is validated")
    return dnsward
  }

  /// One client asks every `TestZones.floodNames` name at once: each
  /// answer needs its own signature verified, and knotd's answers wait in
  /// dnsward's sockets far faster than it verifies them. Once the first
  /// of them is answered, another client asks a name already cached. Its
  /// answer must come within a few loop turns, not after the backlog: at
  /// most a quarter of the flood answered before it (all of it was, before
  /// the clients were read ahead of the verifications).
  func testACachedAnswerIsNotHeldBehindAValidationBacklog() throws {
    try DNSSECAvailability.requireValidator()
    let fixture = try started()
    let dnsward = try dnswardWithTheZoneKeysCached(fixture)
    defer { dnsward.stop() }
    let cached = Self.cachedQuestion

    let flood = try XCTUnwrap(StubClient.boundUDPSocket())
    let other = try XCTUnwrap(StubClient.boundUDPSocket())
    defer {
      close(flood.fd)
      close(other.fd)
    }
    let names = TestZones.floodNames
    for (index, name) in names.enumerated() {
      StubClient.sendDatagram(
        dnsQuery("\(name).\(TestZones.top)", id: UInt16(index)), from: flood.fd,
        to: StubClient.loopback(dnsward.port))
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var floodAnswers: [UInt16: Int] = [:]  // id -> rcode
    var cachedAnswerAfter: Int? = nil
    var asked = false
    let deadline = Date().addingTimeInterval(60)
    while floodAnswers.count < names.count || cachedAnswerAfter == nil, Date() < deadline {
      var waiting = [
        pollfd(fd: flood.fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: other.fd, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&waiting, 2, 1000) > 0 else { continue }
      // The flood's answers already here are counted before the other
      // client's is looked at: it arrived after them.
      while recv(flood.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 12 {
        floodAnswers[UInt16(buffer[0]) << 8 | UInt16(buffer[1])] = Int(buffer[3] & 0x0F)
      }
      if !asked && !floodAnswers.isEmpty {
        asked = true
        StubClient.sendDatagram(cached, from: other.fd, to: StubClient.loopback(dnsward.port))
      }
      let count = recv(other.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
      if count >= 12, cachedAnswerAfter == nil {
        let reply = try XCTUnwrap(PlainMessage(Array(buffer[0..<count])))
        XCTAssertEqual(reply.rcode, 0)
        XCTAssertTrue(
          reply.flags & ProbeReply.authenticData != 0, "the cached answer is the validated one")
        cachedAnswerAfter = floodAnswers.count
      }
    }
    XCTAssertEqual(floodAnswers.count, names.count, "every flood question answered")
    XCTAssertEqual(Set(floodAnswers.values), [0], "every flood answer NOERROR")
    let after = try XCTUnwrap(cachedAnswerAfter, "the cached question was answered")
    print("the cached answer came after \(after) of \(names.count) flood answers")
    XCTAssertLessThanOrEqual(after, names.count / 4, dnsward.log)
  }
}

extension DNSSECReferenceTests {
  /// One client floods as above; once its first answer is back, another
  /// client asks a few names of its own that need a verification each too.
  /// The flooding client has had most of the verifications, so the other's
  /// replies are verified first as they come in (ValidationShares): all of
  /// them answered before half of the flood (without the shares, after
  /// nearly all of it, in arrival order).
  func testAnotherClientsValidationsGoBeforeAFloodingClients() throws {
    try DNSSECAvailability.requireValidator()
    let fixture = try started()
    let dnsward = try dnswardWithTheZoneKeysCached(fixture)
    defer { dnsward.stop() }
    let flood = try XCTUnwrap(StubClient.boundUDPSocket())
    let other = try XCTUnwrap(Self.udpSocket(boundTo: "127.0.0.2"), "no socket on 127.0.0.2")
    defer {
      close(flood.fd)
      close(other)
    }
    let names = TestZones.floodNames.map { "\($0).\(TestZones.top)" }
    let floodNames = names.dropLast(8)
    let otherNames = names.suffix(8)
    for (index, name) in floodNames.enumerated() {
      StubClient.sendDatagram(
        dnsQuery(name, id: UInt16(index)), from: flood.fd, to: StubClient.loopback(dnsward.port))
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var floodAnswers = 0
    var otherAnswers: [Int] = []  // the flood answers counted when each came
    var asked = false
    let deadline = Date().addingTimeInterval(60)
    while floodAnswers < floodNames.count || otherAnswers.count < otherNames.count,
      Date() < deadline
    {
      var waiting = [
        pollfd(fd: flood.fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: other, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&waiting, 2, 1000) > 0 else { continue }
      while recv(flood.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 12 {
        XCTAssertEqual(buffer[3] & 0x0F, 0, "a flood answer NOERROR")
        floodAnswers += 1
      }
      if !asked && floodAnswers > 0 {
        asked = true
        for (index, name) in otherNames.enumerated() {
          StubClient.sendDatagram(
            dnsQuery(name, id: UInt16(index)), from: other,
            to: StubClient.loopback(dnsward.port))
        }
      }
      while recv(other, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 12 {
        XCTAssertEqual(buffer[3] & 0x0F, 0, "the other client's answer NOERROR")
        otherAnswers.append(floodAnswers)
      }
    }
    XCTAssertEqual(floodAnswers, floodNames.count, "every flood question answered")
    XCTAssertEqual(otherAnswers.count, otherNames.count, "every other question answered")
    print(
      "the other client's answers came after \(otherAnswers) of \(floodNames.count) flood answers")
    XCTAssertLessThanOrEqual(otherAnswers.max() ?? .max, floodNames.count / 2, dnsward.log)
  }

  /// A UDP socket bound to `address` (a loopback address other than
  /// 127.0.0.1: another client to dnsward) on a port the kernel chose.
  static func udpSocket(boundTo address: String) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var local = StubClient.loopback(0)
    local.sin_addr.s_addr = inet_addr(address)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard bound else {
      close(fd)
      return nil
    }
    return fd
  }
}
