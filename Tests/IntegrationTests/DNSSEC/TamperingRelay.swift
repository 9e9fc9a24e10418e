// A DNS relay on 127.0.0.1 (UDP and TCP, one port) between a validating resolver and knotd
// that alters the answers its rules select: the attacks on the path that
// DNSSEC must turn into SERVFAIL. Every other answer passes unchanged.
import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What a rule does to a selected answer.
enum Tampering: Equatable, CustomStringConvertible {
  /// Every A record's address becomes 192.0.2.66; the RRSIGs stay.
  case changeAddress
  /// Every RRSIG goes, in every section.
  case stripSignatures
  /// The answer's RRSIGs are replaced by the expired instance's for the
  /// same question (same key, validity ended 38 days ago).
  case replayExpiredSignature
  /// The NSEC and NSEC3 records and their RRSIGs leave the authority section.
  case deleteDenialProof
  /// The answer's records of the question's type (DS or DNSKEY) are
  /// replaced by those `donor` has (another zone's key); the RRSIGs stay.
  case swapRecords(donor: String)

  var description: String {
    switch self {
    case .changeAddress: "address changed"
    case .stripSignatures: "RRSIGs stripped"
    case .replayExpiredSignature: "expired RRSIG replayed"
    case .deleteDenialProof: "NSEC/NSEC3 proof deleted"
    case .swapRecords(let donor): "records swapped for \(donor)'s"
    }
  }
}

/// Selects answers by question: the name at or below `suffix`, the type.
struct TamperRule: Equatable {
  let suffix: String
  let type: UInt16
  let tampering: Tampering
}

final class TamperingRelay: @unchecked Sendable {
  static let changedAddress: [UInt8] = [192, 0, 2, 66]

  private(set) var port: UInt16 = 0
  private let upstream: UInt16
  private let expiredUpstream: UInt16
  private var _rules: [TamperRule]
  /// What it alters now: a test may change them while it runs (an
  /// upstream that begins to strip).
  var rules: [TamperRule] {
    get { lock.withLock { _rules } }
    set { lock.withLock { _rules = newValue } }
  }
  private let socketFD: Int32
  private let listenerFD: Int32
  private let lock = NSLock()
  private var running = true
  private var inFlight = 0
  private var _hits: [String: Int] = [:]
  /// Donor records, fetched from the honest upstream once, by donor name
  /// and type.
  private var donorRecords: [String: [PlainRecord]] = [:]

  /// How many answers each rule altered, by rule suffix.
  func hits(_ suffix: String) -> Int { lock.withLock { _hits[suffix] ?? 0 } }

