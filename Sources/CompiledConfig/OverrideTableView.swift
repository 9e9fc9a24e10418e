import DNSWire

/// Reads an `OverrideTable` through raw pointers, valid for one closure.
struct OverrideTableView {
  let records: UnsafeRawBufferPointer
  let index: UnsafeRawBufferPointer
  let fences: UnsafeRawBufferPointer

  var count: Int { index.count / OverrideRecord.offsetDigits }

  /// The byte of `records` at `offset`, or 0 past its end.
  func recordByte(_ offset: Int) -> UInt8 {
    offset < records.count ? records[offset] : 0
  }

  func digits(_ range: Range<Int>, from start: Int) -> Int {
    var value = 0
    for position in range.reversed() {
      value = value << 7 | Int(recordByte(start + position) & 0x7F)
    }
    return value
  }

  /// The `OverrideRecord.offsetDigits` (4) digits of `entry`'s offset,
  /// unrolled: this runs on every step of every binary search.
  func recordOffset(_ entry: Int) -> Int {
    let start = entry &* 4
    return Int(index[start] & 0x7F) | Int(index[start &+ 1] & 0x7F) &<< 7
      | Int(index[start &+ 2] & 0x7F) &<< 14 | Int(index[start &+ 3] & 0x7F) &<< 21
  }

  func kind(_ entry: Int) -> OverrideKind {
    OverrideKind(rawValue: recordByte(recordOffset(entry) + OverrideRecord.kind)) ?? .block
  }

  func match(_ entry: Int) -> OverrideMatch {
    let record = recordOffset(entry)
    let kind = OverrideKind(rawValue: recordByte(record + OverrideRecord.kind)) ?? .block
    guard kind == .exact || kind == .wildcard else {
      let group = kind == .route ? Int(recordByte(record + OverrideRecord.routeGroup)) : 0
      return OverrideMatch(kind: kind, ipv4Offset: 0, ipv4Count: group, ipv6Count: 0)
    }
    return OverrideMatch(
      kind: kind, ipv4Offset: digits(OverrideRecord.addressOffset, from: record),
      ipv4Count: digits(OverrideRecord.ipv4Count, from: record),
      ipv6Count: digits(OverrideRecord.ipv6Count, from: record))
  }

  func nameStart(_ entry: Int) -> Int {
    let record = recordOffset(entry)
    let kind = OverrideKind(rawValue: recordByte(record + OverrideRecord.kind)) ?? .block
    return record + OverrideRecord.headerSize(kind)
  }

  /// Where the flat name of `entry` lies: its labels up to the root
  /// octet, cut at the end of `records`.
  func nameRange(_ entry: Int) -> Range<Int> {
    let start = min(nameStart(entry), records.count)
    var end = start
    while end < records.count {
      let length = Int(records[end])
      end += 1
      if length == 0 { break }
      end += length
    }
    return start..<min(end, records.count)
  }

  func name(_ entry: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: records[nameRange(entry)])
  }

  /// The sign of (name of `entry`) − `candidate` in the order of
  /// `Name.compareIgnoringCase`: byte by byte with `candidate` lower-cased,
  /// a proper prefix first. The entry's name ends at its root octet, found
  /// by following its length octets, so its length is never stored.
  func compareName(_ entry: Int, _ candidate: UnsafeRawBufferPointer) -> Int {
    let start = nameStart(entry)
    var nextLengthOctet = 0
    for position in 0..<candidate.count {
      let stored = recordByte(start + position)
      let wanted = Name.asciiLowercased(candidate[position])
      if stored != wanted { return stored < wanted ? -1 : 1 }
      if position == nextLengthOctet {
        // The stored name ends here: equal if the candidate does too.
        if stored == 0 { return position + 1 == candidate.count ? 0 : -1 }
        nextLengthOctet += 1 + Int(stored)
      }
    }
    return 1
  }

  /// The first entry whose name is not below `candidate` in table order.
  func lowerBound(_ candidate: UnsafeRawBufferPointer) -> Int {
    let stretch = fencedStretch(candidate)
    var low = stretch.lowerBound
    var high = stretch.upperBound
    while low < high {
      let middle = (low + high) / 2
      if compareName(middle, candidate) < 0 {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  /// Entries between two fences that must hold the lower bound of
  /// `candidate`, or all entries without (well-sized) fences.
  ///
  /// A fence's key is a prefix of its entry's name, so keys are in table
  /// order, and a key below the candidate's (its first eight bytes,
  /// lower-cased) means the entry's name is below the candidate, a key above
  /// means above. So the lower bound is past the last fence whose key is
  /// below and at most the first fence whose key is above; equal keys (names
  /// sharing eight bytes) widen the stretch, found by two binary searches.
  func fencedStretch(_ candidate: UnsafeRawBufferPointer) -> Range<Int> {
    let stride = OverrideRecord.fenceStride
    let fenceCount = fences.count / OverrideRecord.fenceKeySize
    guard fenceCount > 0, fenceCount == (count + stride - 1) / stride,
      fences.count == fenceCount * OverrideRecord.fenceKeySize
    else { return 0..<count }
    var key: UInt64 = 0
    for position in 0..<OverrideRecord.fenceKeySize {
      let byte = position < candidate.count ? Name.asciiLowercased(candidate[position]) : 0
      key = key &<< 8 | UInt64(byte)
    }
    let firstNotBelow = firstFence { $0 >= key }
    let firstAbove = firstFence(from: firstNotBelow) { $0 > key }
    let low = firstNotBelow == 0 ? 0 : (firstNotBelow - 1) * stride + 1
    return low..<min(count, firstAbove * stride)
  }

  /// The first fence from `start` whose key satisfies `isPast`, a predicate
  /// false for a prefix of the fences and true for the rest; the fence
  /// count if none does.
  func firstFence(from start: Int = 0, where isPast: (UInt64) -> Bool) -> Int {
    var low = start
    var high = fences.count / OverrideRecord.fenceKeySize
    while low < high {
      let middle = (low + high) / 2
      if isPast(fenceKey(middle)) {
        high = middle
      } else {
        low = middle + 1
      }
    }
    return low
  }

  /// The key of fence `fence`, big-endian, so that integer order is name order.
  func fenceKey(_ fence: Int) -> UInt64 {
    let start = fence &* OverrideRecord.fenceKeySize
    var key: UInt64 = 0
    for position in 0..<OverrideRecord.fenceKeySize {
      key = key &<< 8 | UInt64(fences[start &+ position])
    }
    return key
  }
}
