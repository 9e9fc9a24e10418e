/// A DNS message validated once on construction (RFC 1035 §4.1): the header,
/// at most one question, and every resource record's owner name and fixed
/// fields are checked, so the accessors below cannot fail and never allocate.
/// The view borrows `bytes`; it must not outlive them.
public struct Message {
  public let bytes: UnsafeRawBufferPointer
  /// Offset of the question's name; equal to `questionEnd` when QDCOUNT is 0.
  public let questionOffset: Int
  /// Offset just past the question's QCLASS.
  public let questionEnd: Int
  /// Uncompressed length of the question name, 0 when there is no question.
  public let questionNameLength: Int
  public let answerOffset: Int
  public let authorityOffset: Int
  public let additionalOffset: Int
  /// Offset just past the last record.
  public let end: Int
  /// The OPT pseudo-record, if any (RFC 6891 §6.1.2).
  public let opt: OPTRecord?

  /// Validates `bytes` as a complete message.
  /// - Parameter allowTrailingData: accept bytes after the last record; some
  ///   servers pad. Queries from clients are checked strictly.
  public init(validating bytes: UnsafeRawBufferPointer, allowTrailingData: Bool = false)
    throws(WireError)
  {
    guard bytes.count >= HeaderField.size else { throw .truncatedHeader }
    self.bytes = bytes
    let questions = Int(bytes.getUInt16(at: HeaderField.questionCount))
    guard questions <= 1 else { throw .unsupportedQuestionCount }
    var position = HeaderField.size
    questionOffset = position
    if questions == 1 {
      guard position < bytes.count else { throw .countExceedsData }
      let name = try Name.read(in: bytes, at: position, firstTarget: HeaderField.size)
      guard name.end + 4 <= bytes.count else { throw .truncatedQuestion }
      questionNameLength = name.length
      position = name.end + 4
    } else {
      questionNameLength = 0
    }
    questionEnd = position
    answerOffset = position
    var found: OPTRecord? = nil
    position = try Self.walk(
      bytes, from: position, count: Int(bytes.getUInt16(at: HeaderField.answerCount)),
      optAllowed: false, opt: &found)
    authorityOffset = position
    position = try Self.walk(
      bytes, from: position, count: Int(bytes.getUInt16(at: HeaderField.authorityCount)),
      optAllowed: false, opt: &found)
    additionalOffset = position
    position = try Self.walk(
      bytes, from: position, count: Int(bytes.getUInt16(at: HeaderField.additionalCount)),
      optAllowed: true, opt: &found)
    guard allowTrailingData || position == bytes.count else { throw .trailingData }
    end = position
    opt = found
  }

  private static func walk(
    _ bytes: UnsafeRawBufferPointer, from start: Int, count: Int, optAllowed: Bool,
    opt: inout OPTRecord?
  ) throws(WireError) -> Int {
    var position = start
    for _ in 0..<count {
      guard position < bytes.count else { throw .countExceedsData }
      let record = try ResourceRecord(in: bytes, at: position)
      if record.type == .opt {
        guard optAllowed, record.nameLength == 1 else { throw .misplacedOPT }
        guard opt == nil else { throw .duplicateOPT }
        opt = try OPTRecord(record: record, in: bytes)
      }
      try RDATANames.check(
        type: record.type, rrClass: record.rrClass,
        in: UnsafeRawBufferPointer(rebasing: bytes[0..<record.end]), at: record.rdataOffset,
        firstTarget: HeaderField.size)
      position = record.end
    }
    return position
  }

  public var id: UInt16 { bytes.getUInt16(at: HeaderField.id) }
  public var flags: HeaderFlags { HeaderFlags(rawValue: bytes.getUInt16(at: HeaderField.flags)) }
  public var questionCount: Int { Int(bytes.getUInt16(at: HeaderField.questionCount)) }
  public var answerCount: Int { Int(bytes.getUInt16(at: HeaderField.answerCount)) }
  public var authorityCount: Int { Int(bytes.getUInt16(at: HeaderField.authorityCount)) }
  public var additionalCount: Int { Int(bytes.getUInt16(at: HeaderField.additionalCount)) }
  public var hasQuestion: Bool { questionCount == 1 }

  /// QTYPE and QCLASS; meaningful only when `hasQuestion`.
  public var questionType: RRType { RRType(rawValue: bytes.getUInt16(at: questionEnd - 4)) }
  public var questionClass: RRClass { RRClass(rawValue: bytes.getUInt16(at: questionEnd - 2)) }

  /// The full response code, with the upper eight bits from OPT (RFC 6891 §6.1.3).
  public var rcode: ResponseCode {
    let low = flags.rcode.rawValue
    return ResponseCode(rawValue: UInt16(opt?.extendedRcode ?? 0) << 4 | low)
  }

  /// Copies the question name, uncompressed, into `output`.
  /// - Returns: its length.
  public func copyQuestionName(into output: UnsafeMutableRawBufferPointer, lowercase: Bool = false)
    -> Int
  {
    guard hasQuestion else { return 0 }
    // Validated on construction; only a too-small buffer can fail here.
    return
      (try? Name.read(
        in: bytes, at: questionOffset, into: output, lowercase: lowercase,
        firstTarget: HeaderField.size
      ).length)
      ?? 0
  }

  /// Iterates the records of every section in order, starting at the answers.
  public func records() -> RecordIterator {
    RecordIterator(bytes: bytes, position: answerOffset, end: end)
  }
}