  init(upstream: UInt16, expiredUpstream: UInt16, rules: [TamperRule]) throws {
    _ = pipeSignalIgnored
    self.upstream = upstream
    self.expiredUpstream = expiredUpstream
    _rules = rules
    (socketFD, listenerFD, port) = try FakeUpstream.openSamePort()
    for rule in rules {
      guard case .swapRecords(let donor) = rule.tampering else { continue }
      let query = dnsQuery(donor, type: rule.type, id: 0x0D0E, edns: 1232, dnssecOK: true)
      guard
        let reply = StubClient.udpMatchingID(query, port: upstream, timeout: 2).flatMap(
          PlainMessage.init)
      else { throw FixtureError("no \(donor) type \(rule.type) from knotd") }
      let records = reply.answer.filter { $0.type == rule.type }
      guard !records.isEmpty else { throw FixtureError("knotd has no \(donor) type \(rule.type)") }
      donorRecords["\(donor)/\(rule.type)"] = records
    }
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(listenerFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    listen(listenerFD, 16)
    Thread.detachNewThread { [self] in serve() }
    Thread.detachNewThread { [self] in serveTCP() }
  }

  func stop() {
    let wasRunning = lock.withLock {
      defer { running = false }
      return running
    }
    guard wasRunning else { return }
    // The serving thread sees `running` within one receive timeout; a
    // question in flight ends within its upstream timeout. Only then is the
    // descriptor closed, so no late reply goes to a reused number.
    let deadline = Date().addingTimeInterval(3)
    repeat {
      Thread.sleep(forTimeInterval: 0.15)
    } while lock.withLock({ inFlight > 0 })
      && Date() < deadline
    close(socketFD)
    close(listenerFD)
  }

  deinit { stop() }

  private func serve() {
    var buffer = [UInt8](repeating: 0, count: 65535)
    while lock.withLock({ running }) {
      let (count, client) = receiveDatagram(socketFD, into: &buffer)
      guard count > 0 else { continue }
      let query = Array(buffer[0..<count])
      let destination = client
      // One thread per question: a slow or lost upstream answer holds up
      // only its own question.
      lock.withLock { inFlight += 1 }
      Thread.detachNewThread { [self] in
        defer { lock.withLock { inFlight -= 1 } }
        guard let reply = answer(query) else { return }
        StubClient.sendDatagram(reply, from: socketFD, to: destination)
      }
    }
  }

  /// Each TCP connection on a thread of its own: length-framed questions
  /// (RFC 1035 §4.2.2) answered in turn until the client closes it.
  private func serveTCP() {
    while lock.withLock({ running }) {
      let connection = accept(listenerFD, nil, nil)
      guard connection >= 0 else { continue }
      lock.withLock { inFlight += 1 }
      Thread.detachNewThread { [self] in
        defer {
          close(connection)
          lock.withLock { inFlight -= 1 }
        }
        var wait = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(
          connection, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        while let query = readFramedMessage(connection),
          let reply = answer(query, overTCP: true)
        {
          let framed = framedMessage(reply)
          guard send(connection, framed, framed.count, Int32(MSG_NOSIGNAL)) == framed.count else {
            return
          }
        }
      }
    }
  }

  /// knotd's answer to `query` (asked over the same transport), altered
  /// when a rule selects it.
  func answer(_ query: [UInt8], overTCP: Bool = false) -> [UInt8]? {
    let reply =
      overTCP
      ? StubClient.TCPConnection(port: upstream, timeout: 2)?.ask(query)
      : StubClient.udpMatchingID(query, port: upstream, timeout: 2)
    guard let reply else { return nil }
    guard let question = PlainMessage(query), var message = PlainMessage(reply),
      let rule = rules.first(where: {
        $0.type == question.questionType
          && isName(question.questionName, atOrBelow: wireName($0.suffix))
      })
    else { return reply }
    guard apply(rule.tampering, to: &message, query: query) else { return reply }
    lock.withLock { _hits[rule.suffix, default: 0] += 1 }
    return message.bytes
  }

  /// Alters `message`; false when there was nothing to alter.
  private func apply(_ tampering: Tampering, to message: inout PlainMessage, query: [UInt8])
    -> Bool
  {
    let before = message.bytes
    switch tampering {
    case .changeAddress:
      for index in message.answer.indices where message.answer[index].type == PlainRecord.a {
        message.answer[index].rdata = Self.changedAddress
      }
    case .stripSignatures:
      message.answer.removeAll { $0.type == PlainRecord.rrsig }
      message.authority.removeAll { $0.type == PlainRecord.rrsig }
      message.additional.removeAll { $0.type == PlainRecord.rrsig }
    case .replayExpiredSignature:
      guard
        let old = StubClient.udpMatchingID(query, port: expiredUpstream, timeout: 2).flatMap(
          PlainMessage.init)
      else { return false }
      let oldSignatures = old.answer.filter { $0.type == PlainRecord.rrsig }
      guard !oldSignatures.isEmpty else { return false }
      message.answer.removeAll { $0.type == PlainRecord.rrsig }
      message.answer += oldSignatures
    case .deleteDenialProof:
      let denial: Set<UInt16> = [PlainRecord.nsec, PlainRecord.nsec3]
      message.authority.removeAll {
        denial.contains($0.type) || $0.typeCovered.map(denial.contains) == true
      }
    case .swapRecords(let donor):
      let type = message.questionType
      guard let records = donorRecords["\(donor)/\(type)"],
        let first = message.answer.firstIndex(where: { $0.type == type })
      else { return false }
      let owner = message.answer[first].owner
      let ttl = message.answer[first].ttl
      message.answer.removeAll { $0.type == type }
      message.answer.insert(
        contentsOf: records.map {
          PlainRecord(owner: owner, type: type, rrClass: $0.rrClass, ttl: ttl, rdata: $0.rdata)
        }, at: min(first, message.answer.count))
    }
    return message.bytes != before
  }
}
