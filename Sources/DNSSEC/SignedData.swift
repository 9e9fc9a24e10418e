// The data an RRSIG signs (RFC 4034 §3.1.8.1, §6; RFC 4035 §5.3.2), built
// from the records of one message section into a buffer the caller owns:
//
//     signed data = RRSIG RDATA without the signature (signer lower-cased)
//                   | RR(1) | RR(2) | ...   in canonical RDATA order (§6.3)
//     RR(i)       = owner | type | class | original TTL | RDLENGTH | RDATA
//
// with every name in canonical form (§6.2): uncompressed, and lower-cased
// where RFC 4034 §6.2 item 3 (less NSEC, RFC 6840 §5.1) says so.

import DNSWire

public enum SignedData {
  /// The most records of one RRset that `write` sorts; a larger RRset is
  /// refused (its order would need a heap).
  public static let maxRecords = 64
  /// A type's canonical RDATA that is compared while sorting must fit this
  /// (the name-bearing types: at most about 1,030 octets for NAPTR).
  static let maxComparedRDATA = 2048

  /// Writes the signed data of `rrsig` over the RRset it covers: the
  /// records of `section` with the RRSIG's owner (ignoring case), class and
  /// covered type, duplicates once. When the RRSIG's Labels field is less
  /// than the owner's label count the owner is the wildcard it was expanded
  /// from, `*.` and the rightmost Labels labels (RFC 4035 §5.3.2).
  /// - Returns: the length written, or nil if the RRset is empty or has more
  ///   than `maxRecords` records, a record's RDATA is malformed, Labels
  ///   exceeds the owner's labels, or `output` is too small.
  public static func write(
    for rrsig: RRSIGRecord, in message: Message, section: Section,
    into output: UnsafeMutableRawBufferPointer
  ) -> Int? {
    guard var owner = CanonicalName(in: message, at: rrsig.ownerOffset),
      var signedOwner = signedOwnerName(owner: &owner, labels: rrsig.labels)
    else { return nil }
    var writer = OutputCursor(output)
    guard writer.append(rrsig.fixedFields), writer.appendLowercased(rrsig.signerName) else {
      return nil
    }

    let (start, end) = bounds(of: section, in: message)
    var offsets = InlineArray<64, Int>(repeating: 0)
    var count = 0
    var position = start
    while position < end, let record = try? ResourceRecord(in: message.bytes, at: position) {
      position = record.end
      guard record.type == rrsig.typeCovered, record.rrClass == rrsig.rrClass,
        record.nameLength == owner.count,
        var recordOwner = CanonicalName(in: message, at: record.offset),
        recordOwner.withBytes({ left in owner.withBytes { Name.equalIgnoringCase(left, $0) } })
      else { continue }
      guard count < maxRecords else { return nil }
      // Insertion sort by canonical RDATA; an equal RDATA is a duplicate.
      var slot = count
      var duplicate = false
      while slot > 0 {
        guard let order = compareRDATA(offsets[slot - 1], record.offset, in: message) else {
          return nil
        }
        if order == 0 { duplicate = true }
        if order <= 0 { break }
        slot -= 1
      }
      if duplicate { continue }
      var move = count
      while move > slot {
        offsets[move] = offsets[move - 1]
        move -= 1
      }
      offsets[slot] = record.offset
      count += 1
    }
    guard count > 0 else { return nil }

    for index in 0..<count {
      guard let record = try? ResourceRecord(in: message.bytes, at: offsets[index]),
        signedOwner.withBytes({ writer.append($0) }), writer.appendUInt16(record.type.rawValue),
        writer.appendUInt16(record.rrClass.rawValue), writer.appendUInt32(rrsig.originalTTL)
      else { return nil }
      let lengthOffset = writer.count
      guard writer.appendUInt16(0),
        let length = canonicalRDATA(of: record, in: message, into: writer.remaining),
        length <= 0xFFFF
      else { return nil }
      writer.advance(length)
      writer.output.setUInt16(UInt16(length), at: lengthOffset)
    }
    return writer.count
  }

