/// What a test wants to know about a reply, read with `PlainMessage`
/// (the header fields from the bytes themselves, so that they can be read
/// even from a reply that does not parse).
public struct Reply {
  public let bytes: [UInt8]
  /// The reply taken apart; nil when it is not one well-formed message
  /// with one question.
  public let message: PlainMessage?

  public var id: UInt16 { UInt16(bytes[0]) << 8 | UInt16(bytes[1]) }
  public var flags: UInt16 { UInt16(bytes[2]) << 8 | UInt16(bytes[3]) }
  public var rcode: Int { Int(bytes[3] & 0x0F) }
  public var truncated: Bool { bytes[2] & 0x02 != 0 }
  public var authenticData: Bool { bytes[3] & 0x20 != 0 }
  public var answerCount: Int { Int(bytes[6]) << 8 | Int(bytes[7]) }

  /// Nil for nothing, or for fewer bytes than a header.
  public init?(_ bytes: [UInt8]?) {
    guard let bytes, bytes.count >= 12 else { return nil }
    self.bytes = bytes
    message = PlainMessage(bytes)
  }

  /// Every record of every section, in order (none when it does not parse).
  public var records: [PlainRecord] {
    guard let message else { return [] }
    return message.answer + message.authority + message.additional
  }

  /// A and AAAA records' addresses: dotted quads, and eight hexadecimal
  /// groups without zero compression.
  public var addresses: [String] {
    records.compactMap { record in
      if record.type == PlainRecord.a && record.rdata.count == 4 {
        return record.rdata.map { String($0) }.joined(separator: ".")
      }
      guard record.type == PlainRecord.aaaa && record.rdata.count == 16 else { return nil }
      return stride(from: 0, to: 16, by: 2).map {
        String(UInt16(record.rdata[$0]) << 8 | UInt16(record.rdata[$0 + 1]), radix: 16)
      }.joined(separator: ":")
    }
  }

  /// TXT records' first character-strings, as UTF-8.
  public var texts: [String] {
    records.compactMap { record in
      guard record.type == PlainRecord.txt, let length = record.rdata.first.map(Int.init),
        length < record.rdata.count
      else { return nil }
      return String(decoding: record.rdata[1..<(1 + length)], as: UTF8.self)
    }
  }

  /// The TTL of the first record, if any.
  public var firstTTL: UInt32? { records.first?.ttl }
}
