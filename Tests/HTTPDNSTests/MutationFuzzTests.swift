import CompiledConfig
import DNSWire
import TestSupport
import XCTest

@testable import HTTPDNS

/// Deterministic mutation fuzzing of framing and body conversion over valid
/// responses of each format: nothing may trap; a framed length stays inside
/// the input; every DNS response produced validates and answers the query.
/// A failure names the iteration and the input, so it can be replayed.
final class MutationFuzzTests: XCTestCase {
  static let jsonBody = ##"""
    {"Status":0,"TC":false,"Question":[{"name":"www.example.com.","type":1}],
     "Answer":[{"name":"www.example.com.","type":5,"TTL":300,"data":"cdn.example.net."},
     {"name":"cdn.example.net.","type":1,"TTL":60,"data":"192.0.2.7"},
     {"name":"cdn.example.net.","type":16,"TTL":60,"data":"\"a b\" \"\\065\\\"\""},
     {"name":"cdn.example.net.","type":15,"TTL":60,"data":"10 mx.example.net."},
     {"name":"cdn.example.net.","type":99,"TTL":60,"data":"\\# 2 abcd"}],
     "Comment":"\u00e9\ud83d\ude00"}
    """##
  static let alibabaBody =
    #"{"host":"www.example.com","ips":["192.0.2.1","192.0.2.2"],"ipsv6":["2001:db8::1"],"ttl":57}"#
  static let dnspodBody = "192.0.2.1;192.0.2.2;2001:db8::1,600"

  static let cases: [(HTTPDNSFormat, [UInt8])] = [
    (.json, ok(jsonBody)), (.json, ok(jsonBody, chunk: 40)),
    (.alibaba, ok(alibabaBody)), (.alibaba, ok(alibabaBody, chunk: 9)),
    (.dnspod, ok(dnspodBody)), (.dnspod, ok(dnspodBody, chunk: 5)),
  ]
  static let queries = [
    dnsQuery("www.example.com", type: RRType.a.rawValue),
    dnsQuery("www.example.com", type: RRType.aaaa.rawValue, edns: 1232),
  ]

  /// Bytes that steer mutations into the parsers' interesting states.
  static let specials = Array(#"{}[]",:\"0123456789.;-e\u#\r\n "#.utf8)

  static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = input
    for _ in 0...rng.below(3) {
      switch rng.below(7) {
      case 0 where !bytes.isEmpty:
        bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
      case 1 where !bytes.isEmpty:
        bytes[rng.below(bytes.count)] ^= 1 << UInt8(rng.below(8))
      case 2 where !bytes.isEmpty:
        bytes.removeLast(rng.below(bytes.count) + 1)
      case 3:
        bytes.insert(specials[rng.below(specials.count)], at: rng.below(bytes.count + 1))
      case 4 where !bytes.isEmpty:
        bytes.remove(at: rng.below(bytes.count))
      case 5 where !bytes.isEmpty:
        bytes[rng.below(bytes.count)] = specials[rng.below(specials.count)]
      default:
        guard !bytes.isEmpty else { break }
        let start = rng.below(bytes.count)
        let end = min(bytes.count, start + 1 + rng.below(24))
        bytes.insert(contentsOf: bytes[start..<end], at: rng.below(bytes.count + 1))
      }
    }
    return bytes
  }

  func testMutatedResponsesNeverCrash() {
    var rng = SplitMix64(seed: 0x4854_5450)
    var outcomes: [String: Int] = [:]
    let iterations = 30_000
    for iteration in 0..<iterations {
      let (format, seed) = Self.cases[rng.below(Self.cases.count)]
      let query = Self.queries[rng.below(Self.queries.count)]
      let bytes = Self.mutate(seed, &rng)
      let context =
        "iteration \(iteration): \(String(decoding: bytes, as: UTF8.self).debugDescription)"
      for closed in [false, true] {
        if case .success(let result?) = frame(bytes, closed: closed) {
          XCTAssertTrue(result.0 >= 0 && result.0 <= bytes.count, context)
        }
      }
      switch dnsResponse(query, bytes, format, capacity: 1232) {
      case .success(let response):
        outcomes["ok", default: 0] += 1
        _ = decode(response, answering: query)
      case .failure(let error):
        outcomes["\(error)".prefix(10).description, default: 0] += 1
      }
    }
    // The mutations must reach every layer, not only break the status line.
    XCTAssertGreaterThan(outcomes["ok"] ?? 0, iterations / 10, "\(outcomes)")
    for error in ["malformedB", "malformedH", "closedEarl", "httpStatus"] {
      XCTAssertGreaterThan(outcomes[error] ?? 0, 0, "\(outcomes)")
    }
  }

  /// RFC 8484 responses: the same mutations over DoH answers (a body with
  /// records, a chunked one, Cache-Control and Age fields). Every DNS
  /// response produced validates, is a response, carries the query's ID
  /// and question, and no TTL above the max-age the input said.
  func testMutatedDNSMessageResponsesNeverCrash() {
    let query = dnsQuery("www.example.com", type: RRType.aaaa.rawValue, id: 0x5A5A, edns: 1232)
    let body = DNSMessageTests.answer(to: query, ttls: [300, 60, 5])
    let chunked =
      Array("HTTP/1.1 200 OK\r\nContent-Type: application/dns-message\r\n".utf8)
      + Array("Transfer-Encoding: chunked\r\n\r\n10\r\n".utf8) + body.prefix(16)
      + Array("\r\n\(String(body.count - 16, radix: 16))\r\n".utf8) + body.dropFirst(16)
      + Array("\r\n0\r\n\r\n".utf8)
    let seeds = [
      DNSMessageTests.http(body),
      DNSMessageTests.http(
        body,
        fields: "Content-Type: application/dns-message\r\nCache-Control: max-age=100\r\n"
          + "Age: 30\r\n"),
      chunked,
    ]
    var rng = SplitMix64(seed: 0x8484)
    var outcomes: [String: Int] = [:]
    let iterations = 30_000
    for iteration in 0..<iterations {
      let bytes = Self.mutate(seeds[rng.below(seeds.count)], &rng)
      let context = "iteration \(iteration): \(bytes)"
      for closed in [false, true] {
        if case .success(let result?) = frame(bytes, closed: closed) {
          XCTAssertTrue(result.0 >= 0 && result.0 <= bytes.count, context)
        }
      }
      switch dnsResponse(query, bytes, .dnsMessage, capacity: 512) {
      case .success(let response):
        outcomes["ok", default: 0] += 1
        Self.checkDNSMessage(response, answering: query, input: bytes, context)
      case .failure(let error):
        outcomes["\(error)".prefix(10).description, default: 0] += 1
      }
    }
    XCTAssertGreaterThan(outcomes["ok"] ?? 0, iterations / 10, "\(outcomes)")
    for error in [
      "malformedB", "malformedH", "closedEarl", "httpStatus", "wrongConte", "questionMi",
    ] {
      XCTAssertGreaterThan(outcomes[error] ?? 0, 0, "\(outcomes)")
    }
  }

  /// A DoH answer: valid, a response, the query's ID and question, and no
  /// TTL above the max-age less the Age that the input's head holds.
  static func checkDNSMessage(
    _ response: [UInt8], answering query: [UInt8], input: [UInt8], _ context: String
  ) {
    response.withUnsafeBytes { raw in
      query.withUnsafeBytes { q in
        guard let message = try? Message(validating: raw), let asked = try? Message(validating: q)
        else { return XCTFail("not a valid message: " + context) }
        XCTAssertEqual(message.id, asked.id, context)
        XCTAssertTrue(message.flags.isResponse, context)
        XCTAssertEqual(
          Array(raw[message.questionOffset..<message.questionEnd]),
          Array(q[asked.questionOffset..<asked.questionEnd]), context)
        // The freshness the head parser read; the unit tests check that it
        // reads the fields right.
        let head = input.withUnsafeBytes { raw in
          (try? FramedResponse(raw, connectionClosed: true))?.head
        }
        guard let head, let maxAge = head.maxAge else { return }
        let limit = maxAge - min(maxAge, head.age ?? 0)
        var records = message.records()
        while let record = records.next() {
          if record.type != .opt { XCTAssertLessThanOrEqual(record.ttl, limit, context) }
        }
      }
    }
  }

  /// Random bytes after a valid head: the JSON reader and the text readers
  /// see arbitrary input.
  func testRandomBodiesNeverCrash() {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<5_000 {
      let length = rng.below(64)
      let body = (0..<length).map { _ in
        rng.below(2) == 0
          ? Self.specials[rng.below(Self.specials.count)] : UInt8(truncatingIfNeeded: rng.next())
      }
      let http = Array("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n".utf8) + body
      for format in [HTTPDNSFormat.json, .alibaba, .dnspod] {
        let query = Self.queries[rng.below(2)]
        if case .success(let response) = dnsResponse(query, http, format) {
          _ = decode(response, answering: query)
        }
      }
      // A DoH body: random bytes, or a valid answer's header and question
      // followed by random bytes, so the record walker sees them too.
      let query = Self.queries[rng.below(2)]
      var doh = Array(DNSMessageTests.answer(to: query, ttls: [60]).prefix(12 + 17 + 4))
      doh[7] = UInt8(rng.below(4))
      doh[11] = UInt8(rng.below(2))
      doh = rng.below(2) == 0 ? body : doh + body
      let dohHTTP = DNSMessageTests.http(doh)
      if case .success(let response) = dnsResponse(query, dohHTTP, .dnsMessage) {
        Self.checkDNSMessage(response, answering: query, input: dohHTTP, "\(doh)")
      }
    }
  }
}
