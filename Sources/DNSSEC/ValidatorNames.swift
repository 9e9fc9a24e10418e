// Name and record look-ups the validator needs: ancestry of flat names,
// the trust anchor closest to a name, and the records of one RRset in a
// message section. Everything reads in place; nothing allocates.

import CompiledConfig
import DNSWire

enum ValidatorNames {
  /// Whether `name` is `ancestor` or below it (both flat, any case):
  /// `ancestor` must be a whole-label suffix of `name`.
  static func isAtOrBelow(_ name: UnsafeRawBufferPointer, _ ancestor: UnsafeRawBufferPointer)
    -> Bool
  {
    guard ancestor.count <= name.count else { return false }
    var position = 0
    while name.count - position > ancestor.count, position < name.count, name[position] != 0 {
      position += 1 + Int(name[position])
    }
    return name.count - position == ancestor.count
      && Name.equalIgnoringCase(UnsafeRawBufferPointer(rebasing: name[position...]), ancestor)
  }

  /// The offset in `name` where its rightmost `labels` labels begin (the
  /// whole name when it has no more than that).
  static func offset(ofLast labels: Int, in name: UnsafeRawBufferPointer) -> Int {
    var skip = Name.labelCount(name) - labels
    var position = 0
    while skip > 0 {
      position += 1 + Int(name[position])
      skip -= 1
    }
    return position
  }

  /// The rightmost `labels` labels of `name` as a name of its own.
  static func suffix(_ name: UnsafeRawBufferPointer, labels: Int) -> CanonicalName? {
    CanonicalName(UnsafeRawBufferPointer(rebasing: name[offset(ofLast: labels, in: name)...]))
  }

  /// `*.` followed by `name`, or nil when that is longer than 255 octets.
  static func wildcard(below name: UnsafeRawBufferPointer) -> CanonicalName? {
    guard name.count + 2 <= Name.maxLength else { return nil }
    var buffer = InlineArray<257, UInt8>(repeating: 0)
    return withUnsafeMutableBytes(of: &buffer) { output in
      output[0] = 1
      output[1] = UInt8(ascii: "*")
      for index in 0..<name.count { output[2 + index] = name[index] }
      return CanonicalName(UnsafeRawBufferPointer(rebasing: output[0..<(name.count + 2)]))
    }
  }

  /// The number of labels of the closest trust anchor at or above `name`
  /// (RFC 4035 §4.4), or nil when no anchor encloses it.
  static func closestAnchorLabels(_ anchors: TrustAnchors, _ name: UnsafeRawBufferPointer) -> Int? {
    anchors.withIterator { iterator in
      var best: Int? = nil
      while let anchor = iterator.next() {
        guard isAtOrBelow(name, anchor.owner) else { continue }
        let labels = Name.labelCount(anchor.owner)
        if best == nil || labels > best! { best = labels }
      }
      return best
    }
  }

  /// The canonical owner name of a record.
  static func owner(of record: ResourceRecord, in message: Message) -> CanonicalName? {
    CanonicalName(in: message, at: record.offset)
  }

  /// Whether the record at `record` is owned by `name` (flat, any case).
  static func isOwned(
    _ record: ResourceRecord, by name: UnsafeRawBufferPointer, in message: Message
  ) -> Bool {
    guard record.nameLength == name.count, var owner = CanonicalName(in: message, at: record.offset)
    else { return false }
    return owner.withBytes { Name.equalIgnoringCase($0, name) }
  }
}

/// The records of one section of a message, optionally only those of one
/// type and owner: a walk that cannot fail (the message was validated).
struct SectionRecords: IteratorProtocol {
  let message: Message
  var position: Int
  var end: Int

  init(_ message: Message, _ section: Section) {
    self.message = message
    (position, end) = SignedData.bounds(of: section, in: message)
  }

  mutating func next() -> ResourceRecord? {
    guard position < end, let record = try? ResourceRecord(in: message.bytes, at: position) else {
      return nil
    }
    position = record.end
    return record
  }

  /// The first record of `type` owned by `name`, if any.
  static func first(
    _ message: Message, _ section: Section, type: RRType, owner name: UnsafeRawBufferPointer
  ) -> ResourceRecord? {
    var records = SectionRecords(message, section)
    while let record = records.next() {
      if record.type == type, ValidatorNames.isOwned(record, by: name, in: message) {
        return record
      }
    }
    return nil
  }
}

extension RRType {
  /// DNAME (RFC 6672 §2.1).
  static let dname = RRType(rawValue: 39)
}
