import CompiledConfig
import DNSWire

/// The HTTPDNS upstream protocol, sans I/O: the HTTP/1.1 request for a DNS
/// query, where a response ends in the received bytes, and the DNS response
/// made from it. Nothing is allocated; all work is in the caller's buffers
/// and a little stack.
///
/// Small readers called from many places (`BodyCursor.peek`,
/// `JSONReader.nextKey`, `TextWriter.append`...) are `@inline(never)`: a few
/// calls more per query cost nothing next to the network, and inlined they
/// made the module a third larger in the firmware, whose size is budgeted.
public enum HTTPDNSCodec {
  /// How long a signed Alibaba request stays valid: `t` = now + this. Ten
  /// minutes covers a router clock that is a few minutes off.
  public static let signatureValidity: UInt64 = 600
  /// The TTL of dnspod answers that do not carry one (the request asks for
  /// it with `ttl=1`, so this is only for servers that ignore that).
  public static let dnspodDefaultTTL: UInt32 = 60
  /// The TTL of alibaba answers without a `ttl` field.
  public static let alibabaDefaultTTL: UInt32 = 60

  /// How far a response received so far extends: nil while incomplete; else
  /// the byte count of the whole response (status line, headers, body) and
  /// whether the server keeps the connection open. Content-Length and the
  /// chunked coding (RFC 9112 §6, §7.1) are both read; a response with
  /// neither ends when the connection closes, which the transport says with
  /// `connectionClosed` (and then an incomplete response throws
  /// `closedEarly`). Interim 1xx responses are skipped and counted in the
  /// length. A head over `HTTPDNSLimits.maxHeadBytes` throws `malformedHTTP`.
  /// Content-Type, Cache-Control's max-age and Age are noted in the head
  /// for `writeDNSResponse`; a value of theirs that does not parse is no
  /// framing error.
  public static func frame(_ received: UnsafeRawBufferPointer, connectionClosed: Bool)
    throws(HTTPDNSError) -> (length: Int, keepAlive: Bool)?
  {
    guard let response = try FramedResponse(received, connectionClosed: connectionClosed) else {
      return nil
    }
    return (response.end, response.head.keepAlive)
  }

  /// The DNS response to `query` (its ID, opcode, RD and CD, its question
  /// byte for byte, RA set; an OPT if the query had one) made from one
  /// complete HTTP response, which must be 200 OK (else `httpStatus`):
  ///
  /// - dnsMessage (RFC 8484 §4.2): the body is the DNS response itself,
  ///   `Content-Type: application/dns-message` (else `wrongContentType`). It
  ///   must be a valid message, a response, with the query's question byte
  ///   for byte (else `malformedBody`, `questionMismatch`); it is copied with
  ///   the query's ID (the request carried 0). With `Cache-Control:
  ///   max-age=N`, no TTL (but the OPT's, which is none) stays above N less
  ///   the `Age` (§5.1: the answer must not outlive the HTTP freshness);
  /// - alibaba: `{"host":..,"ips":[..],"ipsv6":[..],"ttl":N}` → A records from
  ///   `ips` or AAAA from `ipsv6`, TTL `ttl`; none → NODATA;
  /// - dnspod: `ip;ip;ip[,TTL]` → the addresses of the question's family,
  ///   TTL `dnspodDefaultTTL` when absent; none → NODATA;
  /// - json: `{"Status":N,"Answer":[{"name":..,"type":T,"TTL":N,"data":..}]}`
  ///   → rcode `Status` and the answer records (see `RDataText`); a type
  ///   that cannot be converted throws `unsupportedRecord`.
  ///
  /// Owner names are compressed. Returns the length written to `output`.
  public static func writeDNSResponse(
    to query: UnsafeRawBufferPointer, httpResponse: UnsafeRawBufferPointer, format: HTTPDNSFormat,
    into output: UnsafeMutableRawBufferPointer
  ) throws(HTTPDNSError) -> Int {
    let question = try question(of: query, format: format)
    guard let response = try FramedResponse(httpResponse, connectionClosed: true) else {
      throw .closedEarly
    }
    guard response.head.status == 200 else { throw .httpStatus(response.head.status) }
    if format == .dnsMessage { return try dnsMessage(response, answering: question, into: output) }
    return try withUnsafeTemporaryAllocation(byteCount: TextScratch.byteCount, alignment: 1) {
      (scratch: UnsafeMutableRawBufferPointer) throws(HTTPDNSError) -> Int in
      var answer = try AnswerBuilder(
        query: question, output: output, scratch: TextScratch(scratch))
      var rcode: UInt32 = 0
      switch format {
      case .alibaba: try answer.alibaba(response.body)
      case .dnspod: try answer.dnspod(response.body)
      case .json: rcode = try answer.json(response.body)
      case .dnsMessage: throw .unsupportedQuestion  // Answered above.
      }
      return try answer.finish(rcode: rcode)
    }
  }

