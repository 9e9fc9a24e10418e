import CompiledConfig
import DNSWire

/// RFC 4035 §3.2.1: a client that did not set DO gets no RRSIG, NSEC or
/// NSEC3 records unless it asked for that type. With `dnssec on` every
/// upstream query has DO=1, so answers carry them; the cache stores each
/// answer as received (one entry per DO bit of the question, as before)
/// and they are taken out when the reply to a DO=0 client is written —
/// relayed or from the cache — in place in the reply buffer.
///
/// Taking records out moves the ones after them, so every compression
/// pointer in a kept record is rewritten: in owner names, and in the
/// RDATA names that may be compressed (RFC 3597 §4: NS, CNAME, SOA, PTR,
/// MX). A pointer into a removed record cannot be rewritten: the reply is
/// then sent unstripped (a DO=0 client ignores what it does not know), as
/// it is when more than `maxStripped` records would go.
extension ValidationPool {
  /// Whether a reply to a waiter with these bits is stripped while
  /// `dnssec` is `on`.
  func strips(dnssecOK: Bool, type: RRType, dnssec on: Bool) -> Bool {
    on && !dnssecOK && !DNSSECRecords.isDNSSECType(type)
  }

  /// Strips the message in `output`; returns its new length.
  func stripDNSSECRecords(in output: UnsafeMutableRawBufferPointer) -> Int {
    compact(output, removing: .dnssec)
  }

  /// RFC 4035 §3.2.3: AD only when every RRset of the answer and authority
  /// sections is authentic. The validator proves the answer section and
  /// the SOA, NSEC and NSEC3 records of the authority section; a secure
  /// answer is cached and relayed without the rest (an unsigned NS RRset
  /// of a full response, additional glue), as a minimal response. Compacts
  /// `reply`'s own bytes (the receive or pending buffer it was read from,
  /// handed over whole to `deliver`); unchanged when a kept record's
  /// compression pointer leads into one that would go.
  func keepingValidatedRecords(_ reply: Message) -> Message {
    let bytes = UnsafeMutableRawBufferPointer(mutating: reply.bytes)
    let length = compact(bytes, removing: .unvalidated)
    guard length < reply.bytes.count,
      let compacted = try? Message(
        validating: UnsafeRawBufferPointer(rebasing: reply.bytes[0..<length]))
    else { return reply }
    return compacted
  }

  /// What `compact` takes out of a message.
  enum RecordRemoval {
    /// RRSIG, NSEC and NSEC3 (a DO=0 client).
    case dnssec
    /// Authority records but SOA, NSEC, NSEC3 and their RRSIGs; additional
    /// records but OPT (a secure answer).
    case unvalidated
  }

  /// Takes the records `removal` names out of the message in `output` and
  /// moves the rest up, their compression pointers with them; returns the
  /// new length (`output.count` when nothing could be taken out).
  func compact(_ output: UnsafeMutableRawBufferPointer, removing removal: RecordRemoval) -> Int {
    let length = output.count
    let bytes = UnsafeRawBufferPointer(output)
    guard let message = try? Message(validating: bytes, allowTrailingData: true) else {
      return length
    }
    let ranges = strippedRanges
    var removed = 0
    var removedInSection = (0, 0, 0)
    var index = 0
    var records = message.records()
    while let record = records.next() {
      defer { index += 1 }
      let section =
        index < message.answerCount
        ? 0 : index < message.answerCount + message.authorityCount ? 1 : 2
      guard DNSSECRecords.removes(record, section: section, in: message, removal) else { continue }
      guard removed < ValidationPool.maxStripped else { return length }
      ranges[2 * removed] = Int32(record.offset)
      ranges[2 * removed + 1] = Int32(record.end)
      removed += 1
      switch section {
      case 0: removedInSection.0 += 1
      case 1: removedInSection.1 += 1
      default: removedInSection.2 += 1
      }
    }
    guard removed > 0 else { return length }
    // Every pointer of a kept record must land outside what goes.
    records = message.records()
    while let record = records.next() {
      if DNSSECRecords.isRemoved(record, ranges: ranges, count: removed) { continue }
      guard
        movePointers(
          in: output, record: record, at: record.offset, removed: removed, rewrite: false)
      else { return length }
    }
    var write = message.answerOffset
    records = message.records()
    while let record = records.next() {
      if DNSSECRecords.isRemoved(record, ranges: ranges, count: removed) { continue }
      let recordLength = record.end - record.offset
      if write != record.offset {
        (output.baseAddress! + write).copyMemory(
          from: output.baseAddress! + record.offset, byteCount: recordLength)
      }
      _ = movePointers(in: output, record: record, at: write, removed: removed, rewrite: true)
      write += recordLength
    }
    output.setUInt16(
      UInt16(message.answerCount - removedInSection.0), at: HeaderField.answerCount)
    output.setUInt16(
      UInt16(message.authorityCount - removedInSection.1), at: HeaderField.authorityCount)
    output.setUInt16(
      UInt16(message.additionalCount - removedInSection.2), at: HeaderField.additionalCount)
    return write
  }