/// Which section a record belongs to.
public enum Section: Equatable {
  case answer, authority, additional
}

/// A walk over already validated records; yields views that cannot fail.
public struct RecordIterator: IteratorProtocol {
  let bytes: UnsafeRawBufferPointer
  var position: Int
  let end: Int
  public mutating func next() -> ResourceRecord? {
    guard position < end, let record = try? ResourceRecord(in: bytes, at: position) else {
      return nil
    }
    position = record.end
    return record
  }
}

/// The names in the RDATA of the RFC 1035 types that may compress them
/// (NS, CNAME, PTR, MX, SOA; RFC 3597 §4; the obsolete MB, MD, MF, MG,
/// MINFO and MR aside): read like owner names — no loop, no forward
/// pointer, no pointer below `firstTarget` — and, with their fixed fields,
/// filling the RDATA exactly (RFC 1035 §3.3.9, §3.3.11–3.3.13). Other
/// types' RDATA is opaque here.
public enum RDATANames {
  /// Checks the RDATA from `offset` to the end of `message` (the caller
  /// cuts the message there, so a name running past it is
  /// `truncatedName`). Records of class ANY or NONE are not checked: in an
  /// UPDATE their RDATA is empty (RFC 2136 §2.5). A `firstTarget` of at
  /// least `message.count` refuses every pointer (RDATA on its own, as in
  /// the generic text form of RFC 3597 §5).
  public static func check(
    type: RRType, rrClass: RRClass, in message: UnsafeRawBufferPointer, at offset: Int,
    firstTarget: Int
  ) throws(WireError) {
    let names: Int
    let before: Int
    let after: Int
    switch type {
    case .ns, .cname, .ptr: (names, before, after) = (1, 0, 0)
    case .mx: (names, before, after) = (1, 2, 0)
    case .soa: (names, before, after) = (2, 0, 20)
    default: return
    }
    guard rrClass != .anyClass, rrClass != .noneClass else { return }
    var position = offset + before
    for _ in 0..<names {
      position = try Name.read(in: message, at: position, firstTarget: firstTarget).end
    }
    guard position + after == message.count else { throw .rdataLengthMismatch }
  }
}

/// One resource record (RFC 1035 §4.1.3):
///
///     NAME (variable) | TYPE (2) | CLASS (2) | TTL (4) | RDLENGTH (2) | RDATA
public struct ResourceRecord {
  public let offset: Int
  /// Uncompressed length of the owner name.
  public let nameLength: Int
  /// Offset of TYPE, just past the owner name as written.
  public let fixedOffset: Int
  public let type: RRType
  public let rrClass: RRClass
  public let ttl: UInt32
  public let rdataOffset: Int
  public let rdataLength: Int
  public var end: Int { rdataOffset + rdataLength }
  /// Offset of the TTL field, for rewriting it in place.
  public var ttlOffset: Int { fixedOffset + 4 }

  public init(in bytes: UnsafeRawBufferPointer, at offset: Int) throws(WireError) {
    let name = try Name.read(in: bytes, at: offset, firstTarget: HeaderField.size)
    guard name.end + 10 <= bytes.count else { throw .truncatedRecord }
    self.offset = offset
    nameLength = name.length
    fixedOffset = name.end
    type = RRType(rawValue: bytes.getUInt16(at: name.end))
    rrClass = RRClass(rawValue: bytes.getUInt16(at: name.end + 2))
    ttl = bytes.getUInt32(at: name.end + 4)
    rdataLength = Int(bytes.getUInt16(at: name.end + 8))
    rdataOffset = name.end + 10
    guard rdataOffset + rdataLength <= bytes.count else {
      throw type == .opt ? .truncatedOPT : .rdataPastEnd
    }
  }
}

/// The EDNS(0) OPT pseudo-record (RFC 6891 §6.1.2–6.1.3):
///
///     NAME = root | TYPE = 41 | CLASS = requestor's UDP payload size
///     TTL = EXTENDED-RCODE (8) | VERSION (8) | DO (1) | Z (15)
///     RDATA = { OPTION-CODE (2) | OPTION-LENGTH (2) | OPTION-DATA }*
public struct OPTRecord: Equatable {
  public let offset: Int
  public let end: Int
  public let udpPayloadSize: UInt16
  public let extendedRcode: UInt8
  public let version: UInt8
  public let dnssecOK: Bool
  public let rdataOffset: Int
  public let rdataLength: Int

  public static let dnssecOKBit: UInt32 = 0x8000

  init(record: ResourceRecord, in bytes: UnsafeRawBufferPointer) throws(WireError) {
    offset = record.offset
    end = record.end
    udpPayloadSize = record.rrClass.rawValue
    extendedRcode = UInt8(truncatingIfNeeded: record.ttl >> 24)
    version = UInt8(truncatingIfNeeded: record.ttl >> 16)
    dnssecOK = record.ttl & Self.dnssecOKBit != 0
    rdataOffset = record.rdataOffset
    rdataLength = record.rdataLength
    var position = record.rdataOffset
    while position < record.end {
      guard position + 4 <= record.end else { throw .truncatedOPT }
      let optionLength = Int(bytes.getUInt16(at: position + 2))
      guard position + 4 + optionLength <= record.end else { throw .truncatedOPT }
      position += 4 + optionLength
    }
  }
}
