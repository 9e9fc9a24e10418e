import CompiledConfig
import DNSWire
import HTTPDNS

// libFuzzer target: the HTTPDNS readers on arbitrary bytes (built and run by
// .ci/fuzz.sh; not a SwiftPM target): HTTP/1.1 response framing
// (Content-Length, chunked, to close, interim 1xx), then the body as a
// JSON (`/resolve`), alibaba or dnspod answer, or as an RFC 8484 DNS
// message, turned into the DNS response to a query.
//
// The first input byte picks the format, the query and the output size;
// the rest is the HTTP response. Nothing may trap. Framing never claims
// more bytes than arrived, and a response framed while the connection is
// open frames to the same length once it is closed, and from exactly its
// own bytes. Every DNS response produced validates, is a response with the
// query's ID, opcode, RD and CD and its question byte for byte, fits the
// output, and (RFC 8484) carries no TTL above the max-age less the Age.

/// A query as the engine sends it upstream.
func makeQuery(_ name: String, type: UInt16, id: UInt16, flags: UInt16, edns: Bool) -> [UInt8] {
  var out: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF)]
  out += [0, 1, 0, 0, 0, 0, 0, edns ? 1 : 0]
  out += flat(name) + [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
  if edns { out += [0, 0, 41, 0x04, 0xD0, 0, 0, 0, 0, 0, 0] }
  return out
}

let queries: [[UInt8]] = [
  makeQuery("www.example.com", type: 1, id: 0x1234, flags: 0x0100, edns: false),
  makeQuery("www.example.com", type: 28, id: 0xBEEF, flags: 0x0110, edns: true),
  makeQuery("WwW.ExAmPlE.CoM", type: 1, id: 0x0001, flags: 0x0100, edns: true),
  makeQuery("_dmarc.example.com", type: 16, id: 0x4242, flags: 0x0100, edns: true),
  makeQuery("example.com", type: 15, id: 0x0A0A, flags: 0x0100, edns: false),
  makeQuery("cdn.example.net", type: 5, id: 0x7777, flags: 0x0100, edns: true),
  makeQuery("example.org", type: 65, id: 0x5A5A, flags: 0x0100, edns: true),
  makeQuery("4.3.2.1.in-addr.arpa", type: 12, id: 0x0102, flags: 0x0000, edns: false),
]
let formats: [HTTPDNSFormat] = [.json, .alibaba, .dnspod, .dnsMessage]
let capacities = [512, 1232, 4096, 65_535]

func frame(_ bytes: UnsafeRawBufferPointer, closed: Bool) -> (length: Int, keepAlive: Bool)?? {
  do throws(HTTPDNSError) {
    return .some(try HTTPDNSCodec.frame(bytes, connectionClosed: closed))
  } catch {
    return .none
  }
}

/// The freshness limit of an RFC 8484 answer, max-age less Age, read here
/// independently of the codec, for simple heads only: a 200 status line,
/// one `Cache-Control: max-age=N` field, the first `Age` field a plain
/// number or absent (later ones do not count, RFC 9111 §5.1). Lines end
/// in LF, with or without CR (RFC 9112 §2.2). nil otherwise, or without
/// max-age.
func freshnessLimit(_ http: UnsafeRawBufferPointer) -> UInt32? {
  var lines: [[UInt8]] = []
  var start = 0
  while true {
    guard let lf = http[start...].firstIndex(of: 0x0A) else { return nil }
    var line = Array(http[start..<lf])
    if line.last == 0x0D { line.removeLast() }
    start = lf + 1
    if line.isEmpty { break }
    lines.append(line)
  }
  guard let status = lines.first, status.starts(with: Array("HTTP/1.1 200 ".utf8)) else {
    return nil
  }
  var maxAge: UInt64? = nil
  var age: UInt64? = nil
  var cacheControlFields = 0
  var ageFields = 0
  for line in lines.dropFirst() {
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
    let name = String(decoding: line[0..<colon], as: UTF8.self).lowercased()
    let value = Array(line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 })
    let trimmed = Array(value.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
    if name == "cache-control" {
      cacheControlFields += 1
      let prefix = Array("max-age=".utf8)
      guard trimmed.count > prefix.count, trimmed.count <= prefix.count + 9,
        String(decoding: trimmed[0..<prefix.count], as: UTF8.self).lowercased() == "max-age="
      else { return nil }
      maxAge = digits(Array(trimmed[prefix.count...]))
      guard maxAge != nil else { return nil }
    } else if name == "age" {
      ageFields += 1
      if ageFields == 1 {
        guard trimmed.count <= 9, let number = digits(trimmed) else { return nil }
        age = number
      }
    }
  }
  guard cacheControlFields == 1, let maxAge else { return nil }
  return UInt32(maxAge - min(maxAge, age ?? 0))
}

