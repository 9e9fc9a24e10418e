import CompiledConfig
import DNSWire
import TestSupport
import XCTest

@testable import HTTPDNS

/// API bodies turned into DNS responses, decoded back with DNSWire.
final class BodyTests: XCTestCase {
  let aQuery = dnsQuery("WwW.Example.com", type: RRType.a.rawValue, id: 0xBEEF, cd: true)
  let aaaaQuery = dnsQuery(
    "www.example.com", type: RRType.aaaa.rawValue, id: 7, rd: false, edns: 1232)

  func answer(
    _ query: [UInt8], _ http: [UInt8], _ format: HTTPDNSFormat,
    file: StaticString = #filePath, line: UInt = #line
  ) -> Decoded? {
    switch dnsResponse(query, http, format) {
    case .success(let bytes): return decode(bytes, answering: query, file: file, line: line)
    case .failure(let error):
      XCTFail("\(error)", file: file, line: line)
      return nil
    }
  }

  // MARK: alibaba

  func testAlibabaA() throws {
    let body =
      #"{"host":"www.example.com","ips":["192.0.2.1","198.51.100.20"],"ipsv6":["2001:db8::1"],"#
      + #""ttl":57,"origin_ttl":60,"extra":{"a":[1,2.5e3,true,false,null,"\u00e9"]}}"#
    for http in [ok(body), ok(body, chunk: 3), ok(body, chunk: 1)] {
      let decoded = try XCTUnwrap(answer(aQuery, http, .alibaba))
      XCTAssertEqual(decoded.rcode, 0)
      XCTAssertEqual(
        decoded.records,
        [
          Record(owner: "WwW.Example.com.", type: 1, ttl: 57, rdata: [192, 0, 2, 1]),
          Record(owner: "WwW.Example.com.", type: 1, ttl: 57, rdata: [198, 51, 100, 20]),
        ])
    }
    // The owners point at the question: 12 header + 17 question + 2 × 16.
    XCTAssertEqual(try dnsResponse(aQuery, ok(body), .alibaba).get().count, 12 + 21 + 32)
  }

