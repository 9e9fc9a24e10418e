import DNSWire

// libFuzzer target: DNSWire's parser and writer on arbitrary bytes (built and
// run by .ci/fuzz.sh; not a SwiftPM target).
//
// Every input must either validate or throw a `WireError`; nothing may trap.
// A message that validates is written again through `MessageWriter`, with
// and without compression, and must parse back to the same header, question
// and records (owner names and the names in NS, CNAME, PTR, MX and SOA
// RDATA decompressed, byte for byte; a written message keeps those flat). A name read at
// any offset ends inside the message; the presentation-text parser and
// formatter round-trip; EDNS padding keeps a query valid. A broken
// invariant traps, which libFuzzer reports as a crash with the input.

/// The owner name of `record` (or the question's name at `offset`), flat,
/// case kept.
func flatName(_ raw: UnsafeRawBufferPointer, at offset: Int) -> [UInt8] {
  var name = [UInt8](repeating: 0, count: Name.maxLength)
  let length = name.withUnsafeMutableBytes { out -> Int in
    do throws(WireError) {
      return try Name.read(in: raw, at: offset, into: out).length
    } catch {
      fatalError("a validated message has a name that does not read")
    }
  }
  return Array(name[0..<length])
}

/// RDATA with the names of the types that may compress them (NS, CNAME,
/// PTR, MX, SOA; RFC 3597 §4) written flat, the rest as it is: a pointer in
/// RDATA copied into another layout would point elsewhere. The validator
/// has read those names, so they must read here too.
func flatRDATA(_ raw: UnsafeRawBufferPointer, _ record: ResourceRecord) -> [UInt8] {
  let names: Int
  let before: Int
  switch record.type.rawValue {
  case 2, 5, 12: (names, before) = (1, 0)
  case 15: (names, before) = (1, 2)
  case 6: (names, before) = (2, 0)
  default: return Array(raw[record.rdataOffset..<record.end])
  }
  // Class NONE and ANY (an UPDATE's empty RDATA) are not read.
  if record.rrClass.rawValue == 254 || record.rrClass.rawValue == 255 {
    return Array(raw[record.rdataOffset..<record.end])
  }
  require(record.rdataLength >= before, "validated RDATA shorter than its fixed fields")
  var out = Array(raw[record.rdataOffset..<(record.rdataOffset + before)])
  var position = record.rdataOffset + before
  for _ in 0..<names {
    out += flatName(raw, at: position)
    guard let read = try? Name.read(in: raw, at: position), read.end <= record.end else {
      fatalError("a validated RDATA name runs past its RDATA")
    }
    position = read.end
  }
  out += Array(raw[position..<record.end])
  return out
}

/// A record as plain values, to compare two messages.
struct Record: Equatable {
  var owner: [UInt8]
  var type: UInt16
  var rrClass: UInt16
  var ttl: UInt32
  var rdata: [UInt8]
}

/// A validated message as plain values.
struct Summary: Equatable {
  var id: UInt16
  var flags: UInt16
  var counts: [Int]
  var question: [UInt8]
  var questionType: UInt16
  var questionClass: UInt16
  var records: [Record]
  var opt: OPTRecord?

  init(_ raw: UnsafeRawBufferPointer, _ message: Message) {
    id = message.id
    flags = message.flags.rawValue
    counts = [
      message.questionCount, message.answerCount, message.authorityCount,
      message.additionalCount,
    ]
    question = message.hasQuestion ? flatName(raw, at: message.questionOffset) : []
    questionType = message.hasQuestion ? message.questionType.rawValue : 0
    questionClass = message.hasQuestion ? message.questionClass.rawValue : 0
    records = []
    var iterator = message.records()
    while let record = iterator.next() {
      records.append(
        Record(
          owner: flatName(raw, at: record.offset), type: record.type.rawValue,
          rrClass: record.rrClass.rawValue, ttl: record.ttl,
          rdata: flatRDATA(raw, record)))
    }
    opt = message.opt
  }

  /// Equal as messages: OPT offsets differ between encodings, its fields
  /// not. `ignoringCase`: owner names compared without regard to case (the
  /// writer compresses a name into an earlier one that differs only in
  /// case, as RFC 4343 §4.1 permits: dnsward's answers point at the
  /// client's question so that it keeps its 0x20 case).
  func sameMessage(as other: Summary, ignoringCase: Bool) -> Bool {
    let sameRecords =
      ignoringCase
      ? records.count == other.records.count
        && zip(records, other.records).allSatisfy { mine, theirs in
          var mine = mine
          var theirs = theirs
          mine.owner = mine.owner.map(Name.asciiLowercased)
          theirs.owner = theirs.owner.map(Name.asciiLowercased)
          return mine == theirs
        }
      : records == other.records
    return id == other.id && flags == other.flags && counts == other.counts
      && question == other.question && questionType == other.questionType
      && questionClass == other.questionClass && sameRecords
      && opt?.udpPayloadSize == other.opt?.udpPayloadSize
      && opt?.extendedRcode == other.opt?.extendedRcode && opt?.version == other.opt?.version
      && opt?.dnssecOK == other.opt?.dnssecOK && opt?.rdataLength == other.opt?.rdataLength
  }
}

