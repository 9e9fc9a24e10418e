import DNSWire

/// The three API bodies, each read into the answer.
extension AnswerBuilder {
  /// Alibaba: `{"host":"www.example.com","ips":["192.0.2.1"],"ipsv6":[],
  /// "ttl":60,...}`. The addresses of the question's family come from `ips`
  /// (A) or `ipsv6` (AAAA); a missing, null or empty list is NODATA.
  mutating func alibaba(_ body: BodyCursor) throws(HTTPDNSError) {
    let wanted = query.questionType == .aaaa ? JSONKey.ipsv6 : JSONKey.ips
    let (found, number) = try Self.object(body, list: wanted, number: JSONKey.ttl)
    let ttl = number.map(Self.clamped) ?? HTTPDNSCodec.alibabaDefaultTTL
    guard var list = found else { return }
    var first = true
    while try list.nextElement(&first) {
      var text = try TextSource(string: list)
      let (length, _) = try PresentationText.token(&text, into: scratch.token)
      guard try PresentationText.atEnd(&text), try address(scratch.tokenText(length), ttl: ttl)
      else { throw .malformedBody }
      list = text.reader
    }
  }

  /// dnspod: `192.0.2.1;192.0.2.2,600` — addresses separated by `;`, then
  /// the TTL after a `,` when the request asked for it (`ttl=1`). Addresses
  /// of the other family are left out; an empty body is NODATA.
  mutating func dnspod(_ body: BodyCursor) throws(HTTPDNSError) {
    // The TTL comes last, the records need it first: read it, then the list.
    var ttl = HTTPDNSCodec.dnspodDefaultTTL
    var scan = TextSource(body: body)
    while let byte = try scan.nextByte() {
      guard byte == UInt8(ascii: ",") else { continue }
      let (length, terminator) = try PresentationText.token(
        &scan, into: scratch.token, listItem: true)
      guard terminator == nil,
        let value = PresentationText.decimal(scratch.tokenText(length), maximum: UInt32.max)
      else { throw .malformedBody }
      ttl = Self.clamped(value)
    }
    var items = TextSource(body: body)
    var seen = 0
    while true {
      let (length, terminator) = try PresentationText.token(
        &items, into: scratch.token, listItem: true)
      if length == 0 {
        // Only an empty body (or nothing before the TTL) may have an empty item.
        guard seen == 0, terminator != UInt8(ascii: ";") else { throw .malformedBody }
        return
      }
      seen += 1
      _ = try address(scratch.tokenText(length), ttl: ttl)
      guard terminator == UInt8(ascii: ";") else { return }
    }
  }

  /// The JSON resolve API (Google, Cloudflare, AliDNS, DNSPod):
  /// `{"Status":0,"Answer":[{"name":"a.example.","type":5,"TTL":60,
  /// "data":"b.example."},...],...}` → rcode `Status` and the `Answer`
  /// records in order. `Authority` and `Additional` are left out.
  mutating func json(_ body: BodyCursor) throws(HTTPDNSError) -> UInt32 {
    let (found, status) = try Self.object(body, list: JSONKey.answer, number: JSONKey.status)
    guard let status, status <= 0xFFF else { throw .malformedBody }
    guard var list = found else { return status }
    var first = true
    while try list.nextElement(&first) {
      // Keys may come in any order: note where name and data are, then write.
      var name: JSONReader? = nil
      var data: JSONReader? = nil
      var type: UInt32? = nil
      var ttl: UInt32 = 0
      var firstKey = true
      try list.beginObject()
      while let key = try list.nextKey(&firstKey) {
        switch key {
        case JSONKey.name, JSONKey.data:
          if key == JSONKey.name { name = list } else { data = list }
          guard list.peekNonSpace() == UInt8(ascii: "\"") else { throw .malformedBody }
          try list.skipString()
        case JSONKey.type:
          guard let value = try list.readNumber(), value <= 0xFFFF else { throw .malformedBody }
          type = value
        case JSONKey.upperTTL:
          ttl = try Self.ttl(&list)
        default:
          try list.skipValue()
        }
      }
      guard let name, let data, let type else { throw .malformedBody }
      try record(name: name, type: RRType(rawValue: UInt16(type)), ttl: ttl, data: data)
    }
    return status
  }

  /// Reads the top-level object, noting the array under `listKey` (nil when
  /// missing or null; the reader is then inside it) and the integer under
  /// `numberKey`; other members are checked and skipped.
  @inline(never)
  private static func object(_ body: BodyCursor, list listKey: UInt64, number numberKey: UInt64)
    throws(HTTPDNSError) -> (list: JSONReader?, number: UInt32?)
  {
    var reader = JSONReader(body: body)
    var list: JSONReader? = nil
    var number: UInt32? = nil
    var first = true
    try reader.beginObject()
    while let key = try reader.nextKey(&first) {
      if key == numberKey {
        guard let value = try reader.readNumber() else { throw .malformedBody }
        number = value
      } else {
        if key == listKey { list = reader }
        try reader.skipValue()
      }
    }
    try reader.finish()
    guard var found = list, !(try found.skipNull()) else { return (nil, number) }
    try found.beginArray()
    return (found, number)
  }

  /// A TTL field: an integer; above 2^31 - 1 it counts as 0 (RFC 2181 §8).
  private static func ttl(_ reader: inout JSONReader) throws(HTTPDNSError) -> UInt32 {
    guard let value = try reader.readNumber() else { throw .malformedBody }
    return clamped(value)
  }

  private static func clamped(_ ttl: UInt32) -> UInt32 { ttl > 0x7FFF_FFFF ? 0 : ttl }
}
