import CompiledConfig
import DNSWire

/// The engine's working buffers, allocated once and freed with it: the
/// reply and query being written (each with 2 bytes of headroom for TCP
/// framing, RFC 1035 §4.2.2), and room for one flat name each: the
/// lower-cased question, and a name as a client or upstream wrote it.
struct MessageBuffers: ~Copyable {
  /// Largest DNS message (RFC 1035 §4.2.2 length prefix is 16 bits).
  static let maxMessage = 65535
  static let framing = 2

  let reply: UnsafeMutableRawBufferPointer
  let query: UnsafeMutableRawBufferPointer
  let name: UnsafeMutableRawBufferPointer
  let casedName: UnsafeMutableRawBufferPointer

  init() {
    reply = .allocate(byteCount: Self.framing + Self.maxMessage, alignment: 8)
    query = .allocate(byteCount: Self.framing + 512, alignment: 8)
    name = .allocate(byteCount: TransactionTable.nameStride, alignment: 8)
    casedName = .allocate(byteCount: TransactionTable.nameStride, alignment: 8)
  }

  deinit {
    reply.deallocate()
    query.deallocate()
    name.deallocate()
    casedName.deallocate()
  }

  /// Where a reply is written, after the framing bytes.
  var replyOutput: UnsafeMutableRawBufferPointer {
    UnsafeMutableRawBufferPointer(rebasing: reply[Self.framing...])
  }

  /// Writes the question with the case a client used: the lower-cased `name`
  /// with `clientCase` applied.
  func writeQuestion(
    _ writer: inout MessageWriter, name: UnsafeRawBufferPointer, clientCase: CaseMask,
    type: RRType, rrClass: RRClass
  ) throws(WireError) {
    let cased = UnsafeMutableRawBufferPointer(rebasing: casedName[0..<name.count])
    clientCase.apply(to: name, into: cased)
    try writer.writeQuestion(
      name: UnsafeRawBufferPointer(cased), type: type, rrClass: rrClass, compress: false)
  }
}

extension MessageWriter {
  /// RFC 8914 §2: the EDNS option code of an Extended DNS Error.
  static let extendedErrorOption: UInt16 = 15

  /// Our OPT record in a reply to a client: our payload size, and the
  /// client's DO bit, which the response must copy from the query
  /// (RFC 3225 §3) whatever the upstream or the cache said. A non-zero
  /// `extendedError` adds an Extended DNS Error option (RFC 8914 §2: option
  /// code 15, the INFO-CODE, no EXTRA-TEXT).
  /// `payloadSize` is ours (`edns-size`).
  mutating func writeClientOPT(
    payloadSize: UInt16, dnssecOK: Bool, extendedRcode: UInt8 = 0, extendedError: UInt16 = 0
  ) throws(WireError) {
    // Only validation gives a reason (the stand-in build has no such code).
    if Engine.validationIsBuiltIn && extendedError != 0 {
      try writeUInt8(0)
      try writeUInt16(RRType.opt.rawValue)
      try writeUInt16(payloadSize)
      try writeUInt32(
        UInt32(extendedRcode) << 24 | (dnssecOK ? OPTRecord.dnssecOKBit : 0))
      try writeUInt16(6)
      try writeUInt16(Self.extendedErrorOption)
      try writeUInt16(2)
      try writeUInt16(extendedError)
      return
    }
    try writeOPT(
      udpPayloadSize: payloadSize, extendedRcode: extendedRcode, dnssecOK: dnssecOK)
  }

  /// A reply made here (local answer, CHAOS, minimal ANY) to `query`:
  /// the client's OPT if its query had one, with its DO bit. Not inlined:
  /// five writers end with it.
  @inline(never)
  mutating func writeClientOPT(answering query: Message, payloadSize: UInt16)
    throws(WireError)
  {
    guard let opt = query.opt else { return }
    try writeClientOPT(payloadSize: payloadSize, dnssecOK: opt.dnssecOK)
  }
}

extension ClientRef {
  /// The largest reply a client accepts: 65535 over TCP; over UDP its EDNS
  /// payload size capped by ours, or 512 without EDNS (RFC 6891 §6.2.5,
  /// RFC 1035 §4.2.1).
  /// `ours` is our own advertised payload size.
  func replyLimit(hasEDNS: Bool, payloadSize: UInt16, ours: UInt16) -> Int {
    if isTCP { return MessageBuffers.maxMessage }
    guard hasEDNS else { return 512 }
    return max(512, Int(min(payloadSize, ours)))
  }
}