  func testAlibabaAAAAAndNoData() throws {
    let body = #"{"ttl":30,"ipsv6":["2001:db8::1","::ffff:192.0.2.1"],"ips":["192.0.2.1"]}"#
    let decoded = try XCTUnwrap(answer(aaaaQuery, ok(body), .alibaba))
    XCTAssertTrue(decoded.hasOPT)
    XCTAssertEqual(
      decoded.records.map(\.rdata),
      [
        hexBytes("20010db8 00000000 00000000 00000001"),
        hexBytes("00000000 00000000 0000ffff c0000201"),
      ])
    XCTAssertEqual(decoded.records.map(\.ttl), [30, 30])
    for body in [
      #"{"host":"x","ips":[],"ttl":60}"#, #"{"host":"x"}"#, #"{"ips":null}"#, "{}",
    ] {
      let empty = try XCTUnwrap(answer(aQuery, ok(body), .alibaba))
      XCTAssertEqual(empty.rcode, 0)
      XCTAssertEqual(empty.records, [])
    }
    // The wrong family in the list is a broken answer.
    XCTAssertEqual(
      dnsResponse(aQuery, ok(#"{"ips":["2001:db8::1"]}"#), .alibaba).failure, .malformedBody)
    XCTAssertEqual(
      dnsResponse(aQuery, ok(#"{"ips":["192.0.2.300"]}"#), .alibaba).failure, .malformedBody)
    XCTAssertEqual(dnsResponse(aQuery, ok(#"{"ips":[1]}"#), .alibaba).failure, .malformedBody)
    XCTAssertEqual(
      dnsResponse(aQuery, ok(#"{"ips":[],"ttl":-1}"#), .alibaba).failure, .malformedBody)
  }

  // MARK: dnspod

  func testDNSPod() throws {
    let a = try XCTUnwrap(
      answer(aQuery, ok("192.0.2.1;192.0.2.2,600", contentType: "text/html"), .dnspod))
    XCTAssertEqual(a.records.map(\.rdata), [[192, 0, 2, 1], [192, 0, 2, 2]])
    XCTAssertEqual(a.records.map(\.ttl), [600, 600])
    let noTTL = try XCTUnwrap(answer(aQuery, ok("192.0.2.1"), .dnspod))
    XCTAssertEqual(noTTL.records.map(\.ttl), [HTTPDNSCodec.dnspodDefaultTTL])
    // Only the question's family; an answer of the other family alone is NODATA.
    let mixed = try XCTUnwrap(answer(aaaaQuery, ok("192.0.2.1;2001:db8::2,60"), .dnspod))
    XCTAssertEqual(mixed.records.map(\.rdata), [hexBytes("20010db8000000000000000000000002")])
    XCTAssertEqual(try XCTUnwrap(answer(aaaaQuery, ok("192.0.2.1,60"), .dnspod)).records, [])
    for empty in ["", "\n", ",60"] {
      XCTAssertEqual(try XCTUnwrap(answer(aQuery, ok(empty), .dnspod)).records, [], empty)
    }
    for bad in ["192.0.2.1;;192.0.2.2", "192.0.2.1;", "192.0.2.1,x", "192.0.2.1,60,1", "x", "0"] {
      XCTAssertEqual(dnsResponse(aQuery, ok(bad), .dnspod).failure, .malformedBody, bad)
    }
  }

  // MARK: json

  func testJSONCNAMEChain() throws {
    let body = #"""
      {"Status": 0, "TC": false, "RD": true, "RA": true, "AD": false, "CD": false,
       "Question": [{"name": "www.example.com.", "type": 1}],
       "Answer": [
         {"name": "www.example.com.", "type": 5, "TTL": 300, "data": "cdn.Example.NET."},
         {"data": "192.0.2.7", "TTL": 60, "type": 1, "name": "cdn.example.net"}],
       "Comment": "keys in any order"}
      """#
    let decoded = try XCTUnwrap(answer(aQuery, ok(body, chunk: 7), .json))
    XCTAssertEqual(decoded.rcode, 0)
    XCTAssertEqual(decoded.records.count, 2)
    XCTAssertEqual(decoded.records[0].owner, "WwW.Example.com.")  // compressed to the question
    XCTAssertEqual(decoded.records[0].type, 5)
    XCTAssertEqual(decoded.records[0].ttl, 300)
    XCTAssertEqual(decoded.records[0].target, "cdn.Example.NET.")
    XCTAssertEqual(decoded.records[1].owner, "cdn.Example.NET.")  // compressed to the target
    XCTAssertEqual(decoded.records[1].rdata, [192, 0, 2, 7])
  }

  func testJSONStatusCodes() throws {
    let nx = try XCTUnwrap(
      answer(aQuery, ok(#"{"Status":3,"Authority":[{"name":"example.com.","type":6}]}"#), .json))
    XCTAssertEqual(nx.rcode, 3)
    XCTAssertEqual(nx.records, [])
    XCTAssertEqual(
      try XCTUnwrap(answer(aQuery, ok(#"{"Status":2,"Answer":null}"#), .json)).rcode, 2)
    // Above 15 the rcode needs an OPT: with one it is extended, without it SERVFAIL.
    XCTAssertEqual(
      try XCTUnwrap(answer(dnsQuery("x.com", edns: 512), ok(#"{"Status":23}"#), .json)).rcode, 23)
    XCTAssertEqual(try XCTUnwrap(answer(aQuery, ok(#"{"Status":23}"#), .json)).rcode, 2)
    for bad in [#"{"Answer":[]}"#, #"{"Status":4096}"#, #"{"Status":-1}"#, #"{"Status":"0"}"#] {
      XCTAssertEqual(dnsResponse(aQuery, ok(bad), .json).failure, .malformedBody, bad)
    }
  }

  func testJSONRecordTypes() throws {
    let query = dnsQuery("example.com", type: RRType.any.rawValue)
    func data(_ type: Int, _ text: String) throws -> Record {
      let body =
        #"{"Status":0,"Answer":[{"name":"example.com.","type":\#(type),"TTL":9,"data":\#(text)}]}"#
      let decoded = try XCTUnwrap(answer(query, ok(body), .json))
      return try XCTUnwrap(decoded.records.first)
    }
    let mx = try data(15, #""10 mail.example.com.""#)
    XCTAssertEqual(Array(mx.rdata.prefix(2)), [0, 10])
    XCTAssertEqual(mx.target, "mail.example.com.")
    XCTAssertEqual(try data(2, #""ns1.example.org""#).target, "ns1.example.org.")
    XCTAssertEqual(try data(12, #""host.example.""#).target, "host.example.")
    let srv = try data(33, #""1 2 5060 sip.example.com.""#)
    // The SRV target is never compressed (RFC 2782).
    XCTAssertEqual(srv.rdata, hexBytes("0001 0002 13c4") + wireName("sip.example.com"))
    XCTAssertEqual(
      try data(28, #""2001:db8:0:1:2:3:4:5""#).rdata, hexBytes("20010db8000000010002000300040005"))
    // TXT: quoted strings with escapes, several strings, or one unquoted string.
    XCTAssertEqual(
      try data(16, #""\"v=spf1 -all\" \"a\\\\b\\\"c\\065\"""#).rdata,
      [11] + Array("v=spf1 -all".utf8) + [6] + Array(#"a\b"cA"#.utf8))
    XCTAssertEqual(try data(16, #""v=spf1 -all""#).rdata, [11] + Array("v=spf1 -all".utf8))
    XCTAssertEqual(try data(16, #""\"\u00e9\"""#).rdata, [2, 0xC3, 0xA9])
    XCTAssertEqual(try data(16, #""""#).rdata, [0])
    let long = String(repeating: "x", count: 300)
    XCTAssertEqual(
      try data(16, "\"\\\"\(long)\\\"\"").rdata,
      [255] + Array(repeating: 0x78, count: 255) + [45] + Array(repeating: 0x78, count: 45))
    // SOA, and the generic form for a type without a text form here.
    let soa = try data(6, #""ns.example.com. admin.example.com. 2024010101 7200 3600 1209600 300""#)
    XCTAssertEqual(
      Array(soa.rdata.suffix(20)), hexBytes("78a3 f175 00001c20 00000e10 00127500 0000012c"))
    XCTAssertEqual(try data(99, ##""\\# 4 0a00 0001""##).rdata, [10, 0, 0, 1])
    XCTAssertEqual(try data(99, ##""\\# 0""##).rdata, [])
    // ... and for a type with a name, when the name is flat and whole.
    XCTAssertEqual(try data(5, ##""\\# 3 0178 00""##).rdata, [1, 0x78, 0])
    // An escaped name: \046 is a dot inside a label.
    XCTAssertEqual(
      try data(5, #""a\\046b.example.""#).rdata, [3, 0x61, 0x2E, 0x62] + wireName("example"))
  }

  func testJSONUnsupportedAndBrokenRecords() {
    let query = dnsQuery("example.com", type: RRType.https.rawValue)
    func error(_ record: String) -> HTTPDNSError? {
      dnsResponse(query, ok(#"{"Status":0,"Answer":[\#(record)]}"#), .json).failure
    }
    XCTAssertEqual(
      error(#"{"name":"example.com.","type":65,"TTL":1,"data":"1 . alpn=h2"}"#), .unsupportedRecord)
    XCTAssertEqual(
      error(##"{"name":"example.com.","type":41,"TTL":1,"data":"\\# 0"}"##), .unsupportedRecord)
    for bad in [
      #"{"name":"example.com.","type":1,"TTL":1}"#,  // no data
      #"{"name":"example.com.","TTL":1,"data":"1.2.3.4"}"#,  // no type
      #"{"name":"example.com.","type":1,"data":"1.2.3.4 5"}"#,  // extra text
      #"{"name":"example..com.","type":1,"data":"1.2.3.4"}"#,  // empty label
      #"{"name":"a b","type":1,"data":"1.2.3.4"}"#,
      #"{"name":"x.","type":70000,"data":"1.2.3.4"}"#,
      #"{"name":"x.","type":1,"TTL":1e3,"data":"1.2.3.4"}"#,
      #"{"name":"x.","type":1,"TTL":99999999999999999999999,"data":"1.2.3.4"}"#,
      #"{"name":"x.","type":15,"data":"70000 mx."}"#,
      #"{"name":"x.","type":15,"data":"10"}"#,
      #"{"name":"x.","type":16,"data":"\"unterminated"}"#,
      #"{"name":"x.","type":16,"data":"\"a\" b"}"#,
      ##"{"name":"x.","type":99,"data":"\\# 2 0a"}"##,
      ##"{"name":"x.","type":99,"data":"\\# 1 0a0b"}"##,
      #"{"name":"x.","type":5,"data":"\\300.x."}"#,
      // The generic form of a type with names must hold them flat and
      // whole (RFC 3597 §4–5; found by the httpdns fuzzer once DNSWire
      // read RDATA names): an empty MX, a CNAME as a pointer, an NS name
      // with a byte after it, an SOA without its counters.
      ##"{"name":"x.","type":15,"data":"\\# 0"}"##,
      ##"{"name":"x.","type":5,"data":"\\# 2 c00c"}"##,
      ##"{"name":"x.","type":2,"data":"\\# 4 0178 00ff"}"##,
      ##"{"name":"x.","type":6,"data":"\\# 4 0178 0000"}"##,
      #"{"name":1,"type":1,"data":"1.2.3.4"}"#,
      #"{"name":"\#(String(repeating: "a.", count: 128))","type":1,"data":"1.2.3.4"}"#,
      #"{"name":"\#(String(repeating: "a", count: 64))","type":1,"data":"1.2.3.4"}"#,
      // A token longer than HTTPDNSLimits.maxTokenBytes.
      #"{"name":"x.","type":5,"data":"\#(String(repeating: "a", count: 800))"}"#,
    ] {
      XCTAssertEqual(error(bad), .malformedBody, bad)
    }
  }

  // MARK: HTTP and JSON errors

  func testHTTPStatus() {
    let notFound = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}".utf8)
    XCTAssertEqual(dnsResponse(aQuery, notFound, .json).failure, .httpStatus(404))
    XCTAssertEqual(
      dnsResponse(aQuery, Array("HTTP/1.1 503 x\r\n\r\n".utf8), .alibaba).failure,
      .httpStatus(503))
    XCTAssertEqual(
      dnsResponse(aQuery, Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}".utf8), .json)
        .failure, .closedEarly)
    XCTAssertEqual(
      dnsResponse(aQuery, Array("garbage\r\n\r\n".utf8), .json).failure, .malformedHTTP)
    // Not a question these formats can ask.
    let mx = dnsQuery("example.com", type: RRType.mx.rawValue)
    XCTAssertEqual(dnsResponse(mx, ok("{}"), .alibaba).failure, .unsupportedQuestion)
  }

  func testBrokenJSON() {
    let deep = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
    let shallow = String(repeating: "[", count: 15) + String(repeating: "]", count: 15)
    XCTAssertNotNil(try? dnsResponse(aQuery, ok(#"{"Status":0,"x":\#(shallow)}"#), .json).get())
    for bad in [
      "", "garbage", "{", #"{"Status":0"#, #"{"Status":0,}"#, #"{"Status":0}}"#,
      #"{"Status":0} x"#, #"{"Status" 0}"#, #"{Status:0}"#, #"{"Status":01}"#,
      #"{"Status":0,"x":\#(deep)}"#, #"{"Status":0,"x":[1,]}"#, #"{"Status":0,"x":tru}"#,
      #"{"Status":0,"x":"\u12G4"}"#, #"{"Status":0,"x":"\uD800"}"#, #"{"Status":0,"x":"\uDC00"}"#,
      #"{"Status":0,"x":"\uD800\u0041"}"#, #"{"Status":0,"x":"\q"}"#, "{\"Status\":0,\"x\":\"\t\"}",
      #"{"Status":0,"x":1.}"#, #"{"Status":0,"x":1e}"#, #"{"Status":0,"x":-}"#,
      #"{"Status":0,"x":"#,
      #"{"Status":1e400}"#, #"{"Status":99999999999999999999999999999999}"#,
      #"{"Status":0,"Answer":{}}"#, #"{"Status":0,"Answer":[1]}"#, "[]", "\"x\"",
    ] {
      XCTAssertEqual(dnsResponse(aQuery, ok(bad), .json).failure, .malformedBody, bad)
    }
    // Valid oddities are skipped fine: escapes, surrogate pairs, exponents, nesting.
    let odd = #"{"x":"\ud83d\ude00\"\\\/\b\f\n\r\t","y":-0.5e-3,"z":[{},[],{"a":null}],"Status":0}"#
    XCTAssertEqual(try? dnsResponse(aQuery, ok(odd), .json).get().count, 12 + 21)
  }

  func testBufferTooSmall() throws {
    let body = #"{"ips":["192.0.2.1","192.0.2.2"],"ttl":5}"#
    let full = try dnsResponse(aaaaQuery, ok(#"{"ipsv6":["::1"]}"#), .alibaba).get().count
    for capacity in 0..<full {
      XCTAssertEqual(
        dnsResponse(aaaaQuery, ok(#"{"ipsv6":["::1"]}"#), .alibaba, capacity: capacity).failure,
        .bufferTooSmall, "\(capacity)")
    }
    XCTAssertEqual(dnsResponse(aQuery, ok(body), .alibaba, capacity: 40).failure, .bufferTooSmall)
  }
}
