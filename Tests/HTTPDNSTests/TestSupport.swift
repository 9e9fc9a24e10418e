import CompiledConfig
import DNSWire
import TestSupport
import XCTest

@testable import HTTPDNS

/// The request text, or the error.
func request(
  _ query: [UInt8], _ format: HTTPDNSFormat, host: String = "203.107.1.1",
  account: String = "", secret: String = "", path: String = "",
  unixTime: UInt64 = 1_700_000_000, capacity: Int = 1024
) -> Result<String, HTTPDNSError> {
  requestBytes(
    query, format, host: host, account: account, secret: secret, path: path, unixTime: unixTime,
    capacity: capacity
  ).map { String(decoding: $0, as: UTF8.self) }
}

/// The request bytes (a dns-message request has a binary body), or the error.
func requestBytes(
  _ query: [UInt8], _ format: HTTPDNSFormat, host: String = "203.107.1.1",
  account: String = "", secret: String = "", path: String = "",
  unixTime: UInt64 = 1_700_000_000, capacity: Int = 1024
) -> Result<[UInt8], HTTPDNSError> {
  var output = [UInt8](repeating: 0, count: capacity)
  let hostBytes = Array(host.utf8)
  let result = query.withUnsafeBytes { q in
    hostBytes.withUnsafeBytes { h in
      output.withUnsafeMutableBytes { out in
        capture { () throws(HTTPDNSError) in
          try HTTPDNSCodec.writeRequest(
            for: q, format: format, host: h, account: Array(account.utf8),
            secret: Array(secret.utf8), path: Array(path.utf8), unixTime: unixTime, into: out)
        }
      }
    }
  }
  return result.map { Array(output[0..<$0]) }
}

extension Result {
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

func capture<T>(_ body: () throws(HTTPDNSError) -> T) -> Result<T, HTTPDNSError> {
  do throws(HTTPDNSError) {
    return .success(try body())
  } catch {
    return .failure(error)
  }
}

func frame(_ bytes: [UInt8], closed: Bool = false) -> Result<(Int, Bool)?, HTTPDNSError> {
  bytes.withUnsafeBytes { raw in
    capture { () throws(HTTPDNSError) in
      try HTTPDNSCodec.frame(raw, connectionClosed: closed).map { ($0.length, $0.keepAlive) }
    }
  }
}

func frame(_ text: String, closed: Bool = false) -> Result<(Int, Bool)?, HTTPDNSError> {
  frame(Array(text.utf8), closed: closed)
}

/// The DNS response bytes for an HTTP response, or the error.
func dnsResponse(
  _ query: [UInt8], _ http: [UInt8], _ format: HTTPDNSFormat, capacity: Int = 4096
) -> Result<[UInt8], HTTPDNSError> {
  var output = [UInt8](repeating: 0xEE, count: capacity)
  let result = query.withUnsafeBytes { q in
    http.withUnsafeBytes { h in
      output.withUnsafeMutableBytes { out in
        capture { () throws(HTTPDNSError) in
          try HTTPDNSCodec.writeDNSResponse(to: q, httpResponse: h, format: format, into: out)
        }
      }
    }
  }
  return result.map { Array(output[0..<$0]) }
}

/// A 200 response carrying `body` with Content-Length, or chunked in pieces of `chunk` bytes.
func ok(_ body: String, chunk: Int? = nil, contentType: String = "application/json") -> [UInt8] {
  let bytes = Array(body.utf8)
  guard let chunk else {
    return Array(
      "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\n\r\n"
        .utf8) + bytes
  }
  var out = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
  var index = 0
  while index < bytes.count {
    let end = min(bytes.count, index + chunk)
    out += Array("\(String(end - index, radix: 16))\r\n".utf8) + bytes[index..<end] + [13, 10]
    index = end
  }
  return out + Array("0\r\n\r\n".utf8)
}

/// One decoded record: owner in presentation form, type, TTL, RDATA bytes.
struct Record: Equatable {
  var owner: String
  var type: UInt16
  var ttl: UInt32
  var rdata: [UInt8]
  /// For CNAME, NS, PTR: the target; MX: the exchange; SRV: the target.
  var target: String? = nil
}

/// A decoded response: the message must validate, answer `query` (same ID,
/// question bytes), have QR and RA set and RD/CD copied.
struct Decoded {
  var rcode: UInt16
  var records: [Record]
  var hasOPT: Bool
}

func presentation(_ raw: UnsafeRawBufferPointer, at offset: Int) -> String {
  var flat = [UInt8](repeating: 0, count: 256)
  let length = flat.withUnsafeMutableBytes { out in
    (try? Name.read(in: raw, at: offset, into: out).length) ?? 0
  }
  var text = [UInt8](repeating: 0, count: 1100)
  let count = flat.withUnsafeBytes { name in
    text.withUnsafeMutableBytes {
      Name.format(UnsafeRawBufferPointer(rebasing: name[0..<length]), into: $0)
    }
  }
  return String(decoding: text[0..<count], as: UTF8.self)
}

func decode(
  _ response: [UInt8], answering query: [UInt8], file: StaticString = #filePath, line: UInt = #line
) -> Decoded? {
  response.withUnsafeBytes { raw -> Decoded? in
    query.withUnsafeBytes { q -> Decoded? in
      guard let message = try? Message(validating: raw), let asked = try? Message(validating: q)
      else {
        XCTFail("not a valid message: \(response)", file: file, line: line)
        return nil
      }
      XCTAssertEqual(message.id, asked.id, file: file, line: line)
      XCTAssertTrue(message.flags.isResponse, file: file, line: line)
      XCTAssertTrue(message.flags.has(HeaderFlags.recursionAvailable), file: file, line: line)
      for bit in [HeaderFlags.recursionDesired, HeaderFlags.checkingDisabled] {
        XCTAssertEqual(message.flags.has(bit), asked.flags.has(bit), file: file, line: line)
      }
      XCTAssertEqual(message.questionCount, 1, file: file, line: line)
      XCTAssertEqual(
        Array(raw[message.questionOffset..<message.questionEnd]),
        Array(q[asked.questionOffset..<asked.questionEnd]), file: file, line: line)
      XCTAssertEqual(message.opt != nil, asked.opt != nil, file: file, line: line)
      XCTAssertEqual(message.authorityCount, 0, file: file, line: line)
      var records: [Record] = []
      var iterator = message.records()
      while let record = iterator.next(), record.type != .opt {
        XCTAssertEqual(record.rrClass, .internet, file: file, line: line)
        var target: String? = nil
        switch record.type.rawValue {
        case 2, 5, 12: target = presentation(raw, at: record.rdataOffset)
        case 15: target = presentation(raw, at: record.rdataOffset + 2)
        case 33: target = presentation(raw, at: record.rdataOffset + 6)
        default: break
        }
        records.append(
          Record(
            owner: presentation(raw, at: record.offset), type: record.type.rawValue,
            ttl: record.ttl,
            rdata: Array(raw[record.rdataOffset..<record.end]), target: target))
      }
      return Decoded(rcode: message.rcode.rawValue, records: records, hasOPT: message.opt != nil)
    }
  }
}
