/// Just enough DNS (RFC 1035, RFC 6891) for the bench's two servers: read a
/// query, write an answer. Self-contained so that the bench does not depend
/// on the code it is testing.
struct DNSQuery {
  enum RecordType {
    static let a: UInt16 = 1
    static let soa: UInt16 = 6
    static let aaaa: UInt16 = 28
    static let opt: UInt16 = 41
  }

  static let classIN: UInt16 = 1

  let id: UInt16
  let recursionDesired: Bool
  /// The question exactly as sent (name, type, class): echoed byte for
  /// byte, so the 0x20 letter case of the asker is kept.
  let questionBytes: [UInt8]
  /// The name, lower-cased, without the final dot (`www.example`).
  let name: String
  let type: UInt16
  let questionClass: UInt16
  /// Whether the asker sent an EDNS(0) OPT record, and its DO bit.
  let hasOPT: Bool
  let dnssecOK: Bool

  /// Parses a query; nil for anything else (responses, several questions,
  /// compressed question names, truncated bytes).
  init?(_ bytes: [UInt8]) {
    guard bytes.count >= 12, bytes[2] & 0x80 == 0 else { return nil }
    let questions = Self.word(bytes, 4)
    let otherRecords = Int(Self.word(bytes, 6)) + Int(Self.word(bytes, 8))
    let additional = Int(Self.word(bytes, 10))
    guard questions == 1, otherRecords == 0 else { return nil }
    id = Self.word(bytes, 0)
    recursionDesired = bytes[2] & 0x01 != 0
    var offset = 12
    var labels: [String] = []
    while true {
      guard offset < bytes.count else { return nil }
      let length = Int(bytes[offset])
      offset += 1
      if length == 0 { break }
      guard length < 64, offset + length <= bytes.count else { return nil }
      labels.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self).lowercased())
      offset += length
    }
    guard offset + 4 <= bytes.count else { return nil }
    name = labels.joined(separator: ".")
    type = Self.word(bytes, offset)
    questionClass = Self.word(bytes, offset + 2)
    offset += 4
    questionBytes = Array(bytes[12..<offset])
    var foundOPT = false
    var foundDO = false
    for _ in 0..<additional {
      // Additional records of a query: the OPT (root owner) and maybe a TSIG.
      guard offset + 11 <= bytes.count, bytes[offset] == 0 else { break }
      let recordType = Self.word(bytes, offset + 1)
      let dataLength = Int(Self.word(bytes, offset + 9))
      if recordType == RecordType.opt {
        foundOPT = true
        foundDO = bytes[offset + 7] & 0x80 != 0
      }
      offset += 11 + dataLength
    }
    hasOPT = foundOPT
    dnssecOK = foundDO
  }

  static func word(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
  }
}

/// Writes a recursive resolver's answer to a `DNSQuery`.
struct DNSAnswer {
  enum ResponseCode: UInt8 {
    case noError = 0
    case serverFailure = 2
    case nameError = 3
  }

  var responseCode: ResponseCode = .noError
  /// Answer records for the question's name: (type, data).
  var records: [(type: UInt16, data: [UInt8])] = []
  var ttl: UInt32 = 300
  /// Whether an OPT record answers the query's own (RFC 6891 §7: only
  /// when the query had one). A forger leaves it out.
  var includeOPT = true

  /// An A record's data from dotted text.
  static func ipv4(_ text: String) -> [UInt8] {
    text.split(separator: ".").map { UInt8($0)! }
  }

  /// The answer's bytes: the header with QR and RA set, the question
  /// echoed, the records (owner compressed to the question), an SOA in the
  /// authority section when there are no records (RFC 2308 §3), and the OPT.
  func bytes(answering query: DNSQuery) -> [UInt8] {
    let withOPT = includeOPT && query.hasOPT
    let withSOA = records.isEmpty
    var message: [UInt8] = []
    append16(&message, query.id)
    message.append(0x80 | (query.recursionDesired ? 0x01 : 0x00))  // QR, opcode 0, RD echoed
    message.append(0x80 | responseCode.rawValue)  // RA, Z=0, RCODE
    append16(&message, 1)  // QDCOUNT
    append16(&message, UInt16(records.count))  // ANCOUNT
    append16(&message, withSOA ? 1 : 0)  // NSCOUNT
    append16(&message, withOPT ? 1 : 0)  // ARCOUNT
    message += query.questionBytes
    for record in records {
      message += [0xC0, 12]  // owner: pointer to the question name
      append16(&message, record.type)
      append16(&message, DNSQuery.classIN)
      append32(&message, ttl)
      append16(&message, UInt16(record.data.count))
      message += record.data
    }
    if withSOA {
      // The root's SOA: an ancestor of every name, negative TTL 60.
      message.append(0)
      append16(&message, DNSQuery.RecordType.soa)
      append16(&message, DNSQuery.classIN)
      append32(&message, 60)
      let mname: [UInt8] = [2] + Array("ns".utf8) + [7] + Array("invalid".utf8) + [0]
      let rname: [UInt8] = [10] + Array("hostmaster".utf8) + [7] + Array("invalid".utf8) + [0]
      append16(&message, UInt16(mname.count + rname.count + 20))
      message += mname + rname
      for value: UInt32 in [2_024_010_101, 1800, 900, 604_800, 60] { append32(&message, value) }
    }
    if withOPT {
      // Root owner, TYPE 41, CLASS = UDP size 1232, TTL = ext-rcode 0,
      // version 0, DO echoed; no options.
      message.append(0)
      append16(&message, DNSQuery.RecordType.opt)
      append16(&message, 1232)
      append32(&message, query.dnssecOK ? 0x8000 : 0)
      append16(&message, 0)
    }
    return message
  }

  private func append16(_ message: inout [UInt8], _ value: UInt16) {
    message += [UInt8(value >> 8), UInt8(value & 0xFF)]
  }

  private func append32(_ message: inout [UInt8], _ value: UInt32) {
    message += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF)]
    message.append(UInt8(value & 0xFF))
  }
}
