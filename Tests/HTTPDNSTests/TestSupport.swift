import CompiledConfig
import DNSWire
import XCTest

@testable import HTTPDNS

/// A flat wire name from presentation text, case kept (DNSWire's parser
/// lower-cases; 0x20-randomized questions need the case).
func wireName(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  for label in text.split(separator: ".") {
    out.append(UInt8(label.utf8.count))
    out += Array(label.utf8)
  }
  return out + [0]
}

/// A query as the engine sends it upstream.
func makeQuery(
  _ name: String, type: RRType = .a, id: UInt16 = 0x1234, rd: Bool = true, cd: Bool = false,
  edns: UInt16? = nil, rawName: [UInt8]? = nil
) -> [UInt8] {
  var buffer = [UInt8](repeating: 0, count: 512)
  let count = buffer.withUnsafeMutableBytes { raw -> Int in
    var writer = MessageWriter(buffer: raw)
    var flags = HeaderFlags(rawValue: 0)
    flags.set(HeaderFlags.recursionDesired, rd)
    flags.set(HeaderFlags.checkingDisabled, cd)
    try! writer.writeHeader(id: id, flags: flags, questions: 1, additionals: edns == nil ? 0 : 1)
    let flat = rawName ?? wireName(name)
    flat.withUnsafeBytes { try! writer.writeQuestion(name: $0, type: type, rrClass: .internet) }
    if let edns { try! writer.writeOPT(udpPayloadSize: edns) }
    return writer.count
  }
  return Array(buffer[0..<count])
}

/// The request text, or the error.
func request(
  _ query: [UInt8], _ format: HTTPDNSFormat, host: String = "203.107.1.1",
  account: String = "", secret: String = "", unixTime: UInt64 = 1_700_000_000, capacity: Int = 1024
) -> Result<String, HTTPDNSError> {
  var output = [UInt8](repeating: 0, count: capacity)
  let hostBytes = Array(host.utf8)
  let result = query.withUnsafeBytes { q in
    hostBytes.withUnsafeBytes { h in
      output.withUnsafeMutableBytes { out in
        capture { () throws(HTTPDNSError) in
          try HTTPDNSCodec.writeRequest(
            for: q, format: format, host: h, account: Array(account.utf8),
            secret: Array(secret.utf8), unixTime: unixTime, into: out)
        }
      }
    }
  }
  return result.map { String(decoding: output[0..<$0], as: UTF8.self) }
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