  /// The owner the signature covers: the owner itself, or its wildcard.
  static func signedOwnerName(owner: inout CanonicalName, labels: Int) -> CanonicalName? {
    owner.withBytes { name -> CanonicalName? in
      var labelCount = Name.labelCount(name)
      if labelCount > 0, name[0] == 1, name[1] == UInt8(ascii: "*") { labelCount -= 1 }
      guard labels <= labelCount else { return nil }
      if labels == labelCount { return CanonicalName(name) }
      var position = 0
      for _ in 0..<(Name.labelCount(name) - labels) { position += 1 + Int(name[position]) }
      var wildcard = InlineArray<257, UInt8>(repeating: 0)
      return withUnsafeMutableBytes(of: &wildcard) { buffer in
        buffer[0] = 1
        buffer[1] = UInt8(ascii: "*")
        for index in position..<name.count { buffer[2 + index - position] = name[index] }
        return CanonicalName(
          UnsafeRawBufferPointer(rebasing: buffer[0..<(2 + name.count - position)]))
      }
    }
  }

  static func bounds(of section: Section, in message: Message) -> (Int, Int) {
    switch section {
    case .answer: return (message.answerOffset, message.authorityOffset)
    case .authority: return (message.authorityOffset, message.additionalOffset)
    case .additional: return (message.additionalOffset, message.end)
    }
  }

  /// Orders two records of one type by canonical RDATA (RFC 4034 §6.3: left
  /// justified octet strings, a missing octet before a zero octet). Nil when
  /// either RDATA is malformed or too large to compare.
  static func compareRDATA(_ leftOffset: Int, _ rightOffset: Int, in message: Message) -> Int? {
    guard let left = try? ResourceRecord(in: message.bytes, at: leftOffset),
      let right = try? ResourceRecord(in: message.bytes, at: rightOffset)
    else { return nil }
    guard RDATALayout(left.type) != nil else {
      return compareOctets(
        UnsafeRawBufferPointer(rebasing: message.bytes[left.rdataOffset..<left.end]),
        UnsafeRawBufferPointer(rebasing: message.bytes[right.rdataOffset..<right.end]))
    }
    var leftBuffer = InlineArray<2048, UInt8>(repeating: 0)
    var rightBuffer = InlineArray<2048, UInt8>(repeating: 0)
    return withUnsafeMutableBytes(of: &leftBuffer) { leftOut -> Int? in
      withUnsafeMutableBytes(of: &rightBuffer) { rightOut -> Int? in
        guard let leftLength = canonicalRDATA(of: left, in: message, into: leftOut),
          let rightLength = canonicalRDATA(of: right, in: message, into: rightOut)
        else { return nil }
        return compareOctets(
          UnsafeRawBufferPointer(rebasing: leftOut[0..<leftLength]),
          UnsafeRawBufferPointer(rebasing: rightOut[0..<rightLength]))
      }
    }
  }

  static func compareOctets(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    for index in 0..<min(lhs.count, rhs.count) where lhs[index] != rhs[index] {
      return lhs[index] < rhs[index] ? -1 : 1
    }
    return lhs.count - rhs.count
  }

  /// Writes a record's canonical RDATA (RFC 4034 §6.2 items 2 and 3):
  /// embedded names decompressed and lower-cased. Nil when the RDATA is
  /// malformed for its type or `output` is too small.
  static func canonicalRDATA(
    of record: ResourceRecord, in message: Message, into output: UnsafeMutableRawBufferPointer
  ) -> Int? {
    let bytes = message.bytes
    let end = record.end
    var writer = OutputCursor(output)
    guard let layout = RDATALayout(record.type) else {
      return writer.append(UnsafeRawBufferPointer(rebasing: bytes[record.rdataOffset..<end]))
        ? writer.count : nil
    }
    var before = layout.octetsBefore
    if layout.characterStringsBefore > 0 {
      for _ in 0..<layout.characterStringsBefore {
        guard record.rdataOffset + before < end else { return nil }
        before += 1 + Int(bytes[record.rdataOffset + before])
      }
    }
    guard record.rdataOffset + before <= end,
      writer.append(
        UnsafeRawBufferPointer(rebasing: bytes[record.rdataOffset..<(record.rdataOffset + before)]))
    else { return nil }
    var position = record.rdataOffset + before
    let upToEnd = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
    for _ in 0..<layout.names {
      guard
        let name = try? Name.read(
          in: upToEnd, at: position, into: writer.remaining, lowercase: true,
          firstTarget: HeaderField.size)
      else { return nil }
      writer.advance(name.length)
      position = name.end
    }
    guard position + layout.octetsAfter <= end,
      layout.restIsOpaque || position + layout.octetsAfter == end,
      writer.append(UnsafeRawBufferPointer(rebasing: bytes[position..<end]))
    else { return nil }
    return writer.count
  }
}

