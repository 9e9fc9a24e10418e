/// Builds a message into a caller-owned buffer; never allocates. Every write
/// checks the remaining room and throws `.bufferFull` rather than overrun.
///
/// Names are compressed (RFC 1035 §4.1.4) against the names this writer has
/// written before: the longest suffix already present becomes a pointer.
public struct MessageWriter {
  public let buffer: UnsafeMutableRawBufferPointer
  /// Bytes written so far; the message is `buffer[0..<count]`.
  public private(set) var count: Int = 0
  /// Start offsets of names written with compression enabled.
  private var nameOffsets: InlineArray<16, UInt16> = .init(repeating: 0)
  private var nameCount = 0
  /// Pointers can only reach the first 16 KiB (14-bit offsets).
  private static let maxPointerTarget = 0x3FFF

  public init(buffer: UnsafeMutableRawBufferPointer) {
    self.buffer = buffer
  }

  public var written: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: buffer[0..<count])
  }

  @inline(__always)
  private func ensure(_ needed: Int) throws(WireError) {
    guard count + needed <= buffer.count else { throw .bufferFull }
  }

  public mutating func writeUInt8(_ value: UInt8) throws(WireError) {
    try ensure(1)
    buffer[count] = value
    count += 1
  }

  public mutating func writeUInt16(_ value: UInt16) throws(WireError) {
    try ensure(2)
    buffer.setUInt16(value, at: count)
    count += 2
  }

  public mutating func writeUInt32(_ value: UInt32) throws(WireError) {
    try ensure(4)
    buffer.setUInt32(value, at: count)
    count += 4
  }

  public mutating func write(_ bytes: UnsafeRawBufferPointer) throws(WireError) {
    try ensure(bytes.count)
    if bytes.count > 0 {
      UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + bytes.count)])
        .copyMemory(from: bytes)
    }
    count += bytes.count
  }

  /// Overwrites a 16-bit field already written (a count, an RDLENGTH).
  public func patchUInt16(_ value: UInt16, at offset: Int) {
    precondition(offset + 2 <= count, "patch outside the written message")
    buffer.setUInt16(value, at: offset)
  }

  /// The header with the given counts (RFC 1035 §4.1.1).
  public mutating func writeHeader(
    id: UInt16, flags: HeaderFlags, questions: UInt16 = 0, answers: UInt16 = 0,
    authorities: UInt16 = 0, additionals: UInt16 = 0
  ) throws(WireError) {
    try writeUInt16(id)
    try writeUInt16(flags.rawValue)
    try writeUInt16(questions)
    try writeUInt16(answers)
    try writeUInt16(authorities)
    try writeUInt16(additionals)
  }

  /// Writes a flat name, as a pointer to an earlier copy of its longest
  /// suffix when `compress` is set and one exists.
  public mutating func writeName(_ name: UnsafeRawBufferPointer, compress: Bool = true)
    throws(WireError)
  {
    let start = count
    var suffix = 0
    if compress {
      while suffix < name.count, name[suffix] != 0 {
        if let target = findWritten(UnsafeRawBufferPointer(rebasing: name[suffix...])) {
          try write(UnsafeRawBufferPointer(rebasing: name[0..<suffix]))
          try writeUInt16(0xC000 | UInt16(target))
          remember(start)
          return
        }
        suffix += 1 + Int(name[suffix])
      }
    }
    try write(name)
    if compress { remember(start) }
  }

  private mutating func remember(_ offset: Int) {
    guard nameCount < 16, offset <= Self.maxPointerTarget else { return }
    nameOffsets[nameCount] = UInt16(offset)
    nameCount += 1
  }

  /// Looks for `suffix` (a flat name, not the root) at a label boundary of a
  /// name written earlier; returns the offset to point at.
  private func findWritten(_ suffix: UnsafeRawBufferPointer) -> Int? {
    let message = UnsafeRawBufferPointer(buffer)
    for index in 0..<nameCount {
      var position = Int(nameOffsets[index])
      // Walk the labels written in place (a pointer ends the in-place part).
      while position < count, message[position] != 0, message[position] & 0xC0 == 0 {
        if position <= Self.maxPointerTarget, nameMatches(suffix, at: position) {
          return position
        }
        position += 1 + Int(message[position])
      }
    }
    return nil
  }

  /// Whether the possibly compressed name at `offset` in this writer's
  /// output equals the flat `name`, ignoring case.
  private func nameMatches(_ name: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    let message = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])
    var position = offset
    var index = 0
    var jumps = 0
    while index < name.count, position < message.count {
      let lengthByte = message[position]
      if lengthByte & 0xC0 == 0xC0 {
        guard position + 1 < message.count, jumps < 64 else { return false }
        position = Int(lengthByte & 0x3F) << 8 | Int(message[position + 1])
        jumps += 1
        continue
      }
      let labelLength = Int(lengthByte)
      guard name[index] == lengthByte, index + 1 + labelLength <= name.count,
        position + 1 + labelLength <= message.count
      else { return false }
      if labelLength == 0 { return index + 1 == name.count }
      for offset in 1...labelLength
      where Name.asciiLowercased(name[index + offset])
        != Name.asciiLowercased(message[position + offset])
      {
        return false
      }
      index += 1 + labelLength
      position += 1 + labelLength
    }
    return false
  }

  /// A question entry (RFC 1035 §4.1.2).
  public mutating func writeQuestion(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, compress: Bool = true
  ) throws(WireError) {
    try writeName(name, compress: compress)
    try writeUInt16(type.rawValue)
    try writeUInt16(rrClass.rawValue)
  }

  /// A resource record whose RDATA is given as bytes (A, AAAA, TXT...).
  public mutating func writeRecord(
    name: UnsafeRawBufferPointer, type: RRType, rrClass: RRClass, ttl: UInt32,
    rdata: UnsafeRawBufferPointer
  ) throws(WireError) {
    guard rdata.count <= 0xFFFF else { throw .bufferFull }
    try writeName(name)
    try writeFieldsAfterOwner(type: type, rrClass: rrClass, ttl: ttl, rdata: rdata)
  }

  /// A record whose owner is a pointer to an earlier offset (typically 12,
  /// the question name): the cheapest form for local answers.
  public mutating func writeRecord(
    pointerTo target: Int, type: RRType, rrClass: RRClass, ttl: UInt32,
    rdata: UnsafeRawBufferPointer
  ) throws(WireError) {
    precondition(target <= Self.maxPointerTarget && target < count, "pointer must go backwards")
    guard rdata.count <= 0xFFFF else { throw .bufferFull }
    try writeUInt16(0xC000 | UInt16(target))
    try writeFieldsAfterOwner(type: type, rrClass: rrClass, ttl: ttl, rdata: rdata)
  }

  /// TYPE, CLASS, TTL, RDLENGTH and RDATA (RFC 1035 §4.1.3); the callers
  /// have checked that RDATA fits RDLENGTH's 16 bits.
  private mutating func writeFieldsAfterOwner(
    type: RRType, rrClass: RRClass, ttl: UInt32, rdata: UnsafeRawBufferPointer
  ) throws(WireError) {
    try writeUInt16(type.rawValue)
    try writeUInt16(rrClass.rawValue)
    try writeUInt32(ttl)
    try writeUInt16(UInt16(rdata.count))
    try write(rdata)
  }

  /// The OPT pseudo-record (RFC 6891 §6.1.2) without options.
  public mutating func writeOPT(
    udpPayloadSize: UInt16, extendedRcode: UInt8 = 0, dnssecOK: Bool = false
  ) throws(WireError) {
    try writeUInt8(0)
    try writeUInt16(RRType.opt.rawValue)
    try writeUInt16(udpPayloadSize)
    try writeUInt32(UInt32(extendedRcode) << 24 | (dnssecOK ? OPTRecord.dnssecOKBit : 0))
    try writeUInt16(0)
  }
}
