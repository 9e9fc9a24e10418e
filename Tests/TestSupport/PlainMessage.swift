// A DNS message taken apart into plain records (every name decompressed)
// and written back without compression: how the tests read replies (see
// Reply) and what the DNSSEC tampering relay edits. Independent of DNSWire,
// so that it checks the code under test rather than repeating it.
// Decompressing the names inside RDATA (RFC 3597 §4: only the RFC 1035
// types NS, CNAME, SOA, PTR, MX may carry pointers there) lets a record be
// removed or replaced without leaving a pointer to bytes that are gone.

/// One resource record; `owner` is a flat wire name, RDATA has no pointers.
public struct PlainRecord: Equatable {
  public var owner: [UInt8]
  public var type: UInt16
  public var rrClass: UInt16
  public var ttl: UInt32
  public var rdata: [UInt8]

  public init(owner: [UInt8], type: UInt16, rrClass: UInt16, ttl: UInt32, rdata: [UInt8]) {
    self.owner = owner
    self.type = type
    self.rrClass = rrClass
    self.ttl = ttl
    self.rdata = rdata
  }

  public static let a: UInt16 = 1
  public static let ns: UInt16 = 2
  public static let cname: UInt16 = 5
  public static let soa: UInt16 = 6
  public static let ptr: UInt16 = 12
  public static let mx: UInt16 = 15
  public static let txt: UInt16 = 16
  public static let aaaa: UInt16 = 28
  public static let opt: UInt16 = 41
  public static let ds: UInt16 = 43
  public static let rrsig: UInt16 = 46
  public static let nsec: UInt16 = 47
  public static let dnskey: UInt16 = 48
  public static let nsec3: UInt16 = 50

  /// The type an RRSIG covers (RFC 4034 §3.1: its first two octets).
  public var typeCovered: UInt16? {
    guard type == Self.rrsig, rdata.count >= 2 else { return nil }
    return UInt16(rdata[0]) << 8 | UInt16(rdata[1])
  }
}

/// A whole message: header, question and the three record sections (the
/// OPT record stays in `additional`).
public struct PlainMessage {
  public var id: UInt16
  public var flags: UInt16
  public var question: [UInt8]  // name, type and class, as sent
  public var answer: [PlainRecord]
  public var authority: [PlainRecord]
  public var additional: [PlainRecord]

  public var questionName: [UInt8] { Array(question.dropLast(4)) }
  public var questionType: UInt16 {
    UInt16(question[question.count - 4]) << 8 | UInt16(question[question.count - 3])
  }
  public var rcode: Int { Int(flags & 0x000F) }