/// Where the domain names sit in the RDATA of the types RFC 4034 §6.2
/// item 3 lists (as amended by RFC 6840 §5.1: not NSEC; HINFO holds no
/// name; A6 is historic, RFC 6563, and left opaque). Nil for other types.
struct RDATALayout {
  var octetsBefore = 0
  var characterStringsBefore = 0
  var names = 1
  var octetsAfter = 0
  /// Whether octets of any length may follow the names (a signature, a
  /// bitmap); otherwise exactly `octetsAfter`.
  var restIsOpaque = false

  init?(_ type: RRType) {
    switch type.rawValue {
    // NS, MD, MF, CNAME, MB, MG, MR, PTR, DNAME (RFC 1035 §3.3, RFC 6672)
    case 2, 3, 4, 5, 7, 8, 9, 12, 39: break
    // SOA: MNAME, RNAME, then five 32-bit fields (RFC 1035 §3.3.13)
    case 6: (names, octetsAfter) = (2, 20)
    // MINFO, RP (RFC 1035 §3.3.7, RFC 1183 §2.2)
    case 14, 17: names = 2
    // MX, AFSDB, RT, KX: a 16-bit preference first
    case 15, 18, 21, 36: octetsBefore = 2
    // PX (RFC 2163 §4): preference, MAP822, MAPX400
    case 26: (octetsBefore, names) = (2, 2)
    // SRV (RFC 2782): priority, weight, port
    case 33: octetsBefore = 6
    // NAPTR (RFC 3403 §4.1): order, preference, flags, services, regexp
    case 35: (octetsBefore, characterStringsBefore) = (4, 3)
    // NXT (RFC 2535 §5.2): next name, bitmap
    case 30: restIsOpaque = true
    // SIG, RRSIG (RFC 2535 §4.1, RFC 4034 §3.1): fixed fields, signer, signature
    case 24, 46: (octetsBefore, restIsOpaque) = (18, true)
    default: return nil
    }
  }
}

/// Appends to a caller's buffer, refusing (false) what does not fit.
struct OutputCursor {
  let output: UnsafeMutableRawBufferPointer
  private(set) var count = 0

  init(_ output: UnsafeMutableRawBufferPointer) { self.output = output }

  var remaining: UnsafeMutableRawBufferPointer {
    UnsafeMutableRawBufferPointer(rebasing: output[count...])
  }

  mutating func advance(_ length: Int) { count += length }

  mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count <= output.count - count else { return false }
    if bytes.count > 0 { remaining.copyMemory(from: bytes) }
    count += bytes.count
    return true
  }

  mutating func appendLowercased(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count <= output.count - count else { return false }
    for index in 0..<bytes.count { output[count + index] = Name.asciiLowercased(bytes[index]) }
    count += bytes.count
    return true
  }

  mutating func appendUInt16(_ value: UInt16) -> Bool {
    guard count + 2 <= output.count else { return false }
    output.setUInt16(value, at: count)
    count += 2
    return true
  }

  mutating func appendUInt32(_ value: UInt32) -> Bool {
    guard count + 4 <= output.count else { return false }
    output.setUInt32(value, at: count)
    count += 4
    return true
  }
}