/// Checks the offsets of a validated message and that each record stays in it.
func checkLayout(_ raw: UnsafeRawBufferPointer, _ message: Message) {
  require(
    HeaderField.size <= message.questionOffset && message.questionOffset <= message.questionEnd
      && message.questionEnd <= message.answerOffset
      && message.answerOffset <= message.authorityOffset
      && message.authorityOffset <= message.additionalOffset
      && message.additionalOffset <= message.end && message.end <= raw.count,
    "section offsets out of order")
  if message.hasQuestion {
    require(
      message.questionNameLength >= 1 && message.questionNameLength <= Name.maxLength,
      "question name length out of range")
  }
  var records = message.records()
  var seen = 0
  var opts = 0
  while let record = records.next() {
    seen += 1
    require(record.offset >= message.answerOffset, "record before the answer section")
    require(record.offset < record.fixedOffset, "record name ends before it starts")
    require(record.fixedOffset + 10 == record.rdataOffset, "fixed fields are not 10 octets")
    require(record.end <= message.end, "record past the message end")
    require(record.nameLength >= 1 && record.nameLength <= Name.maxLength, "owner too long")
    if record.type == .opt { opts += 1 }
  }
  require(
    seen == message.answerCount + message.authorityCount + message.additionalCount,
    "record count differs from the header")
  require(opts <= 1 && (opts == 1) == (message.opt != nil), "OPT count")
  if let opt = message.opt {
    require(opt.rdataOffset + opt.rdataLength == opt.end, "OPT RDATA length")
    require(opt.offset >= message.additionalOffset && opt.end <= message.end, "OPT outside")
  }
}

/// Writes `summary` again; nil when it does not fit 65,535 octets
/// (decompressed names can make a valid message larger).
func rewrite(_ summary: Summary, compress: Bool) -> [UInt8]? {
  // Room for every name written flat (header, fixed fields and RDATA are
  // no larger than in the input), capped at the largest message.
  var size = HeaderField.size + summary.question.count + 4
  for record in summary.records { size += record.owner.count + 10 + record.rdata.count }
  var buffer = [UInt8](repeating: 0, count: min(size, 65_535))
  let count = buffer.withUnsafeMutableBytes { out -> Int? in
    var writer = MessageWriter(buffer: out)
    do {
      try writer.writeHeader(
        id: summary.id, flags: HeaderFlags(rawValue: summary.flags),
        questions: UInt16(summary.counts[0]), answers: UInt16(summary.counts[1]),
        authorities: UInt16(summary.counts[2]), additionals: UInt16(summary.counts[3]))
      if summary.counts[0] == 1 {
        try summary.question.withUnsafeBytes { name in
          try writer.writeQuestion(
            name: name, type: RRType(rawValue: summary.questionType),
            rrClass: RRClass(rawValue: summary.questionClass), compress: compress)
        }
      }
      for record in summary.records {
        try writeRecord(record, &writer, compress: compress)
      }
    } catch {
      require(
        error as? WireError == .bufferFull && size > 65_535,
        "the writer failed on a message that fits")
      return nil
    }
    return writer.count
  }
  return count.map { Array(buffer[0..<$0]) }
}

/// (Untyped throws: the closures of `withUnsafeBytes` rethrow `any Error`;
/// this is host-only test code.)
func writeRecord(_ record: Record, _ writer: inout MessageWriter, compress: Bool) throws {
  if compress {
    try record.owner.withUnsafeBytes { owner in
      try record.rdata.withUnsafeBytes { rdata in
        try writer.writeRecord(
          name: owner, type: RRType(rawValue: record.type),
          rrClass: RRClass(rawValue: record.rrClass), ttl: record.ttl, rdata: rdata)
      }
    }
    return
  }
  try record.owner.withUnsafeBytes { owner in
    try writer.writeName(owner, compress: false)
  }
  try writer.writeUInt16(record.type)
  try writer.writeUInt16(record.rrClass)
  try writer.writeUInt32(record.ttl)
  try writer.writeUInt16(UInt16(record.rdata.count))
  try record.rdata.withUnsafeBytes { rdata in try writer.write(rdata) }
}

/// Re-parses written bytes and compares them with the original.
func checkRoundTrip(_ written: [UInt8], _ original: Summary, compressed: Bool) {
  written.withUnsafeBytes { raw in
    let message: Message
    do throws(WireError) {
      message = try Message(validating: raw)
    } catch {
      fatalError("a rewritten message does not validate")
    }
    checkLayout(raw, message)
    require(
      Summary(raw, message).sameMessage(as: original, ignoringCase: compressed),
      "round trip changed the message")
  }
}