  /// nil for anything that is not one well-formed message with one question.
  public init?(_ bytes: [UInt8]) {
    guard bytes.count >= 12 else { return nil }
    func count(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    id = UInt16(count(0))
    flags = UInt16(count(2))
    guard count(4) == 1 else { return nil }
    var position = 12
    guard let (name, afterName) = Self.readName(bytes, at: position), afterName + 4 <= bytes.count
    else { return nil }
    question = name + bytes[afterName..<(afterName + 4)]
    position = afterName + 4
    var sections: [[PlainRecord]] = []
    for sectionCount in [count(6), count(8), count(10)] {
      var records: [PlainRecord] = []
      for _ in 0..<sectionCount {
        guard let (record, next) = Self.readRecord(bytes, at: position) else { return nil }
        records.append(record)
        position = next
      }
      sections.append(records)
    }
    guard position == bytes.count else { return nil }
    answer = sections[0]
    authority = sections[1]
    additional = sections[2]
  }

  /// The message's wire form, uncompressed.
  public var bytes: [UInt8] {
    var out: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF)]
    for count in [1, answer.count, authority.count, additional.count] {
      out += [UInt8(count >> 8), UInt8(count & 0xFF)]
    }
    out += question
    for record in answer + authority + additional {
      out += record.owner
      out += [UInt8(record.type >> 8), UInt8(record.type & 0xFF)]
      out += [UInt8(record.rrClass >> 8), UInt8(record.rrClass & 0xFF)]
      out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: record.ttl >> $0) }
      out += [UInt8(record.rdata.count >> 8), UInt8(record.rdata.count & 0xFF)]
      out += record.rdata
    }
    return out
  }

  /// A name at `start`, pointers followed (RFC 1035 §4.1.4), and the
  /// offset after its encoding in place. Each pointer must go backwards,
  /// so a loop is impossible.
  public static func readName(_ bytes: [UInt8], at start: Int) -> ([UInt8], Int)? {
    var name: [UInt8] = []
    var position = start
    var end: Int? = nil
    while true {
      guard position < bytes.count else { return nil }
      let length = Int(bytes[position])
      if length & 0xC0 == 0xC0 {
        guard position + 1 < bytes.count else { return nil }
        let target = (length & 0x3F) << 8 | Int(bytes[position + 1])
        guard target < position else { return nil }
        if end == nil { end = position + 2 }
        position = target
      } else if length == 0 {
        name.append(0)
        guard name.count <= 255 else { return nil }
        return (name, end ?? position + 1)
      } else {
        guard length <= 63, position + 1 + length <= bytes.count else { return nil }
        name += bytes[position..<(position + 1 + length)]
        guard name.count <= 255 else { return nil }
        position += 1 + length
      }
    }
  }

  private static func readRecord(_ bytes: [UInt8], at start: Int) -> (PlainRecord, Int)? {
    guard let (owner, fixed) = readName(bytes, at: start), fixed + 10 <= bytes.count else {
      return nil
    }
    func field(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    let type = UInt16(field(fixed))
    let rrClass = UInt16(field(fixed + 2))
    let ttl = UInt32(field(fixed + 4)) << 16 | UInt32(field(fixed + 6))
    let rdataStart = fixed + 10
    let rdataEnd = rdataStart + field(fixed + 8)
    guard rdataEnd <= bytes.count else { return nil }
    guard let rdata = plainRDATA(bytes, type: type, from: rdataStart, to: rdataEnd) else {
      return nil
    }
    return (
      PlainRecord(owner: owner, type: type, rrClass: rrClass, ttl: ttl, rdata: rdata), rdataEnd
    )
  }

  /// RDATA with its names decompressed, for the types that may compress them.
  private static func plainRDATA(_ bytes: [UInt8], type: UInt16, from start: Int, to end: Int)
    -> [UInt8]?
  {
    // Leading fixed octets, then the number of names, then fixed octets.
    let layout: (prefix: Int, names: Int)
    switch type {
    case PlainRecord.ns, PlainRecord.cname, PlainRecord.ptr: layout = (0, 1)
    case PlainRecord.soa: layout = (0, 2)
    case PlainRecord.mx: layout = (2, 1)
    default: return Array(bytes[start..<end])
    }
    guard start + layout.prefix <= end else { return nil }
    var out = Array(bytes[start..<(start + layout.prefix)])
    var position = start + layout.prefix
    for _ in 0..<layout.names {
      guard let (name, next) = readName(bytes, at: position), next <= end else { return nil }
      out += name
      position = next
    }
    out += bytes[position..<end]
    return out
  }
}

/// A flat wire name lower-cased, for comparisons (RFC 4343).
public func lowercasedName(_ name: [UInt8]) -> [UInt8] {
  var out = name
  var position = 0
  while position < out.count, out[position] != 0 {
    let length = Int(out[position])
    for index in (position + 1)..<min(position + 1 + length, out.count)
    where out[index] >= 0x41 && out[index] <= 0x5A {
      out[index] += 0x20
    }
    position += 1 + length
  }
  return out
}

/// Whether `name` is `suffix` or below it, ignoring case (flat wire names).
public func isName(_ name: [UInt8], atOrBelow suffix: [UInt8]) -> Bool {
  let name = lowercasedName(name)
  let suffix = lowercasedName(suffix)
  var position = 0
  while position < name.count {
    if Array(name[position...]) == suffix { return true }
    guard name[position] != 0 else { return false }
    position += 1 + Int(name[position])
  }
  return false
}