/// 1*DIGIT as a number, nil for anything else.
func digits(_ bytes: [UInt8]) -> UInt64? {
  guard !bytes.isEmpty, bytes.allSatisfy({ $0 &- 0x30 < 10 }) else { return nil }
  return bytes.reduce(0) { $0 * 10 + UInt64($1 - 0x30) }
}

func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
  guard haystack.count >= needle.count else { return nil }
  for start in 0...(haystack.count - needle.count)
  where haystack[start..<(start + needle.count)].elementsEqual(needle) {
    return start
  }
  return nil
}

func checkResponse(
  _ response: UnsafeRawBufferPointer, query: [UInt8], format: HTTPDNSFormat,
  http: UnsafeRawBufferPointer
) {
  query.withUnsafeBytes { q in
    guard let asked = try? Message(validating: q) else { fatalError("fuzz query invalid") }
    guard let message = try? Message(validating: response) else {
      fatalError("a DNS response that does not validate")
    }
    require(message.flags.isResponse, "a DNS response without QR")
    require(message.id == asked.id, "a DNS response with another ID")
    require(
      Array(response[message.questionOffset..<message.questionEnd])
        == Array(q[asked.questionOffset..<asked.questionEnd]),
      "a DNS response with another question")
    guard format == .dnsMessage else {
      // Made here (an RFC 8484 body is the server's own: the engine checks
      // its opcode and flags like any upstream answer's).
      require(message.flags.opcode == asked.flags.opcode, "a DNS response with another opcode")
      for bit in [HeaderFlags.recursionDesired, HeaderFlags.checkingDisabled] {
        require(message.flags.has(bit) == asked.flags.has(bit), "RD or CD not copied")
      }
      require((message.opt != nil) == (asked.opt != nil), "OPT not as asked")
      return
    }
    if let limit = freshnessLimit(http) {
      var records = message.records()
      while let record = records.next() {
        require(record.type == .opt || record.ttl <= limit, "a TTL above max-age less Age")
      }
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size >= 1 else { return 0 }
  let selector = Int(data[0])
  let format = formats[selector & 3]
  let query = queries[selector >> 2 & 7]
  let capacity = capacities[selector >> 5 & 3]
  let http = UnsafeRawBufferPointer(start: data + 1, count: size - 1)

  // Framing, open and closed.
  let open = frame(http, closed: false)
  let closed = frame(http, closed: true)
  for case .some(.some(let framed)) in [open, closed] {
    require(framed.length > 0 && framed.length <= http.count, "framed past what arrived")
  }
  if case .some(.some(let framed)) = open {
    require(
      closed.flatMap { $0 }?.length == framed.length,
      "a complete response frames differently once the connection closes")
    // Its own bytes alone are the same response.
    let own = frame(UnsafeRawBufferPointer(rebasing: http[0..<framed.length]), closed: false)
    require(
      own.flatMap { $0 }?.length == framed.length, "a framed response is not complete alone")
  }

  // The DNS response.
  var output = [UInt8](repeating: 0xEE, count: capacity)
  let written = query.withUnsafeBytes { q in
    output.withUnsafeMutableBytes { out -> Int? in
      do throws(HTTPDNSError) {
        return try HTTPDNSCodec.writeDNSResponse(
          to: q, httpResponse: http, format: format, into: out)
      } catch {
        return nil
      }
    }
  }
  if let written {
    require(written >= HeaderField.size && written <= capacity, "response length out of range")
    output.withUnsafeBytes {
      checkResponse(
        UnsafeRawBufferPointer(rebasing: $0[0..<written]), query: query, format: format,
        http: http)
    }
  }
  return 0
}