/// Name.read from every offset: it ends inside the message, and reading
/// into a buffer (lower-cased or not) agrees with reading without one.
func checkNamesEverywhere(_ raw: UnsafeRawBufferPointer) {
  var output = [UInt8](repeating: 0, count: Name.maxLength)
  var lower = [UInt8](repeating: 0, count: Name.maxLength)
  var text = [UInt8](repeating: 0, count: 4 * Name.maxLength + 1)
  for offset in 0..<raw.count {
    let bare = try? Name.read(in: raw, at: offset)
    let copied = output.withUnsafeMutableBytes { try? Name.read(in: raw, at: offset, into: $0) }
    let lowered = lower.withUnsafeMutableBytes {
      try? Name.read(in: raw, at: offset, into: $0, lowercase: true)
    }
    require(
      bare?.end == copied?.end && bare?.length == copied?.length
        && bare?.end == lowered?.end && bare?.length == lowered?.length,
      "Name.read differs with an output buffer")
    guard let bare else { continue }
    require(bare.end > offset && bare.end <= raw.count, "a name ends outside the message")
    require(bare.length >= 1 && bare.length <= Name.maxLength, "a name's length is out of range")
    output.withUnsafeBytes { a in
      lower.withUnsafeBytes { b in
        let name = UnsafeRawBufferPointer(rebasing: a[0..<bare.length])
        let lowered = UnsafeRawBufferPointer(rebasing: b[0..<bare.length])
        require(Name.equalIgnoringCase(name, lowered), "lower-casing changed a name")
        require(
          Name.hashIgnoringCase(name, key: HashKey(k0: 1, k1: 2))
            == Name.hashIgnoringCase(lowered, key: HashKey(k0: 1, k1: 2)),
          "names equal ignoring case hash differently")
        require(Name.labelCount(name) <= 127, "more than 127 labels")
        _ = text.withUnsafeMutableBytes { Name.format(name, into: $0) }
      }
    }
  }
}

/// The input as presentation text: rejected, or a flat name that reads back
/// and formats to text that parses to the same name.
func checkPresentation(_ raw: UnsafeRawBufferPointer) {
  var flat = [UInt8](repeating: 0, count: Name.maxLength)
  guard
    let length = flat.withUnsafeMutableBytes({
      try? Name.parse(text: raw, into: $0, allowWildcard: true)
    })
  else { return }
  flat.withUnsafeBytes { flat in
    let name = UnsafeRawBufferPointer(rebasing: flat[0..<length])
    let read = try? Name.read(in: name, at: 0)
    require(read?.end == length && read?.length == length, "a parsed name does not read back")
    var text = [UInt8](repeating: 0, count: 4 * Name.maxLength + 1)
    let textLength = text.withUnsafeMutableBytes { Name.format(name, into: $0) }
    var again = [UInt8](repeating: 0, count: Name.maxLength)
    let againLength = text.withUnsafeBytes { text in
      again.withUnsafeMutableBytes { out in
        try? Name.parse(
          text: UnsafeRawBufferPointer(rebasing: text[0..<textLength]), into: out,
          allowWildcard: true)
      }
    }
    require(
      againLength == length && Array(again[0..<length]) == Array(name),
      "format then parse changed a name")
  }
}

/// EDNS padding of the input as a query: either refused (buffer unchanged)
/// or a valid message whose length is a multiple of the block.
func checkPadding(_ data: UnsafeRawBufferPointer, blockLength: Int) {
  var buffer = [UInt8](repeating: 0xA5, count: data.count + EDNSPadding.maximumQueryGrowth)
  buffer.withUnsafeMutableBytes { out in
    for index in 0..<data.count { out[index] = data[index] }
  }
  let before = buffer
  let padded = buffer.withUnsafeMutableBytes {
    EDNSPadding.padQuery($0, length: data.count, blockLength: blockLength)
  }
  guard let padded else {
    require(buffer == before, "padQuery refused but changed the buffer")
    return
  }
  require(padded >= data.count && padded <= buffer.count, "padded length out of range")
  buffer.withUnsafeBytes { raw in
    let bytes = UnsafeRawBufferPointer(rebasing: raw[0..<padded])
    guard let message = try? Message(validating: bytes) else {
      fatalError("a padded query does not validate")
    }
    require(message.opt != nil, "a padded query without OPT")
    require(
      padded == data.count || padded % blockLength == 0, "padded length is not a block multiple")
    let original = try? Message(validating: data)
    require(original?.id == message.id, "padding changed the ID")
    require(
      original.map { Array(data[$0.questionOffset..<$0.questionEnd]) }
        == Array(bytes[message.questionOffset..<message.questionEnd]),
      "padding changed the question")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let raw = UnsafeRawBufferPointer(start: data, count: size)
  var strict: Message? = nil
  do throws(WireError) {
    strict = try Message(validating: raw)
  } catch {}
  let lenient = try? Message(validating: raw, allowTrailingData: true)
  if let strict {
    require(lenient?.end == strict.end, "lenient parse disagrees with strict")
  }
  if let message = lenient {
    checkLayout(raw, message)
    let summary = Summary(raw, message)
    for compress in [true, false] {
      if let written = rewrite(summary, compress: compress) {
        checkRoundTrip(written, summary, compressed: compress)
      }
    }
  }
  checkNamesEverywhere(raw)
  checkPresentation(raw)
  checkPadding(raw, blockLength: size == 0 ? 128 : 1 + Int(raw[0] & 0x7F))
  return 0
}