  /// The query as a validated message with one question the format can
  /// ask: dnsMessage sends the query itself, so any; the others an IN one.
  static func question(of query: UnsafeRawBufferPointer, format: HTTPDNSFormat)
    throws(HTTPDNSError) -> Message
  {
    let message: Message
    do throws(WireError) {
      message = try Message(validating: query)
    } catch { throw .unsupportedQuestion }
    // The name is copied into the response as it is, so it must be flat.
    guard message.hasQuestion, !message.flags.isResponse,
      message.questionEnd - 4 - message.questionOffset == message.questionNameLength
    else { throw .unsupportedQuestion }
    guard format != .dnsMessage else { return message }
    let type = message.questionType
    guard message.questionClass == .internet, format == .json || type == .a || type == .aaaa
    else { throw .unsupportedQuestion }
    return message
  }

  /// `bytes` as a valid DNS response, else `malformedBody`.
  static func validResponse(_ bytes: UnsafeRawBufferPointer) throws(HTTPDNSError) -> Message {
    let message: Message
    do throws(WireError) {
      message = try Message(validating: bytes)
    } catch { throw .malformedBody }
    guard message.flags.isResponse else { throw .malformedBody }
    return message
  }

  /// The RFC 8484 body as the response to `query` (see `writeDNSResponse`).
  static func dnsMessage(
    _ response: FramedResponse, answering query: Message,
    into output: UnsafeMutableRawBufferPointer
  ) throws(HTTPDNSError) -> Int {
    guard let type = response.head.contentType,
      HTTPText.equals(
        response.bytes, HTTPText.parameterless(response.bytes, type), "application/dns-message")
    else { throw .wrongContentType }
    var body = response.body
    var length = 0
    while let byte = body.next() {
      guard length < output.count else { throw .bufferTooSmall }
      output[length] = byte
      length += 1
    }
    // The ID first: a hostile name may point into the header, and must
    // still read as a name with the ID the client gets.
    guard length >= HeaderField.size else { throw .malformedBody }
    output.setUInt16(query.id, at: HeaderField.id)
    let bytes = UnsafeRawBufferPointer(rebasing: output[0..<length])
    let message = try validResponse(bytes)
    let asked = query.bytes[query.questionOffset..<query.questionEnd]
    guard message.hasQuestion,
      bytes[message.questionOffset..<message.questionEnd].elementsEqual(asked)
    else { throw .questionMismatch }
    guard let maxAge = response.head.maxAge else { return length }
    let limit = maxAge - min(maxAge, response.head.age ?? 0)
    var rewritten = false
    var records = message.records()
    while let record = records.next() {
      if record.type != .opt && record.ttl > limit {
        output.setUInt32(limit, at: record.ttlOffset)
        rewritten = true
      }
    }
    guard rewritten else { return length }
    // A name may also point into a TTL that was just rewritten: the
    // message must still be valid, with no TTL above the limit.
    var again = try validResponse(bytes).records()
    while let record = again.next() {
      guard record.type == .opt || record.ttl <= limit else { throw .malformedBody }
    }
    return length
  }
}
