import DNSWire

/// Writes the DNS response to a query from an API's answer: header and
/// question first, then records as the body is read, then the counts, the
/// rcode and (if the query had one) an OPT (RFC 6891 §7).
struct AnswerBuilder {
  let query: Message
  var writer: MessageWriter
  let scratch: TextScratch
  var answers: UInt16 = 0

  init(query: Message, output: UnsafeMutableRawBufferPointer, scratch: TextScratch)
    throws(HTTPDNSError)
  {
    self.query = query
    self.scratch = scratch
    writer = MessageWriter(buffer: output)
    let name = UnsafeRawBufferPointer(
      rebasing: query.bytes[query.questionOffset..<(query.questionEnd - 4)])
    do throws(WireError) {
      try writer.writeHeader(id: query.id, flags: HeaderFlags(rawValue: 0), questions: 1)
      try writer.writeQuestion(name: name, type: query.questionType, rrClass: .internet)
    } catch { throw .bufferTooSmall }
  }

  /// Patches the header and adds the OPT. `rcode`: the API's Status, 12 bits.
  mutating func finish(rcode: UInt32 = 0) throws(HTTPDNSError) -> Int {
    var flags = HeaderFlags(rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable)
    flags.opcode = query.flags.opcode
    flags.set(HeaderFlags.recursionDesired, query.flags.has(HeaderFlags.recursionDesired))
    flags.set(HeaderFlags.checkingDisabled, query.flags.has(HeaderFlags.checkingDisabled))
    // Above 15 the code needs the OPT's upper bits (RFC 6891 §6.1.3).
    let code = query.opt != nil || rcode <= 15 ? rcode : UInt32(ResponseCode.serverFailure.rawValue)
    flags.rcode = ResponseCode(rawValue: UInt16(code & 0xF))
    writer.patchUInt16(flags.rawValue, at: HeaderField.flags)
    writer.patchUInt16(answers, at: HeaderField.answerCount)
    if let opt = query.opt {
      do throws(WireError) {
        try writer.writeOPT(
          udpPayloadSize: opt.udpPayloadSize, extendedRcode: UInt8(truncatingIfNeeded: code >> 4))
      } catch { throw .bufferTooSmall }
      writer.patchUInt16(1, at: HeaderField.additionalCount)
    }
    return writer.count
  }

  /// One A or AAAA record for the question name, from address text; false
  /// (nothing written) if it is an address of the other family.
  mutating func address(_ text: UnsafeRawBufferPointer, ttl: UInt32) throws(HTTPDNSError) -> Bool {
    let isIPv6 = HTTPText.find(UInt8(ascii: ":"), in: text, 0..<text.count) != nil
    let rdata = UnsafeRawBufferPointer(rebasing: scratch.name[0..<(isIPv6 ? 16 : 4)])
    guard
      isIPv6
        ? PresentationText.ipv6(text, into: scratch.name)
        : PresentationText.ipv4(text, into: scratch.name)
    else { throw .malformedBody }
    guard isIPv6 == (query.questionType == .aaaa) else { return false }
    try countAnswer()
    do throws(WireError) {
      try writer.writeRecord(
        pointerTo: HeaderField.size, type: query.questionType, rrClass: .internet, ttl: ttl,
        rdata: rdata)
    } catch { throw .bufferTooSmall }
    return true
  }

  /// One record of a JSON answer: owner, type and TTL, and RDATA from text.
  mutating func record(
    name: JSONReader, type: RRType, ttl: UInt32, data: JSONReader
  ) throws(HTTPDNSError) {
    var text = try TextSource(string: data)
    guard type != .opt else { throw .unsupportedRecord }
    if !RDataText.knows(type) {
      guard try RDataText.isGeneric(text) else { throw .unsupportedRecord }
    }
    try countAnswer()
    var owner = try TextSource(string: name)
    let (length, _) = try PresentationText.token(&owner, into: scratch.token)
    guard try PresentationText.atEnd(&owner),
      let nameLength = PresentationText.name(scratch.tokenText(length), into: scratch.name)
    else { throw .malformedBody }
    let rdataStart: Int
    do throws(WireError) {
      try writer.writeName(UnsafeRawBufferPointer(rebasing: scratch.name[0..<nameLength]))
      try writer.writeUInt16(type.rawValue)
      try writer.writeUInt16(RRClass.internet.rawValue)
      try writer.writeUInt32(ttl)
      try writer.writeUInt16(0)
      rdataStart = writer.count
    } catch { throw .bufferTooSmall }
    try RDataText.write(type, from: &text, scratch: scratch, into: &writer)
    let rdataLength = writer.count - rdataStart
    guard rdataLength <= 0xFFFF else { throw .malformedBody }
    writer.patchUInt16(UInt16(rdataLength), at: rdataStart - 2)
  }

  private mutating func countAnswer() throws(HTTPDNSError) {
    guard answers < UInt16.max else { throw .bufferTooSmall }
    answers += 1
  }
}