  /// A secure answer relayed: no record's TTL above what validation allows
  /// (RFC 4035 §5.3.3: the RRSIG's original TTL and expiration).
  func capTTLs(in output: UnsafeMutableRawBufferPointer, to limit: UInt32) {
    guard limit != .max else { return }
    guard let message = try? Message(validating: UnsafeRawBufferPointer(output)) else { return }
    var records = message.records()
    while let record = records.next() {
      if record.type != .opt && record.ttl > limit {
        output.setUInt32(limit, at: record.ttlOffset)
      }
    }
  }

  /// Checks (`rewrite` false: every target lies outside the `removed`
  /// ranges) or moves (each target less the removed bytes before it) the
  /// compression pointers in `record`'s names, its bytes now at `start`
  /// (`record`'s offsets are where it was read). False when a check fails.
  func movePointers(
    in bytes: UnsafeMutableRawBufferPointer, record: ResourceRecord, at start: Int,
    removed: Int, rewrite: Bool
  ) -> Bool {
    let shift = record.offset - start
    let rdataStart = record.rdataOffset - shift
    let rdataEnd = record.end - shift
    var position = start
    var limit = rdataStart
    // The owner, then the RDATA names that may be compressed (RFC 3597
    // §4): NS, CNAME, PTR: one; MX: after the preference; SOA: two.
    var names = 1
    switch record.type.rawValue {
    case 2, 5, 12: names = 2
    case 15: names = 2
    case 6: names = 3
    default: break
    }
    for index in 0..<names {
      if index == 1 {
        position = rdataStart + (record.type.rawValue == 15 ? 2 : 0)
        limit = rdataEnd
      }
      guard
        let end = movePointer(
          in: bytes, name: position, limit: limit, removed: removed, rewrite: rewrite)
      else { return false }
      position = end
    }
    return true
  }

  /// Walks the name at `position` (before `limit`) to its end, checking or
  /// moving its pointer if it has one. Returns where the name ends, nil
  /// when the pointer's target lies in a removed record.
  func movePointer(
    in bytes: UnsafeMutableRawBufferPointer, name position: Int, limit: Int, removed: Int,
    rewrite: Bool
  ) -> Int? {
    var position = position
    while position < limit {
      let length = Int(bytes[position])
      if length == 0 { return position + 1 }
      if length & 0xC0 == 0xC0 {
        guard position + 1 < limit else { return limit }
        let target = Int(bytes.getUInt16(at: position) & 0x3FFF)
        guard
          let before = DNSSECRecords.removedBytes(
            before: target, ranges: strippedRanges, count: removed)
        else { return nil }
        if rewrite {
          bytes.setUInt16(0xC000 | UInt16(truncatingIfNeeded: target - before), at: position)
        }
        return position + 2
      }
      position += 1 + length
    }
    return limit
  }
}

/// Which records a reply to a DO=0 client leaves out, and how many bytes
/// that removes before an offset (ValidationStripping.swift).
enum DNSSECRecords {
  /// Bytes of removed records before `target`, nil when it lies inside one.
  static func removedBytes(
    before target: Int, ranges: UnsafeMutablePointer<Int32>, count: Int
  ) -> Int? {
    var total = 0
    for range in 0..<count {
      let start = Int(ranges[2 * range])
      let end = Int(ranges[2 * range + 1])
      if target >= end {
        total += end - start
      } else if target >= start {
        return nil
      }
    }
    return total
  }

  /// Whether `record` starts one of the first `count` removed ranges.
  static func isRemoved(_ record: ResourceRecord, ranges: UnsafeMutablePointer<Int32>, count: Int)
    -> Bool
  {
    for range in 0..<count where Int(ranges[2 * range]) == record.offset { return true }
    return false
  }

  static func removes(
    _ record: ResourceRecord, section: Int, in message: Message,
    _ removal: ValidationPool.RecordRemoval
  ) -> Bool {
    switch removal {
    case .dnssec: return isDNSSECType(record.type)
    case .unvalidated:
      if section == 2 { return record.type != .opt }
      guard section == 1 else { return false }
      var type = record.type
      if type == .rrsig, record.rdataLength >= 2 {
        type = RRType(rawValue: message.bytes.getUInt16(at: record.rdataOffset))
      }
      return type != .soa && type != .nsec && type != .nsec3
    }
  }

  static func isDNSSECType(_ type: RRType) -> Bool {
    type == .rrsig || type == .nsec || type == .nsec3
  }
}
